"""The monthly estimate of a policy (optionally under a plan): components, totals, partial flags."""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from seedance.estimate import backup, budgets, ebs, eks, fleet, kms, logs, network, s3
from seedance.estimate.components import ResourceCost
from seedance.estimate.context import EstimateContext, base_tags
from seedance.estimate.plan_json import check_plan
from seedance.planner.plan import Plan
from seedance.policy.loader import LoadedPolicy
from seedance.policy.model import CostPolicy
from seedance.pricing.catalog import Catalog, PricingError

log = logging.getLogger(__name__)

Estimator = Callable[[EstimateContext], list[ResourceCost]]

#: The resource estimators, in report order (explicit and greppable; no import side effects).
ESTIMATORS: list[tuple[str, Estimator]] = [
    ("fleet", fleet.resources),
    ("ebs", ebs.resources),
    ("backup", backup.resources),
    ("s3", s3.resources),
    ("network", network.resources),
    ("logs", logs.resources),
    ("budgets", budgets.resources),
    ("kms", kms.resources),
    ("eks", eks.resources),
]

UNTAGGED = "(untagged)"

#: How much of a resource's, fleet's or service's cost is known (``Estimate.fleet_pricing`` and friends).
#: ``usage``: every component it has depends on usage the policy does not give, so its figure (0) is
#: not a cost.
PRICED, PARTIAL, UNPRICED, USAGE = "priced", "partial", "unpriced", "usage"


def pricing_status(components: list) -> str:
    """``unpriced`` when some component has no sourced price and none has a cost, ``partial`` when some
    have a cost and some no price; ``usage`` when every component is priced but none has a cost, some
    depending on usage the policy does not give; else ``priced`` (a usage-dependent component beside
    ones with a cost leaves it ``priced``: the reports list it on its own)."""
    if any(c.unpriced for c in components):
        return PARTIAL if any(c.monthly_cost is not None for c in components) else UNPRICED
    if any(c.usage_note is not None and c.monthly_cost is None for c in components) and \
            all(c.monthly_cost is None for c in components):
        return USAGE
    return PRICED


@dataclass(frozen=True)
class Estimate:
    policy: str
    environment: str
    region: str
    currency: str
    basis: str  # "policy" | "plan"
    resources: list[ResourceCost]
    total: float  # sum of the priced components
    partial: bool  # some component has no sourced price
    by_fleet: dict[str, float]
    by_service: dict[str, float]
    by_tag: dict[str, dict[str, float]]
    budget_amount: float | None = None
    budget_currency: str | None = None
    unpriced: list[dict[str, str]] = field(default_factory=list)  # resource, component, reason
    usage_dependent: list[dict[str, str]] = field(default_factory=list)  # resource, component, note
    # how much of each fleet's, service's and tag value's cost is known: "priced", "partial" (some components
    # unpriced: the figure is a lower bound), "unpriced" (nothing priced: the figure is not a cost) or
    # "usage" (every component depends on usage the policy does not give: the figure is not a cost either)
    fleet_pricing: dict[str, str] = field(default_factory=dict)
    service_pricing: dict[str, str] = field(default_factory=dict)
    tag_pricing: dict[str, dict[str, str]] = field(default_factory=dict)  # tag key -> value -> status

    def fleet_status(self, name: str) -> str:
        return self.fleet_pricing.get(name, PRICED)

    def service_status(self, name: str) -> str:
        return self.service_pricing.get(name, PRICED)

    def tag_status(self, key: str, value: str) -> str:
        return self.tag_pricing.get(key, {}).get(value, PRICED)

    def notes(self) -> list[tuple[str, str]]:
        """What the reports say beside the figures, as (where, note): each resource's notes (the
        planner's mix, assumptions, what is not in the total), then the notes of its priced components
        ("resource: component"); an unpriced or usage-dependent component is listed with its reason."""
        out: list[tuple[str, str]] = []
        for r in self.resources:
            out += [(r.name, n) for n in r.notes]
            out += [(f"{r.name}: {c.name}", c.usage_note) for c in r.components
                    if c.usage_note and c.monthly_cost is not None]
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "apiVersion": "seedance.io/v1",
            "kind": "Estimate",
            "policy": self.policy,
            "environment": self.environment,
            "region": self.region,
            "currency": self.currency,
            "basis": self.basis,
            "monthly_total": round(self.total, 2),
            "partial": self.partial,
            "unpriced": list(self.unpriced),
            "usage_dependent": list(self.usage_dependent),
            "budget": None if self.budget_amount is None else {"monthly_amount": self.budget_amount, "currency": self.budget_currency},
            "by_fleet": {k: round(v, 2) for k, v in self.by_fleet.items()},
            "by_service": {k: round(v, 2) for k, v in self.by_service.items()},
            "by_tag": {k: {v: round(c, 2) for v, c in vals.items()} for k, vals in self.by_tag.items()},
            # alongside by_fleet / by_service (whose numbers stay numbers): whether each is fully priced
            "by_fleet_pricing": {k: self.fleet_status(k) for k in self.by_fleet},
            "by_service_pricing": {k: self.service_status(k) for k in self.by_service},
            "by_tag_pricing": {k: {v: self.tag_status(k, v) for v in vals} for k, vals in self.by_tag.items()},
            "resources": [{**r.to_json(), "pricing": pricing_status(r.components)} for r in self.resources],
        }


def estimate_policy(loaded: LoadedPolicy | CostPolicy, catalog: Catalog, plan: Plan | None = None, *,
                    as_of: dt.date | None = None, stack: str | None = None, cluster: bool = True,
                    unserved_endpoints: Mapping[str, str] | None = None) -> Estimate:
    """Estimate the monthly cost of ``loaded``'s policy with ``catalog``'s prices (pure apart from logging).

    ``as_of``: the day a plan-less estimate counts the policy's held commitments on (default today;
    a plan already carries what was held when it was made). ``stack``: the Pulumi stack's name, the
    value of the ``seedance:stack`` cost-allocation tag (left out when not given). ``cluster``: whether
    the stack's fleets join a cluster (its ``seedance:clusterName``); without one nothing sizes the
    groups to demand, so each runs its desired size, and there are no StorageClass volumes, backups
    of them or EKS control plane. ``unserved_endpoints``: services of network.existingEndpoints that AWS
    says the VPC has no serving endpoint for (service -> why; the gate passes what ``--lookup`` read):
    their traffic is priced through the NAT, as it goes without the endpoint (the stack creates none)."""
    policy = loaded.policy if isinstance(loaded, LoadedPolicy) else loaded
    region = policy.cloud.region
    currency = catalog.currency(region)  # UnknownRegionError with suggestions
    if plan is not None:
        if plan.region != region:
            raise PricingError(f"the plan is for {plan.region}, the policy for {region}")
        if plan.currency and plan.currency != currency:
            raise PricingError(f"the plan is in {plan.currency}, the {region} prices in {currency}; currencies are never mixed")
        check_plan(plan, policy, catalog, region, as_of)  # the same policy, its fleets, counts within capacity, types that fit
    ctx = EstimateContext(policy, plan, catalog, region, currency, base_tags(policy, stack), as_of, cluster,
                          tuple(sorted((unserved_endpoints or {}).items())))
    resources: list[ResourceCost] = []
    for _, estimator in ESTIMATORS:
        resources.extend(estimator(ctx))
    return summarise(policy, ctx, resources)


def summarise(policy: CostPolicy, ctx: EstimateContext, resources: list[ResourceCost]) -> Estimate:
    by_fleet: dict[str, float] = {f.name: 0.0 for f in policy.fleets}
    by_service: dict[str, float] = {}
    tag_keys = sorted({k for r in resources for k in r.tags})
    by_tag: dict[str, dict[str, float]] = {k: {} for k in tag_keys}
    unpriced: list[dict[str, str]] = []
    usage_dep: list[dict[str, str]] = []
    fleet_components: dict[str, list] = {}
    service_components: dict[str, list] = {}
    tag_components: dict[tuple[str, str], list] = {}
    total = 0.0
    for r in resources:
        cost = 0.0
        for c in r.components:
            if c.currency != ctx.currency:
                raise PricingError(f"{r.name}: {c.name} is in {c.currency}, the estimate in {ctx.currency}")
            if c.monthly_cost is not None:
                cost += c.monthly_cost
            if c.unpriced_reason is not None:
                unpriced.append({"resource": r.name, "component": c.name, "reason": c.unpriced_reason})
            elif c.usage_note is not None and c.monthly_cost is None:
                usage_dep.append({"resource": r.name, "component": c.name, "note": c.usage_note})
        total += cost
        if r.fleet is not None:
            by_fleet[r.fleet] = by_fleet.get(r.fleet, 0.0) + cost
            fleet_components.setdefault(r.fleet, []).extend(r.components)
        by_service[r.service] = by_service.get(r.service, 0.0) + cost
        service_components.setdefault(r.service, []).extend(r.components)
        for k in tag_keys:
            v = r.tags.get(k, UNTAGGED)
            by_tag[k][v] = by_tag[k].get(v, 0.0) + cost
            tag_components.setdefault((k, v), []).extend(r.components)
    return Estimate(
        policy=policy.metadata.name,
        environment=policy.metadata.environment.value,
        region=ctx.region,
        currency=ctx.currency,
        basis="plan" if ctx.plan is not None else "policy",
        resources=resources,
        total=total,
        partial=bool(unpriced),
        by_fleet=by_fleet,
        by_service=dict(sorted(by_service.items())),
        by_tag={k: dict(sorted(v.items())) for k, v in by_tag.items()},
        budget_amount=policy.budget.monthly_amount,
        budget_currency=policy.budget.currency.value,
        unpriced=unpriced,
        usage_dependent=usage_dep,
        fleet_pricing={k: st for k, cs in fleet_components.items() if (st := pricing_status(cs)) != PRICED},
        service_pricing={k: st for k, cs in service_components.items() if (st := pricing_status(cs)) != PRICED},
        tag_pricing=_nested({kv: st for kv, cs in tag_components.items() if (st := pricing_status(cs)) != PRICED}),
    )


def _nested(flat: dict[tuple[str, str], str]) -> dict[str, dict[str, str]]:
    out: dict[str, dict[str, str]] = {}
    for (k, v), status in flat.items():
        out.setdefault(k, {})[v] = status
    return out
