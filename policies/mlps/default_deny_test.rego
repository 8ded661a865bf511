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

# NetworkPolicies add up: beside the namespace's default deny, a policy whose ingress rule admits
# every source on every port opens the pods it selects. Whole policies of networking.k8s.io/v1 and
# extensions/v1beta1 and patches count; the policy's namespace is its provider's when it names none.
_np_type := "kubernetes:networking.k8s.io/v1:NetworkPolicy"

_np(type, name, ns, spec) := fixtures.resource(type, name, {"metadata": {"name": name, "namespace": ns}, "spec": spec})

_k8s_provider := fixtures.resource("pulumi:providers:kubernetes", "train-k8s", {"namespace": "train"})

_open_policies := [
	# ingress: [{}], policyTypes left to the API server's default (Ingress)
	_np(_np_type, "allow-all", "train", {"podSelector": {}, "ingress": [{}]}),
	# every pod of every namespace, to the web pods
	_np(_np_type, "web-from-cluster", "train", {
		"podSelector": {"matchLabels": {"app": "web"}},
		"policyTypes": ["Ingress"],
		"ingress": [{"from": [{"namespaceSelector": {}}]}],
	}),
	# the deprecated API group; except carves a range out of the internet, which stays admitted
	_np("kubernetes:extensions/v1beta1:NetworkPolicy", "world", "train", {
		"podSelector": {},
		"ingress": [{"from": [{"ipBlock": {"cidr": "0.0.0.0/0", "except": ["10.0.0.0/8"]}}], "ports": [{"protocol": "TCP"}]}],
	}),
	# a patch of a policy outside the document: which pods it selects stays the live policy's
	fixtures.resource("kubernetes:networking.k8s.io/v1:NetworkPolicyPatch", "legacy-open", {
		"metadata": {"name": "legacy", "namespace": "train"},
		"spec": {"ingress": [{"from": [{"ipBlock": {"cidr": "::/0"}}], "ports": [{"port": 1, "endPort": 65535}]}]},
	}),
	# no metadata.namespace: its provider's namespace (train)
	object.union(
		fixtures.resource(_np_type, "metrics-open", {"metadata": {"name": "metrics-open"}, "spec": {"podSelector": {}, "ingress": [{"from": []}]}}),
		{"provider": sprintf("%s::train-k8s-0123", [_k8s_provider.urn])},
	),
]

test_fail_allow_all_ingress_beside_default_deny if {
	resources := array.concat([fixtures.namespace("train", "internal"), fixtures.deny_all("train"), _k8s_provider], _open_policies)
	v := default_deny.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == {
		_f(_np_type, "allow-all", "NetworkPolicy admits every source (an ingress rule without from) to every pod of namespace train on every port, which voids a default-deny ingress there"),
		_f(_np_type, "web-from-cluster", "NetworkPolicy admits every pod of every namespace (namespaceSelector {}) to the pods it selects in namespace train on every port, which voids a default-deny ingress there"),
		_f("kubernetes:extensions/v1beta1:NetworkPolicy", "world", "NetworkPolicy admits the internet (ipBlock 0.0.0.0/0) to every pod of namespace train on every port, which voids a default-deny ingress there"),
		_f("kubernetes:networking.k8s.io/v1:NetworkPolicyPatch", "legacy-open", "NetworkPolicy admits the internet (ipBlock ::/0) to the pods it selects in namespace train on every port, which voids a default-deny ingress there"),
		_f(_np_type, "metrics-open", "NetworkPolicy admits every source (an ingress rule without from) to every pod of namespace train on every port, which voids a default-deny ingress there"),
	}
}

# the compliant forms: the default deny with specific allow rules (another namespace's gateway pods
# on one port; the internet on 443 only; the namespace's own pods), an open ingress rule in a policy
# that governs egress only (the API ignores it), and the stacks' DNS egress rule
test_pass_default_deny_with_narrow_allow_rules if {
	resources := [
		fixtures.namespace("train", "internal"),
		fixtures.deny_all("train"),
		_np(_np_type, "from-gateway", "train", {
			"podSelector": {"matchLabels": {"app": "api"}},
			"policyTypes": ["Ingress"],
			"ingress": [{
				"from": [{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "gateway"}}, "podSelector": {"matchLabels": {"app": "envoy"}}}],
				"ports": [{"protocol": "TCP", "port": 8080}],
			}],
		}),
		_np(_np_type, "https", "train", {"podSelector": {"matchLabels": {"app": "web"}}, "ingress": [{"from": [{"ipBlock": {"cidr": "0.0.0.0/0"}}], "ports": [{"port": 443}]}]}),
		_np(_np_type, "same-namespace", "train", {"podSelector": {}, "ingress": [{"from": [{"podSelector": {}}]}]}),
		_np(_np_type, "egress-only", "train", {"podSelector": {}, "policyTypes": ["Egress"], "ingress": [{}], "egress": [{"ports": [{"port": 443}]}]}),
		_np(_np_type, "allow-dns-egress", "train", {
			"podSelector": {},
			"policyTypes": ["Egress"],
			"egress": [{
				"to": [{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "kube-system"}}, "podSelector": {"matchLabels": {"k8s-app": "kube-dns"}}}],
				"ports": [{"port": 53, "protocol": "UDP"}, {"port": 53, "protocol": "TCP"}],
			}],
		}),
	]
	v := default_deny.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == set()
}

# sources or ports unknown until apply (the preview's "[unknown]") may be everyone: reported as
# undecidable rather than passed
test_fail_ingress_rules_unknown_until_apply if {
	resources := [
		fixtures.namespace("train", "internal"),
		fixtures.deny_all("train"),
		_np(_np_type, "later", "train", {"podSelector": {}, "ingress": [{"from": "[unknown]"}]}),
		_np(_np_type, "later-ports", "train", {"podSelector": {}, "ingress": [{"ports": "[unknown]"}]}),
	]
	v := default_deny.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == {
		_f(_np_type, "later", "NetworkPolicy admits sources unknown until apply (from [unknown]) to every pod of namespace train on every port: whether it voids a default-deny ingress there cannot be established"),
		_f(_np_type, "later-ports", "NetworkPolicy admits every source (an ingress rule without from) to every pod of namespace train on ports unknown until apply (ports [unknown]): whether it voids a default-deny ingress there cannot be established"),
	}
}

# a default deny whose policyTypes are unknown until apply may govern egress only: not counted
test_fail_default_deny_of_unknown_policy_types if {
	resources := [
		fixtures.namespace("train", "internal"),
		_np(_np_type, "default-deny", "train", {"podSelector": {}, "policyTypes": "[unknown]"}),
	]
	v := default_deny.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == {_f("kubernetes:core/v1:Namespace", "train", "namespace has no default-deny NetworkPolicy")}
}

# ranges that admit the internet only together: in one rule, across the rules of one group for
# the same ports, and across the ipBlocks of one NetworkPolicy rule
_halves_resources := [
	fixtures.security_group("halves", [{"protocol": "tcp", "fromPort": 5432, "toPort": 5432, "cidrBlocks": ["0.0.0.0/1", "128.0.0.0/1"]}], []),
	fixtures.resource("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule", "low", {"securityGroupId": "sg-9", "ipProtocol": "tcp", "fromPort": 6379, "toPort": 6379, "cidrIpv4": "0.0.0.0/1"}),
	fixtures.resource("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule", "high", {"securityGroupId": "sg-9", "ipProtocol": "tcp", "fromPort": 6379, "toPort": 6379, "cidrIpv4": "128.0.0.0/1"}),
	# same group and ports, private range only: not itself open
	fixtures.resource("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule", "office", {"securityGroupId": "sg-9", "ipProtocol": "tcp", "fromPort": 6379, "toPort": 6379, "cidrIpv4": "10.0.0.0/8"}),
	# the other half on another port, another group, and a group unknown until apply: no cover
	fixtures.resource("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule", "other-port", {"securityGroupId": "sg-8", "ipProtocol": "tcp", "fromPort": 6380, "toPort": 6380, "cidrIpv4": "0.0.0.0/1"}),
	fixtures.resource("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule", "other-group", {"securityGroupId": "sg-7", "ipProtocol": "tcp", "fromPort": 6380, "toPort": 6380, "cidrIpv4": "128.0.0.0/1"}),
	fixtures.resource("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule", "unknown-a", {"securityGroupId": "[unknown]", "ipProtocol": "tcp", "fromPort": 9200, "toPort": 9200, "cidrIpv4": "0.0.0.0/1"}),
	fixtures.resource("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule", "unknown-b", {"securityGroupId": "[unknown]", "ipProtocol": "tcp", "fromPort": 9200, "toPort": 9200, "cidrIpv4": "128.0.0.0/1"}),
	fixtures.namespace("train", "internal"),
	fixtures.deny_all("train"),
	_np(_np_type, "split-world", "train", {"podSelector": {}, "ingress": [{"from": [{"ipBlock": {"cidr": "0.0.0.0/1"}}, {"ipBlock": {"cidr": "128.0.0.0/1"}}]}]}),
	_np(_np_type, "half-world", "train", {"podSelector": {}, "ingress": [{"from": [{"ipBlock": {"cidr": "0.0.0.0/1"}}]}]}),
	_np(_np_type, "half-unknown", "train", {"podSelector": {}, "ingress": [{"from": ["[unknown]", {"ipBlock": {"cidr": "128.0.0.0/1"}}]}]}),
]

test_fail_ranges_that_admit_the_internet_together if {
	v := default_deny.violation with input as fixtures.gate_input(fixtures.mlps_policy, _halves_resources)
	v == {
		_f("aws:ec2/securityGroup:SecurityGroup", "halves", "security group admits the internet on tcp ports 5432-5432"),
		_f("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule", "low", "security group admits the internet on tcp ports 6379-6379"),
		_f("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule", "high", "security group admits the internet on tcp ports 6379-6379"),
		_f(_np_type, "split-world", "NetworkPolicy admits the internet (ipBlocks 0.0.0.0/1, 128.0.0.0/1) to every pod of namespace train on every port, which voids a default-deny ingress there"),
		_f(_np_type, "half-unknown", "NetworkPolicy admits a peer unknown until apply ([unknown]) to every pod of namespace train on every port: whether it voids a default-deny ingress there cannot be established"),
	}
}

# a group's inline rule and a rule resource that names the group (by its id, or as a property
# dependency whose value is unknown until apply) cover the internet together
test_fail_inline_and_resource_rules_of_one_group_admit_the_internet_together if {
	sg := object.union(fixtures.security_group("db", [{"protocol": "tcp", "fromPort": 5432, "toPort": 5432, "cidrBlocks": ["0.0.0.0/1"]}], []), {"id": "sg-0db"})
	by_id := fixtures.resource("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule", "by-id", {"securityGroupId": "sg-0db", "ipProtocol": "tcp", "fromPort": 5432, "toPort": 5432, "cidrIpv4": "128.0.0.0/1"})
	cache := fixtures.security_group("cache", [{"protocol": "tcp", "fromPort": 6379, "toPort": 6379, "cidrBlocks": ["0.0.0.0/1"]}], [])
	by_dependency := object.union(
		fixtures.resource("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule", "by-dependency", {"securityGroupId": "[unknown]", "ipProtocol": "tcp", "fromPort": 6379, "toPort": 6379, "cidrIpv4": "128.0.0.0/1"}),
		{"property_dependencies": {"securityGroupId": [cache.urn]}},
	)
	v := default_deny.violation with input as fixtures.gate_input(fixtures.mlps_policy, [sg, by_id, cache, by_dependency])
	v == {
		_f("aws:ec2/securityGroup:SecurityGroup", "db", "security group admits the internet on tcp ports 5432-5432"),
		_f("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule", "by-id", "security group admits the internet on tcp ports 5432-5432"),
		_f("aws:ec2/securityGroup:SecurityGroup", "cache", "security group admits the internet on tcp ports 6379-6379"),
		_f("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule", "by-dependency", "security group admits the internet on tcp ports 6379-6379"),
	}
}

# Network policies of other engines (Cilium, Calico, AdminNetworkPolicy, ...) add allow rules the
# gate does not read: one with rules for ingress (or a spec unknown until apply) may void the
# default deny, so it is reported as such; a cluster-wide one counts in every namespace; deny-only
# objects, egress-only ones (for this ingress control) and Kubernetes' own policies are not
_other_engine_policies := [
	_np("kubernetes:cilium.io/v2:CiliumNetworkPolicy", "cilium-world", "train", {
		"endpointSelector": {},
		"ingress": [{"fromEntities": ["world"]}],
	}),
	fixtures.resource("kubernetes:cilium.io/v2:CiliumClusterwideNetworkPolicy", "cilium-specs", {
		"metadata": {"name": "cilium-specs"},
		"specs": [
			{"endpointSelector": {}, "egress": [{"toEntities": ["kube-apiserver"]}]},
			{"endpointSelector": {}, "ingress": [{"fromEntities": ["cluster"]}]},
		],
	}),
	_np("kubernetes:crd.projectcalico.org/v1:GlobalNetworkPolicy", "calico-unknown", "train", "[unknown]"),
	_np("kubernetes:policy.networking.k8s.io/v1alpha1:AdminNetworkPolicy", "anp", "train", {
		"priority": 10,
		"subject": {"namespaces": {}},
		"ingress": [{"action": "Allow", "from": [{"namespaces": {}}]}],
	}),
	# deny-only and egress-only: nothing that can open ingress
	_np("kubernetes:cilium.io/v2:CiliumNetworkPolicy", "cilium-deny", "train", {
		"endpointSelector": {},
		"ingressDeny": [{"fromEntities": ["world"]}],
	}),
	_np("kubernetes:projectcalico.org/v3:NetworkPolicy", "calico-egress", "train", {
		"selector": "all()",
		"types": ["Egress"],
		"egress": [{"action": "Allow"}],
	}),
]

test_fail_network_policies_of_other_engines if {
	resources := array.concat([fixtures.namespace("train", "internal"), fixtures.deny_all("train")], _other_engine_policies)
	v := default_deny.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == {
		_f("kubernetes:cilium.io/v2:CiliumNetworkPolicy", "cilium-world", "CiliumNetworkPolicy (cilium.io/v2) is a network policy of another engine, which the gate does not read: whether it admits traffic that voids a default-deny ingress cannot be established"),
		_f("kubernetes:cilium.io/v2:CiliumClusterwideNetworkPolicy", "cilium-specs", "CiliumClusterwideNetworkPolicy (cilium.io/v2) is a network policy of another engine, which the gate does not read: whether it admits traffic that voids a default-deny ingress cannot be established"),
		_f("kubernetes:crd.projectcalico.org/v1:GlobalNetworkPolicy", "calico-unknown", "GlobalNetworkPolicy (crd.projectcalico.org/v1) is a network policy of another engine, which the gate does not read: whether it admits traffic that voids a default-deny ingress cannot be established"),
		_f("kubernetes:policy.networking.k8s.io/v1alpha1:AdminNetworkPolicy", "anp", "AdminNetworkPolicy (policy.networking.k8s.io/v1alpha1) is a network policy of another engine, which the gate does not read: whether it admits traffic that voids a default-deny ingress cannot be established"),
	}
}

# a policy with no namespace whose document records no provider (null) is in the default namespace
# (a hand-written document may say so; the lookup of the provider's namespace must not stop the query)
test_fail_open_policy_without_namespace_or_provider if {
	resources := [object.union(
		fixtures.resource(_np_type, "loose", {"metadata": {"name": "loose"}, "spec": {"podSelector": {}, "ingress": [{}]}}),
		{"provider": null},
	)]
	v := default_deny.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == {_f(_np_type, "loose", "NetworkPolicy admits every source (an ingress rule without from) to every pod of namespace default on every port, which voids a default-deny ingress there")}
}

# rules whose action denies (Calico, AdminNetworkPolicy), passes the decision on (AdminNetworkPolicy)
# or drops (Antrea) open nothing, and Calico's staged policies enforce nothing; an Allow among them
# may open (in any case)
test_other_engines_deny_and_staged_policies if {
	resources := [
		fixtures.namespace("train", "internal"),
		fixtures.deny_all("train"),
		_np("kubernetes:crd.projectcalico.org/v1:GlobalNetworkPolicy", "calico-deny", "train", {"selector": "all()", "ingress": [{"action": "Deny", "source": {"nets": ["0.0.0.0/0"]}}]}),
		_np("kubernetes:policy.networking.k8s.io/v1alpha1:AdminNetworkPolicy", "anp-pass", "train", {"priority": 5, "subject": {"namespaces": {}}, "ingress": [{"action": "Pass", "from": [{"namespaces": {}}]}, {"action": "Deny", "from": [{"namespaces": {}}]}]}),
		_np("kubernetes:crd.antrea.io/v1beta1:ClusterNetworkPolicy", "antrea-drop", "train", {"priority": 5, "ingress": [{"action": "Drop"}]}),
		_np("kubernetes:projectcalico.org/v3:StagedNetworkPolicy", "staged-open", "train", {"selector": "all()", "ingress": [{"action": "Allow"}]}),
		_np("kubernetes:projectcalico.org/v3:NetworkPolicy", "calico-mixed", "train", {"selector": "all()", "ingress": [{"action": "Deny", "source": {"nets": ["10.0.0.0/8"]}}, {"action": "allow"}]}),
	]
	v := default_deny.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == {_f("kubernetes:projectcalico.org/v3:NetworkPolicy", "calico-mixed", "NetworkPolicy (projectcalico.org/v3) is a network policy of another engine, which the gate does not read: whether it admits traffic that voids a default-deny ingress cannot be established")}
}

# red team: a prefix list source is judged by its entries; an id unknown until apply by the list
# its dependency names; a list the document does not hold cannot be shown not to be the internet.
# Near misses: such a list on 443, and a list of private ranges on any port
test_prefix_list_sources if {
	world := object.union(fixtures.resource("aws:ec2/managedPrefixList:ManagedPrefixList", "world", {"addressFamily": "IPv4", "maxEntries": 1, "entries": [{"cidr": "0.0.0.0/0"}]}), {"id": "pl-0000000000000aaaa"})
	office := object.union(fixtures.resource("aws:ec2/managedPrefixList:ManagedPrefixList", "office", {"addressFamily": "IPv4", "maxEntries": 1, "entries": [{"cidr": "10.0.0.0/8"}]}), {"id": "pl-0000000000000cccc"})
	late := object.union(fixtures.security_group("late", [{"protocol": "tcp", "fromPort": 5432, "toPort": 5432, "prefixListIds": ["[unknown]"]}], []), {"property_dependencies": {"ingress": [world.urn]}})
	resources := [
		world,
		office,
		late,
		fixtures.security_group("outside", [{"protocol": "tcp", "fromPort": 8080, "toPort": 8080, "prefixListIds": ["pl-0123456789abcdef0"]}], []),
		fixtures.security_group("web", [{"protocol": "tcp", "fromPort": 443, "toPort": 443, "prefixListIds": ["pl-0123456789abcdef0"]}], []),
		fixtures.security_group("private", [{"protocol": "-1", "fromPort": 0, "toPort": 0, "prefixListIds": ["pl-0000000000000cccc"]}], []),
	]
	v := default_deny.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == {
		_f("aws:ec2/securityGroup:SecurityGroup", "late", "security group admits the internet on tcp ports 5432-5432"),
		_f("aws:ec2/securityGroup:SecurityGroup", "outside", "security group admits tcp ports 8080-8080 from prefix list pl-0123456789abcdef0 (not in the document), whose reach cannot be established"),
	}
}

# red team: a protocol that is secret or unknown until apply may be "-1", every protocol and port:
# a rule for port 443 from the internet does not narrow to 443
_hidden_protocol_rules := [
	fixtures.resource("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule", "secret-proto", {"securityGroupId": "sg-1", "ipProtocol": "[secret]", "fromPort": 443, "toPort": 443, "cidrIpv4": "0.0.0.0/0"}),
	fixtures.security_group("unknown-proto", [{"protocol": "[unknown]", "fromPort": 443, "toPort": 443, "cidrBlocks": ["0.0.0.0/0"]}], []),
]

_rule_type := "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule"

_sg_type := "aws:ec2/securityGroup:SecurityGroup"

test_fail_hidden_protocol_is_not_only_https if {
	v := default_deny.violation with input as fixtures.gate_input(fixtures.mlps_policy, _hidden_protocol_rules)
	v == {
		_f(_rule_type, "secret-proto", "security group admits the internet on every protocol and port (its protocol is secret)"),
		_f(_sg_type, "unknown-proto", "security group admits the internet on every protocol and port (its protocol is unknown until apply)"),
	}
}

# red team: a peer's namespaceSelector, an ipBlock cidr or a port entry's endPort the document does
# not show may admit everyone on every port; the message says secret or unknown until apply
_np_msg(who, ports) := sprintf("NetworkPolicy admits %s to every pod of namespace train %s: whether it voids a default-deny ingress there cannot be established", [who, ports])

test_fail_hidden_network_policy_peers_and_ports if {
	resources := [
		fixtures.namespace("train", "internal"), fixtures.deny_all("train"),
		_np(_np_type, "ns-secret", "train", {"podSelector": {}, "ingress": [{"from": [{"namespaceSelector": "[secret]"}]}]}),
		_np(_np_type, "cidr-secret", "train", {"podSelector": {}, "ingress": [{"from": [{"ipBlock": {"cidr": "[secret]"}}]}]}),
		_np(_np_type, "end-secret", "train", {"podSelector": {}, "ingress": [{"from": [{"ipBlock": {"cidr": "0.0.0.0/0"}}], "ports": [{"port": 1, "endPort": "[secret]"}]}]}),
		_np(_np_type, "end-later", "train", {"podSelector": {}, "ingress": [{"from": [{"ipBlock": {"cidr": "0.0.0.0/0"}}], "ports": [{"port": 1, "endPort": "[unknown]"}]}]}),
		_np(_np_type, "narrow", "train", {"podSelector": {}, "ingress": [{"from": [{"ipBlock": {"cidr": "0.0.0.0/0"}}], "ports": [{"port": 443, "endPort": "[secret]"}]}]}),
	]
	v := default_deny.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == {
		_f(_np_type, "ns-secret", _np_msg("pods of namespaces it does not show (namespaceSelector secret)", "on every port")),
		_f(_np_type, "cidr-secret", _np_msg("addresses secret (ipBlock cidr [secret])", "on every port")),
		_f(_np_type, "end-secret", _np_msg("the internet (ipBlock 0.0.0.0/0)", "on ports secret (ports [{\"endPort\": \"[secret]\", \"port\": 1}])")),
		_f(_np_type, "end-later", _np_msg("the internet (ipBlock 0.0.0.0/0)", "on ports unknown until apply (ports [{\"endPort\": \"[unknown]\", \"port\": 1}])")),
	}
}

# red team: a group's ingress list or an ingress rule the document does not show may admit anything
# (was a type error that left the gate undecided)
test_fail_hidden_inline_rule_lists if {
	resources := [
		fixtures.security_group("list", "[secret]", []),
		fixtures.security_group("item", ["[unknown]"], []),
	]
	v := default_deny.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == {
		_f(_sg_type, "list", "security group admits every protocol and port (its protocol is secret) from a CIDR the document does not show (secret), whose reach cannot be established"),
		_f(_sg_type, "item", "security group admits every protocol and port (its protocol is unknown until apply) from a CIDR unknown until apply, whose reach cannot be established"),
	}
}

# red team: the halves of the internet in two rules of one group for one protocol spelled two ways
# ("6" and "tcp"; "-1" and "all", whose ports do not matter) were not combined
test_fail_halves_for_one_protocol_spelled_two_ways if {
	resources := [
		fixtures.resource("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule", "num", {"securityGroupId": "sg-1", "ipProtocol": "6", "fromPort": 22, "toPort": 22, "cidrIpv4": "0.0.0.0/1"}),
		fixtures.resource("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule", "name", {"securityGroupId": "sg-1", "ipProtocol": "tcp", "fromPort": 22, "toPort": 22, "cidrIpv4": "128.0.0.0/1"}),
		fixtures.resource("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule", "any", {"securityGroupId": "sg-2", "ipProtocol": "-1", "fromPort": 0, "toPort": 0, "cidrIpv4": "0.0.0.0/1"}),
		fixtures.resource("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule", "all", {"securityGroupId": "sg-2", "ipProtocol": "all", "cidrIpv4": "128.0.0.0/1"}),
		# the other protocol: no cover
		fixtures.resource("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule", "udp", {"securityGroupId": "sg-3", "ipProtocol": "17", "fromPort": 53, "toPort": 53, "cidrIpv4": "0.0.0.0/1"}),
		fixtures.resource("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule", "tcp53", {"securityGroupId": "sg-3", "ipProtocol": "tcp", "fromPort": 53, "toPort": 53, "cidrIpv4": "128.0.0.0/1"}),
	]
	v := default_deny.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	{f.resource_name | some f in v} == {"num", "name", "any", "all"}
}

# red team (stop 34): the ports a combined cover opens are the pieces every admitting rule shares,
# not cut short by a narrow rule of a private range; icmp rules cover by type, protocols without
# ports whatever their port fields; a narrow range beside a cover that holds without it is not named
test_combined_covers_by_piece if {
	resources := [
		_sg_rule("low", "sg-1", "tcp", 0, 65535, "0.0.0.0/1"),
		_sg_rule("high", "sg-1", "tcp", 0, 65535, "128.0.0.0/1"),
		_sg_rule("private", "sg-1", "tcp", 0, 21, "10.0.0.0/8"),
		_sg_rule("admin", "sg-1", "tcp", 22, 22, "198.51.100.7/32"),
		_sg_rule("ping-low", "sg-2", "icmp", 8, 0, "0.0.0.0/1"),
		_sg_rule("ping-high", "sg-2", "icmp", 8, -1, "128.0.0.0/1"),
		_sg_rule("esp-low", "sg-3", "50", 0, 0, "0.0.0.0/1"),
		_sg_rule("esp-high", "sg-3", "50", 500, 500, "128.0.0.0/1"),
		_sg_rule("other-type", "sg-4", "icmp", 3, -1, "0.0.0.0/1"),
		_sg_rule("echo-only", "sg-4", "icmp", 8, -1, "128.0.0.0/1"),
	]
	v := default_deny.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	{[f.resource_name, f.message] | some f in v} == {
		["low", "security group admits the internet on tcp ports 0-65535"],
		["high", "security group admits the internet on tcp ports 0-65535"],
		["ping-low", "security group admits the internet on icmp ports 8-0"],
		["ping-high", "security group admits the internet on icmp ports 8--1"],
		["esp-low", "security group admits the internet on 50 ports 0-0"],
		["esp-high", "security group admits the internet on 50 ports 500-500"],
	}
}

_sg_rule(name, group, protocol, from, to, cidr_block) := fixtures.resource("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule", name, {"securityGroupId": group, "ipProtocol": protocol, "fromPort": from, "toPort": to, "cidrIpv4": cidr_block})

# red team: an internet-facing load balancer answers on its listeners' ports. A network load
# balancer without security groups (or one whose security groups the document does not hold or
# show) answers anyone there: a listener on a port other than 80/443 is reported. One whose security
# groups are the document's is judged by their rules (reported there when they admit the world).
_lb(name, inputs) := object.union(fixtures.resource("aws:lb/loadBalancer:LoadBalancer", name, object.union({"loadBalancerType": "network", "internal": false}, inputs)), {"id": sprintf("%s-id", [name])})

_lb_listener(name, lb, port) := fixtures.resource("aws:lb/listener:Listener", name, {"loadBalancerArn": sprintf("%s-id", [lb]), "port": port, "protocol": "TCP", "defaultActions": []})

_lb_service(name, spec) := fixtures.resource("kubernetes:core/v1:Service", name, {"metadata": {"name": name, "namespace": "train"}, "spec": object.union({"type": "LoadBalancer"}, spec)})

test_fail_internet_load_balancer_listeners_on_other_ports if {
	resources := array.concat(pass_resources, [
		_lb("nlb", {}),
		_lb_listener("app", "nlb", 8080),
		_lb_listener("https", "nlb", 443),
		_lb_listener("later", "nlb", "[unknown]"),
		_lb("given", {"loadBalancerType": "application", "securityGroups": ["sg-0123456789abcdef0"]}),
		_lb_listener("given-app", "given", 8443),
		_lb("shielded", {"loadBalancerType": "application", "securityGroups": ["lb-web-id"]}),
		_lb_listener("shielded-app", "shielded", 8080),
		object.union(fixtures.security_group("lb-web", [{"protocol": "tcp", "fromPort": 443, "toPort": 443, "cidrBlocks": ["0.0.0.0/0"]}], []), {"id": "lb-web-id"}),
		_lb("internal", {"internal": true}),
		_lb_listener("internal-app", "internal", 8080),
		_lb_service("svc", {"ports": [{"port": 8080}, {"port": 443}]}),
		_lb_service("svc-hidden", {"ports": "[unknown]"}),
		_lb_service("svc-https", {"ports": [{"port": 443}]}),
		_lb_service("svc-ranges", {"ports": [{"port": 8080}], "loadBalancerSourceRanges": ["203.0.113.0/24"]}),
	])
	v := default_deny.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == {
		_f("aws:lb/listener:Listener", "app", "listener of internet-facing load balancer nlb admits the internet on port 8080, not 80/443: it is a network load balancer without security groups: its listeners answer anyone"),
		_f("aws:lb/listener:Listener", "later", "listener of internet-facing load balancer nlb has a port that is unknown until apply, so it may admit the internet on one other than 80/443: it is a network load balancer without security groups: its listeners answer anyone"),
		_f("aws:lb/listener:Listener", "given-app", "listener of internet-facing load balancer given admits the internet on port 8443, not 80/443: its security group sg-0123456789abcdef0 is not in the document (its rules cannot be read)"),
		_f("kubernetes:core/v1:Service", "svc", "internet-facing LoadBalancer Service admits the internet on port 8080, not 80/443"),
		_f("kubernetes:core/v1:Service", "svc-hidden", "internet-facing LoadBalancer Service: its ports are unknown until apply, so it may admit the internet on one other than 80/443"),
	}
}

# red team (false positive): the load-balancer-source-ranges annotation narrows a Service as
# spec.loadBalancerSourceRanges does (both controllers read it when the spec gives none)
_annotated(name, ranges) := object.union(_lb_service(name, {"ports": [{"port": 8443}]}),
	{"inputs": {"metadata": {"name": name, "namespace": "train", "annotations": {"service.beta.kubernetes.io/load-balancer-source-ranges": ranges}}}})

test_source_ranges_annotation_narrows_a_service if {
	resources := [_annotated("partner", "198.51.100.0/24, 203.0.113.0/24"), _annotated("world", "198.51.100.0/24,0.0.0.0/0")]
	v := default_deny.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	{f.resource_name | some f in v; contains(f.message, "port 8443")} == {"world"}
}

