# METADATA
# title: Subnet routing helpers
# description: >-
#   Which route tables a subnet of the document is associated with, and which of their routes
#   lead to an internet gateway, for the subnets, route tables, routes, associations and internet
#   gateways the stack declares; and how an input refers to another resource of the document
#   (refers, also used for flow logs and their VPCs).
# scope: package
package lib.routing

import data.lib.resources

subnet_type := "aws:ec2/subnet:Subnet"

route_table_type := "aws:ec2/routeTable:RouteTable"

route_type := "aws:ec2/route:Route"

association_type := "aws:ec2/routeTableAssociation:RouteTableAssociation"

gateway_type := "aws:ec2/internetGateway:InternetGateway"

_unknown := "[unknown]"

# A reference in an input (field) of resource r names target t when the input's property
# dependencies list t's URN, or when the value names t (see names).
refers(r, field, t) if t.urn in object.get(r, ["property_dependencies", field], [])

refers(r, field, t) if names(r.inputs[field], t)

# a value names resource t: t's recorded id (a preview of a deployed stack, an export, synthesis),
# t's URN, or the id the mock runtime gives t (its logical name, a dash and 8 hex digits)
names(value, t) if {
	is_string(value)
	value != ""
	value in {object.get(t, "id", null), t.urn}
}

names(value, t) if {
	is_string(value)
	startswith(value, concat("", [t.name, "-"]))
	regex.match(`^[0-9a-f]{8}$`, substring(value, count(t.name) + 1, -1))
}

# a reference whose value is unknown until apply and whose property dependencies are not recorded
# (a hand-written document): it may name any resource of the stack
unlinked_unknown(r, field) if {
	r.inputs[field] == _unknown
	not r.property_dependencies[field]
}

_may_name(r, field, t) if refers(r, field, t)

_may_name(r, field, _) if unlinked_unknown(r, field)

# subnet position -> positions of the route tables it is (or, with a subnet id the document cannot
# tie to a subnet, may be) associated with
_tables_of_subnet[s] contains t if {
	some a in resources.indices(association_type)
	assoc := input.document.resources[a]
	some s in resources.indices(subnet_type)
	_may_name(assoc, "subnetId", input.document.resources[s])
	some t in resources.indices(route_table_type)
	refers(assoc, "routeTableId", input.document.resources[t])
}

# the route tables of a subnet (positions; empty when no association of the document names it:
# then the VPC's main route table routes it, which the document does not hold)
tables_of(s) := object.get(_tables_of_subnet, s, set())

# the associations that may give a subnet a route table the document cannot tie to its resources
# (a route table id unknown until apply, without property dependencies)
uncertain_associations(s) := {input.document.resources[a] |
	some a in resources.indices(association_type)
	assoc := input.document.resources[a]
	_may_name(assoc, "subnetId", input.document.resources[s])
	unlinked_unknown(assoc, "routeTableId")
}

# The routes of a route table (position) as {destination, gateway, source}: its inline routes and
# the standalone routes whose routeTableId names it
routes_of(t) := _inline_routes(t) | _standalone_routes(t)

_inline_routes(t) := {{"destination": _destination(route), "gateway": route.gatewayId, "source": table, "inline": route} |
	table := input.document.resources[t]
	some route in _as_list(object.get(table.inputs, "routes", []))
	is_object(route)
	route.gatewayId != null
}

_standalone_routes(t) := {{"destination": _destination(route.inputs), "gateway": route.inputs.gatewayId, "source": route, "inline": null} |
	table := input.document.resources[t]
	some i in resources.indices(route_type)
	route := input.document.resources[i]
	refers(route, "routeTableId", table)
	route.inputs.gatewayId != null
}

_destination(route) := object.get(route, "cidrBlock", object.get(route, "destinationCidrBlock", object.get(route, "ipv6CidrBlock", object.get(route, "destinationIpv6CidrBlock", "?"))))

# a route table whose inline routes are not a list (a preview's "[unknown]"): they cannot be checked
unknown_routes(t) if {
	routes := object.get(input.document.resources[t].inputs, "routes", [])
	not is_array(routes)
	not is_set(routes)
}

# a route's gateway is an internet gateway: an igw- id, or an internet gateway of the document
to_internet_gateway(route) if {
	is_string(route.gateway)
	startswith(route.gateway, "igw-")
}

to_internet_gateway(route) if {
	route.inline == null
	some g in resources.indices(gateway_type)
	refers(route.source, "gatewayId", input.document.resources[g])
}

to_internet_gateway(route) if {
	route.inline != null
	some g in resources.indices(gateway_type)
	names(route.gateway, input.document.resources[g])
}

# a gateway unknown until apply that the document does not tie to a resource may be an internet
# gateway (inline routes carry no property dependencies of their own: the table's do, for all of
# its routes at once, so an unknown inline gateway with an internet gateway among the table's
# dependencies may be one)
gateway_undetermined(route) if {
	route.gateway == _unknown
	route.inline == null
	not route.source.property_dependencies.gatewayId
}

gateway_undetermined(route) if {
	route.gateway == _unknown
	route.inline != null
	not _table_depends_on_other_gateways(route.source)
}

# the table's property dependencies for its routes name only resources that are not internet gateways
_table_depends_on_other_gateways(table) if {
	deps := table.property_dependencies.routes
	every urn in deps {
		not urn in _gateway_urns
	}
}

_gateway_urns := {input.document.resources[g].urn | some g in resources.indices(gateway_type)}

# Public subnets of the document, by position, with why: they map public IPs on launch, or a route
# table of theirs routes to an internet gateway.
public_subnets[s] contains "it maps public IPs on launch" if {
	some s in resources.indices(subnet_type)
	resources.truthy(object.get(input.document.resources[s].inputs, "mapPublicIpOnLaunch", false))
}

public_subnets[s] contains sprintf("route table %s routes %v to an internet gateway", [input.document.resources[t].name, route.destination]) if {
	some s in resources.indices(subnet_type)
	some t in tables_of(s)
	some route in routes_of(t)
	to_internet_gateway(route)
}

public_subnets[s] contains sprintf("route table %s has routes unknown until apply: it may route to an internet gateway", [input.document.resources[t].name]) if {
	some s in resources.indices(subnet_type)
	some t in tables_of(s)
	unknown_routes(t)
}

# Where a launch template, instance, spot request or autoscaling group places its network
# interfaces: the subnet positions of the document it names (subnetId, a network interface's
# subnetId, vpcZoneIdentifiers), by value or by property dependency.
placed_in(r) := {s |
	some s in resources.indices(subnet_type)
	subnet := input.document.resources[s]
	some field, value in _placement_refs(r)
	_placement_names(r, field, value, subnet)
}

_placement_refs(r) := {"subnetId": [object.get(r.inputs, "subnetId", null)], "vpcZoneIdentifiers": _as_list(object.get(r.inputs, "vpcZoneIdentifiers", [])), "networkInterfaces": [object.get(ni, "subnetId", null) | some ni in _as_list(object.get(r.inputs, "networkInterfaces", [])); is_object(ni)]}

_placement_names(r, field, _, subnet) if subnet.urn in object.get(r, ["property_dependencies", field], [])

_placement_names(_, _, values, subnet) if {
	some value in values
	names(value, subnet)
}

_as_list(v) := v if is_array(v)

_as_list(v) := [x | some x in v] if is_set(v)

_as_list(v) := [] if {
	not is_array(v)
	not is_set(v)
}
