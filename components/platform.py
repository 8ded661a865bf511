"""Assemble a stack: every Seedance component for one policy and its plan.

Called by ``stacks/__main__.py`` (under ``pulumi up`` and under ``seedance synth``) and by tests.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass
from typing import Any

import pulumi
import pulumi_aws as aws

from components.access_logs import MIN_ARCHIVE_DAYS, AccessLogArchive, AccessLogArchiveArgs, LoggedBucket, archive_bucket_prefix
from components.audit import AuditBaseline, AuditBaselineArgs
from components.backup import BACKUP_TAG_KEY, EbsBackup, EbsBackupArgs
from components.budget import BudgetGuard, BudgetGuardArgs
from components.cluster import ClusterJoin, ClusterJoinArgs, accelerator_label, autoscaler_tags, node_gpu_resources, node_version
from components.common import PURPOSE_BY_WORKLOAD, TagSet, most_sensitive, require
from components.fleet import ASG_MAX_TAGS, DEFAULT_EKS_VERSION, check_eks_version, SpotRiFleet, SpotRiFleetArgs, group_tag_count, oversized_tags
from components.gpu_sharing import GpuSharing, GpuSharingArgs, sharing_node_labels
from components.kms import StackKey, StackKeyArgs, autoscaling_role_suffix, stack_alias
from components.namespace import FleetNamespace, FleetNamespaceArgs
from components.network import CostAwareNetwork, CostAwareNetworkArgs
from components.scheduling import CostAwareScheduling, CostAwareSchedulingArgs
from components.storage import StorageTiers, StorageTiersArgs
from seedance.awsnames import CHECKPOINT_BUCKETS
from seedance.estimate.network import interface_endpoint_zones
from seedance.planner.endpoints import EndpointPrices, decide_endpoints
from seedance.planner.plan import Plan
from seedance.offsite import off_site_region
from seedance.policy.model import CostPolicy, DataClass, Fleet, Framework, Taint


#: The component that archives the stack's S3 server access logs (its buckets' names start with
#: ``archive_bucket_prefix(ACCESS_LOGS)``, which the stack key's policy names).
ACCESS_LOGS = "access-logs"

def backup_region(policy: CostPolicy) -> str | None:
    """The region of off-site copies of personal data, when a framework requires them.

    MLPS 2.0 level 3 (8.1.4.9 b) asks for an off-site backup: the partner region of the stack's
    region, which must also satisfy ``compliance.dataResidency``. Other stacks: none."""
    if Framework.MLPS_L3 not in policy.compliance.frameworks:
        return None
    region = policy.cloud.region
    partner = off_site_region(policy)
    require(partner is not None, "cloud.region", f"no off-site backup region is known for {region} (MLPS off-site backup)")
    assert partner is not None
    globs = policy.compliance.data_residency
    require(not globs or any(fnmatch.fnmatchcase(partner, g) for g in globs), "compliance.dataResidency",
            f"the off-site backup region {partner} is outside {globs}")
    return partner


@dataclass
class PlatformArgs:
    policy: CostPolicy
    plan: Plan
    stack: str
    endpoint_prices: EndpointPrices | None
    route_table_ids: list[str] | None = None  # None: every route table of the VPC
    # the node AMIs' Kubernetes version (seedance:eksVersion); None: the joined cluster's, else DEFAULT_EKS_VERSION
    eks_version: str | None = None
    cluster_name: str | None = None  # EKS cluster the fleets' nodes join (None: no user data, no node role)

    def validate(self) -> None:
        p = self.policy
        require(self.plan.region == p.cloud.region, "plan.region", f"expected the policy's region {p.cloud.region}, got {self.plan.region}")
        planned = {f.name for f in self.plan.fleets}
        missing = [f.name for f in p.fleets if f.name not in planned]
        require(not missing, "plan.fleets", f"no plan for fleet(s) {missing}")
        # a plan for a cluster sizes groups by the demand; without one they run their desired size
        joins = bool(self.cluster_name)
        require(self.plan.cluster == joins, "plan.cluster",
                f"expected a plan for a stack {'that joins a cluster' if joins else 'without a cluster'} "
                f"(cluster_name {self.cluster_name!r}), got one planned {'for' if self.plan.cluster else 'without'} a cluster")


@dataclass
class Platform:
    provider: aws.Provider
    kms_key_arn: pulumi.Input[str]
    fleets: dict[str, SpotRiFleet]
    namespaces: dict[str, FleetNamespace]
    cluster: ClusterJoin | None
    network: CostAwareNetwork
    storage: StorageTiers
    scheduling: CostAwareScheduling | None  # the Kubernetes side exists only with a cluster
    gpu_sharing: GpuSharing | None
    budget: BudgetGuard
    audit: AuditBaseline
    access_logs: AccessLogArchive | None = None  # S3 server access logs (MLPS level 3 stacks)
    backup: EbsBackup | None = None  # AWS Backup of the EBS StorageClasses a framework requires backups of

    def exports(self) -> dict[str, Any]:
        return {
            "kmsKeyArn": self.kms_key_arn,
            "fleets": {n: {"asgName": f.asg_name, "launchTemplateId": f.launch_template_id} for n, f in self.fleets.items()},
            "endpointRationale": self.network.rationale,
            "interfaceEndpoints": self.network.interface_endpoint_ids,
            "checkpointBuckets": self.storage.bucket_names,
            "budget": self.budget.budget_name,
            "budgetTopicArn": self.budget.topic_arn,  # for `seedance budget respond --verify-signature --topic-arn`
            "trail": self.audit.trail_arn,
            **({"accessLogBuckets": self.access_logs.bucket_names} if self.access_logs else {}),
            **({"gpuNodeLabels": self.gpu_sharing.node_labels} if self.gpu_sharing else {}),
            # what the cluster's own software must be pointed at (Seedance writes configuration only)
            **({"kubernetes": {**self.scheduling.wiring, "gpuOperatorSettings": self.gpu_sharing.operator_settings}}
               if self.scheduling and self.gpu_sharing else {}),
            **({"nodeRoleArn": self.cluster.node_role_arn} if self.cluster else {}),
        }


def _cluster_node(cluster_name: str, fleet: Fleet, tag_set: TagSet) -> tuple[dict[str, str], list[Taint], dict[str, str]]:
    """A cluster-joined fleet's node labels and taints, and the Cluster Autoscaler tags of its group."""
    labels = {**tag_set.labels(fleet=fleet), **accelerator_label(fleet), **sharing_node_labels(fleet)}
    taints = fleet.node_taints()
    return labels, taints, autoscaler_tags(cluster_name, labels, taints, node_gpu_resources(fleet))


def group_tag_issues(policy: CostPolicy, tag_set: TagSet,
                     cluster_name: str) -> list[tuple[tuple[str | int, ...], str, str]]:
    """Where each fleet's Auto Scaling group would not fit AWS's tags once it joins ``cluster_name``: the
    Cluster Autoscaler's tags (from the fleet's labels and taints) beside the stack's, at most 50, keys
    of at most 128 characters. Each issue: the policy field to change, the fleet (``fleets[NAME]``) and
    what is wrong."""
    out: list[tuple[tuple[str | int, ...], str, str]] = []
    for i, fleet in enumerate(policy.fleets):
        tags = tag_set.for_resource(purpose=PURPOSE_BY_WORKLOAD[fleet.workload], fleet=fleet)
        group_tags = _cluster_node(cluster_name, fleet, tag_set)[2]
        count = group_tag_count(tags, group_tags)
        long = oversized_tags(group_tags)  # a label or taint key makes a tag key
        where = f"fleets[{fleet.name}]"
        if long:
            out.append((("fleets", i), where, f"the Cluster Autoscaler tag {long[0]!r} of its group is longer than "
                        "AWS takes (keys at most 128 characters, values 256): shorten the label or taint key or value "
                        "it is made from"))
        if count > ASG_MAX_TAGS:
            out.append((("metadata", "tags"), where,
                        f"its Auto Scaling group would carry {count} tags, AWS takes at most {ASG_MAX_TAGS}: "
                        f"{count - len(group_tags)} of the stack and fleet (metadata.tags among them) and "
                        f"{len(group_tags)} the Cluster Autoscaler needs (discovery, node labels, taints, resources) "
                        f"when it joins a cluster; drop {count - ASG_MAX_TAGS} of metadata.tags"))
    return out


def _check_group_tags(args: PlatformArgs, tag_set: TagSet) -> None:
    """Before any resource: every fleet's Auto Scaling group fits AWS's 50 tags with the Cluster
    Autoscaler's (which depend on the fleet's labels and taints), so a stack is never left half made."""
    if not args.cluster_name:
        return
    for _, where, what in group_tag_issues(args.policy, tag_set, args.cluster_name):
        require(False, where, what)


def build_platform(args: PlatformArgs) -> Platform:
    args.validate()
    policy, plan, stack = args.policy, args.plan, args.stack
    cloud = policy.cloud
    tag_set = TagSet.from_policy(policy, stack)
    _check_group_tags(args, tag_set)
    provider = aws.Provider(
        "aws",
        region=cloud.region,
        allowed_account_ids=[cloud.account_id] if cloud.account_id else None,
        default_tags=aws.ProviderDefaultTagsArgs(tags=tag_set.base),
    )
    aws_opts = pulumi.ResourceOptions(providers=[provider])
    account_id: pulumi.Input[str] = cloud.account_id or aws.get_caller_identity_output(
        opts=pulumi.InvokeOutputOptions(provider=provider)
    ).account_id

    # MLPS 2.0 level 3 (8.1.4.3 a) audits access to every bucket: S3 server access logs to an archive
    access_logged = Framework.MLPS_L3 in policy.compliance.frameworks
    access_log_prefix = archive_bucket_prefix(ACCESS_LOGS) if access_logged else None
    kms_key_arn: pulumi.Input[str]
    # the service-linked role the groups launch under: the account's default one for a key the policy
    # names (its key policy must admit that role), the stack's own for the key the stack creates
    autoscaling_role_arn: pulumi.Input[str] | None = None
    if policy.compliance.kms_key_arn:
        kms_key_arn = policy.compliance.kms_key_arn
    else:
        key = StackKey(
            "kms",
            StackKeyArgs(region=cloud.region, account_id=account_id, alias=stack_alias(stack), access_log_bucket_prefix=access_log_prefix,
                         autoscaling_role_suffix=autoscaling_role_suffix(stack),
                         tags=tag_set.for_resource(purpose="encryption")),
            aws_opts,
        )
        kms_key_arn = key.key_arn
        autoscaling_role_arn = key.autoscaling_role_arn

    replica_region = backup_region(policy)
    replica_key_arn: pulumi.Input[str] | None = None
    if replica_region is not None:
        replica_key = StackKey(
            "kms-replica",
            StackKeyArgs(region=replica_region, account_id=account_id, alias=stack_alias(stack, "-replica"), pin_region=True,
                         access_log_bucket_prefix=access_log_prefix,
                         tags=tag_set.for_resource(purpose="encryption")),
            aws_opts,
        )
        replica_key_arn = replica_key.key_arn

    # The Kubernetes side (namespaces, StorageClasses, scheduling, GPU sharing) goes to the named
    # cluster through its own provider, never to the deployer's current kubeconfig context; a stack
    # that names no cluster has no Kubernetes objects.
    cluster = None
    gpu_sharing = None
    k8s_opts = None
    if args.cluster_name:
        cluster = ClusterJoin("cluster", ClusterJoinArgs(args.cluster_name, cloud.region,
                                                         tags=tag_set.for_resource(purpose="cluster-access")), aws_opts)
        k8s_opts = pulumi.ResourceOptions(providers=[cluster.kubernetes])
        gpu_sharing = GpuSharing("gpu-sharing", GpuSharingArgs(fleets=list(policy.fleets), tag_set=tag_set), k8s_opts)
    fleets: dict[str, SpotRiFleet] = {}
    namespaces: dict[str, FleetNamespace] = {}
    # the nodes' kubelet follows the control plane's version (never newer than it)
    if args.eks_version is not None:
        check_eks_version(args.eks_version, "seedance:eksVersion")
    eks_version: pulumi.Input[str] = args.eks_version or DEFAULT_EKS_VERSION
    if cluster is not None:
        eks_version = cluster.version.apply(lambda v: node_version(v, args.eks_version))
    for fleet in policy.fleets:
        join: dict[str, Any] = {}
        if cluster is None and fleet.capacity.desired > 0:
            pulumi.log.warn(f"fleet {fleet.name}: no seedance:clusterName, so its {fleet.capacity.desired} node(s) "
                            "start, and bill, without joining a cluster")
        if cluster is not None:
            labels, taints, group_tags = _cluster_node(cluster.cluster_name, fleet, tag_set)
            join = dict(instance_profile_arn=cluster.instance_profile_arn, user_data=cluster.user_data(labels, taints),
                        extra_security_group_ids=[cluster.cluster_security_group_id],
                        group_tags=group_tags, autoscaler_managed=True)
        fleets[fleet.name] = SpotRiFleet(
            fleet.name,
            SpotRiFleetArgs(
                fleet=fleet,
                plan=plan.fleet(fleet.name),
                vpc_id=cloud.vpc_id,
                subnet_ids=list(cloud.subnet_ids),
                availability_zones=list(cloud.availability_zones),
                kms_key_arn=kms_key_arn,
                service_linked_role_arn=autoscaling_role_arn,
                tags=tag_set.for_resource(purpose=PURPOSE_BY_WORKLOAD[fleet.workload], fleet=fleet),
                eks_version=eks_version,
                **join,
            ),
            aws_opts,
        )
        if k8s_opts is not None:
            namespaces[fleet.name] = FleetNamespace(fleet.name, FleetNamespaceArgs(fleet=fleet, tag_set=tag_set,
                                                                                overcommit_cap=policy.scheduling.overcommit_cap), k8s_opts)

    network = CostAwareNetwork(
        "network",
        CostAwareNetworkArgs(
            region=cloud.region,
            vpc_id=cloud.vpc_id,
            vpc_cidr=cloud.vpc_cidr,
            subnet_ids=list(cloud.subnet_ids),
            availability_zones=list(cloud.availability_zones),
            account_id=account_id,
            decisions=decide_endpoints(policy.network, interface_endpoint_zones(cloud.availability_zones, cloud.subnet_ids),
                                       args.endpoint_prices),
            route_table_ids=None if args.route_table_ids is None else list(args.route_table_ids),
            tags=tag_set.for_resource(purpose="networking"),
        ),
        aws_opts,
    )
    # EBS volumes a framework requires under a backup plan: the StorageClasses' (only with a cluster)
    backed_up = policy.backed_up_classes() if cluster is not None else []
    backup_tag = (BACKUP_TAG_KEY, stack)
    storage = StorageTiers(
        CHECKPOINT_BUCKETS,
        StorageTiersArgs(
            region=cloud.region,
            availability_zones=list(cloud.availability_zones),
            kms_key_arn=kms_key_arn,
            tag_set=tag_set,
            classes=list(policy.storage.classes),
            buckets=list(policy.storage.checkpoint_buckets),
            replica_region=replica_region,
            replica_kms_key_arn=replica_key_arn,
            account_id=account_id,
            kubernetes=cluster is not None,
            backup_tag=backup_tag if backed_up else None,
            backup_classes=[sc.name for sc in backed_up],
        ),
        pulumi.ResourceOptions(providers=[provider, cluster.kubernetes]) if cluster is not None else aws_opts,
    )
    backup = None
    if backed_up:
        held = most_sensitive([sc.data_class for sc in backed_up])
        # off-site copies of personal data, as the checkpoint buckets' replicas (MLPS 8.1.4.9 b)
        off_site = replica_region is not None and held is DataClass.PERSONAL
        backup = EbsBackup(
            "backup",
            EbsBackupArgs(
                stack=stack,
                region=cloud.region,
                kms_key_arn=kms_key_arn,
                retention_days=policy.storage.backup_retention_days,
                tags=tag_set.for_resource(purpose="backup", data_class=held),
                copy_region=replica_region if off_site else None,
                copy_kms_key_arn=replica_key_arn if off_site else None,
            ),
            aws_opts,
        )
    scheduling = None
    if k8s_opts is not None:
        scheduling = CostAwareScheduling(
            "scheduling",
            CostAwareSchedulingArgs(
                scheduling=policy.scheduling,
                fleets=list(policy.fleets),
                tag_set=tag_set,
                namespaces={n: ns.namespace for n, ns in namespaces.items()},
            ),
            k8s_opts,
        )
    budget = BudgetGuard(
        "budget",
        BudgetGuardArgs(
            budget=policy.budget,
            stack=stack,
            owner=policy.metadata.owner,
            region=cloud.region,
            account_id=account_id,
            kms_key_arn=kms_key_arn,
            tags=tag_set.for_resource(purpose="cost-control"),
        ),
        aws_opts,
    )
    audit = AuditBaseline(
        "audit",
        AuditBaselineArgs(
            stack=stack,
            region=cloud.region,
            vpc_id=cloud.vpc_id,
            account_id=account_id,
            kms_key_arn=kms_key_arn,
            log_retention_days=policy.compliance.log_retention_days,
            data_event_bucket_arns=list(storage.personal_bucket_arns),
            replica_region=replica_region if tag_set.stack_data_class is DataClass.PERSONAL else None,
            replica_kms_key_arn=replica_key_arn,
            tags=tag_set.for_resource(purpose="audit-logging"),
            existing_trail_arn=existing.arn if (existing := policy.compliance.existing_trail) else None,
            existing_trail_s3_data_events=bool(existing and existing.s3_data_events),
        ),
        aws_opts,
    )
    access_logs = None
    if access_logged:
        access_logs = AccessLogArchive(
            ACCESS_LOGS,
            AccessLogArchiveArgs(
                region=cloud.region,
                account_id=account_id,
                kms_key_arn=kms_key_arn,
                retention_days=max(policy.compliance.log_retention_days, MIN_ARCHIVE_DAYS),
                sources=[LoggedBucket.of(p, cloud.region) for p in (*storage.buckets, *audit.buckets)],
                replica_region=replica_region if tag_set.stack_data_class is DataClass.PERSONAL else None,
                replica_kms_key_arn=replica_key_arn,
                tags=tag_set.for_resource(purpose="access-logging"),
            ),
            aws_opts,
        )
    return Platform(provider, kms_key_arn, fleets, namespaces, cluster, network, storage, scheduling, gpu_sharing, budget, audit,
                    access_logs, backup=backup)
