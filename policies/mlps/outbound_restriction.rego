package mlps.outbound_restriction

import data.lib.findings
import data.lib.frameworks
import data.lib.network
import data.lib.resources

# METADATA
# title: "Restrict outbound traffic"
# description: >-
#   Security groups of sensitive (personal or internal) resources allow no all-port egress to
#   0.0.0.0/0; sensitive namespaces have a default-deny egress NetworkPolicy that no policy voids
#   (policies add up: an egress rule open to every destination on every port opens its pods; a
#   network policy of another engine with egress rules, which the gate does not read, may).
# related_resources:
#   - ref: https://openstd.samr.gov.cn/bzgk/gb/newGbInfo?hcno=BAFB47E8874764186BDB7865E8344DAF
# custom:
#   control_id: MLPS-L3-8.1.3.1c
#   clause: "8.1.3.1 c)"
#   framework: mlps-l3
#   severity: advisory
#   remediation: >-
#     Limit egress to the VPC CIDR and 443 to endpoints; add Egress to the namespace's
#     default-deny NetworkPolicy with explicit allow rules.
violation contains findings.finding("MLPS-L3-8.1.3.1c", p.resource, p.message) if {
	frameworks.applies(input.policy, "mlps-l3")
	some p in _problems
}

_problems contains findings.problem(rule.resource, msg) if {
	some rule in network.world_egress_rules(input.document)
	rule.position in resources.sensitive_indices
	network.all_ports(rule)
	msg := sprintf("%s allows all-port egress to %s", [rule.group, network.reach(rule)])
}

# A standalone rule (aws:ec2/securityGroupRule, aws:vpc/securityGroupEgressRule) names its group
# by id, which the document does not tie to a group's data class: it counts as a sensitive
# group's rule (fail closed).
_problems contains findings.problem(rule.resource, msg) if {
	some rule in network.world_egress_rules(input.document)
	not rule.resource.type in network.inline_rule_types
	not rule.given
	network.all_ports(rule)
	msg := sprintf("security group rule allows all-port egress to %s (the group's data class cannot be established, so it counts as sensitive)", [network.reach(rule)])
}

_problems contains findings.problem(ns, "sensitive namespace has no default-deny egress NetworkPolicy") if {
	some i in resources.indices("kubernetes:core/v1:Namespace") & resources.sensitive_indices
	ns := input.document.resources[i]
	not network.has_default_deny(input.document, resources.name_of(ns), "Egress")
}

# an egress rule open to every destination on every port voids the default deny for the pods its
# policy selects (lib.network open_rules): in a sensitive namespace, or a policy labelled so
_problems contains findings.problem(input.document.resources[rule.position], rule.message) if {
	some rule in network.open_rules
	rule.direction == "Egress"
	_sensitive_policy(rule)
}

_sensitive_namespaces := {resources.name_of(input.document.resources[i]) |
	some i in resources.indices("kubernetes:core/v1:Namespace") & resources.sensitive_indices
}

_sensitive_policy(rule) if rule.namespace in _sensitive_namespaces

# a policy whose namespace is unknown until apply may be in one of them
_sensitive_policy(rule) if {
	resources.hidden(rule.namespace)
	count(_sensitive_namespaces) > 0
}

_sensitive_policy(rule) if rule.position in resources.sensitive_indices
