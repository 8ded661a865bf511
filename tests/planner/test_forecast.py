import numpy as np
import pytest

from seedance.planner.forecast import commitment_forecast, fit, forecast


def test_constant():
    assert forecast([7.0] * 100, 50) == pytest.approx([7.0] * 50)


def test_linear_trend_is_extrapolated_then_damped():
    y = 10 + 0.1 * np.arange(14 * 24)  # 14 days, +2.4 per day
    m = fit(y)
    assert m.slope_per_hour == pytest.approx(0.1)
    f = m.predict(20 * 24)
    n = y.size
    # within the fitted window's length the line continues exactly
    assert f[: n] == pytest.approx(10 + 0.1 * (n + np.arange(n)))
    # after 14 days ahead it stays flat
    assert f[n:] == pytest.approx([f[n - 1] + 0.1] * (f.size - n))


def test_daily_seasonality():
    h = np.arange(10 * 24)
    y = 20 + 5 * np.sin(2 * np.pi * h / 24)
    f = forecast(y, 48)
    expected = 20 + 5 * np.sin(2 * np.pi * (h[-1] + 1 + np.arange(48)) / 24)
    assert f == pytest.approx(expected, abs=1e-9)


def test_weekly_seasonality_needs_three_weeks():
    days = np.arange(28)
    weekday_level = np.where(days % 7 >= 5, 4.0, 10.0)  # history starts on a Monday: weekends low
    y = np.repeat(weekday_level, 24)
    f = forecast(y, 7 * 24, start_hour_of_week=0)
    # the last day is a Sunday (4.0); the weekly term takes its effect out of the level:
    # weekly deviations [+12/7]*5 + [-30/7]*2, level 4 + 30/7 -> weekdays 10, weekend 4
    assert f[: 5 * 24] == pytest.approx([10.0] * 120)
    assert f[5 * 24 :] == pytest.approx([4.0] * 48)
    # < 21 days: no weekly term; the level is the median of the last 7 daily means (5 x 10, 2 x 4)
    short = forecast(y[: 14 * 24], 24)
    assert short == pytest.approx([10.0] * 24)


def test_level_ignores_one_unusual_day():
    y = np.full(10 * 24, 5.0)
    y[-24:] = 40.0  # one spike day at the end
    assert forecast(y, 24) == pytest.approx([5.0] * 24)


def test_never_negative_and_rejects_empty():
    y = np.linspace(50, 0, 10 * 24)
    assert forecast(y, 30 * 24).min() == 0.0
    with pytest.raises(ValueError, match="empty history"):
        forecast([], 5)


def test_only_history_matters():
    """The forecast depends only on the hours handed in: appending future data to the input
    changes nothing once the caller cuts at the decision point."""
    rng = np.random.default_rng(1)
    y = rng.uniform(0, 10, 30 * 24)
    a = forecast(y[:500], 100)
    y2 = y.copy()
    y2[500:] = 1e6
    assert forecast(y2[:500], 100) == pytest.approx(a)


def test_commitment_forecast_never_extrapolates_growth():
    y = 10 + 0.1 * np.arange(14 * 24)
    f = commitment_forecast(y, 30 * 24)
    # the last day repeated (41.2 .. 43.5) is lower than the growing trend forecast: the view keeps it
    assert f == pytest.approx(np.tile(y[-24:], 30)[: 30 * 24])
    assert f.max() == pytest.approx(43.5)
    # a falling trend is below the last week: the commitment view follows the decline
    down = 50 - 0.1 * np.arange(14 * 24)
    assert commitment_forecast(down, 24) == pytest.approx(forecast(down, 24))


def test_commitment_forecast_level_shift_is_not_replayed_as_weekly_drop():
    # 24 days at 0, then 5 days at 2: the level (median of the last 7 daily means) is 2, and the
    # last day is 2; the last week (2 days at 0, 5 at 2) repeated would predict a 48 h drop to 0
    # at the start of every coming week, which the commitment view must not do
    y = np.concatenate([np.zeros(24 * 24), np.full(5 * 24, 2.0)])
    assert commitment_forecast(y, 14 * 24) == pytest.approx(np.full(14 * 24, 2.0))


def test_commitment_forecast_short_history():
    assert commitment_forecast([3.0] * 30, 5) == pytest.approx([3.0] * 5)
    assert commitment_forecast([1.0, 2.0], 3) == pytest.approx([1.5, 1.5, 1.5])


def test_commitment_forecast_for_jobs_counts_the_share_of_recent_weeks_in_use():
    # 20 idle days, then a job holding 8 units for 8 days: a service's view buys the new level, a
    # fleet of jobs values each unit at the 8 of the last 28 days it was busy
    y = np.r_[np.zeros(20 * 24), np.full(8 * 24, 8.0)]
    service = commitment_forecast(y, 28 * 24)
    jobs = commitment_forecast(y, 28 * 24, jobs=True)
    assert service == pytest.approx(np.full(28 * 24, 8.0))
    assert np.all(jobs <= service)
    assert np.mean(jobs == 8.0) == pytest.approx(8 / 28)
    assert jobs[: 20 * 24] == pytest.approx(np.zeros(20 * 24))  # the window replayed in order, weekdays aligned


def test_commitment_forecast_for_jobs_on_steady_demand_is_the_service_view():
    y = np.full(40 * 24, 3.0)
    assert commitment_forecast(y, 100, jobs=True) == pytest.approx(commitment_forecast(y, 100))


def _weekdays_and_weekends(weeks: int) -> np.ndarray:
    """Demand of 8 on weekdays and 4 on weekends, from a Monday 00:00 (hour of week 0)."""
    day = np.repeat([8.0, 8.0, 8.0, 8.0, 8.0, 4.0, 4.0], 24)
    return np.tile(day, weeks)


@pytest.mark.parametrize("extra_days", range(7))
def test_commitment_view_does_not_depend_on_the_weekday_of_the_decision(extra_days):
    # a re-plan run on a Monday (the last day a Sunday at 4) capped the view at 4 for the whole term:
    # the weekday layers 5-8, busy 5 days in 7, were never bought however often it ran
    y = _weekdays_and_weekends(8)[: 7 * 24 * 7 + extra_days * 24]
    view = commitment_forecast(y, 4 * 168, start_hour_of_week=0)
    assert np.mean(view >= 8.0 - 1e-9) == pytest.approx(5 / 7, abs=1e-9)  # the weekdays, whichever day it runs
    assert np.mean(view >= 4.0 - 1e-9) == pytest.approx(1.0)


def test_a_day_below_the_same_day_a_week_before_lowers_the_view_by_its_fall():
    # 5 weeks flat at 4, then the last 12 hours at 1: the last day (mean 2.5) is 1.5 below the same
    # day a week before, so the week repeated comes down by 1.5 where it is above the last day repeated
    y = np.r_[np.full(35 * 24 - 12, 4.0), np.full(12, 1.0)]
    view = commitment_forecast(y, 48)
    last_day = np.r_[np.full(12, 4.0), np.full(12, 1.0)]
    assert view == pytest.approx(np.maximum(np.tile(last_day, 2), 4.0 - 1.5))
    # a fall that lasts: two days at 1 after weeks at 4 -> the view is 1
    y2 = np.r_[np.full(33 * 24, 4.0), np.full(48, 1.0)]
    assert commitment_forecast(y2, 48) == pytest.approx(np.full(48, 1.0))
