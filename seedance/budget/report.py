"""Render a budget response: rich text, JSON and the cost-incident Markdown report."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from seedance.budget.response import BudgetResponse, Change, fraction_down, percent, threshold_label
from seedance.budget.wiring import Segment, Wiring, deploy_steps, plain, revert_steps
from seedance.templating import get_template, md_code, md_code_span, md_text


def spend_label(r: BudgetResponse) -> str:
    """The spend as a percentage of the budget, rounded down, with as many decimals as the most precise
    threshold (at least one): it never reads above a threshold it did not reach, nor below one it crossed."""
    decimals = [len(label.rstrip("%").partition(".")[2]) for label in map(threshold_label, _thresholds(r))]
    return percent(r.fraction, max([1, *decimals]))


def _thresholds(r: BudgetResponse) -> list[float]:
    return [t.at for t in r.effective.budget.thresholds]


def value_label(value: Any) -> str:
    """A field's value as it reads in the policy (JSON-like): ``—`` for none, lists as ``["0 22 * * *"]``."""
    if value is None:
        return "—"
    if isinstance(value, bool | list | tuple | dict):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return str(int(value)) if abs(value) < 1e15 else str(value)
    return str(value)


def _change_json(c: Change) -> dict[str, Any]:
    return {"path": c.path, "before": c.before, "after": c.after, "reason": c.reason}


def to_json(r: BudgetResponse, overlay_path: str | None = None, *, month: str | None = None,
            restored: Sequence[Change] = (), stack: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "budgetAlert": True,
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
        "month": month,  # the budget month (YYYY-MM) of the alert, which a written overlay is stamped with
        "ignored": r.ignored,
        "fraction": fraction_down(r.fraction, 6),  # rounded down: never at a threshold that did not fire
        "fired": [{"at": t.at, "action": t.action.value} for t in r.fired],
        "actions": [a.value for a in r.actions],
        "changes": [_change_json(c) for c in r.changes],
        "restored": [_change_json(c) for c in restored],  # a new month: fields the rewritten overlay gives back
        "notes": r.notes,
        "overlay": overlay_path,
        # what the stack's Pulumi.STACK.yaml deploys (seedance:policy), and the commands that point it
        # at the overlay or back; None without --stack, a stack file or a seedance:policy in its config
        "stack": stack,
        # the monthly cost seedance check projects (BUDGET-COST-1) for the policy and for the overlay
        "projection": None if r.projection is None else {
            "policy": r.projection.policy, "overlay": r.projection.overlay, "budget": r.projection.budget,
            "currency": r.projection.currency, "aboveBudget": r.projection.above_budget,
            "abovePolicy": r.projection.above_policy},
    }


def not_a_budget_alert_json() -> dict[str, Any]:
    """The JSON answer for a message that is not an AWS Budgets notification: the keys of every other
    answer (:func:`to_json`), empty."""
    return {"budgetAlert": False, "policy": None, "alert": None, "month": None, "ignored": None, "fraction": None,
            "fired": [], "actions": [], "changes": [], "restored": [], "notes": [], "overlay": None, "stack": None,
            "projection": None}


def render_markdown(r: BudgetResponse, overlay_path: str | None = None, *, month: str | None = None,
                    policy_path: str | None = None, kept_overlay: str | None = None,
                    restored: Sequence[Change] = (), wiring: Wiring | None = None,
                    where: Mapping[str, Any] | None = None) -> str:
    """The cost-incident report.

    ``overlay_path``: the overlay this response wrote; ``kept_overlay``: an earlier overlay left in
    place; ``policy_path``: the policy they extend (what ``seedance:policy`` points back to);
    ``wiring``: what the stack deploys now (:mod:`seedance.budget.wiring`), which the steps follow;
    ``month``: the budget month of the alert; ``restored``: fields a new month's overlay gives back;
    ``where``: without ``wiring``, the stack, project directory and program directory known (the steps'
    ``stack``, ``project_dir`` and ``base``).
    """
    icon = "⚪" if r.ignored else "🔴" if r.changes else "🟡" if r.fired else "🟢"
    text = get_template("cost_incident.md.j2").render(
        r=r, budget=r.effective.budget.monthly_amount, icon=icon, overlay_path=overlay_path, pct=spend_label(r),
        month=month, kept_overlay=kept_overlay, restored=list(restored),
        deploy=markdown_steps(_deploy(overlay_path, wiring, where)) if overlay_path else "",
        revert=markdown_steps(_revert(overlay_path or kept_overlay, policy_path, wiring, where)),
        threshold=threshold_label, value=value_label,
    )
    return text.rstrip("\n") + "\n"  # each block ends in a blank line; the report in one newline


def render_not_a_budget_alert(source: str) -> str:
    """The Markdown report for an SNS message that is not an AWS Budgets notification (nothing to do)."""
    what = "The message on stdin" if source == "-" else f"`{md_code(source)}`"
    return (f"## ⚪ Not a budget alert\n\n{what} is not an AWS Budgets notification "
            "(a subscription confirmation or another service's message): nothing to do.\n")


def markdown_steps(segments: list[Segment]) -> str:
    """Steps of :mod:`seedance.budget.wiring` as Markdown: code in code spans (exactly, backticks included),
    the rest escaped."""
    return "".join(md_code_span(text) if is_code else md_text(text) for is_code, text in segments)


def _deploy(overlay: str | None, wiring: Wiring | None, where: Mapping[str, Any] | None) -> list[Segment]:
    return deploy_steps(Path(overlay), wiring, **(where or {})) if overlay else []


def _revert(overlay: str | None, policy: str | None, wiring: Wiring | None,
            where: Mapping[str, Any] | None) -> list[Segment]:
    if not overlay:
        return []
    return revert_steps(Path(overlay), None if policy is None else Path(policy), wiring, **(where or {}))


def render_text(console: Console, r: BudgetResponse, overlay_path: str | None = None, *, month: str | None = None,
                policy_path: str | None = None, kept_overlay: str | None = None,
                restored: Sequence[Change] = (), wiring: Wiring | None = None,
                where: Mapping[str, Any] | None = None) -> None:
    a = r.alert
    if r.ignored:
        console.print(f"[bold]{escape(r.policy)}[/bold]: {escape(a.alert_type.lower())} alert of budget {escape(a.budget_name)} "
                      f"ignored: {escape(r.ignored)}")
        return
    console.print(
        f"[bold]{escape(r.policy)}[/bold]: {escape(a.alert_type.lower())} {a.amount:,.2f} {a.currency} = "
        f"{spend_label(r)} of the monthly budget ({escape(a.budget_name)})" + (f", budget month {month}" if month else "")
    )
    if not r.fired:
        console.print("no threshold crossed: nothing to do")
    for t in r.fired:
        console.print(f"  threshold {threshold_label(t.at)} crossed: {t.action.value}")
    for title, rows in (("changes", r.changes), ("restored (new budget month)", restored)):
        if rows:
            table = Table("field", "before", "after", "why", title=title if rows is restored else None,
                          show_edge=False, pad_edge=False)
            for c in rows:
                table.add_row(escape(c.path), escape(value_label(c.before)), escape(value_label(c.after)), escape(c.reason))
            console.print(table)
    if r.projection is not None:
        p = r.projection
        console.print(f"projected monthly cost (as seedance check estimates it): {p.overlay:,.2f} {p.currency} with the "
                      f"overlay, {p.policy:,.2f} {p.currency} with the policy; budget {p.budget:,.2f} {p.currency}")
    for n in r.notes:
        console.print(f"[yellow]note[/yellow] {escape(n)}")
    if overlay_path:
        console.print(f"overlay written: {escape(overlay_path)}" + (f" (budget month {month})" if month else "")
                      + "; " + escape(plain(_deploy(overlay_path, wiring, where))))
    elif not r.changes and not kept_overlay and r.ignored is None:
        console.print("no overlay written: no threshold action changes the policy")
    elif r.changes:
        console.print("no overlay written (pass --out FILE to write one): nothing was written, and nothing changes "
                      "until an overlay is deployed")
    if overlay_path or kept_overlay:
        console.print("to revert: " + escape(plain(_revert(overlay_path or kept_overlay, policy_path, wiring, where))))


__all__ = ["not_a_budget_alert_json", "render_markdown", "render_not_a_budget_alert", "render_text", "spend_label", "threshold_label", "to_json",
           "value_label"]
