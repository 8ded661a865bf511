"""The one clock: now and today in UTC, so a date means the same on every runner whatever its zone."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable


def utc_now() -> dt.datetime:
    """The real clock (UTC); the planner takes another for tests."""
    return dt.datetime.now(dt.UTC)


def utc_today(clock: Callable[[], dt.datetime] = utc_now) -> dt.date:
    """Today's date in UTC: the planner's default decision point, the date waivers expire by."""
    now = clock()
    return (now.astimezone(dt.UTC) if now.tzinfo is not None else now).date()
