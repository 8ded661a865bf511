# METADATA
# title: Network helpers
# description: >-
#   Security-group rules from inline ingress/egress blocks, standalone rule resources and, when
#   EC2 was read (seedance check --lookup), the security groups the stack is given, normalised to
#   {resource, position, direction, protocol, from, to, cidrs, group}: group names the security
#   group in a message ("security group", or the given group the resource's instances carry).
# scope: package
package lib.network

import data.lib.cidr
import data.lib.compute
import data.lib.resources
import data.lib.routing

world := cidr.world

high_risk_ports := {22, 3389, 3306, 5432, 6379, 9200}

admin_ports := {22, 3389}

# a rule of a group's inline ingress or egress list (dependency field: that list) or a
# SecurityGroupRule (prefixListIds)
_inline(r, i, direction, rule, dep_field) := _with_reach({
	"resource": r,
	"position": i,
	"direction": direction,
	"protocol": lower(sprintf("%v", [object.get(rule, "protocol", "-1")])),
	"from": _port(object.get(rule, "fromPort", 0), 0),
	"to": _port(object.get(rule, "toPort", 65535), 65535),
	"cidrs": array.concat(_cidr_list(object.get(rule, "cidrBlocks", [])), _cidr_list(object.get(rule, "ipv6CidrBlocks", []))),
	"group": "security group",
}, dep_field, resources.elements(object.get(rule, "prefixListIds", [])))

# a rule's CIDR list; one hidden as a whole (unknown until apply, or secret) may hold anything: one
# hidden CIDR
_cidr_list(v) := v if is_array(v) else := [v] if resources.hidden(v) else := []


# ---------------------------------------------------------------- prefix lists
# A rule whose source (or destination) is a managed prefix list reaches the list's entries: those
# of a prefix list of the document (its entries, and the ManagedPrefixListEntry resources added to
# it) join the rule's CIDRs, so a list holding 0.0.0.0/0 is judged as that CIDR. A list the document
# does not hold (an id only: another stack's, made by hand, AWS's own), one whose entries are
# unknown until apply, or an id unknown until apply with no recorded dependency: where the rule
# reaches cannot be established; so is a CIDR unknown until apply. Such a rule carries them in
# `unknown_reach`; the rules that judge reach to the internet report it as one whose reach cannot
# be established (`reach`).
_prefix_list_types := ["aws:ec2/managedPrefixList:ManagedPrefixList", "aws-native:ec2:PrefixList"]

_prefix_list_entry := "aws:ec2/managedPrefixListEntry:ManagedPrefixListEntry"

_with_reach(rule, dep_field, ids) := object.union(rule, {"unknown_reach": [], "reach": "the internet"}) if {
	count(ids) == 0 # almost every rule: no prefix list
	not _hides_cidr(rule)
} else := object.union(rule, {
	"cidrs": array.concat(rule.cidrs, [c | some pl in lists; some c in _entries(pl)]),
	"unknown_reach": unknown,
	"reach": _reach(unknown),
}) if {
	named := {id: _prefix_lists_named(rule.resource, dep_field, id) | some id in ids}
	lists := {pl | some pls in named; some pl in pls}
	unknown := sort({_unheld(id) | some id, pls in named; count(pls) == 0} | {sprintf("%s (entries unknown until apply)", [pl.name]) |
		some pl in lists
		not _entries_known(pl)
	} | {_hidden_cidr[c] | some c in rule.cidrs; resources.hidden(c)})
}

# a CIDR the document does not show (a preview's placeholder: unknown until apply, or a secret):
# where it reaches cannot be established; it is judged as the internet would be
_hidden_cidr := {
	"[unknown]": "a CIDR unknown until apply",
	"[secret]": "a CIDR the document does not show (secret)",
}

_hides_cidr(rule) if {
	some c in rule.cidrs
	resources.hidden(c)
}

_prefix_lists_named(r, dep_field, id) := {pl |
	some pl in resources.of_types(input.document, _prefix_list_types)
	_names_list(r, dep_field, id, pl)
}

_names_list(_, _, id, pl) if routing.names(id, pl)

_names_list(_, _, id, pl) if {
	is_string(id)
	id == object.get(pl.inputs, "name", null) # a name is not an id, but a hand-written document may use it
}

# an id unknown until apply: the lists its input's property dependencies name
_names_list(r, dep_field, id, pl) if {
	resources.hidden(id)
	pl.urn in object.get(r, ["property_dependencies", dep_field], [])
}

_entries(pl) := array.concat(
	[c | some e in resources.elements(object.get(pl.inputs, "entries", [])); c := object.get(e, "cidr", null); is_string(c)],
	[c |
		some e in resources.of_type(input.document, _prefix_list_entry)
		routing.refers(e, "prefixListId", pl)
		c := object.get(e.inputs, "cidr", null)
		is_string(c)
	],
)

_entries_known(pl) if {
	entries := object.get(pl.inputs, "entries", [])
	is_array(entries)
	every e in entries {
		is_object(e)
		is_string(object.get(e, "cidr", null))
		resources.shown(object.get(e, "cidr", null))
	}
}

_unheld(id) := "[unknown] (an id unknown until apply)" if {
	id == "[unknown]"
} else := "[secret] (an id the document does not show: secret)" if {
	id == "[secret]"
} else := sprintf("%v (not in the document)", [id])

_is_hidden_cidr(u) if {
	some m in _hidden_cidr
	u == m
}

_reach(unknown) := "the internet" if {
	count(unknown) == 0
} else := sprintf("%s, whose reach cannot be established", [concat(" and ", array.concat(
	[sprintf("prefix list %s", [concat(", ", lists)]) | lists := [u | some u in unknown; not _is_hidden_cidr(u)]; count(lists) > 0],
	[u | some u in unknown; _is_hidden_cidr(u)],
))])

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

# a group's inline rules; a list or rule the document does not show (secret, unknown until apply)
# stands for a rule of that protocol and CIDR: every protocol and port, from a CIDR it does not show
_inline_rules(v) := [_hidden_rule(v)] if resources.hidden(v) else := [_hidden_rule(x) | some x in resources.elements(v)]

_hidden_rule(x) := {"protocol": x, "cidrBlocks": x} if resources.hidden(x) else := x

# every rule of the document, built once per evaluation; `position` is the resource's position
_rules := array.concat(_document_rules, _given_rules)

_document_rules := array.concat(
	array.concat(
		[x |
			some t in inline_rule_types
			some i in resources.indices(t)
			r := input.document.resources[i]
			some direction in ["ingress", "egress"]
			some rule in _inline_rules(object.get(r.inputs, direction, []))
			x := _inline(r, i, direction, rule, direction)
		],
		[x |
			some i in resources.indices("aws:ec2/securityGroupRule:SecurityGroupRule")
			r := input.document.resources[i]
			x := _inline(r, i, _rule_type(r.inputs.type), r.inputs, "prefixListIds")
		],
	),
	[x |
		some t in ["aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule", "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule"]
		some i in resources.indices(t)
		r := input.document.resources[i]
		x := _with_reach({
			"resource": r,
			"position": i,
			"direction": _direction(r.type),
			"protocol": lower(sprintf("%v", [object.get(r.inputs, "ipProtocol", "-1")])),
			"from": _port(object.get(r.inputs, "fromPort", 0), 0),
			"to": _port(object.get(r.inputs, "toPort", 65535), 65535),
			"cidrs": _cidr(r.inputs),
			"group": "security group",
		}, "prefixListId", [id | id := object.get(r.inputs, "prefixListId", null); id != null])
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
	x := _with_reach({
		"resource": r,
		"position": i,
		"direction": direction,
		"protocol": lower(rule.protocol),
		"from": rule.from_port,
		"to": rule.to_port,
		"cidrs": rule.cidrs,
		"group": sprintf("its security group %s (%s, read from EC2)", [id, sg.name]),
		"given": id,
	}, "", resources.elements(object.get(rule, "prefix_lists", [])))
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
} | {id |
	# a spot fleet request's launch specifications
	some spec in compute.launch_specifications(r)
	some id in resources.elements(object.get(spec, "vpcSecurityGroupIds", []))
	is_string(id)
}


# the ingress rules, the egress rules, and those of each open to the internet
ingress_rules(_) := _ingress

egress_rules(_) := _egress

world_ingress_rules(_) := _world_ingress

world_egress_rules(_) := _world_egress

# (with the rules whose reach cannot be established: a prefix list the document does not hold, a
# CIDR unknown until apply)
_world_ingress := array.concat([rule | some rule in _ingress; _may_reach_world(rule)], [rule | some rule in _combined; rule.direction == "ingress"])

_world_egress := array.concat([rule | some rule in _egress; _may_reach_world(rule)], [rule | some rule in _combined; rule.direction == "egress"])

_may_reach_world(rule) if open_to_world(rule)

# where a rule of world_ingress_rules or world_egress_rules reaches, for a message: the internet,
# or the prefix lists and CIDRs whose reach cannot be established
reach(rule) := "the internet" if open_to_world(rule) else := rule.reach

# "security group admits the internet on tcp ports 22-22", or, for a rule whose reach cannot be
# established, "security group admits tcp ports 22-22 from prefix list ..., whose reach ..."
# (a rule whose protocol is hidden admits every protocol and port: all_protocols)
admits(rule) := sprintf("%s admits the internet on every protocol and port (its protocol is %s)", [rule.group, resources.hidden_why(rule.protocol)]) if {
	resources.hidden(rule.protocol)
	open_to_world(rule)
} else := sprintf("%s admits every protocol and port (its protocol is %s) from %s", [rule.group, resources.hidden_why(rule.protocol), rule.reach]) if {
	resources.hidden(rule.protocol)
} else := sprintf("%s admits the internet on %s ports %v-%v", [rule.group, rule.protocol, rule.from, rule.to]) if {
	open_to_world(rule)
} else := sprintf("%s admits %s ports %v-%v from %s", [rule.group, rule.protocol, rule.from, rule.to, rule.reach])

_may_reach_world(rule) if {
	not open_to_world(rule)
	count(rule.unknown_reach) > 0
}

_ingress := [rule | some rule in _rules; rule.direction == "ingress"]

_egress := [rule | some rule in _rules; rule.direction == "egress"]

_direction(type) := "ingress" if endswith(type, "IngressRule")

_direction(type) := "egress" if endswith(type, "EgressRule")

# a SecurityGroupRule's type; one the document does not show (unknown until apply, or secret) may
# be ingress, so it is judged as ingress (fail closed)
_rule_type(type) := "ingress" if resources.hidden(type) else := type

# A rule admits the internet when its CIDRs do (0.0.0.0/0, ::/0, or ranges that only together
# cover every public address: lib.cidr). Rules of one security group and direction that cover the
# internet only together, on some protocol and port, are reported as combined rules (_combined).
open_to_world(rule) if _world_range(rule)

open_to_world(rule) if rule.combined

# Rules of one security group and direction whose ranges cover the internet only together
# (0.0.0.0/1 in one rule, 128.0.0.0/1 in another, or both in one): AWS admits what any rule admits,
# so a protocol and port is open to the internet when the ranges of the rules admitting it cover
# it. The ports of tcp and udp are split where some rule's range starts or ends (every port of a
# piece is admitted by the same rules); an icmp rule admits its type (fromPort; -1 every type);
# other protocols have no ports; a rule of every protocol admits them all. Each open piece, joined
# with the open pieces next to it, is reported on the rules of the group with a broad public range
# (at least /10 or /12: a cover of at most 1,000 ranges holds one, see _broad_keys) that admit it,
# as that rule narrowed to the open ports (`combined`); a rule open to the world alone is its own
# finding and takes no part. Narrow ranges filling gaps are not named: the broad ones are what
# opens the group.
_combined := [_narrowed(rule, seg) |
	some key in _covering_keys
	some seg in _open_runs[key]
	some rule in _keyed_rules[key]
	_blamed(rule)
	_opens(key, rule, seg)
	not _whole(key, rule, seg)
]

# the rule admits an open piece of the run
_opens(key, rule, seg) if {
	some piece in _open[key]
	piece[0] == seg[0]
	seg[1] <= piece[1]
	piece[2] <= seg[2]
	_admits(rule, [piece[0], piece[1]])
}

# a rule of every protocol is reported whole where the group is open on every protocol, not also
# per protocol and port
_whole(key, rule, seg) if {
	seg[0] != "-1"
	all_protocols(rule)
	["-1", 0, 0] in _open[key]
}

# the rule as it opens the run: on the run's ports within its own (tcp, udp), on the icmp type, or
# as it is (a protocol without ports, every protocol)
_narrowed(rule, seg) := object.union(rule, {"combined": true}) if {
	seg[0] == "-1"
} else := object.union(rule, {"protocol": seg[0], "from": max([seg[1], _low(rule)]), "to": min([seg[2], _high(rule)]), "combined": true}) if {
	seg[0] in {"tcp", "udp"}
} else := object.union(rule, {"protocol": seg[0], "from": seg[1], "to": _icmp_code(rule), "combined": true}) if {
	seg[0] in {"icmp", "icmpv6"}
} else := object.union(rule, {"protocol": seg[0], "combined": true})

_low(rule) := 0 if all_protocols(rule) else := max([rule.from, 0])

_high(rule) := 65535 if all_protocols(rule) else := rule.to if rule.from >= 0 else := 65535

_icmp_code(rule) := -1 if all_protocols(rule) else := rule.to

_blamed(rule) if {
	some c in rule.cidrs
	cidr.broad(c)
	cidr.public(c)
}

_world_range(rule) if {
	some c in rule.cidrs
	c in world # the usual case, settled without parsing
}

# the points to try in each group: [protocol, port] where a piece of ports starts (tcp, udp), an
# icmp type, a protocol without ports, and "-1" for a protocol no rule names (every-protocol rules)
_points[key] contains ["-1", 0] if some key in _covering_keys

_points[key] contains [p, port] if {
	some key in _covering_keys
	some rule in _keyed_rules[key]
	not all_protocols(rule)
	p := _same_protocol(rule.protocol)
	some port in _starts(p, rule)
}

_starts(p, rule) := starts if {
	p in {"tcp", "udp"}
	after := {e | e := rule.to + 1; e <= 65535}
	starts := after | {max([rule.from, 0])}
}

_starts(p, rule) := {rule.from} if p in {"icmp", "icmpv6"}

_starts(p, _) := {0} if not p in {"tcp", "udp", "icmp", "icmpv6"}

# rule x admits [protocol, port]
_admits(x, _) if all_protocols(x)

_admits(x, point) if {
	not all_protocols(x)
	_same_protocol(x.protocol) == point[0]
	_admits_port(point[0], x, point[1])
}

_admits_port(p, x, port) if {
	p in {"tcp", "udp"}
	x.from <= port
	port <= x.to
}

_admits_port(p, x, _) if {
	p in {"tcp", "udp"}
	x.from == -1
}

_admits_port(p, x, port) if {
	p in {"icmp", "icmpv6"}
	x.from in {-1, port}
}

_admits_port(p, _, _) if not p in {"tcp", "udp", "icmp", "icmpv6"}

# the points whose admitting rules cover the internet, each as [protocol, first port, last port]:
# the piece up to the next start of the protocol (tcp, udp), the point itself otherwise
_open[key] contains [point[0], point[1], _piece_end(key, point)] if {
	some key in _covering_keys
	some point in _points[key]
	cover := [x | some x in _keyed_rules[key]; _admits(x, point)]
	_mass_enough(cover) # a cheap necessary condition before the exact one
	cidr.internet([c | some x in cover; some c in x.cidrs])
}

_piece_end(key, point) := min(ends) if {
	point[0] in {"tcp", "udp"}
	later := {e | some q in _points[key]; q[0] == point[0]; q[1] > point[1]; e := q[1] - 1}
	ends := later | {65535}
} else := point[1]

# runs of open pieces next to each other: [protocol, first port, last port]
_open_runs[key] contains [seg[0], seg[1], _run_end(key, seg)] if {
	some key in _covering_keys
	some seg in _open[key]
	not _continues(key, seg)
}

_continues(key, seg) if {
	seg[0] in {"tcp", "udp"}
	some prev in _open[key]
	prev[0] == seg[0]
	prev[2] == seg[1] - 1
}

_run_end(key, seg) := min({e |
	some s in _open[key]
	s[0] == seg[0]
	s[1] >= seg[1]
	e := s[2]
	not _open_from(key, seg[0], e + 1)
}) if seg[0] in {"tcp", "udp"} else := seg[2]

_open_from(key, p, port) if {
	some s in _open[key]
	s[0] == p
	s[1] == port
}

# the IPv4 ranges' addresses add up to the 3.7 billion public ones (overlaps count twice: a
# necessary condition only); IPv6 ranges go to the exact check
_mass_enough(rules) if sum([bits.lsh(1, 32 - to_number(split(c, "/")[1])) |
	some x in rules
	some c in x.cidrs
	is_string(c)
	not contains(c, ":")
	net.cidr_is_valid(c)
]) >= 3000000000

_mass_enough(rules) if {
	some x in rules
	some c in x.cidrs
	is_string(c)
	contains(c, ":")
}

# one spelling per protocol: EC2 takes a name or its IANA number ("tcp" or "6"), and "-1" or "all"
# for every protocol
_same_protocol(p) := object.get(_protocol_names, p, p)

_protocol_names := {"6": "tcp", "17": "udp", "1": "icmp", "58": "icmpv6", "all": "-1"}

# The group a rule resource names: the URN of a group of the stack when its property dependencies
# or its value tie it to one (lib.routing), which is also the key of that group's inline rules;
# else the id it gives. Otherwise the resource itself: an inline rule's group, a given rule's
# carrier, or a rule whose group is unknown until apply (the preview's "[unknown]").
_group_ref(r) := t.urn if {
	is_string(r.inputs.securityGroupId)
	some type in inline_rule_types
	some i in resources.indices(type)
	t := input.document.resources[i]
	routing.refers(r, "securityGroupId", t)
} else := id if {
	id := r.inputs.securityGroupId
	is_string(id)
	resources.shown(id)
} else := r.urn

# a rule's group and direction
_group_key(rule) := [object.get(rule, "given", ""), _group_ref(rule.resource), rule.direction]

# The keys of the groups with a range of at least /10 (IPv4) or /12 (IPv6) that is not the whole
# world: ranges that cover the internet together include one so broad, since a security group
# holds at most 1,000 rules and 1,000 ranges of /11 are fewer than the ~3.7 billion public IPv4
# addresses (and of /13, than the 2^125 of 2000::/3). Almost every document has none.
_broad_keys := {_group_key(rule) |
	some rule in _rules
	not _world_range(rule)
	_blamed(rule)
}

# the groups whose ranges, whatever their ports, cover the internet together: only their ports can
# (one check per group before any per port; a group of 1,000 rules is otherwise slow to split)
_covering_keys := {key |
	some key in _broad_keys
	cidr.internet([c | some x in _keyed_rules[key]; some c in x.cidrs])
}

# the rules of each of those groups but those open to the world alone, each rule's key worked out once
_keyed_rules[key] := [rule | some [k, rule] in _keyed; k == key] if some key in _broad_keys

_keyed := [[_group_key(rule), rule] |
	count(_broad_keys) > 0
	some rule in _rules
	not _world_range(rule)
]

all_protocols(rule) if rule.protocol in {"-1", "all"}

# a protocol unknown until apply or secret may be "-1": every protocol and port (fail closed)
all_protocols(rule) if resources.hidden(rule.protocol)

# for a message about one port of a rule: " (its protocol is secret, so every port)", or ""
protocol_note(rule) := sprintf(" (its protocol is %s, so every port)", [resources.hidden_why(rule.protocol)]) if {
	resources.hidden(rule.protocol)
} else := ""

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

# Why each launch resource (position) gets a public IP from an Elastic IP, for a message: one on the
# instance itself ("an Elastic IP is attached to it"), or one on a network interface it carries
# (interface_eips).
elastic_ips[i] contains "an Elastic IP is attached to it" if {
	some i in resources.indices(compute.instance)
	elastic_ip(input.document.resources[i])
}

elastic_ips[i] contains why if some [i, why] in _interface_eip_hosts

# ---------------------------------------------------------------- Elastic IPs on network interfaces
# An Elastic IP on a network interface (an Eip's networkInterface, an EipAssociation's
# networkInterfaceId) gives whatever carries the interface a public IP. The interface is tied to
# the instance (launch template, spot request) that carries it: by the instance's own
# networkInterfaces (networkInterfaceId), by the interface's attachments (instance), or by a
# NetworkInterfaceAttachment; by value or by property dependency. An Elastic IP whose interface is
# the instance's own (its primaryNetworkInterfaceId: the property dependency names the instance) is
# on the instance; one whose interface is unknown until apply without a dependency record may be on
# any instance, as for an Eip's instance.

eni_type := "aws:ec2/networkInterface:NetworkInterface"

_eni_attachment_type := "aws:ec2/networkInterfaceAttachment:NetworkInterfaceAttachment"

_interface_fields := {"aws:ec2/eip:Eip": "networkInterface", "aws:ec2/eipAssociation:EipAssociation": "networkInterfaceId"}

# [position, field] of every Elastic IP of the document that names a network interface
_interface_eips := [[j, field] |
	some kind, field in _interface_fields
	some j in resources.indices(kind)
	not object.get(input.document.resources[j].inputs, field, null) in {null, ""}
]

# network interface position -> the launch resources (positions) that carry it (interfaces none
# carries left out)
_eni_hosts := {k: hosts |
	some k in resources.indices(eni_type)
	hosts := {i | some i in compute.indices; _carries(input.document.resources[i], input.document.resources[k])}
	count(hosts) > 0
}

# the launch resource names the interface in its networkInterfaces
_carries(r, n) if {
	some ni in resources.elements(object.get(r.inputs, "networkInterfaces", []))
	is_object(ni)
	routing.names(object.get(ni, "networkInterfaceId", null), n)
}

_carries(r, n) if n.urn in object.get(r, ["property_dependencies", "networkInterfaces"], [])

# the interface's attachments name the instance (or one unknown until apply, untied: any instance)
_carries(r, n) if {
	r.type == compute.instance
	some a in resources.elements(object.get(n.inputs, "attachments", []))
	is_object(a)
	routing.names(object.get(a, "instance", null), r)
}

_carries(r, n) if {
	r.type == compute.instance
	r.urn in object.get(n, ["property_dependencies", "attachments"], [])
}

_carries(r, n) if {
	r.type == compute.instance
	not n.property_dependencies.attachments
	some a in _attachment_list(object.get(n.inputs, "attachments", []))
	resources.hidden(_attached_instance(a))
}

_attachment_list(v) := [v] if resources.hidden(v) else := resources.elements(v)

# a NetworkInterfaceAttachment of the two
_carries(r, n) if {
	r.type == compute.instance
	some att in resources.of_type(input.document, _eni_attachment_type)
	_may_refer(att, "networkInterfaceId", n)
	_may_refer(att, "instanceId", r)
}

_attached_instance(a) := object.get(a, "instance", null) if is_object(a) else := a

_may_refer(r, field, t) if routing.refers(r, field, t)

_may_refer(r, field, _) if routing.unlinked_unknown(r, field)

# [launch resource position, why] for each Elastic IP on an interface it carries
_interface_eip_hosts contains [i, sprintf("Elastic IP %s is attached to its network interface %s", [e.name, n.name])] if {
	some [j, field] in _interface_eips
	e := input.document.resources[j]
	some k, hosts in _eni_hosts
	n := input.document.resources[k]
	routing.refers(e, field, n)
	some i in hosts
}

# an interface the document does not hold, named by the same id in the launch resource's
# networkInterfaces
_interface_eip_hosts contains [i, sprintf("Elastic IP %s is attached to its network interface %s", [e.name, id])] if {
	some [j, field] in _interface_eips
	e := input.document.resources[j]
	id := e.inputs[field]
	resources.settled(id)
	not _names_document_interface(e, field)
	some i in compute.indices
	some ni in resources.elements(object.get(input.document.resources[i].inputs, "networkInterfaces", []))
	is_object(ni)
	object.get(ni, "networkInterfaceId", null) == id
}

# the instance's own interface (its primaryNetworkInterfaceId): the dependency names the instance
_interface_eip_hosts contains [i, sprintf("Elastic IP %s is attached to its network interface", [e.name])] if {
	some [j, field] in _interface_eips
	e := input.document.resources[j]
	some i in resources.indices(compute.instance)
	input.document.resources[i].urn in object.get(e, ["property_dependencies", field], [])
}

_interface_eip_hosts contains [i, sprintf("Elastic IP %s names a network interface %s, which may be its own", [e.name, resources.hidden_why(e.inputs[field])])] if {
	some [j, field] in _interface_eips
	e := input.document.resources[j]
	routing.unlinked_unknown(e, field)
	some i in resources.indices(compute.instance)
}

_names_document_interface(e, field) if {
	some n in resources.of_type(input.document, eni_type)
	routing.refers(e, field, n)
}

# Elastic IPs on a network interface that no launch resource of the document carries (an
# interface of the document nothing attaches, or one the document does not hold): whatever it is
# attached to gets a public IP. Each as {position (the interface's, else the Elastic IP's), eip
# (the Elastic IP's position), message}.
loose_interface_eips contains {"position": k, "eip": j, "message": msg} if {
	some [j, field] in _interface_eips
	e := input.document.resources[j]
	some k in resources.indices(eni_type)
	routing.refers(e, field, input.document.resources[k])
	not _eni_hosts[k]
	msg := sprintf("network interface gets a public IP (Elastic IP %s is attached to it), and no instance of the stack is tied to it: whatever it is attached to is reachable from the internet", [e.name])
}

loose_interface_eips contains {"position": j, "eip": j, "message": msg} if {
	some [j, field] in _interface_eips
	e := input.document.resources[j]
	id := e.inputs[field]
	resources.settled(id)
	not _names_document_interface(e, field)
	not _carried_by_id(id)
	not _names_an_instance(e, field)
	msg := sprintf("Elastic IP is attached to network interface %v, which is not in the document and no instance of the stack carries: whatever it belongs to gets a public IP", [id])
}

# Why the interface of a loose Elastic IP (loose_interface_eips) serves personal data, for GDPR: the
# interface or the Elastic IP is tagged personal, or the interface sits in a subnet, or carries a
# security group, of personal-data compute (a launch resource or an autoscaling group)
loose_personal_reasons(p) := {why | some [j, why] in _loose_reasons; j == p.eip}

# [the Elastic IP's position, why], computed once (each Elastic IP names one interface)
_loose_reasons contains [p.eip, "it is tagged data-class personal"] if {
	some p in loose_interface_eips
	p.position != p.eip
	p.position in resources.personal_indices
}

_loose_reasons contains [p.eip, sprintf("Elastic IP %s is tagged data-class personal", [input.document.resources[p.eip].name])] if {
	some p in loose_interface_eips
	p.eip in resources.personal_indices
}

_loose_reasons contains [p.eip, sprintf("its subnet is where personal-data %s runs", [input.document.resources[i].name])] if {
	some p in loose_interface_eips
	p.position != p.eip
	n := input.document.resources[p.position]
	some i in _personal_launchers
	_same_subnet(n, input.document.resources[i])
}

_loose_reasons contains [p.eip, sprintf("its security group %v is one personal-data %s carries", [g, input.document.resources[i].name])] if {
	some p in loose_interface_eips
	p.position != p.eip
	n := input.document.resources[p.position]
	some i in _personal_launchers
	some g in _interface_groups(n) & _security_group_refs(input.document.resources[i])
}

_personal_launchers := (compute.indices | resources.indices("aws:autoscaling/group:Group")) & resources.personal_indices

# the interface's subnet is one the launcher places instances in: the same id, or the same subnet
# of the document
_same_subnet(n, r) if {
	id := n.inputs.subnetId
	resources.settled(id)
	id in routing.subnet_values(r)
}

_same_subnet(n, r) if {
	some s in routing.placed_in(r)
	routing.refers(n, "subnetId", input.document.resources[s])
}

_interface_groups(n) := {g | some g in resources.elements(object.get(n.inputs, "securityGroups", [])); resources.settled(g)}

_carried_by_id(id) if {
	some i in compute.indices
	some ni in resources.elements(object.get(input.document.resources[i].inputs, "networkInterfaces", []))
	is_object(ni)
	object.get(ni, "networkInterfaceId", null) == id
}

_names_an_instance(e, field) if {
	some i in resources.indices(compute.instance)
	input.document.resources[i].urn in object.get(e, ["property_dependencies", field], [])
}

# ---------------------------------------------------------------- Kubernetes LoadBalancer Services

_scheme_annotation := "service.beta.kubernetes.io/aws-load-balancer-scheme"

_internal_annotation := "service.beta.kubernetes.io/aws-load-balancer-internal"

# A Service annotated internal: by its aws-load-balancer-scheme annotation when it carries one, which
# the AWS Load Balancer Controller gives precedence over the deprecated aws-load-balancer-internal
# ("in case of ties, the aws-load-balancer-scheme gets precedence"), else by aws-load-balancer-internal
# "true". A scheme the document does not show (secret, unknown until apply) may be internet-facing.
internal_service(svc) if {
	object.get(svc.inputs, ["metadata", "annotations", _scheme_annotation], null) == "internal"
}

internal_service(svc) if {
	object.get(svc.inputs, ["metadata", "annotations", _scheme_annotation], null) == null
	object.get(svc.inputs, ["metadata", "annotations", _internal_annotation], "") == "true"
}

# A Service the AWS Load Balancer Controller serves (spec.loadBalancerClass service.k8s.aws/nlb, or
# the aws-load-balancer-type annotation external, nlb-ip) with no scheme annotation gets an internal
# NLB: the controller's default scheme is internal (since v2.2.0). The in-tree controller's default,
# for any other Service, is internet-facing.
internal_service(svc) if {
	object.get(svc.inputs, ["metadata", "annotations", _scheme_annotation], null) == null
	object.get(svc.inputs, ["metadata", "annotations", _internal_annotation], null) == null
	_controller_service(svc)
}

_controller_service(svc) if object.get(svc.inputs, ["spec", "loadBalancerClass"], null) == "service.k8s.aws/nlb"

_controller_service(svc) if {
	object.get(svc.inputs, ["metadata", "annotations", "service.beta.kubernetes.io/aws-load-balancer-type"], null) in {"external", "nlb-ip"}
}

# what a message says of a LoadBalancer Service that is not internal_service: it is (or may be)
# internet-facing, and why when an annotation says otherwise
service_exposure(svc) := sprintf("LoadBalancer Service may be internet-facing: its aws-load-balancer-scheme annotation is %s, and the scheme decides whatever aws-load-balancer-internal says", [resources.hidden_why(scheme)]) if {
	scheme := object.get(svc.inputs, ["metadata", "annotations", _scheme_annotation], null)
	resources.hidden(scheme)
} else := sprintf("LoadBalancer Service is internet-facing: aws-load-balancer-scheme %v takes precedence over aws-load-balancer-internal \"true\"", [scheme]) if {
	scheme := object.get(svc.inputs, ["metadata", "annotations", _scheme_annotation], null)
	scheme != null
	object.get(svc.inputs, ["metadata", "annotations", _internal_annotation], "") == "true"
} else := "Service patch sets type LoadBalancer and no internal aws-load-balancer-scheme annotation: the Service may be internet-facing" if {
	resources.is_patch(svc)
} else := "LoadBalancer Service is internet-facing"

# a LoadBalancer Service the cloud controller exposes to the internet: not annotated internal and
# not limited to source ranges that exclude the internet (the controller writes its security-group
# rules outside the document)
internet_load_balancer(svc) if {
	object.get(svc.inputs, ["spec", "type"], "ClusterIP") == "LoadBalancer"
	not internal_service(svc)
	not _source_restricted(svc)
}

_source_restricted(svc) if {
	ranges := object.get(svc.inputs, ["spec", "loadBalancerSourceRanges"], [])
	is_array(ranges)
	count(ranges) > 0
	not cidr.internet(ranges)
	not _hides_range(ranges) # a range the document does not show may be the internet
}

# the annotation form, which the in-tree and the AWS Load Balancer Controller read when the spec
# gives none: comma-separated CIDRs
_source_restricted(svc) if {
	count(object.get(svc.inputs, ["spec", "loadBalancerSourceRanges"], [])) == 0
	text := object.get(svc.inputs, ["metadata", "annotations", "service.beta.kubernetes.io/load-balancer-source-ranges"], null)
	is_string(text)
	not resources.hidden(text)
	ranges := [trim_space(c) | some c in split(text, ","); trim_space(c) != ""]
	count(ranges) > 0
	not cidr.internet(ranges)
}

_hides_range(ranges) if {
	some c in ranges
	resources.hidden(c)
}

internet_services(document) := [svc |
	some svc in services(document)
	internet_load_balancer(svc)
]

# Kubernetes Services and server-side patches of them (ServicePatch): a patch is judged by what it
# sets (its type, annotations and ports; what it leaves out it does not set)
service_types := {"kubernetes:core/v1:Service", "kubernetes:core/v1:ServicePatch"}

services(document) := resources.of_types(document, service_types)

# what a message calls a Service of internet_services
internet_service_noun(svc) := "Service patch setting type LoadBalancer (the Service may be internet-facing)" if {
	resources.is_patch(svc)
} else := "internet-facing LoadBalancer Service"

# the ports a Service listens on
service_ports(svc) := {p |
	some sp in resources.elements(object.get(svc.inputs, ["spec", "ports"], []))
	is_object(sp)
	p := object.get(sp, "port", null)
	is_number(p)
}

# why a Service's ports cannot all be read: its ports (or one of them) not shown
service_hidden_ports(svc) := {sprintf("its ports are %s", [resources.hidden_why(v)]) |
	ports := object.get(svc.inputs, ["spec", "ports"], [])
	some v in array.concat([object.get(svc.inputs, "spec", {}), ports], resources.elements(ports))
	resources.hidden(v)
} | {sprintf("a port of it is %s", [resources.hidden_why(p)]) |
	some sp in resources.elements(object.get(svc.inputs, ["spec", "ports"], []))
	is_object(sp)
	p := object.get(sp, "port", null)
	resources.hidden(p)
}

# ---------------------------------------------------------------- Kubernetes NetworkPolicies
# (semantics from the Kubernetes API reference, networking.k8s.io/v1 NetworkPolicySpec,
# NetworkPolicyIngressRule / NetworkPolicyEgressRule, NetworkPolicyPeer and NetworkPolicyPort)

# The NetworkPolicy types of the document, in every API form the Pulumi provider has
# (networking.k8s.io/v1 and the deprecated extensions/v1beta1; whole objects and server-side
# patches, NetworkPolicyPatch): type -> kind. Calico's and other CRDs named NetworkPolicy live in
# other groups and read differently.
_np_types := {t: kind |
	some t in resources.k8s_types(input.document)
	parts := split(t, ":")
	count(parts) == 3
	split(parts[1], "/")[0] in {"networking.k8s.io", "extensions"}
	kind := parts[2]
	kind in {"NetworkPolicy", "NetworkPolicyPatch"}
}

# whole NetworkPolicy objects (what the document creates)
network_policies(_) := [input.document.resources[i] | some t, kind in _np_types; kind == "NetworkPolicy"; some i in resources.indices(t)]

# server-side patches of NetworkPolicies that live outside the document: the fields they set
# replace the live policy's, the others stay as they are, which the document does not show
network_policy_patches(_) := [input.document.resources[i] | some t, kind in _np_types; kind == "NetworkPolicyPatch"; some i in resources.indices(t)]

namespaces(document) := resources.of_type(document, "kubernetes:core/v1:Namespace")

# The directions a NetworkPolicy governs. policyTypes when given; else the API server's default:
# Ingress always, Egress when the policy has egress rules. A patch that sets no policyTypes (or
# types unknown until apply) leaves the live policy's, which may be both.
_types(np) := {t | some t in types} if {
	types := _policy_types(np)
	is_array(types)
	count(types) > 0
} else := {"Ingress", "Egress"} if {
	_np_types[np.type] == "NetworkPolicyPatch"
} else := {"Ingress", "Egress"} if {
	not _settled_types(np)
} else := {"Ingress", "Egress"} if {
	_some_rules(object.get(np.inputs, ["spec", "egress"], []))
} else := {"Ingress"}

_policy_types(np) := object.get(np.inputs, ["spec", "policyTypes"], null)

# policyTypes given as a list, or left to the API server (missing or null)
_settled_types(np) if is_array(_policy_types(np))

_settled_types(np) if _policy_types(np) == null

_some_rules(rules) if {
	is_array(rules)
	count(rules) > 0
}

# rules unknown until apply (the preview's "[unknown]") may be any
_some_rules(rules) if {
	rules != null
	not is_array(rules)
}

# a label selector that selects everything in its scope: present and empty (no matchLabels, no
# matchExpressions)
_selects_all(selector) if {
	is_object(selector)
	count(object.get(selector, "matchLabels", {})) == 0
	count(object.get(selector, "matchExpressions", [])) == 0
}

# a namespace selector that every namespace matches: empty, or asking only that the label every
# namespace carries (kubernetes.io/metadata.name, set by the API server) exists
_selects_all_namespaces(selector) if _selects_all(selector)

_selects_all_namespaces(selector) if {
	is_object(selector)
	count(object.get(selector, "matchLabels", {})) == 0
	expressions := object.get(selector, "matchExpressions", [])
	is_array(expressions)
	every e in expressions {
		_every_namespace_requirement(e)
	}
}

# a requirement every namespace meets (its name label exists), or one that only rules some out
# (DoesNotExist, NotIn): which namespaces carry those labels the document cannot show, so it counts
# as selecting them all (fail closed)
_every_namespace_requirement(e) if {
	is_object(e)
	e.key == "kubernetes.io/metadata.name"
	e.operator == "Exists"
}

_every_namespace_requirement(e) if {
	is_object(e)
	e.operator in {"DoesNotExist", "NotIn"}
}

# namespace -> directions (Ingress, Egress) closed by a default-deny NetworkPolicy: one selecting
# every pod (empty podSelector) that governs the direction and has no allow rules for it (policy
# types unknown until apply may not govern it)
_denied[ns] contains direction if {
	some np in network_policies(input.document)
	spec := object.get(np.inputs, "spec", {})
	selector := object.get(spec, "podSelector", {}) # every pod (as _selects_all, inline: cheaper)
	is_object(selector)
	count(object.get(selector, "matchLabels", {})) == 0
	count(object.get(selector, "matchExpressions", [])) == 0
	some direction in _deny_types(object.get(spec, "policyTypes", null))
	object.get(spec, _rule_fields[direction], []) in {null, []}
	ns := resources.namespace(np)
}

# The directions a whole policy governs, for a default deny: its policyTypes when given; else
# (missing, null or empty: the API server's default) Ingress, and Egress only with egress rules,
# which a deny of egress has none of; policy types unknown until apply: none that can be relied on
_deny_types(types) := {t | some t in types} if {
	is_array(types)
	count(types) > 0
} else := {"Ingress"} if {
	types in {null, []}
} else := set()

has_default_deny(_, ns_name, direction) if direction in object.get(_denied, ns_name, set())

# NetworkPolicies add up: a pod that some policy selects admits, in a direction that policy
# governs, the union of every selecting policy's rules for it. So a rule that admits every peer
# on every port voids a namespace's default deny for the pods its policy selects, whatever other
# policy denies. open_rules holds each such rule, once per policy, direction and reason:
# {position, direction (Ingress or Egress), namespace, message}.
#
# Every peer: a rule whose from (ingress) or to (egress) is missing or empty matches all
# sources or destinations; a peer namespaceSelector {} with no podSelector, or an empty one,
# selects every pod of every namespace; an ipBlock whose CIDR is /0 (0.0.0.0/0, ::/0) is every
# address of its family, whatever its except list carves out (the rest of the internet stays
# admitted), and so are the ipBlocks of one rule that together cover the internet (lib.cidr). A
# podSelector alone selects pods of the policy's own namespace only: not counted.
# Every port: a rule whose ports are missing or empty matches all ports, and so does a port
# entry without a port (every port of its protocol) or one from port 1 with endPort 65535. A
# rule that names its ports is a specific allow rule, the kind a default deny is there to be
# opened by (as 443 on an internet load balancer is for security groups): the other ports stay
# denied. A peer or ports unknown until apply (the preview's "[unknown]") may be everyone or
# every port: such a rule is reported as one whose effect cannot be established (fail closed).
open_rules contains {
	"position": i,
	"direction": direction,
	"namespace": ns,
	"message": _open_message(direction, who[0], _pods(np, ns), ports[0], {who[1], ports[1]} == {true}),
} if {
	some t, _ in _np_types
	some i in resources.indices(t)
	np := input.document.resources[i]
	some direction, field in _rule_fields
	rules := object.get(np.inputs, ["spec", field], [])
	not rules in {null, []} # no rules for the direction: nothing to open (most policies; cheap)
	some rule in _rule_list(rules)
	not _specific_ports(rule) # the usual allow rule, which names its ports (cheap)
	direction in _types(np)
	ports := _every_port(rule)
	some who in _every_peer(rule, _peer_field[direction])
	ns := resources.namespace(np)
}

_rule_fields := {"Ingress": "ingress", "Egress": "egress"}

# a rule whose every port entry names a port (by number or name) without an endPort: it admits
# those ports only (_every_port finds no open port in it; this test is the same for the common
# case at a fraction of the cost: regorus calls are dear, and open_rules reads every policy)
_specific_ports(rule) if {
	ports := rule.ports
	is_array(ports)
	count(ports) > 0
	count([p | some p in ports; object.get(p, "port", null) != null; object.get(p, "endPort", null) == null]) == count(ports)
}

# a rule list unknown until apply stands for one rule that may admit anything
_rule_list(rules) := rules if is_array(rules)

_rule_list(rules) := [rules] if {
	rules != null
	not is_array(rules)
}

# Network policies of other engines: Cilium (CiliumNetworkPolicy, CiliumClusterwideNetworkPolicy),
# Calico (its NetworkPolicy and GlobalNetworkPolicy, staged forms included), the
# AdminNetworkPolicy API, Antrea and the like add allow rules, with semantics of their own, to what
# Kubernetes NetworkPolicies admit. The gate does not read them, so an object of one with rules for
# a direction (in its spec, or Cilium's list of specs; or a spec unknown until apply) may void a
# default deny there: reported as one whose effect cannot be established (fail closed). Deny-only
# objects (Cilium's ingressDeny / egressDeny, rules whose action denies, drops, rejects, logs or
# passes) and Calico's staged policies (which enforce nothing) are not reported.
# Type -> [kind, API group and version]: a Kubernetes kind ending in NetworkPolicy outside
# networking.k8s.io and extensions.
_other_np_types := {t: [kind, parts[1]] |
	some t in resources.k8s_types(input.document)
	parts := split(t, ":")
	count(parts) == 3
	not split(parts[1], "/")[0] in {"networking.k8s.io", "extensions"}
	kind := resources.kind(t)
	endswith(kind, "NetworkPolicy")
	not startswith(kind, "Staged") # Calico's staged policies report what they would do, enforce nothing
}

open_rules contains {
	"position": i,
	"direction": direction,
	"namespace": ns,
	"message": sprintf("%s (%s) is a network policy of another engine, which the gate does not read: whether it %s cannot be established", [k[0], k[1], _voids[direction]]),
} if {
	some t, k in _other_np_types
	some i in resources.indices(t)
	obj := input.document.resources[i]
	some direction, field in _rule_fields
	_may_allow(object.get(obj, "inputs", {}), field)
	some ns in _other_np_namespaces(obj, k[0])
}

_voids := {
	"Ingress": "admits traffic that voids a default-deny ingress",
	"Egress": "lets pods reach destinations that void a default-deny egress",
}

_may_allow(inputs, field) if {
	some spec in _other_np_specs(inputs)
	is_object(spec)
	some rule in _rule_list(object.get(spec, field, []))
	not _denying(rule)
}

_may_allow(inputs, _) if {
	some spec in _other_np_specs(inputs)
	not is_object(spec)
}

# a rule that denies, drops, rejects, logs or passes the decision on (Calico's, Antrea's and
# AdminNetworkPolicy's action field; Cilium's rules have none, and allow)
_denying(rule) if {
	is_object(rule)
	action := object.get(rule, "action", "Allow")
	is_string(action)
	lower(action) in {"deny", "drop", "reject", "log", "pass"}
}

# spec, and Cilium's specs (a list), without the ones left out; inputs unknown until apply: one
# unknown spec
_other_np_specs(inputs) := [s |
	some s in array.concat([object.get(inputs, "spec", null)], resources.as_list(object.get(inputs, "specs", null)))
	s != null
] if {
	is_object(inputs)
} else := [inputs]

# a namespaced object counts for its own namespace; a cluster-wide one (Cilium's Clusterwide,
# Calico's Global, AdminNetworkPolicy, Antrea's ClusterNetworkPolicy) for every namespace of the
# document as well
_other_np_namespaces(obj, kind) := {resources.name_of(ns) | some ns in namespaces(input.document)} | {resources.namespace(obj)} if {
	_cluster_wide(kind)
} else := {resources.namespace(obj)}

_cluster_wide(kind) if contains(kind, "Clusterwide")

_cluster_wide(kind) if contains(kind, "Global")

_cluster_wide(kind) if endswith(kind, "AdminNetworkPolicy")

_cluster_wide(kind) if startswith(kind, "Cluster")

_peer_field := {"Ingress": "from", "Egress": "to"}

_direction_of := {"from": "Ingress", "to": "Egress"}

_everyone := {"from": "every source", "to": "every destination"}

_unknown_peers := {"from": "sources", "to": "destinations"}

# certain: every peer and every port are admitted; else some value is unknown until apply
_open_message(direction, who, pods, ports, certain) := sprintf("NetworkPolicy admits %s to %s %s, which voids a default-deny ingress there", [who, pods, ports]) if {
	direction == "Ingress"
	certain
} else := sprintf("NetworkPolicy lets %s reach %s %s, which voids a default-deny egress there", [pods, who, ports]) if {
	certain
} else := sprintf("NetworkPolicy admits %s to %s %s: whether it voids a default-deny ingress there cannot be established", [who, pods, ports]) if {
	direction == "Ingress"
} else := sprintf("NetworkPolicy lets %s reach %s %s: whether it voids a default-deny egress there cannot be established", [pods, who, ports])

# the pods a policy selects, for a message
_pods(np, ns) := sprintf("every pod of namespace %s", [ns]) if {
	_selects_all(object.get(np.inputs, ["spec", "podSelector"], _unset_selector[np.type]))
} else := sprintf("the pods it selects in namespace %s", [ns])

# a podSelector a policy leaves out: empty (every pod) for a whole policy; the live policy's,
# unknown, for a patch
_unset_selector[t] := {} if {
	some t, kind in _np_types
	kind == "NetworkPolicy"
}

_unset_selector[t] := null if {
	some t, kind in _np_types
	kind == "NetworkPolicyPatch"
}

# [description, known] of each peer of a rule that stands for everyone (known false: a value unknown
# until apply, which may)
_every_peer(rule, field) := {[sprintf("%s (an %s rule without %s)", [_everyone[field], lower(_direction_of[field]), field]), true]} if {
	is_object(rule)
	object.get(rule, field, null) in {null, []}
} else := {[sprintf("%s %s (%s rule %v)", [_unknown_peers[field], _why(rule), lower(_direction_of[field]), rule]), false]} if {
	not is_object(rule)
} else := {[sprintf("%s %s (%s %v)", [_unknown_peers[field], _why(peers), field, peers]), false]} if {
	peers := rule[field]
	not is_array(peers)
} else := {who | some peer in rule[field]; who := _open_peer(peer)} | _covering_blocks(rule[field])

# the ipBlocks of a rule's peers that only together cover the internet (lib.cidr), as one peer
_covering_blocks(peers) := {[sprintf("the internet (ipBlocks %s)", [concat(", ", cidrs)]), true]} if {
	cidrs := [c |
		some peer in peers
		is_object(peer) # a peer unknown until apply is reported as one
		c := object.get(peer, ["ipBlock", "cidr"], null)
		is_string(c)
		not endswith(c, "/0") # reported as it is
	]
	count(cidrs) > 1
	cidr.internet(cidrs)
} else := set()

# why a value is not shown, for a message: "secret", else "unknown until apply"
_why(v) := resources.hidden_why(v) if resources.hidden(v) else := "unknown until apply"

_open_peer(peer) := [sprintf("a peer %s (%v)", [_why(peer), peer]), false] if {
	not is_object(peer)
} else := [sprintf("the internet (ipBlock %s)", [cidr]), true] if {
	cidr := object.get(peer, ["ipBlock", "cidr"], null)
	is_string(cidr)
	endswith(cidr, "/0")
} else := [sprintf("addresses %s (ipBlock cidr %v)", [_why(cidr), cidr]), false] if {
	"ipBlock" in object.keys(peer)
	cidr := object.get(peer, ["ipBlock", "cidr"], null)
	not _cidr_text(cidr)
} else := ["every pod of every namespace (namespaceSelector {})", true] if {
	_selects_all_namespaces(object.get(peer, "namespaceSelector", null))
	_selects_all(object.get(peer, "podSelector", {}))
} else := [sprintf("pods of namespaces it does not show (%s)", [concat(", ", hidden)]), false] if {
	# a namespaceSelector or podSelector the document does not show may select every pod
	selectors := {"namespaceSelector": object.get(peer, "namespaceSelector", null), "podSelector": object.get(peer, "podSelector", {})}
	selectors.namespaceSelector != null
	every s in selectors {
		_all_or_hidden(s)
	}
	hidden := sort([sprintf("%s %s", [k, resources.hidden_why(s)]) | some k, s in selectors; resources.hidden(s)])
	count(hidden) > 0
}

_all_or_hidden(selector) if _selects_all(selector)

_all_or_hidden(selector) if resources.hidden(selector)

_cidr_text(cidr) if {
	is_string(cidr)
	contains(cidr, "/")
}

# [phrase, known] when a rule admits every port (known false: ports unknown until apply, which may
# be all); undefined when it names ports
_every_port(rule) := ["on every port", true] if {
	is_object(rule)
	object.get(rule, "ports", null) in {null, []}
} else := ["on every port", true] if {
	is_object(rule)
	ports := object.get(rule, "ports", null)
	is_array(ports)
	some p in ports
	_all_port_entry(p)
} else := ["on every port (port ranges that together span them all)", true] if {
	is_object(rule)
	ports := object.get(rule, "ports", null)
	is_array(ports)
	count(ports) > 1
	some protocol in {_np_protocol(p) | some p in ports; is_object(p)}
	_span_every_port([r | some p in ports; is_object(p); _np_protocol(p) == protocol; r := _port_span(p)])
} else := [sprintf("on ports %s (%v)", [_why(rule), rule]), false] if {
	not is_object(rule)
} else := [sprintf("on ports %s (ports %v)", [_why(ports), ports]), false] if {
	ports := object.get(rule, "ports", null)
	ports != null
	not is_array(ports)
} else := [sprintf("on ports %s (ports %v)", [concat(", ", whys), rule.ports]), false] if {
	whys := sort({_why(p) | some p in rule.ports; not is_object(p)})
	count(whys) > 0
} else := [sprintf("on ports %s (ports %v)", [concat(", ", whys), rule.ports]), false] if {
	# a port entry from port 1 (or 0, or none) whose endPort is not shown may span every port
	whys := sort({resources.hidden_why(v) |
		some p in rule.ports
		v := object.get(p, "endPort", null)
		resources.hidden(v)
		_from_first_port(object.get(p, "port", null))
	})
	count(whys) > 0
}

# a port entry's protocol (TCP when it names none) and numeric span [port, endPort or port]
_np_protocol(p) := upper(sprintf("%v", [object.get(p, "protocol", "TCP")]))

_port_span(p) := [p.port, object.get(p, "endPort", p.port)] if {
	is_number(p.port)
	is_number(object.get(p, "endPort", p.port))
}

# spans that together hold every port from 1 to 65535: 1 is in one, and so is the port after each
# span's end (a gap would start at one of those)
_span_every_port(spans) if {
	count(spans) > 1
	_in_a_span(1, spans)
	every s in spans {
		_past_last_port_or_spanned(s[1] + 1, spans)
	}
}

_past_last_port_or_spanned(port, _) if port > 65535

_past_last_port_or_spanned(port, spans) if _in_a_span(port, spans)

_in_a_span(port, spans) if {
	some s in spans
	s[0] <= port
	port <= s[1]
}

_from_first_port(port) if port == null

_from_first_port(port) if resources.number(port) <= 1

_from_first_port(port) if resources.hidden(port)

# a port entry without a port matches every port of its protocol; one from port 1 (or 0) to
# endPort 65535 spans them all
_all_port_entry(p) if {
	is_object(p)
	object.get(p, "port", null) == null
}

_all_port_entry(p) if {
	is_object(p)
	resources.number(p.port) <= 1
	resources.number(object.get(p, "endPort", null)) >= 65535
}
