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

# a service whose endpoint the VPC already has, another stack's or the landing zone's, as the policy
# says (network.existingEndpoints): not in the document, so taken on the policy's word (every report
# says its state, private DNS and policy were not checked)
existing(name) if {
	listed := object.get(input.policy, ["network", "existingEndpoints"], [])
	is_array(listed)
	name in listed
}

# the VPC has an endpoint for the service: one of the document's, or one the policy says it has
present(doc, name) if exists(doc, name)

present(_, name) if existing(name)

interface(ep) if object.get(ep.inputs, "vpcEndpointType", "Gateway") == "Interface"

_restricting_keys := {"aws:principalorgid", "aws:principalaccount", "aws:resourceaccount", "aws:resourceorgid", "aws:principalorgpaths"}

org_restricted(ep) if {
	policy := object.get(ep.inputs, "policy", "")
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
