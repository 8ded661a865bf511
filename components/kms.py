"""StackKey: the customer-managed KMS key of a stack (created only when the policy names none)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import pulumi
import pulumi_aws as aws

from components.common import child, dns_suffix, name_safe_stack, partition, policy_json, require


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

    def validate(self) -> None:
        require(7 <= self.deletion_window_days <= 30, "StackKeyArgs.deletion_window_days", f"expected 7..30, got {self.deletion_window_days}")
        require(bool(self.alias) and not self.alias.startswith("alias/"), "StackKeyArgs.alias", f"expected a name without 'alias/', got {self.alias!r}")
        require(re.fullmatch(r"[a-zA-Z0-9/_-]{1,250}", self.alias) is not None and not self.alias.startswith("aws/"), "StackKeyArgs.alias",
                f"expected at most 250 letters, digits, '/', '_' or '-', not starting with 'aws/' (KMS alias names), got {self.alias!r}")
        prefix = self.access_log_bucket_prefix
        require(prefix is None or re.fullmatch(r"[a-z0-9][a-z0-9.-]*", prefix) is not None, "StackKeyArgs.access_log_bucket_prefix",
                f"expected the start of an S3 bucket name (lowercase letters, digits, '.', '-'), got {prefix!r}")


class StackKey(pulumi.ComponentResource):
    """A symmetric KMS key with rotation, whose key policy lets the services the stack uses
    (CloudTrail, CloudWatch Logs, Budgets via SNS, EC2 Auto Scaling for encrypted EBS, and the S3
    logging service for the access-log archive when ``access_log_bucket_prefix`` names it) use it."""

    key_arn: pulumi.Output[str]
    key_id: pulumi.Output[str]
    alias_name: pulumi.Output[str]

    def __init__(self, name: str, args: StackKeyArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("seedance:kms:StackKey", name, None, opts)
        args.validate()
        part = partition(args.region)
        extra = [access_log_statement(part, args.access_log_bucket_prefix)] if args.access_log_bucket_prefix else []
        key_policy = pulumi.Output.from_input(args.account_id).apply(lambda acct: policy_json(_key_policy(part, args.region, acct, extra)))
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
        self.register_outputs({"key_arn": self.key_arn, "key_id": self.key_id, "alias_name": self.alias_name})


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


def _key_policy(part: str, region: str, account: str, extra: Sequence[dict] = ()) -> dict:
    root = f"arn:{part}:iam::{account}:root"
    asg_role = f"arn:{part}:iam::{account}:role/aws-service-role/autoscaling.amazonaws.com/AWSServiceRoleForAutoScaling"
    use = ["kms:Encrypt", "kms:Decrypt", "kms:ReEncrypt*", "kms:GenerateDataKey*", "kms:DescribeKey"]
    return {
        "Version": "2012-10-17",
        "Statement": [
            {"Sid": "AccountAdministration", "Effect": "Allow", "Principal": {"AWS": root}, "Action": "kms:*", "Resource": "*"},
            # the Auto Scaling service-linked role is named by condition, not as the principal: KMS refuses a
            # key policy whose principal does not exist, and in an account that has never used Auto
            # Scaling the role appears only with the first group, after this key
            {
                "Sid": "AutoScalingEncryptedVolumes",
                "Effect": "Allow",
                "Principal": {"AWS": root},
                "Action": use,
                "Resource": "*",
                "Condition": {"ArnEquals": {"aws:PrincipalArn": asg_role}},
            },
            {
                "Sid": "AutoScalingGrants",
                "Effect": "Allow",
                "Principal": {"AWS": root},
                "Action": "kms:CreateGrant",
                "Resource": "*",
                "Condition": {"ArnEquals": {"aws:PrincipalArn": asg_role}, "Bool": {"kms:GrantIsForAWSResource": "true"}},
            },
            {
                "Sid": "CloudTrailEncryptLogs",
                "Effect": "Allow",
                "Principal": {"Service": "cloudtrail.amazonaws.com"},
                "Action": ["kms:GenerateDataKey*", "kms:DescribeKey"],
                "Resource": "*",
                "Condition": {"StringLike": {"kms:EncryptionContext:aws:cloudtrail:arn": f"arn:{part}:cloudtrail:*:{account}:trail/*"}},
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
