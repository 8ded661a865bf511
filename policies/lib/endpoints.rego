# METADATA
# title: VPC endpoint helpers
# description: >-
#   VPC endpoints by service (the last part of the service name) and their policies, and the
#   endpoints the policy says the VPC already has (network.existingEndpoints).
# scope: package
package lib.endpoints

import data.lib.resources

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

# the listed service's endpoints in the VPC that serve (state available), as EC2 describes them
read_available(name) := [ep | some ep in _read_services[name]; lower(ep.state) == "available"] if read(name)

# The VPC has the listed service's endpoint: on the policy's word (every report says its state,
# private DNS and policy were not checked), or, when EC2 was read, an available one is there
existing(name) if {
	listed(name)
	not read(name)
}

existing(name) if count(read_available(name)) > 0

# the policy lists the service, but EC2 says the VPC has no endpoint of it available
unavailable(name) if count(read_available(name)) == 0

# "no VPC endpoint for S: CONSEQUENCE", saying so when the policy names one EC2 does not have
missing_message(name, consequence) := sprintf("no VPC endpoint for %s: %s", [name, consequence]) if not unavailable(name)

missing_message(name, consequence) := msg if {
	unavailable(name)
	msg := sprintf("no VPC endpoint for %s: network.existingEndpoints names it, but %s has none available%s (from DescribeVpcEndpoints): %s", [
		name, _read_vpc, _states(name), consequence,
	])
}

_states(name) := "" if count(_read_services[name]) == 0

_states(name) := sprintf(" (%s)", [concat(", ", sort([sprintf("%s is %s", [ep.id, ep.state]) | some ep in _read_services[name]]))]) if {
	count(_read_services[name]) > 0
}

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
}

# the VPC has an endpoint for the service: one of the document's, or one the policy says it has
present(doc, name) if exists(doc, name)

present(_, name) if existing(name)

interface(ep) if object.get(ep.inputs, "vpcEndpointType", "Gateway") == "Interface"

_restricting_keys := {"aws:principalorgid", "aws:principalaccount", "aws:resourceaccount", "aws:resourceorgid", "aws:principalorgpaths"}

org_restricted(ep) if policy_restricted(object.get(ep.inputs, "policy", ""))

# an endpoint policy (a JSON string, as a document holds it, or parsed, as EC2's facts do) whose every
# statement restricts access to the organisation or account
policy_restricted(policy) if {
	policy != ""
	statements := resources.policy_statements(policy)
	count(statements) > 0
	every st in statements {
		_restricts(st)
	}
}

_restricts(st) if st.Effect == "Deny"

_restricts(st) if not resources.principal_star(st)

_restricts(st) if {
	resources.narrows(st, _restricting_keys)
	not _foreign_account(st)
}

# an account condition naming an account other than the stack's own (when the policy declares it)
_account_keys := {"aws:principalaccount", "aws:resourceaccount"}

_foreign_account(st) if {
	account := object.get(input.policy, ["cloud", "accountId"], null)
	is_string(account)
	some _, clause in object.get(st, "Condition", {})
	is_object(clause)
	some key, values in clause
	lower(key) in _account_keys
	some v in resources.as_list(values)
	v != account
}

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
