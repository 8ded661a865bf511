"""S3 lifecycle: steady-state GB per tier, minimum durations, transition requests."""

from __future__ import annotations

import pytest

from seedance.estimate.components import DAYS_PER_MONTH
from seedance.estimate.s3 import BucketUsage, cost_components, s3_prices, tier_days
from seedance.policy.model import Framework
from seedance.pricing.catalog import Catalog


def test_lifecycle_steady_state_us_east_1(catalog: Catalog) -> None:
    # 1000 GB/month = 1000 / (730/24) = 32.876712 GB/day; Standard 30 d, Standard-IA 60 d, Glacier 90..365 d
    u = BucketUsage("ckpt", 1000, hot_days=30, warm_days=60, cold_days=None, expire_days=365, monthly_objects=10_000)
    comps = cost_components(u, s3_prices(catalog, "us-east-1"), "USD")
    got = [(c.name, round(c.monthly_quantity, 4), round(c.monthly_cost, 2)) for c in comps]
    assert got == [
        ("Storage (Standard)", 986.3014, 22.68),  # × 0.023
        ("Storage (Standard-IA)", 1972.6027, 24.66),  # × 0.0125
        ("Storage (Glacier Flexible Retrieval)", 9041.0959, 32.55),  # 275 d × 0.0036
        ("PUT requests", 10.0, 0.05),  # 10k × 0.005 per 1k
        ("Lifecycle transitions (to Standard-IA)", 10.0, 0.10),  # 10k × 0.01 per 1k
        ("Lifecycle transitions (to Glacier Flexible Retrieval)", 10.0, 0.30),  # 10k × 0.03 per 1k
    ]
    # 32.876712 × (30 × 0.023 + 60 × 0.0125 + 275 × 0.0036) + 0.45 = 79.890411 + 0.45
    assert round(sum(c.monthly_cost for c in comps), 2) == 80.34


def test_glacier_minimum_duration_is_billed() -> None:
    # expiry at day 120: 30 days in Glacier, billed as the 90-day minimum
    d = tier_days(BucketUsage("b", 1, 30, 60, None, 120))
    assert (d.standard, d.standard_ia, d.glacier) == (30, 60, 90)


def test_no_warm_tier_goes_straight_to_glacier() -> None:
    d = tier_days(BucketUsage("b", 1, 30, None, None, 180))
    assert (d.standard, d.standard_ia, d.glacier, d.reaches_ia) == (30, 0.0, 150, False)
    d = tier_days(BucketUsage("b", 1, 30, 60, 100, None))  # cold days: expiry 100 days after entering Glacier
    assert d.glacier == 100


def test_never_expiring_glacier_states_its_growth(catalog: Catalog) -> None:
    comps = cost_components(BucketUsage("b", 500, 30, None, None, None), s3_prices(catalog, "us-east-1"), "USD")
    glacier = comps[1]
    assert glacier.monthly_cost is None and glacier.unpriced_reason is None
    assert glacier.usage_note == (
        "depends on usage: objects never expire, so Glacier grows by 500 GB every month (no steady state) "
        "(0.0036 USD per GB-month)"
    )


def test_requests_without_object_count_depend_on_usage(catalog: Catalog) -> None:
    comps = cost_components(BucketUsage("b", 100, 30, 60, None, 365), s3_prices(catalog, "eu-central-1"), "USD")
    requests = [c for c in comps if "requests" in c.unit]
    assert len(requests) == 3 and all(c.monthly_cost is None and c.usage_note for c in requests)
    assert requests[0].usage_note == "depends on usage: the policy gives no object count (0.0054 USD per 1k requests)"


def test_no_ingest_no_components(catalog: Catalog) -> None:
    assert cost_components(BucketUsage("b", 0, 30, 60, None, 365), s3_prices(catalog, "us-east-1"), "USD") == []


def test_server_access_logs_of_an_mlps_stack_are_unpriced_not_zero(stacks, catalog: Catalog) -> None:
    from seedance.estimate import estimate_policy
    from seedance.estimate.estimate import pricing_status

    # cn-prod (MLPS level 3): the archive's volume is unknown offline, and China has no S3 price
    est = estimate_policy(stacks["cn-prod"], catalog)
    (logs,) = [r for r in est.resources if r.name == "server-access-logs"]
    assert (logs.kind, logs.service, pricing_status(logs.components)) == ("s3", "S3", "unpriced")
    (c,) = logs.components
    assert (c.name, c.unit, c.monthly_quantity, c.monthly_cost) == ("Storage (Standard, server access logs)", "GB-months", None, None)
    assert c.unpriced_reason == "the shared price data has no service prices for cn-north-1 (CNY)"
    assert c.usage_note == ("depends on usage: server access logs grow with the requests the stack's buckets receive (one record "
                            "each), which cannot be known offline; each is kept 365 days")
    assert "server-access-logs" in {u["resource"] for u in est.unpriced}
    # no MLPS, no archive
    for name in ("eu-prod", "dev"):
        assert "server-access-logs" not in {r.name for r in estimate_policy(stacks[name], catalog).resources}


def test_server_access_logs_where_s3_has_a_price_state_it_and_add_nothing(stacks, catalog: Catalog) -> None:
    from seedance.estimate import estimate_policy

    policy = stacks["dev"].policy
    plain = policy.model_copy(update={"compliance": policy.compliance.model_copy(update={"log_retention_days": 90})})
    mlps = estimate_policy(plain.model_copy(update={"compliance": plain.compliance.model_copy(update={"frameworks": [Framework.MLPS_L3]})}),
                           catalog)
    (logs,) = [r for r in mlps.resources if r.name == "server-access-logs"]
    (c,) = logs.components
    assert c.monthly_cost is None and c.unpriced_reason is None and c.unit_price == 0.023
    assert c.usage_note.endswith("each is kept 183 days (0.023 USD per GB-month)")  # never below six months
    # usage-dependent: not summed (other MLPS lines, such as backups, may add to the total)
    plain_s3 = estimate_policy(plain, catalog).by_service["S3"]
    replicas = sum(c.monthly_cost or 0.0 for r in mlps.resources if r.kind == "s3" and r.name.endswith("-replica")
                   for c in r.components)
    assert mlps.by_service["S3"] == pytest.approx(plain_s3 + replicas)
    # the off-site copies of the personal-data buckets (MLPS 8.1.4.9 b) in the partner region,
    # us-west-2: the same storage, and each GB once across regions (0.02 USD/GB)
    (replica,) = [r for r in mlps.resources if r.name == "finetune-datasets-replica"]
    (source,) = [r for r in mlps.resources if r.name == "finetune-datasets"]
    transfer = next(c for c in replica.components if c.name.startswith("Replication to us-west-2"))
    ingest = next(b for b in policy.storage.checkpoint_buckets if b.name == "finetune-datasets").monthly_ingest_gb
    assert transfer.monthly_quantity == ingest and transfer.unit_price == 0.02
    storage = [c.monthly_quantity for c in replica.components if c.name.startswith("Storage")]
    assert storage == [c.monthly_quantity for c in source.components if c.name.startswith("Storage")]
    assert [r for r in mlps.resources if r.name == "kms-replica"][0].components[0].monthly_quantity == 1


def test_a_versioned_bucket_keeps_expired_objects_as_noncurrent_versions(catalog) -> None:  # type: ignore[no-untyped-def]
    prices = s3_prices(catalog, "us-east-1")

    def noncurrent(**kw: object) -> list:  # type: ignore[type-arg]
        u = BucketUsage("b", 10 * DAYS_PER_MONTH, **{"hot_days": 30, "warm_days": None, "cold_days": None, "expire_days": 365,
                                       "versioning": True, "noncurrent_days": 30, **kw})  # type: ignore[arg-type]
        return [c for c in cost_components(u, prices, "USD") if "noncurrent" in c.name]

    # 10 GB a day expire from Glacier after 335 days there; 30 noncurrent days more: 300 GB-months
    (c,) = noncurrent()
    assert c.name == "Storage (noncurrent versions, Glacier Flexible Retrieval)"
    assert c.monthly_quantity == pytest.approx(10 * 30)
    # expiring after 30 days in Glacier, its 90-day minimum already bills 60 more: 30 noncurrent days cost nothing
    assert noncurrent(expire_days=60) == []
    # 100 noncurrent days: 30 + 100 = 130 days in Glacier, 40 beyond the minimum the current days paid
    (c,) = noncurrent(expire_days=60, noncurrent_days=100)
    assert c.monthly_quantity == pytest.approx(10 * 40)
    # kept for ever: no steady state, the growth is stated instead of a cost
    (c,) = noncurrent(noncurrent_days=None)
    assert c.monthly_cost is None and f"grows by {10 * DAYS_PER_MONTH:g} GB every month" in (c.usage_note or "")
    # not versioned, or objects that never expire: no noncurrent versions
    assert noncurrent(versioning=False) == [] and noncurrent(expire_days=None) == []
