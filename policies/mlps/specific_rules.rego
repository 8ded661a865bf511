package mlps.specific_rules

import data.lib.findings
import data.lib.frameworks
import data.lib.network

# METADATA
# title: "Specific access rules only"
# description: >-
#   Security-group rules, ingress and egress, name a protocol and a port range narrower than
#   0-65535, and NetworkPolicy allow rules list ports.
# related_resources:
#   - ref: https://openstd.samr.gov.cn/bzgk/gb/newGbInfo?hcno=BAFB47E8874764186BDB7865E8344DAF
# custom:
#   control_id: MLPS-L3-8.1.3.2c
#   clause: "8.1.3.2 c)"
#   framework: mlps-l3
#   severity: advisory
#   remediation: >-
#     Replace protocol -1 / 0-65535 rules, ingress and egress, with the ports the service needs
#     (waive the node-to-node rule EFA needs, with its justification); add ports to
#     NetworkPolicy ingress and egress rules.
violation contains findings.finding("MLPS-L3-8.1.3.2c", p.resource, p.message) if {
	frameworks.applies(input.policy, "mlps-l3")
	some p in _problems
}

_problems contains findings.problem(rule.resource, msg) if {
	some rule in array.concat(network.ingress_rules(input.document), network.egress_rules(input.document))
	network.all_ports(rule)
	msg := sprintf("%s rule%s allows every protocol or port", [rule.direction, _of(rule)])
}

# "egress rule" of a group of the document; "egress rule of its security group sg-... (...)" of a given one
_of(rule) := sprintf(" of %s", [rule.group]) if rule.given

_of(rule) := "" if not rule.given

# NetworkPolicies of every API form (networking.k8s.io/v1, extensions/v1beta1) and their patches
_problems contains findings.problem(np, msg) if {
	some np in array.concat(network.network_policies(input.document), network.network_policy_patches(input.document))
	some direction in ["ingress", "egress"]
	some rule in object.get(np.inputs, ["spec", direction], [])
	count(object.get(rule, "ports", [])) == 0
	msg := sprintf("NetworkPolicy %s rule lists no ports", [direction])
}
