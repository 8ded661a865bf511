"""S3 checkpoint buckets with lifecycle tiers (``storage.checkpointBuckets``).

Lifecycle model (steady state)
------------------------------
Objects arrive at a constant rate of ``r = monthlyIngestGb / 30.42`` GB per day (a month is
730 h = 30.42 days), are written once and never overwritten.  An object's life is:

* S3 Standard from day 0 to day ``hotDays``;
* S3 Standard-IA for ``warmDays`` days (skipped when ``warmDays`` is null);
* S3 Glacier Flexible Retrieval from day ``hotDays + (warmDays or 0)`` until expiry;
* expiry at ``expireDays`` (object age), or ``coldDays`` after entering Glacier; with neither,
  objects are kept for ever.

Once the bucket is older than the objects' life, every tier holds ``r × days in that tier`` GB at
any moment, so that is the GB-months billed per month.  Standard-IA and Glacier bill at least 30
and 90 days per object (the early-deletion charge equals the storage for the remaining days), so
an object leaving a tier sooner is billed for the minimum.  Without expiry Glacier never reaches a
steady state; its component then states the monthly growth instead of a cost.

Versioned buckets: expiry adds a delete marker and the object stays as a noncurrent version, in
the tier it expired in, for ``noncurrentExpireDays`` more (its minimum storage duration counting
its whole stay in that tier); with ``noncurrentExpireDays: null`` it stays for ever, and the line
states the monthly growth instead of a cost.

Requests: each object is PUT once and makes one lifecycle transition into every tier it reaches
before expiry.  The policy gives no object count, so these components depend on usage unless the
usage carries ``monthly_objects``.  Storage is priced at the first-50-TB Standard rate (the only
tier in the data), an upper bound above 50 TB.

Server access logs (MLPS 2.0 level 3 stacks, ``components.access_logs``): every bucket of the stack
logs each request it receives to an archive bucket, kept ``compliance.logRetentionDays`` (at least
183 days). S3 charges nothing for the logging itself nor data transfer for delivering the logs
(AWS's S3 guide); they bill as Standard storage, twice with the off-site copy. Their volume follows
the requests the buckets receive, which nothing in the policy says, so the line states its price
and depends on usage (unpriced where the data has no S3 price, as in the China regions).
"""

from __future__ import annotations

from dataclasses import dataclass

from seedance.estimate.components import (
    DAYS_PER_MONTH,
    CostComponent,
    Rate,
    ResourceCost,
    depends_on_usage,
    lookup,
    priced,
    rate_in,
)
from seedance.estimate.context import EstimateContext
from seedance.offsite import off_site_region
from seedance.policy.model import CheckpointBucket, DataClass, Framework
from seedance.pricing.catalog import Catalog

KIND = "s3"
SERVICE = "S3"

#: The resource line of the server access log archive.
ACCESS_LOGS = "server-access-logs"
#: The fewest days the archive keeps logs (components.access_logs.MIN_ARCHIVE_DAYS: MLPS 8.1.5.4 d).
ACCESS_LOG_MIN_DAYS = 183

IA_MIN_DAYS = 30
GLACIER_MIN_DAYS = 90
STANDARD_FIRST_TIER_GB = 50 * 1024


@dataclass(frozen=True)
class BucketUsage:
    name: str
    monthly_ingest_gb: float
    hot_days: int
    warm_days: int | None
    cold_days: int | None
    expire_days: int | None
    monthly_objects: float | None = None  # objects written per month, when known
    # a versioned bucket keeps an expired object as a noncurrent version this many days more (None:
    # for ever); ignored when not versioned
    versioning: bool = False
    noncurrent_days: int | None = None


@dataclass(frozen=True)
class S3Prices:
    standard: Rate
    standard_ia: Rate
    glacier: Rate
    put_requests: Rate
    to_standard_ia: Rate
    to_glacier: Rate


def s3_prices(catalog: Catalog, region: str, currency: str | None = None) -> S3Prices:
    """The region's S3 prices (``currency``: another region's, in the estimate's currency)."""
    def r(item: str) -> Rate:
        return lookup(catalog, region, "S3", item) if currency is None else rate_in(catalog, region, "S3", item, currency)

    return S3Prices(
        standard=r("storage_standard"),
        standard_ia=r("storage_standard_ia"),
        glacier=r("storage_glacier_flexible_retrieval"),
        put_requests=r("put_copy_post_list_requests_standard"),
        to_standard_ia=r("lifecycle_transition_to_standard_ia"),
        to_glacier=r("lifecycle_transition_to_glacier_flexible_retrieval"),
    )


@dataclass(frozen=True)
class TierDays:
    """Billable days an object spends in each tier (``glacier`` None = kept for ever)."""

    standard: float
    standard_ia: float
    glacier: float | None
    reaches_ia: bool
    reaches_glacier: bool


def tier_days(u: BucketUsage) -> TierDays:
    """Days per tier under the lifecycle rules, with minimum storage durations applied (pure)."""
    glacier_start = u.hot_days + (u.warm_days or 0)
    expiry: float | None = u.expire_days
    if expiry is None and u.cold_days is not None:
        expiry = glacier_start + u.cold_days
    end = float("inf") if expiry is None else float(expiry)
    standard = min(u.hot_days, end)
    reaches_ia = u.warm_days is not None and end > u.hot_days
    ia = 0.0
    if reaches_ia:
        ia = max(min(glacier_start, end) - u.hot_days, IA_MIN_DAYS)
    reaches_glacier = end > glacier_start
    glacier: float | None = 0.0
    if reaches_glacier:
        glacier = None if expiry is None else max(end - glacier_start, GLACIER_MIN_DAYS)
    return TierDays(standard, ia, glacier, reaches_ia, reaches_glacier)


def cost_components(u: BucketUsage, p: S3Prices, currency: str) -> list[CostComponent]:
    """Monthly components of one bucket in steady state (pure)."""
    if u.monthly_ingest_gb == 0:
        return []
    per_day = u.monthly_ingest_gb / DAYS_PER_MONTH
    days = tier_days(u)
    std_gb = per_day * days.standard
    note = "priced at the first-50-TB rate (upper bound)" if std_gb > STANDARD_FIRST_TIER_GB else None
    out = [priced("Storage (Standard)", "GB-months", std_gb, p.standard, currency, note=note)]
    if days.reaches_ia:
        out.append(priced("Storage (Standard-IA)", "GB-months", per_day * days.standard_ia, p.standard_ia, currency))
    if days.reaches_glacier:
        if days.glacier is None:
            out.append(
                depends_on_usage(
                    "Storage (Glacier Flexible Retrieval)", "GB-months", p.glacier, currency,
                    f"objects never expire, so Glacier grows by {u.monthly_ingest_gb:g} GB every month (no steady state)",
                )
            )
        else:
            out.append(priced("Storage (Glacier Flexible Retrieval)", "GB-months", per_day * days.glacier, p.glacier, currency))
    out.extend(_noncurrent(u, days, p, currency))
    requests = [("PUT requests", p.put_requests, True)]
    requests.append(("Lifecycle transitions (to Standard-IA)", p.to_standard_ia, days.reaches_ia))
    requests.append(("Lifecycle transitions (to Glacier Flexible Retrieval)", p.to_glacier, days.reaches_glacier))
    for name, rate, applies in requests:
        if not applies:
            continue
        if u.monthly_objects is None:
            out.append(depends_on_usage(name, "1k requests", rate, currency, "the policy gives no object count"))
        else:
            out.append(priced(name, "1k requests", u.monthly_objects / 1000.0, rate, currency))
    return out


def _noncurrent(u: BucketUsage, days: TierDays, p: S3Prices, currency: str) -> list[CostComponent]:
    """In a versioned bucket, expiry only adds a delete marker: the object stays, as a noncurrent
    version in the tier it expired in, until ``noncurrent_days`` later (for ever without them)."""
    end = _expiry(u)
    if not u.versioning or end is None:
        return []
    per_day = u.monthly_ingest_gb / DAYS_PER_MONTH
    # the tier it expires in, and the days it was there before expiring
    if days.reaches_glacier:
        tier, rate, minimum = "Glacier Flexible Retrieval", p.glacier, GLACIER_MIN_DAYS
        before = end - (u.hot_days + (u.warm_days or 0))
    elif days.reaches_ia:
        tier, rate, before, minimum = "Standard-IA", p.standard_ia, end - u.hot_days, IA_MIN_DAYS
    else:
        tier, rate, before, minimum = "Standard", p.standard, end, 0
    name = f"Storage (noncurrent versions, {tier})"
    if u.noncurrent_days is None:
        return [depends_on_usage(name, "GB-months", rate, currency,
                                 f"the bucket is versioned and noncurrentExpireDays is null, so every expired object is "
                                 f"kept as a noncurrent version: {tier} grows by {u.monthly_ingest_gb:g} GB every month "
                                 f"(no steady state)")]
    # the tier's minimum storage duration counts the object's whole stay there, current and
    # noncurrent: the current days already bill at least the minimum
    extra = max(before + u.noncurrent_days, minimum) - max(before, minimum)
    return [priced(name, "GB-months", per_day * extra, rate, currency)] if extra > 0 else []


def _expiry(u: BucketUsage) -> float | None:
    if u.expire_days is not None:
        return float(u.expire_days)
    if u.cold_days is not None:
        return float(u.hot_days + (u.warm_days or 0) + u.cold_days)
    return None


def access_log_components(retention_days: int, p: S3Prices, currency: str) -> list[CostComponent]:
    """The server access log archive's storage: its volume is unknown offline (pure)."""
    what = (f"server access logs grow with the requests the stack's buckets receive (one record each), "
            f"which cannot be known offline; each is kept {retention_days} days")
    return [depends_on_usage("Storage (Standard, server access logs)", "GB-months", p.standard, currency, what)]


def usage_from_policy(b: CheckpointBucket) -> BucketUsage:
    return BucketUsage(b.name, b.monthly_ingest_gb, b.hot_days, b.warm_days, b.cold_days, b.expire_days,
                       versioning=b.versioning, noncurrent_days=b.noncurrent_expire_days)


def resources(ctx: EstimateContext) -> list[ResourceCost]:
    prices = s3_prices(ctx.catalog, ctx.region)
    partner = off_site_region(ctx.policy)
    out = []
    for b in ctx.policy.storage.checkpoint_buckets:
        usage = usage_from_policy(b)
        tiers = [f"{tier} {days} d" for tier, days in (("hot", b.hot_days), ("warm", b.warm_days), ("cold", b.cold_days),
                                                        ("expiry", b.expire_days)) if days is not None]
        notes = [f"{b.monthly_ingest_gb:g} GB ingested per month; lifecycle {', '.join(tiers)}"]
        out.append(ResourceCost(KIND, b.name, SERVICE, cost_components(usage, prices, ctx.currency),
                                tags=ctx.tags({"data-class": b.data_class.value}), notes=notes))
        if partner is not None and b.data_class is DataClass.PERSONAL:
            # the off-site copy: the same objects and lifecycle in the partner region, each written
            # once more across regions
            comps = cost_components(usage, s3_prices(ctx.catalog, partner, ctx.currency), ctx.currency)
            if b.monthly_ingest_gb:
                comps.append(priced(f"Replication to {partner} (inter-region transfer)", "GB", b.monthly_ingest_gb,
                                    lookup(ctx.catalog, ctx.region, "DataTransfer", "inter_region_out"), ctx.currency))
            out.append(ResourceCost(KIND, f"{b.name}-replica", SERVICE, comps, tags=ctx.tags({"data-class": b.data_class.value}),
                                    notes=[f"MLPS 2.0 level 3 off-site copy of personal data in {partner}, with the same lifecycle"]))
    if Framework.MLPS_L3 in ctx.policy.compliance.frameworks:
        days = max(ctx.policy.compliance.log_retention_days, ACCESS_LOG_MIN_DAYS)
        notes = ["MLPS 2.0 level 3: every bucket's server access logs, in an archive bucket (and its off-site copy when the "
                 "stack holds personal data, which stores as much again); S3 charges nothing for delivering them, their volume is unknown offline"]
        out.append(ResourceCost(KIND, ACCESS_LOGS, SERVICE, access_log_components(days, prices, ctx.currency), tags=ctx.tags(),
                                notes=notes))
    return out
