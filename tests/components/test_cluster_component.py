"""ClusterJoin: node role, access entry and the nodeadm user data that joins each fleet's nodes."""

from __future__ import annotations

import base64
import email
import json

import pytest
import yaml

from components.cluster import (
    AUTOSCALER_PREFIX,
    NODE_POLICIES,
    ClusterJoinArgs,
    autoscaler_tags,
    kubelet_may_set,
    node_config,
    node_gpu_resources,
    node_user_data,
)
from components.common import ComponentArgsError
from components.gpu_sharing import DEVICE_PLUGIN_LABEL, MIG_LABEL, mig_config_name, sharing_node_labels
from seedance.policy.model import Fleet, Taint

LT = "aws:ec2/launchTemplate:LaunchTemplate"


def decode(user_data: str) -> dict:
    """Parse user data the way cloud-init / nodeadm do: base64 -> MIME multi-part -> NodeConfig part."""
    msg = email.message_from_string(base64.b64decode(user_data).decode())
    assert msg.is_multipart()
    parts = [p for p in msg.walk() if p.get_content_type() == "application/node.eks.aws"]
    assert len(parts) == 1
    return yaml.safe_load(parts[0].get_payload())


def test_node_user_data_round_trips() -> None:
    data = node_user_data("gpu", "https://X.gr7.eu-central-1.eks.amazonaws.com", "Q0E=", "172.20.0.0/16",
                          {"seedance.io/fleet": "train", "nvidia.com/mig.config": "all-1g.5gb"})
    cfg = decode(data)
    assert cfg == node_config("gpu", "https://X.gr7.eu-central-1.eks.amazonaws.com", "Q0E=", "172.20.0.0/16",
                              {"nvidia.com/mig.config": "all-1g.5gb", "seedance.io/fleet": "train"})
    assert cfg["apiVersion"] == "node.eks.aws/v1alpha1" and cfg["kind"] == "NodeConfig"
    assert cfg["spec"]["cluster"] == {"name": "gpu", "apiServerEndpoint": "https://X.gr7.eu-central-1.eks.amazonaws.com",
                                      "certificateAuthority": "Q0E=", "cidr": "172.20.0.0/16"}
    # one flag, labels sorted so the user data (and the launch template) is stable between runs
    assert cfg["spec"]["kubelet"]["flags"] == ["--node-labels=nvidia.com/mig.config=all-1g.5gb,seedance.io/fleet=train"]


@pytest.mark.parametrize(("key", "allowed"), [
    ("seedance.io/fleet", True), ("nvidia.com/mig.config", True), ("team", True),
    ("node.kubernetes.io/instance-type", True), ("kubelet.kubernetes.io/x", True),
    ("app.kubernetes.io/managed-by", False), ("kubernetes.io/role", False), ("node-role.kubernetes.io/gpu", False),
    ("foo.k8s.io/bar", False), ("k8s.io/x", False),
])
def test_kubelet_label_rule(key: str, allowed: bool) -> None:
    assert kubelet_may_set(key) is allowed


def test_labels_kubelet_refuses_are_left_out() -> None:
    cfg = node_config("c", "https://e", "Q0E=", "10.100.0.0/16",
                      {"app.kubernetes.io/managed-by": "seedance", "seedance.io/fleet": "a"})
    assert cfg["spec"]["kubelet"]["flags"] == ["--node-labels=seedance.io/fleet=a"]


def test_no_labels_no_kubelet_flags() -> None:
    assert "kubelet" not in node_config("c", "https://e", "Q0E=", "10.100.0.0/16", {})["spec"]


def _fleet(**extra: object) -> Fleet:
    return Fleet.model_validate({"name": "f", "workload": "inference", "sla": "silver",
                                 "capacity": {"desired": 1, "max": 2}, **extra})


def test_default_taints_keep_other_pods_off_accelerator_nodes() -> None:
    assert _fleet(gpu={"model": "A100"}).node_taints() == [Taint(key="nvidia.com/gpu", value="true")]
    assert _fleet(gpu={"model": "Inferentia2"}).node_taints() == [Taint(key="aws.amazon.com/neuron", value="true")]
    assert _fleet(cpu={"vcpu": 8, "memoryGib": 32}).node_taints() == []
    assert _fleet(gpu={"model": "A100"}, taints=[]).node_taints() == []  # opted out
    own = _fleet(gpu={"model": "A100"}, taints=[{"key": "team", "value": "ml", "effect": "NoExecute"}])
    assert [(t.key, t.value, t.effect.value) for t in own.node_taints()] == [("team", "ml", "NoExecute")]


def test_taints_are_registered_by_kubelet() -> None:
    taints = [Taint(key="nvidia.com/gpu", value="true"), Taint.model_validate({"key": "dedicated", "effect": "PreferNoSchedule"})]
    cfg = node_config("c", "https://e", "Q0E=", "10.100.0.0/16", {"seedance.io/fleet": "a"}, taints)
    assert cfg["spec"]["kubelet"]["flags"] == [
        "--node-labels=seedance.io/fleet=a",
        "--register-with-taints=nvidia.com/gpu=true:NoSchedule,dedicated=:PreferNoSchedule",
    ]
    only_taints = node_config("c", "https://e", "Q0E=", "10.100.0.0/16", {}, taints[:1])
    assert only_taints["spec"]["kubelet"]["flags"] == ["--register-with-taints=nvidia.com/gpu=true:NoSchedule"]


def test_autoscaler_tags_describe_the_node_a_group_would_start() -> None:
    tags = autoscaler_tags("gpu-eu", {"seedance.io/fleet": "train", "app.kubernetes.io/managed-by": "seedance"},
                           [Taint(key="nvidia.com/gpu", value="true")], {"nvidia.com/gpu": "56"})
    assert tags == {
        "k8s.io/cluster-autoscaler/enabled": "true",
        "k8s.io/cluster-autoscaler/gpu-eu": "owned",
        "k8s.io/cluster-autoscaler/node-template/label/seedance.io/fleet": "train",  # not the label kubelet refuses
        "k8s.io/cluster-autoscaler/node-template/taint/nvidia.com/gpu": "true:NoSchedule",
        "k8s.io/cluster-autoscaler/node-template/resources/nvidia.com/gpu": "56",
    }


def test_shared_gpus_advertise_more_devices() -> None:
    assert node_gpu_resources(_fleet(gpu={"model": "A100", "count": 8})) == {}  # the autoscaler knows the type's GPUs
    sliced = _fleet(gpu={"model": "A10G", "count": 4}, gpuSharing={"timeSlicing": {"replicas": 3}})
    assert node_gpu_resources(sliced) == {"nvidia.com/gpu": "12"}
    mig = _fleet(gpu={"model": "A100", "count": 8, "memoryGib": 40}, gpuSharing={"mig": {"profile": "1g.5gb"}})
    assert node_gpu_resources(mig) == {"nvidia.com/gpu": "56"}  # seven 1g.5gb instances per A100-40GB


def test_neuron_nodes_advertise_their_devices_to_the_autoscaler() -> None:
    # the autoscaler models only nvidia.com/gpu from an instance type: without the tag a pod asking for
    # aws.amazon.com/neuron never fits a node of a group at zero, which then never scales up
    assert node_gpu_resources(_fleet(gpu={"model": "Inferentia2", "count": 1})) == {"aws.amazon.com/neuron": "1"}
    assert node_gpu_resources(_fleet(gpu={"model": "Trainium", "count": 16})) == {"aws.amazon.com/neuron": "16"}
    assert node_gpu_resources(_fleet(cpu={"vcpu": 8, "memoryGib": 32})) == {}


def test_a_mig_config_name_fits_a_label_value() -> None:
    profile = {"gpu": {"model": "A100", "count": 8, "memoryGib": 40}, "gpuSharing": {"mig": {"profile": "1g.5gb"}}}
    short = Fleet.model_validate({**_fleet(**profile).model_dump(by_alias=True, exclude_none=True), "name": "mig"})
    assert sharing_node_labels(short) == {"nvidia.com/mig.config": "seedance-mig"}
    names = ["m" * 63, "m" * 54 + "-a", "m" * 54 + "-b"]
    values = [mig_config_name(Fleet.model_validate({**short.model_dump(by_alias=True, exclude_none=True), "name": n}))
              for n in names]
    assert all(len(v) <= 63 and v[-1].isalnum() for v in values)
    assert len(set(values)) == 3  # cut to the same text, told apart by the hash of the whole name
    assert len("seedance-" + "m" * 54) == 63 and mig_config_name(
        Fleet.model_validate({**short.model_dump(by_alias=True, exclude_none=True), "name": "m" * 54})) == "seedance-" + "m" * 54


@pytest.mark.parametrize("name", ["", "-lead", "has space", "x" * 101, "a/b"])
def test_cluster_name_is_checked(name: str) -> None:
    with pytest.raises(ComponentArgsError, match="cluster_name"):
        ClusterJoinArgs(name, "eu-central-1").validate()


def test_eu_nodes_join_the_named_cluster(eu) -> None:
    assert eu.one("cluster").type == "seedance:cluster:ClusterJoin"
    trust = json.loads(eu.one("cluster-node-role").inputs["assumeRolePolicy"])
    assert trust["Statement"] == [{"Effect": "Allow", "Principal": {"Service": "ec2.amazonaws.com"}, "Action": "sts:AssumeRole"}]
    attached = sorted(r.inputs["policyArn"] for r in eu.of_type("aws:iam/rolePolicyAttachment:RolePolicyAttachment")
                      if r.parent == eu.one("cluster").urn)
    assert attached == sorted(f"arn:aws:iam::aws:policy/{p}" for p in NODE_POLICIES)
    entry = eu.one("cluster-nodes").inputs
    assert entry["type"] == "EC2_LINUX" and entry["clusterName"] == "gpu-eu-prod"
    # the access entry names the node role (its ARN as the mock runtime resolves it)
    assert entry["principalArn"].startswith("arn:aws:iam::111122223333:role/cluster-node-role-")
    assert eu.outputs["nodeRoleArn"] == entry["principalArn"]
    assert eu.one("cluster-node-profile").inputs["role"] == entry["principalArn"].rsplit("/", 1)[1]


def test_cn_node_role_trusts_the_china_ec2_principal(cn) -> None:
    trust = json.loads(cn.one("cluster-node-role").inputs["assumeRolePolicy"])
    assert trust["Statement"][0]["Principal"] == {"Service": "ec2.amazonaws.com.cn"}
    attached = {r.inputs["policyArn"] for r in cn.of_type("aws:iam/rolePolicyAttachment:RolePolicyAttachment")
                if r.parent == cn.one("cluster").urn}
    assert attached == {f"arn:aws-cn:iam::aws:policy/{p}" for p in NODE_POLICIES}


def test_every_eu_fleet_launches_joined_nodes_with_its_labels(eu) -> None:
    gpu_labels = eu.outputs["gpuNodeLabels"]
    assert eu.policy.fleets
    for fleet in eu.policy.fleets:
        lt = eu.one(f"{fleet.name}-lt").inputs
        assert lt["iamInstanceProfile"]["arn"].startswith("arn:aws:iam::111122223333:instance-profile/cluster-node-profile-")
        cfg = decode(lt["userData"])
        assert cfg["spec"]["cluster"]["name"] == "gpu-eu-prod"
        assert cfg["spec"]["cluster"]["apiServerEndpoint"].startswith("https://")
        flags = cfg["spec"]["kubelet"]["flags"]
        labels = dict(item.split("=", 1) for item in flags[0].removeprefix("--node-labels=").split(","))
        assert all(kubelet_may_set(k) for k in labels), labels  # or kubelet would refuse to start
        assert labels["seedance.io/fleet"] == fleet.name
        assert labels["seedance.io/sla"] == fleet.sla.value
        for key, value in gpu_labels.get(fleet.name, {}).items():
            assert labels[key] == value
        # the node security group plus the cluster's, so the control plane reaches the kubelet
        assert len(lt["networkInterfaces"][0]["securityGroups"]) == 2
        # GPU nodes are tainted so pods that ask for no GPU stay off them
        assert flags[1:] == [f"--register-with-taints={t.key}={t.value}:{t.effect.value}" for t in fleet.node_taints()]
        assert fleet.gpu is None or flags[1].startswith("--register-with-taints=nvidia.com/gpu=true:NoSchedule")
        # and the Cluster Autoscaler finds the group and knows its nodes' labels and taints before any exists
        group = {t["key"]: t for t in eu.one(f"{fleet.name}-asg").inputs["tags"]}
        assert group[f"{AUTOSCALER_PREFIX}/gpu-eu-prod"]["value"] == "owned"
        assert group[f"{AUTOSCALER_PREFIX}/enabled"]["propagateAtLaunch"] is False
        for key, value in labels.items():
            assert group[f"{AUTOSCALER_PREFIX}/node-template/label/{key}"]["value"] == value
        for taint in fleet.node_taints():
            assert group[f"{AUTOSCALER_PREFIX}/node-template/taint/{taint.key}"]["value"] == f"{taint.value}:{taint.effect.value}"
    # a MIG fleet's group says how many GPU devices its nodes advertise (8 A100 x 7 instances of 1g.5gb)
    evals = {t["key"]: t["value"] for t in eu.one("eval-asg").inputs["tags"]}
    assert evals[f"{AUTOSCALER_PREFIX}/node-template/resources/nvidia.com/gpu"] == "56"
    # the GPU-sharing labels really are there for the fleets that share GPUs
    shared = {k for labels in gpu_labels.values() for k in labels}
    assert shared & {DEVICE_PLUGIN_LABEL, MIG_LABEL}


def test_cn_node_policies_are_in_the_china_partition(cn) -> None:
    arns = [r.inputs["policyArn"] for r in cn.of_type("aws:iam/rolePolicyAttachment:RolePolicyAttachment")
            if r.parent == cn.one("cluster").urn]
    assert len(arns) == len(NODE_POLICIES)
    assert all(a.startswith("arn:aws-cn:iam::aws:policy/") for a in arns)
    endpoint = decode(cn.one(f"{cn.policy.fleets[0].name}-lt").inputs["userData"])["spec"]["cluster"]["apiServerEndpoint"]
    assert endpoint.endswith(".eks.amazonaws.com.cn")


def test_without_a_cluster_name_nothing_is_joined(dev) -> None:
    assert not [r for r in dev.doc.resources if r.type == "seedance:cluster:ClusterJoin"]
    for lt in dev.of_type(LT):
        assert "userData" not in lt.inputs and "iamInstanceProfile" not in lt.inputs
    for asg in dev.of_type("aws:autoscaling/group:Group"):
        assert not [t for t in asg.inputs["tags"] if t["key"].startswith(AUTOSCALER_PREFIX)]
    assert "nodeRoleArn" not in dev.outputs
    # nor is anything created in a cluster: no Kubernetes provider, no Kubernetes object
    assert not [r for r in dev.doc.resources if "kubernetes" in r.type]


def test_kubernetes_objects_go_to_the_named_cluster_only(clustered) -> None:
    """Every Kubernetes object is created with the stack's own provider, whose kubeconfig points at
    the named cluster (never at the deployer's current kubeconfig context)."""
    (provider,) = clustered.of_type("pulumi:providers:kubernetes")
    objs = [r for r in clustered.doc.resources if r.type.startswith("kubernetes:")]
    assert len(objs) >= 10
    assert {r.provider for r in objs} == {provider.urn}
    config = json.loads(provider.inputs["kubeconfig"])
    cluster_name = clustered.one("cluster-nodes").inputs["clusterName"]
    (cluster,) = config["clusters"]
    endpoint = decode(clustered.one(f"{clustered.policy.fleets[0].name}-lt").inputs["userData"])["spec"]["cluster"]
    assert cluster["cluster"] == {"server": endpoint["apiServerEndpoint"], "certificate-authority-data": endpoint["certificateAuthority"]}
    (user,) = config["users"]
    exec_ = user["user"]["exec"]
    assert exec_["command"] == "aws" and exec_["apiVersion"] == "client.authentication.k8s.io/v1beta1"
    assert exec_["args"] == ["--region", clustered.policy.cloud.region, "eks", "get-token", "--cluster-name", cluster_name, "--output", "json"]
    assert config["current-context"] == config["contexts"][0]["name"]
    assert config["contexts"][0]["context"] == {"cluster": cluster["name"], "user": user["name"]}


def test_node_version_follows_the_cluster_and_is_never_newer() -> None:
    from components.cluster import node_version

    assert node_version("1.29", None) == "1.29"
    assert node_version("1.30.1", None) == "1.30"
    assert node_version("1.30", "1.28") == "1.28"  # older nodes are supported (up to three minor versions)
    assert node_version("1.30", "1.30") == "1.30"
    with pytest.raises(ComponentArgsError, match=r"seedance:eksVersion: expected a version not newer than the "
                                                 r"cluster's 1.29 \(a kubelet newer than its API server is unsupported\), "
                                                 r"got 1.31"):
        node_version("1.29", "1.31")
    assert node_version("1.31", "1.28") == "1.28"
    with pytest.raises(ComponentArgsError, match=r"at most 3 minor versions older than the cluster's 1.31 .*got 1.27"):
        node_version("1.31", "1.27")
    with pytest.raises(ComponentArgsError, match=r"at most 3 minor versions older"):
        node_version("2.0", "1.31")


def test_an_eks_version_is_written_as_eks_writes_it() -> None:
    from components.fleet import check_eks_version

    assert check_eks_version("1.31") == "1.31" and check_eks_version("1.0") == "1.0"
    for bad in ("1.031", "01.31", "v1.31", "1.31.2", "1.", "1"):
        with pytest.raises(ComponentArgsError, match=r"expected e.g. '1.31'"):
            check_eks_version(bad)


def _eu_synth(monkeypatch, cluster_version: str, project=None):  # noqa: ANN001, ANN202
    """eu-prod synthesised with the cluster lookup answering ``cluster_version``."""
    from pathlib import Path

    from seedance.synth import runtime
    from seedance.synth.project import synthesize_stack

    real = runtime._cluster
    monkeypatch.setattr(runtime, "_cluster", lambda *a: {**real(*a), "version": cluster_version})
    return synthesize_stack("eu-prod", project or Path(__file__).resolve().parents[2] / "stacks")


def test_joined_nodes_boot_the_ami_of_the_clusters_kubernetes_version(monkeypatch) -> None:
    # eu-prod joins a cluster and sets no seedance:eksVersion: a cluster still on 1.29 gets 1.29 node AMIs
    # (they were 1.31 whatever it ran: a kubelet newer than its API server)
    doc = _eu_synth(monkeypatch, "1.29").document
    images = {r.inputs["imageId"] for r in doc.of_type("aws:ec2/launchTemplate:LaunchTemplate")}
    assert images and all(i.startswith("resolve:ssm:/aws/service/eks/optimized-ami/1.29/amazon-linux-2023/") for i in images)


def test_an_eks_version_newer_than_the_cluster_is_refused(monkeypatch, tmp_path) -> None:
    import shutil
    from pathlib import Path

    project = tmp_path / "stacks"
    shutil.copytree(Path(__file__).resolve().parents[2] / "stacks", project, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(Path(__file__).resolve().parents[2] / "components", tmp_path / "components",
                    ignore=shutil.ignore_patterns("__pycache__"))
    config = project / "Pulumi.eu-prod.yaml"
    config.write_text(config.read_text() + '  seedance:eksVersion: "1.31"\n')
    # raised in the image id's apply, it reaches the caller as itself (synth: `error: ...`, exit 1), not as
    # Pulumi's ValueError naming the input it was resolving
    with pytest.raises(ComponentArgsError, match=r"^seedance:eksVersion: expected a version not newer than the cluster's 1.29"):
        _eu_synth(monkeypatch, "1.29", project)


def test_offline_a_pinned_eks_version_newer_than_the_default_synthesises(tmp_path) -> None:
    # offline there is no control plane to ask: the cluster lookup answers the pinned version, so a stack
    # whose nodes are pinned to a newer Kubernetes than the offline default is not refused against a
    # made-up version (it was: "expected a version not newer than the cluster's 1.31 ... got 1.32")
    import shutil
    from pathlib import Path

    from seedance.synth.project import synthesize_stack

    root = Path(__file__).resolve().parents[2]
    project = tmp_path / "stacks"
    shutil.copytree(root / "stacks", project, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(root / "components", tmp_path / "components", ignore=shutil.ignore_patterns("__pycache__"))
    config = project / "Pulumi.eu-prod.yaml"
    config.write_text(config.read_text() + '  seedance:eksVersion: "1.32"\n')
    doc = synthesize_stack("eu-prod", project).document
    images = {r.inputs["imageId"] for r in doc.of_type("aws:ec2/launchTemplate:LaunchTemplate")}
    assert images and all(i.startswith("resolve:ssm:/aws/service/eks/optimized-ami/1.32/") for i in images)
