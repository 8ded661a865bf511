"""CostAwareScheduling: priority classes per SLA tier, a bin-packing scheduler profile, a
descheduler policy and HorizontalPodAutoscalers on the declared external metric.

The scheduler profile (``seedance-gpu-scheduler``) scores nodes with NodeResourcesFit
``MostAllocated`` weighted towards ``nvidia.com/gpu`` so GPU pods pack onto busy nodes and empty
nodes can scale in; default topology spread keeps replicas across zones. The descheduler works with
the scoring: with bin-packing it evicts the pods of under-used nodes (HighNodeUtilization, which
upstream pairs with MostAllocated) so they repack and the empty node scales in; without it, it moves
pods from over-used onto under-used nodes (LowNodeUtilization); neither evicts the pods of the
training, fine-tuning and batch fleets' namespaces. PodLifeTime recycles long-lived serving pods of
the inference and api fleets only.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import pulumi
import pulumi_kubernetes as k8s
import yaml

from components.common import TagSet, child, mig_memory, quantity, require
from seedance.gpus import instances_per_gpu
from seedance.policy.model import JOB_WORKLOADS, SERVING_WORKLOADS, Fleet, Scheduling, SlaTier

SCHEDULER_NAME = "seedance-gpu-scheduler"
DESCHEDULER_CONFIGMAP = "seedance-descheduler-policy"
GPU_RESOURCE = "nvidia.com/gpu"
ZONE_LABEL = "topology.kubernetes.io/zone"
GPU_WEIGHT = 5  # relative to cpu and memory (1 each)


def priority_class_name(tier: SlaTier) -> str:
    return f"seedance-{tier.value}"


def scheduler_config(s: Scheduling) -> dict:
    """KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1) with one Seedance profile."""
    if s.gpu_bin_packing:
        strategy = {
            "type": "MostAllocated",
            "resources": [{"name": GPU_RESOURCE, "weight": GPU_WEIGHT}, {"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}],
        }
    else:
        strategy = {"type": "LeastAllocated", "resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]}
    return {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "leaderElection": {"leaderElect": True, "resourceNamespace": "kube-system", "resourceName": SCHEDULER_NAME},
        "profiles": [
            {
                "schedulerName": SCHEDULER_NAME,
                "pluginConfig": [
                    {"name": "NodeResourcesFit", "args": {"scoringStrategy": strategy}},
                    {
                        "name": "PodTopologySpread",
                        "args": {
                            "defaultingType": "List",
                            "defaultConstraints": [
                                {
                                    "maxSkew": s.topology_spread.max_skew,
                                    "topologyKey": ZONE_LABEL,
                                    "whenUnsatisfiable": s.topology_spread.when_unsatisfiable.value,
                                }
                            ],
                        },
                    },
                ],
            }
        ],
    }


def descheduler_policy(s: Scheduling, fleets: Sequence[Fleet] = ()) -> dict:
    """DeschedulerPolicy (descheduler/v1alpha2), matched to the scheduler's scoring."""
    d = s.descheduler
    plugin_config: list[dict] = [
        {"name": "DefaultEvictor", "args": {"evictLocalStoragePods": False, "ignorePvcPods": True}},
    ]
    # the balancing plugins never evict the pods of job fleets (training, fine-tuning, batch): an
    # evicted job loses its work since the last checkpoint, which repacking does not pay for (both
    # plugins take only an exclude list)
    jobs = sorted(f.name for f in fleets if f.workload in JOB_WORKLOADS)
    spared = {"evictableNamespaces": {"exclude": jobs}} if jobs else {}
    if s.gpu_bin_packing:
        # extended resources count only when listed in the thresholds
        plugin_config.append({"name": "HighNodeUtilization", "args": {
            "thresholds": {"cpu": d.cpu_below_pct, "memory": d.memory_below_pct, GPU_RESOURCE: d.gpu_below_pct},
            **spared}})
        plugins: dict[str, dict] = {"balance": {"enabled": ["HighNodeUtilization"]}}
    else:
        plugin_config.append({"name": "LowNodeUtilization", "args": {
            "thresholds": {"cpu": d.cpu_below_pct, "memory": d.memory_below_pct},
            "targetThresholds": {"cpu": d.target_above_pct, "memory": d.target_above_pct}, **spared}})
        plugins = {"balance": {"enabled": ["LowNodeUtilization"]}}
    serving = sorted(f.name for f in fleets if f.workload in SERVING_WORKLOADS)
    if d.pod_lifetime_hours is not None and serving:
        plugin_config.append({"name": "PodLifeTime", "args": {
            "maxPodLifeTimeSeconds": d.pod_lifetime_hours * 3600, "namespaces": {"include": serving}}})
        plugins["deschedule"] = {"enabled": ["PodLifeTime"]}
    return {
        "apiVersion": "descheduler/v1alpha2",
        "kind": "DeschedulerPolicy",
        "profiles": [{"name": "seedance", "pluginConfig": plugin_config, "plugins": plugins}],
    }


def pods_per_node(fleet: Fleet) -> int:
    """Serving replicas one node holds: GPUs x (time-slicing replicas or MIG instances per GPU)."""
    gpus = fleet.gpu.count if fleet.gpu else 1
    sharing = fleet.gpu_sharing
    if sharing and sharing.time_slicing:
        return gpus * sharing.time_slicing.replicas
    if sharing and sharing.mig:
        return gpus * instances_per_gpu(sharing.mig.profile, fleet.gpu.model, mig_memory(fleet))
    return gpus


def hpa_bounds(fleet: Fleet) -> tuple[int, int]:
    ppn = pods_per_node(fleet)
    return max(1, fleet.capacity.min * ppn), max(1, fleet.capacity.max * ppn)


def _dump(doc: dict) -> str:
    return yaml.safe_dump(doc, sort_keys=False, default_flow_style=False)


@dataclass
class CostAwareSchedulingArgs:
    scheduling: Scheduling
    fleets: list[Fleet]
    tag_set: TagSet
    system_namespace: str = "kube-system"
    namespaces: dict[str, pulumi.Resource] = field(default_factory=dict)  # fleet -> Namespace to depend on

    def validate(self) -> None:
        p = self.scheduling.priorities
        require(p.gold > p.silver > p.bronze, "scheduling.priorities", f"expected gold > silver > bronze, got {p.gold}/{p.silver}/{p.bronze}")
        for f in self.fleets:
            if f.autoscaling is not None:
                lo, hi = hpa_bounds(f)
                require(lo <= hi, f"fleets[{f.name}].capacity", f"HPA min {lo} exceeds max {hi}")


class CostAwareScheduling(pulumi.ComponentResource):
    """Seedance writes the configuration; it does not run a second kube-scheduler or the descheduler,
    and it cannot set ``schedulerName`` / ``priorityClassName`` on pods it does not create. The
    stack exports what to wire up (see :attr:`wiring`)."""

    priority_classes: dict[str, str]
    scheduler_name: str
    hpa_names: list[str]
    wiring: dict

    def __init__(self, name: str, args: CostAwareSchedulingArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("seedance:scheduling:CostAwareScheduling", name, None, opts)
        args.validate()
        s = args.scheduling
        labels = args.tag_set.labels()
        self.priority_classes = {}
        values = {SlaTier.GOLD: s.priorities.gold, SlaTier.SILVER: s.priorities.silver, SlaTier.BRONZE: s.priorities.bronze}
        for tier, value in values.items():
            pc_name = priority_class_name(tier)
            k8s.scheduling.v1.PriorityClass(
                f"{name}-{tier.value}",
                metadata=k8s.meta.v1.ObjectMetaArgs(name=pc_name, labels={**labels, "seedance.io/sla": tier.value}),
                value=value,
                global_default=False,
                preemption_policy="Never" if tier is SlaTier.BRONZE else "PreemptLowerPriority",
                description=f"Seedance SLA tier {tier.value}",
                opts=child(self),
            )
            self.priority_classes[tier.value] = pc_name

        k8s.core.v1.ConfigMap(
            f"{name}-scheduler-config",
            metadata=k8s.meta.v1.ObjectMetaArgs(name=SCHEDULER_NAME, namespace=args.system_namespace, labels=labels),
            data={"scheduler-config.yaml": _dump(scheduler_config(s))},
            opts=child(self),
        )
        policy = descheduler_policy(s, args.fleets)
        k8s.core.v1.ConfigMap(
            f"{name}-descheduler-policy",
            metadata=k8s.meta.v1.ObjectMetaArgs(name=DESCHEDULER_CONFIGMAP, namespace=args.system_namespace, labels=labels),
            data={"policy.yaml": _dump(policy)},
            opts=child(self),
        )
        self.scheduler_name = SCHEDULER_NAME
        self.wiring = {
            "schedulerName": SCHEDULER_NAME,
            "schedulerConfigMap": f"{args.system_namespace}/{SCHEDULER_NAME}",
            "deschedulerConfigMap": f"{args.system_namespace}/{DESCHEDULER_CONFIGMAP}",
            # the descheduler Helm chart's values (it renders its own ConfigMap from them)
            "deschedulerChartValues": {"deschedulerPolicyAPIVersion": policy["apiVersion"],
                                       "deschedulerPolicy": {"profiles": policy["profiles"]}},
            "priorityClassNames": {f.name: priority_class_name(f.sla) for f in args.fleets},
        }

        self.hpa_names = []
        for f in args.fleets:
            if f.autoscaling is None or f.workload not in SERVING_WORKLOADS:
                continue
            lo, hi = hpa_bounds(f)
            ns = args.namespaces.get(f.name)
            k8s.autoscaling.v2.HorizontalPodAutoscaler(
                f"{name}-{f.name}-hpa",
                metadata=k8s.meta.v1.ObjectMetaArgs(name=f.name, namespace=f.name, labels=args.tag_set.labels(fleet=f)),
                spec=k8s.autoscaling.v2.HorizontalPodAutoscalerSpecArgs(
                    scale_target_ref=k8s.autoscaling.v2.CrossVersionObjectReferenceArgs(api_version="apps/v1", kind="Deployment", name=f.name),
                    min_replicas=lo,
                    max_replicas=hi,
                    metrics=[
                        k8s.autoscaling.v2.MetricSpecArgs(
                            type="External",
                            external=k8s.autoscaling.v2.ExternalMetricSourceArgs(
                                metric=k8s.autoscaling.v2.MetricIdentifierArgs(name=f.autoscaling.metric),
                                target=k8s.autoscaling.v2.MetricTargetArgs(type="AverageValue", average_value=quantity(f.autoscaling.target)),
                            ),
                        )
                    ],
                ),
                opts=child(self, depends_on=[ns] if ns is not None else None),
            )
            self.hpa_names.append(f"{f.name}/{f.name}")
        self.register_outputs({"priority_classes": self.priority_classes, "scheduler_name": self.scheduler_name,
                               "hpa_names": self.hpa_names, "wiring": self.wiring})
