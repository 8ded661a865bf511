package gdpr.backup_test

import data.gdpr.backup
import data.lib.fixtures

_f(type, name, msg) := fixtures.finding("GDPR-32.1c-1", "mandatory", type, name, msg)

pass_resources := array.concat(fixtures.good_bucket("ds", "personal"), [
	fixtures.bucket("scratch", "internal"),
	fixtures.resource("aws:rds/instance:Instance", "db", {"backupRetentionPeriod": 7}),
])

fail_resources := [
	fixtures.bucket("ds", "personal"),
	fixtures.bucket_part("aws:s3/bucketVersioning:BucketVersioning", "ds", "versioning", {"versioningConfiguration": {"status": "Suspended"}}),
	fixtures.resource("aws:rds/instance:Instance", "db", {"backupRetentionPeriod": 1}),
]

test_pass_versioned_personal_data if {
	v := backup.violation with input as fixtures.gate_input(fixtures.gdpr_policy, pass_resources)
	v == set()
}

test_fail_unversioned_personal_data if {
	v := backup.violation with input as fixtures.gate_input(fixtures.gdpr_policy, fail_resources)
	v == {
		_f("aws:s3/bucket:Bucket", "ds", "personal-data bucket is not versioned (no recovery from overwrite or deletion)"),
		_f("aws:rds/instance:Instance", "db", "database keeps backups 1 days (at least 7 required)"),
	}
}

# audit B2: versioning through the V2 type or inline counts
test_pass_v2_and_inline_versioning if {
	resources := [
		fixtures.bucket("v2", "personal"),
		fixtures.bucket_part("aws:s3/bucketVersioningV2:BucketVersioningV2", "v2", "versioning", {"versioningConfiguration": {"status": "Enabled"}}),
		object.union(fixtures.bucket("inline", "personal"), {"inputs": {"versioning": {"enabled": true}}}),
	]
	v := backup.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == set()
}
