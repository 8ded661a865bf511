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

    def tags(self, extra: dict[str, str] | None = None) -> dict[str, str]:
        out = dict(self.base_tags)
        out.update(extra or {})
        return out


def base_tags(policy: CostPolicy) -> dict[str, str]:
    """The tags the components put on every taggable resource (see the brief's tag list)."""
    tags = dict(policy.metadata.tags)
    tags.setdefault("environment", policy.metadata.environment.value)
    tags.setdefault("owner", policy.metadata.owner)
    tags["seedance:stack"] = policy.metadata.name
    return tags
