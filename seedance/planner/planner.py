"""Plan a policy: for every fleet, instance types, reserved units, spot share, checkpoint interval,
and the expected monthly compute cost by component (via the estimator) against all-on-demand.

:func:`plan_fleet` is pure: everything it needs (catalog facts, prices, demand history already cut
at the decision point, commitments held) arrives in a :class:`FleetInputs`.  :func:`plan_policy`
gathers those inputs - the catalog lookups and the one file read (the demand history) - and
assembles the :class:`~seedance.planner.plan.Plan`.

Units: a fleet's unit is one node as the policy states it; ``reserved_units``, ``new_purchases``
and ``on_demand_base`` are in units, and so is every count in the rationale.  The first-ranked type
carries the reserved and on-demand base; when it holds several units (weight ``w``), reservations
are bought in whole instances: units already held count as ``held // w`` whole instances (the
rest cover no whole instance and are said so), the decision is made on demand / ``w``, and every
purchase is a whole number of instances, reported as instances x ``w`` units.

The decision point is ``as_of`` at 00:00 UTC - by default today (UTC) from an injectable clock -
and the plan always records it.  A history that ends well before it is used as if it were current
(its forecast continues from its last hour); the rationale states the gap and a warning is logged
above :data:`STALE_HISTORY_HOURS`.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from seedance.clock import utc_now, utc_today
from seedance.planner import checkpoint as ckpt
from seedance.planner.demand import HOUR, DemandHistory, read_demand_csv
from seedance.planner.forecast import commitment_forecast, forecast
from seedance.planner.instances import InstanceRanking, OfferView, RankedType, Requirement, rank_instances
from seedance.planner.plan import FleetPlan, InstanceChoice, Plan, on_demand_percentage
from seedance.planner.reserved import ReservedDecision, Uncovered, commit_now
from seedance.planner.spot import (
    DEFAULT_REPLACEMENT_S,
    PRICE_CAPACITY_OPTIMIZED,
    SpotDecision,
    band_hourly_rate,
    band_label,
    decide_spot,
    effective_spot_hourly,
    stateless_lost_fraction,
    tolerance_text,
    whole_percent_share,
    within_tolerance,
)
from seedance.policy.loader import LoadedPolicy
from seedance.policy.model import JOB_WORKLOADS, Commitment, Fleet, ReservedMode, SlaTier, Term, Workload
from seedance.pricing.catalog import Catalog, InstanceOffer

if TYPE_CHECKING:
    from seedance.estimate.fleet import FleetUsage

log = logging.getLogger(__name__)

TERM_HOURS = {Term.ONE_YEAR: 8760, Term.THREE_YEARS: 3 * 8760}
REPLAN_STEP_HOURS = 168  # the planner is meant to run weekly
MIN_HISTORY_HOURS = 24  # less than a day of history is treated as none
CHECKPOINTED = (Workload.TRAINING, Workload.FINETUNE)
MONTH_HOURS = 730
#: the month a plan prices, in whole days from its decision date (730 h is 30.4 days)
PRICED_DAYS = 30
#: a history ending more than this many hours (one weekly re-plan step) before the decision point is stale
STALE_HISTORY_HOURS = REPLAN_STEP_HOURS


class PlanningError(Exception):
    """A policy that cannot be planned (the message names the fleet and what is missing)."""


@dataclass(frozen=True)
class FleetInputs:
    fleet: Fleet
    offers: list[OfferView]
    reserved_hourly: dict[str, float]  # instance type -> reserved price for the fleet's term/payment
    history: NDArray[np.float64] | None = None  # hourly units, strictly before the decision point
    start_hour_of_week: int = 0  # of the history's first hour (UTC; Monday 00:00 = 0), as forecast.fit takes it
    held_units: int = 0  # reserved units still active at the decision point
    region: str = ""
    history_source: str = ""
    # hours a unit bought now is charged for (the contract, known at decision time); None = the
    # full reservation term (8,760 h for 1y).  The backtest passes the hours left in its billed window.
    horizon_hours: int | None = None
    history_gap_hours: int = 0  # hours from the history's end to the decision point (stated when > 0)
    # whether something sizes the group to demand (a Cluster Autoscaler: the stack names a cluster).
    # Without it the group runs its desired size and off-peak windows whatever the demand: that
    # schedule, known exactly, is what runs and what reservations are decided on (history unread)
    sized_to_demand: bool = True
    # the held units by term, as the policy's reserved.held gives them (empty: terms unknown, as for --held)
    held_terms: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True)
class FleetDecision:
    plan: FleetPlan
    primary: RankedType | None
    expected_nodes: float
    notes: list[str] = field(default_factory=list)
    spot_lost_fraction: float = 0.0  # share of paid spot hours lost to interruptions (billed, not useful)
    # what "all on-demand" runs, and its weight: the type of the group's cheapest to run on-demand
    # (:func:`ondemand_baseline`)
    ondemand_type: tuple[str, int] | None = None
    # next month's demand hour by hour in units (floored at capacity.min, before whole instances);
    # None without a history
    month_units: NDArray[np.float64] | None = None


HOURS_PER_WEEK = 168


def off_peak_floor(fleet: Fleet, lo: float, hour_of_week: int, hours: int) -> NDArray[np.float64] | None:
    """The group's minimum in units hour by hour for ``hours`` hours from ``hour_of_week`` (UTC,
    Monday 00:00 = 0): ``lo`` (capacity.min), raised to each off-peak window's size while it runs,
    as its scheduled action raises the group's minimum (``components/fleet.py``); None without
    windows. A window whose cron is not a weekly schedule is left out, as the estimate leaves it."""
    from seedance.policy.cron import CronError, Window, hourly_sizes, parse_window_cron

    windows = []
    for w in fleet.off_peak:
        try:
            windows.append(Window(parse_window_cron(w.cron), w.hours, max(lo, w.desired)))
        except CronError:
            continue
    if not windows:
        return None
    week = np.asarray(hourly_sizes(lo, windows), dtype=np.float64)  # hour 0 = Sunday 00:00 UTC
    start = (hour_of_week + 24) % HOURS_PER_WEEK
    return week[(start + np.arange(hours)) % HOURS_PER_WEEK]


def whole_units(units: NDArray[np.float64] | float, w: int) -> NDArray[np.float64] | float:
    """Units the whole instances of a type holding ``w`` units each hold (hour by hour, or one size):
    the group runs enough of them for the demand (ceil(units / w) instances), and bills each whole."""
    if w <= 1:
        return units
    return np.ceil(units / w - 1e-9) * w


def max_instances(cap_units: int, w: int, managed: bool) -> int:
    """The most instances of a type holding ``w`` units the fleet's group can run at its maximum of
    ``cap_units`` units (``components/fleet.py`` sizes it). A group nobody else sizes is weighted:
    AWS launches until the units are met and may exceed its maximum by less than one instance's
    weight, so ``ceil(cap_units / w)``. A group the Cluster Autoscaler manages (``managed``) lists
    its types without weights and counts instances, never more units than the maximum, so
    ``floor(cap_units / w)``."""
    if w < 1 or cap_units < 0:
        raise ValueError(f"expected a weight >= 1 and a maximum >= 0 units, got {w} and {cap_units}")
    return cap_units // w if managed else -(-cap_units // w)


def group_units(units: NDArray[np.float64] | float, w: int, cap_units: int,
                managed: bool) -> NDArray[np.float64] | float:
    """Units the group runs for ``units`` (hour by hour, or one size): whole instances of ``w`` units
    enough to hold them (:func:`whole_units`), never more than :func:`max_instances` of them."""
    top = float(max_instances(cap_units, w, managed) * w)
    whole = whole_units(units, w)
    return np.minimum(whole, top) if isinstance(whole, np.ndarray) else min(float(whole), top)


def fixed_reserved_units(fixed: int, held: int, w: int) -> int:
    """Units reserved under ``reserved.mode: fixed`` at ``fixed`` units with ``held`` already held, in
    whole instances of ``w`` units: ``fixed // w`` instances (rounded down, never more than the
    policy fixes), never fewer than those held; held units are never reduced."""
    if fixed < 0 or held < 0 or w < 1:
        raise ValueError(f"expected fixed >= 0, held >= 0 and a weight >= 1, got {fixed}, {held} and {w}")
    return held + max(0, fixed // w - held // w) * w


def on_demand_base_units(reserved_units: int, cap_units: int, gold: bool) -> int:
    """The group's on-demand base in units: the reserved units, as far as the fleet's maximum lets
    them run, and at least 1 for a gold fleet that can run a node."""
    base = min(reserved_units, cap_units)
    return 1 if gold and cap_units >= 1 and base < 1 else base


def unbounded_spot_loss(fleet: Fleet) -> bool:
    """A training or finetune fleet without a ``checkpoint`` block: an interruption loses all the
    work since its job started, a loss no known quantity bounds, so the planner puts none of it
    on spot (the rationale says to add a checkpoint block)."""
    return fleet.workload in CHECKPOINTED and fleet.checkpoint is None


def lost_fraction_fn(fleet: Fleet) -> Callable[[float], float]:
    """Share of paid spot time lost at a given interruption rate, for this fleet's workload
    (for a fleet :func:`unbounded_spot_loss` names, the replacement time alone: the planner plans
    no spot there)."""
    cp = fleet.checkpoint
    if cp is not None and fleet.workload in CHECKPOINTED:
        fixed = None if cp.interval == "auto" else float(cp.interval)

        def checkpointed(rate: float) -> float:
            return ckpt.decide_checkpoint(cp.write_seconds, cp.restart_seconds, rate, fixed).overhead

        return checkpointed
    replacement = cp.restart_seconds if cp is not None else DEFAULT_REPLACEMENT_S

    def stateless(rate: float) -> float:
        return stateless_lost_fraction(rate, replacement)

    return stateless


def requirement(fleet: Fleet) -> Requirement:
    if fleet.gpu is not None:
        sizes = None
        share = fleet.gpu_sharing
        if share is not None and share.mig is not None:  # a MIG layout is written for one GPU memory size
            from seedance.gpus import mig_memory_sizes

            sizes = mig_memory_sizes(fleet.gpu.model, share.mig.profile)
            if fleet.gpu.memory_gib is not None:
                sizes = tuple(m for m in sizes if m == round(fleet.gpu.memory_gib)) or sizes
        return Requirement(fleet.gpu.model, fleet.gpu.count, fleet.gpu.memory_gib, gpu_memory_sizes=sizes,
                           max_units=fleet.capacity.max)
    if fleet.cpu is not None:
        return Requirement(vcpu=fleet.cpu.vcpu, memory_gib=fleet.cpu.memory_gib, max_units=fleet.capacity.max)
    return Requirement(max_units=fleet.capacity.max)


def plan_fleet(inp: FleetInputs) -> FleetDecision:
    """Every decision for one fleet (pure)."""
    fleet = inp.fleet
    why: dict[str, str] = {}
    cap_units = fleet.capacity.max
    disabled = cap_units == 0
    tolerance = fleet.spot.interruption_tolerance.value if fleet.spot is not None else None
    # why no capacity may go to spot although the policy has a spot block, if so
    no_spot = None
    if fleet.spot is not None and fleet.spot.max_share > 0:
        if disabled:
            no_spot = "the fleet is disabled (capacity.max 0): no node runs, none on spot"
        elif unbounded_spot_loss(fleet):
            no_spot = (f"no spot for {fleet.workload.value} without a checkpoint block: an interruption loses all "
                       f"the work since the job started, which nothing in the policy bounds; add checkpoint "
                       f"(writeSeconds, restartSeconds) to plan spot with a checkpoint interval")
            log.warning("fleet %s: %s", fleet.name, no_spot)
    spot_cap = None if fleet.spot is None else 0.0 if no_spot else whole_percent_share(fleet.spot.max_share)
    lost = lost_fraction_fn(fleet)
    ranking: InstanceRanking = rank_instances(
        inp.offers, requirement(fleet), max_spot_share=spot_cap, lost_fraction=lost,
        allowed=fleet.instance_types.allowed, preferred=fleet.instance_types.preferred, region=inp.region,
        tolerance=tolerance,
    )
    why["instance_types"] = ranking.rationale
    choices = [
        InstanceChoice(c.offer.instance_type, c.weight, c.offer.ondemand_hourly, c.offer.spot_hourly, c.rationale)
        for c in ranking.ranked
    ]
    gold = fleet.sla == SlaTier.GOLD
    deployed = not inp.sized_to_demand  # the group runs its own schedule, not the demand
    n_hist = 0 if inp.history is None or deployed else int(inp.history.size)
    history = inp.history if inp.history is not None and n_hist >= MIN_HISTORY_HOURS and not deployed else None
    if not ranking.ranked:
        base = max(inp.held_units, 1 if gold else 0)
        why["reserved"] = "no qualifying instance type: nothing to reserve"
        fp = FleetPlan(fleet.name, [], inp.held_units, [], base, 0.0, PRICE_CAPACITY_OPTIMIZED, None, None,
                       fleet.capacity.min, fleet.capacity.max, fleet.capacity.desired, why)
        return FleetDecision(fp, None, float(fleet.capacity.desired))
    term_hours = TERM_HOURS[fleet.reserved.term] if inp.horizon_hours is None else inp.horizon_hours
    if term_hours < 1:
        raise PlanningError(f"fleet {fleet.name}: commitment horizon must be >= 1 hour, got {term_hours}")
    jobs = fleet.workload in JOB_WORKLOADS
    # the demand forecasts do not depend on the type: made once for every candidate below
    fc_all = None if history is None else forecast(history, term_hours, start_hour_of_week=inp.start_hour_of_week)
    commit_all = None if history is None else commitment_forecast(
        history, term_hours, start_hour_of_week=inp.start_hour_of_week, jobs=jobs)
    base_why = why
    ranked_choices = choices

    def decide(index: int, held_units: int) -> FleetDecision:
        """Every decision with the ranking's type ``index`` first: the type reservations, the
        on-demand base and the spot decision are made on."""
        primary = ranking.ranked[index]
        # the primary first: the group launches its on-demand capacity in the order of its types
        choices = [ranked_choices[index], *(c for i, c in enumerate(ranked_choices) if i != index)]
        why = dict(base_why)
        po = primary.offer
        w = primary.weight
        # the most instances of it the group can run: a weighted group overshoots capacity.max by less
        # than one instance, a group the Cluster Autoscaler manages counts instances within it
        top_inst = max_instances(cap_units, w, not deployed)

        # spot share and its effective cost, on the first-ranked type. The group's spot share applies
        # to every type it lists, and the allocation strategy may launch spot in any of them: the
        # other types listed on spot are those whose effective spot cost beats their on-demand price
        # (one without a spot price or band, with a band above the tolerance, or no cheaper on spot
        # is left out), and interruptions are priced at the most interrupted of these pools, so the
        # checkpoint interval and the losses hold whichever the group runs in
        band = po.interruption_band_max_pct
        spot_pools, too_interrupted = _spot_pools(primary, ranking.ranked, lost)
        off_spot = [c.offer.instance_type for c in ranking.ranked if c is not primary and c not in spot_pools]
        worst: tuple[float, str] | None = None
        if band is not None:
            worst = max([(band, po.instance_type)] + [(c.offer.interruption_band_max_pct, c.offer.instance_type)
                                                      for c in spot_pools if c.offer.interruption_band_max_pct is not None],
                        key=lambda b: b[0])
        rate = band_hourly_rate(worst[0]) if worst is not None else None
        strategy = fleet.spot.allocation_strategy.value if fleet.spot is not None else PRICE_CAPACITY_OPTIMIZED
        what = f"{po.instance_type} in {inp.region}" if inp.region else po.instance_type
        spot: SpotDecision
        if no_spot is not None:
            spot = SpotDecision(0.0, None, rate, None, strategy, no_spot)
        elif (spot_cap and po.spot_hourly is not None and band is not None and tolerance is not None
              and not within_tolerance(band, tolerance)):
            spot = SpotDecision(0.0, None, rate, None, strategy,
                                f"{what} is in the Spot Advisor band {band_label(band)}, above the fleet's "
                                f"interruptionTolerance {tolerance_text(tolerance)}: on-demand only")
        else:
            spot = decide_spot(
                max_share=fleet.spot.max_share if fleet.spot is not None else None, ondemand_hourly=po.ondemand_hourly,
                spot_hourly=po.spot_hourly, interruption_rate=rate, lost_fraction=None if rate is None else lost(rate),
                allocation_strategy=strategy, what=what,
            )
        why["spot"] = spot.rationale
        if spot.share > 0:
            if worst is not None and band is not None and worst[0] > band:
                why["spot"] += (f"; interruptions priced at the group's most interrupted spot pool, {worst[1]} "
                                f"(band {band_label(worst[0])}), which it may run in")
            if off_spot:
                choices = [ch for ch in choices if ch.instance_type not in off_spot]
                why["instance_types"] += (f"; left out of the group, which runs spot above its base: "
                                          f"{', '.join(off_spot)} (no spot price or interruption band, a band above "
                                          f"the tolerance, or spot no cheaper than on-demand; a group cannot keep "
                                          f"a type off spot)")
                if too_interrupted:
                    why["instance_types"] += (f"; of these, {', '.join(too_interrupted)} would be cheaper on spot alone, "
                                              f"but a group's interruptions are priced at its most interrupted pool, and "
                                              f"with them listed spot would no longer pay on them or on the group's others")
        if fleet.spot is not None:
            asked = ("the policy's spot.allocationStrategy" if "allocation_strategy" in fleet.spot.model_fields_set
                     else "default (pools with spare capacity at low price)")
            why["allocation_strategy"] = f"{strategy}: {asked}" + (
                "" if spot.share > 0 else "; no capacity is planned on spot, so it has no effect")
        else:
            why["allocation_strategy"] = f"{strategy}: no spot in this fleet"

        # checkpoint interval (spot training / finetune only)
        interval: float | None = None
        overhead: float | None = None
        cp = fleet.checkpoint
        if cp is not None and fleet.workload in CHECKPOINTED and spot.share > 0 and rate is not None:
            d = ckpt.decide_checkpoint(cp.write_seconds, cp.restart_seconds, rate,
                                       None if cp.interval == "auto" else float(cp.interval))
            interval, overhead = d.interval_s, d.overhead
            why["checkpoint"] = d.rationale
        elif cp is not None:
            interval = None if cp.interval == "auto" else float(cp.interval)
            why["checkpoint"] = ("no spot capacity planned: no interruption-driven interval"
                                 + (f"; the policy's fixed {interval:.0f} s kept" if interval else ""))

        # demand: history cut at the decision point, forecast over the commitment horizon (default: the term)
        lo = min(fleet.capacity.min, cap_units)
        notes: list[str] = []
        fc: NDArray[np.float64] | None = None
        commit_fc: NDArray[np.float64] | None = None
        if inp.history is None:
            no_history = "no demand history"
        elif n_hist == 0:
            no_history = "no demand history before the decision point"
        else:
            no_history = f"only {n_hist} h of demand history (under {MIN_HISTORY_HOURS} h: treated as none)"
        if deployed:
            from seedance.estimate.fleet import nodes_profile

            # the week the group runs (desired size, off-peak windows), the same every week: the
            # commitment horizon is that week repeated
            profile = np.asarray(nodes_profile(fleet, fleet.capacity.desired, w, managed=False), dtype=np.float64)
            expected = float(profile.mean())
            commit_fc = np.resize(profile, term_hours)
            why["demand"] = ("disabled (capacity.max 0): no node runs" if disabled else
                             f"the stack names no cluster, so nothing sizes the group to demand: it runs the policy's "
                             f"desired size ({fleet.capacity.desired} unit(s))" + (" with off-peak windows" if fleet.off_peak else "")
                             + f", {expected:.1f} units on average, every week"
                             + (f" (in whole {po.instance_type} instances of {w} units)" if w > 1 else "")
                             + (f"; the demand history ({inp.history_source}) is not what runs and is not read"
                                if inp.history_source else ""))
        elif history is not None:
            assert fc_all is not None and commit_all is not None
            fc = fc_all
            raw_commit = commit_all
            # off-peak windows raise the group's minimum while they run, which no autoscaler goes below
            floor = off_peak_floor(fleet, lo, (inp.start_hour_of_week + n_hist + inp.history_gap_hours) % HOURS_PER_WEEK,
                                   max(fc.size, raw_commit.size))
            if floor is not None:
                if float((floor[:fc.size] - fc).max(initial=0.0)) > 0:
                    notes.append("raised to the off-peak windows' sizes while they run, as their scheduled actions "
                                 "raise the group's minimum")
                fc = np.maximum(fc, floor[:fc.size])
                raw_commit = np.maximum(raw_commit, floor[:raw_commit.size])
            # the group never runs fewer than capacity.min units nor more than capacity.max
            commit_fc = np.clip(raw_commit, lo, cap_units)
            if float(fc.max(initial=0.0)) > cap_units:
                notes.append(f"forecast peaks at {fc.max():.1f} units, clipped to the fleet maximum {cap_units}")
            if jobs:
                notes.append(f"{fleet.workload.value} runs jobs, which end: commitments count only the share of the "
                             f"last 4 weeks each unit was in use")
            if lo > 0 and float(raw_commit.min(initial=lo)) < lo:
                notes.append(f"raised to the fleet minimum {lo} where the forecast is below it")
            fc = np.clip(fc, 0.0, cap_units)
            # the group runs at least capacity.min every hour: the floor applies hour by hour, not to the mean
            month = np.clip(fc[:MONTH_HOURS], lo, cap_units)
            demand_month = month
            if w > 1:  # the group runs whole instances of w units: their units are what is billed
                month = np.asarray(group_units(month, w, cap_units, managed=True), dtype=np.float64)
                notes.append(f"in whole {po.instance_type} instances of {w} units"
                             + (f", at most {top_inst} (the group the Cluster Autoscaler manages counts instances, "
                                f"never more units than capacity.max {cap_units})" if top_inst * w < cap_units else ""))
            expected = float(month.mean())
            profile = month
            gap = inp.history_gap_hours
            when = "up to the decision point" if gap <= 0 else (
                f"ending {_duration(gap)} before the decision point (its forecast continues from its last hour "
                f"as if that were now)")
            why["demand"] = (f"{history.size} h of history{' from ' + inp.history_source if inp.history_source else ''}"
                             f" {when}; next month ~{expected:.1f} units on average"
                             + (f" ({'; '.join(notes)})" if notes else ""))
        else:
            from seedance.estimate.fleet import average_nodes, nodes_profile

            expected, off_peak = average_nodes(fleet, fleet.capacity.desired, w, managed=True)
            profile = np.asarray(nodes_profile(fleet, fleet.capacity.desired, w, managed=True), dtype=np.float64)
            why["demand"] = ("disabled (capacity.max 0): no node runs" if disabled else
                             f"{no_history}: the policy's desired size" + (" with off-peak windows" if off_peak else "")
                             + f", {expected:.1f} units on average"
                             + (f" (in whole {po.instance_type} instances of {w} units"
                                + (f", at most {top_inst}: the group the Cluster Autoscaler manages counts instances, "
                                   f"never more units than capacity.max {cap_units}" if top_inst * w < cap_units else "")
                                + ")" if w > 1 else ""))

        # reserved units, bought in whole instances of the first-ranked type (w units each)
        held = held_units
        held_inst = held // w
        r_price = inp.reserved_hourly.get(po.instance_type)
        blended = spot.blended_hourly(po.ondemand_hourly)
        # the highest rate any uncovered unit is billed at: a gold fleet's first node runs on-demand
        top_rate = po.ondemand_hourly if gold else blended
        mode = fleet.reserved.mode
        term = fleet.reserved.term.value
        inst = f"{po.instance_type} instance(s) ({w} units each)"
        target: int | None = None  # whole instances to hold after this decision; None: keep what is held
        if mode == ReservedMode.NONE:
            why["reserved"] = "reserved.mode none" + (f"; {held} unit(s) already held are kept" if held else "")
        elif mode == ReservedMode.FIXED:
            fixed = fleet.reserved.units or 0
            target = fixed // w  # as fixed_reserved_units counts it (the plan-less estimate's rule)
            why["reserved"] = f"reserved.mode fixed at {fixed} unit(s)"
            if fixed % w:
                why["reserved"] += (f", {fixed / w:g} {inst}: reservations are bought per instance, so "
                                    f"{target} whole instance(s) = {target * w} units (rounded down, never more "
                                    f"than the policy fixes)")
            if held > target * w:
                why["reserved"] += f"; {held} already held, never fewer"
            elif held:
                why["reserved"] += _held_cover(held, held_inst >= target, inp.held_terms)
        elif r_price is None:
            why["reserved"] = (f"no sourced {term} {fleet.reserved.payment.value} reserved price for {po.instance_type}"
                               f"{' in ' + inp.region if inp.region else ''}: nothing new reserved")
        elif r_price >= top_rate:
            why["reserved"] = (f"reserving never pays here: {term} reserved {r_price:.4g}/h >= "
                               + ("on-demand (a gold fleet's first node) " if gold else "blended spot/on-demand ")
                               + f"{top_rate:.4g}/h" + (f"; {held} already held are kept" if held else ""))
        elif commit_fc is None:
            # above the blend every always-running unit pays; between it and on-demand only a gold fleet's first
            if lo == 0:
                want = 0
                why["reserved"] = f"{no_history}: capacity.min is 0, no unit always runs: nothing reserved"
            elif r_price < blended:
                want = lo
                why["reserved"] = f"{no_history}: reserve the fleet's minimum ({lo} unit(s), always running)"
            else:
                want = 1
                why["reserved"] = (f"{no_history}: reserve the gold fleet's first node (1 of the minimum {lo}), which "
                                   f"must run on-demand: reserved {r_price:.4g}/h beats on-demand "
                                   f"{po.ondemand_hourly:.4g}/h" + (
                                       f" but not the blended {blended:.4g}/h the other always-running units are "
                                       f"billed at" if lo > 1 else ""))
            # the group runs whole instances: the always-running units take ceil(want / w) of them, all
            # always running and billed, as far as the group can run them
            target = min(-(-want // w), top_inst)
            if want % w or target * w < want:
                why["reserved"] += (f"; in whole {inst}: {target} instance(s) = {target * w} units, "
                                    + ("the instances the group always runs for them"
                                       if target * w >= want else
                                       f"the most the group can run (a group the Cluster Autoscaler manages "
                                       f"counts instances, never more units than capacity.max {cap_units})"))
            if held > target * w:
                why["reserved"] += f"; {held} already held"
            elif held:
                why["reserved"] += _held_cover(held, held_inst >= target, inp.held_terms)
        else:
            billing = Uncovered(po.ondemand_hourly, spot.effective_hourly if spot.share > 0 else None, spot.share,
                                1.0 if gold else 0.0)
            # in instances: an hour that needs part of an instance runs a whole one
            demand_inst = np.asarray(group_units(commit_fc, w, cap_units, managed=not deployed), dtype=np.float64) / w
            dec: ReservedDecision = commit_now(demand_inst, r_price, billing, held=held_inst,
                                               step_hours=REPLAN_STEP_HOURS, max_units=top_inst,
                                               unit="unit(s)" if w == 1 else inst)
            target = dec.units
            basis = "on the group's own weekly schedule" if deployed else "on the forecast without unseen growth"
            why["reserved"] = (f"{term} term, {basis}: {dec.rationale}"
                               f" (reserved {r_price:.4g} vs blended {blended:.4g} per {'hour' if w == 1 else 'instance-hour'})")
            if not deployed and history is not None and not jobs:
                view, ahead = float(commit_fc[:MONTH_HOURS].mean()), float(fc[:MONTH_HOURS].mean())
                if ahead - view >= max(0.5, 0.05 * ahead):  # the cap, not the forecast, decided
                    why["reserved"] += (f"; the forecast is capped by the latest day and week (the last day "
                                        f"repeated, or the last week less the last day's fall below the same day a "
                                        f"week before): {view:.1f} units on average over the next 30 days against "
                                        f"the forecast's {ahead:.1f}, as growth is bought when seen and a fall is "
                                        f"believed at once; a later re-plan buys what this leaves out if demand holds")
        new_inst = max(0, target - held_inst) if target is not None else 0
        units = held + new_inst * w
        if w > 1 and held % w:
            why["reserved"] += (f"; the {held} unit(s) held are rounded down to {held_inst} whole {po.instance_type} "
                                f"instance(s): the other {held % w} cover no whole instance, so they are neither counted "
                                f"against demand nor priced in this fleet's cost (it prices whole instances)")
        if w > 1 and new_inst:
            why["reserved"] += (f"; buy {new_inst} whole {inst} = {new_inst * w} units, "
                                f"{units} reserved in all")
        new = units - held
        purchases = [(term, new)] if new > 0 else []

        # on-demand base (units): the reserved units, as far as the fleet's maximum lets them run
        base = on_demand_base_units(units, cap_units, gold)
        idle = max(0, units // w - top_inst)  # reserved whole instances the group can never start
        if gold and cap_units >= 1 and min(units, cap_units) < 1:
            why["on_demand_base"] = "gold SLA: at least one on-demand node"
        elif idle:
            why["on_demand_base"] = (f"{base}: the fleet's maximum" + (" (disabled)" if disabled else "")
                                     + f"; {units} reserved unit(s) are billed whether or not they run: the "
                                     + (f"{idle} above the maximum never run" if w == 1 else
                                        f"{idle} {inst} above the {top_inst} the group can run never start")
                                     + " and bill idle until their term ends")
        elif base < units:  # whole instances of w units: the group's base overshoots its maximum in whole instances
            base_inst = min(-(-base // w), top_inst)
            why["on_demand_base"] = (f"{base}: the fleet's maximum, which the group's base runs as "
                                     f"{base_inst} whole {inst}: all {units // w} reserved whole instance(s) run")
        elif disabled:
            why["on_demand_base"] = "0: the fleet is disabled (capacity.max 0)"
        else:
            why["on_demand_base"] = f"{base}: the reserved units" + (" (gold keeps >= 1 on-demand)" if gold and base else "")
        if spot.share > 0:
            pct = on_demand_percentage(spot.share)
            why["on_demand_base"] += f"; above it {100 - pct}% spot (OnDemandPercentageAboveBaseCapacity {pct})"

        # the month hour by hour in layers, as the group bills it (whole instances held and launched)
        from seedance.estimate.fleet import layer_bounds  # the planner imports this module

        held_whole, base_whole = layer_bounds(units, base, w)
        within_reserved = float(np.minimum(profile, held_whole).mean()) if profile.size else 0.0
        within_base = float(np.minimum(profile, base_whole).mean()) if profile.size else 0.0
        fp = FleetPlan(
            name=fleet.name,
            instance_types=choices,
            reserved_units=units,
            new_purchases=purchases,
            on_demand_base=base,
            spot_share_above_base=spot.share,
            allocation_strategy=strategy,
            checkpoint_interval_s=interval,
            checkpoint_overhead=overhead,
            min_size=fleet.capacity.min,
            max_size=fleet.capacity.max,
            desired=fleet.capacity.desired,
            rationale=why,
            expected_nodes=expected,
            interruption_rate_per_hour=rate,
            expected_within_reserved=within_reserved,
            expected_within_base=within_base,
        )
        return FleetDecision(fp, primary, expected, notes, spot.lost_fraction if spot.share > 0 else 0.0,
                             month_units=demand_month if history is not None else None)

    ranked = ranking.ranked
    # Which type goes first (reservations, on-demand base) is chosen as if nothing were held, so that
    # recording a purchase the plan recommended never moves the fleet off the type it was bought for.
    # The spot ranking does not see reserved prices or the on-demand base: the types cheapest to run
    # on-demand and to reserve are decided too, and the cheapest month wins. Only types of the
    # ranking's smallest weight are tried: a group the Cluster Autoscaler manages lists only the types
    # of its first type's weight.
    # Preferred types come first as the policy gives them.
    chosen, note = 0, ""
    free: dict[int, FleetDecision] = {}  # decisions with nothing held, by ranking index

    def decide_free(index: int) -> FleetDecision:
        if index not in free:
            free[index] = decide(index, 0)
        return free[index]

    smallest = min(c.weight for c in ranked)
    light = [i for i, c in enumerate(ranked) if c.weight == smallest]
    preferred_first = bool(set(fleet.instance_types.preferred) & {c.offer.instance_type for c in ranked})
    if not preferred_first and len(ranked) > 1:
        if light[0] != 0:
            # the ranking's first holds more units per instance than other types: the reservations and
            # the base go to the best of the smallest, the only ones every group lists
            chosen = light[0]
            note = (f"; {ranked[chosen].offer.instance_type} first, not {ranked[0].offer.instance_type}, which holds "
                    f"{ranked[0].weight} units per instance: a group the Cluster Autoscaler manages lists only the "
                    f"types of the smallest weight ({smallest})")
        others = {min(light, key=lambda i: ranked[i].ondemand_per_unit)}
        reservable = [i for i in light if ranked[i].offer.instance_type in inp.reserved_hourly]
        if reservable:
            others.add(min(reservable, key=lambda i: inp.reserved_hourly[ranked[i].offer.instance_type] / ranked[i].weight))
        best_cost = monthly_cost(decide_free(chosen), inp)
        first = ranked[chosen].offer.instance_type
        ranking_rule = ("the cheapest expected cost per unit on spot" if fleet.spot is not None and fleet.spot.max_share > 0
                        else "the cheapest per unit on-demand") + ("" if chosen == 0 else " of the smallest types")
        for i in sorted(others - {chosen}):
            cost = monthly_cost(decide_free(i), inp)
            if cost < best_cost * (1 - 1e-9):
                note = (f"; {ranked[i].offer.instance_type} first, not {first} ({ranking_rule}): with its reservations "
                        f"and on-demand base the fleet's month costs {cost:,.2f} on it against {best_cost:,.2f}"
                        + (" (both with nothing held, so the choice does not move once purchases are recorded)"
                           if inp.held_units else ""))
                chosen, best_cost = i, cost
    best = decide_free(chosen) if inp.held_units == 0 else decide(chosen, inp.held_units)
    if ranked[chosen].weight > smallest:  # a preferred type heavier than others: the policy asked for it
        w = ranked[chosen].weight
        names = ", ".join(c.offer.instance_type for c in ranked if c.weight == w)
        note += (f"; {ranked[chosen].offer.instance_type} holds {w} units per instance: a group the Cluster Autoscaler "
                 f"manages lists only the types of its weight ({names}), in whole instances of {w} units, not the "
                 f"{smallest}-unit types")
    if note:
        best.plan.rationale["instance_types"] += note
    od = ranked[ondemand_baseline(ranked, chosen)]
    return replace(best, ondemand_type=(od.offer.instance_type, od.weight))


def ondemand_baseline(ranked: Sequence[RankedType], first: int) -> int:
    """The index in ``ranked`` of the type "all on-demand" runs, when the plan's group runs ``ranked[first]``
    first: of the types of the first's weight, which every group of the plan lists (a group the
    Cluster Autoscaler manages lists no other), the one cheapest to run on-demand, the first type when
    none is cheaper. The savings then compare like with like: the same group, the same demand, only
    without reservations or spot."""
    same = [i for i, c in enumerate(ranked) if c.weight == ranked[first].weight]
    return min(same, key=lambda i: (ranked[i].ondemand_per_unit, i != first, i))


def _spot_pools(primary: RankedType, ranked: Sequence[RankedType],
                lost: Callable[[float], float]) -> tuple[list[RankedType], list[str]]:
    """The other types a group whose first type is ``primary`` lists for spot, and those left out
    only for their interruptions.

    The group may launch spot in any type it lists, so its interruptions are priced at its most
    interrupted pool. A type joins, least interrupted first, when spot beats on-demand on it alone
    and still does, on it, on ``primary`` and on every pool already kept, at the interruption rate
    of the most interrupted of them: a pool of a high band is left out rather than taking the whole
    fleet off spot.
    """
    alone = [c for c in ranked if c is not primary and c.effective_spot_per_unit is not None
             and c.effective_spot_per_unit < c.ondemand_per_unit]
    band = primary.offer.interruption_band_max_pct
    if band is None or primary.offer.spot_hourly is None:
        return alone, []

    def pays(c: RankedType, rate: float) -> bool:
        assert c.offer.spot_hourly is not None
        return effective_spot_hourly(c.offer.spot_hourly, lost(rate)) / c.weight < c.ondemand_per_unit

    kept: list[RankedType] = []
    dropped: list[str] = []
    top = band
    for c in sorted(alone, key=lambda c: c.offer.interruption_band_max_pct or 0.0):
        b = max(top, c.offer.interruption_band_max_pct or 0.0)
        rate = band_hourly_rate(b)
        if all(pays(k, rate) for k in (primary, *kept, c)):
            kept.append(c)
            top = b
        else:
            dropped.append(c.offer.instance_type)
    return [c for c in alone if c in kept], dropped


def decision_usage(decision: FleetDecision, fleet: Fleet, other_terms: tuple[tuple[Term, int], ...] = ()) -> FleetUsage:
    """The fleet month a decision (with a first type) runs, in instances of that type."""
    from seedance.estimate.fleet import FleetUsage

    fp, primary = decision.plan, decision.primary
    assert primary is not None
    return FleetUsage(fleet.name, primary.offer.instance_type, decision.expected_nodes, fp.reserved_units,
                      fleet.reserved.term, fleet.reserved.payment, fp.on_demand_base, fp.spot_share_above_base,
                      other_terms, spot_lost_fraction=decision.spot_lost_fraction,
                      within_reserved=fp.expected_within_reserved,
                      within_base=fp.expected_within_base).per_instance(primary.weight)


def monthly_cost(decision: FleetDecision, inp: FleetInputs) -> float:
    """The month a decision bills on its first type (reserved, on-demand and spot hours as the estimator
    splits them), in the catalog's currency: what the planner compares candidate first types by."""
    from seedance.estimate.fleet import split_hours

    if decision.primary is None:
        return 0.0
    offer = decision.primary.offer
    reserved_h, ondemand_h, spot_h = split_hours(decision_usage(decision, inp.fleet))
    reserved = inp.reserved_hourly.get(offer.instance_type, offer.ondemand_hourly)
    return reserved_h * reserved + ondemand_h * offer.ondemand_hourly + spot_h * (offer.spot_hourly or 0.0)


def cost_text(cost: float, cost_od: float, units: float, currency: str, unpriced: Sequence[str],
              od_unpriced: bool = False, why_more: Sequence[str] = ()) -> str:
    """A fleet's cost in its rationale: its month against all on-demand, what it saves or what it
    costs more (``why_more``: the reasons :func:`costs_more_reasons` gives).

    ``unpriced`` names the components of the month with no sourced price, which the cost counts as
    nothing: it is then a lower bound, so what it saves is at most the figure (and what it costs more
    at least), never a figure of savings. ``od_unpriced``: all on-demand leaves some out too (only the
    root volumes can be, where the data has no EBS price): its figure is a lower bound as well, and the
    savings stay at most the figure: all on-demand runs a type of the first type's weight
    (:func:`ondemand_baseline`), so the plan's unpriced volumes count no fewer instance-hours than all
    on-demand's (the same demand in instances of the same weight, and spot pays for the hours
    interruptions lose).
    """
    low = " (a lower bound)" if unpriced else ""
    gap = f"; {len(unpriced)} component(s) unpriced: {', '.join(unpriced)}" if unpriced else ""
    if not cost_od:
        return f"{cost:,.0f} {currency}/month{low}{gap}"
    head = (f"{cost:,.0f} {currency}/month{low} for ~{units:.1f} units vs {cost_od:,.0f} all on-demand"
            + ((" (a lower bound too)" if unpriced else " (a lower bound)") if od_unpriced else ""))
    if cost <= cost_od:
        share = f"{(cost_od - cost) / cost_od:.0%}"
        if unpriced:
            return f"{head}: at most {cost_od - cost:,.0f} ({share}) saved{gap}"
        return f"{head} ({share} saved)"
    reasons = "; ".join(why_more) or "the first type costs more than on-demand here"
    return f"{head} ({'at least ' if unpriced else ''}{(cost - cost_od) / cost_od:.0%} more: {reasons}){gap}"


def idle_reserved_units(fp: FleetPlan, w: int) -> float:
    """Reserved units billed with nothing running on them, per hour on average: the whole instances
    of ``w`` units held above the demand hour by hour (none when the demand always fills them)."""
    held = (fp.reserved_units // w) * w
    within = fp.expected_within_reserved
    if within is None:  # the average taken to run every hour
        within = fp.expected_nodes if fp.expected_nodes is not None else float(held)
    return max(0.0, held - min(within, held))


def costs_more_reasons(fp: FleetPlan, first: tuple[str, int, float], baseline: tuple[str, int, float]) -> list[str]:
    """Why a fleet's plan costs more than all on-demand, as far as it can say: reserved units that
    sit idle (billed whether or not they run), or a first type - (name, weight, on-demand hourly) -
    other than the one all on-demand runs (``baseline``): in whole instances of more units, or dearer
    on-demand (kept first for its reservations). Empty when neither holds."""
    name, w, hourly = first
    od_name, od_w, od_hourly = baseline
    out = []
    idle = idle_reserved_units(fp, w)
    if idle > 1e-9:
        out.append(f"{fp.reserved_units} reserved unit(s) are billed whether or not they run (~{idle:,.1f} idle "
                   f"on average)")
    if name != od_name and w != od_w:
        out.append(f"{name} runs in whole instances of {w} unit(s), and all on-demand is priced on {od_name} "
                   f"({od_w} unit(s) each)")
    elif name != od_name and hourly / w > od_hourly / od_w:
        out.append(f"{name} costs {hourly / w:.4g}/h per unit on-demand, and all on-demand is priced on {od_name} "
                   f"at {od_hourly / od_w:.4g}/h, the cheapest of the group's types")
    return out


def _duration(hours: int) -> str:
    return f"{hours} h" if hours < 48 else f"{hours / 24:,.1f} days"


def _held_cover(held: int, covered: bool, terms: tuple[tuple[str, int], ...]) -> str:
    """What the units already held do for a reservation target they do not exceed: cover it
    (nothing to buy), or part of it."""
    which = f" ({', '.join(f'{n} of {t}' for t, n in terms)})" if terms else ""
    if covered:
        return f"; the {held} unit(s) already held{which} cover it: nothing to buy"
    return f"; {held} of them already held{which}"


# ---------------------------------------------------------------------- policy level (I/O here)


def held_running_on(fleet: Fleet, day: dt.date) -> list[Commitment]:
    """The policy's held commitments running on ``day``: bought on or before it, term not over."""
    # ends() None: past the last date (validation refuses it), so running on every date after
    return [c for c in fleet.reserved.held if c.purchased <= day and ((ends := c.ends()) is None or day < ends)]


def held_by_term_on(fleet: Fleet, day: dt.date) -> dict[Term, int]:
    """Units of the policy's held commitments running on ``day`` (:func:`held_running_on`), by term."""
    out: dict[Term, int] = {}
    for c in held_running_on(fleet, day):
        out[c.term] = out.get(c.term, 0) + c.units
    return out


def month_end(on: dt.date) -> dt.date:
    """The last day of the month a plan decided on ``on`` prices (:data:`PRICED_DAYS` on)."""
    return on + dt.timedelta(days=PRICED_DAYS) if on <= dt.date.max - dt.timedelta(days=PRICED_DAYS) else dt.date.max


def active_held_by_term(fleet: Fleet, on: dt.date) -> dict[Term, int]:
    """Units of the policy's held commitments a plan decided on ``on`` counts as held, by term: those
    running through the month it prices (still running on its last day, :func:`month_end`).

    A commitment that ends within the month is not counted: the plan's purchases replace it, from
    its end (:func:`ending_within_month`). One bought within the month, a purchase queued to start
    then, is counted, as if it ran from ``on``.
    """
    return held_by_term_on(fleet, month_end(on))


def active_held_units(fleet: Fleet, on: dt.date) -> int:
    """Units of the policy's held commitments a plan decided on ``on`` counts (:func:`active_held_by_term`)."""
    return sum(active_held_by_term(fleet, on).values())


def ending_within_month(fleet: Fleet, on: dt.date) -> list[tuple[int, dt.date]]:
    """Held commitments running on ``on`` that end within the month a plan of ``on`` prices: (units, end)."""
    last = month_end(on)
    out = []
    for c in fleet.reserved.held:
        ends = c.ends()
        if c.purchased <= on and ends is not None and on < ends <= last:
            out.append((c.units, ends))
    return sorted(out, key=lambda x: x[1])


def offer_view(offer: InstanceOffer) -> OfferView:
    return OfferView(
        offer.instance_type, offer.vcpu, offer.memory_gib, offer.gpus, offer.gpu_model, offer.gpu_memory_gib_total,
        offer.ondemand.value, offer.spot_avg.value if offer.spot_avg is not None else None,
        offer.interruption_band_max_pct,
    )


def plan_policy(
    loaded: LoadedPolicy,
    catalog: Catalog,
    *,
    as_of: dt.date | None = None,
    held: Mapping[str, int] | None = None,
    clock: Callable[[], dt.datetime] = utc_now,
    cluster: bool = True,
) -> Plan:
    """Plan every fleet of ``loaded`` with ``catalog`` prices.

    ``as_of`` is the decision point: demand history from that date (00:00 UTC) on is never read,
    and held commitments are counted if still active then.  Without it the decision point is
    today (UTC) by ``clock``; the plan records the date used either way.  A history that ends more
    than :data:`STALE_HISTORY_HOURS` before the decision point is used as if it were current, with
    the gap stated in the fleet's rationale and a logged warning.
    ``held`` gives units already reserved per fleet name; it replaces the policy's
    ``reserved.held`` list for that fleet.  Held units are never reduced.
    ``cluster``: whether the stack's fleets join a cluster (its ``seedance:clusterName``), whose
    Cluster Autoscaler sizes each group to demand; without one a group runs its desired size and
    off-peak windows, and that schedule is planned on instead of the demand history (not read).
    """
    from seedance.estimate.fleet import FleetUsage, average_nodes, fleet_month, gp3_rate

    policy = loaded.policy
    region = policy.cloud.region
    currency = catalog.currency(region)
    offers = catalog.instances(region)
    views = [offer_view(o) for o in offers]
    by_type = {o.instance_type: o for o in offers}
    gp3 = gp3_rate(catalog, region)  # the nodes' root volumes
    on = as_of if as_of is not None else utc_today(clock)
    cutoff = dt.datetime(on.year, on.month, on.day, tzinfo=dt.UTC)
    fleets: list[FleetPlan] = []
    total = total_od = 0.0
    unpriced: list[str] = []
    stale: list[str] = []
    unknown = sorted(set(held or {}) - {f.name for f in policy.fleets})
    if unknown:  # a misspelt fleet would silently plan purchases of reservations already held
        raise PlanningError(f"held units for {', '.join(unknown)}: not a fleet of the policy "
                            f"(fleets: {', '.join(f.name for f in policy.fleets)})")
    for fleet in policy.fleets:
        hist: DemandHistory | None = None
        gap = 0
        if fleet.demand_history and cluster:
            path = (loaded.base_dir / fleet.demand_history)
            hist = read_demand_csv(path).before(cutoff)
            gap = max(0, int((cutoff - hist.end) // HOUR)) if hist.values.size else 0
            if gap > STALE_HISTORY_HOURS and fleet.capacity.max > 0:
                stale.append(f"{fleet.name} ({fleet.demand_history}: ends {hist.end:%Y-%m-%d}, {_duration(gap)} before)")
        key = (fleet.reserved.term, fleet.reserved.payment)
        reserved_hourly = {o.instance_type: o.reserved[key].value for o in offers if key in o.reserved}
        held_units = held[fleet.name] if held is not None and fleet.name in held else active_held_units(fleet, on)
        if held_units < 0:
            raise PlanningError(f"fleet {fleet.name}: held units must be >= 0, got {held_units}")
        inp = FleetInputs(
            fleet=fleet, offers=views, reserved_hourly=reserved_hourly,
            history=None if hist is None else hist.values,
            start_hour_of_week=0 if hist is None else hist.start_hour_of_week,
            held_units=held_units, region=region,
            held_terms=() if held is not None and fleet.name in held else tuple(
                (t.value, n) for t, n in sorted(active_held_by_term(fleet, on).items()) if n),
            history_source=fleet.demand_history or "",
            history_gap_hours=gap,
            sized_to_demand=cluster,
        )
        dec = plan_fleet(inp)
        fp = dec.plan
        ending = [] if held is not None and fleet.name in held else ending_within_month(fleet, on)
        if ending:
            units = sum(n for n, _ in ending)
            fp.rationale["reserved"] += (
                f"; {units} held unit(s) end within the month priced ("
                + ", ".join(f"{n} on {d.isoformat()}" for n, d in ending) + "): not counted as held"
                + ("; the purchase above replaces them: queue it to start that day (a purchase recorded with "
                   "that date is counted as held)" if fp.new_purchases else "; nothing replaces them"))
        if dec.primary is None:
            unpriced.append(f"{fleet.name}: no instance type in {region} satisfies the fleet's requirement")
            fleets.append(fp)
            continue
        offer = by_type[dec.primary.offer.instance_type]
        w = dec.primary.weight
        # held units of another term are priced at their own term's rate (not known for --held)
        others = () if held is not None and fleet.name in held else tuple(
            (t, n) for t, n in sorted(active_held_by_term(fleet, on).items()) if t != fleet.reserved.term)
        usage = decision_usage(dec, fleet, others)
        comps = fleet_month(usage, offer, gp3)
        # all on-demand: the same demand run by the same group without reservations or spot, on the type
        # of the group's cheapest to run on-demand (:func:`ondemand_baseline`), in its whole instances
        od_name, od_w = dec.ondemand_type or (offer.instance_type, w)
        od_offer = by_type[od_name]
        if dec.month_units is not None:
            od_instances = float(np.mean(group_units(dec.month_units, od_w, fleet.capacity.max, managed=cluster))) / od_w
        else:
            od_instances = average_nodes(fleet, fleet.capacity.desired, od_w, managed=cluster)[0] / od_w
        od_usage = FleetUsage(fleet.name, od_offer.instance_type, od_instances, 0, fleet.reserved.term,
                              fleet.reserved.payment, 0, 0.0)
        od_comps = fleet_month(od_usage, od_offer, gp3)
        cost = sum(c.monthly_cost for c in comps if c.monthly_cost is not None)
        cost_od = sum(c.monthly_cost for c in od_comps if c.monthly_cost is not None)
        for c in comps:
            if c.unpriced_reason:
                unpriced.append(f"{fleet.name}: {c.name}: {c.unpriced_reason}")
        rationale = dict(fp.rationale)
        # reservations billed idle, or a first type dearer on-demand than the one all on-demand runs
        why_more = [] if cost <= cost_od else costs_more_reasons(
            fp, (offer.instance_type, w, offer.ondemand.value), (od_offer.instance_type, od_w, od_offer.ondemand.value))
        rationale["cost"] = cost_text(cost, cost_od, dec.expected_nodes, currency,
                                      [c.name for c in comps if c.unpriced], any(c.unpriced for c in od_comps), why_more)
        fp = FleetPlan(**{**fp.__dict__, "rationale": rationale, "monthly_cost": cost,
                          "monthly_cost_all_ondemand": cost_od,
                          "cost_components": [c.to_json() for c in comps],
                          "held_other_terms": [(t.value, n) for t, n in others]})
        fleets.append(fp)
        total += cost
        total_od += cost_od
        log.info("planned fleet %s: %s", fleet.name, rationale["cost"])
    if stale:
        log.warning("%s: demand history ends more than %s before the decision point %s for %s; its forecast is "
                    "used as if it were current (pass --as-of to decide at the history's end)",
                    policy.metadata.name, f"{STALE_HISTORY_HOURS // 24} days", on.isoformat(), "; ".join(stale))
    return Plan(
        policy=policy.metadata.name,
        environment=policy.metadata.environment.value,
        region=region,
        currency=currency,
        fleets=fleets,
        monthly_cost=total,
        monthly_cost_all_ondemand=total_od,
        savings=total_od - total,
        as_of=on.isoformat(),
        partial=bool(unpriced),
        unpriced=unpriced,
        cluster=cluster,
        held=dict(held) if held else None,
    )
