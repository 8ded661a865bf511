"""GpuSharing: NVIDIA GPU Operator configuration for fleets that share GPUs.

One ConfigMap holds the device plugin's time-slicing configs (one key per fleet; a node picks its
key with the ``nvidia.com/device-plugin.config`` label), another the MIG manager's ``mig-configs``
(one entry per fleet, picked with ``nvidia.com/mig.config``). MIG uses one profile per GPU, so
the operator's ``single`` MIG strategy applies and pods keep requesting ``nvidia.com/gpu``.
"""

from __future__ import annotations

from dataclasses import dataclass

import pulumi
import pulumi_kubernetes as k8s
import yaml

from components.common import TagSet, child, mig_memory, require, with_stack_digest
from seedance.gpus import instances_per_gpu, mig_profiles
from seedance.policy.model import Fleet

TIME_SLICING_CONFIGMAP = "seedance-time-slicing"
MIG_CONFIGMAP = "seedance-mig-config"
DEVICE_PLUGIN_LABEL = "nvidia.com/device-plugin.config"
MIG_LABEL = "nvidia.com/mig.config"


def time_slicing_config(replicas: int) -> dict:
    return {
        "version": "v1",
        "flags": {"migStrategy": "none"},
        "sharing": {
            "timeSlicing": {
                "renameByDefault": False,
                "failRequestsGreaterThanOne": True,
                "resources": [{"name": "nvidia.com/gpu", "replicas": replicas}],
            }
        },
    }


#: A Kubernetes label value holds at most 63 characters (the MIG config's name is the node's label).
LABEL_VALUE_MAX = 63


def mig_config_name(fleet: Fleet) -> str:
    """``seedance-FLEET``, the MIG manager's config for the fleet and the value of its nodes' label;
    a name that would pass a label value's 63 characters is cut and ends in a hash of the fleet's name
    (kubelet refuses a node label it cannot hold, so the node would never join)."""
    name = f"seedance-{fleet.name}"
    return name if len(name) <= LABEL_VALUE_MAX else with_stack_digest(name, fleet.name, LABEL_VALUE_MAX)


def sharing_node_labels(fleet: Fleet) -> dict[str, str]:
    """The label a node of a GPU-sharing fleet needs for the operator to apply its config (the
    device plugin's time-slicing config, or the MIG manager's); none without sharing."""
    s = fleet.gpu_sharing
    if s is not None and s.time_slicing:
        return {DEVICE_PLUGIN_LABEL: fleet.name}
    if s is not None and s.mig:
        return {MIG_LABEL: mig_config_name(fleet)}
    return {}


def mig_configs(fleets: list[Fleet]) -> dict:
    configs: dict[str, list[dict]] = {"all-disabled": [{"devices": "all", "mig-enabled": False}]}
    for f in fleets:
        assert f.gpu_sharing is not None and f.gpu_sharing.mig is not None
        profile = f.gpu_sharing.mig.profile
        configs[mig_config_name(f)] = [{"devices": "all", "mig-enabled": True, "mig-devices": {profile: instances_per_gpu(profile, f.gpu.model, mig_memory(f))}}]
    return {"version": "v1", "mig-configs": configs}


@dataclass
class GpuSharingArgs:
    fleets: list[Fleet]  # all fleets; those without gpuSharing are ignored
    tag_set: TagSet
    namespace: str = "gpu-operator"

    def validate(self) -> None:
        for f in self.sharing_fleets:
            where = f"fleets[{f.name}].gpuSharing"
            s = f.gpu_sharing
            assert s is not None
            require(not (s.mig and s.time_slicing), where, "expected either mig or timeSlicing, not both")
            require(f.gpu is not None, where, "GPU sharing needs a gpu requirement")
            if s.mig is not None and f.gpu is not None:
                valid = mig_profiles(f.gpu.model, f.gpu.memory_gib)
                require(s.mig.profile in valid, f"{where}.mig.profile",
                        f"expected one of {list(valid) or 'none (this GPU has no MIG)'} for {f.gpu.model.value}, got {s.mig.profile!r}")

    @property
    def sharing_fleets(self) -> list[Fleet]:
        return [f for f in self.fleets if f.gpu_sharing is not None and (f.gpu_sharing.mig or f.gpu_sharing.time_slicing)]


class GpuSharing(pulumi.ComponentResource):
    node_labels: dict[str, dict[str, str]]  # fleet -> labels its nodes need
    # what the GPU operator's ClusterPolicy must name for the configs to be read (Seedance does not
    # install or patch the operator): Helm value path -> value
    operator_settings: dict[str, str]

    def __init__(self, name: str, args: GpuSharingArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("seedance:gpu:GpuSharing", name, None, opts)
        args.validate()
        fleets = args.sharing_fleets
        sliced = [f for f in fleets if f.gpu_sharing and f.gpu_sharing.time_slicing]
        mig = [f for f in fleets if f.gpu_sharing and f.gpu_sharing.mig]
        labels = args.tag_set.labels()
        self.node_labels = {}
        self.operator_settings = {}
        if sliced:
            self.operator_settings["devicePlugin.config.name"] = TIME_SLICING_CONFIGMAP
            data = {}
            for f in sliced:
                assert f.gpu_sharing and f.gpu_sharing.time_slicing
                data[f.name] = yaml.safe_dump(time_slicing_config(f.gpu_sharing.time_slicing.replicas), sort_keys=False)
                self.node_labels[f.name] = sharing_node_labels(f)
            k8s.core.v1.ConfigMap(
                f"{name}-time-slicing",
                metadata=k8s.meta.v1.ObjectMetaArgs(name=TIME_SLICING_CONFIGMAP, namespace=args.namespace, labels=labels),
                data=data,
                opts=child(self),
            )
        if mig:
            self.operator_settings.update({"migManager.config.name": MIG_CONFIGMAP, "mig.strategy": "single"})
            for f in mig:
                self.node_labels[f.name] = sharing_node_labels(f)
            k8s.core.v1.ConfigMap(
                f"{name}-mig",
                metadata=k8s.meta.v1.ObjectMetaArgs(name=MIG_CONFIGMAP, namespace=args.namespace, labels=labels),
                data={"config.yaml": yaml.safe_dump(mig_configs(mig), sort_keys=False)},
                opts=child(self),
            )
        self.register_outputs({"node_labels": self.node_labels, "operator_settings": self.operator_settings})
