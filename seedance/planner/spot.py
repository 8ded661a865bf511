"""Spot share above the reserved / on-demand base, and the effective cost of spot capacity.

**Interruption rate from a Spot Advisor band.**  The advisor's band is the share of a type's spot
instances AWS reclaimed during the trailing month.  We take the band's upper bound ``p`` (5, 11,
16, 22 %; the conservative end) and convert it to a constant hourly hazard for one instance:
``rate = -ln(1 - p) / 730`` (730 hours per month), so ``<5%`` gives 7.0e-5 per hour.  The top band
(``>20%``, upper bound 100) has no usable bound; for it we use the rate measured in the only real
preemption traces with unambiguous counts - the SkyPilot "Can't Be Late" 4-node V100 traces, whose
values count the spot instances held (0..4): 600 drops over 3,066 instance-hours, 0.196 per
instance-hour (``bench/backtest/interruptions.py`` recomputes it).  V100 capacity in 2023 was
scarce, so this is pessimistic for other top-band types - deliberately so.

**Effective spot cost.**  Interrupted time is paid and useless: with ``f`` the expected share of
paid time lost (checkpoint writes, work since the last checkpoint and restarts - Daly's model for
checkpointed training; ``rate x replacement time`` for stateless fleets), one useful spot hour
costs ``spot / (1 - f)``.  Spot is used only where that beats on-demand, and the estimate bills
spot capacity the same way: the paid spot hours are the useful ones divided by ``1 - f``.

**Share.**  The share above the base is the policy's ``maxShare`` rounded *down* to a whole
percent (the Auto Scaling group takes whole percents), so what deploys never exceeds it.

**Interruption tolerance** (``spot.interruptionTolerance``) bounds the Spot Advisor bands a fleet
may use spot in, the advisor's five bands read as three tiers: ``low`` accepts ``<5%`` and
``5-10%``, ``medium`` (the default) also ``10-15%`` and ``15-20%``, ``high`` every band including
``>20%``.  A type in a band above the tolerance runs on-demand only (:data:`TOLERANCE_MAX_BAND_PCT`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal

from seedance.policy.model import DEFAULT_RESTART_SECONDS

HOURS_PER_MONTH = 730.0

#: Spot Advisor bands -> upper bound of the monthly interruption frequency (percent).
BAND_MAX_PCT: dict[str, float] = {"<5%": 5.0, "5-10%": 11.0, "10-15%": 16.0, "15-20%": 22.0, ">20%": 100.0}

#: The highest band upper bound (percent, as in :data:`BAND_MAX_PCT`) each interruption tolerance accepts.
TOLERANCE_MAX_BAND_PCT: dict[str, float] = {"low": 11.0, "medium": 22.0, "high": 100.0}

#: Measured preemptions per instance-hour for the open top band (see the module docstring).
OPEN_BAND_HOURLY_RATE = 600 / 3066

#: Assumed replacement time (seconds) per interruption for fleets without a checkpoint block, or
#: whose block gives no restartSeconds: launch a node and load the model (stated in the plan's
#: rationale when used).
DEFAULT_REPLACEMENT_S = DEFAULT_RESTART_SECONDS

PRICE_CAPACITY_OPTIMIZED = "price-capacity-optimized"


@dataclass(frozen=True)
class SpotDecision:
    share: float  # of the capacity above the on-demand base, 0..maxShare (a whole percent)
    effective_hourly: float | None  # spot price / (1 - lost fraction); None = no spot price
    interruption_rate: float | None  # per instance-hour
    lost_fraction: float | None
    allocation_strategy: str
    rationale: str

    def blended_hourly(self, ondemand_hourly: float) -> float:
        """Hourly rate of capacity above the base under this decision."""
        if self.share == 0 or self.effective_hourly is None:
            return ondemand_hourly
        return self.share * self.effective_hourly + (1 - self.share) * ondemand_hourly


def band_hourly_rate(band_max_pct: float) -> float:
    """Per-instance hourly interruption rate for a Spot Advisor band's upper bound (percent)."""
    if not 0 < band_max_pct <= 100:
        raise ValueError(f"band upper bound must be in (0, 100] percent, got {band_max_pct}")
    if band_max_pct >= 100:
        return OPEN_BAND_HOURLY_RATE
    return -math.log(1 - band_max_pct / 100) / HOURS_PER_MONTH


def band_label(band_max_pct: float) -> str:
    """The Spot Advisor band whose upper bound is ``band_max_pct`` (``"<= x%"`` for other values)."""
    for label, pct in BAND_MAX_PCT.items():
        if pct == band_max_pct:
            return label
    return f"<= {band_max_pct:g}%"


def within_tolerance(band_max_pct: float, tolerance: str | None) -> bool:
    """Whether a type in this band may run spot for a fleet of this ``interruptionTolerance``
    (``None``: no bound)."""
    return tolerance is None or band_max_pct <= TOLERANCE_MAX_BAND_PCT[tolerance]


def tolerance_text(tolerance: str) -> str:
    """What a tolerance accepts, for rationales: ``"low (bands up to 5-10%)"``."""
    top = TOLERANCE_MAX_BAND_PCT[tolerance]
    return f"{tolerance} (bands up to {band_label(top)})" if top < 100 else f"{tolerance} (every band)"


def whole_percent_share(max_share: float) -> float:
    """``max_share`` rounded down to a whole percent (0.337 -> 0.33; 0.7 stays 0.7), never above it:
    the decimal digits as written decide, not the binary float (100 × 0.29 is 28.999999999999996)."""
    return math.floor(Decimal(repr(float(max_share))) * 100) / 100


def stateless_lost_fraction(rate_per_hour: float, replacement_s: float = DEFAULT_REPLACEMENT_S) -> float:
    """Share of paid time lost when each interruption costs one replacement (no checkpointed work)."""
    if rate_per_hour < 0 or replacement_s < 0:
        raise ValueError("interruption rate and replacement time must be >= 0")
    return min(1.0, rate_per_hour * replacement_s / 3600.0)


def effective_spot_hourly(spot_hourly: float, lost_fraction: float) -> float:
    """Cost of one useful spot hour: ``spot / (1 - f)`` (infinite when everything is lost)."""
    if spot_hourly < 0 or not 0 <= lost_fraction <= 1:
        raise ValueError(f"bad spot price {spot_hourly} or lost fraction {lost_fraction}")
    return math.inf if lost_fraction >= 1 else spot_hourly / (1 - lost_fraction)


def decide_spot(
    *,
    max_share: float | None,
    ondemand_hourly: float,
    spot_hourly: float | None,
    interruption_rate: float | None,
    lost_fraction: float | None,
    allocation_strategy: str = PRICE_CAPACITY_OPTIMIZED,
    what: str = "",
) -> SpotDecision:
    """Share above the base on spot: ``max_share`` where effective spot beats on-demand, else 0."""
    label = f" for {what}" if what else ""
    if max_share is None or max_share <= 0:
        return SpotDecision(0.0, None, interruption_rate, lost_fraction, allocation_strategy,
                            "the policy allows no spot: all capacity above the base on-demand")
    if not 0 <= max_share <= 1:
        raise ValueError(f"maxShare must be in [0, 1], got {max_share}")
    if spot_hourly is None:
        return SpotDecision(0.0, None, interruption_rate, lost_fraction, allocation_strategy,
                            f"no sourced spot price{label}: on-demand only (not assumed)")
    if interruption_rate is None or lost_fraction is None:
        return SpotDecision(0.0, None, None, None, allocation_strategy,
                            f"no interruption rate{label} (no Spot Advisor band): on-demand only")
    eff = effective_spot_hourly(spot_hourly, lost_fraction)
    if math.isinf(eff):
        return SpotDecision(0.0, eff, interruption_rate, lost_fraction, allocation_strategy,
                            f"every paid spot hour would be lost to interruptions ({interruption_rate:.2g}/h){label}: "
                            f"on-demand only")
    if eff >= ondemand_hourly:
        return SpotDecision(0.0, eff, interruption_rate, lost_fraction, allocation_strategy,
                            f"effective spot {eff:.4g}/h (spot {spot_hourly:.4g}, {lost_fraction:.1%} lost to "
                            f"interruptions) does not beat on-demand {ondemand_hourly:.4g}/h{label}")
    share = whole_percent_share(max_share)
    if share <= 0:
        return SpotDecision(0.0, eff, interruption_rate, lost_fraction, allocation_strategy,
                            f"maxShare {max_share:.12g} is under one percent, the smallest spot share an Auto "
                            f"Scaling group takes: all capacity above the base on-demand")
    cap = "the policy's maxShare" if share == max_share else         f"the policy's maxShare {max_share:.12g} rounded down to a whole percent, as the Auto Scaling group takes it"
    return SpotDecision(share, eff, interruption_rate, lost_fraction, allocation_strategy,
                        f"{share:.0%} of capacity above the base on spot ({cap}): effective "
                        f"{eff:.4g}/h incl. {lost_fraction:.1%} lost to interruptions "
                        f"({interruption_rate:.2g}/h) vs on-demand {ondemand_hourly:.4g}/h{label}"
                        + (f"; spot is billed for the hours paid, {1 / (1 - lost_fraction):.3f} h per useful hour"
                           if lost_fraction >= 0.0005 else ""))
