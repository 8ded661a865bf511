"""AWS Backup of the EBS StorageClasses a framework requires backups of (``CostPolicy.backed_up_classes``).

AWS Backup keeps an EBS recovery point as an EBS snapshot, billed at the EBS snapshot price (standard
tier; the shared data's ``EBS/snapshot_standard``). How much the snapshots hold is not knowable
offline: the first backup copies the volume's used blocks, the daily ones after it the blocks that
changed, each kept ``storage.backupRetentionDays``. The estimate prices one full copy of each volume
at its provisioned size (``sizeGib`` × ``volumes``: an upper bound on that first copy) and shows the
daily changes as usage-dependent, with their unit price, left out of the total. A region without a
snapshot price reads "unpriced", never 0.

Under MLPS 2.0 level 3, when the classes backed up hold personal data, every recovery point is also
copied to the partner region (``components.backup``): the same storage again at that region's
snapshot price, and the copies' inter-region transfer (each day's changed blocks; usage-dependent).
"""

from __future__ import annotations

from dataclasses import dataclass

from seedance.estimate.components import CostComponent, Rate, ResourceCost, depends_on_usage, lookup, priced
from seedance.estimate.context import EstimateContext
from seedance.offsite import off_site_region
from seedance.policy.model import DataClass
from seedance.pricing.catalog import Catalog

KIND = "backup"
SERVICE = "Backup"


@dataclass(frozen=True)
class BackupUsage:
    name: str  # the StorageClass
    size_gib: int
    volumes: int
    retention_days: int


@dataclass(frozen=True)
class BackupPrices:
    snapshot_storage: Rate


def backup_prices(catalog: Catalog, region: str) -> BackupPrices:
    return BackupPrices(snapshot_storage=lookup(catalog, region, "EBS", "snapshot_standard"))


def size_note(u: BackupUsage) -> str:
    """The assumption behind the priced quantity (snapshot sizes are not knowable offline)."""
    return (f"snapshot size assumed: the whole provisioned {u.size_gib} GiB of each of the {u.volumes} volume(s), an upper "
            "bound on the first, full copy (AWS Backup copies the used blocks)")


def cost_components(u: BackupUsage, p: BackupPrices, currency: str) -> list[CostComponent]:
    """The month's backup storage of ``u.volumes`` volumes of one class (pure)."""
    if u.volumes == 0:
        return []
    return [
        priced("Backup storage (EBS snapshots, provisioned size)", "GB-months", float(u.size_gib * u.volumes), p.snapshot_storage,
               currency, note=size_note(u)),
        depends_on_usage("Backup storage (EBS snapshots, daily changes)", "GB-months", p.snapshot_storage, currency,
                         f"the blocks that change each day, kept {u.retention_days} days"),
    ]


def copy_components(u: BackupUsage, partner: str, p: BackupPrices, transfer: Rate, currency: str) -> list[CostComponent]:
    """The off-site copies of ``u``'s recovery points in ``partner`` (pure): the same storage at the
    partner's snapshot price, and the transfer of what each day's backup copies (usage-dependent)."""
    if u.volumes == 0:
        return []
    return [
        priced(f"Backup copies in {partner} (EBS snapshots, provisioned size)", "GB-months", float(u.size_gib * u.volumes),
               p.snapshot_storage, currency, note=size_note(u)),
        depends_on_usage(f"Backup copy transfer to {partner} (inter-region)", "GB", transfer, currency,
                         "the first full copy, then the blocks that change each day"),
    ]


def resources(ctx: EstimateContext) -> list[ResourceCost]:
    if not ctx.cluster:  # only the StorageClasses' volumes are backed up, and they need a cluster
        return []
    prices = backup_prices(ctx.catalog, ctx.region)
    days = ctx.policy.storage.backup_retention_days
    classes = ctx.policy.backed_up_classes()
    # the plan copies every recovery point off site when what it holds is personal (MLPS 8.1.4.9 b)
    partner = off_site_region(ctx.policy) if any(sc.data_class is DataClass.PERSONAL for sc in classes) else None
    out = []
    for sc in classes:
        usage = BackupUsage(sc.name, sc.size_gib, sc.volumes, days)
        notes = [f"daily AWS Backup of storage class {sc.name}, recovery points kept {days} days"
                 + (f", copied to {partner}" if partner else "")]
        notes.append(size_note(usage) if sc.volumes else "no expected claims (volumes: 0)")
        comps = cost_components(usage, prices, ctx.currency)
        if partner is not None:
            comps += copy_components(usage, partner, backup_prices(ctx.catalog, partner),
                                     lookup(ctx.catalog, ctx.region, "DataTransfer", "inter_region_out"), ctx.currency)
        out.append(ResourceCost(KIND, f"{sc.name}-backup", SERVICE, comps,
                                tags=ctx.tags({"data-class": sc.data_class.value}), notes=notes))
    return out
