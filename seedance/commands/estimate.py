"""``seedance estimate POLICY``: the monthly cost of a policy (or of a plan for it), offline."""

from __future__ import annotations

import datetime as dt
import logging
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table
from rich.text import Text

from seedance import jsonout
from seedance.commands.outputs import NonEmptyPath
from seedance.commands.stack_option import joins_cluster, project_dir_option, stack_name
from seedance.estimate.components import _per
from seedance.estimate.estimate import PARTIAL, UNPRICED, USAGE, Estimate, pricing_status
from seedance.pricing.catalog import PricingError

log = logging.getLogger(__name__)


def _money(value: float | None, currency: str) -> str:
    return "—" if value is None else f"{value:,.2f} {currency}"


def _qty(value: float | None) -> str:
    if value is None:
        return "?"
    return f"{value:,.2f}" if abs(value) >= 0.01 or value == 0 else f"{value:.6f}"


def _cost(value: float, status: str, currency: str) -> str:
    """A cost that may not be (fully) priced: never 0.00 for what has no price or depends on usage."""
    if status == UNPRICED:
        return "unpriced"
    if status == USAGE:
        return "depends on usage"
    return _money(value, currency) + (" + unpriced" if status == PARTIAL else "")


def render_estimate(out: Console, est: Estimate, title: str) -> None:
    from seedance.estimate.report import share_percent

    cur = est.currency
    table = Table(title=Text(f"{title}: {est.policy} ({est.environment}, {est.region}) — monthly, {cur}"), show_lines=False)
    table.add_column("Resource / component")
    table.add_column("Quantity", justify="right")
    table.add_column("Unit")
    table.add_column("Unit price", justify="right")
    table.add_column("Monthly cost", justify="right")
    groups: dict[str, list] = {}
    for r in est.resources:
        groups.setdefault(f"fleet {r.fleet}" if r.fleet else r.service, []).append(r)
    for group, resources in groups.items():
        table.add_row(Text(group, style="bold"), "", "", "", "")
        for r in resources:
            status = pricing_status(r.components)
            flag = " (partial)" if status == PARTIAL else ""
            table.add_row(Text(f"  {r.name}{flag}", style="cyan"), "", "", "", Text(_cost(r.monthly_cost, status, cur)))
            if not r.components:
                table.add_row(Text("    no charges" + (f" ({r.notes[0]})" if r.notes else "")), "", "", "", "")
            for c in r.components:
                if c.unpriced_reason:
                    cost = Text("unpriced (see below)", style="yellow")
                elif c.monthly_cost is None:
                    cost = Text("depends on usage", style="dim")
                else:
                    cost = Text(_money(c.monthly_cost, cur))
                price = "—" if c.unit_price is None else f"{c.unit_price:g} {cur}/{_per(c.unit)}"
                table.add_row(Text(f"    {c.name}"), _qty(c.monthly_quantity), Text(c.unit), price, cost)
    out.print(table)

    totals = Table(title=Text("Totals"))
    totals.add_column("By")
    totals.add_column("Key")
    totals.add_column("Monthly cost", justify="right")
    for name, value in est.by_fleet.items():
        totals.add_row("fleet", Text(name), _cost(value, est.fleet_status(name), cur))
    for name, value in est.by_service.items():
        totals.add_row("service", Text(name), _cost(value, est.service_status(name), cur))
    for key, values in est.by_tag.items():
        for value, cost in values.items():
            totals.add_row(Text(f"tag {key}"), Text(value), _cost(cost, est.tag_status(key, value), cur))
    out.print(totals)

    label = "Total (partial: some components have no sourced price)" if est.partial else "Total"
    out.print(Text(f"{label}: {_money(est.total, cur)} per month", style="bold yellow" if est.partial else "bold"))
    if est.budget_amount is not None:
        if est.budget_currency == cur:
            share = share_percent(est.total / est.budget_amount)
            if est.partial:  # the total leaves the unpriced components out: its share is a lower bound
                out.print(Text(f"Budget: {_money(est.budget_amount, cur)} (at least {share}% used by this estimate: "
                               f"the total leaves the unpriced components out)"))
            else:
                out.print(Text(f"Budget: {_money(est.budget_amount, cur)} ({share}% used by this estimate)"))
        else:
            out.print(Text(f"Budget is in {est.budget_currency}, prices in {cur}: not compared (no conversion)"))
    if notes := est.notes():
        out.print(Text("Notes:", style="dim"))
        for where, note in notes:
            out.print(Text(f"  - {where}: {note}"))
    if est.unpriced:
        out.print(Text("Unpriced components (not in the total):", style="yellow"))
        for u in est.unpriced:
            out.print(Text(f"  - {u['resource']}: {u['component']}: {u['reason']}"))
    if est.usage_dependent:
        out.print(Text("Usage-dependent components (not in the total):", style="dim"))
        for u in est.usage_dependent:
            out.print(Text(f"  - {u['resource']}: {u['component']}: {u['note']}"))


@click.command("estimate")
@click.argument("policy_path", metavar="POLICY", type=click.Path(path_type=Path))
@click.option("-f", "--format", "fmt", type=click.Choice(["text", "json", "markdown"]), default="text", show_default=True,
              help="Output format (markdown: a report for a pull request or wiki).")
@click.option("--plan", "plan_path", type=NonEmptyPath(path_type=Path, dir_okay=False), default=None,
              help="Estimate this plan (JSON of `seedance plan`) instead of planning the policy now; a plan made "
                   "for a stack without a cluster is priced so, unless --stack's configuration says otherwise.")
@click.option("--no-plan", is_flag=True,
              help="Price the policy's own values without planning: the planner's instance types and spot, but "
                   "reservations only as the policy fixes or holds them (not the figure the gate checks).")
@click.option("--cache-dir", type=NonEmptyPath(path_type=Path, file_okay=False), default=None, envvar="SEEDANCE_PRICE_CACHE",
              help="Overlay prices refreshed into this cache (default: $SEEDANCE_PRICE_CACHE if set; else bundled only).")
@click.option("--as-of", type=click.DateTime(formats=["%Y-%m-%d"]), default=None,
              help="The decision date, as for `seedance plan` (default: today; a --plan carries its own).")
@click.option("--stack", default=None, callback=stack_name,
              help="Pulumi stack name: the value of the seedance:stack cost-allocation tag (else that tag is left out); "
                   "its Pulumi.STACK.yaml in --project-dir must exist: a stack naming no seedance:clusterName is "
                   "priced as deployed without a cluster (groups at their desired size; no StorageClass volumes, "
                   "backups or EKS).")
@project_dir_option
def estimate(policy_path: Path, fmt: str, plan_path: Path | None, no_plan: bool, cache_dir: Path | None,
             as_of: dt.datetime | None, stack: str | None, project_dir: Path) -> int:
    """Estimate the monthly cost of POLICY from the bundled price catalog (offline), planned as
    `seedance plan` plans it (the figure `seedance check` holds against the budget)."""
    from seedance.cli import console
    from seedance.commands.plan import check_cache_dir
    from seedance.estimate.estimate import estimate_policy
    from seedance.estimate.plan_json import read_plan
    from seedance.policy import load_policy
    from seedance.planner.type_checks import check_instance_types
    from seedance.pricing.catalog import load_catalog

    if plan_path is not None and no_plan:
        raise click.UsageError("--plan and --no-plan exclude each other")
    check_cache_dir(cache_dir)  # usage errors first, as for `seedance plan`: exit 2
    # a --stack without its Pulumi.STACK.yaml is a usage error (exit 2); without --stack, a plan's own
    # record of its kind of stack decides (below)
    stack_cluster = joins_cluster(project_dir, stack, [policy_path], must_exist=True) if stack is not None else None
    loaded = load_policy(policy_path)  # PolicyError is reported by the CLI's error boundary
    try:
        catalog = load_catalog(cache_dir=cache_dir)
        check_instance_types(loaded, catalog)  # PolicyError: reported by the CLI's error boundary
        plan = read_plan(plan_path) if plan_path is not None else None
        if plan is not None and as_of is not None and plan.as_of != as_of.date().isoformat():
            log.warning("--as-of %s is not used with --plan: %s carries its own decision date (%s)",
                        as_of.date().isoformat(), plan_path, plan.as_of or "none recorded")
        # a plan records the kind of stack it was made for: without a stack configuration that says
        # otherwise, it is priced as that stack deploys
        cluster = stack_cluster if stack_cluster is not None else plan.cluster if plan is not None else True
        if plan is not None and stack is None and not plan.cluster:
            log.warning("%s was planned for a stack without a cluster (\"cluster\": false): priced as that stack "
                        "deploys (groups at their desired size; no StorageClass volumes, backups or EKS); "
                        "--stack NAME prices it as that stack's configuration says", plan_path)
        if plan is None and not no_plan:
            from seedance.commands.plan import refuse_unplannable
            from seedance.planner.demand import DemandError
            from seedance.planner.planner import PlanningError, plan_policy

            try:
                plan = plan_policy(loaded, catalog, as_of=as_of.date() if as_of else None, cluster=cluster)
            except (DemandError, PlanningError) as exc:
                console(stderr=True).print(f"error: {policy_path}: {exc}", markup=False)
                return 1
            if refuse_unplannable(policy_path, plan):  # as `seedance plan`
                return 1
        if plan is not None and stack is not None and plan.cluster != cluster:
            log.warning("%s was planned for a stack %s, but stack %s %s: its reservations were decided for other "
                        "group sizes than run; re-plan with `seedance plan --stack %s`", plan_path,
                        "that joins a cluster" if plan.cluster else "without a cluster", stack,
                        "names none" if plan.cluster else "joins one", stack)
        est = estimate_policy(loaded, catalog, plan, as_of=as_of.date() if as_of else None, stack=stack,
                              cluster=cluster)
    except PricingError as exc:
        console(stderr=True).print(f"error: {policy_path}: {exc}", markup=False)
        return 1
    out = console()
    if fmt == "json":
        out.print(jsonout.dumps(est.to_json(), indent=2), markup=False)
    elif fmt == "markdown":
        from seedance.estimate.report import estimate_markdown

        out.print(estimate_markdown(est), markup=False, end="")  # a missing template: clean error, exit 1
    else:
        render_estimate(out, est, "Estimate" if plan is None else "Estimate (plan)")
        if plan is None and any(r.kind == "fleet" for r in est.resources):
            out.print("basis: the policy's own values, without a plan (--no-plan): the planner's instance types and "
                      "spot, but reservations only as the policy fixes or holds them, so not the figure `seedance "
                      "check` holds against the budget", markup=False)
    return 0
