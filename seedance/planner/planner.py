"""Plan a policy: for every fleet, instance types, reserved units, spot share, checkpoint interval,
and the expected monthly compute cost by component (via the estimator) against all-on-demand.

:func:`plan_fleet` is pure: everything it needs (catalog facts, prices, demand history already cut
at the decision point, commitments held) arrives in a :class:`FleetInputs`.  :func:`plan_policy`
gathers those inputs - the catalog lookups and the one file read (the demand history) - and
assembles the :class:`~seedance.planner.plan.Plan`.

Units: a fleet's unit is one node as the policy states it; ``reserved_units`` and
``on_demand_base`` are in units.  The first-ranked type carries the reserved and on-demand base;
when it holds several units (weight ``w``), the reserved count is decided in whole instances
(demand / ``w``) and reported as instances x ``w``.
"""

from __future__ import annotations

import datetime as dt
import logging
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from seedance.planner import checkpoint as ckpt
from seedance.planner.demand import DemandHistory, read_demand_csv
from seedance.planner.forecast import commitment_forecast, forecast
from seedance.planner.instances import InstanceRanking, OfferView, RankedType, Requirement, rank_instances
from seedance.planner.plan import FleetPlan, InstanceChoice, Plan
from seedance.planner.reserved import ReservedDecision, Uncovered, commit_now
from seedance.planner.spot import (
    DEFAULT_REPLACEMENT_S,
    PRICE_CAPACITY_OPTIMIZED,
    SpotDecision,
    band_hourly_rate,
    decide_spot,
    stateless_lost_fraction,
)
from seedance.policy.loader import LoadedPolicy
from seedance.policy.model import Fleet, ReservedMode, SlaTier, Term, Workload
from seedance.pricing.catalog import Catalog, InstanceOffer

log = logging.getLogger(__name__)

TERM_HOURS = {Term.ONE_YEAR: 8760, Term.THREE_YEARS: 3 * 8760}
REPLAN_STEP_HOURS = 168  # the planner is meant to run weekly
MIN_HISTORY_HOURS = 24  # less than a day of history is treated as none
CHECKPOINTED = (Workload.TRAINING, Workload.FINETUNE)
MONTH_HOURS = 730


class PlanningError(Exception):
    """A policy that cannot be planned (the message names the fleet and what is missing)."""


@dataclass(frozen=True)
class FleetInputs:
    fleet: Fleet
    offers: list[OfferView]
    reserved_hourly: dict[str, float]  # instance type -> reserved price for the fleet's term/payment
    history: NDArray[np.float64] | None = None  # hourly units, strictly before the decision point
    start_hour_of_week: int = 0  # of the decision point (first forecast hour)
    held_units: int = 0  # reserved units still active at the decision point
    region: str = ""
    history_source: str = ""
    # hours a unit bought now is charged for (the contract, known at decision time); None = the
    # full reservation term (8,760 h for 1y).  The backtest passes the hours left in its billed window.
    horizon_hours: int | None = None


@dataclass(frozen=True)
class FleetDecision:
    plan: FleetPlan
    primary: RankedType | None
    expected_nodes: float
    notes: list[str] = field(default_factory=list)


def lost_fraction_fn(fleet: Fleet) -> Callable[[float], float]:
    """Share of paid spot time lost at a given interruption rate, for this fleet's workload."""
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
    spot_cap = fleet.spot.max_share if fleet.spot is not None else None
    lost = lost_fraction_fn(fleet)
    ranking: InstanceRanking = rank_instances(
        inp.offers, requirement(fleet), max_spot_share=spot_cap, lost_fraction=lost,
        allowed=fleet.instance_types.allowed, preferred=fleet.instance_types.preferred, region=inp.region,
    )
    why["instance_types"] = ranking.rationale
    choices = [
        InstanceChoice(c.offer.instance_type, c.weight, c.offer.ondemand_hourly, c.offer.spot_hourly, c.rationale)
        for c in ranking.ranked
    ]
    gold = fleet.sla == SlaTier.GOLD
    history = inp.history if inp.history is not None and inp.history.size >= MIN_HISTORY_HOURS else None
    if not ranking.ranked:
        base = max(inp.held_units, 1 if gold else 0)
        why["reserved"] = "no qualifying instance type: nothing to reserve"
        fp = FleetPlan(fleet.name, [], inp.held_units, [], base, 0.0, PRICE_CAPACITY_OPTIMIZED, None, None,
                       fleet.capacity.min, fleet.capacity.max, fleet.capacity.desired, why)
        return FleetDecision(fp, None, float(fleet.capacity.desired))
    primary = ranking.ranked[0]
    po = primary.offer
    w = primary.weight

    # spot share and its effective cost, on the first-ranked type
    rate = band_hourly_rate(po.interruption_band_max_pct) if po.interruption_band_max_pct is not None else None
    strategy = fleet.spot.allocation_strategy.value if fleet.spot is not None else PRICE_CAPACITY_OPTIMIZED
    spot: SpotDecision = decide_spot(
        max_share=spot_cap, ondemand_hourly=po.ondemand_hourly, spot_hourly=po.spot_hourly,
        interruption_rate=rate, lost_fraction=None if rate is None else lost(rate),
        allocation_strategy=strategy, what=f"{po.instance_type} in {inp.region}" if inp.region else po.instance_type,
    )
    why["spot"] = spot.rationale
    if fleet.spot is not None:
        asked = "spot.allocationStrategy" if "allocation_strategy" in fleet.spot.model_fields_set else "default"
        why["allocation_strategy"] = (
            f"{strategy}: the policy's {asked}" if asked != "default"
            else f"{strategy}: default (pools with spare capacity at low price)"
        )
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
    term_hours = TERM_HOURS[fleet.reserved.term] if inp.horizon_hours is None else inp.horizon_hours
    if term_hours < 1:
        raise PlanningError(f"fleet {fleet.name}: commitment horizon must be >= 1 hour, got {term_hours}")
    cap_units = fleet.capacity.max
    notes: list[str] = []
    fc: NDArray[np.float64] | None = None
    commit_fc: NDArray[np.float64] | None = None
    if history is not None:
        fc = forecast(history, term_hours, start_hour_of_week=inp.start_hour_of_week)
        commit_fc = np.clip(commitment_forecast(history, term_hours, start_hour_of_week=inp.start_hour_of_week),
                            0.0, cap_units)
        if float(fc.max(initial=0.0)) > cap_units:
            notes.append(f"forecast peaks at {fc.max():.1f} units, clipped to the fleet maximum {cap_units}")
        fc = np.clip(fc, 0.0, cap_units)
        expected = float(np.clip(fc[:MONTH_HOURS].mean(), fleet.capacity.min, cap_units))
        why["demand"] = (f"{history.size} h of history{' from ' + inp.history_source if inp.history_source else ''}"
                         f" before the decision point; next month ~{expected:.1f} units on average"
                         + (f" ({notes[-1]})" if notes else ""))
    else:
        from seedance.estimate.fleet import average_nodes

        expected, off_peak = average_nodes(fleet, fleet.capacity.desired)
        why["demand"] = ("disabled (capacity.max 0): no node runs" if cap_units == 0 else
                         "no demand history: the policy's desired size" + (" with off-peak windows" if off_peak else "")
                         + f", {expected:.1f} units on average")

    # reserved units
    held = inp.held_units
    r_price = inp.reserved_hourly.get(po.instance_type)
    blended = spot.blended_hourly(po.ondemand_hourly)
    # the highest rate any uncovered unit is billed at: a gold fleet's first node runs on-demand
    top_rate = po.ondemand_hourly if gold else blended
    mode = fleet.reserved.mode
    term = fleet.reserved.term.value
    if mode == ReservedMode.NONE:
        units = held
        why["reserved"] = "reserved.mode none" + (f"; {held} unit(s) already held are kept" if held else "")
    elif mode == ReservedMode.FIXED:
        units = max(held, fleet.reserved.units or 0)
        why["reserved"] = f"reserved.mode fixed at {fleet.reserved.units}" + (
            f"; {held} already held, never fewer" if held > (fleet.reserved.units or 0) else "")
    elif r_price is None:
        units = held
        why["reserved"] = (f"no sourced {term} {fleet.reserved.payment.value} reserved price for {po.instance_type}"
                           f"{' in ' + inp.region if inp.region else ''}: nothing new reserved")
    elif r_price >= top_rate:
        units = held
        why["reserved"] = (f"reserving never pays here: {term} reserved {r_price:.4g}/h >= "
                           + ("on-demand (a gold fleet's first node) " if gold else "blended spot/on-demand ")
                           + f"{top_rate:.4g}/h" + (f"; {held} already held are kept" if held else ""))
    elif commit_fc is None:
        # above the blend every always-running node pays; between it and on-demand only a gold fleet's first
        want = fleet.capacity.min if r_price < blended else min(1, fleet.capacity.min)
        units = max(held, want)
        why["reserved"] = (f"no demand history: reserve the fleet's minimum ({fleet.capacity.min}, always running)"
                           + (f"; {held} already held" if held > want else ""))
    else:
        held_inst = math.ceil(held / w)
        billing = Uncovered(po.ondemand_hourly, spot.effective_hourly if spot.share > 0 else None, spot.share,
                            1.0 if gold else 0.0)
        dec: ReservedDecision = commit_now(commit_fc / w, r_price, billing,
                                           held=held_inst, step_hours=REPLAN_STEP_HOURS, max_units=cap_units // w)
        units = max(held, dec.units * w)
        why["reserved"] = (f"{term} term, on the forecast without unseen growth: {dec.rationale}"
                           f" (reserved {r_price:.4g} vs blended {blended:.4g} per hour)")
    new = units - held
    purchases = [(term, new)] if new > 0 else []

    base = min(units, cap_units)
    if gold and cap_units >= 1 and base < 1:
        base = 1
        why["on_demand_base"] = "gold SLA: at least one on-demand node"
    elif base < units:
        why["on_demand_base"] = (f"{base}: the fleet's maximum" + (" (disabled)" if cap_units == 0 else "")
                                 + f"; {units} reserved unit(s) are billed whether or not they run")
    else:
        why["on_demand_base"] = f"{base}: the reserved units" + ("" if not gold else " (gold keeps >= 1 on-demand)")
    if spot.share > 0:
        why["on_demand_base"] += f"; above it {spot.share:.0%} spot (OnDemandPercentageAboveBaseCapacity " \
                                 f"{round(100 * (1 - spot.share))})"

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
    )
    return FleetDecision(fp, primary, expected, notes)


# ---------------------------------------------------------------------- policy level (I/O here)


def active_held_by_term(fleet: Fleet, on: dt.date) -> dict[Term, int]:
    """Units of the policy's held commitments still running on ``on``, by term."""
    out: dict[Term, int] = {}
    for c in fleet.reserved.held:
        years = 1 if c.term == Term.ONE_YEAR else 3
        try:
            ends = c.purchased.replace(year=c.purchased.year + years)
        except ValueError:  # 29 February
            ends = c.purchased.replace(year=c.purchased.year + years, day=28)
        if c.purchased <= on < ends:
            out[c.term] = out.get(c.term, 0) + c.units
    return out


def active_held_units(fleet: Fleet, on: dt.date) -> int:
    """Units of the policy's held commitments still running on ``on``."""
    return sum(active_held_by_term(fleet, on).values())


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
) -> Plan:
    """Plan every fleet of ``loaded`` with ``catalog`` prices.

    ``as_of`` is the decision point: demand history from that date (00:00 UTC) on is never read,
    and held commitments are counted if still active then (default: all history, today).
    ``held`` gives units already reserved per fleet name; it replaces the policy's
    ``reserved.held`` list for that fleet.  Held units are never reduced.
    """
    from seedance.estimate.fleet import FleetUsage, fleet_components

    policy = loaded.policy
    region = policy.cloud.region
    currency = catalog.currency(region)
    offers = catalog.instances(region)
    views = [offer_view(o) for o in offers]
    by_type = {o.instance_type: o for o in offers}
    on = as_of or dt.date.today()
    cutoff = dt.datetime(on.year, on.month, on.day, tzinfo=dt.UTC) if as_of is not None else None
    fleets: list[FleetPlan] = []
    total = total_od = 0.0
    unpriced: list[str] = []
    unknown = sorted(set(held or {}) - {f.name for f in policy.fleets})
    if unknown:  # a misspelt fleet would silently plan purchases of reservations already held
        raise PlanningError(f"held units for {', '.join(unknown)}: not a fleet of the policy "
                            f"(fleets: {', '.join(f.name for f in policy.fleets)})")
    for fleet in policy.fleets:
        hist: DemandHistory | None = None
        if fleet.demand_history:
            path = (loaded.base_dir / fleet.demand_history)
            hist = read_demand_csv(path)
            if cutoff is not None:
                hist = hist.before(cutoff)
        key = (fleet.reserved.term, fleet.reserved.payment)
        reserved_hourly = {o.instance_type: o.reserved[key].value for o in offers if key in o.reserved}
        held_units = held[fleet.name] if held is not None and fleet.name in held else active_held_units(fleet, on)
        if held_units < 0:
            raise PlanningError(f"fleet {fleet.name}: held units must be >= 0, got {held_units}")
        inp = FleetInputs(
            fleet=fleet, offers=views, reserved_hourly=reserved_hourly,
            history=None if hist is None else hist.values,
            start_hour_of_week=0 if hist is None else (hist.start_hour_of_week + hist.values.size) % 168,
            held_units=held_units, region=region,
            history_source=fleet.demand_history or "",
        )
        dec = plan_fleet(inp)
        fp = dec.plan
        if dec.primary is None:
            unpriced.append(f"{fleet.name}: no instance type in {region} satisfies the fleet's requirement")
            fleets.append(fp)
            continue
        offer = by_type[dec.primary.offer.instance_type]
        w = dec.primary.weight
        # held units of another term are priced at their own term's rate (not known for --held)
        others = () if held is not None and fleet.name in held else tuple(
            (t, n) for t, n in sorted(active_held_by_term(fleet, on).items()) if t != fleet.reserved.term)
        usage = FleetUsage(fleet.name, offer.instance_type, dec.expected_nodes, fp.reserved_units,
                           fleet.reserved.term, fleet.reserved.payment, fp.on_demand_base,
                           fp.spot_share_above_base, others).per_instance(w)
        comps = fleet_components(usage, offer)
        od_usage = FleetUsage(fleet.name, offer.instance_type, dec.expected_nodes / w, 0, fleet.reserved.term,
                              fleet.reserved.payment, 0, 0.0)
        od_comps = fleet_components(od_usage, offer)
        cost = sum(c.monthly_cost for c in comps if c.monthly_cost is not None)
        cost_od = sum(c.monthly_cost for c in od_comps if c.monthly_cost is not None)
        for c in comps:
            if c.unpriced_reason:
                unpriced.append(f"{fleet.name}: {c.name}: {c.unpriced_reason}")
        rationale = dict(fp.rationale)
        if not cost_od:
            rationale["cost"] = f"{cost:,.0f} {currency}/month"
        elif cost <= cost_od:
            rationale["cost"] = (f"{cost:,.0f} {currency}/month for ~{dec.expected_nodes:.1f} units vs "
                                 f"{cost_od:,.0f} all on-demand ({(cost_od - cost) / cost_od:.0%} saved)")
        else:  # reservations already held cost more than the nodes they cover would on demand
            rationale["cost"] = (f"{cost:,.0f} {currency}/month for ~{dec.expected_nodes:.1f} units vs "
                                 f"{cost_od:,.0f} all on-demand ({(cost - cost_od) / cost_od:.0%} more: "
                                 f"{fp.reserved_units} reserved unit(s) are billed whether or not they run)")
        fp = FleetPlan(**{**fp.__dict__, "rationale": rationale, "monthly_cost": cost,
                          "monthly_cost_all_ondemand": cost_od,
                          "cost_components": [c.to_json() for c in comps]})
        fleets.append(fp)
        total += cost
        total_od += cost_od
        log.info("planned fleet %s: %s", fleet.name, rationale["cost"])
    return Plan(
        policy=policy.metadata.name,
        environment=policy.metadata.environment.value,
        region=region,
        currency=currency,
        fleets=fleets,
        monthly_cost=total,
        monthly_cost_all_ondemand=total_od,
        savings=total_od - total,
        as_of=as_of.isoformat() if as_of is not None else None,
        partial=bool(unpriced),
        unpriced=unpriced,
    )
