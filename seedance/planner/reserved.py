"""Reserved commitment: how many units to reserve on a demand series.

Reserving ``k`` units over a series of ``H`` hourly demands ``d_t`` (in units) costs

    cost(k) = k * r * H + b * sum_t max(d_t - k, 0)

with ``r`` the reserved hourly price of one unit and ``b`` the blended hourly rate of the demand
the reservation does not cover (spot and on-demand, in the mix the SLA allows).  ``cost`` is
convex in ``k``: adding unit ``k + 1`` saves ``b * sum_t clip(d_t - k, 0, 1)`` (the hours that
unit's layer of demand is used) and costs ``r * H``.  So the optimum is the smallest ``k`` whose
next layer is used at most a share ``r / b`` of the hours - for integer demand, the
``1 - r / b`` quantile of the series.  :func:`optimal_reserved` evaluates ``cost`` for every
integer ``k`` at once from the sorted series (prefix sums): the exact minimiser of this one-shot
cost (ties go to the smaller ``k``).  The planner does not use it.

Re-planning (:func:`commit_now`, what the planner uses): commitments cannot be cancelled but can
be added at every later decision point.  Each layer ``j`` of demand is a separate decision
(covering it costs ``r`` per hour from purchase to the end of the horizon), so on a forecast ``f``
with decision points every ``step`` hours, layer ``j`` is bought *now* only if no later point is
better: ``b * (usage of layer j in [0, t)) > r * t`` for every later decision time ``t`` up to
the horizon.  This is a receding-horizon rule, not the minimiser of ``cost`` on the forecast: a
layer that pays for itself over the whole horizon but not by an early decision point is left for
a later re-plan, so on the forecast alone it may reserve fewer units than :func:`optimal_reserved`
(it expects to buy them later, when the demand has been seen).  With ``step >= horizon`` it is
exactly :func:`optimal_reserved`; with a perfect forecast and hourly steps its purchase now is
part of the offline optimum.  Units already held are never reduced.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray


@dataclass(frozen=True)
class ReservedDecision:
    units: int  # total units reserved (held + new)
    held: int
    new_units: int
    cost: float  # cost(units) over the series
    ratio: float  # r / b: a layer is worth reserving when used more than this share of hours
    rationale: str


@dataclass(frozen=True)
class Uncovered:
    """How the demand above the committed units is billed (the rule the decision optimises)."""

    ondemand_hourly: float
    spot_hourly: float | None = None  # effective (interruption losses included); None = no spot
    spot_share: float = 0.0  # of the capacity above the commitment
    ondemand_floor: float = 0.0  # units that must run on-demand or reserved (gold fleets: 1)

    def __post_init__(self) -> None:
        if not self.ondemand_hourly > 0:
            raise ValueError(f"on-demand hourly price must be positive, got {self.ondemand_hourly}")
        if not 0 <= self.spot_share <= 1:
            raise ValueError(f"spot share must be in [0, 1], got {self.spot_share}")
        if self.spot_share > 0 and (self.spot_hourly is None or not self.spot_hourly >= 0):
            raise ValueError(f"a spot share needs a spot price >= 0, got {self.spot_hourly}")
        if self.ondemand_floor < 0:
            raise ValueError(f"on-demand floor must be >= 0, got {self.ondemand_floor}")

    @property
    def blended_hourly(self) -> float:
        if self.spot_share == 0 or self.spot_hourly is None:
            return self.ondemand_hourly
        return self.spot_share * self.spot_hourly + (1 - self.spot_share) * self.ondemand_hourly

    def cost(self, demand: ArrayLike, k: float) -> NDArray[np.float64]:
        """Hourly cost of the demand above ``k`` committed units, as the group deploys it: its
        on-demand base is ``max(k, ondemand_floor)`` and ``spot_share`` of the capacity above the
        base runs on spot (the floor's units above ``k`` run on-demand, and no spot share applies
        to them)."""
        d = np.asarray(demand, dtype=float)
        x = np.maximum(d - k, 0.0)
        if self.spot_share == 0 or self.spot_hourly is None:
            return self.ondemand_hourly * x
        g = np.maximum(np.minimum(self.ondemand_floor, d) - k, 0.0)
        spot = self.spot_share * np.maximum(x - g, 0.0)
        return self.ondemand_hourly * (x - spot) + self.spot_hourly * spot


def reserved_cost(k: float, demand: ArrayLike, reserved_hourly: float, blended_hourly: float) -> float:
    """``k * r * H + b * sum max(d - k, 0)`` over the series (the brute-force definition)."""
    d = np.asarray(demand, dtype=float)
    return float(k * reserved_hourly * d.size + blended_hourly * np.maximum(d - k, 0.0).sum())


def excess(demand: ArrayLike, thresholds: ArrayLike) -> NDArray[np.float64]:
    """``sum_t max(d_t - x, 0)`` for every threshold ``x`` (vectorised, exact up to float sums)."""
    d = np.sort(np.asarray(demand, dtype=float))
    x = np.asarray(thresholds, dtype=float)
    suffix = np.concatenate([np.cumsum(d[::-1])[::-1], [0.0]])  # suffix[i] = sum(d[i:])
    idx = np.searchsorted(d, x, side="right")  # number of values <= x
    return suffix[idx] - x * (d.size - idx)


def optimal_reserved(
    demand: ArrayLike,
    reserved_hourly: float,
    blended_hourly: float,
    *,
    held: int = 0,
    max_units: int | None = None,
) -> ReservedDecision:
    """The exact cost-minimising number of units over ``demand`` (never fewer than ``held``)."""
    _check_prices(reserved_hourly, blended_hourly)
    if held < 0:
        raise ValueError(f"held units must be >= 0, got {held}")
    d = _series(demand)
    ratio = reserved_hourly / blended_hourly
    if d.size == 0:
        return ReservedDecision(held, held, 0, 0.0, ratio, "no demand history: keep the units already held")
    top = max(held, int(math.ceil(float(d.max()))))
    if max_units is not None:
        top = max(held, min(top, max_units))
    ks = np.arange(held, top + 1, dtype=float)
    costs = ks * reserved_hourly * d.size + blended_hourly * excess(d, ks)
    i = int(np.argmin(costs))  # first minimum: ties go to the smaller k
    k = held + i
    free_k = int(np.argmin(np.arange(0, top + 1) * reserved_hourly * d.size
                           + blended_hourly * excess(d, np.arange(0, top + 1))))
    why = (
        f"{k} unit(s) minimise the cost over {d.size} h: "
        + (f"reserve a layer only if it is busy more than {ratio:.0%} of the hours (reserved {reserved_hourly:.4g} / "
           f"blended {blended_hourly:.4g})" if ratio < 1 else _busy_rule(ratio, reserved_hourly, blended_hourly))
    )
    if free_k < held:
        why += f"; {held} already held (the unconstrained optimum is {free_k})"
    if max_units is not None and k == max_units and k > held:
        why += f"; capped at the fleet's maximum {max_units}"
    return ReservedDecision(k, held, k - held, float(costs[i]), ratio, why)


def _busy_rule(ratio: float, reserved_hourly: float, blended_hourly: float) -> str:
    """When a layer pays: the share of hours it must be busy, or that none pays at the blend."""
    if ratio < 1:
        return f"reserve when busy > {ratio:.0%} of the hours"
    return (f"no layer billed at the blend pays (reserved {reserved_hourly:.4g} >= blended {blended_hourly:.4g} "
            f"per hour), only one billed above it")


def commit_now(
    forecast: ArrayLike,
    reserved_hourly: float,
    blended_hourly: float | Uncovered,
    *,
    held: int = 0,
    step_hours: int = 168,
    max_units: int | None = None,
    unit: str = "unit(s)",
) -> ReservedDecision:
    """Units to hold after this decision when commitments can be added every ``step_hours``: the
    receding-horizon rule of the module docstring (not the one-shot minimiser).

    ``forecast`` covers the hours from now to the end of the charging horizon; every unit bought
    now is charged ``reserved_hourly`` for all of them.  ``blended_hourly`` is the rate of uncovered
    demand, or an :class:`Uncovered` billing rule (layers below its on-demand floor are then valued
    at the cost actually billed, see the module docstring).  ``unit`` names what the series counts,
    in the rationale (the planner passes instances of a type that holds several units).
    """
    billing = blended_hourly if isinstance(blended_hourly, Uncovered) else None
    if billing is not None:
        blended_hourly = billing.blended_hourly
    _check_prices(reserved_hourly, blended_hourly)
    if step_hours < 1:
        raise ValueError(f"step_hours must be >= 1, got {step_hours}")
    if held < 0:
        raise ValueError(f"held units must be >= 0, got {held}")
    f = _series(forecast)
    ratio = reserved_hourly / blended_hourly
    if f.size == 0:
        return ReservedDecision(held, held, 0, 0.0, ratio, "no forecast horizon: keep the units already held")
    k = _layers_bought(f, reserved_hourly, blended_hourly, billing, held, step_hours, max_units)
    cost = (k * reserved_hourly * f.size + float(billing.cost(f, k).sum())) if billing is not None \
        else reserved_cost(k, f, reserved_hourly, blended_hourly)
    rule = (f"each reserved layer pays for itself on the {f.size} h forecast by every later decision point "
            f"(every {step_hours} h); " + _busy_rule(ratio, reserved_hourly, blended_hourly))
    free_k = _layers_bought(f, reserved_hourly, blended_hourly, billing, 0, step_hours, max_units) if held else 0
    if held > free_k:  # nothing is bought: say what the rule would have reserved with nothing held
        why = f"{k} {unit} already held, never reduced; with none held the rule would reserve {free_k} ({rule})"
    else:
        why = f"{k} {unit}: {rule}"
    if billing is not None and billing.ondemand_floor > 0 and billing.spot_share > 0:
        why += (f"; the first {billing.ondemand_floor:g} unit(s) must run on-demand anyway, so they are "
                f"valued at the billed rate, not the blend")
    if held and held <= free_k:
        why += f"; {held} of them already held, never reduced"
    return ReservedDecision(k, held, k - held, cost, ratio, why)


def _layers_bought(
    f: NDArray[np.float64],
    reserved_hourly: float,
    blended_hourly: float,
    billing: Uncovered | None,
    held: int,
    step_hours: int,
    max_units: int | None,
) -> int:
    """Units held after :func:`commit_now`'s rule (``held`` plus the layers above it bought now)."""
    top = int(math.ceil(float(f.max())))
    if max_units is not None:
        top = min(top, max_units)
    if top <= held:
        return held
    layers = np.arange(held, top + 1, dtype=float)  # thresholds j-1 for layers held+1 .. top, plus top
    bounds = list(range(0, f.size, step_hours)) + [f.size]
    cum = np.zeros(top - held)
    ok = np.ones(top - held, dtype=bool)
    # layers below the on-demand floor save what the billing rule charges (not b x usage)
    exact = 0
    if billing is not None and billing.ondemand_floor > 0 and billing.blended_hourly < billing.ondemand_hourly:
        exact = min(top - held, max(0, math.ceil(billing.ondemand_floor) - held))
    for a, b in zip(bounds[:-1], bounds[1:], strict=True):
        e = excess(f[a:b], layers)
        saved = blended_hourly * (e[:-1] - e[1:])  # usage of each layer in this block, at b
        for i in range(exact):
            assert billing is not None
            j = held + i
            saved[i] = float((billing.cost(f[a:b], j) - billing.cost(f[a:b], j + 1)).sum())
        cum += saved
        ok &= cum > reserved_hourly * b + 1e-9 * reserved_hourly * b
    bad = np.flatnonzero(~ok)
    return held + (int(bad[0]) if bad.size else top - held)


def _series(values: ArrayLike) -> NDArray[np.float64]:
    d = np.asarray(values, dtype=float).ravel()
    if d.size and (not np.all(np.isfinite(d)) or float(d.min()) < 0):
        raise ValueError("demand must be finite and non-negative")
    return d


def _check_prices(reserved_hourly: float, blended_hourly: float) -> None:
    if not reserved_hourly > 0:
        raise ValueError(f"reserved hourly price must be positive, got {reserved_hourly}")
    if not blended_hourly > 0:
        raise ValueError(f"blended hourly rate must be positive, got {blended_hourly}")
