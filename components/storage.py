"""StorageTiers: Kubernetes StorageClasses (EBS gp3/io2, local NVMe) and S3 checkpoint buckets.

Reclaim policy from the data class: a volume holding personal data is deleted with its claim
(storage limitation; nothing orphaned outlives the workload), other classes keep the policy's
declared ``reclaimPolicy``. Buckets: KMS encryption with the stack key, all public access blocked,
versioning, a TLS-only bucket policy and a lifecycle hot (Standard) -> Standard-IA (unless
``warmDays`` is null) -> Glacier -> expiry with non-current version expiry.

The EBS StorageClasses whose volumes need a backup (``backup_classes``) give those volumes the
backup tag through the EBS CSI driver's ``tagSpecification_1`` parameter; the EbsBackup selection
(components/backup.py) selects on it. Every EBS class gives its volumes the stack's cost-allocation
tags (``tagSpecification_2`` on), so the stack's AWS Budget, which filters on ``seedance:stack``,
sees what they cost.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pulumi
import pulumi_aws as aws
import pulumi_kubernetes as k8s

from components.common import TagSet, child, require
from components.s3 import BucketParts, replicate, secure_bucket
from seedance.policy.model import EBS_TIERS, CheckpointBucket, DataClass, ReclaimPolicy, StorageClass, StorageTier

EBS_CSI = "ebs.csi.aws.com"
#: The EBS CSI driver tags the volumes it provisions with every StorageClass parameter prefixed
#: "tagSpecification" ("key=value", split at the first "="); this one carries the backup tag.
TAG_PARAMETER_PREFIX = "tagSpecification_"
BACKUP_TAG_PARAMETER = f"{TAG_PARAMETER_PREFIX}1"
NO_PROVISIONER = "kubernetes.io/no-provisioner"
ZONE_LABEL = "topology.kubernetes.io/zone"
#: S3 refuses a transition to Standard-IA earlier than 30 days after creation.
MIN_STANDARD_IA_DAYS = 30
#: Tag keys the EBS CSI driver keeps for itself: CreateVolume fails for a StorageClass that asks for
#: one (aws-ebs-csi-driver, validateExtraTags: these keys, and the prefixes kubernetes.io and aws:).
CSI_RESERVED_TAG_KEYS = frozenset({"CSIVolumeName", "CSIVolumeSnapshotName", "ebs.csi.aws.com/cluster"})
CSI_RESERVED_TAG_PREFIXES = ("kubernetes.io", "aws:")
ABORT_MULTIPART_DAYS = 7


def csi_volume_tags(tags: dict[str, str]) -> dict[str, str]:
    """The tags a StorageClass may ask the EBS CSI driver to put on its volumes: all but the keys it
    keeps for itself (a ``kubernetes.io/...`` key of ``metadata.tags`` stays on the other resources)."""
    return {k: v for k, v in tags.items()
            if k not in CSI_RESERVED_TAG_KEYS and not k.startswith(CSI_RESERVED_TAG_PREFIXES)}


def reclaim_policy(sc: StorageClass) -> str:
    return ReclaimPolicy.DELETE.value if sc.data_class is DataClass.PERSONAL else sc.reclaim_policy.value


@dataclass(frozen=True)
class LifecycleDays:
    """Object ages (days since creation) at each lifecycle step; ``None`` = step absent."""

    standard_ia: int | None
    glacier: int
    expire: int | None
    noncurrent_expire: int | None


def lifecycle_days(bucket: CheckpointBucket) -> LifecycleDays:
    """``hotDays`` in Standard, then ``warmDays`` in Standard-IA (none when null: Standard goes
    straight to Glacier at ``hotDays``), then Glacier, then expiry.

    Expiry is ``expireDays`` when given, else the end of ``coldDays`` in Glacier, else never."""
    where = f"storage.checkpointBuckets[{bucket.name}]"
    if bucket.warm_days is not None:
        require(bucket.hot_days >= MIN_STANDARD_IA_DAYS, f"{where}.hotDays",
                f"expected >= {MIN_STANDARD_IA_DAYS} (S3's minimum before Standard-IA), got {bucket.hot_days}")
        require(bucket.warm_days >= MIN_STANDARD_IA_DAYS, f"{where}.warmDays",
                f"expected >= {MIN_STANDARD_IA_DAYS} (S3 keeps objects in Standard-IA that long before Glacier), "
                f"got {bucket.warm_days}")
        ia: int | None = bucket.hot_days
        glacier = bucket.hot_days + bucket.warm_days
    else:
        ia, glacier = None, bucket.hot_days
    expire = bucket.expire_days
    if expire is None and bucket.cold_days is not None:
        expire = glacier + bucket.cold_days
    if expire is not None:
        require(expire > glacier, f"{where}.expireDays", f"expected more than {glacier} days (after the last transition), got {expire}")
    return LifecycleDays(ia, glacier, expire, bucket.noncurrent_expire_days if bucket.versioning else None)


@dataclass
class StorageTiersArgs:
    region: str
    availability_zones: list[str]
    kms_key_arn: pulumi.Input[str]
    tag_set: TagSet
    classes: list[StorageClass] = field(default_factory=list)
    buckets: list[CheckpointBucket] = field(default_factory=list)
    fs_type: str = "ext4"
    # off-site copies of the personal-data buckets (MLPS off-site backup): region, its key, account
    replica_region: str | None = None
    replica_kms_key_arn: pulumi.Input[str] | None = None
    account_id: pulumi.Input[str] | None = None
    # False when the stack names no cluster: the StorageClasses would have nowhere to go
    kubernetes: bool = True
    # the tag (key, value) an AWS Backup selection selects on, and the classes whose volumes get it
    backup_tag: tuple[str, str] | None = None
    backup_classes: list[str] = field(default_factory=list)

    def validate(self) -> None:
        for sc in self.classes:
            where = f"storage.classes[{sc.name}]"
            require(sc.encrypted or sc.data_class is DataClass.PUBLIC, f"{where}.encrypted",
                    f"unencrypted volumes are only allowed for public data, got dataClass {sc.data_class.value}")
            if sc.tier is StorageTier.LOCAL_NVME:
                require(bool(self.availability_zones), "StorageTiersArgs.availability_zones", "expected AZs for local NVMe topologies")
            if sc.tier is StorageTier.IO2:
                require(sc.iops is not None, f"{where}.iops", "io2 needs provisioned IOPS")
        if self.replica_region:
            require(self.replica_kms_key_arn is not None and self.account_id is not None, "StorageTiersArgs.replica_kms_key_arn",
                    "a replica region needs a KMS key in that region and the account id")
            require(self.replica_region != self.region, "StorageTiersArgs.replica_region",
                    f"expected a region other than {self.region} for an off-site copy")
        ebs = {sc.name for sc in self.classes if sc.tier in EBS_TIERS}
        unknown = [n for n in self.backup_classes if n not in ebs]
        require(not unknown, "StorageTiersArgs.backup_classes", f"expected EBS storage classes ({sorted(ebs)}), got {unknown}")
        require(self.backup_tag is not None or not self.backup_classes, "StorageTiersArgs.backup_tag",
                "expected the tag a backup selection selects on for the backup classes")
        if self.backup_tag is not None:
            require(bool(self.backup_tag[0]) and "=" not in self.backup_tag[0], "StorageTiersArgs.backup_tag",
                    f"expected a tag key without '=' (the EBS CSI driver splits key=value at the first '='), got {self.backup_tag[0]!r}")
        names = [b.name for b in self.buckets]
        require(len(names) == len(set(names)), "storage.checkpointBuckets", f"bucket names must be unique, got {names}")
        for b in self.buckets:
            lifecycle_days(b)
            if self.replica_region and b.data_class is DataClass.PERSONAL:
                require(b.versioning, f"storage.checkpointBuckets[{b.name}].versioning",
                        "an off-site replica (required for personal data here) needs versioning on")


class StorageTiers(pulumi.ComponentResource):
    storage_class_names: list[str]
    bucket_names: pulumi.Output[dict[str, str]]
    bucket_arns: pulumi.Output[dict[str, str]]
    personal_bucket_arns: list[pulumi.Output[str]]  # for the trail's S3 data events (off-site replicas included)
    buckets: list[BucketParts]  # every bucket made, replicas included (e.g. for access logging)

    def __init__(self, name: str, args: StorageTiersArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("seedance:storage:StorageTiers", name, None, opts)
        args.validate()
        self.storage_class_names = []
        for sc in args.classes if args.kubernetes else []:
            self._storage_class(name, sc, args)
            self.storage_class_names.append(sc.name)
        names: dict[str, pulumi.Output[str]] = {}
        arns: dict[str, pulumi.Output[str]] = {}
        self.personal_bucket_arns = []
        self.buckets = []
        for b in args.buckets:
            bucket, replica = self._bucket(name, b, args)
            names[b.name] = bucket.bucket
            arns[b.name] = bucket.arn
            if b.data_class is DataClass.PERSONAL:  # its off-site replica holds the same data
                self.personal_bucket_arns += [bucket.arn] + ([] if replica is None else [replica.arn])
        self.bucket_names = pulumi.Output.from_input(names)
        self.bucket_arns = pulumi.Output.from_input(arns)
        self.register_outputs(
            {"storage_class_names": self.storage_class_names, "bucket_names": self.bucket_names, "bucket_arns": self.bucket_arns}
        )

    # ------------------------------------------------------------------ Kubernetes

    def _storage_class(self, name: str, sc: StorageClass, args: StorageTiersArgs) -> k8s.storage.v1.StorageClass:
        metadata = k8s.meta.v1.ObjectMetaArgs(
            name=sc.name,
            labels={**args.tag_set.labels(data_class=sc.data_class), "seedance.io/tier": sc.tier.value},
        )
        if sc.tier is StorageTier.LOCAL_NVME:
            return k8s.storage.v1.StorageClass(
                f"{name}-{sc.name}",
                metadata=metadata,
                provisioner=NO_PROVISIONER,
                reclaim_policy=reclaim_policy(sc),
                volume_binding_mode="WaitForFirstConsumer",
                allowed_topologies=[
                    k8s.core.v1.TopologySelectorTermArgs(
                        match_label_expressions=[
                            k8s.core.v1.TopologySelectorLabelRequirementArgs(key=ZONE_LABEL, values=list(args.availability_zones))
                        ]
                    )
                ],
                opts=child(self),
            )
        parameters: dict[str, pulumi.Input[str]] = {
            "type": sc.tier.value,
            "encrypted": "true" if sc.encrypted else "false",
            "csi.storage.k8s.io/fstype": args.fs_type,
        }
        if sc.encrypted:
            parameters["kmsKeyId"] = args.kms_key_arn
        if sc.iops is not None:
            parameters["iops"] = str(sc.iops)
        if sc.throughput_mibps is not None:
            parameters["throughput"] = str(sc.throughput_mibps)
        if args.backup_tag is not None and sc.name in args.backup_classes:
            parameters[BACKUP_TAG_PARAMETER] = "=".join(args.backup_tag)
        # the cost-allocation tags (seedance:stack above all: the stack's AWS Budget filters on it),
        # which nothing else puts on the volumes the driver provisions
        volume_tags = csi_volume_tags(args.tag_set.for_resource(purpose="volume-storage", data_class=sc.data_class))
        for i, (key, value) in enumerate(sorted(volume_tags.items()), start=2):
            parameters[f"{TAG_PARAMETER_PREFIX}{i}"] = f"{key}={value}"
        return k8s.storage.v1.StorageClass(
            f"{name}-{sc.name}",
            metadata=metadata,
            provisioner=EBS_CSI,
            parameters=parameters,
            reclaim_policy=reclaim_policy(sc),
            volume_binding_mode=sc.binding_mode.value,
            allow_volume_expansion=True,
            opts=child(self),
        )

    # ------------------------------------------------------------------ S3

    def _bucket(self, name: str, b: CheckpointBucket, args: StorageTiersArgs) -> tuple[aws.s3.Bucket, aws.s3.Bucket | None]:
        """The bucket and, where a framework copies it off site, its replica."""
        base = f"{name}-{b.name}"
        tags = args.tag_set.for_resource(purpose="checkpoint-storage", data_class=b.data_class)
        rules = [lifecycle_rule(lifecycle_days(b))]
        parts = secure_bucket(self, base, kms_key_arn=args.kms_key_arn, tags=tags, versioned=b.versioning, lifecycle_rules=rules)
        self.buckets.append(parts)
        if args.replica_region and b.data_class is DataClass.PERSONAL:
            assert args.replica_kms_key_arn is not None and args.account_id is not None
            replica = replicate(
                self,
                base,
                parts,
                source_kms_key_arn=args.kms_key_arn,
                replica_region=args.replica_region,
                replica_kms_key_arn=args.replica_kms_key_arn,
                account_id=args.account_id,
                tags=tags,
                lifecycle_rules=rules,
            )
            self.buckets.append(replica)
            return parts.bucket, replica.bucket
        return parts.bucket, None


def lifecycle_rule(days: LifecycleDays) -> aws.s3.BucketLifecycleConfigurationRuleArgs:
    transitions = []
    if days.standard_ia is not None:
        transitions.append(aws.s3.BucketLifecycleConfigurationRuleTransitionArgs(days=days.standard_ia, storage_class="STANDARD_IA"))
    transitions.append(aws.s3.BucketLifecycleConfigurationRuleTransitionArgs(days=days.glacier, storage_class="GLACIER"))
    return aws.s3.BucketLifecycleConfigurationRuleArgs(
        id="tiering",
        status="Enabled",
        filter=aws.s3.BucketLifecycleConfigurationRuleFilterArgs(prefix=""),
        transitions=transitions,
        expiration=aws.s3.BucketLifecycleConfigurationRuleExpirationArgs(days=days.expire) if days.expire is not None else None,
        noncurrent_version_expiration=(
            aws.s3.BucketLifecycleConfigurationRuleNoncurrentVersionExpirationArgs(noncurrent_days=days.noncurrent_expire)
            if days.noncurrent_expire is not None
            else None
        ),
        abort_incomplete_multipart_upload=aws.s3.BucketLifecycleConfigurationRuleAbortIncompleteMultipartUploadArgs(
            days_after_initiation=ABORT_MULTIPART_DAYS
        ),
    )
