package lib.endpoints_test

import data.lib.endpoints

_ep(name) := {"inputs": {"serviceName": name}}

# the services the VPC CNI plugin, a Cluster Autoscaler and the AWS Load Balancer Controller reach, in
# either partition's spelling (EC2 and Auto Scaling take the cn. prefix in the China regions)
test_endpoints_service_of_the_node_and_controller_apis if {
	endpoints.service(_ep("com.amazonaws.eu-central-1.ec2")) == "ec2"
	endpoints.service(_ep("cn.com.amazonaws.cn-north-1.ec2")) == "ec2"
	endpoints.service(_ep("cn.com.amazonaws.cn-northwest-1.autoscaling")) == "autoscaling"
	endpoints.service(_ep("com.amazonaws.us-east-1.elasticloadbalancing")) == "elasticloadbalancing"
	endpoints.service(_ep("com.amazonaws.us-gov-west-1.ec2")) == "ec2"
}

test_endpoints_present_counts_an_ec2_endpoint_of_the_document if {
	doc := {"stack": "s", "resources": [{"type": "aws:ec2/vpcEndpoint:VpcEndpoint", "inputs": {
		"serviceName": "cn.com.amazonaws.cn-north-1.ec2",
		"vpcEndpointType": "Interface",
	}}]}
	endpoints.present(doc, "ec2") with input as {"document": doc, "policy": {}}
	not endpoints.present(doc, "autoscaling") with input as {"document": doc, "policy": {}}
}

test_endpoints_present_takes_a_listed_ec2_endpoint_on_the_policys_word if {
	doc := {"stack": "s", "resources": []}
	endpoints.present(doc, "ec2") with input as {"document": doc, "policy": {"network": {"existingEndpoints": ["ec2"]}}}
}

# A gateway endpoint (S3, DynamoDB) serves the stack only when it is on the route table of every
# subnet the stack is given (cloud.subnetIds) that EC2 described; without those subnets' facts, on any.
_gw(tables) := {
	"id": "vpce-0aaaaaaaaaaaaaaa2", "service_name": "com.amazonaws.eu-central-1.s3", "type": "Gateway",
	"state": "available", "private_dns_enabled": false, "route_table_ids": tables,
}

_subnet(table) := {"vpc_id": "vpc-1", "map_public_ip_on_launch": false, "route_table_id": table, "main_route_table": false, "routes": []}

# subnets a and b share rtb-a; c has rtb-c
_given_input(ids, subnets, eps) := {
	"document": {"stack": "s", "resources": []},
	"policy": {"cloud": {"vpcId": "vpc-1", "subnetIds": ids}, "network": {"existingEndpoints": ["s3"]}},
	"facts": {"subnets": subnets, "vpc_endpoints": {"vpc_id": "vpc-1", "services": {"s3": eps}}},
}

_three := {"subnet-a": _subnet("rtb-a"), "subnet-b": _subnet("rtb-a"), "subnet-c": _subnet("rtb-c")}

test_endpoints_gateway_on_every_given_subnets_table_serves if {
	gate := _given_input(["subnet-a", "subnet-b", "subnet-c"], _three, [_gw(["rtb-c", "rtb-other", "rtb-a"])])
	endpoints.existing("s3") with input as gate
	not endpoints.unavailable("s3") with input as gate
	endpoints.subnet_tables == {"subnet-a": "rtb-a", "subnet-b": "rtb-a", "subnet-c": "rtb-c"} with input as gate
}

test_endpoints_gateway_missing_a_given_subnets_table_does_not_serve if {
	gate := _given_input(["subnet-a", "subnet-b", "subnet-c"], _three, [_gw(["rtb-c"])])
	endpoints.unavailable("s3") with input as gate
	not endpoints.existing("s3") with input as gate
	msg := endpoints.missing_message("s3", "through NAT") with input as gate
	msg == "no VPC endpoint for s3: network.existingEndpoints names it, but DescribeVpcEndpoints shows vpc-1 has none that serves (vpce-0aaaaaaaaaaaaaaa2 is a gateway not on the route tables of the stack's subnets subnet-a (rtb-a), subnet-b (rtb-a)): through NAT"
}

# only another team's route table: every subnet of the stack misses it (the singular for one subnet)
test_endpoints_gateway_only_on_anothers_route_table_does_not_serve if {
	gate := _given_input(["subnet-c"], _three, [_gw(["rtb-other"])])
	endpoints.unavailable("s3") with input as gate
	msg := endpoints.missing_message("s3", "through NAT") with input as gate
	contains(msg, "(vpce-0aaaaaaaaaaaaaaa2 is a gateway not on the route table of the stack's subnet subnet-c (rtb-c))")
}

# one gateway on every table serves alone
test_endpoints_one_of_two_gateways_on_every_table_serves if {
	whole := [_gw(["rtb-a"]), object.union(_gw(["rtb-a", "rtb-c"]), {"id": "vpce-0aaaaaaaaaaaaaaa3"})]
	count(endpoints.serving("s3")) == 1 with input as _given_input(["subnet-a", "subnet-c"], _three, whole)
}

# two gateways each on part of the subnets' tables serve together (a route table holds one gateway
# per service); together still missing one, or one of them down, they do not
test_endpoints_two_gateways_splitting_the_tables_serve_together if {
	second := object.union(_gw(["rtb-c"]), {"id": "vpce-0aaaaaaaaaaaaaaa3"})
	split := _given_input(["subnet-a", "subnet-c"], _three, [_gw(["rtb-a"]), second])
	endpoints.existing("s3") with input as split
	not endpoints.unavailable("s3") with input as split
	# an S3 interface endpoint without private DNS beside them is fine: they serve the public name
	interface := {"id": "vpce-0aaaaaaaaaaaaaaa6", "type": "Interface", "state": "available", "private_dns_enabled": false, "route_table_ids": []}
	count(endpoints.private_dns_off) == 0 with input as _given_input(["subnet-a", "subnet-c"], _three, [_gw(["rtb-a"]), second, interface])
	# subnet b on a table neither is on
	endpoints.unavailable("s3") with input as _given_input(["subnet-a", "subnet-b", "subnet-c"], object.union(_three, {"subnet-b": _subnet("rtb-b")}), [_gw(["rtb-a"]), second])
	# one of them not available
	endpoints.unavailable("s3") with input as _given_input(["subnet-a", "subnet-c"], _three, [_gw(["rtb-a"]), object.union(second, {"state": "pending"})])
}

# without the given subnets' facts (none in the facts, or no cloud.subnetIds): on any route table it
# counts, and on none it does not
test_endpoints_gateway_without_subnet_facts_counts_on_any_route_table if {
	every gate in [
		_given_input(["subnet-a"], {}, [_gw(["rtb-other"])]),
		_given_input([], _three, [_gw(["rtb-other"])]),
		json.patch(_given_input(["subnet-a"], _three, [_gw(["rtb-other"])]), [{"op": "remove", "path": "/facts/subnets"}]),
	] {
		not endpoints.unavailable("s3") with input as gate
		count(endpoints.subnet_tables) == 0 with input as gate
	}
	gate := _given_input(["subnet-a"], {}, [_gw([])])
	endpoints.unavailable("s3") with input as gate
	msg := endpoints.missing_message("s3", "x") with input as gate
	contains(msg, "vpce-0aaaaaaaaaaaaaaa2 is a gateway on no route table")
}

# a subnet of the facts the policy does not give (a subnet a resource names) is not matched
test_endpoints_gateway_matched_only_with_the_policys_subnets if {
	gate := _given_input(["subnet-a"], _three, [_gw(["rtb-a"])])
	not endpoints.unavailable("s3") with input as gate
	endpoints.subnet_tables == {"subnet-a": "rtb-a"} with input as gate
}

# an S3 interface endpoint without private DNS is fine beside a gateway that serves the stack's
# subnets, not beside one that misses them
test_endpoints_private_dns_off_beside_a_gateway_missing_the_subnets if {
	interface := {"id": "vpce-0aaaaaaaaaaaaaaa6", "type": "Interface", "state": "available", "private_dns_enabled": false, "route_table_ids": []}
	missing := _given_input(["subnet-a", "subnet-c"], _three, [interface, _gw(["rtb-a"])])
	endpoints.private_dns_off == {["s3", interface]} with input as missing
	covering := _given_input(["subnet-a", "subnet-c"], _three, [interface, _gw(["rtb-a", "rtb-c"])])
	count(endpoints.private_dns_off) == 0 with input as covering
}
