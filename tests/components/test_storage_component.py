"""StorageTiers: StorageClasses and checkpoint buckets per example stack."""

from __future__ import annotations

import json

import pytest

from components.common import ComponentArgsError
from components.storage import LifecycleDays, csi_volume_tags, lifecycle_days, reclaim_policy
from seedance.policy.model import CheckpointBucket, StorageClass


def bucket_parts(s, name: str) -> dict:
    base = f"storage-{name}"
    return {
        "bucket": s.one(base).inputs,
        "pab": s.one(f"{base}-public-access-block").inputs,
        "sse": s.one(f"{base}-sse").inputs,
        "versioning": s.one(f"{base}-versioning").inputs,
        "policy": s.one(f"{base}-policy").inputs,
        "lifecycle": s.one(f"{base}-lifecycle").inputs,
    }


def rule(parts: dict) -> dict:
    (r,) = parts["lifecycle"]["rules"]
    return r


def test_lifecycle_days_match_the_policy(eu, dev):
    # eu llm-checkpoints: hot 30, warm 60, expire 365, noncurrent 14
    r = rule(bucket_parts(eu, "llm-checkpoints"))
    assert [(t["storageClass"], t["days"]) for t in r["transitions"]] == [("STANDARD_IA", 30), ("GLACIER", 90)]
    assert r["expiration"] == {"days": 365}
    assert r["noncurrentVersionExpiration"] == {"noncurrentDays": 14}
    assert r["status"] == "Enabled" and r["abortIncompleteMultipartUpload"] == {"daysAfterInitiation": 7}
    # eu finetune-datasets: warmDays null -> no Standard-IA tier, Glacier at hotDays 30; expire 180, noncurrent 7
    r = rule(bucket_parts(eu, "finetune-datasets"))
    assert [(t["storageClass"], t["days"]) for t in r["transitions"]] == [("GLACIER", 30)]
    assert r["expiration"] == {"days": 180}
    assert r["noncurrentVersionExpiration"] == {"noncurrentDays": 7}
    # dev overrides llm-checkpoints' expiry to 120
    assert rule(bucket_parts(dev, "llm-checkpoints"))["expiration"] == {"days": 120}


def test_buckets_are_private_encrypted_versioned_tls_only(stack):
    key = stack.kms_key_arn()
    for b in stack.policy.storage.checkpoint_buckets:
        parts = bucket_parts(stack, b.name)
        assert parts["pab"] | {"bucket": None} == {
            "bucket": None, "blockPublicAcls": True, "blockPublicPolicy": True, "ignorePublicAcls": True, "restrictPublicBuckets": True
        }
        (sse,) = parts["sse"]["rules"]
        assert sse["applyServerSideEncryptionByDefault"] == {"sseAlgorithm": "aws:kms", "kmsMasterKeyId": key}
        assert sse["bucketKeyEnabled"] is True
        assert parts["versioning"]["versioningConfiguration"] == {"status": "Enabled"}
        stmt = json.loads(parts["policy"]["policy"])["Statement"]
        assert stmt[0]["Effect"] == "Deny" and stmt[0]["Condition"] == {"Bool": {"aws:SecureTransport": "false"}}
        arn = stmt[0]["Resource"][0]
        assert stmt[0]["Resource"] == [arn, f"{arn}/*"] and arn.startswith("arn:aws")
        assert parts["bucket"]["tags"]["data-class"] == b.data_class.value
        assert parts["bucket"]["forceDestroy"] is False


def test_cn_bucket_arns_use_the_china_partition(cn):
    stmt = json.loads(bucket_parts(cn, "llm-checkpoints")["policy"]["policy"])["Statement"]
    assert stmt[0]["Resource"][0].startswith("arn:aws-cn:s3:::")


def test_storage_classes(eu):
    classes = {r.inputs["metadata"]["name"]: r.inputs for r in eu.of_type("kubernetes:storage.k8s.io/v1:StorageClass")}
    key = eu.kms_key_arn()
    assert classes["general"]["provisioner"] == "ebs.csi.aws.com"
    params = classes["general"]["parameters"]
    tags = {k: v for k, v in params.items() if k.startswith("tagSpecification_") and k != "tagSpecification_1"}
    assert {k: v for k, v in params.items() if k not in tags} == {
        "type": "gp3", "encrypted": "true", "kmsKeyId": key, "iops": "6000", "throughput": "250", "csi.storage.k8s.io/fstype": "ext4",
        "tagSpecification_1": "seedance:backup=eu-prod",  # personal data under GDPR: the EbsBackup selection's tag
    }
    # the volumes carry the stack's cost-allocation tags (the AWS Budget filters on seedance:stack)
    pairs = dict(v.split("=", 1) for v in tags.values())
    assert pairs["seedance:stack"] == "eu-prod" and pairs["data-class"] == "personal" and pairs["purpose"] == "volume-storage"
    assert {"environment", "team", "cost-center", "seedance:policy"} <= set(pairs)
    assert sorted(int(k.rsplit("_", 1)[1]) for k in tags) == list(range(2, 2 + len(tags)))
    assert classes["general"]["reclaimPolicy"] == "Delete"  # personal data
    assert classes["general"]["metadata"]["labels"]["seedance.io/data-class"] == "personal"
    assert classes["fast-ckpt"]["parameters"]["type"] == "io2" and classes["fast-ckpt"]["parameters"]["iops"] == "20000"
    assert classes["fast-ckpt"]["volumeBindingMode"] == "WaitForFirstConsumer"
    scratch = classes["scratch"]
    assert scratch["provisioner"] == "kubernetes.io/no-provisioner"
    assert scratch["volumeBindingMode"] == "WaitForFirstConsumer"
    assert scratch["allowedTopologies"] == [
        {"matchLabelExpressions": [{"key": "topology.kubernetes.io/zone", "values": ["eu-central-1a", "eu-central-1b", "eu-central-1c"]}]}
    ]
    assert "parameters" not in scratch


def test_volume_tags_leave_out_the_keys_the_csi_driver_keeps() -> None:
    # an audit: a metadata.tags key 'kubernetes.io/owner-team' in tagSpecification_N made the EBS CSI
    # driver refuse every volume of the class (validateExtraTags), so every claim stayed Pending
    tags = {"team": "ml", "kubernetes.io/owner-team": "ml", "kubernetes.io": "x", "CSIVolumeName": "n",
            "CSIVolumeSnapshotName": "s", "ebs.csi.aws.com/cluster": "true", "seedance:stack": "eu-prod",
            "k8s.io/x": "kept", "csivolumename": "kept (another key)"}
    assert csi_volume_tags(tags) == {"team": "ml", "seedance:stack": "eu-prod", "k8s.io/x": "kept",
                                     "csivolumename": "kept (another key)"}


def test_reclaim_policy_from_data_class():
    personal = StorageClass.model_validate({"name": "p", "tier": "gp3", "dataClass": "personal", "reclaimPolicy": "Retain"})
    internal = StorageClass.model_validate({"name": "i", "tier": "gp3", "dataClass": "internal", "reclaimPolicy": "Retain"})
    assert reclaim_policy(personal) == "Delete"
    assert reclaim_policy(internal) == "Retain"


def test_lifecycle_validation_names_the_field():
    early = CheckpointBucket.model_validate({"name": "b", "hotDays": 10})
    with pytest.raises(ComponentArgsError, match=r"^storage.checkpointBuckets\[b\].hotDays: expected >= 30 .* got 10$"):
        lifecycle_days(early)
    brief = CheckpointBucket.model_validate({"name": "b", "hotDays": 30, "warmDays": 10})
    with pytest.raises(ComponentArgsError, match=r"^storage.checkpointBuckets\[b\].warmDays: expected >= 30 .* got 10$"):
        lifecycle_days(brief)  # S3 refuses a Glacier transition sooner than 30 days after Standard-IA
    short = CheckpointBucket.model_validate({"name": "b", "hotDays": 30, "warmDays": 60, "expireDays": 60})
    with pytest.raises(ComponentArgsError, match=r"^storage.checkpointBuckets\[b\].expireDays: expected more than 90 days"):
        lifecycle_days(short)
    cold = CheckpointBucket.model_validate({"name": "b", "hotDays": 30, "warmDays": 30, "coldDays": 100})
    assert lifecycle_days(cold) == LifecycleDays(standard_ia=30, glacier=60, expire=160, noncurrent_expire=30)
    # no Standard-IA tier: S3's 30-day minimum does not apply, Glacier at hotDays
    direct = CheckpointBucket.model_validate({"name": "b", "hotDays": 7, "warmDays": None, "coldDays": 90})
    assert lifecycle_days(direct) == LifecycleDays(standard_ia=None, glacier=7, expire=97, noncurrent_expire=30)
    kept = CheckpointBucket.model_validate({"name": "b", "hotDays": 30, "warmDays": None})
    assert lifecycle_days(kept).expire is None
