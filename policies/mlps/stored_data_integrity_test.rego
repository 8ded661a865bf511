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

# a trail the policy relies on (compliance.existingTrail), as CloudTrail describes it
test_fail_existing_trail_unvalidated if {
	policy := fixtures.with_existing_trail(fixtures.mlps_policy, false)
	gate_in := fixtures.gate_input(policy, [])
	ok := stored_data_integrity.violation with input as fixtures.with_trail_fact(gate_in, fixtures.trail_fact({}))
	ok == set()
	v := stored_data_integrity.violation with input as fixtures.with_trail_fact(gate_in, fixtures.trail_fact({"log_file_validation": false}))
	v == {fixtures.stack_finding("MLPS-L3-8.1.4.7b", "advisory", sprintf("existing trail %s has log-file validation off (read from CloudTrail)", [fixtures.existing_trail_arn]))}
}
