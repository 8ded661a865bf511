"""ClusterJoin: what the fleets' nodes need to join an existing EKS cluster.

Seedance does not create the cluster; the stack names it (``seedance:clusterName``). This component
looks the cluster up at deploy time (``aws.eks.getCluster``: API endpoint, CA, service CIDR, cluster
security group) and creates, once per stack:

* the Kubernetes provider every Kubernetes object of the stack is created with
  (:func:`kubeconfig`: the cluster's endpoint and CA, credentials from ``aws eks get-token``), so
  those objects land in this cluster and never in whatever context the deployer's kubeconfig
  happens to select;

* a node IAM role (EC2 trust only) with the three AWS-managed node policies — worker node, CNI and
  read-only ECR — and its instance profile;
* an EKS access entry of type ``EC2_LINUX`` for that role, so nodes may register (the cluster's
  authentication mode must include ``API``);

and renders, per fleet, the AL2023 ``nodeadm`` user data (:func:`node_user_data`): a MIME multi-part
document with one ``NodeConfig`` carrying the cluster coordinates, the fleet's node labels (so the
workloads' node selectors, the GPU-sharing device-plugin config and the scheduler's fleet affinity
find the nodes) and its taints (by default the accelerator's device resource, e.g.
``nvidia.com/gpu=true:NoSchedule``, so pods that do not ask for one stay off the nodes); and the
Cluster Autoscaler tags of the fleet's Auto Scaling group (:func:`autoscaler_tags`), so the
autoscaler finds the group and can scale it up from zero.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import pulumi
import pulumi_aws as aws
import pulumi_kubernetes as k8s
import yaml

from components.common import child, mig_memory, policy_json, require
from seedance.gpus import device_resource, instances_per_gpu
from seedance.policy.model import Fleet, Taint

#: AWS-managed policies an EKS node needs (no inline permissions are added).
NODE_POLICIES = ("AmazonEKSWorkerNodePolicy", "AmazonEKS_CNI_Policy", "AmazonEC2ContainerRegistryReadOnly")
MIME_BOUNDARY = "SEEDANCE-NODECONFIG"


def node_trust_policy(partition: str = "aws") -> dict:
    """EC2 may assume the node role; in the China partition the EC2 service principal carries the
    ``.cn`` suffix (as AWS's own EKS node group template maps it)."""
    principal = "ec2.amazonaws.com.cn" if partition == "aws-cn" else "ec2.amazonaws.com"
    return {
        "Version": "2012-10-17",
        "Statement": [{"Effect": "Allow", "Principal": {"Service": principal}, "Action": "sts:AssumeRole"}],
    }


#: kubelet refuses ``--node-labels`` in the kubernetes.io / k8s.io namespaces except under these
#: prefixes (and a fixed list of well-known labels Seedance does not set).
_KUBELET_ALLOWED_PREFIXES = ("kubelet.kubernetes.io/", "node.kubernetes.io/")


def kubelet_may_set(key: str) -> bool:
    """Whether kubelet accepts ``key`` in ``--node-labels`` (it refuses other kubernetes.io / k8s.io keys)."""
    if key.startswith(_KUBELET_ALLOWED_PREFIXES):
        return True
    domain = key.split("/", 1)[0] if "/" in key else ""
    return not any(domain == d or domain.endswith("." + d) for d in ("kubernetes.io", "k8s.io"))


def taint_text(taint: Taint) -> str:
    """``key=value:Effect``, as kubelet's ``--register-with-taints`` reads it."""
    return f"{taint.key}={taint.value}:{taint.effect.value}"


def node_config(cluster_name: str, endpoint: str, certificate_authority: str, service_cidr: str,
                labels: Mapping[str, str], taints: Sequence[Taint] = ()) -> dict:
    """The ``node.eks.aws/v1alpha1`` NodeConfig for one fleet (labels and taints applied at
    registration; labels kubelet would refuse to self-apply are left out, or the node would never start)."""
    labels = {k: v for k, v in labels.items() if kubelet_may_set(k)}
    flags = []
    if labels:
        flags.append("--node-labels=" + ",".join(f"{k}={v}" for k, v in sorted(labels.items())))
    if taints:
        flags.append("--register-with-taints=" + ",".join(taint_text(t) for t in taints))
    spec: dict = {
        "cluster": {
            "name": cluster_name,
            "apiServerEndpoint": endpoint,
            "certificateAuthority": certificate_authority,
            "cidr": service_cidr,
        }
    }
    if flags:
        spec["kubelet"] = {"flags": flags}
    return {"apiVersion": "node.eks.aws/v1alpha1", "kind": "NodeConfig", "spec": spec}


def node_user_data(cluster_name: str, endpoint: str, certificate_authority: str, service_cidr: str,
                   labels: Mapping[str, str], taints: Sequence[Taint] = ()) -> str:
    """Base64 MIME multi-part user data holding the fleet's NodeConfig (what ``nodeadm`` reads)."""
    config = yaml.safe_dump(node_config(cluster_name, endpoint, certificate_authority, service_cidr, labels, taints),
                            sort_keys=False, default_flow_style=False)
    text = (
        "MIME-Version: 1.0\n"
        f'Content-Type: multipart/mixed; boundary="{MIME_BOUNDARY}"\n'
        "\n"
        f"--{MIME_BOUNDARY}\n"
        "Content-Type: application/node.eks.aws\n"
        "\n"
        f"---\n{config}\n"
        f"--{MIME_BOUNDARY}--\n"
    )
    return base64.b64encode(text.encode()).decode()


def kubeconfig(cluster_name: str, region: str, endpoint: str, certificate_authority: str) -> str:
    """A kubeconfig (JSON) for one EKS cluster: its API endpoint and CA, and an ``exec`` credential
    plugin that asks the AWS CLI for a token with the deployer's own AWS credentials (the same
    command ``aws eks update-kubeconfig`` writes)."""
    user = {
        "exec": {
            "apiVersion": "client.authentication.k8s.io/v1beta1",
            "command": "aws",
            "args": ["--region", region, "eks", "get-token", "--cluster-name", cluster_name, "--output", "json"],
            "interactiveMode": "Never",
        }
    }
    return json.dumps({
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": cluster_name, "cluster": {"server": endpoint, "certificate-authority-data": certificate_authority}}],
        "users": [{"name": cluster_name, "user": user}],
        "contexts": [{"name": cluster_name, "context": {"cluster": cluster_name, "user": cluster_name}}],
        "current-context": cluster_name,
    }, sort_keys=True)


AUTOSCALER_PREFIX = "k8s.io/cluster-autoscaler"


def autoscaler_tags(cluster_name: str, labels: Mapping[str, str], taints: Sequence[Taint],
                    resources: Mapping[str, str]) -> dict[str, str]:
    """Auto Scaling group tags for the Kubernetes Cluster Autoscaler (AWS provider).

    The two discovery tags let ``--node-group-auto-discovery=asg:tag=k8s.io/cluster-autoscaler/enabled,
    k8s.io/cluster-autoscaler/<cluster>`` find the group; the ``node-template`` tags describe the node
    the group would start (the labels kubelet sets, taints, extended resources), which the autoscaler
    needs to scale a group up from zero nodes, when there is no node to look at.
    """
    tags = {f"{AUTOSCALER_PREFIX}/enabled": "true", f"{AUTOSCALER_PREFIX}/{cluster_name}": "owned"}
    for key, value in sorted(labels.items()):
        if not kubelet_may_set(key):
            continue  # the node will not carry it (see node_config)
        tags[f"{AUTOSCALER_PREFIX}/node-template/label/{key}"] = value
    for taint in taints:
        tags[f"{AUTOSCALER_PREFIX}/node-template/taint/{taint.key}"] = f"{taint.value}:{taint.effect.value}"
    for name, amount in sorted(resources.items()):
        tags[f"{AUTOSCALER_PREFIX}/node-template/resources/{name}"] = amount
    return tags


#: The node label the Cluster Autoscaler (AWS) reads to know a node has GPUs before the device plugin
#: advertises them; without it, it may add nodes again while the first one brings its GPUs up.
ACCELERATOR_LABEL = "k8s.amazonaws.com/accelerator"


def accelerator_label(fleet: Fleet) -> dict[str, str]:
    """``k8s.amazonaws.com/accelerator`` for NVIDIA GPU fleets (the autoscaler checks its presence;
    the value names the GPU, e.g. ``nvidia-a10g``); nothing for CPU and Neuron fleets."""
    if fleet.gpu is None or device_resource(fleet.gpu.model) != "nvidia.com/gpu":
        return {}
    return {ACCELERATOR_LABEL: f"nvidia-{fleet.gpu.model.value.lower()}"}


def node_gpu_resources(fleet: Fleet) -> dict[str, str]:
    """Extended resources a node of the fleet advertises that the autoscaler cannot know from the
    instance type.

    Time-slicing advertises ``replicas`` ``nvidia.com/gpu`` per GPU; MIG with the ``single`` strategy one
    per MIG instance. Without sharing the autoscaler knows the NVIDIA GPU count from the instance type,
    but not Neuron devices (it models only ``nvidia.com/gpu`` from the type): an Inferentia or Trainium
    fleet's node template carries its ``aws.amazon.com/neuron`` count, without which a pod asking for
    it never fits the modelled node and a group at zero never scales up.
    """
    if fleet.gpu is None:
        return {}
    share = fleet.gpu_sharing
    if share is None:
        resource = device_resource(fleet.gpu.model)
        return {resource: str(fleet.gpu.count)} if resource != "nvidia.com/gpu" else {}
    if share.time_slicing is not None:
        return {device_resource(fleet.gpu.model): str(fleet.gpu.count * share.time_slicing.replicas)}
    if share.mig is not None:
        return {device_resource(fleet.gpu.model): str(fleet.gpu.count * instances_per_gpu(share.mig.profile, fleet.gpu.model, mig_memory(fleet)))}
    return {}


@dataclass
class ClusterJoinArgs:
    cluster_name: str
    region: str
    tags: dict[str, str] = field(default_factory=dict)

    def validate(self) -> None:
        name = self.cluster_name
        ok = 1 <= len(name) <= 100 and name[0].isalnum() and all(c.isalnum() or c in "-_" for c in name)
        require(ok, "ClusterJoinArgs.cluster_name", f"expected an EKS cluster name (letters, digits, - and _), got {name!r}")


def _minor(version: str) -> tuple[int, int]:
    major, minor = version.split(".")[:2]
    return int(major), int(minor)


#: how many minor versions a node's kubelet may be older than the EKS control plane
MAX_NODE_SKEW = 3


def node_version(cluster_version: str, configured: str | None) -> str:
    """The Kubernetes version of the nodes' AMI in a cluster running ``cluster_version``: the cluster's
    own, or ``configured`` (``seedance:eksVersion``) when set and not newer than it, since a kubelet
    newer than its API server is unsupported (EKS: nodes up to three minor versions older). A newer
    one is a :class:`ComponentArgsError`."""
    if configured is None:
        return ".".join(cluster_version.split(".")[:2])
    (major, minor), (cmajor, cminor) = _minor(configured), _minor(cluster_version)
    require((major, minor) <= (cmajor, cminor), "seedance:eksVersion",
            f"expected a version not newer than the cluster's {cluster_version} (a kubelet newer than its API "
            f"server is unsupported), got {configured}; leave it unset to follow the cluster's version")
    require(major == cmajor and cminor - minor <= MAX_NODE_SKEW, "seedance:eksVersion",
            f"expected a version at most {MAX_NODE_SKEW} minor versions older than the cluster's {cluster_version} "
            f"(EKS supports no older nodes), got {configured}; leave it unset to follow the cluster's version")
    return configured


class ClusterJoin(pulumi.ComponentResource):
    instance_profile_arn: pulumi.Output[str]
    node_role_arn: pulumi.Output[str]
    cluster_security_group_id: pulumi.Output[str]
    version: pulumi.Output[str]
    kubernetes: k8s.Provider

    def __init__(self, name: str, args: ClusterJoinArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("seedance:cluster:ClusterJoin", name, None, opts)
        args.validate()
        self.cluster_name = args.cluster_name
        invoke = pulumi.InvokeOutputOptions(parent=self)
        cluster = aws.eks.get_cluster_output(name=args.cluster_name, opts=invoke)
        partition = aws.get_partition_output(opts=invoke).partition

        role = aws.iam.Role(
            f"{name}-node-role",
            description=f"Seedance GPU fleet nodes of EKS cluster {args.cluster_name}",
            assume_role_policy=partition.apply(lambda p: policy_json(node_trust_policy(p))),
            tags=args.tags,
            opts=child(self),
        )
        for policy in NODE_POLICIES:
            aws.iam.RolePolicyAttachment(
                f"{name}-{policy}",
                role=role.name,
                policy_arn=partition.apply(lambda p, policy=policy: f"arn:{p}:iam::aws:policy/{policy}"),
                opts=child(self),
            )
        profile = aws.iam.InstanceProfile(f"{name}-node-profile", role=role.name, tags=args.tags, opts=child(self))
        aws.eks.AccessEntry(
            f"{name}-nodes",
            cluster_name=args.cluster_name,
            principal_arn=role.arn,
            type="EC2_LINUX",
            tags=args.tags,
            opts=child(self),
        )

        self._endpoint = cluster.endpoint
        self._ca = cluster.certificate_authorities.apply(lambda cas: cas[0].data)
        self._service_cidr = cluster.kubernetes_network_configs.apply(lambda cfg: cfg[0].service_ipv4_cidr)
        self.instance_profile_arn = profile.arn
        self.node_role_arn = role.arn
        self.cluster_security_group_id = cluster.vpc_config.apply(lambda v: v.cluster_security_group_id)
        self.version = cluster.version  # the control plane's Kubernetes version (e.g. "1.30")
        self.kubernetes = k8s.Provider(
            f"{name}-kubernetes",
            kubeconfig=pulumi.Output.all(self._endpoint, self._ca).apply(
                lambda v: kubeconfig(args.cluster_name, args.region, v[0], v[1])),
            opts=child(self),
        )
        self.register_outputs(
            {
                "instance_profile_arn": self.instance_profile_arn,
                "node_role_arn": self.node_role_arn,
                "cluster_security_group_id": self.cluster_security_group_id,
            }
        )

    def user_data(self, labels: Mapping[str, str], taints: Sequence[Taint] = ()) -> pulumi.Output[str]:
        """The fleet's user data (base64), once the cluster lookup has answered."""
        frozen, frozen_taints = dict(labels), list(taints)
        return pulumi.Output.all(self._endpoint, self._ca, self._service_cidr).apply(
            lambda v: node_user_data(self.cluster_name, v[0], v[1], v[2], frozen, frozen_taints)
        )

