"""EKS: the control plane of the cluster the fleets join (one cluster, standard support)."""

from __future__ import annotations

from dataclasses import dataclass

from seedance.estimate.components import HOURS_PER_MONTH, CostComponent, Rate, ResourceCost, lookup, priced
from seedance.estimate.context import EstimateContext
from seedance.estimate.network import NOT_CREATED

KIND = "eks"
SERVICE = "EKS"


@dataclass(frozen=True)
class EksUsage:
    clusters: int = 1
    extended_support: bool = False


def cost_components(u: EksUsage, rate: Rate, currency: str) -> list[CostComponent]:
    support = "extended" if u.extended_support else "standard"
    return [priced(f"EKS cluster ({support} support)", "cluster-hours", float(u.clusters * HOURS_PER_MONTH), rate, currency)]


def resources(ctx: EstimateContext) -> list[ResourceCost]:
    if not ctx.cluster:  # a stack that names no cluster has no control plane to pay for
        return []
    usage = EksUsage()
    item = "cluster_extended_support" if usage.extended_support else "cluster_standard_support"
    rate = lookup(ctx.catalog, ctx.region, "EKS", item)
    # the cluster the stack's nodes join, looked up: its control plane is priced (the fleets need it)
    # but carries none of the stack's tags (every stack joining it counts it)
    return [ResourceCost(KIND, "eks-cluster", SERVICE, cost_components(usage, rate, ctx.currency),
                         notes=[NOT_CREATED + "; every stack joining the cluster counts it",
                                "priced at standard support: a cluster on a Kubernetes version past its standard "
                                "support is billed EKS's extended-support rate instead"])]
