"""``seedance plan POLICY``: the reserved / spot / on-demand mix, instance types and checkpoint
interval of every fleet, with the expected monthly compute cost and a reason per decision."""

from __future__ import annotations

import datetime as dt
import difflib
import re
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table
from rich.text import Text

from seedance import jsonout
from seedance.commands.outputs import NonEmptyPath
from seedance.commands.stack_option import joins_cluster, project_dir_option, stack_files, stack_name
from seedance.planner.plan import Plan, unpriced_components
from seedance.policy.model import MAX_NODES


def _money(value: float | None, currency: str) -> str:
    return "—" if value is None else f"{value:,.0f} {currency}"


def render_plan(out: Console, plan: Plan) -> None:
    cur = plan.currency
    as_of = f", as of {plan.as_of}" if plan.as_of else ""
    table = Table(title=Text(f"Plan: {plan.policy} ({plan.environment}, {plan.region}{as_of}) — monthly, {cur}"))
    for col, justify in [("Fleet", "left"), ("Instance types (weight)", "left"), ("Reserved", "right"),
                         ("Buy now", "left"), ("OD base", "right"), ("Spot above base", "right"),
                         ("Checkpoint", "right"), ("Monthly", "right"), ("All on-demand", "right")]:
        table.add_column(col, justify=justify)  # type: ignore[arg-type]
    for f in plan.fleets:
        types = ", ".join(f"{c.instance_type}" + (f"×{c.weight}" if c.weight != 1 else "") for c in f.instance_types)
        buy = ", ".join(f"{n} × {t}" for t, n in f.new_purchases) or "—"
        if f.checkpoint_interval_s is None:
            ck = "—"
        else:
            ck = (f"{f.checkpoint_interval_s / 60:,.0f} min" if f.checkpoint_interval_s >= 90
                  else f"{f.checkpoint_interval_s:.3g} s")
            if f.checkpoint_overhead is not None:
                ck += f" ({f.checkpoint_overhead:.1%})"
        spot = f"{f.spot_share_above_base:.0%}" + (f" {f.allocation_strategy}" if f.spot_share_above_base else "")
        monthly = _money(f.monthly_cost, cur) + (" + unpriced" if f.partial else "")  # a lower bound
        table.add_row(Text(f.name, style="bold"), Text(types or "none qualifies"), str(f.reserved_units), Text(buy),
                      str(f.on_demand_base), Text(spot), ck, monthly, _money(f.monthly_cost_all_ondemand, cur))
    out.print(table)
    for f in plan.fleets:
        out.print(Text(f"{f.name}:", style="bold"))
        for decision, why in f.rationale.items():
            out.print(Text(f"  {decision}: {why}"))
    label = "Fleet compute (partial: some components have no sourced price)" if plan.partial else "Fleet compute"
    at_least = "at least " if plan.savings_upper_bound else ""
    out.print(Text(f"{label}: {at_least}{_money(plan.monthly_cost, cur)} per month vs "
                   f"{_money(plan.monthly_cost_all_ondemand, cur)} all on-demand: {savings_text(plan)}", style="bold"))
    for u in plan.unpriced:
        out.print(Text(f"  - unpriced: {u}", style="yellow"))


#: the most reserved units ``--held`` accepts for one fleet: the policy's own bound on node counts
#: (``reserved.held[].units``), far above any real fleet
MAX_HELD_UNITS = MAX_NODES
_ASCII_DIGITS = re.compile(r"[0-9]+")


def savings_text(plan: Plan) -> str:
    """What the plan saves against all on-demand, or - when held reservations go unused - what it costs more.

    When its cost leaves components unpriced (``plan.savings_upper_bound``), the cost is a lower bound:
    it saves at most the figure, or costs at least the figure more, and the count of those components
    is given (the lines below the total list them)."""
    cur, od = plan.currency, plan.monthly_cost_all_ondemand
    bound = plan.savings_upper_bound
    gap = ""
    if bound:
        n = sum(len(unpriced_components(f)) for f in plan.fleets) or len(plan.unpriced)
        gap = f"; {n} component(s) unpriced (listed below): the cost is a lower bound"
    if plan.savings >= 0:
        saved = plan.savings / od if od else 0.0
        return f"{'at most ' if bound else ''}{_money(plan.savings, cur)} ({saved:,.0%}) saved{gap}"
    more = f" ({-plan.savings / od:,.0%})" if od else ""
    idle = [f for f in plan.fleets
            if f.expected_nodes is not None and f.reserved_units > f.expected_nodes]
    why = ""
    if idle:
        why = " because reserved units are billed whether or not they run: " + "; ".join(
            f"{f.name} holds {f.reserved_units:,} for ~{f.expected_nodes:,.1f} expected" for f in idle)
    return f"costs {'at least ' if bound else ''}{_money(-plan.savings, cur)}{more} more than all on-demand{why}{gap}"


def _held(values: tuple[str, ...]) -> dict[str, int] | None:
    """``--held FLEET=UNITS`` values by fleet (syntax only; :func:`_check_held_fleets` checks the names)."""
    if not values:
        return None
    out: dict[str, int] = {}
    given: dict[str, str] = {}
    for v in values:
        name, sep, units = v.partition("=")
        name, units = name.strip(), units.strip()
        if not sep or not _ASCII_DIGITS.fullmatch(units):
            raise click.BadParameter(f"expected FLEET=UNITS (e.g. inference=4), got {v!r}: UNITS is a whole "
                                     f"number written in the digits 0-9", param_hint="--held")
        if not name:
            raise click.BadParameter(f"expected FLEET=UNITS (e.g. inference=4), got {v!r}: no fleet name before '='",
                                     param_hint="--held")
        digits = units.lstrip("0") or "0"
        if len(digits) > len(str(MAX_HELD_UNITS)) or int(digits) > MAX_HELD_UNITS:
            raise click.BadParameter(f"{v!r}: at most {MAX_HELD_UNITS:,} units per fleet", param_hint="--held")
        if name in out:
            raise click.BadParameter(f"fleet {name!r} is given twice ({given[name]!r} and {v!r}); give each fleet once",
                                     param_hint="--held")
        out[name] = int(digits)
        given[name] = v
    return out


def check_cache_dir(cache_dir: Path | None) -> None:
    """``--cache-dir`` (or ``$SEEDANCE_PRICE_CACHE``) must name an existing directory: a mistyped
    path must not quietly plan on the bundled prices."""
    if cache_dir is None or cache_dir.is_dir():
        return
    source = click.get_current_context().get_parameter_source("cache_dir")
    given = " (from $SEEDANCE_PRICE_CACHE)" if source is click.core.ParameterSource.ENVIRONMENT else ""
    raise click.BadParameter(f"price cache directory {cache_dir}{given} does not exist; give the directory "
                             f"`seedance prices refresh --cache-dir DIR` wrote (or leave it out for the bundled prices)",
                             param_hint="--cache-dir")


def _check_held_fleets(held: dict[str, int] | None, fleets: list[str]) -> None:
    """Every ``--held`` fleet must be a fleet of the policy (else the plan would ignore what is held)."""
    for name in held or {}:
        if name not in fleets:
            hint = difflib.get_close_matches(name, fleets, n=1, cutoff=0.6)
            raise click.BadParameter(
                f"the policy has no fleet {name!r}" + (f" (did you mean {hint[0]!r}?)" if hint else "")
                + f"; its fleets: {', '.join(fleets) if fleets else '(none)'}", param_hint="--held")


@click.command("plan")
@click.argument("policy_path", metavar="POLICY", type=click.Path(path_type=Path))
@click.option("-f", "--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="Output format.")
@click.option("-o", "--out", "out_path", type=NonEmptyPath(path_type=Path, dir_okay=False, allow_dash=True), default=None,
              help="Also write the plan as JSON to this file (whole or not at all); '-': to stdout "
                   "(the text table then goes to stderr).")
@click.option("--as-of", "as_of", type=click.DateTime(formats=["%Y-%m-%d"]), default=None,
              help="Decision date (00:00 UTC): demand history from it on is not read; default today (UTC). "
                   "The plan records the date used.")
@click.option("--held", "held", multiple=True, metavar="FLEET=UNITS",
              help="Reserved units already held by a fleet (replaces the policy's reserved.held); repeatable.")
@click.option("--cache-dir", type=NonEmptyPath(path_type=Path, file_okay=False), default=None, envvar="SEEDANCE_PRICE_CACHE",
              help="Overlay prices refreshed into this existing cache directory (default: $SEEDANCE_PRICE_CACHE if set).")
@click.option("--stack", default=None, callback=stack_name,
              help="Pulumi stack that deploys POLICY, read from its Pulumi.STACK.yaml in --project-dir (which must "
                   "exist): when it names no seedance:clusterName, nothing sizes the groups to demand, so each fleet "
                   "is planned on its desired size and off-peak windows (the demand history is not read), as the "
                   "stack deploys it.")
@project_dir_option
def plan(policy_path: Path, fmt: str, out_path: Path | None, as_of: dt.datetime | None, held: tuple[str, ...],
         cache_dir: Path | None, stack: str | None, project_dir: Path) -> int:
    """Plan POLICY: instance types, reserved units, spot share and checkpoint interval per fleet."""
    from seedance.cli import console
    from seedance.planner.demand import DemandError
    from seedance.planner.planner import PlanningError, plan_policy
    from seedance.policy import load_policy
    from seedance.commands.outputs import policy_inputs, refuse_inputs, require_out_directory
    from seedance.planner.type_checks import check_instance_types
    from seedance.pricing.catalog import PricingError, load_catalog

    held_units = _held(held)  # usage errors first: nothing is read for a malformed command line
    check_cache_dir(cache_dir)
    require_out_directory(out_path)
    cluster = joins_cluster(project_dir, stack, [policy_path], must_exist=True)  # a --stack without its file: exit 2
    loaded = load_policy(policy_path)  # PolicyError is reported by the CLI's error boundary
    _check_held_fleets(held_units, [f.name for f in loaded.policy.fleets])
    # the stack's Pulumi files are read too (whether it joins a cluster), as by `synth` and `check`
    refuse_inputs(out_path, policy_inputs(loaded) + stack_files(project_dir, stack), cache_dir=cache_dir)
    try:
        catalog = load_catalog(cache_dir=cache_dir)
        check_instance_types(loaded, catalog)  # PolicyError: reported by the CLI's error boundary
        result = plan_policy(loaded, catalog, as_of=as_of.date() if as_of else None, held=held_units,
                             cluster=cluster)
    except (PricingError, DemandError, PlanningError) as exc:
        console(stderr=True).print(f"error: {policy_path}: {exc}", markup=False)
        return 1
    if refuse_unplannable(policy_path, result):  # nothing is written
        return 1
    doc = jsonout.dumps(result.to_json(), indent=2)
    to_stdout = out_path is not None and str(out_path) == "-"
    if out_path is not None and not to_stdout:
        from seedance.atomic import write_text_atomically

        try:
            write_text_atomically(out_path, doc + "\n")
        except OSError as exc:
            console(stderr=True).print(f"error: cannot write {out_path}: {exc.strerror or exc}", markup=False)
            return 1
    out = console()
    if fmt == "json" or to_stdout:
        out.print(doc, markup=False)  # `--out -`: the JSON on stdout, once
    if fmt == "text":
        render_plan(console(stderr=True) if to_stdout else out, result)  # stdout stays JSON with `--out -`
    return 0


def refuse_unplannable(policy_path: Path, plan: Plan) -> bool:
    """Print an error per fleet the planner found no instance type for, and say whether there was
    one: a plan without instance types cannot be deployed or priced."""
    from seedance.cli import console

    unplannable = unplannable_fleets(plan)
    err = console(stderr=True)
    for line in unplannable:
        err.print(f"error: {policy_path}: {line}", markup=False)
    return bool(unplannable)


def unplannable_fleets(plan: Plan) -> list[str]:
    """One line per fleet the planner found no instance type for (the plan cannot run or be priced)."""
    return [
        f"fleet {f.name!r} cannot be planned: "
        f"{f.rationale.get('instance_types') or 'no instance type in the price catalog meets its requirement'}"
        "; change its gpu/cpu requirement or instanceTypes.allowed"
        for f in plan.fleets if not f.instance_types
    ]
