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

# the account statement plus reading ECR's image layers from the AWS-owned bucket (a read of named
# objects cannot copy data out)
_with_ecr_layers := json.marshal({"Statement": [
	{"Effect": "Allow", "Principal": "*", "Action": "*", "Resource": "*", "Condition": {"StringEquals": {"aws:PrincipalAccount": "111122223333"}}},
	{"Effect": "Allow", "Principal": "*", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::prod-eu-central-1-starport-layer-bucket/*"},
]})

# reading every bucket, or writing to a named one, is a way out
_read_everything := json.marshal({"Statement": [{"Effect": "Allow", "Principal": "*", "Action": ["s3:GetObject"], "Resource": "arn:aws:s3:::*/*"}]})

_write_named := json.marshal({"Statement": [{"Effect": "Allow", "Principal": "*", "Action": "s3:PutObject", "Resource": "arn:aws:s3:::drop-box/*"}]})

test_pass_ecr_image_layers_statement if {
	resources := [_ep("s3", "s3", "Gateway", _with_ecr_layers), _ep("kms", "kms", "Interface", _restricted), _ep("logs", "logs", "Interface", _restricted)]
	v := exfiltration_paths.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == set()
}

test_fail_reading_every_bucket_or_writing_a_named_one if {
	every policy in [_read_everything, _write_named] {
		resources := [_ep("s3", "s3", "Gateway", policy), _ep("kms", "kms", "Interface", _restricted), _ep("logs", "logs", "Interface", _restricted)]
		v := exfiltration_paths.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
		v == {_f("s3", "VPC endpoint for s3 has no policy restricting it to the organisation or account")}
	}
}

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
