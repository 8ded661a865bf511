"""EBS volumes behind the policy's Kubernetes StorageClasses (``storage.classes``).

Each class gives a volume size, provisioned IOPS/throughput and the expected number of claims
(``volumes``); the month's cost is per volume × volumes:

* gp3: storage GB-months; IOPS above the free 3,000 baseline; throughput above the free
  125 MiB/s baseline (an omitted value is the gp3 default, i.e. the baseline);
* io2: storage GB-months; provisioned IOPS priced in three tiers per volume: 1–32,000,
  32,001–64,000, above 64,000 (tier bounds as given in the shared data's notes);
* local-nvme: instance store, included in the instance price — no EBS components.
"""

from __future__ import annotations

from dataclasses import dataclass

from seedance.estimate.components import CostComponent, Rate, ResourceCost, depends_on_usage, lookup, priced
from seedance.estimate.context import EstimateContext
from seedance.policy.model import StorageTier
from seedance.pricing.catalog import Catalog

KIND = "ebs"
SERVICE = "EBS"

GP3_FREE_IOPS = 3000
GP3_FREE_THROUGHPUT_MIBPS = 125
IO2_TIER1_MAX = 32000
IO2_TIER2_MAX = 64000


@dataclass(frozen=True)
class VolumeUsage:
    name: str
    tier: StorageTier
    size_gib: int
    iops: int | None
    throughput_mibps: int | None
    volumes: int


@dataclass(frozen=True)
class EbsPrices:
    gp3_storage: Rate
    gp3_iops: Rate
    gp3_throughput: Rate
    io2_storage: Rate
    io2_iops_tier1: Rate
    io2_iops_tier2: Rate
    io2_iops_tier3: Rate


def ebs_prices(catalog: Catalog, region: str) -> EbsPrices:
    def r(item: str) -> Rate:
        return lookup(catalog, region, "EBS", item)

    return EbsPrices(
        gp3_storage=r("gp3_storage"),
        gp3_iops=r("gp3_iops_above_3000"),
        gp3_throughput=r("gp3_throughput_above_125"),
        io2_storage=r("io2_storage"),
        io2_iops_tier1=r("io2_iops_tier1_up_to_32000"),
        io2_iops_tier2=r("io2_iops_tier2_32001_to_64000"),
        io2_iops_tier3=r("io2_iops_tier3_above_64000"),
    )


def io2_iops_tiers(iops: int) -> tuple[int, int, int]:
    """IOPS of one io2 volume in tier 1, 2 and 3."""
    t1 = min(iops, IO2_TIER1_MAX)
    t2 = min(max(iops - IO2_TIER1_MAX, 0), IO2_TIER2_MAX - IO2_TIER1_MAX)
    t3 = max(iops - IO2_TIER2_MAX, 0)
    return t1, t2, t3


def cost_components(u: VolumeUsage, p: EbsPrices, currency: str) -> list[CostComponent]:
    """Monthly components of ``u.volumes`` volumes of one class (pure)."""
    if u.tier == StorageTier.LOCAL_NVME or u.volumes == 0:
        return []
    n = u.volumes
    if u.tier == StorageTier.GP3:
        out = [priced("Storage (gp3)", "GB-months", float(u.size_gib * n), p.gp3_storage, currency)]
        extra_iops = max((u.iops or GP3_FREE_IOPS) - GP3_FREE_IOPS, 0)
        if extra_iops:
            out.append(priced(f"Provisioned IOPS (gp3, above {GP3_FREE_IOPS})", "IOPS-months", float(extra_iops * n), p.gp3_iops, currency))
        extra_tp = max((u.throughput_mibps or GP3_FREE_THROUGHPUT_MIBPS) - GP3_FREE_THROUGHPUT_MIBPS, 0)
        if extra_tp:
            out.append(
                priced(f"Provisioned throughput (gp3, above {GP3_FREE_THROUGHPUT_MIBPS} MiBps)", "MiBps-months", float(extra_tp * n), p.gp3_throughput, currency)
            )
        return out
    # io2
    out = [priced("Storage (io2)", "GB-months", float(u.size_gib * n), p.io2_storage, currency)]
    if u.iops is None:
        out.append(depends_on_usage("Provisioned IOPS (io2, tier 1)", "IOPS-months", p.io2_iops_tier1, currency, "the class gives no io2 IOPS"))
        return out
    t1, t2, t3 = io2_iops_tiers(u.iops)
    labels = (
        (t1, p.io2_iops_tier1, f"tier 1, up to {IO2_TIER1_MAX}"),
        (t2, p.io2_iops_tier2, f"tier 2, {IO2_TIER1_MAX + 1}-{IO2_TIER2_MAX}"),
        (t3, p.io2_iops_tier3, f"tier 3, above {IO2_TIER2_MAX}"),
    )
    for iops, rate, label in labels:
        if iops:
            out.append(priced(f"Provisioned IOPS (io2, {label})", "IOPS-months", float(iops * n), rate, currency))
    return out


def resources(ctx: EstimateContext) -> list[ResourceCost]:
    if not ctx.cluster:  # the StorageClasses exist only in a cluster: no claims, no volumes
        return [ResourceCost(KIND, sc.name, SERVICE, [], tags=ctx.tags({"data-class": sc.data_class.value}),
                             notes=["not deployed: the stack names no cluster, so it has no StorageClasses (nor backups "
                                    "of their volumes)"])
                for sc in ctx.policy.storage.classes]
    prices = ebs_prices(ctx.catalog, ctx.region)
    out = []
    for sc in ctx.policy.storage.classes:
        usage = VolumeUsage(sc.name, sc.tier, sc.size_gib, sc.iops, sc.throughput_mibps, sc.volumes)
        comps = cost_components(usage, prices, ctx.currency)
        notes = []
        if sc.tier == StorageTier.LOCAL_NVME:
            notes.append("instance store: included in the instance price")
        elif sc.volumes == 0:
            notes.append("no expected claims (volumes: 0)")
        else:
            notes.append(f"{sc.volumes} volume(s) of {sc.size_gib} GiB")
        out.append(ResourceCost(KIND, sc.name, SERVICE, comps, tags=ctx.tags({"data-class": sc.data_class.value}), notes=notes))
    return out
