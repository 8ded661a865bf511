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

# aws-native resources are read by their own tags, as a list of {key, value} or an object
test_fail_aws_native_personal_data_without_its_tags if {
	listed := fixtures.resource("aws-native:s3:Bucket", "native", {"tags": [
		{"key": "data-class", "value": "personal"},
		{"key": "purpose", "value": "datasets"},
	]})
	tagged := fixtures.resource("aws-native:dynamodb:Table", "table", {"tags": {"data-class": "personal", "purpose": "features", "controller": "ml"}})
	internal := fixtures.resource("aws-native:sqs:Queue", "queue", {"tags": [{"key": "data-class", "value": "internal"}]})
	v := personal_information.violation with input as fixtures.gate_input(fixtures.mlps_policy, [listed, tagged, internal])
	v == {fixtures.finding("MLPS-L3-8.1.4.11", "mandatory", "aws-native:s3:Bucket", "native", "personal-information resource lacks tag(s): controller")}
}
