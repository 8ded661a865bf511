import math

import pytest

from seedance.planner.checkpoint import (
    daly_interval,
    decide_checkpoint,
    no_interruption_overhead,
    overhead_fraction,
    young_interval,
)


def test_young_closed_form():
    # sqrt(2 * 180 s * 18000 s) = sqrt(6,480,000)
    assert young_interval(180, 18000) == pytest.approx(2545.5844, abs=1e-3)


def test_daly_higher_order_correction():
    # x = 180 / 36000 = 0.005: 2545.5844 * (1 + sqrt(0.005)/3 + 0.005/9) - 180
    assert daly_interval(180, 18000) == pytest.approx(2426.9986, abs=1e-3)


def test_daly_is_mtbi_when_writes_are_long():
    assert daly_interval(5000, 2000) == 2000


def test_overhead_closed_form():
    # tau = delta = 3600, M = 7200, R = 0: T_w / T = 7200 (e - 1) / 3600 = 2 (e - 1)
    assert overhead_fraction(3600, 3600, 7200) == pytest.approx(1 - 1 / (2 * (math.e - 1)), rel=1e-12)
    # a restart multiplies the wall time by exp(R / M)
    assert overhead_fraction(3600, 3600, 7200, 7200) == pytest.approx(1 - 1 / (2 * math.e * (math.e - 1)), rel=1e-12)


def test_overhead_without_interruptions_is_write_share():
    assert overhead_fraction(3600, 360, 1e12) == pytest.approx(no_interruption_overhead(3600, 360), rel=1e-6)
    assert no_interruption_overhead(3600, 360) == pytest.approx(360 / 3960)


def test_daly_interval_minimises_overhead():
    delta, m, r = 30.0, 10 * 3600.0, 300.0
    best = daly_interval(delta, m)
    o = overhead_fraction(best, delta, m, r)
    for t in (best * 0.8, best * 0.9, best * 1.1, best * 1.25):
        assert overhead_fraction(t, delta, m, r) > o
    # first order: overhead at the optimum ~ sqrt(2 delta / M) + R / M
    assert o == pytest.approx(math.sqrt(2 * delta / m) + r / m, rel=0.05)


def test_decide_checkpoint_from_rate():
    d = decide_checkpoint(180, 600, interruptions_per_hour=0.2)  # M = 5 h = 18000 s
    assert d.interval_s == pytest.approx(2426.9986, abs=1e-3)
    assert d.young_interval_s == pytest.approx(2545.5844, abs=1e-3)
    assert d.overhead == pytest.approx(overhead_fraction(d.interval_s, 180, 18000, 600))
    assert "Daly optimum 2427 s" in d.rationale


def test_decide_checkpoint_fixed_and_no_spot():
    fixed = decide_checkpoint(60, 0, 0.1, fixed_interval_s=1800)
    assert fixed.interval_s == 1800 and "fixed by the policy" in fixed.rationale
    none = decide_checkpoint(60, 0, 0.0)
    assert math.isinf(none.interval_s) and none.overhead == 0.0


@pytest.mark.parametrize("delta,m", [(0, 10), (10, 0), (-1, 10)])
def test_bad_inputs(delta, m):
    with pytest.raises(ValueError, match="must be positive"):
        young_interval(delta, m)


@pytest.mark.parametrize("rate", [10_000.0, 1e6, 1e300])
def test_overhead_never_overflows_for_finite_inputs(rate):
    # exp(restart / mtbi) overflowed (OverflowError) once interruptions came every fraction of a second
    d = decide_checkpoint(180.0, 600.0, rate)
    assert d.overhead == 1.0 and math.isfinite(d.interval_s)
    assert overhead_fraction(1.0, 1.0, 1e-3, 600.0) == 1.0


@pytest.mark.parametrize("write_s", [1.0e-300, 1.0e-305, 1.0e-12, 5e-324])
def test_overhead_of_a_vanishing_write_is_not_negative(write_s):
    # a write of 1e-300 s rounded the overhead to -2.2e-16, which the spot decision refused as a lost
    # fraction: `plan` ended in an internal error on a policy that validates
    d = decide_checkpoint(write_s, 0.0, 0.196)
    assert 0.0 <= d.overhead < 1e-6
