package mlps.default_deny

import data.lib.findings
import data.lib.frameworks
import data.lib.network
import data.lib.resources

# METADATA
# title: "Default deny"
# description: >-
#   The VPC's default security group has no rules, no security group admits 0.0.0.0/0 except on
#   80/443, nor does a listener of an internet-facing load balancer that nothing narrows (a network
#   load balancer without security groups, security groups the document does not hold) or an
#   internet-facing LoadBalancer Service, every namespace has a default-deny ingress
#   NetworkPolicy, and no NetworkPolicy voids one: NetworkPolicies add up, so an ingress rule that admits every source (no from, a peer
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

# a listener of an internet-facing load balancer on a port other than 80/443 (or one not shown),
# where nothing narrows who reaches it: a network load balancer without security groups, or
# security groups the document does not hold (lib.public_access; the rules of the document's
# security groups are judged above)
_problems contains findings.problem(r, msg) if {
	some [r, i, what, port] in data.lib.public_access.internet_listeners
	why := data.lib.public_access.unshielded_lbs[i]
	gap := _listener_gap(port)
	msg := sprintf("%s %s: %s", [what, gap, why])
}

_listener_gap(port) := sprintf("has a port that is %s, so it may admit the internet on one other than 80/443", [resources.hidden_why(port)]) if {
	resources.hidden(port)
} else := sprintf("admits the internet on port %v, not 80/443", [port]) if {
	port != null
	not resources.number(port) in {80, 443}
}

# the cloud controller opens a LoadBalancer Service's ports to the internet (or to its
# loadBalancerSourceRanges) outside the document
_problems contains findings.problem(svc, msg) if {
	some svc in network.internet_services(input.document)
	some port in network.service_ports(svc)
	not port in {80, 443}
	msg := sprintf("%s admits the internet on port %d, not 80/443", [network.internet_service_noun(svc), port])
}

_problems contains findings.problem(svc, msg) if {
	some svc in network.internet_services(input.document)
	some why in network.service_hidden_ports(svc)
	msg := sprintf("%s: %s, so it may admit the internet on one other than 80/443", [network.internet_service_noun(svc), why])
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
