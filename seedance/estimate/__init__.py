"""Monthly cost estimates: one module per resource kind, each a pure function of usage and prices."""

from seedance.estimate.components import DAYS_PER_MONTH, HOURS_PER_MONTH, CostComponent, ResourceCost
from seedance.estimate.estimate import ESTIMATORS, Estimate, estimate_policy
from seedance.estimate.fleet import FleetUsage, fleet_components

__all__ = [
    "DAYS_PER_MONTH",
    "ESTIMATORS",
    "HOURS_PER_MONTH",
    "CostComponent",
    "Estimate",
    "FleetUsage",
    "ResourceCost",
    "estimate_policy",
    "fleet_components",
]
