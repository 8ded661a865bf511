"""Render a budget response: rich text, JSON and the cost-incident Markdown report."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from seedance.budget.response import BudgetResponse, percent
from seedance.templating import get_template


def to_json(r: BudgetResponse, overlay_path: str | None = None) -> dict[str, Any]:
    return {
        "policy": r.policy,
        "alert": {
            "budgetName": r.alert.budget_name,
            "alertType": r.alert.alert_type,
            "period": r.alert.period,
            "amount": r.alert.amount,
            "budgetedAmount": r.alert.budgeted_amount,
            "currency": r.alert.currency,
            "timestamp": r.alert.timestamp,
        },
        "ignored": r.ignored,
        "fraction": round(r.fraction, 6),
        "fired": [{"at": t.at, "action": t.action.value} for t in r.fired],
        "actions": [a.value for a in r.actions],
        "changes": [{"path": c.path, "before": c.before, "after": c.after, "reason": c.reason} for c in r.changes],
        "notes": r.notes,
        "overlay": overlay_path,
    }


def render_markdown(r: BudgetResponse, overlay_path: str | None = None) -> str:
    icon = "⚪" if r.ignored else "🔴" if r.changes else "🟡" if r.fired else "🟢"
    return get_template("cost_incident.md.j2").render(
        r=r, budget=r.effective.budget.monthly_amount, icon=icon, overlay_path=overlay_path, pct=percent(r.fraction, 0)
    )


def render_text(console: Console, r: BudgetResponse, overlay_path: str | None = None) -> None:
    a = r.alert
    if r.ignored:
        console.print(f"[bold]{escape(r.policy)}[/bold]: {a.alert_type.lower()} alert of budget {escape(a.budget_name)} "
                      f"ignored: {escape(r.ignored)}")
        return
    console.print(
        f"[bold]{escape(r.policy)}[/bold]: {a.alert_type.lower()} {a.amount:,.2f} {a.currency} = "
        f"{percent(r.fraction)} of the monthly budget ({escape(a.budget_name)})"
    )
    if not r.fired:
        console.print("no threshold crossed: nothing to do")
    for t in r.fired:
        console.print(f"  threshold {t.at:.0%} crossed: {t.action.value}")
    if r.changes:
        table = Table("field", "before", "after", "why", show_edge=False, pad_edge=False)
        for c in r.changes:
            table.add_row(escape(c.path), escape(str(c.before)), escape(str(c.after)), escape(c.reason))
        console.print(table)
    for n in r.notes:
        console.print(f"[yellow]note[/yellow] {escape(n)}")
    if overlay_path:
        console.print(f"overlay written: {escape(overlay_path)}")


__all__ = ["render_markdown", "render_text", "to_json"]
