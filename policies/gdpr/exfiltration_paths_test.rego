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

# ways out that must stay findings: reading every bucket (in any wildcard spelling) or a foreign
# bucket, writing to a named one, NotAction / NotResource / NotPrincipal, and conditions that admit
# everyone but the named (Not..., IfExists, Null) or name nobody in particular (wildcards)
_open(st) := json.marshal({"Statement": [st]})

# the stack's own account, as a policy declares it (cloud.accountId)
_own := json.patch(fixtures.gdpr_policy, [{"op": "add", "path": "/cloud/accountId", "value": "111122223333"}])

_ways_out := [
	{"Effect": "Allow", "Principal": "*", "Action": ["s3:GetObject"], "Resource": "arn:aws:s3:::*/*"},
	{"Effect": "Allow", "Principal": "*", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::?*/*"},
	{"Effect": "Allow", "Principal": "*", "Action": "s3:GetObject", "Resource": "arn:aws:s3:*:*:*"},
	{"Effect": "Allow", "Principal": "*", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::a*/*"},
	{"Effect": "Allow", "Principal": "*", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::attacker-drop/*"},
	{"Effect": "Allow", "Principal": "*", "Action": "s3:GetObject", "Resource": ["arn:aws:s3:::prod-eu-central-1-starport-layer-bucket/*", "*"]},
	{"Effect": "Allow", "Principal": "*", "Action": ["s3:GetObject", "s3:PutObject"], "Resource": "arn:aws:s3:::prod-eu-central-1-starport-layer-bucket/*"},
	{"Effect": "Allow", "Principal": "*", "Action": "s3:*", "Resource": "arn:aws:s3:::prod-eu-central-1-starport-layer-bucket/*"},
	{"Effect": "Allow", "Principal": "*", "Action": "s3:Get*", "Resource": "arn:aws:s3:::prod-eu-central-1-starport-layer-bucket/*"},
	{"Effect": "Allow", "Principal": "*", "NotAction": "s3:DeleteObject", "Resource": "arn:aws:s3:::prod-eu-central-1-starport-layer-bucket/*"},
	{"Effect": "Allow", "Principal": "*", "Action": "s3:GetObject", "NotResource": "arn:aws:s3:::mine/*"},
	{"Effect": "Allow", "Principal": "*", "Action": "s3:PutObject", "Resource": "arn:aws:s3:::drop-box/*"},
	{"Effect": "Allow", "NotPrincipal": {"AWS": "arn:aws:iam::111122223333:root"}, "Action": "*", "Resource": "*"},
	{"Effect": "Allow", "Principal": "*", "Action": "*", "Resource": "*", "Condition": {"StringNotEquals": {"aws:PrincipalOrgID": "o-mine"}}},
	{"Effect": "Allow", "Principal": "*", "Action": "*", "Resource": "*", "Condition": {"StringEqualsIfExists": {"aws:PrincipalOrgID": "o-mine"}}},
	{"Effect": "Allow", "Principal": "*", "Action": "*", "Resource": "*", "Condition": {"Null": {"aws:PrincipalOrgID": "false"}}},
	{"Effect": "Allow", "Principal": "*", "Action": "*", "Resource": "*", "Condition": {"StringLike": {"aws:PrincipalAccount": "*"}}},
	{"Effect": "Allow", "Principal": "*", "Action": "*", "Resource": "*", "Condition": {"StringEquals": {"aws:PrincipalAccount": "${aws:PrincipalAccount}"}}},
	{"Effect": "Allow", "Principal": "*", "Action": "*", "Resource": "*", "Condition": {"StringEquals": {"aws:ResourceAccount": "999999999999"}}},
	{"Effect": "Allow", "Principal": "*", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::prod-attacker-starport-layer-bucket/*"},
]

test_pass_ecr_image_layers_statement if {
	resources := [_ep("s3", "s3", "Gateway", _with_ecr_layers), _ep("kms", "kms", "Interface", _restricted), _ep("logs", "logs", "Interface", _restricted)]
	v := exfiltration_paths.violation with input as fixtures.gate_input(_own, resources)
	v == set()
}

test_fail_every_way_out if {
	every st in _ways_out {
		resources := [_ep("s3", "s3", "Gateway", _open(st)), _ep("kms", "kms", "Interface", _restricted), _ep("logs", "logs", "Interface", _restricted)]
		v := exfiltration_paths.violation with input as fixtures.gate_input(_own, resources)
		v == {_f("s3", "VPC endpoint for s3 has no policy restricting it to the organisation or account")}
	}
}

# each of them alone, so a regression names the statement it let through
test_fail_each_way_out_alone if {
	found := [i |
		some i, st in _ways_out
		resources := [_ep("s3", "s3", "Gateway", _open(st)), _ep("kms", "kms", "Interface", _restricted), _ep("logs", "logs", "Interface", _restricted)]
		count(exfiltration_paths.violation) == 1 with input as fixtures.gate_input(_own, resources)
	]
	count(found) == count(_ways_out)
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

# endpoints the VPC already has (network.existingEndpoints): present on the policy's word, so
# neither "no VPC endpoint" nor a policy finding (the document holds no endpoint to judge)
_existing(policy, services) := json.patch(policy, [{"op": "add", "path": "/network", "value": {"existingEndpoints": services}}])

test_pass_endpoints_the_vpc_already_has_gdpr if {
	resources := [_ep("s3", "s3", "Gateway", _restricted)]
	v := exfiltration_paths.violation with input as fixtures.gate_input(_existing(fixtures.gdpr_policy, ["kms", "logs"]), resources)
	v == set()
}

test_fail_only_the_endpoints_the_vpc_lacks_gdpr if {
	v := exfiltration_paths.violation with input as fixtures.gate_input(_existing(fixtures.gdpr_policy, ["kms", "ecr.dkr"]), [])
	v == {
		fixtures.stack_finding("GDPR-44-2", "advisory", "no VPC endpoint for s3: its traffic leaves through NAT"),
		fixtures.stack_finding("GDPR-44-2", "advisory", "no VPC endpoint for logs: its traffic leaves through NAT"),
	}
}

# a value that is no list (a hand-written gate input) names no endpoint
test_fail_existing_endpoints_not_a_list_gdpr if {
	resources := [_ep("s3", "s3", "Gateway", _restricted), _ep("logs", "logs", "Interface", _restricted)]
	v := exfiltration_paths.violation with input as fixtures.gate_input(_existing(fixtures.gdpr_policy, "kms"), resources)
	v == {fixtures.stack_finding("GDPR-44-2", "advisory", "no VPC endpoint for kms: its traffic leaves through NAT")}
}
