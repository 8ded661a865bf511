"""``seedance plan POLICY``: the reserved / spot / on-demand mix, instance types and checkpoint
interval of every fleet, with the expected monthly compute cost and a reason per decision."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table
from rich.text import Text

from seedance.planner.plan import Plan


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
            ck = f"{f.checkpoint_interval_s / 60:,.0f} min"
            if f.checkpoint_overhead is not None:
                ck += f" ({f.checkpoint_overhead:.1%})"
        spot = f"{f.spot_share_above_base:.0%}" + (f" {f.allocation_strategy}" if f.spot_share_above_base else "")
        table.add_row(Text(f.name, style="bold"), Text(types or "none qualifies"), str(f.reserved_units), Text(buy),
                      str(f.on_demand_base), Text(spot), ck, _money(f.monthly_cost, cur),
                      _money(f.monthly_cost_all_ondemand, cur))
    out.print(table)
    for f in plan.fleets:
        out.print(Text(f"{f.name}:", style="bold"))
        for decision, why in f.rationale.items():
            out.print(Text(f"  {decision}: {why}"))
    saved = plan.savings / plan.monthly_cost_all_ondemand if plan.monthly_cost_all_ondemand else 0.0
    label = "Fleet compute (partial: some components have no sourced price)" if plan.partial else "Fleet compute"
    out.print(Text(f"{label}: {_money(plan.monthly_cost, cur)} per month vs {_money(plan.monthly_cost_all_ondemand, cur)} "
                   f"all on-demand: {_money(plan.savings, cur)} ({saved:.0%}) saved", style="bold"))
    for u in plan.unpriced:
        out.print(Text(f"  - unpriced: {u}", style="yellow"))


def _held(values: tuple[str, ...]) -> dict[str, int] | None:
    if not values:
        return None
    out: dict[str, int] = {}
    for v in values:
        name, sep, units = v.partition("=")
        if not sep or not units.strip().isdigit():
            raise click.BadParameter(f"expected FLEET=UNITS (e.g. inference=4), got {v!r}", param_hint="--held")
        out[name.strip()] = int(units)
    return out


@click.command("plan")
@click.argument("policy_path", metavar="POLICY", type=click.Path(path_type=Path))
@click.option("-f", "--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="Output format.")
@click.option("-o", "--out", "out_path", type=click.Path(path_type=Path, dir_okay=False), default=None,
              help="Also write the plan as JSON to this file.")
@click.option("--as-of", "as_of", type=click.DateTime(formats=["%Y-%m-%d"]), default=None,
              help="Decision date: demand history from this date on is not read.")
@click.option("--held", "held", multiple=True, metavar="FLEET=UNITS",
              help="Reserved units already held by a fleet (replaces the policy's reserved.held); repeatable.")
@click.option("--cache-dir", type=click.Path(path_type=Path, file_okay=False), default=None, envvar="SEEDANCE_PRICE_CACHE",
              help="Overlay prices refreshed into this cache (default: $SEEDANCE_PRICE_CACHE if set).")
def plan(policy_path: Path, fmt: str, out_path: Path | None, as_of: dt.datetime | None, held: tuple[str, ...],
         cache_dir: Path | None) -> int:
    """Plan POLICY: instance types, reserved units, spot share and checkpoint interval per fleet."""
    from seedance.cli import console
    from seedance.planner.demand import DemandError
    from seedance.planner.planner import PlanningError, plan_policy
    from seedance.policy import load_policy
    from seedance.pricing.catalog import PricingError, load_catalog

    loaded = load_policy(policy_path)  # PolicyError is reported by the CLI's error boundary
    try:
        catalog = load_catalog(cache_dir=cache_dir)
        result = plan_policy(loaded, catalog, as_of=as_of.date() if as_of else None, held=_held(held))
    except (PricingError, DemandError, PlanningError) as exc:
        console(stderr=True).print(f"error: {policy_path}: {exc}", markup=False)
        return 1
    doc = json.dumps(result.to_json(), indent=2)
    if out_path is not None:
        try:
            out_path.write_text(doc + "\n", encoding="utf-8")
        except OSError as exc:
            console(stderr=True).print(f"error: cannot write {out_path}: {exc.strerror or exc}", markup=False)
            return 1
    out = console()
    if fmt == "json":
        out.print(doc, markup=False)
    else:
        render_plan(out, result)
    return 0
