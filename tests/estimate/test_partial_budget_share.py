"""The share of the budget a partial total uses is a lower bound, and says so (red team: an unpriced
reservation read "budget used: 80% -> 0%" and "0% used by this estimate"); a fully priced total
reads as it always did."""

from __future__ import annotations

from rich.console import Console

from seedance.commands.estimate import render_estimate
from seedance.estimate.components import CostComponent, ResourceCost
from seedance.estimate.diff import compare
from seedance.estimate.estimate import Estimate
from seedance.estimate.report import _helpers, diff_markdown, estimate_markdown, render_diff_text

UNPRICED_RI = CostComponent("Reserved instances", "hours", 1460.0, None, None, "USD", None,
                            unpriced_reason="no 1y reserved price")


def _est(cost: float, *, unpriced: bool = False) -> Estimate:
    """One fleet costing ``cost`` (priced), and with ``unpriced`` a reservation without a price; budget 1,000."""
    comps = [CostComponent("use", "hours", 10.0, cost / 10, cost, "USD", "t")] + ([UNPRICED_RI] if unpriced else [])
    r = ResourceCost("fleet", "inf", "EC2", comps, fleet="inf")
    missing = [{"resource": "inf", "component": UNPRICED_RI.name, "reason": "no 1y reserved price"}] if unpriced else []
    status = {"inf": "partial"} if unpriced else {}
    return Estimate("p", "dev", "us-east-1", "USD", "plan", [r], cost, unpriced, {"inf": cost}, {"EC2": cost}, {},
                    1000.0, "USD", missing, fleet_pricing=status, service_pricing={"EC2": "partial"} if unpriced else {})


def _text(render, *args, **kw) -> str:  # type: ignore[no-untyped-def]
    console = Console(width=250, record=True)
    render(console, *args, **kw)
    return console.export_text()


def test_share_of_a_partial_total_is_at_least() -> None:
    h = _helpers("USD")
    assert h["share"](0.1) == "10%" and h["share"](0.1, True) == "at least 10%"
    assert h["points"](0.8, 0.1) == "-70 pp" and h["points"](0.8, 0.1, True) == "-70 pp, priced part"
    assert h["share"](None, True) == "—" and h["points"](None, 0.1, True) == "—"


def test_estimate_budget_line_of_a_partial_total() -> None:
    # 100 priced of a budget of 1,000: 10%, and the unpriced reservation on top: at least 10%
    partial = _est(100.0, unpriced=True)
    text = _text(render_estimate, partial, "Estimate")
    assert "Budget: 1,000.00 USD (at least 10% used by this estimate: the total leaves the unpriced components out)" in text
    assert ("Budget 1,000.00 USD: **at least 10%** used by this estimate (the total leaves the unpriced components out)."
            in estimate_markdown(partial))
    priced = _est(100.0)
    assert "Budget: 1,000.00 USD (10% used by this estimate)\n" in _text(render_estimate, priced, "Estimate")
    assert "Budget 1,000.00 USD: **10%** used by this estimate.\n" in estimate_markdown(priced)


def test_diff_budget_row_of_a_partial_total() -> None:
    # 800 of 1,000 (80%) -> 100 priced (10%) with a reservation left unpriced: at least 10%, and the
    # change of the priced part, -70 pp
    d = compare(_est(800.0), _est(100.0, unpriced=True))
    assert "budget used: 80% -> at least 10% (-70 pp, priced part)\n" in _text(render_diff_text, d)
    assert "| Budget used | 80% | at least 10% | -70 pp, priced part |" in diff_markdown(d)
    back = compare(_est(100.0, unpriced=True), _est(800.0))
    assert "budget used: at least 10% -> 80% (+70 pp, priced part)" in _text(render_diff_text, back)
    priced = compare(_est(800.0), _est(100.0))
    assert "budget used: 80% -> 10% (-70 pp)\n" in _text(render_diff_text, priced)
    assert "| Budget used | 80% | 10% | -70 pp |" in diff_markdown(priced)
