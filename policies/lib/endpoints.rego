# METADATA
# title: VPC endpoint helpers
# description: >-
#   VPC endpoints by service (the last part of the service name) and their policies, and the
#   endpoints the policy says the VPC already has (network.existingEndpoints).
# scope: package
package lib.endpoints

import data.lib.resources
import data.lib.routing

endpoint_type := "aws:ec2/vpcEndpoint:VpcEndpoint"

# com.amazonaws.eu-central-1.ecr.dkr -> ecr.dkr; cn.com.amazonaws.cn-north-1.s3 -> s3
service(ep) := concat(".", array.slice(parts, i + 1, count(parts))) if {
	parts := split(object.get(ep.inputs, "serviceName", ""), ".")
	some i, p in parts
	contains(p, "-")
	regex.match(`^[a-z]{2}(-gov)?-[a-z]+-\d$`, p)
}

# endpoint positions by service, built once per evaluation
_by_service[name] contains i if {
	some i in resources.indices(endpoint_type)
	name := service(input.document.resources[i])
}

for_service(_, name) := [input.document.resources[i] | some i in object.get(_by_service, name, set())]

exists(_, name) if count(object.get(_by_service, name, set())) > 0

# a service the policy says the VPC already has an endpoint for, another stack's or the landing
# zone's (network.existingEndpoints)
listed(name) if {
	services := object.get(input.policy, ["network", "existingEndpoints"], [])
	is_array(services)
	name in services
}

# What EC2 says of the VPC's endpoints for the listed services (input.facts.vpc_endpoints, read by
# seedance check --lookup with DescribeVpcEndpoints): only facts read for the policy's own VPC count
_read_services := input.facts.vpc_endpoints.services if {
	input.facts.vpc_endpoints.vpc_id == object.get(input.policy, ["cloud", "vpcId"], null)
}

_read_vpc := input.facts.vpc_endpoints.vpc_id if _read_services

# the listed service's endpoints were read from EC2
read(name) if {
	listed(name)
	_ := _read_services[name]
}

# an endpoint this very stack created in an earlier deploy (tagged seedance:stack with its name): not
# the VPC's own - the stack, no longer declaring it, deletes it on the next deploy
own(ep) if object.get(ep, ["tags", "seedance:stack"], null) == input.document.stack

# the listed service's endpoints EC2 describes as another stack's or the landing zone's
_others(name) := [ep | some ep in _read_services[name]; not own(ep)] if read(name)

# the listed service's endpoints in the VPC that are up (state available) and not this stack's own
read_available(name) := [ep | some ep in _others(name); lower(ep.state) == "available"] if read(name)

# those that serve the service's traffic alone: a gateway on the route table of every subnet of the
# stack (below; gateways that do so together serve too, see _gateways_cover), an interface one with private DNS (without it clients resolve the public name and go through
# NAT). The same judgement as seedance.gate.facts.endpoint_unserved, which prices the traffic of a
# service none serves through NAT.
serving(name) := [ep | some ep in read_available(name); _serves(ep)] if read(name)

_serves(ep) if {
	ep.type == "Gateway"
	count(object.get(ep, "route_table_ids", [])) > 0
	count(gateway_misses(ep)) == 0
}

# The route table (subnet id -> route table id) of each subnet the stack is given (cloud.subnetIds)
# that EC2 described (input.facts.subnets: its own association, else its VPC's main table). A gateway
# endpoint serves the stack only when it is on every one's table: a subnet whose table lacks it sends
# that service's traffic through NAT. Without them (no cloud.subnetIds, or facts recorded without
# them) a gateway on any route table counts, its route tables not matched (the reports say so).
subnet_tables[id] := table if {
	ids := object.get(input.policy, ["cloud", "subnetIds"], [])
	is_array(ids)
	some id in ids
	table := input.facts.subnets[id].route_table_id
	is_string(table)
}

# the stack's subnets (of subnet_tables, id -> route table) whose route table a gateway endpoint is not on
gateway_misses(ep) := {id: table |
	some id, table in subnet_tables
	not table in object.get(ep, "route_table_ids", [])
}

_serves(ep) if {
	ep.type == "Interface"
	ep.private_dns_enabled == true
}

# The VPC has the listed service's endpoint: on the policy's word (every report says its state,
# private DNS and policy were not checked), or, when EC2 was read, one that serves is there
existing(name) if {
	listed(name)
	not read(name)
}

existing(name) if count(serving(name)) > 0

existing(name) if _gateways_cover(read_available(name))

# the policy lists the service, but EC2 says the VPC has no endpoint of it that serves
unavailable(name) if {
	count(serving(name)) == 0
	not _gateways_cover(read_available(name))
}

# Gateways (each on some route table) that are together on the route table of every subnet the stack
# is given: a route table holds one gateway endpoint per service, so a VPC may split its subnets'
# tables between two gateways of a service, and each subnet's traffic takes its own table's.
_gateways_cover(eps) if {
	gateways := [ep | some ep in eps; ep.type == "Gateway"; count(object.get(ep, "route_table_ids", [])) > 0]
	count(gateways) > 1
	on := {table | some ep in gateways; some table in ep.route_table_ids}
	count(gateway_misses({"route_table_ids": on})) == 0
}

# [service, endpoint] for the listed services' endpoints this stack created itself (see own)
own_listed contains [name, ep] if {
	some name, eps in _read_services
	listed(name)
	some ep in eps
	own(ep)
}

# "no VPC endpoint for S: CONSEQUENCE", saying so when the policy names one EC2 does not have
missing_message(name, consequence) := sprintf("no VPC endpoint for %s: %s", [name, consequence]) if not unavailable(name)

missing_message(name, consequence) := msg if {
	unavailable(name)
	msg := sprintf("no VPC endpoint for %s: network.existingEndpoints names it, but DescribeVpcEndpoints shows %s has none that serves%s: %s", [
		name, _read_vpc, _whys(name), consequence,
	])
}

_whys(name) := "" if count(_read_services[name]) == 0

_whys(name) := sprintf(" (%s)", [concat(", ", sort([_why_not(ep) | some ep in _read_services[name]]))]) if {
	count(_read_services[name]) > 0
}

_why_not(ep) := sprintf("%s is this stack's own, tagged seedance:stack=%s: listing it in existingEndpoints makes this deploy delete it", [ep.id, input.document.stack]) if {
	own(ep)
} else := sprintf("%s is %s", [ep.id, ep.state]) if {
	lower(ep.state) != "available"
} else := sprintf("%s is a gateway on no route table", [ep.id]) if {
	ep.type == "Gateway"
	count(object.get(ep, "route_table_ids", [])) == 0
} else := _misses_message(ep) if {
	ep.type == "Gateway"
} else := sprintf("%s has private DNS off", [ep.id]) if {
	ep.type == "Interface"
} else := sprintf("%s is of type %s", [ep.id, ep.type])

# [service, endpoint] for the available interface endpoints EC2 describes without private DNS, of a
# listed service none of whose available endpoints serves its public name in the VPC (an interface
# one with private DNS, or a gateway): clients resolve the public endpoint
private_dns_off contains [name, ep] if {
	some name, _ in _read_services
	available := read_available(name)
	not _serves_public_name(available)
	some ep in available
	ep.type == "Interface"
	not ep.private_dns_enabled == true
}

_serves_public_name(eps) if {
	some ep in eps
	ep.type == "Interface"
	ep.private_dns_enabled == true
}

_serves_public_name(eps) if {
	some ep in eps
	ep.type == "Gateway"
	_serves(ep)
}

_serves_public_name(eps) if _gateways_cover(eps)

# "vpce-... is a gateway not on the route table of the stack's subnet subnet-b (rtb-b)": the subnets
# of cloud.subnetIds it misses, whose traffic to the service goes through NAT
_misses_message(ep) := sprintf("%s is a gateway not on the route table%s of the stack's subnet%s %s", [
	ep.id, suffix, suffix,
	concat(", ", [sprintf("%s (%s)", [id, table]) | some id, table in misses]),
]) if {
	misses := gateway_misses(ep)
	suffix := _plural(count(misses))
}

_plural(1) := ""

_plural(n) := "s" if n != 1

# the VPC has an endpoint for the service: one of the document's, or one the policy says it has
present(doc, name) if exists(doc, name)

present(_, name) if existing(name)

interface(ep) if object.get(ep.inputs, "vpcEndpointType", "Gateway") == "Interface"

_restricting_keys := {"aws:principalorgid", "aws:principalaccount", "aws:resourceaccount", "aws:resourceorgid", "aws:principalorgpaths"}

# an endpoint's policy: its own, unless an aws:ec2/vpcEndpointPolicy of the document manages it (then
# that one, which replaces the endpoint's at apply; every such policy tied to it must restrict)
org_restricted(ep) if {
	count(_policies_of(ep)) == 0
	policy_restricted(object.get(ep.inputs, "policy", ""))
}

org_restricted(ep) if {
	count(_policies_of(ep)) > 0
	every p in _policies_of(ep) {
		policy_restricted(object.get(p.inputs, "policy", ""))
	}
}

_policies_of(ep) := [p |
	some p in resources.of_types(input.document, {"aws:ec2/vpcEndpointPolicy:VpcEndpointPolicy"})
	routing.refers(p, "vpcEndpointId", ep)
]

# an endpoint policy (a JSON string, as a document holds it, or parsed, as EC2's facts do) that admits
# only the organisation or account: its every statement restricts access to them, or a Deny fences
# them all (see _fence)
policy_restricted(policy) if {
	policy != ""
	statements := resources.policy_statements(policy)
	count(statements) > 0
	_restricted(statements)
}

_restricted(statements) if {
	every st in statements {
		_restricts(st)
	}
}

_restricted(statements) if {
	some st in statements
	_fence(st)
}

_restricts(st) if st.Effect == "Deny"

# named principals, each of the stack's own account (cloud.accountId) or an AWS service; a principal of
# another account, or any named one when the policy does not say its account, admits another account
_restricts(st) if {
	not resources.principal_star(st)
	_principals_own(st)
}

_restricts(st) if {
	resources.narrows(st, _restricting_keys)
	not _foreign_account(st)
}

# AWS services acting on their own behalf (aws:PrincipalIsAWSService true; AWS's data perimeter
# endpoint policy allows them so): no account's principal
_restricts(st) if {
	some operator, clause in object.get(st, "Condition", {})
	lower(operator) == "bool"
	is_object(clause)
	some key, value in clause
	lower(key) == "aws:principalisawsservice"
	values := resources.as_list(value)
	count(values) > 0
	every v in values {
		lower(sprintf("%v", [v])) == "true"
	}
}

# an account condition naming an account other than the stack's own (when the policy declares it)
_account_keys := {"aws:principalaccount", "aws:resourceaccount"}

_foreign_account(st) if {
	some _, clause in object.get(st, "Condition", {})
	is_object(clause)
	some key, values in clause
	lower(key) in _account_keys
	some v in resources.as_list(values)
	v != _account
}

_account := a if {
	a := object.get(input.policy, ["cloud", "accountId"], null)
	is_string(a)
}

_principals_own(st) if {
	is_object(st.Principal)
	count(st.Principal) > 0
	every key, value in st.Principal {
		names := resources.as_list(value)
		count(names) > 0
		every p in names {
			_own_principal(key, p)
		}
	}
}

_own_principal("Service", p) if is_string(p)

_own_principal("AWS", p) if _principal_account(p) == _account

# the account of an AWS principal: 123456789012, arn:aws:iam::123456789012:root, ...:role/X, sts assumed roles
_principal_account(p) := p if {
	is_string(p)
	regex.match(`^[0-9]{12}$`, p)
}

_principal_account(p) := split(p, ":")[4] if {
	is_string(p)
	regex.match(`^arn:aws(-cn|-us-gov)?:(iam|sts)::[0-9]{12}:`, p)
}

# A Deny of everything to everyone whose account (aws:PrincipalAccount, the stack's own when the policy
# says it) or organisation (aws:PrincipalOrgID) is another: nothing else of the policy can admit
# another account. Only a Deny with this one condition: another narrows when it applies.
_fence(st) if {
	st.Effect == "Deny"
	not "NotPrincipal" in object.keys(st)
	_everyone(st.Principal)
	_all(object.get(st, "Action", null))
	_all(object.get(st, "Resource", null))
	conditions := object.get(st, "Condition", {})
	count(conditions) == 1
	some operator, clause in conditions
	lower(operator) in {"stringnotequals", "stringnotequalsifexists"}
	is_object(clause)
	count(clause) == 1
	some key, values in clause
	names := resources.as_list(values)
	count(names) > 0
	every v in names {
		_fence_value(lower(key), v)
	}
}

_everyone(p) if p == "*"

_everyone(p) if {
	is_object(p)
	object.keys(p) == {"AWS"}
	resources.as_list(p.AWS) == ["*"]
}

_all(v) if v == "*"

_all(v) if v == ["*"]

_fence_value("aws:principalaccount", v) if v == _account

_fence_value("aws:principalaccount", v) if {
	not _account
	regex.match(`^[0-9]{12}$`, v)
}

_fence_value("aws:principalorgid", v) if regex.match(`^o-[a-z0-9]{10,32}$`, v)

# reading ECR's image layers: S3 serves them from an AWS-owned bucket per region, fetched with a
# presigned URL of an ECR account (so no account condition can admit it); only that bucket, only reads
_read_actions := {"s3:getobject", "s3:getobjectversion"}

_restricts(st) if {
	not "NotAction" in object.keys(st)
	not "NotResource" in object.keys(st)
	actions := _as_set(object.get(st, "Action", []))
	count(actions) > 0
	every a in actions {
		is_string(a)
		lower(a) in _read_actions
	}
	named := _as_set(object.get(st, "Resource", []))
	count(named) > 0
	every r in named {
		is_string(r)
		regex.match(`^arn:aws(-cn|-us-gov)?:s3:::prod-[a-z]{2}(-gov)?-[a-z]+-[0-9]-starport-layer-bucket/\*$`, r)
	}
}

_as_set(v) := {x | some x in v} if is_array(v)

_as_set(v) := {v} if is_string(v)
