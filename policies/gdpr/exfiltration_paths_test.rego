package gdpr.exfiltration_paths_test

import data.gdpr.exfiltration_paths
import data.lib.fixtures

_f(name, msg) := fixtures.finding("GDPR-44-2", "advisory", "aws:ec2/vpcEndpoint:VpcEndpoint", name, msg)

_restricted := json.marshal({"Statement": [{
	"Effect": "Allow", "Principal": "*", "Action": "*", "Resource": "*",
	"Condition": {"StringEquals": {"aws:PrincipalOrgID": "o-abc123"}},
}]})

_ep(name, service, type, policy) := fixtures.resource("aws:ec2/vpcEndpoint:VpcEndpoint", name, {
	"vpcId": "vpc-0123456789abcdef0",
	"serviceName": sprintf("com.amazonaws.eu-central-1.%s", [service]),
	"vpcEndpointType": type,
	"privateDnsEnabled": type == "Interface",
	"policy": policy,
})

pass_resources := [
	_ep("s3", "s3", "Gateway", _restricted),
	_ep("kms", "kms", "Interface", _restricted),
	_ep("logs", "logs", "Interface", _restricted),
]

fail_resources := [
	fixtures.resource("aws:ec2/vpcEndpoint:VpcEndpoint", "s3", {"serviceName": "com.amazonaws.eu-central-1.s3", "vpcEndpointType": "Gateway"}),
	_ep("kms", "kms", "Interface", _restricted),
]

test_pass_restricted_endpoints if {
	v := exfiltration_paths.violation with input as fixtures.gate_input(fixtures.gdpr_policy, pass_resources)
	v == set()
}

test_fail_missing_and_open_endpoints if {
	v := exfiltration_paths.violation with input as fixtures.gate_input(fixtures.gdpr_policy, fail_resources)
	v == {
		_f("s3", "VPC endpoint for s3 has no policy restricting it to the organisation or account"),
		fixtures.stack_finding("GDPR-44-2", "advisory", "no VPC endpoint for logs: its traffic leaves through NAT"),
	}
}
