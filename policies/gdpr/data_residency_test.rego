package gdpr.data_residency_test

import data.gdpr.data_residency
import data.lib.fixtures

_f(type, name, msg) := fixtures.finding("GDPR-44-1", "mandatory", type, name, msg)

_replication(name, dest) := fixtures.bucket_part("aws:s3/bucketReplicationConfig:BucketReplicationConfig", name, "replication", {
	"role": "arn:aws:iam::111122223333:role/r",
	"rules": [{"id": "all", "status": "Enabled", "destination": {"bucket": sprintf("arn:aws:s3:::%s", [dest])}, "deleteMarkerReplication": {"status": "Enabled"}}],
})

_replica(name, region) := object.union(fixtures.bucket(name, "personal"), {"region": region})

pass_resources := [
	fixtures.bucket("ds", "personal"),
	_replication("ds", "ds-replica"),
	_replica("ds-replica", "eu-west-1"),
	fixtures.launch_template("lt", "personal", {}),
]

fail_resources := [
	fixtures.bucket("ds", "personal"),
	_replication("ds", "ds-replica"),
	_replica("ds-replica", "us-east-1"),
	fixtures.flow_log("flow", "vpc-0123456789abcdef0"),
]

test_pass_eu_stack if {
	v := data_residency.violation with input as fixtures.gate_input(fixtures.gdpr_policy, pass_resources)
	v == set()
}

test_fail_replica_outside_eu if {
	v := data_residency.violation with input as fixtures.gate_input(fixtures.gdpr_policy, fail_resources)
	v == {
		_f("aws:s3/bucket:Bucket", "ds-replica", "personal data in us-east-1, outside the GDPR transfer regions (eu-*)"),
		_f("aws:s3/bucket:Bucket", "ds", "replication of personal data goes to us-east-1, outside the GDPR transfer regions (eu-*)"),
	}
}

# jurisdiction branch: the China stack with GDPR forced on fails residency even though its own list allows cn-*
test_fail_china_stack_under_gdpr if {
	v := data_residency.violation with input as fixtures.gate_input(fixtures.both_cn_policy, [fixtures.launch_template("lt", "personal", {})])
	v == {_f("aws:ec2/launchTemplate:LaunchTemplate", "lt", "personal data in cn-north-1, outside the GDPR transfer regions (eu-*)")}
}

test_fail_eea_region_outside_declared_list if {
	policy := json.patch(fixtures.gdpr_policy, [{"op": "replace", "path": "/compliance/dataResidency", "value": ["eu-central-1"]}])
	v := data_residency.violation with input as fixtures.gate_input(policy, [object.union(fixtures.bucket("ds", "personal"), {"region": "eu-west-1"})])
	v == {_f("aws:s3/bucket:Bucket", "ds", "personal data in eu-west-1, outside compliance.dataResidency (eu-central-1)")}
}

test_pass_internal_data_anywhere if {
	v := data_residency.violation with input as fixtures.gate_input(fixtures.both_cn_policy, [fixtures.launch_template("lt", "internal", {})])
	v == set()
}
