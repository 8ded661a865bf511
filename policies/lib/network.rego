# METADATA
# title: Network helpers
# description: >-
#   Security-group rules from inline ingress/egress blocks, standalone rule resources and, when
#   EC2 was read (seedance check --lookup), the security groups the stack is given, normalised to
#   {resource, position, direction, protocol, from, to, cidrs, group}: group names the security
#   group in a message ("security group", or the given group the resource's instances carry).
# scope: package
package lib.network

import data.lib.compute
import data.lib.resources
import data.lib.routing

world := {"0.0.0.0/0", "::/0"}

high_risk_ports := {22, 3389, 3306, 5432, 6379, 9200}

admin_ports := {22, 3389}

_inline(r, i, direction, rule) := {
	"resource": r,
	"position": i,
	"direction": direction,
	"protocol": lower(sprintf("%v", [object.get(rule, "protocol", "-1")])),
	"from": _port(object.get(rule, "fromPort", 0), 0),
	"to": _port(object.get(rule, "toPort", 65535), 65535),
	"cidrs": array.concat(object.get(rule, "cidrBlocks", []), object.get(rule, "ipv6CidrBlocks", [])),
	"group": "security group",
}

# A port as a number: given as a number or as text ("22"); one unknown until apply counts as the end
# of the widest range (`widest`: 0 for a range's start, 65535 for its end), so the rule is read as
# covering every port it might (fail closed).
_port(v, widest) := v if {
	is_number(v) # the usual case, settled without a call
} else := p if {
	p := resources.number(v)
} else := widest

_cidr(rule) := [c | some k in ["cidrIpv4", "cidrIpv6"]; c := object.get(rule, k, null); is_string(c)]

# security groups that carry their rules inline (the VPC's default group too: its rules apply to
# every instance launched without a group)
inline_rule_types := ["aws:ec2/securityGroup:SecurityGroup", "aws:ec2/defaultSecurityGroup:DefaultSecurityGroup"]

# every rule of the document, built once per evaluation; `position` is the resource's position
_rules := array.concat(_document_rules, _given_rules)

_document_rules := array.concat(
	array.concat(
		[x |
			some t in inline_rule_types
			some i in resources.indices(t)
			r := input.document.resources[i]
			some direction in ["ingress", "egress"]
			some rule in object.get(r.inputs, direction, [])
			x := _inline(r, i, direction, rule)
		],
		[x |
			some i in resources.indices("aws:ec2/securityGroupRule:SecurityGroupRule")
			r := input.document.resources[i]
			x := _inline(r, i, r.inputs.type, r.inputs)
		],
	),
	[x |
		some t in ["aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule", "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule"]
		some i in resources.indices(t)
		r := input.document.resources[i]
		x := {
			"resource": r,
			"position": i,
			"direction": _direction(r.type),
			"protocol": lower(sprintf("%v", [object.get(r.inputs, "ipProtocol", "-1")])),
			"from": _port(object.get(r.inputs, "fromPort", 0), 0),
			"to": _port(object.get(r.inputs, "toPort", 65535), 65535),
			"cidrs": _cidr(r.inputs),
			"group": "security group",
		}
	],
)

# The rules of the security groups the stack is given (input.facts.security_groups, read by
# `seedance check --lookup`; absent otherwise) that its launch templates, instances and spot
# requests name by id (the EKS cluster security group of nodes that join a cluster): one rule per
# resource carrying the group, whose position (and so data class) is that resource's.
# (without facts, no resource is looked at)
_given_rules := [x |
	count(_given_groups) > 0
	some i in compute.indices
	r := input.document.resources[i]
	some id in _security_group_refs(r)
	sg := _given_groups[id]
	some direction in ["ingress", "egress"]
	some rule in sg[direction]
	x := {
		"resource": r,
		"position": i,
		"direction": direction,
		"protocol": lower(rule.protocol),
		"from": rule.from_port,
		"to": rule.to_port,
		"cidrs": rule.cidrs,
		"group": sprintf("its security group %s (%s, read from EC2)", [id, sg.name]),
		"given": id,
	}
]

_given_groups := object.get(input, ["facts", "security_groups"], {})

_security_group_refs(r) := {id |
	some field in ["vpcSecurityGroupIds", "securityGroups"]
	some id in resources.elements(object.get(r.inputs, field, []))
	is_string(id)
} | {id |
	some ni in resources.elements(object.get(r.inputs, "networkInterfaces", []))
	is_object(ni)
	some id in resources.elements(object.get(ni, "securityGroups", []))
	is_string(id)
}


# the ingress rules, the egress rules, and those of each open to the internet
ingress_rules(_) := _ingress

egress_rules(_) := _egress

world_ingress_rules(_) := _world_ingress

world_egress_rules(_) := _world_egress

_world_ingress := [rule | some rule in _ingress; open_to_world(rule)]

_world_egress := [rule | some rule in _egress; open_to_world(rule)]

_ingress := [rule | some rule in _rules; rule.direction == "ingress"]

_egress := [rule | some rule in _rules; rule.direction == "egress"]

_direction(type) := "ingress" if endswith(type, "IngressRule")

_direction(type) := "egress" if endswith(type, "EgressRule")

open_to_world(rule) if {
	some c in rule.cidrs
	c in world
}

all_protocols(rule) if rule.protocol in {"-1", "all"}

all_ports(rule) if all_protocols(rule)

all_ports(rule) if {
	rule.from <= 0
	rule.to >= 65535
}

covers(rule, port) if all_protocols(rule)

covers(rule, port) if {
	rule.from <= port
	port <= rule.to
}

# ports of a rule other than the allowed ones (e.g. 443 on internet load balancers)
only_ports(rule, allowed) if {
	not all_protocols(rule)
	rule.from == rule.to
	rule.from in allowed
}

# launch templates, instances and spot instance requests that give instances a public IP
public_ip(lt) if compute.public_ip(lt)

# an instance an Elastic IP of the document is attached to (an Eip's instance, an EipAssociation's
# instanceId; one unknown until apply without a dependency record may be attached to any instance)
elastic_ip(r) if {
	r.type == compute.instance
	some kind, field in _eip_fields
	some e in resources.of_type(input.document, kind)
	_eip_names(e, field, r)
}

_eip_fields := {"aws:ec2/eip:Eip": "instance", "aws:ec2/eipAssociation:EipAssociation": "instanceId"}

_eip_names(e, field, r) if routing.refers(e, field, r)

_eip_names(e, field, _) if routing.unlinked_unknown(e, field)

# ---------------------------------------------------------------- Kubernetes LoadBalancer Services

_internal_annotations := {
	"service.beta.kubernetes.io/aws-load-balancer-internal": "true",
	"service.beta.kubernetes.io/aws-load-balancer-scheme": "internal",
}

_internal(svc) if {
	some k, v in _internal_annotations
	object.get(svc.inputs, ["metadata", "annotations", k], "") == v
}

# a LoadBalancer Service the cloud controller exposes to the internet: not annotated internal and
# not limited to source ranges that exclude the internet (the controller writes its security-group
# rules outside the document)
internet_load_balancer(svc) if {
	object.get(svc.inputs, ["spec", "type"], "ClusterIP") == "LoadBalancer"
	not _internal(svc)
	not _source_restricted(svc)
}

_source_restricted(svc) if {
	ranges := object.get(svc.inputs, ["spec", "loadBalancerSourceRanges"], [])
	is_array(ranges)
	count(ranges) > 0
	every c in ranges {
		not c in world
	}
}

internet_services(document) := [svc |
	some svc in resources.of_type(document, "kubernetes:core/v1:Service")
	internet_load_balancer(svc)
]

# the ports a Service listens on
service_ports(svc) := {p |
	some sp in object.get(svc.inputs, ["spec", "ports"], [])
	p := object.get(sp, "port", null)
	is_number(p)
}

network_policies(document) := resources.of_type(document, "kubernetes:networking.k8s.io/v1:NetworkPolicy")

namespaces(document) := resources.of_type(document, "kubernetes:core/v1:Namespace")

# namespace -> directions (Ingress, Egress) closed by a default-deny NetworkPolicy: one selecting
# every pod (empty podSelector) with no allow rules for the direction
_denied[ns] contains direction if {
	some np in network_policies(input.document)
	object.get(np.inputs, ["spec", "podSelector"], {}) == {}
	types := object.get(np.inputs, ["spec", "policyTypes"], ["Ingress"])
	some direction in ["Ingress", "Egress"]
	direction in types
	count(object.get(np.inputs, ["spec", lower(direction)], [])) == 0
	ns := resources.namespace(np)
}

has_default_deny(_, ns_name, direction) if direction in object.get(_denied, ns_name, set())
