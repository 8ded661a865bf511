"""AuditBaseline: the logging every compliant stack needs.

* CloudTrail: multi-region, global service events, log-file validation, KMS-encrypted; management
  events plus S3 object-level data events on the buckets that hold personal data.  Where the policy
  names a trail that already records the account (``compliance.existingTrail``), the stack's trail
  records only those data events, and there is none when the existing trail records them too or the
  stack holds no personal data.
* The trail bucket: versioned, KMS-encrypted, all public access blocked, a policy that admits
  CloudTrail for this trail only, refuses plain HTTP and refuses every object deletion (expiry
  after the policy's log retention is done by the lifecycle rule, which bucket policies do not
  stop; removing the stack therefore needs this statement lifted first); optionally replicated
  to another region (off-site copy) with the same protections.
* VPC flow logs (ALL traffic) to a KMS-encrypted CloudWatch log group with the policy's retention.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import pulumi
import pulumi_aws as aws

from components.common import child, partition, policy_json, require, with_stack_digest
from components.s3 import BucketParts, deny_deletion_statement, replicate, secure_bucket
from seedance.awsnames import TRAIL_NAME
from seedance.policy.model import LOG_RETENTION_DAYS  # the retention values CloudWatch Logs accepts (days)



def trail_statements(bucket_arn: str, trail_arn: str, account_id: str) -> list[dict]:
    """What CloudTrail needs on its bucket, for this trail only (the TLS-only and deny-deletion
    statements come from :func:`components.s3.secure_bucket`'s caller)."""
    return [
        {
            "Sid": "CloudTrailAclCheck",
            "Effect": "Allow",
            "Principal": {"Service": "cloudtrail.amazonaws.com"},
            "Action": "s3:GetBucketAcl",
            "Resource": bucket_arn,
            "Condition": {"StringEquals": {"aws:SourceArn": trail_arn}},
        },
        {
            "Sid": "CloudTrailWrite",
            "Effect": "Allow",
            "Principal": {"Service": "cloudtrail.amazonaws.com"},
            "Action": "s3:PutObject",
            "Resource": f"{bucket_arn}/AWSLogs/{account_id}/*",
            "Condition": {"StringEquals": {"s3:x-amz-acl": "bucket-owner-full-control", "aws:SourceArn": trail_arn}},
        },
    ]


def flow_log_assume_policy(account_id: str) -> dict:
    return {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Effect": "Allow",
                "Principal": {"Service": "vpc-flow-logs.amazonaws.com"},
                "Action": "sts:AssumeRole",
                "Condition": {"StringEquals": {"aws:SourceAccount": account_id}},
            }
        ],
    }


def flow_log_write_policy(log_group_arn: str) -> dict:
    return {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Effect": "Allow",
                "Action": ["logs:CreateLogStream", "logs:PutLogEvents", "logs:DescribeLogGroups", "logs:DescribeLogStreams"],
                "Resource": [log_group_arn, f"{log_group_arn}:*"],
            }
        ],
    }


@dataclass
class AuditBaselineArgs:
    stack: str
    region: str
    vpc_id: str
    account_id: pulumi.Input[str]
    kms_key_arn: pulumi.Input[str]
    log_retention_days: int
    data_event_bucket_arns: list[pulumi.Input[str]] = field(default_factory=list)  # S3 object-level events
    # an off-site copy of the trail bucket (MLPS off-site backup): region and a key of that region
    replica_region: str | None = None
    replica_kms_key_arn: pulumi.Input[str] | None = None
    tags: dict[str, str] = field(default_factory=dict)
    # a trail that already records the account (compliance.existingTrail): then the stack's own trail,
    # if any, records only the data events that one does not
    existing_trail_arn: str | None = None
    existing_trail_s3_data_events: bool = False

    def validate(self) -> None:
        if self.existing_trail_arn is not None:
            require(self.existing_trail_arn.rpartition(":trail/")[2] != self.trail_name, "compliance.existingTrail.arn",
                    f"names this stack's own trail {self.trail_name}, which this deploy would stop recording management "
                    "events (or delete): name a trail the stack does not manage")
        if self.replica_region:
            require(self.replica_kms_key_arn is not None, "AuditBaselineArgs.replica_kms_key_arn", "a replica region needs a KMS key in that region")
            require(self.replica_region != self.region, "AuditBaselineArgs.replica_region", f"expected a region other than {self.region}")
        require(self.log_retention_days in LOG_RETENTION_DAYS, "compliance.logRetentionDays",
                f"expected a CloudWatch Logs retention value {list(LOG_RETENTION_DAYS)}, got {self.log_retention_days}")

    @property
    def trail_name(self) -> str:
        return trail_name(self.stack)

    @property
    def own_trail(self) -> bool:
        """Whether the stack creates a trail: without an existing one, or for the S3 data events of its
        personal-data buckets that the existing one does not record."""
        if self.existing_trail_arn is None:
            return True
        return bool(self.data_event_bucket_arns) and not self.existing_trail_s3_data_events

    @property
    def own_management_events(self) -> bool:
        """Whether the stack's own trail records management events (not when an existing trail does:
        every copy after the first is billed)."""
        return self.existing_trail_arn is None




def trail_name(stack: str) -> str:
    """The stack's trail: ``seedance-STACK`` when CloudTrail takes it; else (a stack name ending in, or
    holding side by side, '.', '_' or '-') each run of them becomes one '-' and 8 hex digits of the
    name's SHA-256 follow, so ``a--b`` and ``a-b`` never share a trail."""
    name = f"seedance-{stack}"
    if TRAIL_NAME.fullmatch(name):
        return name
    return with_stack_digest(re.sub(r"[._-]+", "-", name).strip("-"), stack)


class AuditBaseline(pulumi.ComponentResource):
    trail_arn: pulumi.Output[str]  # the stack's own trail, else the existing one
    trail_bucket: pulumi.Output[str]  # '' without a trail of the stack's own
    flow_log_group: pulumi.Output[str]
    buckets: list[BucketParts]  # the trail bucket and its replica

    def __init__(self, name: str, args: AuditBaselineArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("seedance:audit:AuditBaseline", name, None, opts)
        args.validate()
        part = partition(args.region)
        self.buckets = []  # every bucket made, replicas included (e.g. for access logging)
        self.trail_arn = pulumi.Output.from_input(args.existing_trail_arn or "")
        self.trail_bucket = pulumi.Output.from_input("")
        if args.own_trail:
            self.trail_arn, self.trail_bucket = self._trail(name, args, part)
        log_group = aws.cloudwatch.LogGroup(
            f"{name}-flow-logs",
            name=f"/seedance/{args.stack}/vpc-flow-logs",
            retention_in_days=args.log_retention_days,
            kms_key_id=args.kms_key_arn,
            tags=args.tags,
            opts=child(self),
        )
        role = aws.iam.Role(
            f"{name}-flow-logs-role",
            assume_role_policy=pulumi.Output.from_input(args.account_id).apply(lambda acct: policy_json(flow_log_assume_policy(acct))),
            description=f"VPC flow logs of Seedance stack {args.stack}",
            tags=args.tags,
            opts=child(self),
        )
        aws.iam.RolePolicy(
            f"{name}-flow-logs-role-policy",
            role=role.id,
            policy=log_group.arn.apply(lambda arn: policy_json(flow_log_write_policy(arn))),
            opts=child(self),
        )
        aws.ec2.FlowLog(
            f"{name}-flow-log",
            vpc_id=args.vpc_id,
            traffic_type="ALL",
            log_destination_type="cloud-watch-logs",
            log_destination=log_group.arn,
            iam_role_arn=role.arn,
            max_aggregation_interval=600,
            tags=args.tags,
            opts=child(self),
        )
        self.flow_log_group = log_group.name
        self.register_outputs({"trail_arn": self.trail_arn, "trail_bucket": self.trail_bucket, "flow_log_group": self.flow_log_group})

    def _trail(self, name: str, args: AuditBaselineArgs, part: str) -> tuple[pulumi.Output[str], pulumi.Output[str]]:
        """The stack's trail and its bucket (and the bucket's off-site replica); (trail ARN, bucket name)."""
        trail_arn = pulumi.Output.from_input(args.account_id).apply(
            lambda acct: f"arn:{part}:cloudtrail:{args.region}:{acct}:trail/{args.trail_name}"
        )
        base = f"{name}-trail-bucket"
        rules = [
            aws.s3.BucketLifecycleConfigurationRuleArgs(
                id="log-retention",
                status="Enabled",
                filter=aws.s3.BucketLifecycleConfigurationRuleFilterArgs(prefix=""),
                expiration=aws.s3.BucketLifecycleConfigurationRuleExpirationArgs(days=args.log_retention_days),
                noncurrent_version_expiration=aws.s3.BucketLifecycleConfigurationRuleNoncurrentVersionExpirationArgs(
                    noncurrent_days=min(30, args.log_retention_days)
                ),
            )
        ]
        parts = secure_bucket(
            self,
            base,
            kms_key_arn=args.kms_key_arn,
            tags=args.tags,
            lifecycle_rules=rules,
            extra_statements=lambda arn: pulumi.Output.all(trail_arn, args.account_id).apply(
                lambda v: [deny_deletion_statement(arn), *trail_statements(arn, v[0], v[1])]
            ),
        )
        bucket = parts.bucket
        self.buckets.append(parts)
        if args.replica_region:
            assert args.replica_kms_key_arn is not None
            self.buckets.append(replicate(
                self,
                base,
                parts,
                source_kms_key_arn=args.kms_key_arn,
                replica_region=args.replica_region,
                replica_kms_key_arn=args.replica_kms_key_arn,
                account_id=args.account_id,
                tags=args.tags,
                lifecycle_rules=rules,
                extra_statements=lambda arn: [deny_deletion_statement(arn)],
            ))
        trail = aws.cloudtrail.Trail(
            f"{name}-trail",
            name=args.trail_name,
            s3_bucket_name=bucket.bucket,
            is_multi_region_trail=True,
            include_global_service_events=True,
            enable_log_file_validation=True,
            enable_logging=True,
            kms_key_id=args.kms_key_arn,
            event_selectors=[
                aws.cloudtrail.TrailEventSelectorArgs(
                    read_write_type="All",
                    include_management_events=args.own_management_events,
                    data_resources=(
                        [
                            aws.cloudtrail.TrailEventSelectorDataResourceArgs(
                                type="AWS::S3::Object",
                                values=[pulumi.Output.from_input(arn).apply(lambda a: f"{a}/") for arn in args.data_event_bucket_arns],
                            )
                        ]
                        if args.data_event_bucket_arns
                        else None
                    ),
                )
            ],
            tags=args.tags,
            opts=child(self, depends_on=[parts.policy]),
        )
        return trail.arn, bucket.bucket
