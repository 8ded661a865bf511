"""Backtest of commitment + spot strategies on real GPU demand traces.

Billing (the same rule for every strategy):

* the last ``billed_fraction`` of a trace is billed hour by hour; earlier hours are history only;
* strategies re-decide every 168 h from the start of the billed window, from data before that
  hour only (the offline optimum is the exception: it sees the whole window, by design);
* commitments only grow; **every committed unit is charged the reserved hourly rate from its
  purchase hour to the end of the billed window**, used or not (no strategy holds any at the start);
* in each hour, demand above the committed units runs on spot up to the strategy's spot share of
  that capacity and on on-demand for the rest; gold fleets keep at least one on-demand node
  (committed units count as on-demand); a spot hour costs the hour's real spot price divided by
  ``1 - f`` (``f``: the share of paid spot time lost to interruptions);
* an **SLA-cap violation** is an hour where spot exceeds the fleet's ``maxShare`` of the capacity
  above the committed units, or a gold fleet runs with no on-demand node.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray
from scipy import sparse
from scipy.optimize import Bounds, LinearConstraint, milp

from seedance.planner.forecast import commitment_forecast
from seedance.planner.planner import JOB_WORKLOADS
from seedance.planner.reserved import Uncovered, commit_now, optimal_reserved
from seedance.planner.spot import decide_spot
from seedance.policy.model import Workload

WEEK = 168
DAY = 24
CE_LOOKBACK = 720  # 30 days
EPS = 1e-7
WEEKLY_OPT = "weekly-step optimum (MILP)"
SEEN_OPT = "weekly-step optimum, never above the seen peak"
HINDSIGHT_LOOKBACK = "plain re-plan, lookback chosen in hindsight"
#: Lookbacks (days; 0 = the whole history) the hindsight reference chooses among; 30 days is the plain re-plan's.
LOOKBACK_DAYS = (3, 7, 14, 30, 56, 0)


@dataclass(frozen=True)
class Case:
    name: str
    demand: NDArray[np.float64]  # units (nodes) per hour, whole trace
    instance_type: str
    gold: bool
    max_share: float
    ondemand: float  # per unit-hour
    reserved: float  # per unit-hour (1y standard no-upfront, effective)
    spot: NDArray[np.float64]  # per unit-hour, hourly, whole trace
    lost_fraction: float  # share of paid spot time lost to interruptions
    interruption_rate: float  # per instance-hour
    workload: Workload = Workload.INFERENCE  # as the planner reads a fleet's (jobs or a service)
    description: str = ""
    sources: dict[str, str] = field(default_factory=dict)

    @property
    def spot_effective(self) -> NDArray[np.float64]:
        return self.spot / (1.0 - self.lost_fraction)


@dataclass
class Result:
    strategy: str
    commitment: NDArray[np.float64]  # units committed in each billed hour
    ondemand: NDArray[np.float64]
    spot: NDArray[np.float64]
    cost: NDArray[np.float64]  # per billed hour
    violations: int
    note: str = ""

    @property
    def total(self) -> float:
        return float(self.cost.sum())


def bill(case: Case, t0: int, commitment: NDArray[np.float64], share: NDArray[np.float64], *,
         gold_floor: bool = True, strategy: str = "") -> Result:
    """Bill hours ``t0..`` with ``commitment`` units and spot ``share`` above them (per billed hour)."""
    d = case.demand[t0:]
    k = np.asarray(commitment, dtype=float)
    if np.any(np.diff(k) < -EPS):
        raise AssertionError(f"{strategy}: commitments must only grow")
    above = np.maximum(d - k, 0.0)
    floor = np.maximum(np.minimum(1.0, d) - k, 0.0) if (case.gold and gold_floor) else np.zeros_like(d)
    spot = share * np.maximum(above - floor, 0.0)  # as a group deploys it: base max(k, floor), share above it
    od = above - spot
    cost = case.reserved * k + case.ondemand * od + case.spot_effective[t0:] * spot
    over_cap = spot > case.max_share * above + EPS
    no_od = (k + od < np.minimum(1.0, d) - EPS) if case.gold else np.zeros_like(d, dtype=bool)
    return Result(strategy, k, od, spot, cost, int(np.count_nonzero(over_cap | no_od)))


def _weeks(t0: int, end: int, first: int = WEEK) -> list[tuple[int, int]]:
    """The decision periods: from ``t0`` to ``t0 + first``, then every week (``first`` < a week moves
    the weekly decisions to another weekday and hour)."""
    starts = [t0, *range(t0 + first, end, WEEK)] if 0 < first < WEEK else list(range(t0, end, WEEK))
    return [(s, min(e, end)) for s, e in zip(starts, [*starts[1:], end], strict=True)]


def all_ondemand(case: Case, t0: int) -> Result:
    n = case.demand.size - t0
    return bill(case, t0, np.zeros(n), np.zeros(n), strategy="all on-demand")


def cost_explorer(case: Case, t0: int) -> Result:
    """Weekly: the count that maximised savings over the last 30 days at on-demand prices; no spot."""
    n = case.demand.size - t0
    k = np.zeros(n)
    held = 0
    for s, e in _weeks(t0, case.demand.size):
        look = case.demand[max(0, s - CE_LOOKBACK):s]
        if look.size:
            held = optimal_reserved(look, case.reserved, case.ondemand, held=held).units
        k[s - t0:e - t0] = held
    return bill(case, t0, k, np.zeros(n), strategy="Cost-Explorer 30-day")


def naive_max_spot(case: Case, t0: int) -> Result:
    """Everything on spot, no commitment, no on-demand floor (ignores the SLA caps)."""
    n = case.demand.size - t0
    return bill(case, t0, np.zeros(n), np.ones(n), gold_floor=False, strategy="naive max-spot")


def plain_replan(case: Case, t0: int, *, lookback: int = CE_LOOKBACK, strategy: str = "plain 30-day re-plan") -> Result:
    """For reference: weekly exact optimum over the last ``lookback`` hours (30 days) at the blended
    rate (no forecast)."""
    T = case.demand.size
    n = T - t0
    k = np.zeros(n)
    share = np.zeros(n)
    held = 0
    for s, e in _weeks(t0, T):
        recent = float(case.spot[max(0, s - WEEK):s].mean())
        sd = decide_spot(max_share=case.max_share, ondemand_hourly=case.ondemand, spot_hourly=recent,
                         interruption_rate=case.interruption_rate, lost_fraction=case.lost_fraction)
        look = case.demand[max(0, s - lookback):s]
        if look.size:
            held = optimal_reserved(look, case.reserved, sd.blended_hourly(case.ondemand), held=held).units
        k[s - t0:e - t0] = held
        share[s - t0:e - t0] = sd.share
    return bill(case, t0, k, share, strategy=strategy)


def best_lookback_replan(case: Case, t0: int) -> Result:
    """The cheapest plain re-plan over the lookbacks of :data:`LOOKBACK_DAYS` (or the whole history),
    the lookback chosen *after* billing the window: no strategy could pick it beforehand, so this is
    an optimistic reference for rules without look-ahead, not one of them.  Its note names the
    lookback."""
    runs = [(days, plain_replan(case, t0, lookback=(days * DAY if days else case.demand.size),
                                strategy=HINDSIGHT_LOOKBACK)) for days in LOOKBACK_DAYS]
    days, best = min(runs, key=lambda r: r[1].total)
    best.note = f"last {days} days" if days else "whole history"
    return best


def seedance(case: Case, t0: int, *, first: int = WEEK) -> Result:
    """The planner's decisions, re-made weekly from data strictly before each decision hour:
    spot share from the last week's spot price (effective, with interruption losses) vs on-demand;
    commitment from ``commit_now`` on the commitment forecast (``min(forecast, last day repeated)``,
    and the last 4 weeks repeated for fleets of jobs)
    of the rest of the billed window (``horizon_hours``: a commitment is charged to the window's end),
    valuing uncovered demand by the billing rule (:class:`Uncovered`, gold on-demand floor included).
    ``first``: hours to the second decision (the weekly decisions on another day, see :func:`_weeks`)."""
    T = case.demand.size
    n = T - t0
    k = np.zeros(n)
    share = np.zeros(n)
    held = 0
    for s, e in _weeks(t0, T, first):
        hist = case.demand[:s]
        recent = float(case.spot[max(0, s - WEEK):s].mean())
        sd = decide_spot(max_share=case.max_share, ondemand_hourly=case.ondemand, spot_hourly=recent,
                         interruption_rate=case.interruption_rate, lost_fraction=case.lost_fraction)
        if hist.size >= DAY:
            f = commitment_forecast(hist, T - s, jobs=case.workload in JOB_WORKLOADS)
            billing = Uncovered(case.ondemand, sd.effective_hourly if sd.share > 0 else None, sd.share,
                                1.0 if case.gold else 0.0)
            held = commit_now(f, case.reserved, billing, held=held, step_hours=WEEK).units
        k[s - t0:e - t0] = held
        share[s - t0:e - t0] = sd.share
    return bill(case, t0, k, share, strategy="Seedance")


def offline_optimum(case: Case, t0: int, *, relax: bool = False, time_limit: float = 120.0, step: int = DAY,
                    seen_cap: bool = False, strategy: str = "offline optimum (MILP)") -> tuple[Result | None, float]:
    """Perfect foresight on the billed window: commitment steps every ``step`` hours from ``t0``
    (integer, non-decreasing), spot <= maxShare of the capacity above them, gold >= 1 on-demand
    node and, as a gold group deploys it, spot only above its on-demand base max(k, 1); HiGHS MILP
    (or its LP relaxation).  ``step=WEEK`` gives the best any strategy deciding at
    the weekly decision points could do with a perfect forecast.  Returns the billed result (None
    for the LP) and the solver's objective.  With ``seen_cap`` the units held after each step may not
    exceed the peak demand observed before it, rounded to the nearest unit: the best any strategy that
    never reserves capacity it has not yet seen used could do (Seedance and Cost-Explorer are such
    strategies), i.e. a lower bound for them."""
    d = case.demand[t0:]
    H = d.size
    D = (H + step - 1) // step
    day = np.arange(H) // step
    hours_in_day = np.bincount(day, minlength=D).astype(float)
    peff = case.spot_effective[t0:]
    # a gold fleet's groups keep an on-demand base of max(k, 1) and run spot only above it, so while no
    # unit is committed the first node's demand takes no spot: y_day = [k_day >= 1] (binary)
    nvar = D + 2 * H + (D if case.gold else 0)
    ko, oo, so, yo = 0, D, D + H, D + 2 * H
    c = np.concatenate([case.reserved * hours_in_day, np.full(H, case.ondemand), peff,
                        np.zeros(D if case.gold else 0)])
    rows = np.arange(H)
    blocks = []
    lbs, ubs = [], []
    # cover: k_day + o + s >= d
    a = sparse.coo_matrix((np.ones(3 * H), (np.tile(rows, 3), np.concatenate([ko + day, oo + rows, so + rows]))),
                          shape=(H, nvar))
    blocks.append(a)
    lbs.append(d)
    ubs.append(np.full(H, np.inf))
    # spot cap: -m o + (1 - m) s <= 0; gold, as deployed (spot only above the base max(k, 1)):
    # s <= m (o + s - f (1 - y)) with f = min(1, d), i.e. -m o + (1 - m) s - m f y <= -m f
    m = case.max_share
    f = np.minimum(1.0, d)
    if case.gold:
        a = sparse.coo_matrix((np.concatenate([np.full(H, -m), np.full(H, 1 - m), -m * f]),
                               (np.tile(rows, 3), np.concatenate([oo + rows, so + rows, yo + day]))), shape=(H, nvar))
        ubs.append(-m * f)
    else:
        a = sparse.coo_matrix((np.concatenate([np.full(H, -m), np.full(H, 1 - m)]),
                               (np.tile(rows, 2), np.concatenate([oo + rows, so + rows]))), shape=(H, nvar))
        ubs.append(np.zeros(H))
    blocks.append(a)
    lbs.append(np.full(H, -np.inf))
    if case.gold:
        # y <= k (y = 1 only with a unit committed); k <= big * y is not needed: y = 0 only tightens the cap
        r = np.arange(D)
        a = sparse.coo_matrix((np.concatenate([np.ones(D), -np.ones(D)]),
                               (np.tile(r, 2), np.concatenate([yo + r, ko + r]))), shape=(D, nvar))
        blocks.append(a)
        lbs.append(np.full(D, -np.inf))
        ubs.append(np.zeros(D))
    if case.gold:
        a = sparse.coo_matrix((np.ones(2 * H), (np.tile(rows, 2), np.concatenate([ko + day, oo + rows]))),
                              shape=(H, nvar))
        blocks.append(a)
        lbs.append(np.minimum(1.0, d))
        ubs.append(np.full(H, np.inf))
    if D > 1:
        r = np.arange(D - 1)
        a = sparse.coo_matrix((np.concatenate([np.ones(D - 1), -np.ones(D - 1)]),
                               (np.tile(r, 2), np.concatenate([ko + r, ko + r + 1]))), shape=(D - 1, nvar))
        blocks.append(a)
        lbs.append(np.full(D - 1, -np.inf))
        ubs.append(np.zeros(D - 1))
    A = sparse.vstack(blocks).tocsr()
    integrality = np.zeros(nvar)
    if not relax:
        integrality[:D] = 1
        integrality[yo:] = 1
    upper = np.full(nvar, np.inf)
    upper[yo:] = 1.0
    if seen_cap:
        upper[:D] = [np.floor(case.demand[: t0 + j * step].max(initial=0.0) + 0.5) for j in range(D)]
    res = milp(c, constraints=LinearConstraint(A, np.concatenate(lbs), np.concatenate(ubs)),
               integrality=integrality, bounds=Bounds(0, upper),
               options={"time_limit": time_limit, "mip_rel_gap": 1e-6, "disp": False})
    if res.x is None:
        raise RuntimeError(f"{case.name}: HiGHS found no solution ({res.message})")
    if relax:
        return None, float(res.fun)
    kd = np.round(res.x[:D])
    k = kd[day]
    share = np.where(peff < case.ondemand, m, 0.0)
    out = bill(case, t0, k, share, strategy=strategy)
    out.note = f"HiGHS status {res.status}: {res.message}; MIP gap {getattr(res, 'mip_gap', float('nan')):.2g}"
    return out, float(res.fun)


def run_case(case: Case, billed_fraction: float) -> dict[str, object]:
    T = case.demand.size
    t0 = int(round(T * (1 - billed_fraction)))
    results = [all_ondemand(case, t0), cost_explorer(case, t0), naive_max_spot(case, t0), plain_replan(case, t0),
               best_lookback_replan(case, t0), seedance(case, t0)]
    opt, opt_obj = offline_optimum(case, t0)
    _, lp = offline_optimum(case, t0, relax=True)
    assert opt is not None
    weekly, _ = offline_optimum(case, t0, step=WEEK, strategy=WEEKLY_OPT)
    seen, _ = offline_optimum(case, t0, step=WEEK, seen_cap=True, strategy=SEEN_OPT)
    assert weekly is not None and seen is not None
    results += [seen, weekly, opt]
    return {"t0": t0, "hours": T - t0, "results": results, "milp_objective": opt_obj, "lp_bound": lp}
