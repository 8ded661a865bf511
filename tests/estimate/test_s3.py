"""S3 lifecycle: steady-state GB per tier, minimum durations, transition requests."""

from __future__ import annotations

from seedance.estimate.s3 import BucketUsage, cost_components, s3_prices, tier_days
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
