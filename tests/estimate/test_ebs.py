"""EBS: gp3 above the free baseline, io2 IOPS tiers."""

from __future__ import annotations

from seedance.estimate.ebs import VolumeUsage, cost_components, ebs_prices, io2_iops_tiers
from seedance.policy.model import StorageTier
from seedance.pricing.catalog import Catalog


def _costs(comps: list) -> list[tuple[str, float, float]]:
    return [(c.name, c.monthly_quantity, round(c.monthly_cost, 2)) for c in comps]


def test_gp3_iops_and_throughput_above_the_free_baseline(catalog: Catalog) -> None:
    # eu-central-1: 0.0952 per GB-month, 0.006 per IOPS-month, 0.0476 per MiBps-month
    u = VolumeUsage("general", StorageTier.GP3, 200, 6000, 250, 20)
    comps = cost_components(u, ebs_prices(catalog, "eu-central-1"), "USD")
    assert _costs(comps) == [
        ("Storage (gp3)", 4000.0, 380.80),  # 200 GiB × 20 × 0.0952
        ("Provisioned IOPS (gp3, above 3000)", 60000.0, 360.00),  # (6000 − 3000) × 20 × 0.006
        ("Provisioned throughput (gp3, above 125 MiBps)", 2500.0, 119.00),  # (250 − 125) × 20 × 0.0476
    ]
    assert round(sum(c.monthly_cost for c in comps), 2) == 859.80


def test_gp3_at_the_baseline_pays_storage_only(catalog: Catalog) -> None:
    for iops, tp in ((None, None), (3000, 125)):
        comps = cost_components(VolumeUsage("g", StorageTier.GP3, 100, iops, tp, 1), ebs_prices(catalog, "us-east-1"), "USD")
        assert _costs(comps) == [("Storage (gp3)", 100.0, 8.00)]


def test_io2_iops_tiers(catalog: Catalog) -> None:
    assert io2_iops_tiers(20000) == (20000, 0, 0)
    assert io2_iops_tiers(64000) == (32000, 32000, 0)
    assert io2_iops_tiers(70000) == (32000, 32000, 6000)
    # us-east-1: 0.125 per GB-month; IOPS 0.065 / 0.0455 / 0.03185 per IOPS-month
    comps = cost_components(VolumeUsage("db", StorageTier.IO2, 500, 70000, None, 1), ebs_prices(catalog, "us-east-1"), "USD")
    assert _costs(comps) == [
        ("Storage (io2)", 500.0, 62.50),
        ("Provisioned IOPS (io2, tier 1, up to 32000)", 32000.0, 2080.00),
        ("Provisioned IOPS (io2, tier 2, 32001-64000)", 32000.0, 1456.00),
        ("Provisioned IOPS (io2, tier 3, above 64000)", 6000.0, 191.10),
    ]
    assert round(sum(c.monthly_cost for c in comps), 2) == 3789.60


def test_io2_without_iops_depends_on_usage(catalog: Catalog) -> None:
    comps = cost_components(VolumeUsage("db", StorageTier.IO2, 10, None, None, 2), ebs_prices(catalog, "us-east-1"), "USD")
    assert comps[1].monthly_cost is None and comps[1].unpriced_reason is None
    assert comps[1].usage_note.startswith("depends on usage: the class gives no io2 IOPS")


def test_local_nvme_and_zero_volumes_have_no_ebs_cost(catalog: Catalog) -> None:
    p = ebs_prices(catalog, "us-east-1")
    assert cost_components(VolumeUsage("s", StorageTier.LOCAL_NVME, 3800, None, None, 4), p, "USD") == []
    assert cost_components(VolumeUsage("g", StorageTier.GP3, 100, None, None, 0), p, "USD") == []


def test_china_ebs_is_unpriced_with_the_reason(catalog: Catalog) -> None:
    comps = cost_components(VolumeUsage("g", StorageTier.GP3, 100, 4000, None, 1), ebs_prices(catalog, "cn-north-1"), "CNY")
    assert [c.monthly_cost for c in comps] == [None, None]
    assert {c.unpriced_reason for c in comps} == {"the shared price data has no service prices for cn-north-1 (CNY)"}
    assert {c.currency for c in comps} == {"CNY"}
