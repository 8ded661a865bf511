import math

import pytest

from seedance.planner.spot import (
    OPEN_BAND_HOURLY_RATE,
    band_hourly_rate,
    decide_spot,
    effective_spot_hourly,
    stateless_lost_fraction,
)


def test_band_to_hourly_rate():
    assert band_hourly_rate(5) == pytest.approx(-math.log(0.95) / 730)  # 7.03e-5
    assert band_hourly_rate(5) == pytest.approx(7.0265e-5, rel=1e-4)
    assert band_hourly_rate(11) == pytest.approx(1.5964e-4, rel=1e-4)
    assert band_hourly_rate(100) == OPEN_BAND_HOURLY_RATE == pytest.approx(0.1957, abs=1e-4)
    with pytest.raises(ValueError, match=r"band upper bound must be in \(0, 100\]"):
        band_hourly_rate(0)


def test_effective_cost():
    assert effective_spot_hourly(0.4, 0.2) == pytest.approx(0.5)
    assert math.isinf(effective_spot_hourly(0.4, 1.0))
    assert stateless_lost_fraction(0.2, 300) == pytest.approx(0.2 * 300 / 3600)


def test_spot_share_when_effective_spot_beats_on_demand():
    d = decide_spot(max_share=0.3, ondemand_hourly=1.0, spot_hourly=0.4, interruption_rate=0.01, lost_fraction=0.2)
    assert d.share == 0.3 and d.effective_hourly == pytest.approx(0.5)
    assert d.blended_hourly(1.0) == pytest.approx(0.3 * 0.5 + 0.7 * 1.0)
    assert d.allocation_strategy == "price-capacity-optimized"


def test_no_spot_when_interruptions_eat_the_discount():
    d = decide_spot(max_share=0.7, ondemand_hourly=1.0, spot_hourly=0.6, interruption_rate=0.2, lost_fraction=0.45)
    assert d.share == 0 and "does not beat on-demand" in d.rationale
    assert d.blended_hourly(1.0) == 1.0


@pytest.mark.parametrize(
    "kwargs,reason",
    [
        (dict(max_share=None, spot_hourly=0.4, interruption_rate=0.1, lost_fraction=0.0), "allows no spot"),
        (dict(max_share=0.5, spot_hourly=None, interruption_rate=0.1, lost_fraction=0.0), "no sourced spot price"),
        (dict(max_share=0.5, spot_hourly=0.4, interruption_rate=None, lost_fraction=None), "no interruption rate"),
    ],
)
def test_no_spot_reasons(kwargs, reason):
    d = decide_spot(ondemand_hourly=1.0, **kwargs)
    assert d.share == 0 and reason in d.rationale
