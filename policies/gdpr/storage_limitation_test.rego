package gdpr.storage_limitation_test

import data.gdpr.storage_limitation
import data.lib.fixtures

_f(type, name, msg) := fixtures.finding("GDPR-5.1e-1", "mandatory", type, name, msg)

_lifecycle(name, rule) := fixtures.bucket_part("aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration", name, "lifecycle", {"rules": [rule]})

pass_resources := array.concat(fixtures.good_bucket("ds", "personal"), [fixtures.storage_class("general", "personal", {})])

fail_long := [
	fixtures.bucket("ds", "personal"),
	fixtures.bucket_part("aws:s3/bucketVersioning:BucketVersioning", "ds", "versioning", {"versioningConfiguration": {"status": "Enabled"}}),
	_lifecycle("ds", {"id": "x", "status": "Enabled", "expiration": {"days": 400}}),
	fixtures.storage_class("keep", "personal", {"reclaimPolicy": "Retain"}),
]

test_pass_expiring_personal_bucket if {
	v := storage_limitation.violation with input as fixtures.gate_input(fixtures.gdpr_policy, pass_resources)
	v == set()
}

test_fail_expiry_above_maximum_and_retained_volumes if {
	v := storage_limitation.violation with input as fixtures.gate_input(fixtures.gdpr_policy, fail_long)
	v == {
		_f("aws:s3/bucket:Bucket", "ds", "personal-data bucket expires objects after 400 days, above the maximum of 365 days"),
		_f("aws:s3/bucket:Bucket", "ds", "versioned personal-data bucket never expires noncurrent versions"),
		_f("kubernetes:storage.k8s.io/v1:StorageClass", "keep", "personal-data StorageClass keeps released volumes (reclaimPolicy Retain)"),
	}
}

test_fail_never_expires if {
	v := storage_limitation.violation with input as fixtures.gate_input(fixtures.gdpr_policy, [fixtures.bucket("ds", "personal")])
	v == {_f("aws:s3/bucket:Bucket", "ds", "personal-data bucket never expires objects (maximum 365 days)")}
}

test_fail_no_declared_maximum if {
	policy := json.remove(fixtures.gdpr_policy, ["compliance/personalDataMaxDays"])
	v := storage_limitation.violation with input as fixtures.gate_input(policy, pass_resources)
	v == {fixtures.stack_finding("GDPR-5.1e-1", "mandatory", "personal data is stored but compliance.personalDataMaxDays is not declared")}
}

test_pass_internal_data_not_limited if {
	v := storage_limitation.violation with input as fixtures.gate_input(fixtures.gdpr_policy, [fixtures.bucket("ckpt", "internal")])
	v == set()
}

# a provider whose default tags carry the data class (audit A3)
_provider(tags) := fixtures.resource("pulumi:providers:aws", "aws", {"region": "eu-central-1", "defaultTags": json.marshal({"tags": tags})})

_untagged_bucket(name) := fixtures.resource("aws:s3/bucket:Bucket", name, {"bucket": name, "tags": {"team": "ml-platform"}})

# audit A3: the data class comes from the provider's defaultTags
test_fail_personal_by_provider_default_tags if {
	resources := [_provider({"data-class": "personal", "purpose": "datasets", "controller": "c"}), _untagged_bucket("ds")]
	v := storage_limitation.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == {_f("aws:s3/bucket:Bucket", "ds", "personal-data bucket never expires objects (maximum 365 days)")}
}

# audit A3: a data class other than personal, internal and public counts as personal (fail closed)
test_fail_unrecognised_data_class_counts_as_personal if {
	resources := [fixtures.bucket("secret", "confidential"), fixtures.bucket("upper", "Personal"), fixtures.bucket("unknown", "[unknown]"), fixtures.bucket("scratch", "internal")]
	v := storage_limitation.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == {
		_f("aws:s3/bucket:Bucket", "secret", "personal-data bucket never expires objects (maximum 365 days)"),
		_f("aws:s3/bucket:Bucket", "upper", "personal-data bucket never expires objects (maximum 365 days)"),
		_f("aws:s3/bucket:Bucket", "unknown", "personal-data bucket never expires objects (maximum 365 days)"),
	}
}

# audit A7: a rule scoped to a prefix does not expire the rest of the bucket
test_fail_prefix_scoped_expiry_only if {
	resources := [
		fixtures.bucket("ds", "personal"),
		fixtures.bucket_part("aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration", "ds", "lifecycle", {"rules": [
			{"id": "tmp", "status": "Enabled", "filter": {"prefix": "tmp/"}, "expiration": {"days": 1}},
			{"id": "all", "status": "Enabled", "filter": {"prefix": ""}, "transitions": [{"days": 30, "storageClass": "GLACIER"}]},
		]}),
	]
	v := storage_limitation.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == {_f("aws:s3/bucket:Bucket", "ds", "personal-data bucket expires only objects under a prefix, tag or size filter; no rule expires every object (maximum 365 days)")}
}

# audit B2: lifecycle through the V2 type and inline lifecycle rules count; an empty filter covers every object
test_pass_v2_and_inline_lifecycle if {
	resources := [
		fixtures.bucket("v2", "personal"),
		fixtures.bucket_part("aws:s3/bucketLifecycleConfigurationV2:BucketLifecycleConfigurationV2", "v2", "lifecycle", {"rules": [
			{"id": "all", "status": "Enabled", "filter": {"and": {"prefix": ""}}, "expiration": {"days": 180}},
		]}),
		object.union(fixtures.bucket("inline", "personal"), {"inputs": {
			"versioning": {"enabled": true},
			"lifecycleRules": [{"enabled": true, "expiration": {"days": 90}, "noncurrentVersionExpiration": {"days": 7}}],
		}}),
	]
	v := storage_limitation.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == set()
}

# test audit: noncurrent versions kept longer than the maximum; at the maximum passes
_versioned_bucket(name, noncurrent_days) := [
	fixtures.bucket(name, "personal"),
	fixtures.bucket_part("aws:s3/bucketVersioning:BucketVersioning", name, "versioning", {"versioningConfiguration": {"status": "Enabled"}}),
	_lifecycle(name, {"id": "x", "status": "Enabled", "expiration": {"days": 30}, "noncurrentVersionExpiration": {"noncurrentDays": noncurrent_days}}),
]

test_fail_noncurrent_versions_above_maximum if {
	v := storage_limitation.violation with input as fixtures.gate_input(fixtures.gdpr_policy, _versioned_bucket("ds", 400))
	v == {_f("aws:s3/bucket:Bucket", "ds", "noncurrent versions expire after 400 days, above the maximum of 365 days")}
}

test_pass_noncurrent_versions_at_maximum if {
	v := storage_limitation.violation with input as fixtures.gate_input(fixtures.gdpr_policy, _versioned_bucket("ds", 365))
	v == set()
}

_pv(name, spec) := fixtures.resource("kubernetes:core/v1:PersistentVolume", name, {
	"metadata": {"name": name, "labels": fixtures.labels("personal")},
	"spec": object.union({"capacity": {"storage": "10Gi"}, "accessModes": ["ReadWriteOnce"]}, spec),
})

# personal-data PersistentVolumes: Retain (also Kubernetes's default for them), Recycle and unknown
# values keep data past its limit; Delete passes
test_fail_retained_persistent_volumes if {
	resources := [
		_pv("explicit", {"persistentVolumeReclaimPolicy": "Retain"}),
		_pv("default", {}),
		_pv("recycled", {"persistentVolumeReclaimPolicy": "Recycle"}),
		_pv("unknown", {"persistentVolumeReclaimPolicy": "[unknown]"}),
		_pv("deleted", {"persistentVolumeReclaimPolicy": "Delete"}),
	]
	v := storage_limitation.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == {
		_f("kubernetes:core/v1:PersistentVolume", "explicit", "personal-data PersistentVolume keeps its volume after release (persistentVolumeReclaimPolicy Retain)"),
		_f("kubernetes:core/v1:PersistentVolume", "default", "personal-data PersistentVolume keeps its volume after release (persistentVolumeReclaimPolicy Retain)"),
		_f("kubernetes:core/v1:PersistentVolume", "recycled", "personal-data PersistentVolume keeps its volume after release (persistentVolumeReclaimPolicy Recycle)"),
		_f("kubernetes:core/v1:PersistentVolume", "unknown", "personal-data PersistentVolume keeps its volume after release (persistentVolumeReclaimPolicy [unknown])"),
	}
}

test_pass_internal_persistent_volume_retained if {
	pv := fixtures.resource("kubernetes:core/v1:PersistentVolume", "scratch", {
		"metadata": {"name": "scratch", "labels": fixtures.labels("internal")},
		"spec": {"persistentVolumeReclaimPolicy": "Retain"},
	})
	v := storage_limitation.violation with input as fixtures.gate_input(fixtures.gdpr_policy, [pv])
	v == set()
}
