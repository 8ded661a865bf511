"""Off-peak window schedules: the cron subset Seedance can cost and deploy.

An off-peak window (``fleets[].offPeak[]``) becomes two Auto Scaling scheduled actions: one at the
window's cron sets the group to the window's size, one ``hours`` later sets it back (see
``components/fleet.py``, ``window_end_cron``).  To cost the window and to compute that end time,
Seedance accepts a *weekly* schedule in five UTC fields:

* minute: one number 0-59;
* hour: one number 0-23;
* day-of-month and month: ``*``;
* day-of-week: ``*``, or a comma list of numbers 0-7 (0 and 7 are Sunday) and ranges ``low-high``
  (``1-5`` for Monday to Friday; a range across the weekend is written ``5-6,0-1``).

Names (``mon``), steps (``*/2``), ``?``, ``L``, ``W`` and ``#`` are refused with a message that
says how to write the same days.  Everything here is pure.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

MINUTES_PER_DAY = 24 * 60
MINUTES_PER_WEEK = 7 * MINUTES_PER_DAY
DAY_NAMES = ("sun", "mon", "tue", "wed", "thu", "fri", "sat")
_FIELDS = ("minute", "hour", "day-of-month", "month", "day-of-week")


class CronError(ValueError):
    """A cron expression outside the subset Seedance schedules (the message says what to write)."""


@dataclass(frozen=True)
class WeeklySchedule:
    """When a window starts: ``minute`` past ``hour`` (UTC) on each of ``days`` (0 = Sunday)."""

    minute: int
    hour: int
    days: frozenset[int]

    def starts(self) -> list[int]:
        """Minutes since Sunday 00:00 UTC at which the window starts, ascending."""
        return sorted(d * MINUTES_PER_DAY + self.hour * 60 + self.minute for d in self.days)

    def describe_days(self) -> str:
        if len(self.days) == 7:
            return "every day"
        return ", ".join(DAY_NAMES[d].capitalize() for d in sorted(self.days))


def _number(text: str, lo: int, hi: int, field: str) -> int:
    if not text.isdigit() or not text.isascii():
        raise CronError(f"{field}: expected a number {lo}-{hi}, got {text!r}")
    value = int(text)
    if not lo <= value <= hi:
        raise CronError(f"{field}: expected a number {lo}-{hi}, got {text!r}")
    return value


def _single(text: str, lo: int, hi: int, field: str) -> int:
    if any(ch in text for ch in ",-/*"):
        raise CronError(f"{field}: expected one number {lo}-{hi} (a window starts at one time of day; "
                        f"write one window per start time), got {text!r}")
    return _number(text, lo, hi, field)


def _canonical(days: frozenset[int]) -> str:
    """Days of the week as the shortest numeric field: '*', or ascending lists and ranges."""
    if len(days) == 7:
        return "*"
    parts: list[str] = []
    run: list[int] = []
    for d in sorted(days):
        if run and d == run[-1] + 1:
            run.append(d)
            continue
        if run:
            parts.append(str(run[0]) if len(run) == 1 else f"{run[0]}-{run[-1]}")
        run = [d]
    if run:
        parts.append(str(run[0]) if len(run) == 1 else f"{run[0]}-{run[-1]}")
    return ",".join(parts)


def _days(text: str, *, wrap: bool = False) -> frozenset[int]:
    if text == "*":
        return frozenset(range(7))
    lowered = text.lower()
    if any(name in lowered for name in DAY_NAMES):
        numeric = lowered
        for i, name in enumerate(DAY_NAMES):
            numeric = numeric.replace(name, str(i))
        try:
            hint = f"write {_canonical(_days(numeric, wrap=True))!r} for {text!r}"
        except CronError:
            hint = "0 = Sunday, 1 = Monday, ... 6 = Saturday"
        raise CronError(f"day-of-week: expected numbers 0-7 (0 and 7 are Sunday), not day names: {hint}")
    if "/" in text:
        raise CronError(f"day-of-week: steps ('/') are not supported; list the days instead (e.g. '1,3,5'), got {text!r}")
    days: set[int] = set()
    for part in text.split(","):
        if "-" in part:
            a, _, b = part.partition("-")
            lo = _number(a, 0, 7, "day-of-week")
            hi = _number(b, 0, 7, "day-of-week")
            if lo > hi and wrap:
                hi += 7
            elif lo > hi:
                span = _canonical(frozenset(d % 7 for d in range(lo, hi + 8)))
                raise CronError(f"day-of-week: range {part!r} runs backwards; expected low-high: write {span!r} for the days it means")
            days.update(d % 7 for d in range(lo, hi + 1))
        else:
            days.add(_number(part, 0, 7, "day-of-week") % 7)
    return frozenset(days)


def day_field(dow: str, shift: int = 0) -> str:
    """The day-of-week field ``dow`` (as validation reads it) ``shift`` days later, in its shortest
    numeric form: ``0-7`` is ``*``, Sunday is always ``0``, a range past Saturday is split."""
    return _canonical(frozenset((d + shift) % 7 for d in _days(dow.strip())))


def deployed_crons(cron: str, hours: int) -> tuple[str, str]:
    """The start and end crons of an off-peak window as the scheduled actions run them (UTC): the
    start with its day field in canonical form, the end ``hours`` later on the days that follows."""
    schedule = parse_window_cron(cron)
    minute, hour, _, _, dow = cron.split()
    end = schedule.hour + hours
    days_later, end_hour = divmod(end, 24)
    return (f"{schedule.minute} {schedule.hour} * * {day_field(dow)}",
            f"{schedule.minute} {end_hour} * * {day_field(dow, days_later)}")


def parse_window_cron(cron: str) -> WeeklySchedule:
    """The weekly schedule of an off-peak window's cron, or :class:`CronError` saying what is wrong."""
    fields = cron.split()
    if len(fields) != 5:
        raise CronError(f"expected five fields ({' '.join(_FIELDS)}), got {len(fields)}")
    minute, hour, dom, month, dow = fields
    problems: list[str] = []
    parsed_minute = parsed_hour = 0
    days: frozenset[int] = frozenset()
    try:
        parsed_minute = _single(minute, 0, 59, "minute")
    except CronError as exc:
        problems.append(str(exc))
    try:
        parsed_hour = _single(hour, 0, 23, "hour")
    except CronError as exc:
        problems.append(str(exc))
    if dom != "*":
        problems.append(f"day-of-month: expected '*' (off-peak windows repeat weekly; pick days with day-of-week), got {dom!r}")
    if month != "*":
        problems.append(f"month: expected '*' (off-peak windows repeat weekly), got {month!r}")
    try:
        days = _days(dow)
    except CronError as exc:
        problems.append(str(exc))
    if problems:
        raise CronError("; ".join(problems))
    return WeeklySchedule(parsed_minute, parsed_hour, days)


def format_minute_of_week(minute: int) -> str:
    day, rest = divmod(minute % MINUTES_PER_WEEK, MINUTES_PER_DAY)
    return f"{DAY_NAMES[day].capitalize()} {rest // 60:02d}:{rest % 60:02d} UTC"


@dataclass(frozen=True)
class Window:
    """One scheduled window: its schedule, length and the size it sets."""

    schedule: WeeklySchedule
    hours: int
    size: int


def intervals(window: Window) -> list[tuple[int, int]]:
    """(start, end) minutes of the week the window is active; ``end`` may pass the week's end."""
    return [(s, s + window.hours * 60) for s in window.schedule.starts()]


def first_clash(windows: Iterable[tuple[int, Window]]) -> tuple[int, int, int, bool] | None:
    """The first pair of windows (or one window with itself) that overlap or whose scheduled
    actions fire at the same minute: ``(i, j, minute of the week, touching)``, window ``j``
    starting at that minute while ``i`` runs (``touching``: exactly when ``i`` ends), else None.

    Scheduled actions that fire at the same time run in no defined order, and an overlapping
    window's end action cuts the other window short, so both are refused at validation.
    """
    spans: list[tuple[int, int, int]] = []  # (start, end, window index), unrolled over two weeks
    for idx, w in windows:
        for start, end in intervals(w):
            spans.append((start, end, idx))
            spans.append((start + MINUTES_PER_WEEK, end + MINUTES_PER_WEEK, idx))
    spans.sort()
    for a in range(len(spans)):
        s1, e1, i = spans[a]
        if s1 >= MINUTES_PER_WEEK:
            break
        for b in range(a + 1, len(spans)):
            s2, e2, j = spans[b]
            if s2 > e1:
                break
            # s2 <= e1: overlapping, or the second starts exactly when the first ends
            return (i, j, s2 % MINUTES_PER_WEEK, s2 == e1 and s2 > s1)
    return None


def _steps(base: float, windows: list[Window]) -> list[tuple[int, int, float]]:
    """The group's size over a week as (start minute, end minute, size) pieces covering it:
    ``base`` outside windows; at every start the window's size, at every end ``base`` again -- the
    action that fires last sets the size (ties: ends first)."""
    if not windows:
        return [(0, MINUTES_PER_WEEK, float(base))]
    events: list[tuple[int, int, int, float]] = []  # (minute, 0 end / 1 start, order, size)
    for order, w in enumerate(windows):
        for start, end in intervals(w):
            events.append((start % MINUTES_PER_WEEK, 1, order, float(w.size)))
            events.append((end % MINUTES_PER_WEEK, 0, order, float(base)))
    events.sort()
    pieces: list[tuple[int, int, float]] = []
    size = events[-1][3]  # the week wraps: before the first event the last one's size holds
    prev = 0
    for minute, _, _, new in events:
        if minute > prev:
            pieces.append((prev, minute, size))
        prev, size = minute, new
    if prev < MINUTES_PER_WEEK:
        pieces.append((prev, MINUTES_PER_WEEK, size))
    return pieces


def average_size(base: float, windows: list[Window]) -> float:
    """Average group size over a week (see :func:`_steps`)."""
    return sum((end - start) * size for start, end, size in _steps(base, windows)) / MINUTES_PER_WEEK


def hourly_sizes(base: float, windows: list[Window]) -> list[float]:
    """The group's size hour by hour over a week (hour 0 = Sunday 00:00 UTC, like the minutes of the
    week here; a window starting or ending within an hour counts for its share of it)."""
    hours = [0.0] * (MINUTES_PER_WEEK // 60)
    for start, end, size in _steps(base, windows):
        minute = start
        while minute < end:
            hour = minute // 60
            upto = min(end, (hour + 1) * 60)
            hours[hour] += size * (upto - minute) / 60
            minute = upto
    return hours
