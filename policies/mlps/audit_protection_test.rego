package mlps.audit_protection_test

import data.mlps.audit_protection
import data.lib.fixtures

_deny_delete := json.marshal({"Statement": [{"Effect": "Deny", "Principal": "*", "Action": ["s3:DeleteObject", "s3:DeleteObjectVersion"], "Resource": "arn:aws:s3:::audit-logs/*"}]})

pass_resources := [
	fixtures.trail("audit", {}),
	fixtures.bucket("audit-logs", "internal"),
	fixtures.bucket_part("aws:s3/bucketVersioning:BucketVersioning", "audit-logs", "versioning", {"versioningConfiguration": {"status": "Enabled"}}),
	fixtures.bucket_part("aws:s3/bucketPolicy:BucketPolicy", "audit-logs", "policy", {"policy": _deny_delete}),
]

fail_resources := [
	fixtures.trail("audit", {"enableLogFileValidation": false, "kmsKeyId": ""}),
	fixtures.bucket("audit-logs", "internal"),
]

test_pass_protected_audit_trail if {
	v := audit_protection.violation with input as fixtures.gate_input(fixtures.mlps_policy, pass_resources)
	v == set()
}

test_fail_unprotected_audit_trail if {
	v := audit_protection.violation with input as fixtures.gate_input(fixtures.mlps_policy, fail_resources)
	v == {
		fixtures.finding("MLPS-L3-8.1.4.3c", "mandatory", "aws:cloudtrail/trail:Trail", "audit", "trail has log-file validation off"),
		fixtures.finding("MLPS-L3-8.1.4.3c", "mandatory", "aws:cloudtrail/trail:Trail", "audit", "trail log files are not encrypted with a KMS key"),
		fixtures.finding("MLPS-L3-8.1.4.3c", "mandatory", "aws:s3/bucket:Bucket", "audit-logs", "audit log bucket is not versioned"),
		fixtures.finding("MLPS-L3-8.1.4.3c", "mandatory", "aws:s3/bucket:Bucket", "audit-logs", "audit log bucket has neither Object Lock nor a policy denying deletes"),
	}
}

# S3 server access logs are audit records too: their bucket is protected like the trail's
_access_logged(archive_parts) := array.concat(
	[
		fixtures.resource("aws:s3/bucketV2:BucketV2", "src", {"bucket": "src", "tags": fixtures.tags("internal")}),
		fixtures.bucket_part("aws:s3/bucketLogging:BucketLogging", "src", "logging", {"targetBucket": "access-logs"}),
		fixtures.bucket("access-logs", "internal"),
	],
	archive_parts,
)

test_pass_protected_access_log_bucket if {
	resources := _access_logged([
		fixtures.bucket_part("aws:s3/bucketVersioning:BucketVersioning", "access-logs", "versioning", {"versioningConfiguration": {"status": "Enabled"}}),
		fixtures.bucket_part("aws:s3/bucketPolicy:BucketPolicy", "access-logs", "policy", {"policy": _deny_delete}),
	])
	v := audit_protection.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == set()
}

test_fail_unprotected_access_log_bucket if {
	v := audit_protection.violation with input as fixtures.gate_input(fixtures.mlps_policy, _access_logged([]))
	v == {
		fixtures.finding("MLPS-L3-8.1.4.3c", "mandatory", "aws:s3/bucket:Bucket", "access-logs", "audit log bucket is not versioned"),
		fixtures.finding("MLPS-L3-8.1.4.3c", "mandatory", "aws:s3/bucket:Bucket", "access-logs", "audit log bucket has neither Object Lock nor a policy denying deletes"),
	}
}

# a trail the policy relies on (compliance.existingTrail), as CloudTrail describes it
test_pass_existing_trail_validated_and_encrypted if {
	policy := fixtures.with_existing_trail(fixtures.mlps_policy, false)
	v := audit_protection.violation with input as fixtures.with_trail_fact(fixtures.gate_input(policy, []), fixtures.trail_fact({}))
	v == set()
}

test_fail_existing_trail_unvalidated_and_unencrypted if {
	policy := fixtures.with_existing_trail(fixtures.mlps_policy, false)
	fact := fixtures.trail_fact({"log_file_validation": false, "kms_key_id": null})
	v := audit_protection.violation with input as fixtures.with_trail_fact(fixtures.gate_input(policy, []), fact)
	arn := fixtures.existing_trail_arn
	v == {
		fixtures.stack_finding("MLPS-L3-8.1.4.3c", "mandatory", sprintf("existing trail %s has log-file validation off (read from CloudTrail)", [arn])),
		fixtures.stack_finding("MLPS-L3-8.1.4.3c", "mandatory", sprintf("existing trail %s log files are not encrypted with a KMS key (read from CloudTrail)", [arn])),
	}
}
