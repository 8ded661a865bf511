"""The Plan: every decision the planner made for a policy, JSON-serialisable, with reasons."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


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
    reserved_units: int  # total units reserved (held + new purchases)
    new_purchases: list[tuple[str, int]]  # (term "1y"/"3y", units) to buy now
    on_demand_base: int  # ASG OnDemandBaseCapacity (>= reserved_units; gold >= 1)
    spot_share_above_base: float  # 0..maxShare
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

    @property
    def on_demand_percentage_above_base(self) -> int:
        """The ASG's OnDemandPercentageAboveBaseCapacity."""
        return round(100 * (1 - self.spot_share_above_base))


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
    as_of: str | None = None  # decision point (ISO date); demand history after it is never read
    partial: bool = False  # some fleet cost component has no sourced price
    unpriced: list[str] = field(default_factory=list)  # why, one line each

    def fleet(self, name: str) -> FleetPlan:
        for f in self.fleets:
            if f.name == name:
                return f
        raise KeyError(name)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)
