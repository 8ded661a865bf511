"""What every resource estimator receives: the policy, the optional plan, the catalog, the tags."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from seedance.planner.plan import Plan
from seedance.policy.model import CostPolicy
from seedance.pricing.catalog import Catalog


@dataclass(frozen=True)
class EstimateContext:
    policy: CostPolicy
    plan: Plan | None
    catalog: Catalog
    region: str
    currency: str
    base_tags: dict[str, str]  # cost-allocation tags every taggable resource carries
    as_of: dt.date | None = None  # the day held commitments are counted on (None: today)
    # whether the stack's fleets join a cluster (seedance:clusterName): only then does a Cluster
    # Autoscaler size the groups to demand, and only then are there StorageClasses, their backups
    # and an EKS control plane to pay for; without one every group runs its desired size
    cluster: bool = True
    # services of network.existingEndpoints that AWS says the VPC has no serving endpoint for (service ->
    # why, seedance.gate.facts.endpoint_unserved): their traffic is priced through the NAT
    unserved_endpoints: tuple[tuple[str, str], ...] = ()

    def tags(self, extra: dict[str, str] | None = None) -> dict[str, str]:
        out = dict(self.base_tags)
        out.update(extra or {})
        return out


def base_tags(policy: CostPolicy, stack: str | None = None) -> dict[str, str]:
    """The tags the components put on every taggable resource (``components.common.TagSet``):
    ``seedance:stack`` is the Pulumi stack's name, so it is only known when ``stack`` is given."""
    meta = policy.metadata
    tags = dict(meta.tags)
    tags.update({
        "environment": meta.environment.value,
        "owner": meta.owner,
        "team": meta.tags.get("team", "unassigned"),
        "cost-center": meta.tags.get("cost-center", "unassigned"),
        "controller": meta.tags.get("controller", meta.owner),
        "seedance:policy": meta.name,
    })
    if stack:
        tags["seedance:stack"] = stack
    return tags
