package mlps.default_deny_test

import data.mlps.default_deny
import data.lib.fixtures

_f(type, name, msg) := fixtures.finding("MLPS-L3-8.1.3.2a", "mandatory", type, name, msg)

pass_resources := [
	fixtures.resource("aws:ec2/defaultSecurityGroup:DefaultSecurityGroup", "default", {"vpcId": "vpc-1", "ingress": [], "egress": []}),
	fixtures.security_group("web", [{"protocol": "tcp", "fromPort": 443, "toPort": 443, "cidrBlocks": ["0.0.0.0/0"]}], []),
	fixtures.namespace("train", "internal"),
	fixtures.deny_all("train"),
]

fail_resources := [
	fixtures.resource("aws:ec2/defaultSecurityGroup:DefaultSecurityGroup", "default", {"vpcId": "vpc-1", "ingress": [{"protocol": "-1", "fromPort": 0, "toPort": 0, "self": true}]}),
	fixtures.security_group("db", [{"protocol": "tcp", "fromPort": 5432, "toPort": 5432, "ipv6CidrBlocks": ["::/0"]}], []),
	fixtures.namespace("train", "internal"),
]

test_pass_default_deny if {
	v := default_deny.violation with input as fixtures.gate_input(fixtures.mlps_policy, pass_resources)
	v == set()
}

test_fail_default_allow if {
	v := default_deny.violation with input as fixtures.gate_input(fixtures.mlps_policy, fail_resources)
	v == {
		_f("aws:ec2/defaultSecurityGroup:DefaultSecurityGroup", "default", "default security group has rules (it should deny everything)"),
		_f("aws:ec2/securityGroup:SecurityGroup", "db", "security group admits the internet on tcp ports 5432-5432"),
		_f("kubernetes:core/v1:Namespace", "train", "namespace has no default-deny NetworkPolicy"),
	}
}

# a given security group (read from EC2) admitting the internet, on the launch template that names it
test_fail_given_group_open_to_the_internet if {
	resources := [fixtures.launch_template("nodes", "internal", {"vpcSecurityGroupIds": [fixtures.ssh_sg, fixtures.eks_cluster_sg]})]
	v := default_deny.violation with input as fixtures.gate_input_with_given_groups(fixtures.mlps_policy, resources)
	v == {_f("aws:ec2/launchTemplate:LaunchTemplate", "nodes", sprintf("its security group %s (bastion, read from EC2) admits the internet on tcp ports 22-22", [fixtures.ssh_sg]))}
}
