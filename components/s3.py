"""Secure S3 buckets shared by the components: private, KMS-encrypted, versioned, TLS-only, with
an optional lifecycle and an optional off-site (cross-region) replica.

Children are named ``{base}``, ``{base}-public-access-block``, ``-sse``, ``-versioning``,
``-policy``, ``-lifecycle``; a replica adds ``{base}-replica`` (same parts), ``{base}-replication-role``
(+ ``-policy``) and ``{base}-replication``. The replica lives in another region through the
pulumi-aws 7 per-resource ``region`` input, encrypted with a key of that region.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import pulumi
import pulumi_aws as aws

from components.common import child, policy_json
from seedance.awsnames import AUTO_NAME_SUFFIX, IAM_ROLE_NAME_MAX, IAM_ROLE_PREFIX_MAX, REPLICA_SUFFIX

Statements = Callable[[str], pulumi.Input[list[dict]]]  # bucket ARN -> extra policy statements


def tls_only_statement(bucket_arn: str) -> dict:
    return {
        "Sid": "DenyInsecureTransport",
        "Effect": "Deny",
        "Principal": "*",
        "Action": "s3:*",
        "Resource": [bucket_arn, f"{bucket_arn}/*"],
        "Condition": {"Bool": {"aws:SecureTransport": "false"}},
    }


@dataclass
class BucketParts:
    bucket: aws.s3.Bucket
    versioning: aws.s3.BucketVersioning | None
    policy: aws.s3.BucketPolicy
    base: str = ""  # the bucket's logical name
    region: str | None = None  # None: the provider's region


def secure_bucket(
    parent: pulumi.Resource,
    base: str,
    *,
    kms_key_arn: pulumi.Input[str],
    tags: dict[str, str],
    region: str | None = None,
    versioned: bool = True,
    extra_statements: Statements | None = None,
    lifecycle_rules: Sequence[aws.s3.BucketLifecycleConfigurationRuleArgs] = (),
) -> BucketParts:
    bucket = aws.s3.Bucket(base, force_destroy=False, region=region, tags=tags, opts=child(parent))
    pab = aws.s3.BucketPublicAccessBlock(
        f"{base}-public-access-block",
        bucket=bucket.id,
        region=region,
        block_public_acls=True,
        block_public_policy=True,
        ignore_public_acls=True,
        restrict_public_buckets=True,
        opts=child(parent),
    )
    aws.s3.BucketServerSideEncryptionConfiguration(
        f"{base}-sse",
        bucket=bucket.id,
        region=region,
        rules=[
            aws.s3.BucketServerSideEncryptionConfigurationRuleArgs(
                apply_server_side_encryption_by_default=aws.s3.BucketServerSideEncryptionConfigurationRuleApplyServerSideEncryptionByDefaultArgs(
                    sse_algorithm="aws:kms", kms_master_key_id=kms_key_arn
                ),
                bucket_key_enabled=True,
            )
        ],
        opts=child(parent),
    )
    versioning = None
    if versioned:
        versioning = aws.s3.BucketVersioning(
            f"{base}-versioning",
            bucket=bucket.id,
            region=region,
            versioning_configuration=aws.s3.BucketVersioningVersioningConfigurationArgs(status="Enabled"),
            opts=child(parent),
        )

    def document(arn: str) -> pulumi.Output[str]:
        extra = pulumi.Output.from_input(extra_statements(arn) if extra_statements else [])
        return extra.apply(lambda more: policy_json({"Version": "2012-10-17", "Statement": [tls_only_statement(arn), *more]}))

    policy = aws.s3.BucketPolicy(
        f"{base}-policy", bucket=bucket.id, region=region, policy=bucket.arn.apply(document), opts=child(parent, depends_on=[pab])
    )
    if lifecycle_rules:
        aws.s3.BucketLifecycleConfiguration(
            f"{base}-lifecycle",
            bucket=bucket.id,
            region=region,
            rules=list(lifecycle_rules),
            opts=child(parent, depends_on=[versioning] if versioning else None),
        )
    return BucketParts(bucket, versioning, policy, base, region)


def deny_deletion_statement(bucket_arn: str) -> dict:
    """Nobody deletes objects (lifecycle expiry is not subject to bucket policies)."""
    return {
        "Sid": "DenyObjectDeletion",
        "Effect": "Deny",
        "Principal": "*",
        "Action": ["s3:DeleteObject", "s3:DeleteObjectVersion"],
        "Resource": f"{bucket_arn}/*",
    }


def replication_role_policy(source_arn: str, replica_arn: str, source_key: str, replica_key: str) -> dict:
    return {
        "Version": "2012-10-17",
        "Statement": [
            {"Effect": "Allow", "Action": ["s3:GetReplicationConfiguration", "s3:ListBucket"], "Resource": source_arn},
            {
                "Effect": "Allow",
                "Action": ["s3:GetObjectVersionForReplication", "s3:GetObjectVersionAcl", "s3:GetObjectVersionTagging"],
                "Resource": f"{source_arn}/*",
            },
            {"Effect": "Allow", "Action": ["s3:ReplicateObject", "s3:ReplicateDelete", "s3:ReplicateTags"], "Resource": f"{replica_arn}/*"},
            {"Effect": "Allow", "Action": "kms:Decrypt", "Resource": source_key},
            {"Effect": "Allow", "Action": ["kms:Encrypt", "kms:GenerateDataKey"], "Resource": replica_key},
        ],
    }


def replicate(
    parent: pulumi.Resource,
    base: str,
    source: BucketParts,
    *,
    source_kms_key_arn: pulumi.Input[str],
    replica_region: str,
    replica_kms_key_arn: pulumi.Input[str],
    account_id: pulumi.Input[str],
    tags: dict[str, str],
    lifecycle_rules: Sequence[aws.s3.BucketLifecycleConfigurationRuleArgs] = (),
    extra_statements: Statements | None = None,
) -> BucketParts:
    """An off-site copy: a secure bucket in ``replica_region`` and a replication rule for every
    (KMS-encrypted) object. Delete markers are replicated (an erasure reaches the copy) and the
    replica keeps the source's lifecycle, so nothing outlives its retention off-site."""
    replica = secure_bucket(
        parent,
        f"{base}{REPLICA_SUFFIX}",
        kms_key_arn=replica_kms_key_arn,
        tags={**tags, "seedance:replica-of": base},
        region=replica_region,
        lifecycle_rules=lifecycle_rules,
        extra_statements=extra_statements,
    )
    assume = pulumi.Output.from_input(account_id).apply(
        lambda acct: policy_json(
            {
                "Version": "2012-10-17",
                "Statement": [
                    {
                        "Effect": "Allow",
                        "Principal": {"Service": "s3.amazonaws.com"},
                        "Action": "sts:AssumeRole",
                        "Condition": {"StringEquals": {"aws:SourceAccount": acct}},
                    }
                ],
            }
        )
    )
    role_name = f"{base}-replication-role"
    # Pulumi names the role ROLE_NAME-xxxxxxx, which IAM limits to 64 characters; a longer one gets a
    # prefix to which the provider adds a unique 26-character suffix (roles already deployed keep their names)
    short = "-repl-"
    prefix = None if len(role_name) + AUTO_NAME_SUFFIX <= IAM_ROLE_NAME_MAX else f"{base[:IAM_ROLE_PREFIX_MAX - len(short)]}{short}"
    role = aws.iam.Role(role_name, assume_role_policy=assume, description=f"S3 replication of {base}", tags=tags,
                        name_prefix=prefix, opts=child(parent))
    aws.iam.RolePolicy(
        f"{base}-replication-role-policy",
        role=role.id,
        policy=pulumi.Output.all(source.bucket.arn, replica.bucket.arn, source_kms_key_arn, replica_kms_key_arn).apply(
            lambda v: policy_json(replication_role_policy(v[0], v[1], v[2], v[3]))
        ),
        opts=child(parent),
    )
    aws.s3.BucketReplicationConfig(
        f"{base}-replication",
        bucket=source.bucket.id,
        role=role.arn,
        rules=[
            aws.s3.BucketReplicationConfigRuleArgs(
                id="offsite-copy",
                status="Enabled",
                filter=aws.s3.BucketReplicationConfigRuleFilterArgs(prefix=""),
                delete_marker_replication=aws.s3.BucketReplicationConfigRuleDeleteMarkerReplicationArgs(status="Enabled"),
                source_selection_criteria=aws.s3.BucketReplicationConfigRuleSourceSelectionCriteriaArgs(
                    sse_kms_encrypted_objects=aws.s3.BucketReplicationConfigRuleSourceSelectionCriteriaSseKmsEncryptedObjectsArgs(status="Enabled")
                ),
                destination=aws.s3.BucketReplicationConfigRuleDestinationArgs(
                    bucket=replica.bucket.arn,
                    encryption_configuration=aws.s3.BucketReplicationConfigRuleDestinationEncryptionConfigurationArgs(
                        replica_kms_key_id=replica_kms_key_arn
                    ),
                ),
            )
        ],
        opts=child(parent, depends_on=[v for v in (source.versioning, replica.versioning) if v is not None]),
    )
    return replica
