"""Off-peak windows in the estimate: costed as their scheduled actions run, never above max."""

from __future__ import annotations

import pytest

from seedance.estimate.fleet import average_nodes
from seedance.policy.model import Fleet


def _fleet(windows: list[dict[str, object]], capacity: dict[str, int] | None = None) -> Fleet:
    # built without the loader on purpose: the estimate must stay sane for unvalidated input too
    return Fleet.model_validate({
        "name": "batch", "workload": "batch", "sla": "bronze", "gpu": {"model": "T4"},
        "capacity": capacity or {"min": 0, "desired": 2, "max": 12}, "offPeak": windows,
    })


def test_daily_window_as_before() -> None:
    nodes, notes = average_nodes(_fleet([{"cron": "0 22 * * *", "hours": 8, "desired": 10}]), 2)
    assert nodes == pytest.approx(2 + 8 * 8 / 24)
    assert notes == ["off-peak '0 22 * * *': 10 nodes for 8 h, every day (7 day(s)/week)"]


def test_weekday_window() -> None:
    nodes, notes = average_nodes(_fleet([{"cron": "0 22 * * 1-5", "hours": 8, "desired": 10}]), 2)
    assert nodes == pytest.approx(2 + 8 * 8 * 5 / 168)
    assert "Mon, Tue, Wed, Thu, Fri (5 day(s)/week)" in notes[0]


def test_overlapping_windows_never_exceed_max() -> None:
    # two daily 24 h windows at 4 with max 4: the group sits at 4 (the audit saw 6.0)
    fleet = _fleet([{"cron": "0 0 * * *", "hours": 24, "desired": 4}, {"cron": "0 12 * * *", "hours": 24, "desired": 4}],
                   {"min": 1, "desired": 2, "max": 4})
    nodes, _ = average_nodes(fleet, 2)
    assert nodes == pytest.approx(4.0)


def test_overlap_costed_as_deployed_the_last_action_holds() -> None:
    fleet = _fleet([{"cron": "0 0 * * *", "hours": 12, "desired": 4}, {"cron": "0 6 * * *", "hours": 12, "desired": 3}],
                   {"min": 0, "desired": 1, "max": 4})
    assert average_nodes(fleet, 1)[0] == pytest.approx((6 * 4 + 6 * 3 + 12 * 1) / 24)


@pytest.mark.parametrize("cron", ["0 22 * * 5-1", "0 22 1 * *", "0 22 * * mon-sun", "61 25 * * *"])
def test_schedules_validation_refuses_are_left_out_with_a_note_not_costed_as_zero(cron: str) -> None:
    nodes, notes = average_nodes(_fleet([{"cron": cron, "hours": 8, "desired": 10}]), 2)
    assert nodes == 2.0
    assert notes[0].startswith(f"off-peak window {cron!r} is not a weekly schedule (") and "not included" in notes[0]


def test_average_stays_within_capacity() -> None:
    fleet = _fleet([{"cron": "0 0 * * *", "hours": 12, "desired": 50}], {"min": 0, "desired": 2, "max": 12})
    assert average_nodes(fleet, 2)[0] <= 12
