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
