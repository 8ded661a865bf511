package mlps.residual_copies_test

import data.mlps.residual_copies
import data.lib.fixtures

test_pass_copies_expire if {
	v := residual_copies.violation with input as fixtures.gate_input(fixtures.mlps_policy, fixtures.good_bucket("ds", "internal"))
	v == set()
}

test_fail_copies_linger if {
	resources := [
		fixtures.bucket("ds", "internal"),
		fixtures.bucket_part("aws:s3/bucketVersioning:BucketVersioning", "ds", "versioning", {"versioningConfiguration": {"status": "Enabled"}}),
		fixtures.bucket_part("aws:s3/bucketReplicationConfig:BucketReplicationConfig", "ds", "replication", {"rules": [{"id": "r", "status": "Enabled", "destination": {"bucket": "arn:aws-cn:s3:::dr"}}]}),
	]
	v := residual_copies.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == {
		fixtures.finding("MLPS-L3-8.2.4-RIP", "advisory", "aws:s3/bucket:Bucket", "ds", "versioned bucket never expires noncurrent versions"),
		fixtures.finding("MLPS-L3-8.2.4-RIP", "advisory", "aws:s3/bucket:Bucket", "ds", "replication does not replicate delete markers"),
	}
}
