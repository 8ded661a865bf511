package mlps.default_deny

import data.lib.findings
import data.lib.frameworks
import data.lib.network
import data.lib.resources

# METADATA
# title: "Default deny"
# description: >-
#   The VPC's default security group has no rules, no security group admits 0.0.0.0/0 except on
#   80/443, every namespace has a default-deny ingress NetworkPolicy, and no NetworkPolicy voids
#   one: NetworkPolicies add up, so an ingress rule that admits every source (no from, a peer
#   namespaceSelector {} or an ipBlock of 0.0.0.0/0 or ::/0) on every port opens the pods its
#   policy selects whatever denies them. A network policy of another engine (Cilium, Calico,
#   AdminNetworkPolicy and the like), which the gate does not read, with ingress rules may do the
#   same: reported as one whose effect cannot be established.
# related_resources:
#   - ref: https://openstd.samr.gov.cn/bzgk/gb/newGbInfo?hcno=BAFB47E8874764186BDB7865E8344DAF
# custom:
#   control_id: MLPS-L3-8.1.3.2a
#   clause: "8.1.3.2 a)"
#   framework: mlps-l3
#   severity: mandatory
#   remediation: >-
#     Manage the default security group with empty ingress and egress; narrow world-open ingress
#     to 80/443 of internet load balancers; add a default-deny NetworkPolicy per namespace and give
#     every NetworkPolicy ingress rule the sources it needs (from) or the ports it opens.
violation contains findings.finding("MLPS-L3-8.1.3.2a", p.resource, p.message) if {
	frameworks.applies(input.policy, "mlps-l3")
	some p in _problems
}

_problems contains findings.problem(sg, "default security group has rules (it should deny everything)") if {
	some sg in resources.of_type(input.document, "aws:ec2/defaultSecurityGroup:DefaultSecurityGroup")
	count(object.get(sg.inputs, "ingress", [])) + count(object.get(sg.inputs, "egress", [])) > 0
}

_problems contains findings.problem(rule.resource, msg) if {
	some rule in network.world_ingress_rules(input.document)
	not network.only_ports(rule, {80, 443})
	msg := network.admits(rule)
}

_problems contains findings.problem(ns, "namespace has no default-deny NetworkPolicy") if {
	some ns in network.namespaces(input.document)
	not network.has_default_deny(input.document, resources.name_of(ns), "Ingress")
}

# an ingress rule open to every source on every port voids the default deny for the pods its
# policy selects, in any namespace (lib.network open_rules)
_problems contains findings.problem(input.document.resources[rule.position], rule.message) if {
	some rule in network.open_rules
	rule.direction == "Ingress"
}
