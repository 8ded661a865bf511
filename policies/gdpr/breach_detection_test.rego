package gdpr.breach_detection_test

import data.gdpr.breach_detection
import data.lib.fixtures

_f(type, name, msg) := fixtures.finding("GDPR-33-1", "mandatory", type, name, msg)

pass_resources := array.concat(fixtures.good_bucket("ds", "personal"), [
	fixtures.trail("audit", {}),
	fixtures.flow_log("flow", "vpc-0123456789abcdef0"),
	fixtures.resource("aws:eks/cluster:Cluster", "eks", {"enabledClusterLogTypes": ["api", "audit", "authenticator"]}),
])

fail_resources := [
	fixtures.bucket("ds", "personal"),
	fixtures.trail("audit", {"isMultiRegionTrail": false, "enableLogFileValidation": false, "eventSelectors": []}),
	fixtures.resource("aws:eks/cluster:Cluster", "eks", {"enabledClusterLogTypes": ["api"]}),
]

test_pass_trail_flow_logs_and_audit_log if {
	v := breach_detection.violation with input as fixtures.gate_input(fixtures.gdpr_policy, pass_resources)
	v == set()
}

test_fail_detection_gaps if {
	v := breach_detection.violation with input as fixtures.gate_input(fixtures.gdpr_policy, fail_resources)
	v == {
		_f("aws:cloudtrail/trail:Trail", "audit", "trail is not multi-region"),
		_f("aws:cloudtrail/trail:Trail", "audit", "trail has log-file validation off"),
		_f("aws:s3/bucket:Bucket", "ds", "no trail records S3 data events for this personal-data bucket"),
		fixtures.stack_finding("GDPR-33-1", "mandatory", "VPC vpc-0123456789abcdef0 has no flow log"),
		_f("aws:eks/cluster:Cluster", "eks", "EKS cluster does not send audit logs"),
	}
}

test_fail_no_trail_at_all if {
	v := breach_detection.violation with input as fixtures.gate_input(fixtures.gdpr_policy, [fixtures.flow_log("flow", "vpc-0123456789abcdef0")])
	v == {fixtures.stack_finding("GDPR-33-1", "mandatory", "no CloudTrail trail records the stack's account")}
}
