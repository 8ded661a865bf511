package mlps.audit_protection_test

import data.mlps.audit_protection
import data.lib.fixtures

_deny_delete(bucket) := json.marshal({"Statement": [{"Effect": "Deny", "Principal": "*", "Action": ["s3:DeleteObject", "s3:DeleteObjectVersion"], "Resource": sprintf("arn:aws:s3:::%s/*", [bucket])}]})

pass_resources := [
	fixtures.trail("audit", {}),
	fixtures.bucket("audit-logs", "internal"),
	fixtures.bucket_part("aws:s3/bucketVersioning:BucketVersioning", "audit-logs", "versioning", {"versioningConfiguration": {"status": "Enabled"}}),
	fixtures.bucket_part("aws:s3/bucketPolicy:BucketPolicy", "audit-logs", "policy", {"policy": _deny_delete("audit-logs")}),
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
		fixtures.bucket_part("aws:s3/bucketPolicy:BucketPolicy", "access-logs", "policy", {"policy": _deny_delete("access-logs")}),
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

# red team F6: deletion protection counts only when it protects the log files. A policy must deny
# both s3:DeleteObject and s3:DeleteObjectVersion (between its statements, or by a wildcard) to
# everyone on every object, without conditions; Object Lock needs a default retention.
_protected_bucket(name, parts) := array.concat([
	fixtures.bucket(name, "internal"),
	fixtures.bucket_part("aws:s3/bucketVersioning:BucketVersioning", name, "versioning", {"versioningConfiguration": {"status": "Enabled"}}),
], parts)

_trail_to(names) := [fixtures.trail(sprintf("trail-%s", [n]), {"s3BucketName": n}) | some n in names]

_policy(name, statements) := fixtures.bucket_part("aws:s3/bucketPolicy:BucketPolicy", name, "policy", {"policy": json.marshal({"Statement": statements})})

_deny(name, fields) := object.union({
	"Sid": "NoDelete", "Effect": "Deny", "Principal": "*",
	"Action": ["s3:DeleteObject", "s3:DeleteObjectVersion"],
	"Resource": sprintf("arn:aws-cn:s3:::%s/*", [name]),
}, fields)

_lock(name, inputs) := fixtures.bucket_part("aws:s3/bucketObjectLockConfiguration:BucketObjectLockConfiguration", name, "lock", inputs)

_why(text) := sprintf("audit log bucket has neither Object Lock with a default retention nor a policy denying deletes to everyone: %s", [text])

_f6(name, msg) := fixtures.finding("MLPS-L3-8.1.4.3c", "mandatory", "aws:s3/bucket:Bucket", name, msg)

test_fail_deletion_protection_that_protects_nothing if {
	names := ["one-action", "one-role", "bucket-arn", "conditional", "lock-no-retention", "lock-config-no-rule", "lock-hidden"]
	resources := array.concat(_trail_to(names), array.concat(array.concat(array.concat(
		_protected_bucket("one-action", [_policy("one-action", [_deny("one-action", {"Action": "s3:DeleteObject"})])]),
		_protected_bucket("one-role", [_policy("one-role", [_deny("one-role", {"Principal": {"AWS": "arn:aws-cn:iam::444455556666:role/nobody"}})])]),
	), array.concat(
		_protected_bucket("bucket-arn", [_policy("bucket-arn", [_deny("bucket-arn", {"Resource": "arn:aws-cn:s3:::bucket-arn"})])]),
		_protected_bucket("conditional", [_policy("conditional", [_deny("conditional", {"Condition": {"Bool": {"aws:MultiFactorAuthPresent": "false"}}})])]),
	)), array.concat(array.concat(
		[object.union(fixtures.bucket("lock-no-retention", "internal"), {"inputs": {"objectLockEnabled": true}}), fixtures.bucket_part("aws:s3/bucketVersioning:BucketVersioning", "lock-no-retention", "versioning", {"versioningConfiguration": {"status": "Enabled"}})],
		_protected_bucket("lock-config-no-rule", [_lock("lock-config-no-rule", {"objectLockEnabled": "Enabled"})]),
	), _protected_bucket("lock-hidden", [_lock("lock-hidden", {"objectLockEnabled": "Enabled", "rule": {"defaultRetention": "[unknown]"}})]))))
	v := audit_protection.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == {
		_f6("one-action", _why("its policy denies s3:DeleteObject to everyone but not s3:DeleteObjectVersion (both are needed: on a versioned bucket DeleteObject only adds a delete marker, DeleteObjectVersion deletes a log file for good)")),
		_f6("one-role", _why(`its policy statement 'NoDelete' names principals ({"AWS":"arn:aws-cn:iam::444455556666:role/nobody"}), not everyone (Principal "*")`)),
		_f6("bucket-arn", _why("its policy statement 'NoDelete' has a Resource (arn:aws-cn:s3:::bucket-arn) that does not cover the bucket's objects (the bucket's ARN/*)")),
		_f6("conditional", _why("its policy statement 'NoDelete' applies only on conditions")),
		_f6("lock-no-retention", _why("Object Lock is on but sets no default retention, so it locks none of the log files (add a BucketObjectLockConfiguration with rule.defaultRetention)")),
		_f6("lock-config-no-rule", _why("Object Lock is on but sets no default retention, so it locks none of the log files (add a BucketObjectLockConfiguration with rule.defaultRetention)")),
		_f6("lock-hidden", _why("its Object Lock default retention is unknown until apply, so that it locks the log files cannot be established")),
	}
}

test_pass_deletion_protection_that_protects if {
	names := ["wildcard", "split", "lock", "inline-lock"]
	resources := array.concat(_trail_to(names), array.concat(array.concat(
		_protected_bucket("wildcard", [_policy("wildcard", [_deny("wildcard", {"Action": "s3:Delete*", "Principal": {"AWS": "*"}})])]),
		_protected_bucket("split", [_policy("split", [
			_deny("split", {"Action": "s3:DeleteObject"}),
			_deny("split", {"Sid": "NoVersionDelete", "Action": ["s3:GetObject", "s3:DeleteObjectVersion"], "Resource": "arn:aws-cn:s3:::*"}),
		])]),
	), array.concat(
		_protected_bucket("lock", [_lock("lock", {"objectLockEnabled": "Enabled", "rule": {"defaultRetention": {"mode": "GOVERNANCE", "days": 365}}})]),
		[
			object.union(fixtures.bucket("inline-lock", "internal"), {"inputs": {"objectLockEnabled": true, "objectLockConfiguration": {"objectLockEnabled": "Enabled", "rule": {"defaultRetention": {"mode": "COMPLIANCE", "years": 1}}}}}),
			fixtures.bucket_part("aws:s3/bucketVersioning:BucketVersioning", "inline-lock", "versioning", {"versioningConfiguration": {"status": "Enabled"}}),
		],
	)))
	v := audit_protection.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == set()
}
