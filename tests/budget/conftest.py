"""The budget tests replay real AWS Budgets alerts of past months (the fixtures were sent in 2012-2026)
as if each had just arrived: the month an alert must not be older than is pinned before them all.
Tests of that rule set it themselves (``now_month``)."""

from __future__ import annotations

import pytest

import seedance.commands.budget as budget_command


@pytest.fixture(autouse=True)
def _replayed_alerts_are_current(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(budget_command, "budget_month_now", lambda: "0001-01")
