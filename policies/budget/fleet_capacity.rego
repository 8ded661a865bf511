package budget.fleet_capacity

import data.lib.budget
import data.lib.findings
import data.lib.fleets

# METADATA
# title: "Deployed fleets are the planned fleets"
# description: >-
#   The budget rules judge the plan's estimate, so the autoscaling groups that deploy must be the
#   ones that were planned: each runs a fleet the policy declares, its maxSize stays within that
#   fleet's capacity.max, and its instance types are among those the plan priced for the fleet.
#   Anything else would run capacity no estimate covers.
# related_resources:
#   - ref: https://docs.aws.amazon.com/autoscaling/ec2/userguide/ec2-auto-scaling-mixed-instances-groups.html
# custom:
#   control_id: BUDGET-FLEET-1
#   clause: "Seedance cost policy"
#   framework: budget
#   severity: mandatory
#   remediation: >-
#     Deploy the groups from the plan (the Seedance stack program), or declare the capacity in the
#     policy (a fleet, its capacity.max, its GPU or CPU requirement) and re-plan, so the estimate the
#     budget rules check covers what runs.
violation contains findings.finding("BUDGET-FLEET-1", p.resource, p.message) if {
	some p in _problems
}

# the instance types the plan priced, per fleet
_planned_types[fp.name] := {t.instance_type | some t in object.get(fp, "instance_types", [])} if {
	some fp in object.get(input, ["plan", "fleets"], [])
}

# the policy's fleets by name, and each autoscaling group's fleet: worked out once
_policy_fleets[f.name] := f if some f in object.get(input.policy, "fleets", [])

_asg_fleet[i] := fleets.fleet(i) if some i in fleets.asg_indices(input.document)

_problems contains findings.problem(input.document.resources[i], msg) if {
	some i, name in _asg_fleet
	not _policy_fleets[name]
	msg := sprintf("group runs fleet %s, which the policy does not declare: no estimate covers it", [name])
}

_problems contains findings.problem(asg, msg) if {
	some i, name in _asg_fleet
	limit := object.get(_policy_fleets, [name, "capacity", "max"], null)
	is_number(limit)
	asg := input.document.resources[i]
	size := object.get(asg.inputs, "maxSize", null)
	is_number(size)
	size > limit
	msg := sprintf("fleet %s: group maxSize %d is above the policy's capacity.max %d", [name, size, limit])
}

_problems contains findings.problem(asg, msg) if {
	some i, name in _asg_fleet
	planned := _planned_types[name]
	asg := input.document.resources[i]
	# a value a preview does not know yet is not a type the plan missed
	extra := {t | some t in fleets.instance_types(asg); is_string(t); not t in budget.missing_values} - planned
	count(extra) > 0
	msg := sprintf("fleet %s runs instance types the plan did not price: %s", [name, concat(", ", sort(extra))])
}
