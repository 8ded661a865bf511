"""CostAwareScheduling, FleetNamespace and GpuSharing objects per example stack."""

from __future__ import annotations

import pytest
import yaml

from components.common import ComponentArgsError, TagSet
from components.gpu_sharing import GpuSharingArgs
from components.scheduling import descheduler_policy, hpa_bounds, pods_per_node
from seedance.policy.model import Fleet

PC = "kubernetes:scheduling.k8s.io/v1:PriorityClass"
CM = "kubernetes:core/v1:ConfigMap"
HPA = "kubernetes:autoscaling/v2:HorizontalPodAutoscaler"
NS = "kubernetes:core/v1:Namespace"
NP = "kubernetes:networking.k8s.io/v1:NetworkPolicy"


def test_priority_classes(clustered):
    pcs = {r.inputs["metadata"]["name"]: r.inputs for r in clustered.of_type(PC)}
    assert {n: (p["value"], p["preemptionPolicy"], p["globalDefault"]) for n, p in pcs.items()} == {
        "seedance-gold": (1_000_000, "PreemptLowerPriority", False),
        "seedance-silver": (100_000, "PreemptLowerPriority", False),
        "seedance-bronze": (1_000, "Never", False),
    }


def test_scheduler_profile_bin_packs_gpus(eu):
    cm = eu.one("scheduling-scheduler-config").inputs
    assert cm["metadata"]["namespace"] == "kube-system"
    cfg = yaml.safe_load(cm["data"]["scheduler-config.yaml"])
    assert cfg["apiVersion"] == "kubescheduler.config.k8s.io/v1" and cfg["kind"] == "KubeSchedulerConfiguration"
    (profile,) = cfg["profiles"]
    plugins = {p["name"]: p["args"] for p in profile["pluginConfig"]}
    strategy = plugins["NodeResourcesFit"]["scoringStrategy"]
    assert strategy["type"] == "MostAllocated"
    assert {r["name"]: r["weight"] for r in strategy["resources"]} == {"nvidia.com/gpu": 5, "cpu": 1, "memory": 1}
    assert plugins["PodTopologySpread"]["defaultConstraints"] == [
        {"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "ScheduleAnyway"}
    ]


def test_descheduler_policy(eu):
    policy = yaml.safe_load(eu.one("scheduling-descheduler-policy").inputs["data"]["policy.yaml"])
    (profile,) = policy["profiles"]
    plugins = {p["name"]: p["args"] for p in profile["pluginConfig"]}
    # base.yaml: gpuBinPacking on, cpuBelowPct 20, memoryBelowPct 20, podLifetimeHours 72. Bin-packing
    # pairs with HighNodeUtilization (drain under-used nodes so they scale in), never with
    # LowNodeUtilization, which spreads pods back out; the GPU counts only when listed.
    # and it never evicts a job (its work since the last checkpoint would be lost): the training,
    # fine-tuning and batch fleets' namespaces are excluded
    jobs = sorted(f.name for f in eu.policy.fleets if f.workload.value in ("training", "finetune", "batch"))
    assert "llm-train" in jobs and "inference" not in jobs
    assert plugins["HighNodeUtilization"] == {"thresholds": {"cpu": 20, "memory": 20, "nvidia.com/gpu": 20},
                                              "evictableNamespaces": {"exclude": jobs}}
    assert "LowNodeUtilization" not in plugins
    # age-based eviction only for the serving fleets, never for training jobs
    serving = sorted(f.name for f in eu.policy.fleets if f.workload.value in ("inference", "api"))
    assert serving and "llm-train" not in serving
    assert plugins["PodLifeTime"] == {"maxPodLifeTimeSeconds": 72 * 3600, "namespaces": {"include": serving}}
    assert profile["plugins"] == {"balance": {"enabled": ["HighNodeUtilization"]}, "deschedule": {"enabled": ["PodLifeTime"]}}


def test_descheduler_without_bin_packing_balances(eu):
    s = eu.policy.scheduling
    spread = s.model_copy(update={"gpu_bin_packing": False})
    (profile,) = descheduler_policy(spread, [f for f in eu.policy.fleets if f.workload.value == "training"])["profiles"]
    plugins = {p["name"]: p["args"] for p in profile["pluginConfig"]}
    d = s.descheduler
    assert plugins["LowNodeUtilization"] == {"thresholds": {"cpu": d.cpu_below_pct, "memory": d.memory_below_pct},
                                             "targetThresholds": {"cpu": d.target_above_pct, "memory": d.target_above_pct},
                                             "evictableNamespaces": {"exclude": ["llm-train"]}}
    assert "HighNodeUtilization" not in plugins
    assert "PodLifeTime" not in plugins and "deschedule" not in profile["plugins"]  # no serving fleet given
    # with no job fleet there is nothing to exclude
    serving = [f for f in eu.policy.fleets if f.workload.value == "inference"]
    (profile,) = descheduler_policy(spread, serving)["profiles"]
    assert "evictableNamespaces" not in {p["name"]: p["args"] for p in profile["pluginConfig"]}["LowNodeUtilization"]


def test_hpa_on_the_external_metric(eu, dev):
    # eu inference: 1 A10G per node x 4 time-slicing replicas = 4 pods per node
    cap = eu.policy.fleet("inference").capacity
    (hpa,) = [r.inputs for r in eu.of_type(HPA)]
    assert hpa["metadata"] | {"labels": None} == {"name": "inference", "namespace": "inference", "labels": None}
    spec = hpa["spec"]
    assert (spec["minReplicas"], spec["maxReplicas"]) == (4 * cap.min, 4 * cap.max)
    assert spec["scaleTargetRef"] == {"apiVersion": "apps/v1", "kind": "Deployment", "name": "inference"}
    assert spec["metrics"] == [
        {"type": "External", "external": {"metric": {"name": "inference_requests_per_second"}, "target": {"type": "AverageValue", "averageValue": "40"}}}
    ]
    assert not dev.of_type(HPA)  # dev names no cluster: no Kubernetes side (see test_cluster_component)


def test_pods_per_node_and_hpa_bounds():
    def fleet(**kw):
        return Fleet.model_validate({"name": "f", "workload": "inference", "sla": "gold", "capacity": {"min": 0, "desired": 1, "max": 3}, **kw})

    assert pods_per_node(fleet(gpu={"model": "A10G", "count": 2}, gpuSharing={"timeSlicing": {"replicas": 4}})) == 8
    assert pods_per_node(fleet(gpu={"model": "A100", "count": 8, "memoryGib": 40}, gpuSharing={"mig": {"profile": "3g.20gb"}})) == 16
    assert pods_per_node(fleet(gpu={"model": "T4", "count": 1})) == 1
    # min 0 nodes still needs one replica (HPA minReplicas >= 1); max 3 nodes x 8
    assert hpa_bounds(fleet(gpu={"model": "A10G", "count": 2}, gpuSharing={"timeSlicing": {"replicas": 4}})) == (1, 24)


def test_namespace_and_default_deny_per_fleet(clustered):
    stack = clustered
    fleets = {f.name: f for f in stack.policy.fleets}
    namespaces = {r.inputs["metadata"]["name"]: r.inputs["metadata"]["labels"] for r in stack.of_type(NS)}
    assert set(namespaces) == set(fleets)
    for name, labels in namespaces.items():
        f = fleets[name]
        assert labels["seedance.io/fleet"] == name
        assert labels["seedance.io/sla"] == f.sla.value
        assert labels["seedance.io/data-class"] == f.data_class.value
        assert labels["pod-security.kubernetes.io/enforce"] == "baseline"
    deny = {r.inputs["metadata"]["namespace"]: r.inputs["spec"] for r in stack.of_type(NP) if r.inputs["metadata"]["name"] == "default-deny-all"}
    assert set(deny) == set(fleets)
    assert all(spec == {"podSelector": {}, "policyTypes": ["Ingress", "Egress"]} for spec in deny.values())


def test_gpu_sharing_configs(eu, dev):
    ts = yaml.safe_load(eu.one("gpu-sharing-time-slicing").inputs["data"]["inference"])
    assert ts["sharing"]["timeSlicing"]["resources"] == [{"name": "nvidia.com/gpu", "replicas": 4}]
    mig = yaml.safe_load(eu.one("gpu-sharing-mig").inputs["data"]["config.yaml"])
    # eval: A100 40 GB, profile 1g.5gb -> 7 instances per GPU
    assert mig["mig-configs"]["seedance-eval"] == [{"devices": "all", "mig-enabled": True, "mig-devices": {"1g.5gb": 7}}]
    assert eu.outputs["gpuNodeLabels"] == {
        "inference": {"nvidia.com/device-plugin.config": "inference"},
        "eval": {"nvidia.com/mig.config": "seedance-eval"},
    }
    assert not dev.of_type(CM) and "gpuNodeLabels" not in dev.outputs  # no cluster named


def test_gpu_sharing_rejects_a_foreign_mig_profile(eu):
    bad = eu.policy.fleet("eval").model_copy(update={"gpu_sharing": eu.policy.fleet("eval").gpu_sharing.model_copy(
        update={"mig": eu.policy.fleet("eval").gpu_sharing.mig.model_copy(update={"profile": "1g.20gb"})})})
    args = GpuSharingArgs(fleets=[bad], tag_set=TagSet.from_policy(eu.policy, "eu-prod"))
    with pytest.raises(ComponentArgsError, match=r"^fleets\[eval\].gpuSharing.mig.profile: expected one of \['1g.5gb'"):
        args.validate()


def test_the_stack_exports_what_the_cluster_software_must_be_pointed_at(eu, dev):
    """Seedance writes configuration only; the exports name what a second kube-scheduler, the
    descheduler chart, the GPU operator and the fleets' pods must use."""
    wiring = eu.outputs["kubernetes"]
    cm = eu.one("scheduling-scheduler-config").inputs["metadata"]
    assert wiring["schedulerConfigMap"] == f"{cm['namespace']}/{cm['name']}"
    profile_names = [p["schedulerName"] for p in yaml.safe_load(eu.one("scheduling-scheduler-config").inputs["data"]["scheduler-config.yaml"])["profiles"]]
    assert wiring["schedulerName"] in profile_names
    # the chart's values carry the same policy as the ConfigMap
    policy = yaml.safe_load(eu.one("scheduling-descheduler-policy").inputs["data"]["policy.yaml"])
    assert wiring["deschedulerChartValues"] == {"deschedulerPolicyAPIVersion": policy["apiVersion"],
                                                "deschedulerPolicy": {"profiles": policy["profiles"]}}
    # every fleet's pods get the priority class of its SLA tier, and that class exists
    classes = {r.inputs["metadata"]["name"] for r in eu.of_type(PC)}
    assert wiring["priorityClassNames"] == {f.name: f"seedance-{f.sla.value}" for f in eu.policy.fleets}
    assert set(wiring["priorityClassNames"].values()) <= classes
    # eu has a time-sliced and a MIG fleet: the operator must read both ConfigMaps
    names = {r.inputs["metadata"]["name"] for r in eu.of_type(CM) if r.name.startswith("gpu-sharing")}
    assert wiring["gpuOperatorSettings"] == {"devicePlugin.config.name": "seedance-time-slicing",
                                             "migManager.config.name": "seedance-mig-config", "mig.strategy": "single"}
    assert {wiring["gpuOperatorSettings"]["devicePlugin.config.name"], wiring["gpuOperatorSettings"]["migManager.config.name"]} == names
    assert "kubernetes" not in dev.outputs


@pytest.mark.parametrize(("target", "written"), [(40, "40"), (2.5, "2500m"), (0.0004, "400u"), (0.0123456, "12346u"), (1e-6, "1u")])
def test_hpa_targets_are_quantities_kubernetes_reads_as_positive(target: float, written: str):
    from components.common import quantity

    assert quantity(target) == written
