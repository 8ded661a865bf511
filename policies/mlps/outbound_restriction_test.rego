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

# audit D: egress added through standalone rule resources is checked; their group's data class is
# not in the document, so they count as a sensitive group's rules (fail closed)
_standalone_rules(cidr, protocol, port) := [
	fixtures.resource("aws:ec2/securityGroupRule:SecurityGroupRule", "sg-rule-out", {"type": "egress", "protocol": protocol, "fromPort": port, "toPort": port, "cidrBlocks": [cidr], "securityGroupId": "sg-0123456789abcdef0"}),
	fixtures.resource("aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule", "vpc-rule-out", {"ipProtocol": protocol, "fromPort": port, "toPort": port, "cidrIpv4": cidr, "securityGroupId": "sg-0123456789abcdef0"}),
]

_standalone_msg := "security group rule allows all-port egress to the internet (the group's data class cannot be established, so it counts as sensitive)"

test_fail_standalone_open_egress if {
	v := outbound_restriction.violation with input as fixtures.gate_input(fixtures.mlps_policy, _standalone_rules("0.0.0.0/0", "-1", 0))
	v == {
		_f("aws:ec2/securityGroupRule:SecurityGroupRule", "sg-rule-out", _standalone_msg),
		_f("aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule", "vpc-rule-out", _standalone_msg),
	}
}

test_pass_standalone_egress_to_one_port if {
	v := outbound_restriction.violation with input as fixtures.gate_input(fixtures.mlps_policy, _standalone_rules("0.0.0.0/0", "tcp", 443))
	v == set()
}

test_pass_standalone_all_port_egress_inside_vpc if {
	v := outbound_restriction.violation with input as fixtures.gate_input(fixtures.mlps_policy, _standalone_rules("10.0.0.0/16", "-1", 0))
	v == set()
}

# the security groups a stack is given, read from EC2 (seedance check --lookup): the EKS cluster
# group's all-port egress applies to the sensitive nodes that carry it; not to public-data ones,
# and nothing is known of it without the lookup
test_fail_given_group_open_egress if {
	resources := [
		fixtures.launch_template("nodes", "internal", {"vpcSecurityGroupIds": [fixtures.eks_cluster_sg]}),
		fixtures.launch_template("web", "public", {"vpcSecurityGroupIds": [fixtures.eks_cluster_sg]}),
		fixtures.launch_template("nic", "personal", {"networkInterfaces": [{"securityGroups": [fixtures.eks_cluster_sg]}]}),
	]
	v := outbound_restriction.violation with input as fixtures.gate_input_with_given_groups(fixtures.mlps_policy, resources)
	msg := sprintf("its security group %s (eks-cluster-sg-gpu-1234, read from EC2) allows all-port egress to the internet", [fixtures.eks_cluster_sg])
	v == {_f("aws:ec2/launchTemplate:LaunchTemplate", "nodes", msg), _f("aws:ec2/launchTemplate:LaunchTemplate", "nic", msg)}
	w := outbound_restriction.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	w == set()
}

# NetworkPolicies add up: an egress rule open to every destination on every port voids a sensitive
# namespace's default-deny egress for the pods its policy selects. Narrow rules (DNS to kube-dns,
# the internet on 443) and public-data namespaces are not reported.
_egress_np(name, ns, spec) := fixtures.resource("kubernetes:networking.k8s.io/v1:NetworkPolicy", name, {"metadata": {"name": name, "namespace": ns}, "spec": spec})

_egress_namespaces := [
	fixtures.namespace("train", "internal"),
	fixtures.deny_all("train"),
	fixtures.namespace("web", "public"),
	fixtures.deny_all("web"),
]

test_fail_egress_opened_beside_the_default_deny if {
	resources := array.concat(_egress_namespaces, [
		# egress rules imply Egress when policyTypes is left out
		_egress_np("anywhere", "train", {"podSelector": {}, "egress": [{}]}),
		_egress_np("internet", "train", {"podSelector": {"matchLabels": {"app": "fetch"}}, "policyTypes": ["Egress"], "egress": [{"to": [{"ipBlock": {"cidr": "0.0.0.0/0", "except": ["169.254.169.254/32"]}}]}]}),
		_egress_np("web-anywhere", "web", {"podSelector": {}, "egress": [{}]}),
	])
	v := outbound_restriction.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == {
		_f("kubernetes:networking.k8s.io/v1:NetworkPolicy", "anywhere", "NetworkPolicy lets every pod of namespace train reach every destination (an egress rule without to) on every port, which voids a default-deny egress there"),
		_f("kubernetes:networking.k8s.io/v1:NetworkPolicy", "internet", "NetworkPolicy lets the pods it selects in namespace train reach the internet (ipBlock 0.0.0.0/0) on every port, which voids a default-deny egress there"),
	}
}

test_pass_narrow_egress_beside_the_default_deny if {
	resources := array.concat(_egress_namespaces, [
		_egress_np("dns", "train", {
			"podSelector": {},
			"policyTypes": ["Egress"],
			"egress": [{
				"to": [{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "kube-system"}}, "podSelector": {"matchLabels": {"k8s-app": "kube-dns"}}}],
				"ports": [{"port": 53, "protocol": "UDP"}, {"port": 53, "protocol": "TCP"}],
			}],
		}),
		_egress_np("https", "train", {"podSelector": {}, "policyTypes": ["Egress"], "egress": [{"to": [{"ipBlock": {"cidr": "0.0.0.0/0"}}], "ports": [{"port": 443, "protocol": "TCP"}]}]}),
		# egress rules of a policy that governs ingress only are ignored
		_egress_np("ingress-only", "train", {"podSelector": {}, "policyTypes": ["Ingress"], "ingress": [{"from": [{"podSelector": {}}]}], "egress": [{}]}),
	])
	v := outbound_restriction.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == set()
}

# a network policy of another engine with egress rules, which the gate does not read, in a
# sensitive namespace (not in a public-data one, nor an ingress-only one)
_calico(name, ns, spec) := fixtures.resource("kubernetes:projectcalico.org/v3:NetworkPolicy", name, {"metadata": {"name": name, "namespace": ns}, "spec": spec})

test_fail_network_policy_of_another_engine_with_egress_rules if {
	resources := array.concat(_egress_namespaces, [
		_calico("calico-egress", "train", {"selector": "all()", "types": ["Egress"], "egress": [{"action": "Allow"}]}),
		_calico("calico-ingress", "train", {"selector": "all()", "types": ["Ingress"], "ingress": [{"action": "Allow"}]}),
		_calico("calico-web", "web", {"selector": "all()", "types": ["Egress"], "egress": [{"action": "Allow"}]}),
	])
	v := outbound_restriction.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == {_f("kubernetes:projectcalico.org/v3:NetworkPolicy", "calico-egress", "NetworkPolicy (projectcalico.org/v3) is a network policy of another engine, which the gate does not read: whether it lets pods reach destinations that void a default-deny egress cannot be established")}
}

# red team: all-port egress to a prefix list holding 0.0.0.0/0 is egress to the internet; to a
# list of private ranges it is not
test_egress_to_prefix_lists if {
	world := object.union(fixtures.resource("aws:ec2/managedPrefixList:ManagedPrefixList", "world", {"addressFamily": "IPv4", "maxEntries": 1, "entries": [{"cidr": "0.0.0.0/0"}]}), {"id": "pl-0000000000000aaaa"})
	office := object.union(fixtures.resource("aws:ec2/managedPrefixList:ManagedPrefixList", "office", {"addressFamily": "IPv4", "maxEntries": 1, "entries": [{"cidr": "10.0.0.0/8"}]}), {"id": "pl-0000000000000cccc"})
	resources := [
		world,
		office,
		fixtures.security_group("open", [], [{"protocol": "-1", "fromPort": 0, "toPort": 0, "prefixListIds": ["pl-0000000000000aaaa"]}]),
		fixtures.security_group("private", [], [{"protocol": "-1", "fromPort": 0, "toPort": 0, "prefixListIds": ["pl-0000000000000cccc"]}]),
		fixtures.resource("aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule", "vpc-rule-out", {"ipProtocol": "-1", "prefixListId": "pl-0000000000000aaaa", "securityGroupId": "sg-0123456789abcdef0"}),
	]
	v := outbound_restriction.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == {
		_f("aws:ec2/securityGroup:SecurityGroup", "open", "security group allows all-port egress to the internet"),
		_f("aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule", "vpc-rule-out", _standalone_msg),
	}
}
