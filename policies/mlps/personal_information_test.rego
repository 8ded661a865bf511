package mlps.personal_information_test

import data.mlps.personal_information
import data.lib.fixtures

test_pass_private_tagged_personal_data if {
	v := personal_information.violation with input as fixtures.gate_input(fixtures.mlps_policy, fixtures.good_bucket("ds", "personal"))
	v == set()
}

test_fail_untagged_and_unblocked if {
	b := fixtures.resource("aws:s3/bucket:Bucket", "ds", {"tags": {"data-class": "personal", "purpose": "datasets"}})
	v := personal_information.violation with input as fixtures.gate_input(fixtures.mlps_policy, [b])
	v == {
		fixtures.finding("MLPS-L3-8.1.4.11", "mandatory", "aws:s3/bucket:Bucket", "ds", "personal-information resource lacks tag(s): controller"),
		fixtures.finding("MLPS-L3-8.1.4.11", "mandatory", "aws:s3/bucket:Bucket", "ds", "bucket has no public access block"),
	}
}
