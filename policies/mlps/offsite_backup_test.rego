package mlps.offsite_backup_test

import data.mlps.offsite_backup
import data.lib.fixtures

_replication(dest) := fixtures.bucket_part("aws:s3/bucketReplicationConfig:BucketReplicationConfig", "ds", "replication", {
	"rules": [{"id": "all", "status": "Enabled", "destination": {"bucket": sprintf("arn:aws-cn:s3:::%s", [dest])}}],
})

_replica(name, region) := object.union(fixtures.bucket(name, "personal"), {"region": region})

test_pass_replica_in_other_china_region if {
	v := offsite_backup.violation with input as fixtures.gate_input(fixtures.mlps_policy, [fixtures.bucket("ds", "personal"), _replication("ds-dr"), object.union(_replica("ds-dr", "cn-northwest-1"), {"inputs": {"tags": {"data-class": "internal"}}})])
	v == set()
}

test_pass_replica_needs_no_replica if {
	replica := object.union(_replica("ds-dr", "cn-northwest-1"), {"inputs": {"tags": {"data-class": "personal"}}})
	v := offsite_backup.violation with input as fixtures.gate_input(fixtures.mlps_policy, [fixtures.bucket("ds", "personal"), _replication("ds-dr"), replica])
	v == set()
}

test_fail_no_replica if {
	v := offsite_backup.violation with input as fixtures.gate_input(fixtures.mlps_policy, [fixtures.bucket("ds", "personal")])
	v == {fixtures.finding("MLPS-L3-8.1.4.9b", "mandatory", "aws:s3/bucket:Bucket", "ds", "personal-data bucket has no off-site (cross-region) replica")}
}

test_fail_replica_abroad if {
	v := offsite_backup.violation with input as fixtures.gate_input(fixtures.mlps_policy, [fixtures.bucket("ds", "personal"), _replication("ds-dr"), object.union(_replica("ds-dr", "ap-east-1"), {"inputs": {"tags": {"data-class": "internal"}}})])
	v == {fixtures.finding("MLPS-L3-8.1.4.9b", "mandatory", "aws:s3/bucket:Bucket", "ds", "replica in ap-east-1 leaves mainland China")}
}

# audit A9: disabled replication rules copy nothing
test_fail_disabled_replication if {
	disabled := fixtures.bucket_part("aws:s3/bucketReplicationConfig:BucketReplicationConfig", "ds", "replication", {
		"rules": [{"id": "all", "status": "Disabled", "destination": {"bucket": "arn:aws-cn:s3:::ds-dr"}}],
	})
	replica := object.union(_replica("ds-dr", "cn-northwest-1"), {"inputs": {"tags": {"data-class": "internal"}}})
	v := offsite_backup.violation with input as fixtures.gate_input(fixtures.mlps_policy, [fixtures.bucket("ds", "personal"), disabled, replica])
	v == {fixtures.finding("MLPS-L3-8.1.4.9b", "mandatory", "aws:s3/bucket:Bucket", "ds", "personal-data bucket replicates through no enabled rule (every replication rule is disabled)")}
}

# audit A8: a replica bucket the document does not declare leaves the off-site question open
test_fail_replica_outside_document if {
	v := offsite_backup.violation with input as fixtures.gate_input(fixtures.mlps_policy, [fixtures.bucket("ds", "personal"), _replication("existing-dr-bucket")])
	v == {fixtures.finding("MLPS-L3-8.1.4.9b", "mandatory", "aws:s3/bucket:Bucket", "ds", "replica bucket arn:aws-cn:s3:::existing-dr-bucket is not in the stack, so whether it is in another region cannot be established")}
}

# test audit: a replica in the source bucket's own region is not off-site
test_fail_replica_in_same_region if {
	replica := object.union(_replica("ds-dr", "cn-north-1"), {"inputs": {"tags": {"data-class": "internal"}}})
	v := offsite_backup.violation with input as fixtures.gate_input(fixtures.mlps_policy, [fixtures.bucket("ds", "personal"), _replication("ds-dr"), replica])
	v == {fixtures.finding("MLPS-L3-8.1.4.9b", "mandatory", "aws:s3/bucket:Bucket", "ds", "replica is in the same region (cn-north-1); off-site backup needs another region")}
}

# red team: replication rules that are secret or unknown until apply (a configuration's whole list
# or one rule, a bucket's inline replicationConfiguration or its rules) prove no off-site copy:
# judged, not an engine error, saying why
test_fail_hidden_replication_rules if {
	every c in [
		[fixtures.bucket_part("aws:s3/bucketReplicationConfig:BucketReplicationConfig", "ds", "replication", {"rules": "[secret]"}), "secret"],
		[fixtures.bucket_part("aws:s3/bucketReplicationConfig:BucketReplicationConfig", "ds", "replication", {"rules": ["[unknown]"]}), "unknown until apply"],
	] {
		[config, why] := c
		v := offsite_backup.violation with input as fixtures.gate_input(fixtures.mlps_policy, [fixtures.bucket("ds", "personal"), config])
		v == {
			fixtures.finding("MLPS-L3-8.1.4.9b", "mandatory", "aws:s3/bucket:Bucket", "ds", sprintf("personal-data bucket's replication rules are %s, so an off-site (cross-region) replica cannot be established", [why])),
			fixtures.finding("MLPS-L3-8.1.4.9b", "mandatory", "aws:s3/bucket:Bucket", "ds", sprintf("replica bucket a destination the document does not show (%s) is not in the stack, so whether it is in another region cannot be established", [why])),
		}
	}
	every inline in [{"replicationConfiguration": "[secret]"}, {"replicationConfiguration": {"role": "r", "rules": "[secret]"}}, {"replicationConfiguration": {"role": "r", "rules": ["[secret]"]}}] {
		bucket := object.union(fixtures.bucket("ds", "personal"), {"inputs": inline})
		v := offsite_backup.violation with input as fixtures.gate_input(fixtures.mlps_policy, [bucket])
		v == {
			fixtures.finding("MLPS-L3-8.1.4.9b", "mandatory", "aws:s3/bucket:Bucket", "ds", "personal-data bucket's replication rules are secret, so an off-site (cross-region) replica cannot be established"),
			fixtures.finding("MLPS-L3-8.1.4.9b", "mandatory", "aws:s3/bucket:Bucket", "ds", "replica bucket a destination the document does not show (secret) is not in the stack, so whether it is in another region cannot be established"),
		}
	}
}

# red team F7: an enabled rule counts only when it copies every object: no prefix or tag filter,
# and, on an SSE-KMS bucket, SSE-KMS objects replicated (sourceSelectionCriteria) to a replica key
_kms_bucket(name) := array.slice(fixtures.good_bucket(name, "personal"), 0, 3)

_kms_rule(fields) := object.union({
	"id": "offsite", "status": "Enabled",
	"sourceSelectionCriteria": {"sseKmsEncryptedObjects": {"status": "Enabled"}},
	"destination": {"bucket": "arn:aws-cn:s3:::ds-dr", "encryptionConfiguration": {"replicaKmsKeyId": "arn:aws-cn:kms:cn-northwest-1:111122223333:key/r"}},
}, fields)

_rules(rules) := fixtures.bucket_part("aws:s3/bucketReplicationConfig:BucketReplicationConfig", "ds", "replication", {"rules": rules})

_dr := object.union(_replica("ds-dr", "cn-northwest-1"), {"inputs": {"tags": {"data-class": "internal"}}})

_partial(why) := fixtures.finding("MLPS-L3-8.1.4.9b", "mandatory", "aws:s3/bucket:Bucket", "ds", sprintf("personal-data bucket has no off-site (cross-region) replica of all its objects: %s", [why]))

test_fail_replication_of_part_of_the_bucket if {
	every c in [
		[[_kms_rule({"filter": {"prefix": "manifests/"}})], `rule 'offsite' copies only the objects its filter selects ({"filter":{"prefix":"manifests/"}})`],
		[[_kms_rule({"filter": {"tag": {"key": "replicate", "value": "yes"}}})], `rule 'offsite' copies only the objects its filter selects ({"filter":{"tag":{"key":"replicate","value":"yes"}}})`],
		[[_kms_rule({"filter": {"and": {"prefix": "", "tags": {"replicate": "yes"}}}})], `rule 'offsite' copies only the objects its filter selects ({"filter":{"and":{"prefix":"","tags":{"replicate":"yes"}}}})`],
		[[_kms_rule({"prefix": "logs/"})], `rule 'offsite' copies only the objects its filter selects ({"prefix":"logs/"})`],
		[[_kms_rule({"sourceSelectionCriteria": {"sseKmsEncryptedObjects": {"status": "Disabled"}}})], "rule 'offsite' skips the bucket's SSE-KMS objects (set sourceSelectionCriteria.sseKmsEncryptedObjects Enabled)"],
		[[object.remove(_kms_rule({}), ["sourceSelectionCriteria"])], "rule 'offsite' skips the bucket's SSE-KMS objects (set sourceSelectionCriteria.sseKmsEncryptedObjects Enabled)"],
		[[object.union(object.remove(_kms_rule({}), ["destination"]), {"destination": {"bucket": "arn:aws-cn:s3:::ds-dr"}})], "rule 'offsite' names no replica KMS key for the bucket's SSE-KMS objects (destination.encryptionConfiguration.replicaKmsKeyId)"],
		[[_kms_rule({"filter": {"prefix": "a/"}}), _kms_rule({"id": "b", "filter": {"prefix": "b/"}})], `rule 'b' copies only the objects its filter selects ({"filter":{"prefix":"b/"}}); rule 'offsite' copies only the objects its filter selects ({"filter":{"prefix":"a/"}})`],
	] {
		[rules, why] := c
		v := offsite_backup.violation with input as fixtures.gate_input(fixtures.mlps_policy, array.concat(_kms_bucket("ds"), [_rules(rules), _dr]))
		v == {_partial(why)}
	}
}

test_pass_replication_of_the_whole_bucket if {
	every rules in [
		[_kms_rule({})],
		[_kms_rule({"filter": {}})],
		[_kms_rule({"filter": {"prefix": ""}})],
		[_kms_rule({"filter": {"prefix": "tmp/"}}), _kms_rule({"id": "all", "filter": {"and": {"prefix": "", "tags": {}}}})],
		# a replica key the same preview creates is unknown until apply
		[_kms_rule({"destination": {"bucket": "arn:aws-cn:s3:::ds-dr", "encryptionConfiguration": {"replicaKmsKeyId": "[unknown]"}}})],
	] {
		v := offsite_backup.violation with input as fixtures.gate_input(fixtures.mlps_policy, array.concat(_kms_bucket("ds"), [_rules(rules), _dr]))
		v == set()
	}
	# a bucket's inline rule (aws.s3.Bucket replicationConfiguration) in its own shape
	inline := object.union(fixtures.bucket("ds", "personal"), {"inputs": {
		"serverSideEncryptionConfiguration": {"rule": {"applyServerSideEncryptionByDefault": {"sseAlgorithm": "aws:kms"}}},
		"replicationConfiguration": {"role": "r", "rules": [{
			"id": "offsite", "status": "Enabled",
			"sourceSelectionCriteria": {"sseKmsEncryptedObjects": {"enabled": true}},
			"destination": {"bucket": "arn:aws-cn:s3:::ds-dr", "replicaKmsKeyId": "arn:aws-cn:kms:cn-northwest-1:111122223333:key/r"},
		}]},
	}})
	v := offsite_backup.violation with input as fixtures.gate_input(fixtures.mlps_policy, [inline, _dr])
	v == set()
}

# red team (first-deploy preview): the replica's ARN is unknown until apply; the rules' property
# dependencies name the replica bucket (and the source, which is not its own replica). Without them
# the destination stays unestablished, and a personal-data replica then needs a replica of its own.
_unknown_destination(deps) := object.union(_replication("ds-dr"), {
	"inputs": {"rules": [{"id": "all", "status": "Enabled", "destination": {"bucket": "[unknown]"}}]},
	"property_dependencies": {"rules": deps},
})

test_pass_replica_unknown_until_apply_tied_by_property_dependencies if {
	replica := object.union(_replica("ds-dr", "cn-northwest-1"), {"inputs": {"tags": {"data-class": "personal"}}})
	deps := [fixtures.urn(fixtures.bucket_type, "ds-dr"), fixtures.urn(fixtures.bucket_type, "ds")]
	v := offsite_backup.violation with input as fixtures.gate_input(fixtures.mlps_policy, [fixtures.bucket("ds", "personal"), _unknown_destination(deps), replica])
	v == set()
}

test_fail_replica_unknown_until_apply_without_property_dependencies if {
	replica := object.union(_replica("ds-dr", "cn-northwest-1"), {"inputs": {"tags": {"data-class": "personal"}}})
	v := offsite_backup.violation with input as fixtures.gate_input(fixtures.mlps_policy, [fixtures.bucket("ds", "personal"), _unknown_destination([]), replica])
	v == {
		fixtures.finding("MLPS-L3-8.1.4.9b", "mandatory", "aws:s3/bucket:Bucket", "ds", "replica bucket [unknown] is not in the stack, so whether it is in another region cannot be established"),
		fixtures.finding("MLPS-L3-8.1.4.9b", "mandatory", "aws:s3/bucket:Bucket", "ds-dr", "personal-data bucket has no off-site (cross-region) replica"),
	}
}
