# METADATA
# title: Subnet routing helpers
# description: >-
#   Which route tables route a subnet of the document (its associations, else its VPC's main route
#   table) and which of their routes lead to an internet gateway, for the VPCs, subnets, route
#   tables, routes, associations and internet gateways the stack declares, and why a subnet's
#   routes cannot all be checked; and how an input refers to another resource of the document
#   (refers, also used for flow logs and their VPCs).
# scope: package
package lib.routing

import data.lib.compute
import data.lib.resources

subnet_type := "aws:ec2/subnet:Subnet"

route_table_type := "aws:ec2/routeTable:RouteTable"

route_type := "aws:ec2/route:Route"

association_type := "aws:ec2/routeTableAssociation:RouteTableAssociation"

vpc_type := "aws:ec2/vpc:Vpc"

default_table_type := "aws:ec2/defaultRouteTable:DefaultRouteTable"

main_association_type := "aws:ec2/mainRouteTableAssociation:MainRouteTableAssociation"

gateway_type := "aws:ec2/internetGateway:InternetGateway"

default_vpc_type := "aws:ec2/defaultVpc:DefaultVpc"

default_subnet_type := "aws:ec2/defaultSubnet:DefaultSubnet"

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
	startswith(value, concat("", [t.name, "-"])) # cheap rejection first: this runs for many pairs
	resources.mock_name(value) == t.name
}

# The resources (positions) an input of r refers to, as refers decides, found in an index of the
# candidate targets instead of by a refers call per candidate: build the index as a partial rule,
# `idx[k] contains j if { some j in CANDIDATES; some k in target_keys(input.document.resources[j]) }`,
# wrap it in a comprehension (a partial rule without entries is undefined in regorus) and pass it.
# (index[k]: object.get would read an array key as a path)
referred(r, field, index) := {j | some k in _lookup_keys(r, field); some j in index[k]}

# the keys an input's reference can be found under: the URNs its property dependencies list, its
# value (a recorded id or a URN) and the logical name in a mock-runtime id. (resources.reference_keys
# and lookup_forms key an index more loosely, a bare logical name matching too, for inputs that may
# hold a name; these keep refers' judgement exactly.)
_lookup_keys(r, field) := {["urn", u] | some u in object.get(r, ["property_dependencies", field], [])} | _value_keys(object.get(r, ["inputs", field], null))

_value_keys(v) := {["value", v]} | {["name", n] | n := resources.mock_name(v); n != v} if {
	is_string(v)
	v != ""
} else := set()

# the keys under which an index files resource t (see referred)
target_keys(t) := {["urn", t.urn], ["value", t.urn], ["name", t.name]} | {["value", id] |
	id := object.get(t, "id", null)
	is_string(id)
	id != ""
}

# a reference whose value is unknown until apply and whose property dependencies are not recorded
# (a hand-written document): it may name any resource of the stack
unlinked_unknown(r, field) if {
	resources.hidden(r.inputs[field])
	not r.property_dependencies[field]
}

_may_name(r, field, t) if refers(r, field, t)

_may_name(r, field, _) if unlinked_unknown(r, field)

# route tables of the document (positions): RouteTables, and DefaultRouteTables (which adopt the
# table AWS creates with a VPC)
_table_indices := resources.indices(route_table_type) | resources.indices(default_table_type)

# the route tables (positions) an association of the document gives a subnet (position), or, with a
# subnet id the document cannot tie to a subnet, may give it
_associated_tables(s) := {t |
	some a in resources.indices(association_type)
	assoc := input.document.resources[a]
	_may_name(assoc, "subnetId", input.document.resources[s])
	some t in _table_indices
	refers(assoc, "routeTableId", input.document.resources[t])
}

# subnets (positions) an association of the document certainly names
_associated contains s if {
	some a in resources.indices(association_type)
	assoc := input.document.resources[a]
	some s in resources.indices(subnet_type)
	refers(assoc, "subnetId", input.document.resources[s])
}

# The route tables (positions) that route a subnet: those its associations give it; and, when no
# association of the document certainly names it, its VPC's main route table. A VPC's main table is
# the one a MainRouteTableAssociation of the document makes main; else the table AWS created with
# the VPC, which holds the routes that name the VPC's main or default route table id (counted under
# the VPC's own position) and is adopted by a DefaultRouteTable. See label.
tables_of(s) := _associated_tables(s) | _implicit_tables(s)

_implicit_tables(s) := set() if s in _associated

_implicit_tables(s) := {t | some v in _vpcs_of(s); some t in _main_tables(v)} if not s in _associated

# VPC positions of the document a subnet's vpcId names (or, unknown and untied, may name)
_vpcs_of(s) := {v |
	some v in resources.indices(vpc_type)
	_may_name(input.document.resources[s], "vpcId", input.document.resources[v])
}

_main_associations(v) := {a |
	some a in resources.indices(main_association_type)
	_may_name(input.document.resources[a], "vpcId", input.document.resources[v])
}

_main_tables(v) := {t |
	some a in _main_associations(v)
	some t in _table_indices
	refers(input.document.resources[a], "routeTableId", input.document.resources[t])
} | _first_table(v)

# a MainRouteTableAssociation certainly names the VPC: its first table is no longer main
_main_replaced(v) if {
	some a in resources.indices(main_association_type)
	refers(input.document.resources[a], "vpcId", input.document.resources[v])
}

_first_table(v) := set() if _main_replaced(v)

_first_table(v) := {v} | {d |
	some d in resources.indices(default_table_type)
	_may_name(input.document.resources[d], "defaultRouteTableId", input.document.resources[v])
} if not _main_replaced(v)

# how a message names a route table position
label(t) := sprintf("the main route table of VPC %s", [input.document.resources[t].name]) if input.document.resources[t].type == vpc_type

label(t) := sprintf("route table %s", [input.document.resources[t].name]) if input.document.resources[t].type != vpc_type

# Why a subnet's routes cannot all be checked (subnet position -> clauses): an association whose
# route table is unknown until apply and untied; a main route table the document does not hold (the
# subnet has no association of the document and its VPC is not the document's, or may not be), or
# one a MainRouteTableAssociation sets to a table unknown until apply.
uncertain[s] contains sprintf("it may be associated (%s) with a route table unknown until apply", [assoc.name]) if {
	some a in resources.indices(association_type)
	assoc := input.document.resources[a]
	unlinked_unknown(assoc, "routeTableId")
	some s in resources.indices(subnet_type)
	_may_name(assoc, "subnetId", input.document.resources[s])
}

uncertain[s] contains sprintf("no route table association of the stack names it, so it uses the main route table of VPC %s, which the stack does not declare", [_vpc_ref(subnet)]) if {
	some s in resources.indices(subnet_type)
	not s in _associated
	subnet := input.document.resources[s]
	not _in_declared_vpc(subnet)
}

uncertain[s] contains sprintf("its VPC's main route table is set (%s) to a route table unknown until apply", [input.document.resources[a].name]) if {
	some s in resources.indices(subnet_type)
	not s in _associated
	some v in _vpcs_of(s)
	some a in _main_associations(v)
	unlinked_unknown(input.document.resources[a], "routeTableId")
}

_in_declared_vpc(subnet) if {
	some v in resources.indices(vpc_type)
	refers(subnet, "vpcId", input.document.resources[v])
}

# a VPC reference for a message: its value, else the names of the resources it depends on
_vpc_ref(subnet) := subnet.inputs.vpcId if {
	is_string(subnet.inputs.vpcId)
	resources.shown(subnet.inputs.vpcId)
}

_vpc_ref(subnet) := concat(", ", [_urn_name(urn) | some urn in subnet.property_dependencies.vpcId]) if {
	not _known_string(subnet.inputs, "vpcId")
	count(object.get(subnet, ["property_dependencies", "vpcId"], [])) > 0
}

_vpc_ref(subnet) := "[unknown]" if {
	not _known_string(subnet.inputs, "vpcId")
	count(object.get(subnet, ["property_dependencies", "vpcId"], [])) == 0
}

_known_string(obj, field) if {
	is_string(obj[field])
	resources.shown(obj[field])
}

_urn_name(urn) := parts[count(parts) - 1] if parts := split(urn, "::")

# The routes of a route table (position) as {destination, gateway, source}: its inline routes and
# the standalone routes whose routeTableId names it
routes_of(t) := _inline_routes(t) | _standalone_routes(t)

_inline_routes(t) := {{"destination": _destination(route), "gateway": route.gatewayId, "source": table, "inline": route} |
	table := input.document.resources[t]
	some route in resources.elements(object.get(table.inputs, "routes", []))
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
	resources.hidden(route.gateway)
	route.inline == null
	not route.source.property_dependencies.gatewayId
}

gateway_undetermined(route) if {
	resources.hidden(route.gateway)
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
# table of theirs routes (or may route) to an internet gateway.
public_subnets[s] contains "it maps public IPs on launch" if {
	some s in resources.indices(subnet_type)
	resources.truthy(object.get(input.document.resources[s].inputs, "mapPublicIpOnLaunch", false))
}

public_subnets[s] contains sprintf("%s routes %v to an internet gateway", [label(t), route.destination]) if {
	some s in resources.indices(subnet_type)
	some t in tables_of(s)
	some route in routes_of(t)
	to_internet_gateway(route)
}

public_subnets[s] contains sprintf("%s routes %v through a gateway unknown until apply: it may be an internet gateway", [label(t), route.destination]) if {
	some s in resources.indices(subnet_type)
	some t in tables_of(s)
	some route in routes_of(t)
	gateway_undetermined(route)
}

public_subnets[s] contains sprintf("%s has routes unknown until apply: it may route to an internet gateway", [label(t)]) if {
	some s in resources.indices(subnet_type)
	some t in tables_of(s)
	unknown_routes(t)
}

public_subnets[s] contains sprintf("%s: it may route to an internet gateway", [reason]) if {
	some s in resources.indices(subnet_type)
	some reason in uncertain[s]
}

# Subnets the stack is given (not in the document), as EC2 describes them: input.facts.subnets, read
# by `seedance check --lookup` (absent otherwise: then they are not checked). Subnet id -> why it is
# public: it maps public IPs on launch, or its route table has a route to an internet gateway that
# is not a blackhole.
given_subnets := object.get(input, ["facts", "subnets"], {})

given_public[id] contains "it maps public IPs on launch" if {
	some id, subnet in given_subnets
	subnet.map_public_ip_on_launch == true
}

given_public[id] contains sprintf("%s %s routes %v to internet gateway %s", [_given_table(subnet), subnet.route_table_id, route.destination, route.target]) if {
	some id, subnet in given_subnets
	some route in subnet.routes
	startswith(route.target, "igw-")
	route.state != "blackhole"
}

_given_table(subnet) := "its VPC's main route table" if subnet.main_route_table == true

_given_table(subnet) := "route table" if subnet.main_route_table != true

# the given subnets (ids that input.facts describes) a launch template, instance, spot request,
# spot fleet, EC2 Fleet or autoscaling group places its network interfaces in
placed_in_given(r) := {id |
	some values in _placement_refs(r)
	some id in values
	is_string(id)
	given_subnets[id]
}

# the subnet ids a launch template, instance, spot request, spot fleet, EC2 Fleet, autoscaling
# group or EKS node group names, as written (values known now)
subnet_values(r) := {id |
	some values in _placement_refs(r)
	some id in values
	resources.settled(id)
}

# Where a launch template, instance, spot request, autoscaling group or EKS node group places its
# network interfaces: the subnet positions of the document it names (subnetId, a network
# interface's subnetId, vpcZoneIdentifiers, subnetIds), by value or by property dependency.
placed_in(r) := {s |
	some s in resources.indices(subnet_type)
	subnet := input.document.resources[s]
	some field, value in _placement_refs(r)
	_placement_names(r, field, value, subnet)
}

_placement_refs(r) := {field: resources.elements(object.get(r.inputs, field, []))} if {
	field := node_group_types[r.type] # an EKS managed node group: its subnets only
} else := {
	"subnetId": [object.get(r.inputs, "subnetId", null)],
	"vpcZoneIdentifiers": resources.elements(object.get(r.inputs, "vpcZoneIdentifiers", [])),
	"networkInterfaces": [object.get(ni, "subnetId", null) | some ni in resources.elements(object.get(r.inputs, "networkInterfaces", [])); is_object(ni)],
	"launchSpecifications": _spec_subnets(r),
	"launchTemplateConfigs": _override_subnets(r),
}

# EKS managed node groups and the input naming the subnets they launch their nodes in (required):
# pulumi-aws's subnetIds, aws-native's subnets
node_group_types := {"aws:eks/nodeGroup:NodeGroup": "subnetIds", "aws-native:eks:Nodegroup": "subnets"}

# a spot fleet request's or EC2 Fleet's launch template overrides (each subnetId one subnet or
# several, separated by commas, as in a launch specification)
_override_subnets(r) := [trim_space(id) |
	some config in resources.elements(object.get(r.inputs, "launchTemplateConfigs", []))
	is_object(config)
	some override in resources.elements(object.get(config, "overrides", []))
	is_object(override)
	some id in _comma_list(object.get(override, "subnetId", null))
]

# a spot fleet launch specification's subnetId names one subnet or several, separated by commas
# (EC2 API reference, SpotFleetLaunchSpecification)
_spec_subnets(r) := [trim_space(id) |
	some spec in compute.launch_specifications(r)
	value := object.get(spec, "subnetId", null)
	some id in _comma_list(value)
]

_comma_list(value) := split(value, ",") if is_string(value)

_comma_list(value) := [value] if not is_string(value)

_placement_names(r, field, _, subnet) if subnet.urn in object.get(r, ["property_dependencies", field], [])

_placement_names(_, _, values, subnet) if {
	some value in values
	names(value, subnet)
}

# ---------------------------------------------------------------- the default VPC
# Every region has a default VPC whose default subnets (one per zone) map public IPs on launch and
# route to its internet gateway. What names no subnet lands there: an instance or spot instance
# request without subnetId, without a network interface that names a subnet or an existing
# interface, and whose launch template (of the document) names neither; a spot fleet launch
# specification without subnetId. The program may also adopt the default VPC (DefaultVpc) and its
# subnets (DefaultSubnet) and place resources in them.

# the default VPC the document adopts that a resource's vpcId names (by value or dependency)
default_vpc_of(r) := v if {
	some v in resources.of_type(input.document, default_vpc_type)
	refers(r, "vpcId", v)
}

# Launch resource position -> what a message calls each part of it that names no subnet:
# "instance", "spot instance request", "launchSpecifications[1]" (rules keyed by position, not
# functions: regorus reuses a function's comprehension values across calls within one evaluation)
no_subnet[i] contains compute.noun(r) if {
	some t in _launchers_with_subnet
	some i in resources.indices(t)
	r := input.document.resources[i]
	not _names_placement(r.inputs)
	not _template_places(r)
}

no_subnet[i] contains sprintf("launchSpecifications[%d]", [k]) if {
	some i in resources.indices(compute.spot_fleet)
	some k, spec in compute.launch_specifications(input.document.resources[i])
	_blank(object.get(spec, "subnetId", null))
}

_launchers_with_subnet := {compute.instance, compute.spot_request}

_blank(v) if v in {null, ""}

# a subnetId, or a network interface that names a subnet or an existing interface (or a list the
# document does not show, which may)
_names_placement(inputs) if not _blank(object.get(inputs, "subnetId", null))

_names_placement(inputs) if {
	some ni in resources.elements(object.get(inputs, "networkInterfaces", []))
	_interface_places(ni)
}

_names_placement(inputs) if resources.hidden(object.get(inputs, "networkInterfaces", null))

_interface_places(ni) if not is_object(ni)

_interface_places(ni) if {
	is_object(ni)
	some k in ["subnetId", "networkInterfaceId"]
	not _blank(object.get(ni, k, null))
}

# launched from a template the document does not hold (where it places cannot be seen: the rules
# that judge the template report that), or from one of the document's that places its interfaces
_template_places(r) if {
	not _blank(object.get(r.inputs, "launchTemplate", null))
	count(compute.templates_of(r)) == 0
}

_template_places(r) if {
	some t in compute.templates_of(r)
	_names_placement(t.inputs)
}

# The parts of a launch resource (position -> parts) that land in a default subnet and get a public
# IP there: they name no subnet and leave associatePublicIpAddress to the subnet (unset, or unknown
# until apply; true is reported as itself, a secret one too)
default_subnet_public[i] contains part if {
	some i, parts in no_subnet
	r := input.document.resources[i]
	r.type != compute.spot_fleet
	compute.ip_left_unset(r.inputs)
	some part in parts
}

default_subnet_public[i] contains part if {
	some i, parts in no_subnet
	r := input.document.resources[i]
	r.type == compute.spot_fleet
	some k, spec in compute.launch_specifications(r)
	part := sprintf("launchSpecifications[%d]", [k])
	part in parts
	compute.ip_left_unset(spec)
}

# a message's phrase for a part that names no subnet
no_subnet_phrase(r, part) := sprintf("%s%s names no subnet", [object.get(_part_of, r.type, ""), part])

_part_of := {compute.spot_fleet: "spot fleet request's "}

# Launch resource or autoscaling group position -> the default subnets (DefaultSubnet positions), and
# subnets of the document in an adopted default VPC, it places its interfaces in
default_subnets[i] contains s if {
	count(resources.indices(default_subnet_type)) > 0 # almost every document: none
	some i in placeable
	r := input.document.resources[i]
	some s in resources.indices(default_subnet_type)
	subnet := input.document.resources[s]
	some field, value in _placement_refs(r)
	_placement_names(r, field, value, subnet)
}

default_subnets[i] contains s if {
	count(resources.indices(default_vpc_type)) > 0
	some i in placeable
	some s in placed_in(input.document.resources[i])
	default_vpc_of(input.document.resources[s])
}

# what runs instances in subnets: launch templates, instances, spot requests, launch
# configurations, spot fleets (by their launch specifications or launch template overrides), EC2
# Fleets (by their overrides), autoscaling groups and EKS managed node groups (by their subnetIds)
placeable := (((compute.indices | resources.indices("aws:autoscaling/group:Group")) | resources.indices(compute.spot_fleet)) | resources.indices("aws:ec2/fleet:Fleet")) | {i | some t, _ in node_group_types; some i in resources.indices(t)}

# a default subnet maps public IPs on launch unless the program sets mapPublicIpOnLaunch false
default_subnet_maps(s) if {
	input.document.resources[s].type == default_subnet_type
	not object.get(input.document.resources[s].inputs, "mapPublicIpOnLaunch", null) in {false, "false"}
}
