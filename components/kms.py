"""StackKey: the customer-managed KMS key of a stack (created only when the policy names none)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import pulumi
import pulumi_aws as aws

from components.common import child, dns_suffix, name_safe_stack, partition, policy_json, require, with_stack_digest

#: EC2 Auto Scaling's service-linked role names are ``AWSServiceRoleForAutoScaling_SUFFIX``; IAM role
#: names hold at most 64 characters
AUTOSCALING_ROLE = "AWSServiceRoleForAutoScaling"
AUTOSCALING_SUFFIX_MAX = 64 - len(AUTOSCALING_ROLE) - 1


def autoscaling_role_suffix(stack: str) -> str:
    """The custom suffix of the stack's Auto Scaling service-linked role: ``seedance-STACK``, cut to
    fit with 8 hex digits of the stack name's SHA-256 when it is too long (IAM role names take the
    characters of a Pulumi stack name: letters, digits, '_', '-', '.')."""
    suffix = f"seedance-{stack}"
    return suffix if len(suffix) <= AUTOSCALING_SUFFIX_MAX else with_stack_digest(suffix, stack, AUTOSCALING_SUFFIX_MAX)


def stack_alias(stack: str, suffix: str = "") -> str:
    """The key alias of a stack, without "alias/": KMS takes letters, digits, '/', '_' and '-' only
    (see :func:`components.common.name_safe_stack`)."""
    return f"seedance-{name_safe_stack(stack, max_len=250 - len('seedance-') - len(suffix))}{suffix}"


@dataclass
class StackKeyArgs:
    region: str
    account_id: pulumi.Input[str]
    alias: str  # without the "alias/" prefix
    tags: dict[str, str] = field(default_factory=dict)
    deletion_window_days: int = 30
    rotation: bool = True  # secure default: yearly automatic rotation
    pin_region: bool = False  # create the key in ``region`` whatever the provider's region (replica keys)
    # the S3 access-log archive buckets this key encrypts (their names start with it; see
    # components.access_logs): the S3 logging service may then use the key for them
    access_log_bucket_prefix: str | None = None
    # the suffix of an EC2 Auto Scaling service-linked role to create with the key, which the key
    # policy lets launch instances with volumes encrypted under the key (the fleets' groups use it)
    autoscaling_role_suffix: str | None = None

    def validate(self) -> None:
        require(7 <= self.deletion_window_days <= 30, "StackKeyArgs.deletion_window_days", f"expected 7..30, got {self.deletion_window_days}")
        require(bool(self.alias) and not self.alias.startswith("alias/"), "StackKeyArgs.alias", f"expected a name without 'alias/', got {self.alias!r}")
        require(re.fullmatch(r"[a-zA-Z0-9/_-]{1,250}", self.alias) is not None and not self.alias.startswith("aws/"), "StackKeyArgs.alias",
                f"expected at most 250 letters, digits, '/', '_' or '-', not starting with 'aws/' (KMS alias names), got {self.alias!r}")
        prefix = self.access_log_bucket_prefix
        require(prefix is None or re.fullmatch(r"[a-z0-9][a-z0-9.-]*", prefix) is not None, "StackKeyArgs.access_log_bucket_prefix",
                f"expected the start of an S3 bucket name (lowercase letters, digits, '.', '-'), got {prefix!r}")
        suffix = self.autoscaling_role_suffix
        require(suffix is None or re.fullmatch(rf"[\w+=,.@-]{{1,{AUTOSCALING_SUFFIX_MAX}}}", suffix) is not None,
                "StackKeyArgs.autoscaling_role_suffix",
                f"expected at most {AUTOSCALING_SUFFIX_MAX} of the characters IAM role names take, got {suffix!r}")


class StackKey(pulumi.ComponentResource):
    """A symmetric KMS key with rotation, whose key policy lets the services the stack uses
    (CloudTrail, CloudWatch Logs, Budgets via SNS, and the S3 logging service for the access-log
    archive when ``access_log_bucket_prefix`` names it) use it.

    With ``autoscaling_role_suffix`` it also creates an EC2 Auto Scaling service-linked role with
    that suffix, named as the principal of the statements that let Auto Scaling launch instances
    whose EBS volumes the key encrypts: the role's own permissions do not reach customer-managed
    keys, so the key policy must name it (the EC2 Auto Scaling guide, "Required AWS KMS key policy
    for use with encrypted volumes"), and KMS refuses a key policy naming a role that does not
    exist, which the account's default role may not yet. Groups that launch with the key name the
    role (``autoscaling_role_arn``) as theirs."""

    key_arn: pulumi.Output[str]
    key_id: pulumi.Output[str]
    alias_name: pulumi.Output[str]
    autoscaling_role_arn: pulumi.Output[str] | None

    def __init__(self, name: str, args: StackKeyArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("seedance:kms:StackKey", name, None, opts)
        args.validate()
        part = partition(args.region)
        extra = [access_log_statement(part, args.access_log_bucket_prefix)] if args.access_log_bucket_prefix else []
        self.autoscaling_role_arn = None
        role_arn: pulumi.Input[str | None] = None
        if args.autoscaling_role_suffix is not None:
            role = aws.iam.ServiceLinkedRole(
                f"{name}-autoscaling-role",
                aws_service_name="autoscaling.amazonaws.com",
                custom_suffix=args.autoscaling_role_suffix,
                description="EC2 Auto Scaling for the Seedance fleets, allowed to use the stack key",
                tags=args.tags,
                opts=child(self),
            )
            self.autoscaling_role_arn = role.arn
            role_arn = role.arn  # the key policy waits for the role: KMS refuses a principal that does not exist
        key_policy = pulumi.Output.all(args.account_id, role_arn).apply(
            lambda v: policy_json(_key_policy(part, args.region, v[0], extra, autoscaling_role=v[1])))
        key = aws.kms.Key(
            f"{name}-key",
            description=f"Seedance stack key ({args.alias})",
            enable_key_rotation=args.rotation,
            deletion_window_in_days=args.deletion_window_days,
            key_usage="ENCRYPT_DECRYPT",
            customer_master_key_spec="SYMMETRIC_DEFAULT",
            policy=key_policy,
            tags=args.tags,
            region=args.region if args.pin_region else None,
            opts=child(self),
        )
        alias = aws.kms.Alias(
            f"{name}-alias",
            name=f"alias/{args.alias}",
            target_key_id=key.key_id,
            region=args.region if args.pin_region else None,
            opts=child(self),
        )
        self.key_arn = key.arn
        self.key_id = key.key_id
        self.alias_name = alias.name
        self.register_outputs({"key_arn": self.key_arn, "key_id": self.key_id, "alias_name": self.alias_name,
                               "autoscaling_role_arn": self.autoscaling_role_arn})


def access_log_statement(part: str, bucket_prefix: str) -> dict:
    """Lets the S3 logging service (which writes server access logs) encrypt the log objects it
    delivers to the buckets whose names start with ``bucket_prefix``: ``aws:s3:arn`` is the
    encryption context S3 gives KMS (the bucket's ARN with an S3 Bucket Key, else the object's).

    AWS's S3 guide names SSE-S3 as the default encryption it supports on a log destination; with a
    customer-managed key delivery needs this statement (see the README, Known limits)."""
    return {
        "Sid": "S3ServerAccessLogs",
        "Effect": "Allow",
        "Principal": {"Service": "logging.s3.amazonaws.com"},
        "Action": ["kms:GenerateDataKey*", "kms:Decrypt"],
        "Resource": "*",
        "Condition": {"ArnLike": {"kms:EncryptionContext:aws:s3:arn": f"arn:{part}:s3:::{bucket_prefix}-*"}},
    }


def _key_policy(part: str, region: str, account: str, extra: Sequence[dict] = (), *,
                autoscaling_role: str | None = None) -> dict:
    root = f"arn:{part}:iam::{account}:root"
    trails = f"arn:{part}:cloudtrail:*:{account}:trail/*"  # the account's trails, in any region
    use = ["kms:Encrypt", "kms:Decrypt", "kms:ReEncrypt*", "kms:GenerateDataKey*", "kms:DescribeKey"]
    # EC2 Auto Scaling launches with the key under its service-linked role, whose own permissions do
    # not reach customer-managed keys: the key policy names the role itself, and lets it create the
    # grant EC2 uses for the volumes
    autoscaling = [] if autoscaling_role is None else [
        {"Sid": "AutoScalingEncryptedVolumes", "Effect": "Allow", "Principal": {"AWS": autoscaling_role},
         "Action": use, "Resource": "*"},
        {"Sid": "AutoScalingGrants", "Effect": "Allow", "Principal": {"AWS": autoscaling_role},
         "Action": "kms:CreateGrant", "Resource": "*", "Condition": {"Bool": {"kms:GrantIsForAWSResource": "true"}}},
    ]
    return {
        "Version": "2012-10-17",
        "Statement": [
            {"Sid": "AccountAdministration", "Effect": "Allow", "Principal": {"AWS": root}, "Action": "kms:*", "Resource": "*"},
            *autoscaling,
            {
                "Sid": "CloudTrailEncryptLogs",
                "Effect": "Allow",
                "Principal": {"Service": "cloudtrail.amazonaws.com"},
                "Action": "kms:GenerateDataKey*",
                "Resource": "*",
                "Condition": {"StringLike": {"kms:EncryptionContext:aws:cloudtrail:arn": trails}},
            },
            # CloudTrail's guide lists describing the key and, for a bucket with an S3 Bucket Key (the
            # trail bucket has one), decrypting with it among what a trail's key must allow; neither
            # request carries the trail's encryption context, so the account's trails are named by
            # aws:SourceArn instead
            {
                "Sid": "CloudTrailDescribeAndBucketKey",
                "Effect": "Allow",
                "Principal": {"Service": "cloudtrail.amazonaws.com"},
                "Action": ["kms:DescribeKey", "kms:Decrypt"],
                "Resource": "*",
                "Condition": {"StringLike": {"aws:SourceArn": trails}},
            },
            {
                "Sid": "CloudWatchLogs",
                "Effect": "Allow",
                "Principal": {"Service": f"logs.{region}.{dns_suffix(region)}"},
                "Action": use,
                "Resource": "*",
                "Condition": {"ArnLike": {"kms:EncryptionContext:aws:logs:arn": f"arn:{part}:logs:{region}:{account}:*"}},
            },
            {
                "Sid": "BudgetsPublishToEncryptedTopic",
                "Effect": "Allow",
                "Principal": {"Service": "budgets.amazonaws.com"},
                "Action": ["kms:GenerateDataKey*", "kms:Decrypt"],
                "Resource": "*",
                "Condition": {"StringEquals": {"aws:SourceAccount": account}},
            },
            *extra,
        ],
    }
