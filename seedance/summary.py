"""A short, human summary of a validated policy (what ``validate`` and ``summary`` print)."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

from seedance.planner.spot import whole_percent_share
from seedance.policy.model import CostPolicy


def _amount(value: float) -> str:
    """A budget as written: whole amounts without cents, others with them (0.25 is not "0")."""
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.2f}"


def policy_summary(p: CostPolicy) -> dict[str, Any]:
    gpus = sum((f.gpu.count if f.gpu else 0) * f.capacity.max for f in p.fleets)
    frameworks = ", ".join(f.value for f in p.compliance.frameworks) or "no framework"
    headline = (
        f"{p.metadata.name}, {p.metadata.environment.value}, {p.cloud.region}, {len(p.fleets)} fleet(s), "
        f"up to {gpus} GPU{'' if gpus == 1 else 's'}, {frameworks}, budget {_amount(p.budget.monthly_amount)} {p.budget.currency.value}/month"
    )
    return {
        "headline": headline,
        "name": p.metadata.name,
        "environment": p.metadata.environment.value,
        "region": p.cloud.region,
        "frameworks": [f.value for f in p.compliance.frameworks],
        "fleets": [f.name for f in p.fleets],
        "maxGpus": gpus,
        "budget": {"amount": p.budget.monthly_amount, "currency": p.budget.currency.value},
    }


def render_summary(console: Console, title: str, p: CostPolicy) -> None:
    console.print(f"[bold]{title}[/bold]: {policy_summary(p)['headline']}", markup=True)
    table = Table(show_edge=False, pad_edge=False)
    for col in ("fleet", "workload", "sla", "core", "requirement", "min/desired/max", "spot cap", "reserved", "sharing"):
        table.add_column(col)
    for f in p.fleets:
        req = f"{f.gpu.count}x {f.gpu.model.value}" if f.gpu else f"{f.cpu.vcpu} vCPU / {f.cpu.memory_gib:g} GiB" if f.cpu else "-"
        sharing = "-"
        if f.gpu_sharing and f.gpu_sharing.mig:
            sharing = f"MIG {f.gpu_sharing.mig.profile}"
        elif f.gpu_sharing and f.gpu_sharing.time_slicing:
            sharing = f"time-slicing x{f.gpu_sharing.time_slicing.replicas}"
        reserved = f.reserved.mode.value if f.reserved.mode.value != "fixed" else f"{f.reserved.units} ({f.reserved.term.value})"
        table.add_row(
            f.name,
            f.workload.value,
            f.sla.value,
            "yes" if f.core else "no",
            req,
            f"{f.capacity.min}/{f.capacity.desired}/{f.capacity.max}",
            # the share the group deploys (whole percents, rounded down, as the planner takes it): 0.999 is 99%
            f"{whole_percent_share(f.spot.max_share):.0%}" if f.spot else "no spot",
            reserved,
            sharing,
        )
    console.print(table)
