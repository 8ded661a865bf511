"""KMS: the customer-managed keys the stack creates.

One key-month when ``compliance.kmsKeyArn`` is absent (an existing key is billed where it lives),
and one for the key of the off-site copies MLPS 2.0 level 3 requires (created in the partner
region whatever the policy names, priced there). API requests depend on usage (S3 bucket keys keep
them low); the policy gives no request count.
"""

from __future__ import annotations

from dataclasses import dataclass

from seedance.estimate.components import CostComponent, Rate, ResourceCost, depends_on_usage, lookup, priced, rate_in
from seedance.estimate.context import EstimateContext
from seedance.offsite import off_site_region
from seedance.pricing.catalog import Catalog

#: The stack's keys rotate yearly; the data prices a key-month without the rotated material AWS adds.
ROTATION_NOTE = ("; it rotates yearly, and AWS bills a rotated key's first two rotations as more key material, "
                 "which the data's key-month price leaves out (the figure is the first year's)")

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
    notes = [f"uses existing key {arn}" if arn else "key created by the stack" + ROTATION_NOTE]
    out = [ResourceCost(KIND, "kms", SERVICE, cost_components(usage, kms_prices(ctx.catalog, ctx.region), ctx.currency),
                        tags=ctx.tags(), notes=notes)]
    partner = off_site_region(ctx.policy)
    if partner is not None:
        rate = rate_in(ctx.catalog, partner, "KMS", "customer_managed_key", ctx.currency)
        out.append(ResourceCost(KIND, "kms-replica", SERVICE,
                                [priced(f"Customer managed key (off-site copies, {partner})", "key-months", 1.0, rate,
                                        ctx.currency)],
                                tags=ctx.tags(), notes=[f"MLPS 2.0 level 3 off-site copies: the key the stack creates in {partner}"
                                                        + ROTATION_NOTE]))
    return out

