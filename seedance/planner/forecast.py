"""Hourly demand forecast: level + damped trend + daily and weekly seasonality.

Only the history handed in is used - the caller cuts it at the decision point, so nothing after
that point can leak into a decision.  The model is deliberately simple and robust:

* work on the last ``window_days`` days (28 by default) of complete days, counted back from the
  decision point;
* **level**: the median, over the last 7 days, of each day's mean with its weekday effect removed
  and moved along the trend to the last day (one unusual day does not move it);
* **trend**: the Theil-Sen slope of the daily means (median of pairwise slopes, robust to the
  step changes real cluster traces have), needs >= 3 days;
* **damping**: the trend is extrapolated at most as far ahead as the window it was fitted on,
  then held flat - a forecast never claims more growth than it has observed;
* **daily seasonality**: the median deviation of each hour of day from its day's (detrended) mean,
  >= 2 days; medians, so a level shift inside one day is not read as a daily pattern;
* **weekly seasonality**: the median deviation of each weekday's detrended mean (>= 21 days), same reason;
* values are clipped at zero.

**Commitment view** (:func:`commitment_forecast`): reserved units cannot be cancelled but more can
be bought at the next weekly re-plan, so the two possible errors are not symmetric: committing to
growth that does not come costs the reserved rate for the rest of the term, while waiting a week
for growth that does come costs at most one week of the (blended - reserved) difference.
Commitments therefore use the pointwise minimum of the forecast and a cap from the latest days:
the **last day repeated** (hour of day aligned), or where higher the **last week repeated** less the
last day's fall below the same day a week earlier.  A forecast decline is honoured, forecast growth
is not bought ahead of seeing it, and nothing above the latest week is bought.  The last day alone
would read a weekend as a drop in every coming weekday (a re-plan run on Mondays never bought a
layer busy on weekdays only); the last week alone would replay a level shift inside it as a drop
every week - the model's level (a median of daily means) already decides how much of a shift to
believe.  Fleets whose demand is made of jobs
(training, fine-tuning, batch) also cap it by the last ``window_days`` days repeated: a job that
starts is seen as a new level, yet it ends, so only the share of the recent weeks a unit was busy
is bought.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

HOURS_PER_DAY = 24
HOURS_PER_WEEK = 168


@dataclass(frozen=True)
class ForecastModel:
    level: float  # deseasonalised demand of the last day (centred 12.5 h before the first forecast hour)
    slope_per_hour: float
    trend_cap_hours: int  # the trend stops growing this many hours after the decision point
    daily: tuple[float, ...]  # 24 deviations by hour of day (UTC)
    weekly: tuple[float, ...]  # 7 deviations by weekday (Monday = 0), zeros when < 21 days
    end_hour_of_week: int  # hour of week of the first forecast hour

    def predict(self, horizon: int) -> NDArray[np.float64]:
        h = np.arange(horizon, dtype=float)
        # the level is the mean of hours -24..-1, centred 12.5 h before the first forecast hour
        ahead = np.minimum(h, self.trend_cap_hours) + (HOURS_PER_DAY + 1) / 2
        how = (self.end_hour_of_week + np.arange(horizon)) % HOURS_PER_WEEK
        out = (
            self.level
            + self.slope_per_hour * ahead
            + np.asarray(self.daily)[how % HOURS_PER_DAY]
            + np.asarray(self.weekly)[how // HOURS_PER_DAY]
        )
        return np.maximum(out, 0.0)


def fit(history: ArrayLike, *, start_hour_of_week: int = 0, window_days: int = 28) -> ForecastModel:
    """Fit the model on ``history`` (hourly, oldest first; ``start_hour_of_week`` of its first hour)."""
    y = np.asarray(history, dtype=float).ravel()
    if y.size == 0:
        raise ValueError("cannot forecast from an empty history")
    if not np.all(np.isfinite(y)):
        raise ValueError("demand history must be finite")
    end_how = (start_hour_of_week + y.size) % HOURS_PER_WEEK
    n_days = min(y.size // HOURS_PER_DAY, window_days)
    level = float(y[-HOURS_PER_DAY:].mean())
    if n_days < 2:
        return ForecastModel(level, 0.0, 0, (0.0,) * HOURS_PER_DAY, (0.0,) * 7, end_how)
    win = y[y.size - n_days * HOURS_PER_DAY :].reshape(n_days, HOURS_PER_DAY)
    first_how = (end_how - n_days * HOURS_PER_DAY) % HOURS_PER_WEEK  # window starts at a day boundary?
    means = win.mean(axis=1)
    slope_day = _theil_sen(means) if n_days >= 3 else 0.0
    # hour-of-day profile: the window's rows are 24 h blocks aligned to the decision point,
    # so shift each column to its real hour of day
    within_day = (slope_day / HOURS_PER_DAY) * (np.arange(HOURS_PER_DAY) - (HOURS_PER_DAY - 1) / 2)
    dev = np.median(win - means[:, None] - within_day[None, :], axis=0)
    daily = np.zeros(HOURS_PER_DAY)
    daily[(first_how + np.arange(HOURS_PER_DAY)) % HOURS_PER_DAY] = dev
    weekly = np.zeros(7)
    if n_days >= 21:
        x = np.arange(n_days, dtype=float)
        intercept = float(np.median(means - slope_day * x))
        resid = means - (intercept + slope_day * x)
        # weekday of each block: the block's middle hour (blocks need not start at midnight)
        mid_how = (first_how + np.arange(n_days) * HOURS_PER_DAY + HOURS_PER_DAY // 2) % HOURS_PER_WEEK
        dow = mid_how // HOURS_PER_DAY
        for d in range(7):
            sel = resid[dow == d]
            if sel.size:
                weekly[d] = float(np.median(sel))
        weekly -= weekly.mean()
    # level at the last day: the median over the last week of each day's mean, with its weekday
    # effect removed and moved along the trend to the last day (one unusual day does not move it)
    x = np.arange(n_days)
    dow_all = ((first_how + x * HOURS_PER_DAY + HOURS_PER_DAY // 2) % HOURS_PER_WEEK) // HOURS_PER_DAY
    recent = slice(max(0, n_days - 7), n_days)
    level = float(np.median(means[recent] - weekly[dow_all[recent]] + slope_day * (n_days - 1 - x[recent])))
    return ForecastModel(
        level,
        slope_day / HOURS_PER_DAY,
        n_days * HOURS_PER_DAY,
        tuple(float(v) for v in daily),
        tuple(float(v) for v in weekly),
        end_how,
    )


def forecast(
    history: ArrayLike, horizon: int, *, start_hour_of_week: int = 0, window_days: int = 28
) -> NDArray[np.float64]:
    """The next ``horizon`` hours after ``history`` (see the module docstring for the model)."""
    if horizon < 0:
        raise ValueError(f"horizon must be >= 0, got {horizon}")
    return fit(history, start_hour_of_week=start_hour_of_week, window_days=window_days).predict(horizon)


def commitment_forecast(
    history: ArrayLike, horizon: int, *, start_hour_of_week: int = 0, window_days: int = 28, jobs: bool = False
) -> NDArray[np.float64]:
    """The forecast to decide commitments on: ``min(forecast, last day repeated)`` hour by hour.

    ``jobs``: the demand is made of jobs (training, fine-tuning, batch), which end. A new level is
    then the jobs running now, not a service that stays, so the view is also capped by the last
    ``window_days`` days repeated (the window the forecast is fitted on; whole weeks, so weekdays
    stay aligned): a unit is valued at the share of that window it was in use.
    """
    y = np.asarray(history, dtype=float).ravel()
    f = forecast(y, horizon, start_hour_of_week=start_hour_of_week, window_days=window_days)
    if y.size < HOURS_PER_DAY:  # under a day of history: its mean, flat
        return np.minimum(f, float(y.mean()))
    out = np.minimum(f, _recent_cap(y, horizon))
    if jobs:
        out = np.minimum(out, _repeated(y[max(0, y.size - window_days * HOURS_PER_DAY) :], horizon))
    return out


def _recent_cap(y: NDArray[np.float64], horizon: int) -> NDArray[np.float64]:
    """What the commitment view may not exceed: the last day repeated (hour of day aligned), or, where
    higher, the last week repeated (weekday aligned) less the last day's fall below the same day a
    week earlier. A weekend is then not read as a drop in the weekdays to come (the last day repeated
    alone was: a weekly re-plan run on Mondays never bought a layer busy on weekdays only), while a
    day that fell below its weekday's level a week earlier still lowers the view by as much; a rise
    within the last week is not replayed as a drop, the last day being above its earlier hours."""
    day = _repeated(y[y.size - HOURS_PER_DAY :], horizon)
    if y.size < HOURS_PER_WEEK + HOURS_PER_DAY:  # no same day a week before the last one
        return day
    last, week_before = y[y.size - HOURS_PER_DAY :], y[y.size - HOURS_PER_WEEK - HOURS_PER_DAY : y.size - HOURS_PER_WEEK]
    fall = min(0.0, float(last.mean() - week_before.mean()))
    return np.maximum(day, _repeated(y[y.size - HOURS_PER_WEEK :], horizon) + fall)


def _repeated(block: NDArray[np.float64], horizon: int) -> NDArray[np.float64]:
    return np.tile(block, horizon // block.size + 1)[:horizon]


def _theil_sen(y: NDArray[np.float64]) -> float:
    n = y.size
    i, j = np.triu_indices(n, k=1)
    return float(np.median((y[j] - y[i]) / (j - i)))
