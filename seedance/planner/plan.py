"""The Plan: every decision the planner made for a policy, JSON-serialisable, with reasons."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any


def on_demand_percentage(spot_share: float) -> int:
    """The ASG's OnDemandPercentageAboveBaseCapacity for a spot share: rounded up to a whole percent,
    so the deployed spot percentage (100 minus it) never exceeds the share (0.337 -> 67, 33% spot)."""
    return min(100, max(0, math.ceil(100 * (1 - spot_share) - 1e-9)))


@dataclass(frozen=True)
class InstanceChoice:
    instance_type: str
    weight: int  # weighted capacity relative to the fleet's unit (1 = one required node)
    hourly_ondemand: float
    hourly_spot: float | None
    rationale: str


@dataclass(frozen=True)
class FleetPlan:
    name: str
    instance_types: list[InstanceChoice]  # ranked, cheapest effective first
    # total units reserved (held + new purchases).  Units throughout, never instances: an instance
    # type of weight w holds w units, and new purchases are whole instances (multiples of w)
    reserved_units: int
    new_purchases: list[tuple[str, int]]  # (term "1y"/"3y", units) to buy now
    # ASG OnDemandBaseCapacity, in units: >= min(reserved_units, max_size) (held units above the
    # fleet's maximum are billed idle, not deployed); gold >= 1 unless the fleet is disabled
    on_demand_base: int
    spot_share_above_base: float  # 0..maxShare, a whole percent (what the ASG deploys)
    allocation_strategy: str
    checkpoint_interval_s: float | None
    checkpoint_overhead: float | None
    min_size: int
    max_size: int
    desired: int
    rationale: dict[str, str] = field(default_factory=dict)
    # additions to the contract (defaults keep older readers working)
    expected_nodes: float | None = None  # average units expected over the next month (the cost basis)
    monthly_cost: float | None = None  # fleet compute, priced components only
    monthly_cost_all_ondemand: float | None = None
    cost_components: list[dict[str, Any]] = field(default_factory=list)  # estimator components (to_json form)
    interruption_rate_per_hour: float | None = None  # of the first instance type (spot fleets)
    # held units whose term is not the fleet's reserved.term, priced at their own term's rate:
    # (term, units); [] when the held units came from `plan --held` (no term: the fleet's is used);
    # None in plans written before this field (a reader then works it out from the policy)
    held_other_terms: list[tuple[str, int]] | None = None
    # the expected demand hour by hour, in layers (units per hour on average): on the reserved units
    # (mean of min(demand, reserved)) and within the on-demand base (mean of min(demand, base)), so
    # hours below the reserved units bill them idle and hours above the base run spot or on-demand;
    # None in plans written before these fields (the average is then taken to run every hour)
    expected_within_reserved: float | None = None
    expected_within_base: float | None = None
    @property
    def partial(self) -> bool:
        """Some cost component has no sourced price (counted as nothing): monthly_cost is a lower bound,
        and what the fleet saves against monthly_cost_all_ondemand an upper bound."""
        return bool(unpriced_components(self))

    @property
    def node_weight(self) -> int:
        """Units one instance holds in a group that counts instances, not units: a group the Cluster
        Autoscaler manages lists only the plan's types of its first type's weight (the type the plan
        reserves and runs its base on), without weights (:func:`components.fleet.group_shape`), so
        each of its instances holds this many units. The planner puts a type of the smallest weight
        first unless the policy prefers a heavier one."""
        return self.instance_types[0].weight if self.instance_types else 1

    def group_types(self, autoscaler_managed: bool) -> list[InstanceChoice]:
        """The types the fleet's group lists, in the plan's order: every one, or in a group the Cluster
        Autoscaler manages only those of :attr:`node_weight`."""
        if not autoscaler_managed:
            return list(self.instance_types)
        return [c for c in self.instance_types if c.weight == self.node_weight]

    @property
    def on_demand_percentage_above_base(self) -> int:
        """The ASG's OnDemandPercentageAboveBaseCapacity (see :func:`on_demand_percentage`)."""
        return on_demand_percentage(self.spot_share_above_base)


@dataclass(frozen=True)
class Plan:
    policy: str
    environment: str
    region: str
    currency: str
    fleets: list[FleetPlan]
    monthly_cost: float
    monthly_cost_all_ondemand: float
    savings: float
    # additions to the contract
    # decision point (ISO date, 00:00 UTC): demand history from it on is never read.  The planner
    # always records it (default: the day it ran, UTC); None only in plans written by older versions
    as_of: str | None = None
    partial: bool = False  # some fleet cost component has no sourced price
    unpriced: list[str] = field(default_factory=list)  # why, one line each
    # whether it was planned for a stack whose fleets join a cluster (a Cluster Autoscaler sizes the
    # groups to demand) or for one whose groups run their desired size; older plans: a cluster
    cluster: bool = True
    # the units given with `plan --held FLEET=UNITS`, which replace those fleets' reserved.held (what
    # `estimate --plan` then checks reserved_units against); None: every fleet holds its policy's
    held: dict[str, int] | None = None

    def fleet(self, name: str) -> FleetPlan:
        for f in self.fleets:
            if f.name == name:
                return f
        raise KeyError(name)

    @property
    def savings_upper_bound(self) -> bool:
        """Some fleet's cost is partial: monthly_cost is a lower bound, so ``savings`` is the most the plan
        saves (it prices the unpriced components at nothing), not a figure of savings."""
        return self.partial

    def to_json(self) -> dict[str, Any]:
        """The plan as JSON, with the derived bounds (a fleet's ``partial``, ``savings_upper_bound``)
        written for readers of the file."""
        out = asdict(self)
        for fleet, doc in zip(self.fleets, out["fleets"]):
            doc["partial"] = fleet.partial
        out["savings_upper_bound"] = self.savings_upper_bound
        return out


def unpriced_components(fleet: FleetPlan) -> list[str]:
    """The names of a fleet's cost components that have no sourced price (not in its monthly_cost)."""
    return [str(c.get("name", "?")) for c in fleet.cost_components if isinstance(c, dict) and c.get("unpriced_reason")]
