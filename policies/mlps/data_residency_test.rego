package mlps.data_residency_test

import data.mlps.data_residency
import data.lib.fixtures

test_pass_china_stack if {
	v := data_residency.violation with input as fixtures.gate_input(fixtures.mlps_policy, [fixtures.bucket("ds", "personal"), fixtures.launch_template("lt", "internal", {})])
	v == set()
}

# jurisdiction branch: the EU stack with MLPS forced on fails residency
test_fail_eu_stack_under_mlps if {
	v := data_residency.violation with input as fixtures.gate_input(fixtures.both_eu_policy, [fixtures.bucket("ds", "internal")])
	v == {fixtures.finding("MLPS-L3-8.2.4-DIC-a", "mandatory", "aws:s3/bucket:Bucket", "ds", "resource in eu-central-1, outside mainland China (cn-north-1, cn-northwest-1)")}
}

test_fail_log_destination_abroad if {
	fl := fixtures.resource("aws:ec2/flowLog:FlowLog", "flow", {"vpcId": "vpc-0123456789abcdef0", "logDestination": "arn:aws:logs:ap-east-1:1:log-group:flow"})
	v := data_residency.violation with input as fixtures.gate_input(fixtures.mlps_policy, [fl])
	v == {fixtures.finding("MLPS-L3-8.2.4-DIC-a", "mandatory", "aws:ec2/flowLog:FlowLog", "flow", "flow log delivery goes to ap-east-1, outside mainland China")}
}
