package mlps.stored_data_integrity_test

import data.mlps.stored_data_integrity
import data.lib.fixtures

test_pass_versioned_and_validated if {
	v := stored_data_integrity.violation with input as fixtures.gate_input(fixtures.mlps_policy, array.concat(fixtures.good_bucket("ds", "internal"), [fixtures.trail("audit", {})]))
	v == set()
}

test_fail_unversioned_unvalidated if {
	v := stored_data_integrity.violation with input as fixtures.gate_input(fixtures.mlps_policy, [fixtures.bucket("audit-logs", "public"), fixtures.trail("audit", {"enableLogFileValidation": false})])
	v == {
		fixtures.finding("MLPS-L3-8.1.4.7b", "advisory", "aws:s3/bucket:Bucket", "audit-logs", "important-data or log bucket is not versioned"),
		fixtures.finding("MLPS-L3-8.1.4.7b", "advisory", "aws:cloudtrail/trail:Trail", "audit", "trail has log-file validation off"),
	}
}
