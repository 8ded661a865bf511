"""Render estimates and estimate diffs: Markdown (Jinja2, ``templates/``) and rich text."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from seedance.estimate.diff import EstimateDiff
from seedance.estimate.estimate import Estimate
from seedance.templating import get_template


def _helpers(currency: str) -> dict[str, Any]:
    def money(value: float | None) -> str:
        return "—" if value is None else f"{value:,.2f} {currency}"

    def signed(value: float) -> str:
        return "±0.00 " + currency if abs(value) < 0.005 else f"{value:+,.2f} {currency}"

    def pct(fraction: float) -> str:
        return f"{fraction:+.1%}"

    def share(fraction: float | None) -> str:
        return "—" if fraction is None else f"{fraction:.0%}"

    def points(a: float | None, b: float | None) -> str:
        return "—" if a is None or b is None else f"{100 * (b - a):+.0f} pp"

    def qty(value: float | None) -> str:
        if value is None:
            return "?"
        return f"{value:,.2f}" if abs(value) >= 0.01 or value == 0 else f"{value:.6f}"

    return {"money": money, "signed": signed, "pct": pct, "share": share, "points": points, "qty": qty}


def estimate_markdown(est: Estimate) -> str:
    share = est.total / est.budget_amount if est.budget_amount and est.budget_currency == est.currency else None
    return get_template("cost_estimate.md.j2").render(est=est, budget_share=share, **_helpers(est.currency))


def diff_icon(d: EstimateDiff) -> str:
    over = d.budget_share_after is not None and d.budget_share_after > 1
    if over or d.delta >= 0.005:
        return "🔺" if not over else "🔴"
    return "🔻" if d.delta <= -0.005 else "⚪"


def diff_markdown(d: EstimateDiff) -> str:
    return get_template("cost_diff.md.j2").render(
        d=d,
        icon=diff_icon(d),
        changed_fleets=[c for c in d.fleets if c.status != "unchanged"],
        changed_services=[c for c in d.services if c.status != "unchanged"],
        **_helpers(d.currency),
    )


def render_diff_text(out: Console, d: EstimateDiff) -> None:
    h = _helpers(d.currency)
    head = f"{d.policy} ({d.environment}, {d.region}): {h['money'](d.before_total)} -> {h['money'](d.after_total)} per month, {h['signed'](d.delta)}"
    if d.delta_fraction is not None:
        head += f" ({h['pct'](d.delta_fraction)})"
    out.print(Text(head, style="bold"))
    for note in d.notes:
        out.print(Text(f"note: {note}", style="yellow"))
    if d.budget_share_after is not None or d.budget_share_before is not None:
        out.print(Text(f"budget used: {h['share'](d.budget_share_before)} -> {h['share'](d.budget_share_after)}"))
    if not d.changed:
        out.print("no cost or planner decision changes")
        return
    table = Table(title=Text("Cost by fleet and service"))
    for col, just in (("", "left"), ("Base", "right"), ("This change", "right"), ("Change", "right")):
        table.add_column(col, justify=just)  # type: ignore[arg-type]
    for prefix, rows in (("fleet ", d.fleets), ("", d.services)):
        for c in rows:
            if c.status != "unchanged":
                table.add_row(Text(prefix + c.key), h["money"](c.before), h["money"](c.after), h["signed"](c.delta))
    out.print(table)
    if d.decisions:
        dec = Table(title=Text("Planner decisions that changed"))
        for col in ("Fleet", "Decision", "Base", "This change"):
            dec.add_column(col)
        for x in d.decisions:
            dec.add_row(Text(x.fleet), Text(x.decision), Text(x.before or "—"), Text(x.after or "—"))
        out.print(dec)
    for u in d.new_unpriced:
        out.print(Text(f"newly unpriced (not in the total): {u}", style="yellow"))
