"""ClusterJoin: node role, access entry and the nodeadm user data that joins each fleet's nodes."""

from __future__ import annotations

import base64
import email
import json

import pytest
import yaml

from components.cluster import NODE_POLICIES, ClusterJoinArgs, kubelet_may_set, node_config, node_user_data
from components.common import ComponentArgsError
from components.gpu_sharing import DEVICE_PLUGIN_LABEL, MIG_LABEL

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


@pytest.mark.parametrize("name", ["", "-lead", "has space", "x" * 101, "a/b"])
def test_cluster_name_is_checked(name: str) -> None:
    with pytest.raises(ComponentArgsError, match="cluster_name"):
        ClusterJoinArgs(name).validate()


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
    assert "nodeRoleArn" not in dev.outputs
