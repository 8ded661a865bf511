"""Groups the Cluster Autoscaler manages, the GPU label it reads, and policy rules that keep the
Kubernetes side deployable (fleet names that are system namespaces, GPU sharing on Neuron)."""

from __future__ import annotations

from pathlib import Path

import pytest

from components.cluster import ACCELERATOR_LABEL, accelerator_label
from components.common import ComponentArgsError
from components.fleet import group_shape
from seedance.planner.plan import FleetPlan, InstanceChoice
from seedance.policy import PolicyError, load_policy_text
from seedance.policy.model import Fleet

MINIMAL = (Path(__file__).parents[1] / "policy" / "valid" / "minimal.yaml").read_text()


def _plan(weights: list[int], min_size: int, desired: int, max_size: int, base: int) -> FleetPlan:
    types = [InstanceChoice(f"t{i}.w{w}", w, 1.0 * w, 0.4 * w, "") for i, w in enumerate(weights)]
    return FleetPlan("f", types, 0, [], base, 0.5, "price-capacity-optimized", None, None, min_size, max_size, desired)


def test_a_group_nobody_else_scales_keeps_weights_and_units() -> None:
    shape = group_shape(_plan([1, 2, 8], 1, 3, 10, 2), autoscaler_managed=False)
    assert shape.weighted and [c.weight for c in shape.instance_types] == [1, 2, 8]
    assert (shape.min_size, shape.desired, shape.max_size, shape.on_demand_base) == (1, 3, 10, 2)


def test_the_autoscaler_gets_only_the_types_of_the_first_types_weight_unweighted() -> None:
    shape = group_shape(_plan([1, 8, 1, 2], 1, 3, 10, 2), autoscaler_managed=True)
    assert not shape.weighted
    assert [c.instance_type for c in shape.instance_types] == ["t0.w1", "t2.w1"]
    assert (shape.min_size, shape.desired, shape.max_size, shape.on_demand_base) == (1, 3, 10, 2)


def test_sizes_count_instances_when_the_first_type_holds_several_units() -> None:
    # 4 units per instance; 10 units at most -> 2 instances (3 would be 12 units > capacity.max);
    # min 1 unit -> 1 instance; desired 5 units -> 2; base 3 units -> 1 instance (4 units)
    shape = group_shape(_plan([4, 8, 4], 1, 5, 10, 3), autoscaler_managed=True)
    assert [c.instance_type for c in shape.instance_types] == ["t0.w4", "t2.w4"]
    assert (shape.min_size, shape.desired, shape.max_size, shape.on_demand_base) == (1, 2, 2, 1)
    assert shape.instances(9) == 2  # an off-peak window of 9 units: capped at max


def test_a_maximum_below_one_instance_is_an_error() -> None:
    with pytest.raises(ComponentArgsError, match=r"^fleets\[f\]\.capacity\.max: expected at least one instance"):
        group_shape(_plan([4], 0, 1, 3, 0), autoscaler_managed=True)


def _fleet(**kw: object) -> Fleet:
    return Fleet.model_validate({"name": "f", "workload": "inference", "sla": "gold",
                                 "capacity": {"min": 0, "desired": 1, "max": 3}, **kw})


def test_the_autoscaler_gpu_label_on_nvidia_fleets_only() -> None:
    assert accelerator_label(_fleet(gpu={"model": "A10G", "count": 1})) == {ACCELERATOR_LABEL: "nvidia-a10g"}
    assert accelerator_label(_fleet(gpu={"model": "Inferentia2", "count": 1})) == {}
    assert accelerator_label(_fleet(cpu={"vcpu": 4, "memoryGib": 16})) == {}


def test_eu_nodes_carry_the_gpu_label_and_its_template_tag(eu) -> None:
    tags = {t["key"]: t["value"] for t in eu.one("inference-asg").inputs["tags"]}
    assert tags[f"k8s.io/cluster-autoscaler/node-template/label/{ACCELERATOR_LABEL}"] == "nvidia-a10g"


def _problems(text: str) -> list[str]:
    with pytest.raises(PolicyError) as exc:
        load_policy_text(text, file="p.yaml")
    return [str(p) for p in exc.value.problems]


@pytest.mark.parametrize("name", ["default", "kube-system", "kube-public", "gpu-operator"])
def test_a_fleet_may_not_take_a_system_namespace(name: str) -> None:
    (problem,) = _problems(MINIMAL.replace("name: web", f"name: {name}"))
    assert problem.startswith("p.yaml:15:11: fleets[0].name (fleet ")
    assert f"'{name}' is a namespace Kubernetes or the GPU operator owns" in problem


def test_neuron_fleets_cannot_share_devices() -> None:
    text = MINIMAL.replace("cpu: {vcpu: 4, memoryGib: 16}", "gpu: {model: Inferentia2, count: 1}\n    gpuSharing: {timeSlicing: {replicas: 4}}")
    (problem,) = _problems(text)
    assert problem.startswith("p.yaml:19:17: fleets[0].gpuSharing (fleet 'web'): Inferentia2 has no GPU sharing")


def test_descheduler_targets_matter_only_without_bin_packing() -> None:
    low = "scheduling:\n  descheduler: {cpuBelowPct: 40, targetAbovePct: 30}\n"
    assert load_policy_text(MINIMAL + "\n" + low).scheduling.descheduler.target_above_pct == 30  # bin-packing (default)
    (problem,) = _problems(MINIMAL + "\n" + low.replace("scheduling:\n", "scheduling:\n  gpuBinPacking: false\n"))
    assert "scheduling.descheduler.targetAbovePct: expected targetAbovePct >= the low thresholds" in problem
