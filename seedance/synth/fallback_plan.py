"""A Plan from the policy's explicit values only — used while (or where) the planner is unavailable.

Per fleet: fixed reserved units (or the units held, or 0); on-demand base = reserved units, at
least 1 for gold; spot share = ``spot.maxShare`` (0 without spot); instance types = preferred then
allowed, else the catalog's cheapest on-demand type with the fleet's GPU model and count (weight
1 each); capacity as declared; a fixed checkpoint interval, or none for ``auto``.
No cost figures are computed (they stay 0 and the rationale says so).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from seedance.planner.plan import FleetPlan, InstanceChoice, Plan
from seedance.policy.loader import LoadedPolicy
from seedance.policy.model import Fleet, ReservedMode, SlaTier

if TYPE_CHECKING:  # pragma: no cover
    from seedance.pricing.catalog import Catalog

log = logging.getLogger(__name__)


class FallbackPlanError(ValueError):
    pass


def _types(fleet: Fleet, region: str, catalog: Catalog | None) -> list[InstanceChoice]:
    named = list(dict.fromkeys([*fleet.instance_types.preferred, *fleet.instance_types.allowed]))
    offers = {}
    if catalog is not None and catalog.has_region(region):
        offers = {o.instance_type: o for o in catalog.instances(region)}
    if not named and fleet.gpu is not None and offers:
        matching = [o for o in offers.values() if o.gpu_model == fleet.gpu.model and o.gpus == fleet.gpu.count]
        if fleet.gpu.memory_gib:
            matching = [o for o in matching if o.gpu_memory_gib_total / max(o.gpus, 1) >= fleet.gpu.memory_gib]
        named = [o.instance_type for o in sorted(matching, key=lambda o: o.ondemand.value)[:1]]
    if not named:
        raise FallbackPlanError(
            f"fleets[{fleet.name}]: no instance type: list instanceTypes.preferred/allowed or use a GPU model "
            f"the price catalog sells in {region}"
        )
    out = []
    for t in named:
        offer = offers.get(t)
        out.append(
            InstanceChoice(
                instance_type=t,
                weight=1,
                hourly_ondemand=offer.ondemand.value if offer else 0.0,
                hourly_spot=offer.spot_avg.value if offer and offer.spot_avg else None,
                rationale="fallback plan: named in the policy" if fleet.instance_types.preferred or fleet.instance_types.allowed
                else "fallback plan: cheapest on-demand type with the fleet's GPUs",
            )
        )
    return out


def fallback_fleet_plan(fleet: Fleet, region: str, catalog: Catalog | None) -> FleetPlan:
    r = fleet.reserved
    if r.mode is ReservedMode.FIXED:
        reserved = r.units or 0
    elif r.mode is ReservedMode.NONE:
        reserved = 0
    else:
        reserved = sum(c.units for c in r.held)
    base = max(reserved, 1 if fleet.sla is SlaTier.GOLD else 0)
    base = min(base, fleet.capacity.max)
    share = fleet.spot.max_share if fleet.spot else 0.0
    strategy = fleet.spot.allocation_strategy.value if fleet.spot else "price-capacity-optimized"
    interval = None
    if fleet.checkpoint is not None and fleet.checkpoint.interval != "auto":
        interval = float(fleet.checkpoint.interval)
    return FleetPlan(
        name=fleet.name,
        instance_types=_types(fleet, region, catalog),
        reserved_units=reserved,
        new_purchases=[],
        on_demand_base=base,
        spot_share_above_base=share,
        allocation_strategy=strategy,
        checkpoint_interval_s=interval,
        checkpoint_overhead=None,
        min_size=fleet.capacity.min,
        max_size=fleet.capacity.max,
        desired=fleet.capacity.desired,
        rationale={"plan": "fallback: the policy's explicit values, no optimisation"},
    )


def fallback_plan(loaded: LoadedPolicy, catalog: Catalog | None = None) -> Plan:
    p = loaded.policy
    region = p.cloud.region
    currency = catalog.currency(region) if catalog is not None and catalog.has_region(region) else p.budget.currency.value
    return Plan(
        policy=p.metadata.name,
        environment=p.metadata.environment.value,
        region=region,
        currency=currency,
        fleets=[fallback_fleet_plan(f, region, catalog) for f in p.fleets],
        monthly_cost=0.0,
        monthly_cost_all_ondemand=0.0,
        savings=0.0,
    )
