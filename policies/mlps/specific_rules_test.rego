package mlps.specific_rules_test

import data.mlps.specific_rules
import data.lib.fixtures

_f(type, name, msg) := fixtures.finding("MLPS-L3-8.1.3.2c", "advisory", type, name, msg)

_np(name, rule) := fixtures.resource("kubernetes:networking.k8s.io/v1:NetworkPolicy", name, {
	"metadata": {"name": name, "namespace": "train"},
	"spec": {"podSelector": {}, "policyTypes": ["Egress"], "egress": [rule]},
})

pass_resources := [
	fixtures.security_group(
		"vpce",
		[{"protocol": "tcp", "fromPort": 443, "toPort": 443, "cidrBlocks": ["10.0.0.0/16"]}],
		[{"protocol": "tcp", "fromPort": 443, "toPort": 443, "cidrBlocks": ["0.0.0.0/0"]}],
	),
	_np("dns", {"ports": [{"port": 53, "protocol": "UDP"}]}),
	fixtures.deny_all("train"),
]

fail_resources := [
	fixtures.security_group("any", [{"protocol": "-1", "fromPort": 0, "toPort": 0, "cidrBlocks": ["10.0.0.0/16"]}], []),
	fixtures.security_group("out", [], [{"protocol": "-1", "fromPort": 0, "toPort": 0, "cidrBlocks": ["0.0.0.0/0"]}]),
	fixtures.resource("aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule", "out-ports", {
		"securityGroupId": "sg-1", "ipProtocol": "tcp", "fromPort": 0, "toPort": 65535, "cidrIpv4": "10.0.0.0/8",
	}),
	_np("anything", {"to": [{"ipBlock": {"cidr": "10.0.0.0/8"}}]}),
]

test_pass_specific if {
	v := specific_rules.violation with input as fixtures.gate_input(fixtures.mlps_policy, pass_resources)
	v == set()
}

test_fail_broad if {
	v := specific_rules.violation with input as fixtures.gate_input(fixtures.mlps_policy, fail_resources)
	v == {
		_f("aws:ec2/securityGroup:SecurityGroup", "any", "ingress rule allows every protocol or port"),
		_f("aws:ec2/securityGroup:SecurityGroup", "out", "egress rule allows every protocol or port"),
		_f("aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule", "out-ports", "egress rule allows every protocol or port"),
		_f("kubernetes:networking.k8s.io/v1:NetworkPolicy", "anything", "NetworkPolicy egress rule lists no ports"),
	}
}

# a given security group's rules (read from EC2) count for the instances that carry it
test_fail_given_group_rules_of_every_port if {
	resources := [fixtures.launch_template("nodes", "internal", {"vpcSecurityGroupIds": [fixtures.eks_cluster_sg, fixtures.ssh_sg]})]
	v := specific_rules.violation with input as fixtures.gate_input_with_given_groups(fixtures.mlps_policy, resources)
	group := sprintf("its security group %s (eks-cluster-sg-gpu-1234, read from EC2)", [fixtures.eks_cluster_sg])
	v == {
		_f("aws:ec2/launchTemplate:LaunchTemplate", "nodes", sprintf("ingress rule of %s allows every protocol or port", [group])),
		_f("aws:ec2/launchTemplate:LaunchTemplate", "nodes", sprintf("egress rule of %s allows every protocol or port", [group])),
	}
}

# NetworkPolicies of the deprecated extensions/v1beta1 group and patches are NetworkPolicies too
test_fail_portless_rules_of_older_policies_and_patches if {
	resources := [
		fixtures.resource("kubernetes:extensions/v1beta1:NetworkPolicy", "old", {
			"metadata": {"name": "old", "namespace": "train"},
			"spec": {"podSelector": {}, "ingress": [{"from": [{"podSelector": {"matchLabels": {"app": "web"}}}]}]},
		}),
		fixtures.resource("kubernetes:networking.k8s.io/v1:NetworkPolicyPatch", "patched", {
			"metadata": {"name": "default-deny", "namespace": "train"},
			"spec": {"egress": [{"to": [{"ipBlock": {"cidr": "10.0.0.0/8"}}]}]},
		}),
	]
	v := specific_rules.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == {
		_f("kubernetes:extensions/v1beta1:NetworkPolicy", "old", "NetworkPolicy ingress rule lists no ports"),
		_f("kubernetes:networking.k8s.io/v1:NetworkPolicyPatch", "patched", "NetworkPolicy egress rule lists no ports"),
	}
}
