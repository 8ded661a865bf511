"""`seedance summary`: the spot cap is the share the group deploys."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.console import Console

from seedance.policy import load_policy_text
from seedance.summary import render_summary

MINIMAL = (Path(__file__).parent / "policy" / "valid" / "minimal.yaml").read_text()


@pytest.mark.parametrize(("share", "shown"), [(0.999, "99%"), (0.337, "33%"), (0.29, "29%"), (1.0, "100%"), (0.0, "0%")])
def test_the_spot_cap_is_the_whole_percent_the_plan_deploys(share: float, shown: str) -> None:
    # 0.999 read "100%" (rounded to nearest) while the plan and the group run 99% (rounded down)
    assert MINIMAL.rstrip().endswith("capacity: {min: 1, desired: 2, max: 4}")  # its one fleet is last
    policy = load_policy_text(MINIMAL.rstrip() + f"\n    spot: {{maxShare: {share}}}\n", file="p.yaml")
    console = Console(record=True, width=200)
    render_summary(console, "p.yaml", policy)
    row = next(line for line in console.export_text().splitlines() if line.startswith("web "))
    assert [c.strip() for c in row.split("│")][6] == shown, row


@pytest.mark.parametrize(("amount", "shown"), [("0.25", "budget 0.25 USD/month"), ("6000", "budget 6,000 USD/month"),
                                               ("1234.5", "budget 1,234.50 USD/month")])
def test_the_headline_shows_the_budget_as_written(amount: str, shown: str) -> None:
    from seedance.summary import policy_summary

    text = MINIMAL.replace("monthlyAmount: ", f"monthlyAmount: {amount} # ", 1)
    assert text != MINIMAL
    assert shown in policy_summary(load_policy_text(text, file="p.yaml"))["headline"]  # 0.25 read "budget 0"
