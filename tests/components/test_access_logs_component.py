"""AccessLogArchive: S3 server access logs of every bucket where MLPS level 3 applies (cn-prod)."""

from __future__ import annotations

import fnmatch
import json

import pulumi_aws as aws
import pytest

from components.access_logs import (
    LOGGING_SERVICE,
    MIN_ARCHIVE_DAYS,
    AccessLogArchive,
    AccessLogArchiveArgs,
    LoggedBucket,
    archive_bucket_prefix,
    log_delivery_statement,
)
from components.common import ComponentArgsError
from components.kms import StackKeyArgs, access_log_statement
from seedance.estimate.s3 import ACCESS_LOG_MIN_DAYS
from seedance.synth.runtime import run_program

BUCKET = "aws:s3/bucket:Bucket"
LOGGING = "aws:s3/bucketLogging:BucketLogging"
ARCHIVES = {"access-logs-bucket": "cn-north-1", "access-logs-bucket-replica": "cn-northwest-1"}


def _auto_name(s, name: str) -> str:
    """The (mock) bucket name Pulumi gives the bucket resource ``name``: what configuration resources name."""
    (policy,) = [r for r in s.of_type("aws:s3/bucketPolicy:BucketPolicy") if r.name == f"{name}-policy"]
    return policy.inputs["bucket"]


def test_every_bucket_of_the_mlps_stack_logs_to_the_archive_of_its_region(cn):
    buckets = {r.name: r for r in cn.of_type(BUCKET)}
    assert {n: buckets[n].region for n in ARCHIVES} == ARCHIVES
    archive_of = {region: _auto_name(cn, name) for name, region in ARCHIVES.items()}
    loggings = {r.inputs["bucket"]: r for r in cn.of_type(LOGGING)}
    sources = {n for n in buckets if n not in ARCHIVES}
    # checkpoint buckets, the trail bucket, and the off-site replicas of the personal-data ones
    assert sources == {"storage-llm-checkpoints", "storage-finetune-datasets", "storage-finetune-datasets-replica",
                       "audit-trail-bucket", "audit-trail-bucket-replica"}
    for name in sources:
        lg = loggings.pop(_auto_name(cn, name))
        assert lg.name == f"{name}-access-logging"
        assert lg.region == buckets[name].region  # S3 delivers only within the source's region
        assert lg.inputs["targetBucket"] == archive_of[buckets[name].region]
        assert lg.inputs["targetPrefix"] == f"{name}/"
        assert lg.parent is not None and lg.parent.endswith("seedance:logging:AccessLogArchive::access-logs")
    assert loggings == {}  # the archive buckets do not log their own access (they would log to themselves)
    assert cn.outputs["accessLogBuckets"] == archive_of


def test_archive_buckets_are_protected_like_the_trail_bucket(cn):
    account = cn.policy.cloud.account_id
    for name, region in ARCHIVES.items():
        bucket = cn.one(name)
        assert bucket.inputs["forceDestroy"] is False
        assert "objectLockEnabled" not in bucket.inputs and "objectLockConfiguration" not in bucket.inputs  # S3 would not deliver
        assert bucket.inputs["tags"]["purpose"] == "access-logging" and bucket.inputs["tags"]["data-class"] == "personal"
        assert cn.one(f"{name}-versioning").inputs["versioningConfiguration"] == {"status": "Enabled"}
        pab = cn.one(f"{name}-public-access-block").inputs
        assert all(pab[k] is True for k in ("blockPublicAcls", "blockPublicPolicy", "ignorePublicAcls", "restrictPublicBuckets"))
        (sse,) = cn.one(f"{name}-sse").inputs["rules"]
        key = sse["applyServerSideEncryptionByDefault"]["kmsMasterKeyId"]
        assert sse["applyServerSideEncryptionByDefault"]["sseAlgorithm"] == "aws:kms" and sse["bucketKeyEnabled"] is True
        if region == "cn-north-1":
            assert key == cn.policy.compliance.kms_key_arn  # the policy's customer-managed key
        else:
            assert key.startswith("arn:aws-cn:kms:cn-northwest-1:444455556666:key/")  # the replica StackKey
        (rule,) = cn.one(f"{name}-lifecycle").inputs["rules"]
        assert rule["expiration"] == {"days": 365} and rule["filter"] == {"prefix": ""}  # whole bucket, >= 183 days
        assert rule["noncurrentVersionExpiration"] == {"noncurrentDays": 30}
        stmts = {s["Sid"]: s for s in json.loads(cn.one(f"{name}-policy").inputs["policy"])["Statement"]}
        arn = f"arn:aws-cn:s3:::{_auto_name(cn, name)}"
        assert stmts["DenyInsecureTransport"]["Condition"] == {"Bool": {"aws:SecureTransport": "false"}}
        assert stmts["DenyObjectDeletion"] == {
            "Sid": "DenyObjectDeletion", "Effect": "Deny", "Principal": "*",
            "Action": ["s3:DeleteObject", "s3:DeleteObjectVersion"], "Resource": f"{arn}/*",
        }
        delivery = stmts["S3ServerAccessLogsPolicy"]
        sources = sorted(lg.name.removesuffix("-access-logging") for lg in cn.of_type(LOGGING) if lg.region == region)
        assert (delivery["Effect"], delivery["Principal"], delivery["Action"]) == ("Allow", {"Service": LOGGING_SERVICE}, "s3:PutObject")
        assert sorted(delivery["Resource"]) == [f"{arn}/{s}/*" for s in sources]
        assert sorted(delivery["Condition"]["ArnLike"]["aws:SourceArn"]) == sorted(f"arn:aws-cn:s3:::{_auto_name(cn, s)}" for s in sources)
        assert delivery["Condition"]["StringEquals"] == {"aws:SourceAccount": account}
    assert cn.of_type("aws:s3/bucketObjectLockConfiguration:BucketObjectLockConfiguration") == []


def test_archive_has_an_off_site_copy(cn):
    # MLPS 8.1.4.9 b): the archive holds personal data (requesters), so it is copied to the partner region
    (rule,) = cn.one("access-logs-bucket-replication").inputs["rules"]
    assert rule["status"] == "Enabled" and rule["deleteMarkerReplication"] == {"status": "Enabled"}
    assert rule["destination"]["bucket"] == f"arn:aws-cn:s3:::{_auto_name(cn, 'access-logs-bucket-replica')}"
    assert cn.one("access-logs-bucket-replica").inputs["tags"]["seedance:replica-of"] == "access-logs-bucket"


def test_the_key_the_stack_creates_lets_the_logging_service_encrypt_the_archive(cn):
    stmts = {s["Sid"]: s for s in json.loads(cn.one("kms-replica-key").inputs["policy"])["Statement"]}
    logs = stmts["S3ServerAccessLogs"]
    assert logs == access_log_statement("aws-cn", "access-logs-bucket")
    assert logs["Principal"] == {"Service": LOGGING_SERVICE} and logs["Action"] == ["kms:GenerateDataKey*", "kms:Decrypt"]
    pattern = logs["Condition"]["ArnLike"]["kms:EncryptionContext:aws:s3:arn"]
    for name in ARCHIVES:  # the bucket's ARN (S3 Bucket Key) and its objects' ARNs
        arn = f"arn:aws-cn:s3:::{_auto_name(cn, name)}"
        assert fnmatch.fnmatchcase(arn, pattern) and fnmatch.fnmatchcase(f"{arn}/storage-llm-checkpoints/2026-01-01", pattern)
    for other in ("storage-llm-checkpoints", "audit-trail-bucket"):
        assert not fnmatch.fnmatchcase(f"arn:aws-cn:s3:::{_auto_name(cn, other)}", pattern)


def test_no_access_logging_without_mlps(eu, dev):
    for s in (eu, dev):
        assert s.of_type(LOGGING) == []
        assert s.of_type("seedance:logging:AccessLogArchive") == []
        assert "accessLogBuckets" not in s.outputs
    (key,) = dev.of_type("aws:kms/key:Key")
    assert "S3ServerAccessLogs" not in {s["Sid"] for s in json.loads(key.inputs["policy"])["Statement"]}


def test_archive_keeps_logs_as_long_as_the_gate_and_the_estimate_say():
    assert MIN_ARCHIVE_DAYS == ACCESS_LOG_MIN_DAYS == 183


def test_log_delivery_statement_is_the_one_aws_documents():
    got = log_delivery_statement("arn:aws:s3:::logs-1", "111122223333", [("a", "arn:aws:s3:::a-1"), ("b", "arn:aws:s3:::b-2")])
    assert got == {
        "Sid": "S3ServerAccessLogsPolicy",
        "Effect": "Allow",
        "Principal": {"Service": "logging.s3.amazonaws.com"},
        "Action": "s3:PutObject",
        "Resource": ["arn:aws:s3:::logs-1/a/*", "arn:aws:s3:::logs-1/b/*"],
        "Condition": {
            "ArnLike": {"aws:SourceArn": ["arn:aws:s3:::a-1", "arn:aws:s3:::b-2"]},
            "StringEquals": {"aws:SourceAccount": "111122223333"},
        },
    }


def _archive_program(retention_days: int = 200):  # noqa: ANN202 - a Pulumi program
    def program() -> None:
        data = aws.s3.Bucket("data")
        AccessLogArchive("logs", AccessLogArchiveArgs(
            region="eu-central-1", account_id="111122223333", kms_key_arn="arn:aws:kms:eu-central-1:111122223333:key/k",
            retention_days=retention_days, sources=[LoggedBucket("data", data, "eu-central-1")],
        ))
    return program


def test_archive_without_an_off_site_copy():
    doc = run_program(_archive_program(), project="p", stack="s", default_region="eu-central-1").document
    assert [r.name for r in doc.of_type(BUCKET)] == ["data", "logs-bucket"]
    assert doc.of_type("aws:s3/bucketReplicationConfig:BucketReplicationConfig") == []
    (lg,) = doc.of_type(LOGGING)
    assert (lg.name, lg.inputs["targetPrefix"], "region" in lg.inputs) == ("data-access-logging", "data/", False)
    assert lg.inputs["targetBucket"] == doc.by_name("logs-bucket-policy").inputs["bucket"]
    (rule,) = doc.by_name("logs-bucket-lifecycle").inputs["rules"]
    assert rule["expiration"] == {"days": 200}


def test_an_archive_region_without_sources_admits_no_log_delivery():
    def program() -> None:
        AccessLogArchive("logs", AccessLogArchiveArgs(
            region="eu-central-1", account_id="111122223333", kms_key_arn="k", retention_days=365,
            replica_region="eu-west-1", replica_kms_key_arn="k2",
        ))
    doc = run_program(program, project="p", stack="s", default_region="eu-central-1").document
    for name in ("logs-bucket-policy", "logs-bucket-replica-policy"):
        assert [s["Sid"] for s in json.loads(doc.by_name(name).inputs["policy"])["Statement"]] == ["DenyInsecureTransport", "DenyObjectDeletion"]
    assert doc.by_name("logs-bucket-replica").region == "eu-west-1"


def _args(**kw) -> AccessLogArchiveArgs:
    base = dict(region="cn-north-1", account_id="1", kms_key_arn="k", retention_days=365)
    return AccessLogArchiveArgs(**(base | kw))


@pytest.mark.parametrize(("kw", "message"), [
    (dict(retention_days=182), r"^AccessLogArchiveArgs.retention_days: expected at least 183 days \(MLPS 8.1.5.4 d keeps log archives six months\), got 182$"),
    (dict(replica_region="cn-northwest-1"), r"^AccessLogArchiveArgs.replica_kms_key_arn: a replica region needs a KMS key in that region$"),
    (dict(replica_region="cn-north-1", replica_kms_key_arn="k2"), r"^AccessLogArchiveArgs.replica_region: expected a region other than cn-north-1$"),
])
def test_archive_args_are_validated(kw, message):
    with pytest.raises(ComponentArgsError, match=message):
        _args(**kw).validate()


def test_sources_need_an_archive_in_their_region_and_unique_names():
    def program() -> None:
        a, b = aws.s3.Bucket("a"), aws.s3.Bucket("b")
        with pytest.raises(ComponentArgsError, match=r"^AccessLogArchiveArgs.sources\[b\]: S3 delivers server access logs only to a bucket "
                           r"in the source's region; the archive has none in cn-northwest-1 \(it has \['cn-north-1'\]\)$"):
            _args(sources=[LoggedBucket("a", a, "cn-north-1"), LoggedBucket("b", b, "cn-northwest-1")]).validate()
        with pytest.raises(ComponentArgsError, match=r"^AccessLogArchiveArgs.sources: expected unique, non-empty source names"):
            _args(sources=[LoggedBucket("a", a, "cn-north-1"), LoggedBucket("a", b, "cn-north-1")]).validate()
        _args(sources=[LoggedBucket("b", b, "cn-northwest-1")], replica_region="cn-northwest-1", replica_kms_key_arn="k2").validate()

    run_program(program, project="p", stack="s", default_region="cn-north-1")


def test_stack_key_access_log_prefix_is_a_bucket_name_start():
    with pytest.raises(ComponentArgsError, match=r"^StackKeyArgs.access_log_bucket_prefix: expected the start of an S3 bucket name"):
        StackKeyArgs(region="cn-north-1", account_id="1", alias="a", access_log_bucket_prefix="Access_Logs").validate()
    assert archive_bucket_prefix("access-logs") == "access-logs-bucket"
