"""AWS Backup of EBS StorageClasses: priced from the EBS snapshot price, the size an assumption."""

from __future__ import annotations

import pytest

from seedance.estimate import estimate_policy
from seedance.estimate.backup import BackupUsage, backup_prices, cost_components, resources
from seedance.estimate.context import EstimateContext, base_tags
from seedance.estimate.estimate import PRICED, UNPRICED, pricing_status
from seedance.policy.loader import LoadedPolicy
from seedance.pricing.catalog import Catalog


def test_provisioned_size_priced_daily_changes_depend_on_usage(catalog: Catalog) -> None:
    # eu-central-1: EBS snapshot_standard 0.054 USD per GB-month
    u = BackupUsage("general", 200, 20, 7)
    full, changes = cost_components(u, backup_prices(catalog, "eu-central-1"), "USD")
    assert (full.name, full.unit, full.monthly_quantity, full.unit_price) == (
        "Backup storage (EBS snapshots, provisioned size)", "GB-months", 4000.0, 0.054)
    assert round(full.monthly_cost, 2) == 216.00  # 200 GiB × 20 × 0.054
    assert full.usage_note == ("snapshot size assumed: the whole provisioned 200 GiB of each of the 20 volume(s), an upper bound "
                               "on the first, full copy (AWS Backup copies the used blocks)")
    assert full.price_ref == "service_list_prices.csv[service=EBS,item=snapshot_standard,region=eu-central-1].price"
    assert (changes.monthly_quantity, changes.monthly_cost, changes.unpriced_reason) == (None, None, None)
    assert changes.usage_note == "depends on usage: the blocks that change each day, kept 7 days (0.054 USD per GB-month)"


def test_no_claims_no_backup_cost(catalog: Catalog) -> None:
    assert cost_components(BackupUsage("g", 100, 0, 7), backup_prices(catalog, "us-east-1"), "USD") == []


def test_a_region_without_a_snapshot_price_is_unpriced_never_zero(catalog: Catalog) -> None:
    comps = cost_components(BackupUsage("g", 100, 2, 7), backup_prices(catalog, "cn-north-1"), "CNY")
    assert [c.monthly_cost for c in comps] == [None, None]
    assert {c.unpriced_reason for c in comps} == {"the shared price data has no service prices for cn-north-1 (CNY)"}
    assert pricing_status(comps) == UNPRICED


def test_the_stacks_back_up_what_their_frameworks_require(stacks: dict[str, LoadedPolicy], catalog: Catalog) -> None:
    eu = estimate_policy(stacks["eu-prod"], catalog)
    backups = {r.name: r for r in eu.resources if r.kind == "backup"}
    # GDPR: the personal-data class only (fast-ckpt is internal, scratch is instance store)
    assert list(backups) == ["general-backup"]
    general = backups["general-backup"]
    assert (general.service, general.tags["data-class"], round(general.monthly_cost, 2)) == ("Backup", "personal", 216.00)
    assert general.notes == [
        "daily AWS Backup of storage class general, recovery points kept 7 days",
        "snapshot size assumed: the whole provisioned 200 GiB of each of the 20 volume(s), an upper bound on the first, "
        "full copy (AWS Backup copies the used blocks)",
    ]
    assert eu.by_service["Backup"] == pytest.approx(216.0) and eu.service_status("Backup") == PRICED
    assert {"resource": "general-backup", "component": "Backup storage (EBS snapshots, daily changes)",
            "note": "depends on usage: the blocks that change each day, kept 7 days (0.054 USD per GB-month)"} in eu.usage_dependent
    # MLPS level 3: personal and internal data; China has no service prices: unpriced, not 0
    cn = estimate_policy(stacks["cn-prod"], catalog)
    cn_backups = [r for r in cn.resources if r.kind == "backup"]
    assert [r.name for r in cn_backups] == ["fast-ckpt-backup", "general-backup"]
    assert cn.service_status("Backup") == UNPRICED and cn.to_json()["by_service_pricing"]["Backup"] == "unpriced"
    assert {pricing_status(r.components) for r in cn_backups} == {UNPRICED}
    # no framework: no backup
    assert [r for r in estimate_policy(stacks["dev"], catalog).resources if r.kind == "backup"] == []


def test_retention_is_the_policy_s(stacks: dict[str, LoadedPolicy], catalog: Catalog) -> None:
    policy = stacks["eu-prod"].policy
    longer = policy.model_copy(update={"storage": policy.storage.model_copy(update={"backup_retention_days": 30})})
    ctx = EstimateContext(longer, None, catalog, "eu-central-1", "USD", base_tags(longer))
    (general,) = resources(ctx)
    assert general.notes[0] == "daily AWS Backup of storage class general, recovery points kept 30 days"
    assert general.components[1].usage_note.startswith("depends on usage: the blocks that change each day, kept 30 days")


def test_off_site_copies_under_mlps_are_priced_in_the_partner_region(stacks: dict[str, LoadedPolicy], catalog: Catalog) -> None:
    # eu-prod with MLPS level 3 on: its personal class's recovery points are copied to eu-west-1
    # (components.backup), priced there: 200 GiB x 20 x eu-west-1's snapshot price, plus the transfer
    from seedance.policy.model import Framework

    policy = stacks["eu-prod"].policy
    mlps = policy.model_copy(update={"compliance": policy.compliance.model_copy(
        update={"frameworks": [*policy.compliance.frameworks, Framework.MLPS_L3]})})
    ctx = EstimateContext(mlps, None, catalog, "eu-central-1", "USD", base_tags(mlps))
    general = next(r for r in resources(ctx) if r.name == "general-backup")
    names = [c.name for c in general.components]
    assert names[2:] == ["Backup copies in eu-west-1 (EBS snapshots, provisioned size)",
                         "Backup copy transfer to eu-west-1 (inter-region)"]
    west = backup_prices(catalog, "eu-west-1").snapshot_storage.value
    copies, transfer = general.components[2:]
    assert copies.monthly_cost == pytest.approx(4000 * west) and copies.price_ref.endswith("region=eu-west-1].price")
    assert transfer.monthly_cost is None and transfer.usage_note.startswith("depends on usage")
    assert general.notes[0].endswith(", copied to eu-west-1")
    # GDPR alone: no copy
    plain = EstimateContext(policy, None, catalog, "eu-central-1", "USD", base_tags(policy))
    assert len(next(r for r in resources(plain) if r.name == "general-backup").components) == 2
