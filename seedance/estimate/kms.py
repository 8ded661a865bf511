"""KMS: the customer-managed key the stack creates when the policy names none.

One key-month when ``compliance.kmsKeyArn`` is absent (an existing key is billed where it lives).
API requests depend on usage (S3 bucket keys keep them low); the policy gives no request count.
"""

from __future__ import annotations

from dataclasses import dataclass

from seedance.estimate.components import CostComponent, Rate, ResourceCost, depends_on_usage, lookup, priced
from seedance.estimate.context import EstimateContext
from seedance.pricing.catalog import Catalog

KIND = "kms"
SERVICE = "KMS"


@dataclass(frozen=True)
class KmsUsage:
    keys: int
    monthly_requests: float | None = None


@dataclass(frozen=True)
class KmsPrices:
    key_month: Rate
    requests: Rate


def kms_prices(catalog: Catalog, region: str) -> KmsPrices:
    return KmsPrices(
        key_month=lookup(catalog, region, "KMS", "customer_managed_key"),
        requests=lookup(catalog, region, "KMS", "api_requests_symmetric"),
    )


def cost_components(u: KmsUsage, p: KmsPrices, currency: str) -> list[CostComponent]:
    out = []
    if u.keys:
        out.append(priced("Customer managed key", "key-months", float(u.keys), p.key_month, currency))
    if u.monthly_requests is None:
        out.append(depends_on_usage("API requests", "10k requests", p.requests, currency, "the policy gives no KMS request count"))
    else:
        out.append(priced("API requests", "10k requests", u.monthly_requests / 1e4, p.requests, currency))
    return out


def resources(ctx: EstimateContext) -> list[ResourceCost]:
    arn = ctx.policy.compliance.kms_key_arn
    usage = KmsUsage(keys=0 if arn else 1)
    notes = [f"uses existing key {arn}" if arn else "key created by the stack"]
    return [ResourceCost(KIND, "kms", SERVICE, cost_components(usage, kms_prices(ctx.catalog, ctx.region), ctx.currency),
                         tags=ctx.tags(), notes=notes)]
