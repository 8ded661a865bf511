"""FleetNamespace: one Kubernetes namespace per fleet with default-deny network policies.

Everything is denied in and out except DNS to kube-system; workloads add their own allow rules.
Pod Security admission enforces ``baseline`` and warns on ``restricted``. A LimitRange holds every
container to the policy's overcommit cap (limit / request of CPU and memory), also for pods applied
outside the stack.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pulumi
import pulumi_kubernetes as k8s

from components.common import TagSet, child, quantity, require
from seedance.policy.model import Fleet


@dataclass
class FleetNamespaceArgs:
    fleet: Fleet
    tag_set: TagSet
    pod_security: str = "baseline"  # secure default; "restricted" where workloads allow it
    allow_dns: bool = True
    overcommit_cap: float | None = None  # scheduling.overcommitCap; None: no LimitRange

    def validate(self) -> None:
        require(self.pod_security in ("baseline", "restricted"), "FleetNamespaceArgs.pod_security",
                f"expected 'baseline' or 'restricted', got {self.pod_security!r}")
        require(self.overcommit_cap is None or self.overcommit_cap >= 1, "scheduling.overcommitCap",
                f"expected >= 1, got {self.overcommit_cap}")


class FleetNamespace(pulumi.ComponentResource):
    namespace: k8s.core.v1.Namespace
    namespace_name: str

    def __init__(self, name: str, args: FleetNamespaceArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("seedance:namespace:FleetNamespace", name, None, opts)
        args.validate()
        f = args.fleet
        labels = args.tag_set.labels(fleet=f)
        self.namespace_name = f.name
        self.namespace = k8s.core.v1.Namespace(
            f"{name}-ns",
            metadata=k8s.meta.v1.ObjectMetaArgs(
                name=f.name,
                labels={
                    **labels,
                    "pod-security.kubernetes.io/enforce": args.pod_security,
                    "pod-security.kubernetes.io/warn": "restricted",
                },
            ),
            opts=child(self),
        )
        in_ns = child(self, depends_on=[self.namespace])
        k8s.networking.v1.NetworkPolicy(
            f"{name}-default-deny",
            metadata=k8s.meta.v1.ObjectMetaArgs(name="default-deny-all", namespace=f.name, labels=labels),
            spec=k8s.networking.v1.NetworkPolicySpecArgs(pod_selector=k8s.meta.v1.LabelSelectorArgs(), policy_types=["Ingress", "Egress"]),
            opts=in_ns,
        )
        if args.overcommit_cap is not None:
            # rounded down to a milli-unit, so the LimitRange never allows more than the cap
            cap = args.overcommit_cap
            ratio = quantity(cap) if float(cap).is_integer() else f"{math.floor(cap * 1000 + 1e-9)}m"
            k8s.core.v1.LimitRange(
                f"{name}-overcommit",
                metadata=k8s.meta.v1.ObjectMetaArgs(name="overcommit-cap", namespace=f.name, labels=labels),
                spec=k8s.core.v1.LimitRangeSpecArgs(limits=[k8s.core.v1.LimitRangeItemArgs(
                    type="Container", max_limit_request_ratio={"cpu": ratio, "memory": ratio})]),
                opts=in_ns,
            )
        if args.allow_dns:
            k8s.networking.v1.NetworkPolicy(
                f"{name}-allow-dns",
                metadata=k8s.meta.v1.ObjectMetaArgs(name="allow-dns-egress", namespace=f.name, labels=labels),
                spec=k8s.networking.v1.NetworkPolicySpecArgs(
                    pod_selector=k8s.meta.v1.LabelSelectorArgs(),
                    policy_types=["Egress"],
                    egress=[
                        k8s.networking.v1.NetworkPolicyEgressRuleArgs(
                            to=[
                                k8s.networking.v1.NetworkPolicyPeerArgs(
                                    namespace_selector=k8s.meta.v1.LabelSelectorArgs(match_labels={"kubernetes.io/metadata.name": "kube-system"}),
                                    pod_selector=k8s.meta.v1.LabelSelectorArgs(match_labels={"k8s-app": "kube-dns"}),
                                )
                            ],
                            ports=[
                                k8s.networking.v1.NetworkPolicyPortArgs(protocol="UDP", port=53),
                                k8s.networking.v1.NetworkPolicyPortArgs(protocol="TCP", port=53),
                            ],
                        )
                    ],
                ),
                opts=in_ns,
            )
        self.register_outputs({"namespace": self.namespace_name})
