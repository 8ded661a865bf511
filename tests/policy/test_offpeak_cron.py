"""Off-peak windows: the weekly cron subset Seedance costs and deploys (seedance.policy.cron)."""

from __future__ import annotations

from pathlib import Path

import pytest

from seedance.policy import PolicyError, load_policy_text
from seedance.policy.cron import (
    MINUTES_PER_WEEK,
    CronError,
    Window,
    WeeklySchedule,
    average_size,
    first_clash,
    parse_window_cron,
)

MINIMAL = (Path(__file__).parent / "valid" / "minimal.yaml").read_text()


def _with_windows(windows: str, capacity: str = "{min: 1, desired: 2, max: 4}") -> str:
    return MINIMAL.replace("workload: api", "workload: batch").replace(
        "capacity: {min: 1, desired: 2, max: 4}", f"capacity: {capacity}\n    offPeak:\n{windows}"
    )


@pytest.mark.parametrize(
    ("cron", "minute", "hour", "days"),
    [
        ("0 22 * * *", 0, 22, set(range(7))),
        ("30 6 * * 1-5", 30, 6, {1, 2, 3, 4, 5}),
        ("  5 0 * * 0,6  ", 5, 0, {0, 6}),
        ("0 1 * * 7", 0, 1, {0}),  # 7 is Sunday too
        ("0 1 * * 5-7", 0, 1, {5, 6, 0}),
        ("00 09 * * 1,1,3", 0, 9, {1, 3}),
    ],
)
def test_weekly_crons_parse(cron: str, minute: int, hour: int, days: set[int]) -> None:
    assert parse_window_cron(cron) == WeeklySchedule(minute, hour, frozenset(days))


@pytest.mark.parametrize(
    ("cron", "message"),
    [
        ("61 25 * * *", "minute: expected a number 0-59, got '61'; hour: expected a number 0-23, got '25'"),
        ("0 22 * * 99", "day-of-week: expected a number 0-7, got '99'"),
        ("@daily x y z w", "minute: expected a number 0-59, got '@daily'"),
        ("99 99 99 99 99", "day-of-month: expected '*'"),
        ("0 22 * * 5-1", "range '5-1' runs backwards; expected low-high: write '0-1,5-6'"),
        ("0 22 1 * *", "day-of-month: expected '*' (off-peak windows repeat weekly"),
        ("0 22 * 1 *", "month: expected '*'"),
        ("0 22 * * mon-sun", "not day names: write '*' for 'mon-sun'"),
        ("0 22 * * mon-fri", "write '1-5' for 'mon-fri'"),
        ("0 22 * * */2", "steps ('/') are not supported"),
        ("*/15 22 * * *", "minute: expected one number 0-59"),
        ("0 8,20 * * *", "hour: expected one number 0-23"),
        ("0 22 * *", "expected five fields"),
        ("0 ２ * * *", "hour: expected a number 0-23"),
    ],
)
def test_unsupported_crons_say_what_to_write(cron: str, message: str) -> None:
    with pytest.raises(CronError) as exc:
        parse_window_cron(cron)
    assert message in str(exc.value)


def test_everything_validation_accepts_the_synth_step_accepts() -> None:
    """Every accepted cron has a single-number hour and a numeric, ascending day-of-week, which
    components/fleet.py window_end_cron needs to compute the window's end (read, not imported:
    the components need Pulumi)."""
    for cron in ("0 22 * * *", "30 6 * * 1-5", "0 23 * * 0,6", "0 1 * * 5-7"):
        s = parse_window_cron(cron)
        minute, hour, dom, month, dow = cron.split()
        assert hour.isdigit() and 0 <= int(hour) <= 23 and dom == "*" and month == "*"
        for item in dow.split(","):
            if item != "*":
                lo, _, hi = item.partition("-")
                assert lo.isdigit() and (not hi or (hi.isdigit() and int(lo) <= int(hi)))
        assert s.days


def _w(cron: str, hours: int, size: int) -> Window:
    return Window(parse_window_cron(cron), hours, size)


def test_clashes_overlap_touch_and_self() -> None:
    assert first_clash([(0, _w("0 22 * * *", 8, 4)), (1, _w("0 8 * * *", 4, 3))]) is None
    i, j, minute, touching = first_clash([(0, _w("0 0 * * *", 24, 4)), (1, _w("0 12 * * *", 24, 4))])
    assert (i, j, minute, touching) == (0, 1, 12 * 60, False)
    # one window ending exactly when another starts: both actions fire at once
    assert first_clash([(0, _w("0 0 * * 1", 6, 4)), (1, _w("0 6 * * 1", 2, 3))])[1:] == (1, 6 * 60 + 1440, True)
    # a daily 24 h window restarts as it ends; a Saturday window reaching into Sunday wraps the week
    assert first_clash([(0, _w("0 22 * * *", 24, 4))])[:2] == (0, 0)
    assert first_clash([(0, _w("0 22 * * 6", 8, 4)), (1, _w("0 4 * * 0", 2, 4))])[:2] == (0, 1)


def test_average_size_follows_the_last_action() -> None:
    assert average_size(2, []) == 2.0
    assert average_size(2, [_w("0 22 * * *", 8, 10)]) == pytest.approx(2 + 8 * 8 / 24)
    # Monday-Friday nights: 5 of 7 days
    assert average_size(2, [_w("0 22 * * 1-5", 8, 10)]) == pytest.approx(2 + 8 * 40 / 168)
    # two overlapping daily 24 h windows of 4: the group is at 4 all the time, never 6
    assert average_size(2, [_w("0 0 * * *", 24, 4), _w("0 12 * * *", 24, 4)]) == pytest.approx(4.0)
    # the first window's end at 12:00 cuts the second short: 6 h at 4, 6 h at 3, 12 h at 1
    assert average_size(1, [_w("0 0 * * *", 12, 4), _w("0 6 * * *", 12, 3)]) == pytest.approx((24 + 18 + 12) / 24)
    # a window over the week's end (Saturday 22:00 to Sunday 06:00)
    assert average_size(0, [_w("0 22 * * 6", 8, 7)]) == pytest.approx(7 * 8 * 60 / MINUTES_PER_WEEK)


def test_policy_with_weekly_windows_is_valid() -> None:
    text = _with_windows(
        '      - {cron: "0 22 * * 1-5", hours: 8, desired: 4}\n'
        '      - {cron: "0 8 * * 6", hours: 12, desired: 1}\n'
    )
    assert len(load_policy_text(text).fleets[0].off_peak) == 2


def test_window_desired_within_min_and_max() -> None:
    text = _with_windows('      - {cron: "0 22 * * *", hours: 8, desired: 0}\n', capacity="{min: 2, desired: 2, max: 4}")
    with pytest.raises(PolicyError) as exc:
        load_policy_text(text)
    assert [p.message for p in exc.value.problems] == [
        "expected at least capacity.min (2): a scheduled action cannot set the group below its minimum, got 0"
    ]


def test_touching_windows_are_refused() -> None:
    text = _with_windows(
        '      - {cron: "0 0 * * 1", hours: 6, desired: 4}\n'
        '      - {cron: "0 6 * * 1", hours: 2, desired: 3}\n'
    )
    with pytest.raises(PolicyError) as exc:
        load_policy_text(text)
    (problem,) = exc.value.problems
    assert problem.path == "fleets[0].offPeak[1].cron"
    assert problem.message.startswith("starts just as offPeak[0] ends (Mon 06:00 UTC)")
