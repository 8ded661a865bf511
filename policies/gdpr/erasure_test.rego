package gdpr.erasure_test

import data.gdpr.erasure
import data.lib.fixtures

_f(type, name, msg) := fixtures.finding("GDPR-17-1", "advisory", type, name, msg)

_lock(bucket, mode, retention) := fixtures.bucket_part("aws:s3/bucketObjectLockConfiguration:BucketObjectLockConfiguration", bucket, "lock", {
	"objectLockEnabled": "Enabled",
	"rule": {"defaultRetention": object.union({"mode": mode}, retention)},
})

pass_resources := [
	fixtures.bucket("ds", "personal"),
	_lock("ds", "GOVERNANCE", {"days": 30}),
	fixtures.storage_class("general", "personal", {}),
]

fail_resources := [
	fixtures.bucket("ds", "personal"),
	_lock("ds", "COMPLIANCE", {"years": 2}),
	fixtures.storage_class("general", "personal", {"reclaimPolicy": "Retain"}),
]

test_pass_erasable if {
	v := erasure.violation with input as fixtures.gate_input(fixtures.gdpr_policy, pass_resources)
	v == set()
}

test_fail_locked_personal_data if {
	v := erasure.violation with input as fixtures.gate_input(fixtures.gdpr_policy, fail_resources)
	v == {
		_f("aws:s3/bucket:Bucket", "ds", "Object Lock COMPLIANCE mode makes personal data undeletable until retention ends"),
		_f("aws:s3/bucket:Bucket", "ds", "Object Lock retention of 730 days exceeds the personal-data maximum of 365 days"),
		_f("kubernetes:storage.k8s.io/v1:StorageClass", "general", "personal-data StorageClass retains volumes after release (reclaimPolicy Retain)"),
	}
}

# audit B2: an inline Object Lock configuration counts
test_fail_inline_compliance_lock if {
	bucket := object.union(fixtures.bucket("locked", "personal"), {"inputs": {"objectLockEnabled": true, "objectLockConfiguration": {"objectLockEnabled": "Enabled", "rule": {"defaultRetention": {"mode": "COMPLIANCE", "years": 10}}}}})
	v := erasure.violation with input as fixtures.gate_input(fixtures.gdpr_policy, [bucket])
	v == {
		fixtures.finding("GDPR-17-1", "advisory", "aws:s3/bucket:Bucket", "locked", "Object Lock COMPLIANCE mode makes personal data undeletable until retention ends"),
		fixtures.finding("GDPR-17-1", "advisory", "aws:s3/bucket:Bucket", "locked", "Object Lock retention of 3650 days exceeds the personal-data maximum of 365 days"),
	}
}

# test audit: a personal-data PersistentVolume is retained unless it says Delete (Retain is the
# default for a volume created by hand)
_pv(name, spec) := fixtures.resource("kubernetes:core/v1:PersistentVolume", name, {
	"metadata": {"name": name, "labels": fixtures.labels("personal")},
	"spec": object.union({"capacity": {"storage": "100Gi"}, "accessModes": ["ReadWriteOnce"], "csi": {"driver": "ebs.csi.aws.com", "volumeHandle": "vol-1"}}, spec),
})

test_fail_retained_personal_persistent_volume if {
	resources := [_pv("explicit", {"persistentVolumeReclaimPolicy": "Retain"}), _pv("default", {})]
	v := erasure.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == {
		_f("kubernetes:core/v1:PersistentVolume", "explicit", "personal-data PersistentVolume is retained after release"),
		_f("kubernetes:core/v1:PersistentVolume", "default", "personal-data PersistentVolume is retained after release"),
	}
}

test_pass_deleted_personal_persistent_volume if {
	v := erasure.violation with input as fixtures.gate_input(fixtures.gdpr_policy, [_pv("pv", {"persistentVolumeReclaimPolicy": "Delete"})])
	v == set()
}

# fail closed: a reclaim policy the preview does not know yet may be Retain
test_fail_unknown_reclaim_policy if {
	sc := fixtures.resource("kubernetes:storage.k8s.io/v1:StorageClass", "sc", {
		"metadata": {"name": "sc", "labels": fixtures.labels("personal")},
		"provisioner": "ebs.csi.aws.com", "reclaimPolicy": "[unknown]",
	})
	resources := [sc, _pv("pv", {"persistentVolumeReclaimPolicy": "[unknown]"})]
	v := erasure.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == {
		_f("kubernetes:storage.k8s.io/v1:StorageClass", "sc", "personal-data volumes: reclaim policy [unknown] cannot be established (Delete required)"),
		_f("kubernetes:core/v1:PersistentVolume", "pv", "personal-data volumes: reclaim policy [unknown] cannot be established (Delete required)"),
	}
}
