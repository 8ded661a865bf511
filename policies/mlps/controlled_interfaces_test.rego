package mlps.controlled_interfaces_test

import data.mlps.controlled_interfaces
import data.lib.fixtures

_f(type, name, msg) := fixtures.finding("MLPS-L3-8.1.3.1a", "mandatory", type, name, msg)

_ep(service) := fixtures.resource("aws:ec2/vpcEndpoint:VpcEndpoint", service, {
	"serviceName": sprintf("cn.com.amazonaws.cn-north-1.%s", [service]),
	"vpcEndpointType": "Interface",
	"privateDnsEnabled": true,
})

pass_resources := [_ep("s3"), _ep("kms"), _ep("logs"), _ep("ecr.api"), _ep("ecr.dkr"), fixtures.launch_template("lt", "internal", {})]

fail_resources := [
	_ep("s3"), _ep("kms"), _ep("logs"), _ep("ecr.api"),
	fixtures.resource("aws:ec2/subnet:Subnet", "public", {"mapPublicIpOnLaunch": true}),
	fixtures.launch_template("lt", "internal", {"networkInterfaces": [{"associatePublicIpAddress": "true"}]}),
]

test_pass_private_paths if {
	v := controlled_interfaces.violation with input as fixtures.gate_input(fixtures.mlps_policy, pass_resources)
	v == set()
}

test_fail_public_paths if {
	v := controlled_interfaces.violation with input as fixtures.gate_input(fixtures.mlps_policy, fail_resources)
	v == {
		_f("aws:ec2/subnet:Subnet", "public", "subnet maps public IPs on launch"),
		_f("aws:ec2/launchTemplate:LaunchTemplate", "lt", "launch template gives instances a public IP"),
		fixtures.stack_finding("MLPS-L3-8.1.3.1a", "mandatory", "no VPC endpoint for ecr.dkr: its traffic crosses the internet boundary through NAT"),
	}
}

# an EC2 instance checked like a launch template (audit A2)
_instance(inputs) := fixtures.resource("aws:ec2/instance:Instance", "box", object.union(
	{
		"tags": fixtures.tags("personal"),
		"instanceType": "g5.xlarge",
		"rootBlockDevice": {"encrypted": true, "deleteOnTermination": true, "kmsKeyId": "arn:aws:kms:eu-central-1:111122223333:key/k"},
		"metadataOptions": {"httpTokens": "required"},
	},
	inputs,
))

_weak_instance := _instance({
	"associatePublicIpAddress": true,
	"keyName": "ops-key",
	"metadataOptions": {"httpTokens": "optional"},
	"rootBlockDevice": {"encrypted": false, "deleteOnTermination": false},
	"userData": "#!/bin/sh\nexport DB_PASSWORD=hunter2\n",
})

# audit A2: an instance with a public IP
test_fail_instance_public_ip_mlps if {
	v := controlled_interfaces.violation with input as fixtures.gate_input(fixtures.mlps_policy, [_weak_instance])
	instance_findings := {f | some f in v; f.resource_type == "aws:ec2/instance:Instance"}
	instance_findings == {fixtures.finding("MLPS-L3-8.1.3.1a", "mandatory", "aws:ec2/instance:Instance", "box", "instance gets a public IP (associatePublicIpAddress)")}
}

# Data subnets (tagged personal or internal) must not route to an internet gateway. Subnets,
# tables, gateways and routes are tied together by property dependencies, recorded ids, URNs or
# the mock runtime's ids.
# red team F9: an Elastic IP on a network interface gives a public IP to the instance that carries
# the interface, whatever its data; one on an interface no instance of the stack carries (of the
# document, or an id the document does not hold) to whatever it is attached to
test_fail_elastic_ip_on_network_interfaces_mlps if {
	resources := [
		fixtures.resource("aws:ec2/networkInterface:NetworkInterface", "nic", {"subnetId": "subnet-0a0a0a0a0a0a0a0a0"}),
		fixtures.resource("aws:ec2/instance:Instance", "vm", {"subnetId": "subnet-0a0a0a0a0a0a0a0a0", "networkInterfaces": [{"networkInterfaceId": "nic-1a2b3c4d", "deviceIndex": 0}]}),
		fixtures.resource("aws:ec2/eip:Eip", "ip", {"domain": "vpc", "networkInterface": "nic-1a2b3c4d"}),
		fixtures.resource("aws:ec2/instance:Instance", "appliance", {"subnetId": "subnet-0a0a0a0a0a0a0a0a0", "networkInterfaces": [{"networkInterfaceId": "eni-0123456789abcdef0", "deviceIndex": 0}]}),
		fixtures.resource("aws:ec2/eipAssociation:EipAssociation", "assoc", {"networkInterfaceId": "eni-0123456789abcdef0", "allocationId": "eipalloc-0123456789abcdef0"}),
		fixtures.resource("aws:ec2/networkInterface:NetworkInterface", "loose", {"subnetId": "subnet-0a0a0a0a0a0a0a0a0"}),
		fixtures.resource("aws:ec2/eip:Eip", "ip2", {"domain": "vpc", "networkInterface": "loose-1a2b3c4d"}),
		fixtures.resource("aws:ec2/eipAssociation:EipAssociation", "elsewhere", {"networkInterfaceId": "eni-0fedcba9876543210", "allocationId": "eipalloc-0fedcba9876543210"}),
		fixtures.resource("aws:ec2/eip:Eip", "nat", {"domain": "vpc"}),
	]
	v := controlled_interfaces.violation with input as _routing_input(resources)
	v == {
		_f("aws:ec2/instance:Instance", "vm", "instance gets a public IP (Elastic IP ip is attached to its network interface nic)"),
		_f("aws:ec2/instance:Instance", "appliance", "instance gets a public IP (Elastic IP assoc is attached to its network interface eni-0123456789abcdef0)"),
		_f("aws:ec2/networkInterface:NetworkInterface", "loose", "network interface gets a public IP (Elastic IP ip2 is attached to it), and no instance of the stack is tied to it: whatever it is attached to is reachable from the internet"),
		_f("aws:ec2/eipAssociation:EipAssociation", "elsewhere", "Elastic IP is attached to network interface eni-0fedcba9876543210, which is not in the document and no instance of the stack carries: whatever it belongs to gets a public IP"),
	}
}

# red team F10: an instance that names no subnet gets a public IP in a default subnet of the default
# VPC; an adopted default subnet maps public IPs unless set not to
test_fail_default_subnets_map_public_ips_mlps if {
	resources := [
		fixtures.resource("aws:ec2/instance:Instance", "vm", {"instanceType": "m5.large"}),
		fixtures.resource("aws:ec2/instance:Instance", "private", {"instanceType": "m5.large", "associatePublicIpAddress": "false"}),
		fixtures.resource("aws:ec2/defaultSubnet:DefaultSubnet", "default-a", {"availabilityZone": "cn-north-1a"}),
		fixtures.resource("aws:ec2/defaultSubnet:DefaultSubnet", "default-b", {"availabilityZone": "cn-north-1b", "mapPublicIpOnLaunch": false}),
	]
	v := controlled_interfaces.violation with input as _routing_input(resources)
	v == {
		_f("aws:ec2/instance:Instance", "vm", "instance names no subnet: EC2 launches it into a default subnet of the default VPC, which maps public IPs on launch, so it gets a public IP; name a private subnet of the stack (or set associatePublicIpAddress false)"),
		_f("aws:ec2/defaultSubnet:DefaultSubnet", "default-a", "default subnet maps public IPs on launch (mapPublicIpOnLaunch is not set false)"),
	}
}

_subnet(name, class) := fixtures.resource("aws:ec2/subnet:Subnet", name, {"vpcId": "vpc-0123456789abcdef0", "cidrBlock": "10.0.1.0/24", "tags": fixtures.tags(class)})

_table(name, routes) := fixtures.resource("aws:ec2/routeTable:RouteTable", name, {"vpcId": "vpc-0123456789abcdef0", "routes": routes})

_assoc(name, subnet_ref, table_ref) := fixtures.resource("aws:ec2/routeTableAssociation:RouteTableAssociation", name, {"subnetId": subnet_ref, "routeTableId": table_ref})

_with_deps(r, deps) := object.union(r, {"property_dependencies": deps})

_igw := object.union(fixtures.resource("aws:ec2/internetGateway:InternetGateway", "igw", {"vpcId": "vpc-0123456789abcdef0"}), {"id": "igw-0aaaaaaaaaaaaaaaa"})

_urn(type, name) := fixtures.urn(type, name)

_subnet_urn(name) := _urn("aws:ec2/subnet:Subnet", name)

_table_urn(name) := _urn("aws:ec2/routeTable:RouteTable", name)

_routing_input(resources) := fixtures.gate_input(fixtures.mlps_policy, array.concat(pass_resources, resources))

test_fail_data_subnet_routed_to_internet_gateway if {
	resources := [
		_igw,
		_subnet("data-a", "personal"),
		_subnet("data-b", "internal"),
		_subnet("public-a", "public"),
		# inline route to the document's gateway, by its recorded id; associations by mock ids
		_table("public-rt", [{"cidrBlock": "0.0.0.0/0", "gatewayId": "igw-0aaaaaaaaaaaaaaaa"}]),
		_assoc("data-a-assoc", "data-a-1a2b3c4d", "public-rt-5e6f7a8b"),
		_assoc("public-a-assoc", "public-a-1a2b3c4d", "public-rt-5e6f7a8b"),
		# a standalone route to an igw- id, in a table tied by URN; association by dependencies
		_table("data-rt", []),
		fixtures.resource("aws:ec2/route:Route", "data-default", {"routeTableId": _table_urn("data-rt"), "destinationCidrBlock": "0.0.0.0/0", "gatewayId": "igw-0bbbbbbbbbbbbbbbb"}),
		_with_deps(_assoc("data-b-assoc", "[unknown]", "[unknown]"), {"subnetId": [_subnet_urn("data-b")], "routeTableId": [_table_urn("data-rt")]}),
	]
	v := controlled_interfaces.violation with input as _routing_input(resources)
	v == {
		_f("aws:ec2/subnet:Subnet", "data-a", "data subnet routes 0.0.0.0/0 to an internet gateway (igw-0aaaaaaaaaaaaaaaa, route table public-rt)"),
		_f("aws:ec2/subnet:Subnet", "data-b", "data subnet routes 0.0.0.0/0 to an internet gateway (igw-0bbbbbbbbbbbbbbbb, route table data-rt)"),
	}
}

test_pass_data_subnet_through_nat if {
	resources := [
		_igw,
		_subnet("data-a", "personal"),
		_subnet("public-a", "public"),
		_table("public-rt", [{"cidrBlock": "0.0.0.0/0", "gatewayId": "igw-0aaaaaaaaaaaaaaaa"}]),
		_table("private-rt", [{"cidrBlock": "0.0.0.0/0", "natGatewayId": "nat-0123456789abcdef0"}, {"cidrBlock": "10.0.0.0/16", "gatewayId": "local"}]),
		_with_deps(_assoc("public-a-assoc", "[unknown]", "[unknown]"), {"subnetId": [_subnet_urn("public-a")], "routeTableId": [_table_urn("public-rt")]}),
		_with_deps(_assoc("data-a-assoc", "[unknown]", "[unknown]"), {"subnetId": [_subnet_urn("data-a")], "routeTableId": [_table_urn("private-rt")]}),
		# a standalone route through a gateway its dependencies say is no internet gateway
		_with_deps(fixtures.resource("aws:ec2/route:Route", "to-vpn", {"routeTableId": _table_urn("private-rt"), "destinationCidrBlock": "172.16.0.0/12", "gatewayId": "[unknown]"}), {"gatewayId": [_urn("aws:ec2/vpnGateway:VpnGateway", "vgw")]}),
	]
	v := controlled_interfaces.violation with input as _routing_input(resources)
	v == set()
}

# fail closed: a standalone route to a gateway tied to the document's internet gateway by its
# dependencies; a gateway unknown until apply and untied; an association whose route table is
# unknown and untied
test_fail_data_subnet_routing_undetermined if {
	resources := [
		_igw,
		_subnet("data-a", "personal"),
		_subnet("data-b", "personal"),
		_subnet("data-c", "internal"),
		_table("rt-a", []),
		_with_deps(fixtures.resource("aws:ec2/route:Route", "a-default", {"routeTableId": _table_urn("rt-a"), "destinationCidrBlock": "0.0.0.0/0", "gatewayId": "[unknown]"}), {"gatewayId": [_igw.urn]}),
		_assoc("a-assoc", _subnet_urn("data-a"), _table_urn("rt-a")),
		_table("rt-b", [{"cidrBlock": "0.0.0.0/0", "gatewayId": "[unknown]"}]),
		_assoc("b-assoc", _subnet_urn("data-b"), _table_urn("rt-b")),
		_assoc("c-assoc", _subnet_urn("data-c"), "[unknown]"),
		_subnet("data-d", "personal"),
		_table("rt-d", "[unknown]"),
		_assoc("d-assoc", _subnet_urn("data-d"), _table_urn("rt-d")),
	]
	v := controlled_interfaces.violation with input as _routing_input(resources)
	v == {
		_f("aws:ec2/subnet:Subnet", "data-a", sprintf("data subnet routes 0.0.0.0/0 to an internet gateway ([unknown], route table rt-a)", [])),
		_f("aws:ec2/subnet:Subnet", "data-b", "data subnet routes 0.0.0.0/0 through a gateway unknown until apply (route table rt-b): it may be an internet gateway"),
		_f("aws:ec2/subnet:Subnet", "data-c", "data subnet's routes cannot be checked: it may be associated (c-assoc) with a route table unknown until apply"),
		_f("aws:ec2/subnet:Subnet", "data-d", "data subnet uses route table rt-d, whose routes are unknown until apply and cannot be checked"),
	}
}

# A data subnet no association of the stack names uses its VPC's main route table: the VPC's first
# table (here adopted by a DefaultRouteTable), or one a MainRouteTableAssociation makes main; in a
# VPC the stack does not declare, the main route table cannot be checked.
_vpc(name) := fixtures.resource("aws:ec2/vpc:Vpc", name, {"cidrBlock": "10.0.0.0/16"})

_in_vpc(name, class, vpc_ref) := fixtures.resource("aws:ec2/subnet:Subnet", name, {"vpcId": vpc_ref, "cidrBlock": "10.0.1.0/24", "tags": fixtures.tags(class)})

test_fail_data_subnet_on_main_route_table if {
	resources := [
		_igw,
		_vpc("vpc-a"),
		_in_vpc("data-a", "personal", "vpc-a-0a1b2c3d"),
		_with_deps(
			fixtures.resource("aws:ec2/defaultRouteTable:DefaultRouteTable", "a-default", {"defaultRouteTableId": "[unknown]", "routes": [{"cidrBlock": "0.0.0.0/0", "gatewayId": "igw-0aaaaaaaaaaaaaaaa"}]}),
			{"defaultRouteTableId": [_urn("aws:ec2/vpc:Vpc", "vpc-a")]},
		),
		# a standalone route on the VPC's main route table id, tied by dependencies
		_vpc("vpc-b"),
		_with_deps(_in_vpc("data-b", "internal", "[unknown]"), {"vpcId": [_urn("aws:ec2/vpc:Vpc", "vpc-b")]}),
		_with_deps(
			fixtures.resource("aws:ec2/route:Route", "b-default", {"routeTableId": "[unknown]", "destinationCidrBlock": "0.0.0.0/0", "gatewayId": "[unknown]"}),
			{"routeTableId": [_urn("aws:ec2/vpc:Vpc", "vpc-b")], "gatewayId": [_igw.urn]},
		),
		_in_vpc("data-c", "personal", "vpc-0123456789abcdef0"),
	]
	v := controlled_interfaces.violation with input as _routing_input(resources)
	v == {
		_f("aws:ec2/subnet:Subnet", "data-a", "data subnet routes 0.0.0.0/0 to an internet gateway (igw-0aaaaaaaaaaaaaaaa, route table a-default)"),
		_f("aws:ec2/subnet:Subnet", "data-b", "data subnet routes 0.0.0.0/0 to an internet gateway ([unknown], the main route table of VPC vpc-b)"),
		_f("aws:ec2/subnet:Subnet", "data-c", "data subnet's routes cannot be checked: no route table association of the stack names it, so it uses the main route table of VPC vpc-0123456789abcdef0, which the stack does not declare"),
	}
}

# the VPC's first table routes to the internet gateway, but a private table was made main; a data
# subnet of a VPC the stack does not declare is associated with a private table of the stack
test_pass_data_subnet_on_private_main_route_table if {
	resources := [
		_igw,
		_vpc("vpc-a"),
		_in_vpc("data-a", "personal", "vpc-a-0a1b2c3d"),
		_with_deps(
			fixtures.resource("aws:ec2/defaultRouteTable:DefaultRouteTable", "a-default", {"defaultRouteTableId": "[unknown]", "routes": [{"cidrBlock": "0.0.0.0/0", "gatewayId": "igw-0aaaaaaaaaaaaaaaa"}]}),
			{"defaultRouteTableId": [_urn("aws:ec2/vpc:Vpc", "vpc-a")]},
		),
		_table("private-rt", [{"cidrBlock": "0.0.0.0/0", "natGatewayId": "nat-0123456789abcdef0"}]),
		fixtures.resource("aws:ec2/mainRouteTableAssociation:MainRouteTableAssociation", "a-main", {"vpcId": "vpc-a-0a1b2c3d", "routeTableId": "private-rt-0a1b2c3d"}),
		_in_vpc("data-c", "personal", "vpc-0123456789abcdef0"),
		_assoc("c-assoc", "data-c-0a1b2c3d", "private-rt-0a1b2c3d"),
	]
	v := controlled_interfaces.violation with input as _routing_input(resources)
	v == set()
}

# red team: a spot fleet launch specification that asks for a public IP
test_spot_fleet_launch_specification_public_ip if {
	fleets := [
		fixtures.spot_fleet("public", "internal", [{}, {"associatePublicIpAddress": true}]),
		fixtures.spot_fleet("private", "internal", [{"associatePublicIpAddress": false}]),
	]
	v := controlled_interfaces.violation with input as fixtures.gate_input(fixtures.mlps_policy, fleets)
	_f("aws:ec2/spotFleetRequest:SpotFleetRequest", "public", "spot fleet launch specification gets a public IP (associatePublicIpAddress)") in v
	every f in v {
		f.resource_name != "private"
	}
}

# Karpenter's EC2NodeClass: associatePublicIPAddress true gives the nodes public IPs; unset leaves
# it to the subnet
test_karpenter_node_class_public_ip if {
	resources := [
		fixtures.node_class("private", fixtures.node_class_defaults),
		fixtures.node_class("public", object.union(fixtures.node_class_defaults, {"associatePublicIPAddress": true})),
	]
	all := controlled_interfaces.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v := {f | some f in all; f.resource_type == fixtures.node_class_type}
	v == {_f(fixtures.node_class_type, "public", "EC2NodeClass gives nodes a public IP (associatePublicIPAddress)")}
}

# a group launching from a launch template the document does not hold (another stack's, an
# aws-native one, an id unknown until apply) cannot be checked and is reported; one launching from
# the document's template is judged by that template
# whatever the data class
test_fail_a_group_launching_from_a_template_the_document_lacks_controlled_interfaces if {
	lt := object.union(fixtures.launch_template("lt", "public", {}), {"id": "lt-0cccccccccccccccc"})
	v := controlled_interfaces.violation with input as fixtures.gate_input(fixtures.mlps_policy, [
		lt,
		_unseen_group("own", "public", "lt-0cccccccccccccccc"),
		_unseen_group("other", "public", "lt-0bbbbbbbbbbbbbbbb"),
	])
	# (the stack-level endpoint findings of this bare document aside)
	{f | some f in v; f.resource_type != "pulumi:pulumi:Stack"} == {_f("aws:autoscaling/group:Group", "other", "group launches from lt-0bbbbbbbbbbbbbbbb, which is not in the document: whether its instances get a public IP cannot be checked")}
}

_unseen_group(name, data_class, ref) := fixtures.resource("aws:autoscaling/group:Group", name, {
	"maxSize": 2, "launchTemplate": {"id": ref, "version": "$Latest"},
	"tags": [{"key": "data-class", "value": data_class, "propagateAtLaunch": true}],
})

# endpoints the VPC already has (network.existingEndpoints), another stack's or the landing
# zone's: present on the policy's word
_with_existing(services) := json.patch(fixtures.mlps_policy, [{"op": "add", "path": "/network", "value": {"existingEndpoints": services}}])

test_pass_endpoints_the_vpc_already_has_mlps if {
	resources := [_ep("s3"), _ep("ecr.api"), fixtures.launch_template("lt", "internal", {})]
	v := controlled_interfaces.violation with input as fixtures.gate_input(_with_existing(["kms", "logs", "ecr.dkr"]), resources)
	v == set()
}

test_fail_endpoints_neither_created_nor_existing_mlps if {
	resources := [_ep("s3"), fixtures.launch_template("lt", "internal", {})]
	v := controlled_interfaces.violation with input as fixtures.gate_input(_with_existing(["kms", "sts"]), resources)
	v == {fixtures.stack_finding("MLPS-L3-8.1.3.1a", "mandatory", sprintf("no VPC endpoint for %s: its traffic crosses the internet boundary through NAT", [s])) |
		some s in ["logs", "ecr.api", "ecr.dkr"]
	}
}

# ...and, when seedance check --lookup read them, only an available endpoint in the policy's VPC counts
test_fail_existing_endpoints_ec2_does_not_have_mlps if {
	resources := [_ep("s3"), _ep("ecr.api"), fixtures.launch_template("lt", "internal", {})]
	services := {
		"kms": [fixtures.endpoint_fact("vpce-0bbbbbbbbbbbbbbb1", "kms", "Interface", "available", true, fixtures.account_endpoint_policy)],
		"logs": [fixtures.endpoint_fact("vpce-0bbbbbbbbbbbbbbb2", "logs", "Interface", "deleting", true, fixtures.account_endpoint_policy)],
		"ecr.dkr": [],
	}
	v := controlled_interfaces.violation with input as fixtures.gate_input_with_endpoints(fixtures.mlps_policy, resources, ["kms", "logs", "ecr.dkr"], "vpc-0123456789abcdef0", services)
	v == {
		fixtures.stack_finding("MLPS-L3-8.1.3.1a", "mandatory", "no VPC endpoint for logs: network.existingEndpoints names it, but DescribeVpcEndpoints shows vpc-0123456789abcdef0 has none that serves (vpce-0bbbbbbbbbbbbbbb2 is deleting): its traffic crosses the internet boundary through NAT"),
		fixtures.stack_finding("MLPS-L3-8.1.3.1a", "mandatory", "no VPC endpoint for ecr.dkr: network.existingEndpoints names it, but DescribeVpcEndpoints shows vpc-0123456789abcdef0 has none that serves: its traffic crosses the internet boundary through NAT"),
	}
}

# red team: associatePublicIpAddress kept secret ("[secret]") may be true, like one unknown until apply
test_fail_secret_public_ip if {
	resources := [_ep("s3"), _ep("kms"), _ep("logs"), _ep("ecr.api"), _ep("ecr.dkr"), fixtures.launch_template("lt", "internal", {"networkInterfaces": [{"associatePublicIpAddress": "[secret]"}]})]
	v := controlled_interfaces.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == {_f("aws:ec2/launchTemplate:LaunchTemplate", "lt", "launch template may give instances a public IP: associatePublicIpAddress is secret")}
}

# red team: an instance's secret associatePublicIpAddress may be true; one unknown until apply is an
# output a preview shows unknown when the subnet decides (its mapPublicIpOnLaunch is checked)
_vm(name, flag) := fixtures.resource("aws:ec2/instance:Instance", name, {"tags": fixtures.tags("internal"), "associatePublicIpAddress": flag, "subnetId": "subnet-0a0a0a0a0a0a0a0a0"})

test_fail_secret_instance_public_ip if {
	resources := [_ep("s3"), _ep("kms"), _ep("logs"), _ep("ecr.api"), _ep("ecr.dkr"), _vm("vm", "[secret]"), _vm("later", "[unknown]")]
	v := controlled_interfaces.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == {_f("aws:ec2/instance:Instance", "vm", "instance may give instances a public IP: associatePublicIpAddress is secret")}
}

# data stores publiclyAccessible puts on the internet, whatever data they hold (as an instance
# with a public IP); private ones and the default (false) pass
_store(type, name, inputs) := fixtures.resource(type, name, object.union({"tags": fixtures.tags("internal")}, inputs))

test_pass_private_data_stores if {
	resources := array.concat(pass_resources, [
		_store("aws:rds/instance:Instance", "orders", {"engine": "mysql", "instanceClass": "db.t4g.medium", "publiclyAccessible": false}),
		_store("aws:rds/instance:Instance", "defaults", {"engine": "mysql", "instanceClass": "db.t4g.medium"}),
		_store("aws:redshiftserverless/workgroup:Workgroup", "analytics", {"namespaceName": "analytics", "workgroupName": "analytics", "publiclyAccessible": false}),
	])
	v := controlled_interfaces.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == set()
}

test_fail_publicly_accessible_data_stores if {
	resources := array.concat(pass_resources, [
		_store("aws:rds/instance:Instance", "orders", {"engine": "mysql", "instanceClass": "db.t4g.medium", "publiclyAccessible": true}),
		fixtures.resource("aws:rds/instance:Instance", "untagged", {"engine": "mysql", "instanceClass": "db.t4g.medium", "publiclyAccessible": true}),
		_store("aws:redshift/cluster:Cluster", "warehouse", {"nodeType": "ra3.xlplus", "publiclyAccessible": "[secret]"}),
	])
	v := controlled_interfaces.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == {
		_f("aws:rds/instance:Instance", "orders", "database instance is publicly accessible (publiclyAccessible true): it gets a public endpoint"),
		_f("aws:rds/instance:Instance", "untagged", "database instance is publicly accessible (publiclyAccessible true): it gets a public endpoint"),
		_f("aws:redshift/cluster:Cluster", "warehouse", "Redshift cluster may be publicly accessible: publiclyAccessible is secret"),
	}
}
