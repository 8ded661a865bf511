"""Hourly demand history (the planner's one I/O module).

File format (CSV, header required): ``hour,demand`` - ``hour`` an ISO-8601 timestamp at the
start of the hour (``2024-01-01T00:00:00Z``; one with an offset, ``2024-01-01T05:00:00+05:00``, is
converted to UTC, and one without a zone is read as UTC), ``demand`` the average number of fleet
units (nodes) needed in that hour, a number from 0 to 1,000,000 (``MAX_DEMAND``) in the digits 0-9.  The file is UTF-8
(a byte-order mark is allowed).  Hours must be consecutive and increasing;
lines starting with ``#`` are comments.
"""

from __future__ import annotations

import csv
import datetime as dt
import math
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from seedance.policy.errors import Problem
from seedance.policy.loader import LoadedPolicy
from seedance.textfile import TextFileError, read_text_file

HOUR = dt.timedelta(hours=1)
#: the largest demand (units in one hour) a history may hold: far above any real fleet, and small
#: enough that sums and forecasts over years of hours stay exact and finite
MAX_DEMAND = 1_000_000


class DemandError(ValueError):
    """A demand history file that cannot be used; the message names the file and line."""


@dataclass(frozen=True)
class DemandHistory:
    start: dt.datetime  # UTC, first hour
    values: NDArray[np.float64]
    source: str = ""

    @property
    def end(self) -> dt.datetime:
        """The hour after the last one."""
        return self.start + self.values.size * HOUR

    @property
    def start_hour_of_week(self) -> int:
        return self.start.weekday() * 24 + self.start.hour

    def before(self, cutoff: dt.datetime) -> DemandHistory:
        """Only the hours that start strictly before ``cutoff`` (no look-ahead past a decision point)."""
        n = int(max(0, min(self.values.size, (cutoff - self.start) // HOUR)))
        return DemandHistory(self.start, self.values[:n].copy(), self.source)


def read_demand_csv(path: str | Path) -> DemandHistory:
    """Read and check a demand CSV; raise :class:`DemandError` naming the file and line on bad input."""
    try:
        text = read_text_file(path, what="a CSV file 'hour,demand'", encoding="utf-8-sig")
    except TextFileError as exc:
        raise DemandError(f"{exc}; expected a CSV file 'hour,demand' of demand history") from None
    return parse_demand_csv(text, str(path))


def parse_demand_csv(text: str, source: str = "<string>") -> DemandHistory:
    # lines end where an editor ends them (\n, \r\n or \r): str.splitlines() also breaks at U+2028 and
    # other separators, which would shift every line number after one
    lines = re.split(r"\r\n|\r|\n", text)
    rows = [(i, line) for i, line in enumerate(lines, start=1) if line.strip() and not line.lstrip().startswith("#")]
    if not rows:
        raise DemandError(f"{source}: empty demand history; expected a header 'hour,demand' and hourly rows")
    header_line, header = rows[0]
    cols = [c.strip() for c in next(csv.reader([header]))]
    if "hour" not in cols or "demand" not in cols:
        raise DemandError(f"{source}:{header_line}: expected header columns 'hour' and 'demand', got {cols}")
    twice = [c for c in ("hour", "demand") if cols.count(c) > 1]
    if twice:
        raise DemandError(f"{source}:{header_line}: expected one '{twice[0]}' column, got {cols.count(twice[0])}")
    hi, di = cols.index("hour"), cols.index("demand")
    start: dt.datetime | None = None
    prev: dt.datetime | None = None
    values: list[float] = []
    for lineno, line in rows[1:]:
        cells = next(csv.reader([line]))
        if len(cells) != len(cols):
            raise DemandError(f"{source}:{lineno}: expected {len(cols)} columns, got {len(cells)}")
        hour = _parse_hour(cells[hi].strip(), source, lineno)
        try:
            if "_" in cells[di]:  # Python's float() reads 1_000; a number in a CSV has no separators
                raise ValueError(cells[di])
            value = float(cells[di])
        except ValueError:
            raise DemandError(f"{source}:{lineno}: demand: expected a number of nodes, got {cells[di]!r}") from None
        if not cells[di].strip().isascii():  # float() also reads full-width and other scripts' digits ('３', '٣')
            raise DemandError(f"{source}:{lineno}: demand: expected a number of nodes written in the digits 0-9, "
                              f"got {cells[di].strip()!r}")
        if not math.isfinite(value) or value < 0 or value > MAX_DEMAND:
            raise DemandError(f"{source}:{lineno}: demand: expected a number of nodes from 0 to {MAX_DEMAND:,}, "
                              f"got {cells[di].strip()!r}")
        if prev is not None and hour != prev + HOUR:
            raise DemandError(
                f"{source}:{lineno}: hour: expected {_fmt(prev + HOUR)} (consecutive hours), got {cells[hi].strip()}"
            )
        if start is None:
            start = hour
        prev = hour
        values.append(value)
    if start is None:
        raise DemandError(f"{source}: no data rows after the header")
    return DemandHistory(start, np.asarray(values, dtype=float), source)


def write_demand_csv(path: str | Path, start: dt.datetime, values: NDArray[np.float64] | list[float],
                     comment: str = "") -> None:
    """Write the format :func:`read_demand_csv` reads (used by the trace derivation)."""
    lines = [f"# {c}" for c in comment.splitlines()] if comment else []
    lines.append("hour,demand")
    for i, v in enumerate(values):
        lines.append(f"{_fmt(start + i * HOUR)},{float(v):.4f}")
    Path(path).write_text("\n".join(lines) + "\n", encoding="utf-8")


def _parse_hour(text: str, source: str, lineno: int) -> dt.datetime:
    try:
        hour = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise DemandError(f"{source}:{lineno}: hour: expected an ISO-8601 timestamp such as 2024-01-01T00:00:00Z "
                          f"(an offset such as +05:00 is converted to UTC, no zone is read as UTC), got {text!r}") from None
    if hour.tzinfo is None:
        hour = hour.replace(tzinfo=dt.UTC)
    try:
        hour = hour.astimezone(dt.UTC)
    except OverflowError:  # 0001-01-01T00:00:00+05:00 is before the first hour there is in UTC
        raise DemandError(f"{source}:{lineno}: hour: expected an hour from 0001-01-01T00:00:00Z to "
                          f"{_fmt(_LAST_HOUR)} (in UTC), got {text!r}") from None
    if hour.minute or hour.second or hour.microsecond:
        raise DemandError(f"{source}:{lineno}: hour: expected the start of an hour, got {text!r}")
    if hour > _LAST_HOUR:  # the hour after it is past what dates can hold
        raise DemandError(f"{source}:{lineno}: hour: expected an hour up to {_fmt(_LAST_HOUR)}, got {text!r}")
    return hour


#: the last hour a history may hold: its successor is computed, and a week more for the forecast
_LAST_HOUR = dt.datetime(9999, 12, 1, tzinfo=dt.UTC)


def _fmt(t: dt.datetime) -> str:
    return t.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def history_problems(loaded: LoadedPolicy) -> list[Problem]:
    """Every fleet's ``demandHistory`` that cannot be read as the planner reads it, reported at the
    policy's field with the file's own line (``seedance validate``: the planner would refuse it)."""
    out: list[Problem] = []
    for i, fleet in enumerate(loaded.policy.fleets):
        if not fleet.demand_history:
            continue
        try:
            read_demand_csv(loaded.base_dir / fleet.demand_history)
        except DemandError as exc:
            out.append(Problem(loaded.location(("fleets", i, "demandHistory")), f"fleets[{i}].demandHistory", str(exc),
                               f"fleet {fleet.name!r}"))
    return out
