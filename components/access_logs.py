"""AccessLogArchive: the S3 server access logs of every bucket of a stack (MLPS 2.0 level 3, 8.1.4.3 a).

S3 delivers a bucket's server access logs only to a bucket in the same region and account, so the
archive is a dedicated bucket in the stack's region and, when the stack keeps off-site copies, its
replica in the partner region, which also receives the logs of the buckets there (the replicas).

* ``{name}-bucket``: versioned, encrypted with the stack's customer-managed KMS key, all public
  access blocked, TLS-only, and a policy that refuses every object deletion (as the trail bucket);
  a lifecycle rule keeps logs ``retention_days`` — never fewer than the 183 days MLPS 8.1.5.4 d asks
  of log archives — and expires nothing earlier. No Object Lock (S3 does not deliver access logs to
  a bucket with Object Lock) and no access logging of its own (a log target that logs to itself
  writes logs about its logs);
* its policy lets the S3 logging service (:data:`LOGGING_SERVICE`) put objects under each source's
  prefix, for those source buckets (``aws:SourceArn``) of this account (``aws:SourceAccount``)
  only, the statement AWS documents for log delivery;
* ``{name}-bucket-replica`` (with ``replica_region``): the off-site copy, made by
  :func:`components.s3.replicate` with the same protections, and the target of the buckets in
  that region;
* ``{source}-access-logging``: one ``BucketLogging`` per source bucket, prefix ``{source}/``.

The KMS key of each archive bucket must let the logging service use it: the key
:class:`components.kms.StackKey` builds says so when given the archive's bucket prefix
(:func:`archive_bucket_prefix`); a key the policy names (``compliance.kmsKeyArn``) needs the
statement of :func:`components.kms.access_log_statement` added by its owner (see the README).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import pulumi
import pulumi_aws as aws

from components.common import child, require
from components.s3 import BucketParts, Statements, deny_deletion_statement, replicate, secure_bucket

#: The service principal that delivers S3 server access logs.
LOGGING_SERVICE = "logging.s3.amazonaws.com"
#: MLPS 8.1.5.4 d / Cybersecurity Law art. 21: log archives are kept at least six months, which
#: can be 184 calendar days; the gate's rule for S3 log archives asks for 183.
MIN_ARCHIVE_DAYS = 183
#: Days a replaced version of a log object is kept (log objects are written once, under unique keys).
NONCURRENT_DAYS = 30


def archive_bucket_prefix(name: str) -> str:
    """The start of the archive buckets' names (Pulumi auto-names them ``{logical}-{7 hex}``): the
    archive component ``name`` makes ``{name}-bucket`` and ``{name}-bucket-replica``."""
    return f"{name}-bucket"


def log_prefix(source: str) -> str:
    """The key prefix a source bucket's access logs are written under."""
    return f"{source}/"


def log_delivery_statement(bucket_arn: str, account_id: str, sources: Sequence[tuple[str, str]]) -> dict:
    """The bucket-policy statement AWS documents for server access log delivery: ``s3:PutObject``
    for ``logging.s3.amazonaws.com`` under each source's prefix, only for requests on behalf of
    those source buckets (``aws:SourceArn``) of this account (``aws:SourceAccount``).

    ``sources`` are (source name, source bucket ARN) pairs."""
    return {
        "Sid": "S3ServerAccessLogsPolicy",
        "Effect": "Allow",
        "Principal": {"Service": LOGGING_SERVICE},
        "Action": "s3:PutObject",
        "Resource": [f"{bucket_arn}/{log_prefix(name)}*" for name, _ in sources],
        "Condition": {
            "ArnLike": {"aws:SourceArn": [arn for _, arn in sources]},
            "StringEquals": {"aws:SourceAccount": account_id},
        },
    }


@dataclass(frozen=True)
class LoggedBucket:
    """A bucket whose server access logs go to the archive."""

    name: str  # its logical name: unique, and the prefix of its logs
    bucket: aws.s3.Bucket
    region: str  # where it lives

    @classmethod
    def of(cls, parts: BucketParts, stack_region: str) -> LoggedBucket:
        return cls(parts.base, parts.bucket, parts.region or stack_region)


@dataclass
class AccessLogArchiveArgs:
    region: str  # the stack's region
    account_id: pulumi.Input[str]
    kms_key_arn: pulumi.Input[str]  # customer-managed key of `region`
    retention_days: int
    sources: list[LoggedBucket] = field(default_factory=list)
    # an off-site copy of the archive (MLPS off-site backup), also the target of the buckets there
    replica_region: str | None = None
    replica_kms_key_arn: pulumi.Input[str] | None = None
    tags: dict[str, str] = field(default_factory=dict)

    def validate(self) -> None:
        require(self.retention_days >= MIN_ARCHIVE_DAYS, "AccessLogArchiveArgs.retention_days",
                f"expected at least {MIN_ARCHIVE_DAYS} days (MLPS 8.1.5.4 d keeps log archives six months), got {self.retention_days}")
        if self.replica_region:
            require(self.replica_kms_key_arn is not None, "AccessLogArchiveArgs.replica_kms_key_arn",
                    "a replica region needs a KMS key in that region")
            require(self.replica_region != self.region, "AccessLogArchiveArgs.replica_region", f"expected a region other than {self.region}")
        names = [s.name for s in self.sources]
        require(all(names) and len(names) == len(set(names)), "AccessLogArchiveArgs.sources",
                f"expected unique, non-empty source names (they prefix the logs), got {names}")
        regions = {self.region, *([self.replica_region] if self.replica_region else [])}
        for s in self.sources:
            require(s.region in regions, f"AccessLogArchiveArgs.sources[{s.name}]",
                    f"S3 delivers server access logs only to a bucket in the source's region; the archive has none in {s.region} "
                    f"(it has {sorted(regions)})")


class AccessLogArchive(pulumi.ComponentResource):
    bucket_names: dict[str, pulumi.Output[str]]  # region -> the archive bucket there

    def __init__(self, name: str, args: AccessLogArchiveArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("seedance:logging:AccessLogArchive", name, None, opts)
        args.validate()
        base = archive_bucket_prefix(name)
        rules = [
            aws.s3.BucketLifecycleConfigurationRuleArgs(
                id="access-log-retention",
                status="Enabled",
                filter=aws.s3.BucketLifecycleConfigurationRuleFilterArgs(prefix=""),
                expiration=aws.s3.BucketLifecycleConfigurationRuleExpirationArgs(days=args.retention_days),
                noncurrent_version_expiration=aws.s3.BucketLifecycleConfigurationRuleNoncurrentVersionExpirationArgs(
                    noncurrent_days=NONCURRENT_DAYS
                ),
            )
        ]
        by_region: dict[str, list[LoggedBucket]] = {}
        for s in args.sources:
            by_region.setdefault(s.region, []).append(s)

        def statements(region: str) -> Statements:
            """The archive bucket of ``region``: nobody deletes, the logging service delivers for its sources."""
            names = [s.name for s in by_region.get(region, [])]
            arns = [s.bucket.arn for s in by_region.get(region, [])]

            def build(arn: str) -> pulumi.Output[list[dict]]:
                def of(values: list[str]) -> list[dict]:
                    account, source_arns = values[0], values[1:]
                    delivery = [log_delivery_statement(arn, account, list(zip(names, source_arns, strict=True)))] if names else []
                    return [deny_deletion_statement(arn), *delivery]

                return pulumi.Output.all(args.account_id, *arns).apply(of)

            return build

        archive = secure_bucket(self, base, kms_key_arn=args.kms_key_arn, tags=args.tags, lifecycle_rules=rules,
                                extra_statements=statements(args.region))
        targets: dict[str, BucketParts] = {args.region: archive}
        if args.replica_region:
            assert args.replica_kms_key_arn is not None
            targets[args.replica_region] = replicate(
                self,
                base,
                archive,
                source_kms_key_arn=args.kms_key_arn,
                replica_region=args.replica_region,
                replica_kms_key_arn=args.replica_kms_key_arn,
                account_id=args.account_id,
                tags=args.tags,
                lifecycle_rules=rules,
                extra_statements=statements(args.replica_region),
            )
        for s in args.sources:
            target = targets[s.region]
            aws.s3.BucketLogging(
                f"{s.name}-access-logging",
                bucket=s.bucket.id,
                target_bucket=target.bucket.bucket,
                target_prefix=log_prefix(s.name),
                region=None if s.region == args.region else s.region,
                opts=child(self, depends_on=[target.policy]),
            )
        self.bucket_names = {region: t.bucket.bucket for region, t in targets.items()}
        self.register_outputs({"bucket_names": self.bucket_names})
