package mlps.outbound_restriction_test

import data.mlps.outbound_restriction
import data.lib.fixtures

_f(type, name, msg) := fixtures.finding("MLPS-L3-8.1.3.1c", "advisory", type, name, msg)

pass_resources := [
	fixtures.security_group("sg", [], [{"protocol": "tcp", "fromPort": 443, "toPort": 443, "cidrBlocks": ["10.0.0.0/16"]}]),
	fixtures.namespace("train", "internal"),
	fixtures.deny_all("train"),
]

fail_resources := [
	fixtures.security_group("sg", [], [{"protocol": "-1", "fromPort": 0, "toPort": 0, "cidrBlocks": ["0.0.0.0/0"]}]),
	fixtures.namespace("train", "internal"),
]

test_pass_restricted_egress if {
	v := outbound_restriction.violation with input as fixtures.gate_input(fixtures.mlps_policy, pass_resources)
	v == set()
}

test_fail_open_egress if {
	v := outbound_restriction.violation with input as fixtures.gate_input(fixtures.mlps_policy, fail_resources)
	v == {
		_f("aws:ec2/securityGroup:SecurityGroup", "sg", "security group allows all-port egress to the internet"),
		_f("kubernetes:core/v1:Namespace", "train", "sensitive namespace has no default-deny egress NetworkPolicy"),
	}
}
