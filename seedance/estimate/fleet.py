"""Fleets: reserved / on-demand / spot instance hours over a month.

Billing rule for a fleet month (``HOURS_PER_MONTH`` = 730 h):

* reserved units are paid every hour, used or not (effective hourly rate of the term/payment);
* nodes up to the on-demand base, beyond the reserved units, run on-demand;
* nodes above the base run ``spot_share_above_base`` on spot (at the catalog's spot average) and
  the rest on-demand.  Spot hours are billed as paid: interrupted time (``spot_lost_fraction``
  ``f`` of the paid hours: lost work, checkpoint writes, replacements) does no useful work, so
  ``s`` useful spot hours cost ``s / (1 - f)`` paid hours - the planner's effective spot rate
  ``spot / (1 - f)``.  ``f`` comes from the type's Spot Advisor band and the fleet's workload and
  checkpointing (:func:`seedance.planner.planner.lost_fraction_fn`), in the plan and here alike.

Without a plan the mix comes from the policy's explicit values, as the planner turns them into a
group: reserved units = ``fixed`` units in whole instances of the first type, rounded down (or the
units already held, never fewer: commitments purchased on or before the estimate's date whose term
has not ended, as the planner counts them), on-demand base = those reserved units within
``capacity.max`` (at least 1 for gold fleets);
the instance type and spot share are the planner's: its first-ranked type (preferred types first,
within the allowed ones, else the cheapest expected cost per unit) and that type's spot share
(``spot.maxShare`` where the type's interruption band is within the fleet's tolerance and spot,
interruption losses included, beats on-demand; none for training or fine-tuning without a
checkpoint block); average nodes = ``desired``
adjusted for off-peak windows (costed as their scheduled actions run, see :func:`average_nodes`).  With a plan, the plan's first (cheapest) instance choice,
reserved units, base and spot share are used, and its ``expected_nodes`` (the planner's cost
basis) when given, else its desired size adjusted for off-peak windows.  The reserved term and
payment option are the policy's.
"""

from __future__ import annotations

import datetime as dt
import logging
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from seedance.clock import utc_today
from seedance.estimate.components import HOURS_PER_MONTH, CostComponent, Rate, ResourceCost, lookup, priced
from seedance.estimate.context import EstimateContext
from seedance.estimate.plan_json import band_interruption_rate
from seedance.policy.cron import CronError, Window, average_size, hourly_sizes, parse_window_cron
from seedance.policy.model import Fleet, PaymentOption, ReservedMode, SlaTier, Term
from seedance.pricing.catalog import Catalog, InstanceOffer, Price, PricingError, UnknownPriceError

log = logging.getLogger(__name__)

KIND = "fleet"
SERVICE = "EC2"

#: the gp3 root volume each node's launch template gives it (``components/fleet.py``): billed by
#: EBS while the instance exists, on top of the instance price
ROOT_VOLUME_GIB = 200


@dataclass(frozen=True)
class FleetUsage:
    fleet: str
    instance_type: str
    nodes: float  # average nodes running over the month
    reserved_units: int
    reserved_term: Term
    reserved_payment: PaymentOption
    on_demand_base: int  # >= reserved_units
    spot_share_above_base: float  # of the nodes above the on-demand base
    # reserved units held on another term than reserved_term (priced at their own term's rate); the
    # rest of reserved_units is on reserved_term
    other_terms: tuple[tuple[Term, int], ...] = ()
    # share of paid spot hours lost to interruptions: spot is billed for useful hours / (1 - f)
    spot_lost_fraction: float = 0.0
    # the running nodes hour by hour, averaged in layers: nodes per hour on the reserved units
    # (mean of min(nodes, reserved)) and within the on-demand base (mean of min(nodes, base)); None:
    # the same size every hour, ``nodes`` (see :func:`profile_layers`)
    within_reserved: float | None = None
    within_base: float | None = None

    def per_instance(self, weight: int) -> FleetUsage:
        """The same month counted in instances of a type that serves ``weight`` units each (the policy
        and the plan count units, one required node each)."""
        if weight <= 1:
            return self
        return replace(self, nodes=self.nodes / weight, reserved_units=self.reserved_units // weight,
                       on_demand_base=math.ceil(self.on_demand_base / weight),
                       other_terms=tuple((t, n // weight) for t, n in self.other_terms),
                       within_reserved=None if self.within_reserved is None else self.within_reserved / weight,
                       within_base=None if self.within_base is None else self.within_base / weight)


def profile_layers(profile: Sequence[float], reserved_units: int, on_demand_base: int, weight: int = 1) -> tuple[float, float]:
    """(units per hour on reserved capacity, units per hour within the on-demand base), averaged over
    ``profile``, the running units hour by hour (whole instances of ``weight`` units): an hour below
    the reserved units leaves some idle, one above the base runs the rest on spot or on-demand, so
    the month is billed hour by hour, not at its average size. Reserved units count in whole
    instances held, the base in whole instances launched, as :meth:`FleetUsage.per_instance` counts them."""
    if not profile:
        return 0.0, 0.0
    reserved, base = layer_bounds(reserved_units, on_demand_base, weight)
    return (sum(min(x, reserved) for x in profile) / len(profile), sum(min(x, base) for x in profile) / len(profile))


def layer_bounds(reserved_units: int, on_demand_base: int, weight: int = 1) -> tuple[int, int]:
    """(reserved, base) in units as a group of ``weight``-unit instances runs them: the reserved units
    in whole instances held, the on-demand base in whole instances launched, never below them."""
    reserved = (reserved_units // weight) * weight
    return reserved, max(-(-on_demand_base // weight) * weight, reserved)


def _layers(usage: FleetUsage) -> tuple[float, float, float]:
    """(nodes on reserved units, on-demand nodes of the base, nodes above the base), per hour on average."""
    reserved = usage.reserved_units
    base = max(usage.on_demand_base, reserved)
    nodes = usage.nodes
    if usage.within_reserved is None or usage.within_base is None:
        in_reserved, in_base = min(nodes, reserved), min(nodes, base)
    else:
        in_reserved = min(usage.within_reserved, reserved, nodes)
        in_base = min(max(usage.within_base, in_reserved), base, nodes)
    return in_reserved, max(0.0, in_base - in_reserved), max(0.0, nodes - in_base)


def split_hours(usage: FleetUsage) -> tuple[float, float, float]:
    """(reserved, on-demand, spot) instance-hours of the month, spot as paid (useful / (1 - f))."""
    if usage.nodes < 0 or usage.reserved_units < 0 or not 0.0 <= usage.spot_share_above_base <= 1.0:
        raise ValueError(
            f"fleet {usage.fleet}: expected nodes >= 0, reserved_units >= 0 and spot share in [0, 1], "
            f"got {usage.nodes}, {usage.reserved_units}, {usage.spot_share_above_base}"
        )
    if not 0.0 <= usage.spot_lost_fraction < 1.0:
        raise ValueError(f"fleet {usage.fleet}: spot lost fraction must be in [0, 1), got {usage.spot_lost_fraction}")
    reserved = usage.reserved_units
    _, od_base, above = _layers(usage)
    spot = above * usage.spot_share_above_base
    ondemand = od_base + above - spot
    paid_spot = spot / (1 - usage.spot_lost_fraction)
    return HOURS_PER_MONTH * reserved, HOURS_PER_MONTH * ondemand, HOURS_PER_MONTH * paid_spot


def running_hours(usage: FleetUsage) -> float:
    """Instance-hours of the month instances exist: every node, on-demand, reserved or spot, and
    spot instances for the paid time interruptions lose (reserved units nothing runs on have none)."""
    _, ondemand, spot = split_hours(usage)
    return HOURS_PER_MONTH * _layers(usage)[0] + ondemand + spot


def root_volume_component(usage: FleetUsage, gp3: Rate, currency: str, gib: int = ROOT_VOLUME_GIB) -> CostComponent:
    """The nodes' root volumes: ``gib`` GiB of gp3 per instance while it exists (pure)."""
    return priced(f"Node root volumes (gp3, {gib} GiB each)", "GB-months", running_hours(usage) / HOURS_PER_MONTH * gib,
                  gp3, currency)


def fleet_month(usage: FleetUsage, offer: InstanceOffer, gp3: Rate) -> list[CostComponent]:
    """Everything one fleet month bills (pure): its instance hours and, while instances exist, their
    root volumes (``gp3``: the region's gp3 storage rate)."""
    out = fleet_components(usage, offer)
    if running_hours(usage) > 0:
        out.append(root_volume_component(usage, gp3, offer.currency))
    return out


def gp3_rate(catalog: Catalog, region: str) -> Rate:
    return lookup(catalog, region, "EBS", "gp3_storage")


def fleet_components(usage: FleetUsage, offer: InstanceOffer) -> list[CostComponent]:
    """The instance-hour components of one fleet month (pure)."""
    if offer.instance_type != usage.instance_type:
        raise ValueError(f"fleet {usage.fleet}: offer is for {offer.instance_type}, usage for {usage.instance_type}")
    cur = offer.currency
    itype = usage.instance_type
    reserved_h, ondemand_h, spot_h = split_hours(usage)
    out: list[CostComponent] = []
    by_term: list[tuple[Term, float]] = []
    rest = reserved_h
    for term, units in usage.other_terms:
        hours = min(rest, HOURS_PER_MONTH * units)
        if hours > 0:
            by_term.append((term, hours))
            rest -= hours
    if rest > 0:
        by_term.insert(0, (usage.reserved_term, rest))
    for term, hours in by_term:
        name = f"Reserved instances (Linux, {term.value} {usage.reserved_payment.value}, {itype})"
        ri = offer.reserved.get((term, usage.reserved_payment))
        if ri is None:
            out.append(
                CostComponent(
                    name, "hours", hours, None, None, cur, None,
                    unpriced_reason=f"the price data has no {term.value} standard {usage.reserved_payment.value} "
                    f"reserved price for {itype} in {offer.region}",
                )
            )
        else:
            out.append(_instance_component(name, hours, ri.value, cur, ri))
    if ondemand_h > 0:
        p = offer.ondemand
        out.append(_instance_component(f"Instance usage (Linux, on-demand, {itype})", ondemand_h, p.value, cur, p))
    if spot_h > 0:
        name = f"Instance usage (Linux, spot, {itype})"
        if offer.spot_avg is None:
            out.append(
                CostComponent(
                    name, "hours", spot_h, None, None, cur, None,
                    unpriced_reason=f"the price data has no spot price for {itype} in {offer.region}",
                )
            )
        else:
            out.append(_instance_component(name, spot_h, offer.spot_avg.value, cur, offer.spot_avg))
    return out


def _instance_component(name: str, hours: float, price: float, currency: str, p: Price) -> CostComponent:
    if p.currency != currency:
        raise PricingError(f"{name}: price in {p.currency}, offer in {currency}")
    return CostComponent(name, "hours", hours, price, hours * price, currency, p.source, price_ref=p.ref or None, price_date=p.date)


# ---------------------------------------------------------------------- from the policy / plan


def requirement_text(fleet: Fleet) -> str:
    if fleet.gpu is not None:
        mem = f" with >= {fleet.gpu.memory_gib} GiB each" if fleet.gpu.memory_gib else ""
        return f"{fleet.gpu.count} x {fleet.gpu.model.value}{mem}"
    if fleet.cpu is not None:
        return f">= {fleet.cpu.vcpu} vCPU and {fleet.cpu.memory_gib:g} GiB, no GPU"
    return "any type"


def average_nodes(fleet: Fleet, desired: float, weight: int = 1, *, managed: bool = False) -> tuple[float, list[str]]:
    """Average running nodes over a week: ``desired``, and each off-peak window's size while it runs.

    With ``weight`` > 1 (a type holding that many units per instance) every size is rounded up to
    whole instances, as the group runs them: the units those instances hold, which may exceed
    ``capacity.max`` by less than one instance (a weighted group overshoots its sizes so). A group
    the Cluster Autoscaler manages (``managed``) counts instances and runs no more units than
    ``capacity.max``: its sizes stop at ``floor(capacity.max / weight)`` instances
    (:func:`seedance.planner.planner.max_instances`).

    The windows are costed as they are deployed for a group nobody else sizes (two scheduled actions
    each, see ``components/fleet.py``): at a window's start the group goes to the window's size, at
    its end back to ``desired`` (a group a Cluster Autoscaler manages is left to it at the end, which
    no estimate can foresee); where windows overlap, the action that fired last holds.  The average
    never leaves [0, capacity.max].  A window whose cron is outside the weekly subset validation
    accepts (:mod:`seedance.policy.cron`) is left out, with a note.
    """
    windows, notes = _windows(fleet, weight, managed)
    nodes = average_size(_whole(fleet, desired, weight, managed), windows)
    return min(max(nodes, 0.0), _whole(fleet, fleet.capacity.max, weight, managed)), notes


def nodes_profile(fleet: Fleet, desired: float, weight: int = 1, *, managed: bool = False) -> list[float]:
    """The running units hour by hour over a week (Sunday 00:00 UTC first) that
    :func:`average_nodes` averages: ``desired``, each off-peak window's size while it runs, in whole
    instances of ``weight`` units, never above the most the group can run (see :func:`average_nodes`)."""
    windows, _ = _windows(fleet, weight, managed)
    top = _whole(fleet, fleet.capacity.max, weight, managed)
    return [min(max(x, 0.0), top) for x in hourly_sizes(_whole(fleet, desired, weight, managed), windows)]


def _windows(fleet: Fleet, weight: int, managed: bool = False) -> tuple[list[Window], list[str]]:
    notes: list[str] = []
    windows: list[Window] = []
    for w in fleet.off_peak:
        try:
            schedule = parse_window_cron(w.cron)
        except CronError as exc:
            notes.append(f"off-peak window {w.cron!r} is not a weekly schedule ({exc}); not included in the average")
            continue
        windows.append(Window(schedule, w.hours, _whole(fleet, w.desired, weight, managed)))
        notes.append(f"off-peak {w.cron!r}: {w.desired} nodes for {w.hours} h, {schedule.describe_days()} "
                     f"({len(schedule.days)} day(s)/week)")
    return windows, notes


def _whole(fleet: Fleet, units: float, weight: int, managed: bool) -> float:
    """``units`` rounded up to whole instances of ``weight`` units (1: unchanged), never more than the
    fleet's group can run (:func:`seedance.planner.planner.group_units`), as the planner counts them."""
    from seedance.planner.planner import group_units  # the planner imports this module

    return float(group_units(float(max(units, 0.0)), weight, max(fleet.capacity.max, 0), managed))


def held_units_on(fleet: Fleet, on: dt.date) -> int:
    """Units of the fleet's held commitments a plan decided on ``on`` counts (those running through
    the month it prices): the planner's own rule, so a plan and a plan-less estimate count the same units."""
    from seedance.planner.planner import active_held_units  # the planner imports this module

    return active_held_units(fleet, on)


def _other_terms(fleet: Fleet, on: dt.date) -> tuple[tuple[Term, int], ...]:
    """Held units counted on ``on`` (as :func:`held_units_on`) whose term is not the fleet's ``reserved.term``, by term."""
    from seedance.planner.planner import active_held_by_term  # the planner imports this module

    return tuple(sorted((t, n) for t, n in active_held_by_term(fleet, on).items() if t != fleet.reserved.term))


def usage_from_policy(fleet: Fleet, instance_type: str, on: dt.date, weight: int = 1, *,
                      managed: bool = False) -> FleetUsage:
    """The fleet month from the policy's explicit values, with the commitments held on ``on``
    (``weight``: units one instance of ``instance_type`` holds, run in whole instances; ``managed``:
    a Cluster Autoscaler manages the group, see :func:`average_nodes`). The reserved units and the
    on-demand base are the planner's for them: ``fixed`` units in whole instances (rounded down,
    never below those held), and the base those reserved units, within ``capacity.max``."""
    from seedance.planner.planner import fixed_reserved_units, on_demand_base_units  # the planner imports this module

    held = held_units_on(fleet, on)
    reserved = (fixed_reserved_units(fleet.reserved.units or 0, held, max(weight, 1))
                if fleet.reserved.mode == ReservedMode.FIXED else held)
    nodes, _ = average_nodes(fleet, fleet.capacity.desired, weight, managed=managed)
    base = on_demand_base_units(reserved, fleet.capacity.max, fleet.sla == SlaTier.GOLD)
    within_reserved, within_base = profile_layers(
        nodes_profile(fleet, fleet.capacity.desired, weight, managed=managed), reserved, base, weight)
    return FleetUsage(
        fleet=fleet.name,
        instance_type=instance_type,
        nodes=nodes,
        reserved_units=reserved,
        reserved_term=fleet.reserved.term,
        reserved_payment=fleet.reserved.payment,
        on_demand_base=base,
        spot_share_above_base=fleet.spot.max_share if fleet.spot is not None else 0.0,
        other_terms=_other_terms(fleet, on),
        within_reserved=within_reserved,
        within_base=within_base,
    )


def estimate_date(ctx: EstimateContext) -> dt.date:
    """The date a plan-less estimate counts held commitments on: the context's ``as_of`` when it
    carries one, else today in UTC (as ``seedance plan`` without ``--as-of``)."""
    as_of = getattr(ctx, "as_of", None)
    return as_of if isinstance(as_of, dt.date) else utc_today()


def resources(ctx: EstimateContext) -> list[ResourceCost]:
    out = []
    for fleet in ctx.policy.fleets:
        out.append(fleet_resource(ctx, fleet))
    return out


def fleet_resource(ctx: EstimateContext, fleet: Fleet) -> ResourceCost:
    tags = ctx.tags({"seedance:fleet": fleet.name, "data-class": fleet.data_class.value, "seedance:sla": fleet.sla.value})
    notes: list[str] = []
    spot_rate: float | None = None  # the interruption rate spot is priced at (the plan's, or the planner's)
    if ctx.plan is not None:
        try:
            fp = ctx.plan.fleet(fleet.name)
        except KeyError:
            raise PricingError(f"the plan has no fleet {fleet.name!r} (plan fleets: {', '.join(f.name for f in ctx.plan.fleets)})") from None
        if not fp.instance_types:
            return _no_type(ctx, fleet, tags, f"the plan chose no instance type for {fleet.name}")
        itype = fp.instance_types[0].instance_type
        pools = _group_pools(fp, ctx.cluster)
        # the plan counts units (one required node each); an instance of weight w serves w of them
        w = max(1, int(fp.instance_types[0].weight))
        expected = getattr(fp, "expected_nodes", None)  # the planner's cost basis, when it gives one
        layers: tuple[float | None, float | None] = (None, None)
        if not ctx.cluster:
            # nothing sizes the group to demand: it runs its desired size and off-peak windows
            nodes, notes = average_nodes(fleet, fp.desired, w, managed=False)
            sized = f"its desired size ({fp.desired:g} units)" + (", with its off-peak windows" if fleet.off_peak else "")
            notes.insert(0, "the stack names no cluster, so no Cluster Autoscaler sizes the group to demand: it runs "
                         f"{sized}, {nodes:g} units on average"
                         + (f", not the {expected:g} the plan expects" if expected is not None and abs(nodes - expected) > 1e-9 else ""))
        elif expected is not None:
            nodes, notes = float(expected), [f"{expected:g} units expected on average (plan)"]
            # the plan's demand hour by hour, in layers (older plans: none, the average every hour)
            layers = (getattr(fp, "expected_within_reserved", None), getattr(fp, "expected_within_base", None))
        else:
            nodes, notes = average_nodes(fleet, fp.desired, w, managed=True)
        if layers == (None, None) and (not ctx.cluster or expected is None):
            layers = profile_layers(nodes_profile(fleet, fp.desired, w, managed=ctx.cluster), fp.reserved_units,
                                    fp.on_demand_base, w)
        if fp.spot_share_above_base > 0:
            spot_rate = fp.interruption_rate_per_hour
            banded = band_interruption_rate(fp, ctx.catalog, ctx.region) if spot_rate is None else None
            if banded is not None:  # a hand-written plan: priced as `seedance plan` would have recorded it
                spot_rate = banded[0]
                notes.append(f"the plan gives no interruption_rate_per_hour: spot priced at {spot_rate:.6g} per hour, "
                             f"the Spot Advisor band of its most interrupted pool ({banded[1]}), as `seedance plan` records")
            elif spot_rate is None:
                notes.append("the plan gives no interruption_rate_per_hour and none of its types has a Spot Advisor band "
                             f"in {ctx.region}: spot priced without interruption losses")
        # held units of another term: as the plan priced them; a plan written before it recorded them
        # counts the policy's held list when that is what the plan counted as held
        on = dt.date.fromisoformat(ctx.plan.as_of) if ctx.plan.as_of else estimate_date(ctx)
        recorded = getattr(fp, "held_other_terms", None)
        if recorded is not None:
            others = tuple(sorted((Term(t), n) for t, n in recorded))
        else:
            held = fp.reserved_units - sum(n for _, n in fp.new_purchases)
            others = _other_terms(fleet, on) if held == held_units_on(fleet, on) else ()
        usage = FleetUsage(
            fleet=fleet.name,
            instance_type=itype,
            nodes=nodes,
            reserved_units=fp.reserved_units,
            reserved_term=fleet.reserved.term,
            reserved_payment=fleet.reserved.payment,
            on_demand_base=fp.on_demand_base,
            spot_share_above_base=fp.spot_share_above_base,
            other_terms=others,
            spot_lost_fraction=spot_lost_fraction(fleet, spot_rate),
            within_reserved=layers[0],
            within_base=layers[1],
        ).per_instance(w)
        notes.insert(0, f"mix from the plan: {itype}" + (f" (weight {w}: {w} units per instance)" if w > 1 else ""))
    else:
        named = list(dict.fromkeys([*fleet.instance_types.preferred, *fleet.instance_types.allowed]))
        # a type the catalog does not price in the region is an error naming the closest
        unfit = {t: why for t in named if (why := _disqualified(ctx.catalog.instance(ctx.region, t), fleet))}
        skipped = [f"{t} ({why})" for t, why in unfit.items()]
        if skipped:
            notes.append(f"skipped, not meeting {requirement_text(fleet)}: {'; '.join(skipped)}")
        chosen = _planner_first(ctx, fleet)
        if chosen is None:
            what = "allowed instance type" if fleet.instance_types.allowed else f"instance type priced in {ctx.region}"
            return _no_type(ctx, fleet, tags, f"no {what} has {requirement_text(fleet)}"
                            + (f": {'; '.join(skipped)}" if skipped and fleet.instance_types.allowed else ""))
        first, share, why_spot, spot_rate, pools = chosen
        itype, w = first.offer.instance_type, first.weight
        notes.append(f"instance type: the planner's first ({itype}: {first.rationale})")
        on = estimate_date(ctx)
        usage = usage_from_policy(fleet, itype, on, w, managed=ctx.cluster)
        if usage.spot_share_above_base > 0 and share == 0:
            notes.append(f"no spot: the planner plans none on {itype} ({why_spot})")
        usage = replace(usage, spot_share_above_base=share if usage.spot_share_above_base > 0 else 0.0)
        usage = usage.per_instance(w)
        if w > 1:
            notes.append(f"{itype} serves {w} units per instance, run in whole instances")
        notes.extend(average_nodes(fleet, fleet.capacity.desired)[1])
        all_held, active = sum(c.units for c in fleet.reserved.held), held_units_on(fleet, on)
        if all_held != active:
            from seedance.planner.planner import month_end  # the planner imports this module

            notes.append(f"{active} of {all_held} held reserved unit(s) counted: those running through the month "
                         f"priced, {on.isoformat()} to {month_end(on).isoformat()} (the others end within it, "
                         "have ended or start after it)")
    offer = ctx.catalog.instance(ctx.region, usage.instance_type)  # unknown type given by the user: an error
    if ctx.plan is None and usage.spot_share_above_base > 0 and spot_rate is not None:
        # the planner's rate: the most interrupted spot pool the group lists
        usage = replace(usage, spot_lost_fraction=spot_lost_fraction(fleet, spot_rate))
    if usage.spot_lost_fraction > 0 and split_hours(usage)[2] > 0:
        notes.append(f"spot hours billed as paid: {usage.spot_lost_fraction:.1%} of them are lost to interruptions "
                     f"(useful hours / {1 - usage.spot_lost_fraction:.4f}, as the planner rates spot)")
    if (dearer := dearer_spot_pool(ctx.catalog, ctx.region, pools, usage)) is not None:
        notes.append(dearer)
    return ResourceCost(KIND, fleet.name, SERVICE, fleet_month(usage, offer, gp3_rate(ctx.catalog, ctx.region)),
                        fleet=fleet.name, tags=tags, notes=notes, instance_type=usage.instance_type)


#: the largest share of paid spot time billed as lost; a fleet that would lose more plans no spot at all
MAX_SPOT_LOST_FRACTION = 0.99


def spot_lost_fraction(fleet: Fleet, rate_per_hour: float | None) -> float:
    """Share of the fleet's paid spot hours lost to interruptions at ``rate_per_hour`` (0 without a
    rate): the planner's own :func:`~seedance.planner.planner.lost_fraction_fn`, so a plan and its
    estimate bill spot alike."""
    from seedance.planner.planner import lost_fraction_fn  # the planner imports this module

    if rate_per_hour is None or rate_per_hour <= 0:
        return 0.0
    return min(MAX_SPOT_LOST_FRACTION, lost_fraction_fn(fleet)(rate_per_hour))


def _disqualified(offer: InstanceOffer, fleet: Fleet) -> str | None:
    """Why a type the policy names cannot serve the fleet's units, as the planner judges it (None: it can)."""
    from seedance.planner.instances import unit_weight  # the planner imports this module
    from seedance.planner.planner import offer_view, requirement

    weight, why = unit_weight(offer_view(offer), requirement(fleet))
    return None if weight else why


def _planner_first(ctx: EstimateContext, fleet: Fleet) -> tuple[Any, float, str, float | None, list[tuple[str, int]]] | None:
    """The planner's first type for the fleet (a ``RankedType``), its spot share, why, the
    interruption rate it prices spot at (the group's most interrupted spot pool) and the (type, weight)
    pools the group lists, decided as
    ``seedance plan`` decides them without a demand history (None when no type qualifies): the
    preferred types first, within the allowed ones, else the best of the spot ranking, the cheapest
    on-demand and the cheapest reserved type; spot only where that type's interruption band is within
    the tolerance and spot beats on-demand, and none for training without a checkpoint block."""
    from seedance.planner.planner import FleetInputs, offer_view, plan_fleet  # the planner imports this module

    offers = ctx.catalog.instances(ctx.region)
    key = (fleet.reserved.term, fleet.reserved.payment)
    decision = plan_fleet(FleetInputs(
        fleet=fleet, offers=[offer_view(o) for o in offers],
        reserved_hourly={o.instance_type: o.reserved[key].value for o in offers if key in o.reserved},
        region=ctx.region))
    if decision.primary is None:
        return None
    return (decision.primary, decision.plan.spot_share_above_base, decision.plan.rationale.get("spot", ""),
            decision.plan.interruption_rate_per_hour,
            _group_pools(decision.plan, ctx.cluster))


def _group_pools(fp: Any, cluster: bool) -> list[tuple[str, int]]:
    """The (type, weight) spot pools the fleet's group lists: every type of the plan, or in a group the
    Cluster Autoscaler manages (a stack with a cluster) those of its first type's weight."""
    return [(c.instance_type, max(1, int(c.weight))) for c in fp.group_types(autoscaler_managed=cluster)]


def dearer_spot_pool(catalog: Catalog, region: str, pools: list[tuple[str, int]], usage: FleetUsage) -> str | None:
    """A note when the group lists a spot pool dearer per unit than the type its spot hours are priced
    at (the first): what those hours would cost more, all run there. An upper bound on that error, as
    price-capacity-optimized picks among the pools by spare capacity and price; None without one."""
    spot_h = split_hours(usage)[2]
    if spot_h <= 0:
        return None
    per_unit: dict[str, float] = {}
    for itype, weight in pools:
        try:
            offer = catalog.instance(region, itype)
        except UnknownPriceError:
            continue
        if offer.spot_avg is not None:
            per_unit[itype] = offer.spot_avg.value / weight
    priced = per_unit.get(usage.instance_type)
    if priced is None:
        return None
    dearest = max(per_unit, key=lambda t: (per_unit[t], t))
    w = dict(pools).get(usage.instance_type, 1)
    extra = spot_h * w * (per_unit[dearest] - priced)
    if extra < 0.005:
        return None
    cur = catalog.currency(region)
    return (f"spot hours priced at {usage.instance_type}'s spot price ({priced:.4g} {cur} an hour per unit); the group "
            f"also lists dearer pools, up to {dearest} ({per_unit[dearest]:.4g} per unit): all its spot hours there would "
            f"cost {extra:,.2f} {cur} more a month (an upper bound: price-capacity-optimized picks among the pools by "
            "spare capacity and price)")


def _no_type(ctx: EstimateContext, fleet: Fleet, tags: dict[str, str], reason: str) -> ResourceCost:
    hours = HOURS_PER_MONTH * float(fleet.capacity.desired)
    comp = CostComponent("Instance usage (Linux, no matching type)", "hours", hours, None, None, ctx.currency, None, unpriced_reason=reason)
    return ResourceCost(KIND, fleet.name, SERVICE, [comp], fleet=fleet.name, tags=tags)
