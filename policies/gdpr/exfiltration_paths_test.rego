package gdpr.exfiltration_paths_test

import data.gdpr.exfiltration_paths
import data.lib.fixtures

_f(name, msg) := fixtures.finding("GDPR-44-2", "advisory", "aws:ec2/vpcEndpoint:VpcEndpoint", name, msg)

_restricted := json.marshal({"Statement": [{
	"Effect": "Allow", "Principal": "*", "Action": "*", "Resource": "*",
	"Condition": {"StringEquals": {"aws:PrincipalOrgID": "o-abc123"}},
}]})

_ep(name, service, type, policy) := fixtures.resource("aws:ec2/vpcEndpoint:VpcEndpoint", name, {
	"vpcId": "vpc-0123456789abcdef0",
	"serviceName": sprintf("com.amazonaws.eu-central-1.%s", [service]),
	"vpcEndpointType": type,
	"privateDnsEnabled": type == "Interface",
	"policy": policy,
})

pass_resources := [
	_ep("s3", "s3", "Gateway", _restricted),
	_ep("kms", "kms", "Interface", _restricted),
	_ep("logs", "logs", "Interface", _restricted),
]

fail_resources := [
	fixtures.resource("aws:ec2/vpcEndpoint:VpcEndpoint", "s3", {"serviceName": "com.amazonaws.eu-central-1.s3", "vpcEndpointType": "Gateway"}),
	_ep("kms", "kms", "Interface", _restricted),
]

# the account statement plus reading ECR's image layers from the AWS-owned bucket (a read of named
# objects cannot copy data out)
_with_ecr_layers := json.marshal({"Statement": [
	{"Effect": "Allow", "Principal": "*", "Action": "*", "Resource": "*", "Condition": {"StringEquals": {"aws:PrincipalAccount": "111122223333"}}},
	{"Effect": "Allow", "Principal": "*", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::prod-eu-central-1-starport-layer-bucket/*"},
]})

# ways out that must stay findings: reading every bucket (in any wildcard spelling) or a foreign
# bucket, writing to a named one, NotAction / NotResource / NotPrincipal, and conditions that admit
# everyone but the named (Not..., IfExists, Null) or name nobody in particular (wildcards)
_open(st) := json.marshal({"Statement": [st]})

# the stack's own account, as a policy declares it (cloud.accountId)
_own := json.patch(fixtures.gdpr_policy, [{"op": "add", "path": "/cloud/accountId", "value": "111122223333"}])

_ways_out := [
	{"Effect": "Allow", "Principal": "*", "Action": ["s3:GetObject"], "Resource": "arn:aws:s3:::*/*"},
	{"Effect": "Allow", "Principal": "*", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::?*/*"},
	{"Effect": "Allow", "Principal": "*", "Action": "s3:GetObject", "Resource": "arn:aws:s3:*:*:*"},
	{"Effect": "Allow", "Principal": "*", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::a*/*"},
	{"Effect": "Allow", "Principal": "*", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::attacker-drop/*"},
	{"Effect": "Allow", "Principal": "*", "Action": "s3:GetObject", "Resource": ["arn:aws:s3:::prod-eu-central-1-starport-layer-bucket/*", "*"]},
	{"Effect": "Allow", "Principal": "*", "Action": ["s3:GetObject", "s3:PutObject"], "Resource": "arn:aws:s3:::prod-eu-central-1-starport-layer-bucket/*"},
	{"Effect": "Allow", "Principal": "*", "Action": "s3:*", "Resource": "arn:aws:s3:::prod-eu-central-1-starport-layer-bucket/*"},
	{"Effect": "Allow", "Principal": "*", "Action": "s3:Get*", "Resource": "arn:aws:s3:::prod-eu-central-1-starport-layer-bucket/*"},
	{"Effect": "Allow", "Principal": "*", "NotAction": "s3:DeleteObject", "Resource": "arn:aws:s3:::prod-eu-central-1-starport-layer-bucket/*"},
	{"Effect": "Allow", "Principal": "*", "Action": "s3:GetObject", "NotResource": "arn:aws:s3:::mine/*"},
	{"Effect": "Allow", "Principal": "*", "Action": "s3:PutObject", "Resource": "arn:aws:s3:::drop-box/*"},
	{"Effect": "Allow", "NotPrincipal": {"AWS": "arn:aws:iam::111122223333:root"}, "Action": "*", "Resource": "*"},
	{"Effect": "Allow", "Principal": "*", "Action": "*", "Resource": "*", "Condition": {"StringNotEquals": {"aws:PrincipalOrgID": "o-mine"}}},
	{"Effect": "Allow", "Principal": "*", "Action": "*", "Resource": "*", "Condition": {"StringEqualsIfExists": {"aws:PrincipalOrgID": "o-mine"}}},
	{"Effect": "Allow", "Principal": "*", "Action": "*", "Resource": "*", "Condition": {"Null": {"aws:PrincipalOrgID": "false"}}},
	{"Effect": "Allow", "Principal": "*", "Action": "*", "Resource": "*", "Condition": {"StringLike": {"aws:PrincipalAccount": "*"}}},
	{"Effect": "Allow", "Principal": "*", "Action": "*", "Resource": "*", "Condition": {"StringEquals": {"aws:PrincipalAccount": "${aws:PrincipalAccount}"}}},
	{"Effect": "Allow", "Principal": "*", "Action": "*", "Resource": "*", "Condition": {"StringEquals": {"aws:ResourceAccount": "999999999999"}}},
	{"Effect": "Allow", "Principal": "*", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::prod-attacker-starport-layer-bucket/*"},
]

test_pass_ecr_image_layers_statement if {
	resources := [_ep("s3", "s3", "Gateway", _with_ecr_layers), _ep("kms", "kms", "Interface", _restricted), _ep("logs", "logs", "Interface", _restricted)]
	v := exfiltration_paths.violation with input as fixtures.gate_input(_own, resources)
	v == set()
}

test_fail_every_way_out if {
	every st in _ways_out {
		resources := [_ep("s3", "s3", "Gateway", _open(st)), _ep("kms", "kms", "Interface", _restricted), _ep("logs", "logs", "Interface", _restricted)]
		v := exfiltration_paths.violation with input as fixtures.gate_input(_own, resources)
		v == {_f("s3", "VPC endpoint for s3 has no policy restricting it to the organisation or account")}
	}
}

# each of them alone, so a regression names the statement it let through
test_fail_each_way_out_alone if {
	found := [i |
		some i, st in _ways_out
		resources := [_ep("s3", "s3", "Gateway", _open(st)), _ep("kms", "kms", "Interface", _restricted), _ep("logs", "logs", "Interface", _restricted)]
		count(exfiltration_paths.violation) == 1 with input as fixtures.gate_input(_own, resources)
	]
	count(found) == count(_ways_out)
}

test_pass_restricted_endpoints if {
	v := exfiltration_paths.violation with input as fixtures.gate_input(fixtures.gdpr_policy, pass_resources)
	v == set()
}

test_fail_missing_and_open_endpoints if {
	v := exfiltration_paths.violation with input as fixtures.gate_input(fixtures.gdpr_policy, fail_resources)
	v == {
		_f("s3", "VPC endpoint for s3 has no policy restricting it to the organisation or account"),
		fixtures.stack_finding("GDPR-44-2", "advisory", "no VPC endpoint for logs: its traffic leaves through NAT"),
	}
}

# endpoints the VPC already has (network.existingEndpoints): present on the policy's word, so
# neither "no VPC endpoint" nor a policy finding (the document holds no endpoint to judge)
_existing(policy, services) := json.patch(policy, [{"op": "add", "path": "/network", "value": {"existingEndpoints": services}}])

test_pass_endpoints_the_vpc_already_has_gdpr if {
	resources := [_ep("s3", "s3", "Gateway", _restricted)]
	v := exfiltration_paths.violation with input as fixtures.gate_input(_existing(fixtures.gdpr_policy, ["kms", "logs"]), resources)
	v == set()
}

test_fail_only_the_endpoints_the_vpc_lacks_gdpr if {
	v := exfiltration_paths.violation with input as fixtures.gate_input(_existing(fixtures.gdpr_policy, ["kms", "ecr.dkr"]), [])
	v == {
		fixtures.stack_finding("GDPR-44-2", "advisory", "no VPC endpoint for s3: its traffic leaves through NAT"),
		fixtures.stack_finding("GDPR-44-2", "advisory", "no VPC endpoint for logs: its traffic leaves through NAT"),
	}
}

# a value that is no list (a hand-written gate input) names no endpoint
test_fail_existing_endpoints_not_a_list_gdpr if {
	resources := [_ep("s3", "s3", "Gateway", _restricted), _ep("logs", "logs", "Interface", _restricted)]
	v := exfiltration_paths.violation with input as fixtures.gate_input(_existing(fixtures.gdpr_policy, "kms"), resources)
	v == {fixtures.stack_finding("GDPR-44-2", "advisory", "no VPC endpoint for kms: its traffic leaves through NAT")}
}

# ...and, when seedance check --lookup read them (input.facts.vpc_endpoints), as EC2 describes them
_vpc := "vpc-0123456789abcdef0"

_kms_fact(policy) := fixtures.endpoint_fact("vpce-0aaaaaaaaaaaaaaa1", "kms", "Interface", "available", true, policy)

_s3_fact := fixtures.endpoint_fact("vpce-0aaaaaaaaaaaaaaa2", "s3", "Gateway", "available", false, fixtures.account_endpoint_policy)

test_pass_existing_endpoints_read_from_ec2_gdpr if {
	services := {"kms": [_kms_fact(fixtures.account_endpoint_policy)], "s3": [_s3_fact], "logs": [
		fixtures.endpoint_fact("vpce-0aaaaaaaaaaaaaaa3", "logs", "Interface", "available", true, fixtures.account_endpoint_policy),
	]}
	v := exfiltration_paths.violation with input as fixtures.gate_input_with_endpoints(fixtures.gdpr_policy, [], ["s3", "kms", "logs"], _vpc, services)
	v == set()
}

test_fail_existing_endpoint_ec2_does_not_have_gdpr if {
	services := {"kms": [_kms_fact(fixtures.account_endpoint_policy)], "logs": []}
	resources := [_ep("s3", "s3", "Gateway", _restricted)]
	v := exfiltration_paths.violation with input as fixtures.gate_input_with_endpoints(fixtures.gdpr_policy, resources, ["kms", "logs"], _vpc, services)
	v == {fixtures.stack_finding("GDPR-44-2", "advisory", "no VPC endpoint for logs: network.existingEndpoints names it, but DescribeVpcEndpoints shows vpc-0123456789abcdef0 has none that serves: its traffic leaves through NAT")}
}

# only an available endpoint serves: one being deleted, pending or rejected does not
test_fail_existing_endpoint_not_available_gdpr if {
	services := {"kms": [
		fixtures.endpoint_fact("vpce-0aaaaaaaaaaaaaaa5", "kms", "Interface", "deleted", true, fixtures.account_endpoint_policy),
		fixtures.endpoint_fact("vpce-0aaaaaaaaaaaaaaa4", "kms", "Interface", "pendingAcceptance", true, fixtures.account_endpoint_policy),
	]}
	resources := [_ep("s3", "s3", "Gateway", _restricted), _ep("logs", "logs", "Interface", _restricted)]
	v := exfiltration_paths.violation with input as fixtures.gate_input_with_endpoints(fixtures.gdpr_policy, resources, ["kms"], _vpc, services)
	v == {fixtures.stack_finding("GDPR-44-2", "advisory", "no VPC endpoint for kms: network.existingEndpoints names it, but DescribeVpcEndpoints shows vpc-0123456789abcdef0 has none that serves (vpce-0aaaaaaaaaaaaaaa4 is pendingAcceptance, vpce-0aaaaaaaaaaaaaaa5 is deleted): its traffic leaves through NAT")}
}

# the existing endpoint's policy is judged as the document's endpoints' are (EC2's default: full access)
test_fail_existing_endpoint_policy_unrestricted_gdpr if {
	services := {"kms": [_kms_fact(fixtures.full_access_endpoint_policy)], "s3": [_s3_fact]}
	resources := [_ep("logs", "logs", "Interface", _restricted)]
	v := exfiltration_paths.violation with input as fixtures.gate_input_with_endpoints(_own, resources, ["kms", "s3"], _vpc, services)
	v == {fixtures.stack_finding("GDPR-44-2", "advisory", "VPC endpoint vpce-0aaaaaaaaaaaaaaa1 for kms (network.existingEndpoints, read from EC2) has no policy restricting it to the organisation or account")}
}

# as a document's endpoint: no policy at all, or one naming another account, restricts nothing
test_fail_existing_endpoint_policy_missing_or_foreign_gdpr if {
	foreign := {"Statement": [{"Effect": "Allow", "Principal": "*", "Action": "*", "Resource": "*",
		"Condition": {"StringEquals": {"aws:ResourceAccount": "999999999999"}}}]}
	every policy in [null, foreign, {}] {
		services := {"kms": [_kms_fact(policy)], "s3": [_s3_fact]}
		resources := [_ep("logs", "logs", "Interface", _restricted)]
		v := exfiltration_paths.violation with input as fixtures.gate_input_with_endpoints(_own, resources, ["kms", "s3"], _vpc, services)
		v == {fixtures.stack_finding("GDPR-44-2", "advisory", "VPC endpoint vpce-0aaaaaaaaaaaaaaa1 for kms (network.existingEndpoints, read from EC2) has no policy restricting it to the organisation or account")}
	}
}

# facts read for another VPC (an old facts file) are not this VPC's: the policy's word is taken; a
# service the policy no longer lists is not judged
test_pass_endpoint_facts_of_another_vpc_or_service_gdpr if {
	resources := [_ep("s3", "s3", "Gateway", _restricted), _ep("logs", "logs", "Interface", _restricted)]
	elsewhere := fixtures.gate_input_with_endpoints(fixtures.gdpr_policy, resources, ["kms"], "vpc-0fffffffffffffff0", {"kms": []})
	exfiltration_paths.violation == set() with input as elsewhere
	unlisted := fixtures.gate_input_with_endpoints(fixtures.gdpr_policy, resources, ["kms"], _vpc, {
		"kms": [_kms_fact(fixtures.account_endpoint_policy)], "sts": [_kms_fact(fixtures.full_access_endpoint_policy)],
	})
	exfiltration_paths.violation == set() with input as unlisted
}

# red team: an endpoint that does not serve the service's traffic is none: an interface one without
# private DNS (clients resolve the public name, through NAT), a gateway on no route table, and one the
# stack made itself (tagged seedance:stack with its name: the deploy deletes it)
_no_serving(service, why) := fixtures.stack_finding("GDPR-44-2", "advisory", sprintf("no VPC endpoint for %s: network.existingEndpoints names it, but DescribeVpcEndpoints shows vpc-0123456789abcdef0 has none that serves (%s): its traffic leaves through NAT", [service, why]))

test_fail_existing_endpoint_that_does_not_serve_gdpr if {
	no_dns := fixtures.endpoint_fact("vpce-0aaaaaaaaaaaaaaa1", "kms", "Interface", "available", false, fixtures.account_endpoint_policy)
	no_routes := object.union(_s3_fact, {"route_table_ids": []})
	mine := object.union(fixtures.endpoint_fact("vpce-0aaaaaaaaaaaaaaa3", "logs", "Interface", "available", true, fixtures.account_endpoint_policy), {"tags": {"seedance:stack": fixtures.stack}})
	services := {"kms": [no_dns], "s3": [no_routes], "logs": [mine]}
	v := exfiltration_paths.violation with input as fixtures.gate_input_with_endpoints(_own, [], ["s3", "kms", "logs"], _vpc, services)
	v == {
		_no_serving("kms", "vpce-0aaaaaaaaaaaaaaa1 has private DNS off"),
		_no_serving("s3", "vpce-0aaaaaaaaaaaaaaa2 is a gateway on no route table"),
		_no_serving("logs", "vpce-0aaaaaaaaaaaaaaa3 is this stack's own, tagged seedance:stack=test: listing it in existingEndpoints makes this deploy delete it"),
	}
}

# red team: an S3 gateway on another team's route table only (rtb-0aaaaaaaaaaaaaaa1) does not carry the
# stack's S3 traffic: with the stack's subnets read (cloud.subnetIds), it must be on each one's table
_with_subnets(gate, tables) := json.patch(gate, [
	{"op": "add", "path": "/policy/cloud/subnetIds", "value": [id | some id, _ in tables]},
	{"op": "add", "path": "/facts/subnets", "value": {id: {"vpc_id": _vpc, "map_public_ip_on_launch": false, "route_table_id": t, "main_route_table": false, "routes": []} | some id, t in tables}},
])

test_fail_existing_gateway_not_on_the_stacks_route_tables_gdpr if {
	services := {"kms": [_kms_fact(fixtures.account_endpoint_policy)], "s3": [_s3_fact], "logs": [
		fixtures.endpoint_fact("vpce-0aaaaaaaaaaaaaaa3", "logs", "Interface", "available", true, fixtures.account_endpoint_policy),
	]}
	gate := fixtures.gate_input_with_endpoints(_own, [], ["s3", "kms", "logs"], _vpc, services)
	mixed := _with_subnets(gate, {"subnet-0aaaaaaaaaaaaaaa1": "rtb-0aaaaaaaaaaaaaaa1", "subnet-0bbbbbbbbbbbbbbb2": "rtb-0bbbbbbbbbbbbbbb2"})
	v := exfiltration_paths.violation with input as mixed
	v == {_no_serving("s3", "vpce-0aaaaaaaaaaaaaaa2 is a gateway not on the route table of the stack's subnet subnet-0bbbbbbbbbbbbbbb2 (rtb-0bbbbbbbbbbbbbbb2)")}
	covered := _with_subnets(gate, {"subnet-0aaaaaaaaaaaaaaa1": "rtb-0aaaaaaaaaaaaaaa1", "subnet-0bbbbbbbbbbbbbbb2": "rtb-0aaaaaaaaaaaaaaa1"})
	exfiltration_paths.violation == set() with input as covered
}

# an S3 interface endpoint without private DNS next to an available S3 gateway: the gateway serves;
# another Seedance stack's endpoint is the VPC's
test_pass_s3_interface_without_private_dns_beside_a_gateway_gdpr if {
	s3_interface := fixtures.endpoint_fact("vpce-0aaaaaaaaaaaaaaa6", "s3", "Interface", "available", false, fixtures.account_endpoint_policy)
	theirs := object.union(fixtures.endpoint_fact("vpce-0aaaaaaaaaaaaaaa3", "logs", "Interface", "available", true, fixtures.account_endpoint_policy), {"tags": {"seedance:stack": "shared-network"}})
	services := {"kms": [_kms_fact(fixtures.account_endpoint_policy)], "s3": [s3_interface, _s3_fact], "logs": [theirs]}
	v := exfiltration_paths.violation with input as fixtures.gate_input_with_endpoints(_own, [], ["s3", "kms", "logs"], _vpc, services)
	v == set()
}

# red team: a named principal of another account admits it; the stack's own account's do not
_unrestricted_kms := {fixtures.stack_finding("GDPR-44-2", "advisory", "VPC endpoint vpce-0aaaaaaaaaaaaaaa1 for kms (network.existingEndpoints, read from EC2) has no policy restricting it to the organisation or account")}

_kms_with(statements) := fixtures.gate_input_with_endpoints(_own, [], ["s3", "kms", "logs"], _vpc, {
	"kms": [_kms_fact({"Statement": statements})], "s3": [_s3_fact], "logs": [
		fixtures.endpoint_fact("vpce-0aaaaaaaaaaaaaaa3", "logs", "Interface", "available", true, fixtures.account_endpoint_policy),
	],
})

_allow_to(principal) := {"Effect": "Allow", "Principal": principal, "Action": "*", "Resource": "*"}

test_fail_endpoint_policy_naming_another_account_gdpr if {
	every principal in [
		{"AWS": "999999999999"}, {"AWS": "arn:aws:iam::999999999999:role/X"}, {"AWS": ["111122223333", "arn:aws:iam::999999999999:root"]},
		{"AWS": "arn:aws:sts::999999999999:assumed-role/X/s"}, {"CanonicalUser": "abc"}, {"AWS": []},
	] {
		v := exfiltration_paths.violation with input as _kms_with([_allow_to(principal)])
		v == _unrestricted_kms
	}
}

test_pass_endpoint_policy_naming_the_own_account_gdpr if {
	every principal in [{"AWS": "111122223333"}, {"AWS": ["arn:aws:iam::111122223333:role/X", "arn:aws:iam::111122223333:root"]}] {
		exfiltration_paths.violation == set() with input as _kms_with([_allow_to(principal)])
	}
}

# a named principal of an account the policy does not say (no cloud.accountId) may be another's
test_fail_endpoint_policy_named_principal_account_unknown_gdpr if {
	gate := json.patch(_kms_with([_allow_to({"AWS": "111122223333"})]), [{"op": "remove", "path": "/policy/cloud/accountId"}])
	v := exfiltration_paths.violation with input as gate
	v == _unrestricted_kms
}

# red team: a Deny of everything to principals of other accounts (or another organisation) fences the
# Allow; AWS's data perimeter endpoint policy (organisation Allow + AWS services) restricts
_fence(operator, key, value) := {"Effect": "Deny", "Principal": "*", "Action": "*", "Resource": "*", "Condition": {operator: {key: value}}}

test_pass_endpoint_policy_fenced_by_a_deny_gdpr if {
	every fence in [
		_fence("StringNotEquals", "aws:PrincipalAccount", "111122223333"),
		_fence("StringNotEqualsIfExists", "aws:PrincipalAccount", ["111122223333"]),
		_fence("StringNotEquals", "aws:PrincipalOrgID", "o-abcdefghij"),
		object.union(_fence("StringNotEquals", "aws:PrincipalOrgID", "o-abcdefghij"), {"Principal": {"AWS": "*"}, "Action": ["*"]}),
	] {
		exfiltration_paths.violation == set() with input as _kms_with([fixtures.full_access_endpoint_policy.Statement[0], fence])
	}
}

test_fail_endpoint_policy_fence_that_lets_others_in_gdpr if {
	every fence in [
		_fence("StringNotEquals", "aws:PrincipalAccount", "999999999999"), # another account's fence
		_fence("StringEquals", "aws:PrincipalAccount", "999999999999"), # denies only that one
		_fence("StringNotEquals", "aws:PrincipalOrgID", "o-*"), # a wildcard: not an organisation
		object.union(_fence("StringNotEquals", "aws:PrincipalAccount", "111122223333"), {"Action": "s3:PutObject"}), # only one action
		object.union(_fence("StringNotEquals", "aws:PrincipalAccount", "111122223333"), {"Resource": "arn:aws:s3:::b/*"}),
		object.union(_fence("StringNotEquals", "aws:PrincipalAccount", "111122223333"), {"Principal": {"AWS": "arn:aws:iam::111122223333:root"}}),
		object.union(_fence("StringNotEquals", "aws:PrincipalAccount", "111122223333"), {"Effect": "Allow"}),
		object.union(_fence("StringNotEquals", "aws:PrincipalAccount", "111122223333"), {"Condition": {"StringNotEquals": {"aws:PrincipalAccount": "111122223333"}, "Bool": {"aws:SecureTransport": "false"}}}), # denies only plain HTTP
	] {
		v := exfiltration_paths.violation with input as _kms_with([fixtures.full_access_endpoint_policy.Statement[0], fence])
		v == _unrestricted_kms
	}
}

test_pass_aws_data_perimeter_endpoint_policy_gdpr if {
	statements := [
		{"Sid": "AllowRequestsByOrgsIdentitiesToOrgsResources", "Effect": "Allow", "Principal": {"AWS": "*"}, "Action": "*", "Resource": "*",
			"Condition": {"StringEquals": {"aws:PrincipalOrgID": "o-abcdefghij", "aws:ResourceOrgID": "o-abcdefghij"}}},
		{"Sid": "AllowRequestsByAWSServicePrincipals", "Effect": "Allow", "Principal": {"AWS": "*"}, "Action": "*", "Resource": "*",
			"Condition": {"Bool": {"aws:PrincipalIsAWSService": "true"}}},
	]
	exfiltration_paths.violation == set() with input as _kms_with(statements)
}

test_fail_aws_service_statement_false_gdpr if {
	st := {"Effect": "Allow", "Principal": "*", "Action": "*", "Resource": "*", "Condition": {"Bool": {"aws:PrincipalIsAWSService": "false"}}}
	v := exfiltration_paths.violation with input as _kms_with([st])
	v == _unrestricted_kms
}

# red team (false positive): an endpoint policy managed by its own aws:ec2/vpcEndpointPolicy counts;
# it replaces the endpoint's at apply, so an open one there is reported even beside a restricted inline one
_ep_policy(name, ep, policy) := object.union(
	fixtures.resource("aws:ec2/vpcEndpointPolicy:VpcEndpointPolicy", name, {"vpcEndpointId": "vpce-0kms", "policy": policy}),
	{"property_dependencies": {"vpcEndpointId": [ep.urn]}},
)

test_a_standalone_endpoint_policy_is_the_endpoint_s_policy_gdpr if {
	bare := _ep("kms", "kms", "Interface", "")
	open := json.marshal({"Statement": [{"Effect": "Allow", "Principal": "*", "Action": "*", "Resource": "*"}]})
	passing := [pass_resources[0], bare, pass_resources[2], _ep_policy("kms-policy", bare, _restricted)]
	v := exfiltration_paths.violation with input as fixtures.gate_input(fixtures.gdpr_policy, passing)
	v == set()
	inline := _ep("kms", "kms", "Interface", _restricted)
	failing := [pass_resources[0], inline, pass_resources[2], _ep_policy("kms-policy", inline, open)]
	w := exfiltration_paths.violation with input as fixtures.gate_input(fixtures.gdpr_policy, failing)
	w == {_f("kms", "VPC endpoint for kms has no policy restricting it to the organisation or account")}
}
