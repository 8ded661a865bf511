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
