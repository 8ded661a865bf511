package budget.fleet_capacity

import data.lib.budget
import data.lib.findings
import data.lib.fleets
import data.lib.resources

# METADATA
# title: "Deployed fleets are the planned fleets"
# description: >-
#   The budget rules judge the plan's estimate, so the autoscaling groups that deploy must be the
#   ones that were planned: each runs a fleet the policy declares (and the plan, when given, plans),
#   the maxSize of a fleet's groups together, and of every scheduled action on them, stays within
#   that fleet's capacity.max, and their instance types are among those the plan priced for the
#   fleet, and a fleet's capacity reservations hold no more units than the plan reserves or always
#   runs on-demand (its on-demand base up to capacity.min). Anything
#   else — a size or type that cannot be read, a warm pool, a schedule on a group it cannot name,
#   reservations of no planned fleet, EKS managed node groups, EC2 Fleets, Spot Fleet requests,
#   instances and spot requests of their own, AWS Batch compute environments, aws-native groups,
#   Karpenter NodePools, EKS Auto Mode — is capacity no estimate covers.
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

_planned := {fp.name: fp | some fp in object.get(input, ["plan", "fleets"], [])}

_has_plan if is_array(object.get(input, ["plan", "fleets"], null))

# the instance types the plan priced, per fleet
_planned_types[name] := {t.instance_type | some t in object.get(fp, "instance_types", [])} if {
	some name, fp in _planned
}

# the policy's fleets by name, and each autoscaling group's fleet: worked out once
_policy_fleets[f.name] := f if some f in object.get(input.policy, "fleets", [])

_asg_fleet[i] := fleets.fleet(i) if some i in fleets.asg_indices(input.document)

# the fleet of each component that holds a group (its schedules and launch templates sit beside it)
_fleets_of_parent[parent] contains name if {
	some i, name in _asg_fleet
	parent := object.get(input.document.resources[i], "parent", "")
	parent != ""
}

_problems contains findings.problem(input.document.resources[i], msg) if {
	some i, name in _asg_fleet
	not _policy_fleets[name]
	msg := sprintf("group runs fleet %s, which the policy does not declare: no estimate covers it", [name])
}

_problems contains findings.problem(input.document.resources[i], msg) if {
	_has_plan
	some i, name in _asg_fleet
	_policy_fleets[name]
	not _planned[name]
	msg := sprintf("group runs fleet %s, which the plan does not plan: no estimate covers it", [name])
}

# every group's maxSize must be a number the rules can add up
_problems contains findings.problem(asg, msg) if {
	some i, name in _asg_fleet
	asg := input.document.resources[i]
	size := object.get(asg.inputs, "maxSize", null)
	not is_number(size)
	msg := sprintf("fleet %s: group maxSize %v cannot be read, so its capacity cannot be checked against the estimate", [name, size])
}

_max_total[name] := sum([size |
	some i, n in _asg_fleet
	n == name
	size := input.document.resources[i].inputs.maxSize
	is_number(size)
]) if some name, _ in _policy_fleets

_problems contains findings.problem(input.document.resources[i], msg) if {
	some name, total in _max_total
	limit := object.get(_policy_fleets, [name, "capacity", "max"], null)
	is_number(limit)
	total > limit
	some i, n in _asg_fleet
	n == name
	msg := sprintf("fleet %s: its groups' maxSize adds up to %v, above the policy's capacity.max %v", [name, total, limit])
}

_problems contains findings.problem(sched, msg) if {
	some j in resources.indices("aws:autoscaling/schedule:Schedule")
	sched := input.document.resources[j]
	some name in _schedule_fleets(sched)
	limit := object.get(_policy_fleets, [name, "capacity", "max"], null)
	is_number(limit)
	size := object.get(sched.inputs, "maxSize", null)
	is_number(size)
	size > limit
	msg := sprintf("fleet %s: scheduled action raises maxSize to %v, above the policy's capacity.max %v", [name, size, limit])
}

_problems contains findings.problem(sched, msg) if {
	some j in resources.indices("aws:autoscaling/schedule:Schedule")
	sched := input.document.resources[j]
	some name in _schedule_fleets(sched)
	size := object.get(sched.inputs, "maxSize", null)
	size != null
	not is_number(size)
	msg := sprintf("fleet %s: scheduled action maxSize %v cannot be read, so its capacity cannot be checked against the estimate", [name, size])
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

# a type a preview does not know yet may be any type, priced by the plan or not
_problems contains findings.problem(asg, msg) if {
	some i, name in _asg_fleet
	_planned_types[name]
	asg := input.document.resources[i]
	some t in fleets.instance_types(asg)
	not _known_value(t)
	msg := sprintf("fleet %s: an instance type of the group is unknown until apply (%v), so whether the plan priced it cannot be established", [name, t])
}

_known_value(t) if {
	is_string(t)
	not t in budget.missing_values
}

# a scheduled action that names no group of the document by a value known now, and has no parent
# fleet: the group it resizes, and so the capacity.max its maxSize must respect, cannot be told
_problems contains findings.problem(sched, msg) if {
	some j in resources.indices("aws:autoscaling/schedule:Schedule")
	sched := input.document.resources[j]
	group := object.get(sched.inputs, "autoscalingGroupName", null)
	not _known_value(group) # first: most schedules name their group, and the fleets cost more to find
	size := object.get(sched.inputs, "maxSize", null)
	size != null
	count(_schedule_fleets(sched)) == 0
	msg := sprintf("scheduled action sets maxSize %v on a group named by a value unknown until apply (%v), so which fleet's capacity.max it must respect cannot be established", [size, group])
}

# a group whose types are not listed (no mixed-instances overrides, or overrides that choose by
# attributes) runs whatever it is given: the plan's prices do not cover it
_problems contains findings.problem(asg, msg) if {
	some i, name in _asg_fleet
	_planned_types[name]
	asg := input.document.resources[i]
	overrides := object.get(asg.inputs, ["mixedInstancesPolicy", "launchTemplate", "overrides"], [])
	_unlisted_types(overrides)
	msg := sprintf("fleet %s: the group does not list its instance types (mixed-instances overrides with instanceType), so the plan's prices may not apply", [name])
}

_unlisted_types(overrides) if not is_array(overrides)

_unlisted_types(overrides) if count(overrides) == 0

_unlisted_types(overrides) if {
	some o in overrides
	not is_string(object.get(o, "instanceType", null))
}

# the fleets a scheduled action sizes: those of its parent component, and the fleet of the group its
# autoscalingGroupName names (a schedule created elsewhere in the program)
_schedule_fleets(sched) := object.get(_fleets_of_parent, object.get(sched, "parent", ""), set()) | {name |
	group := object.get(sched.inputs, "autoscalingGroupName", null)
	is_string(group)
	some key in resources.lookup_forms(group)
	some name in object.get(_fleets_by_group_key, key, set())
}

# the fleets of the groups by every way a schedule may name a group: its recorded id, its URN, its
# name input, its logical name (which a mock id, NAME-xxxxxxxx, carries); an index, built once, so
# that schedules are not matched against every group
_fleets_by_group_key[key] contains name if {
	some i, name in _asg_fleet
	asg := input.document.resources[i]
	some key in resources.reference_keys(asg) | {n | n := asg.inputs.name; is_string(n)}
}

# a warm pool keeps instances (running, or stopped with their volumes) beyond the group's size
_problems contains findings.problem(asg, msg) if {
	some i, name in _asg_fleet
	asg := input.document.resources[i]
	object.get(asg.inputs, "warmPool", null) != null
	msg := sprintf("fleet %s: the group's warm pool keeps instances beyond the capacity the plan priced", [name])
}

# compute that launches instances outside the fleets' autoscaling groups: no plan or estimate covers it
_unplanned_capacity := {
	"aws:eks/nodeGroup:NodeGroup": "EKS managed node group",
	"aws:ec2/fleet:Fleet": "EC2 Fleet",
	"aws:ec2/spotFleetRequest:SpotFleetRequest": "Spot Fleet request",
	"aws:ec2/instance:Instance": "EC2 instance (an instance of its own)",
	"aws:ec2/spotInstanceRequest:SpotInstanceRequest": "spot instance request (an instance of its own)",
	"aws:batch/computeEnvironment:ComputeEnvironment": "AWS Batch compute environment",
	"aws-native:autoscaling:AutoScalingGroup": "Auto Scaling group (aws-native)",
	"aws-native:ec2:Instance": "EC2 instance (aws-native, an instance of its own)",
	"aws-native:ec2:SpotFleet": "Spot Fleet (aws-native)",
	"aws-native:ec2:Ec2Fleet": "EC2 Fleet (aws-native)",
	"aws-native:eks:Nodegroup": "EKS managed node group (aws-native)",
}

_problems contains findings.problem(r, msg) if {
	some type, noun in _unplanned_capacity
	some r in resources.of_type(input.document, type)
	msg := sprintf("%s launches instances that no fleet of the policy plans, so the estimate the budget rules check does not cover them", [noun])
}

# Karpenter's NodePools (karpenter.sh, every version) start nodes of their own, and an EKS cluster
# with Auto Mode's compute (computeConfig.enabled) creates and deletes instances itself
_problems contains findings.problem(r, "Karpenter NodePool launches nodes that no fleet of the policy plans, so the estimate the budget rules check does not cover them") if {
	some t in resources.k8s_types(input.document)
	startswith(split(t, ":")[1], "karpenter.sh/")
	resources.kind(t) == "NodePool"
	some r in resources.of_type(input.document, t)
}

_problems contains findings.problem(r, "EKS Auto Mode (computeConfig.enabled) launches instances that no fleet of the policy plans, so the estimate the budget rules check does not cover them") if {
	some r in resources.of_type(input.document, "aws:eks/cluster:Cluster")
	config := object.get(r.inputs, "computeConfig", {})
	is_object(config)
	object.get(config, "enabled", false) != false
}

# On-demand capacity reservations bill at the on-demand rate whether or not instances use them. A
# fleet's reservations (its seedance:fleet tag) may hold at most the units the plan reserves for it
# (instances times the plan's weight for their type); a reservation of no planned fleet, of a type
# the plan did not price, or of a count unknown until apply, is capacity the estimate does not cover.
_odcr_type := "aws:ec2/capacityReservation:CapacityReservation"

_odcr_fleet(i) := object.get(object.get(resources.tags_at, i, {}), "seedance:fleet", null)

_odcr_units[name] contains [i, units] if {
	some i in resources.indices(_odcr_type)
	name := _odcr_fleet(i)
	fp := _planned[name]
	r := input.document.resources[i]
	count_ := r.inputs.instanceCount
	is_number(count_)
	some t in object.get(fp, "instance_types", [])
	t.instance_type == r.inputs.instanceType
	units := count_ * object.get(t, "weight", 1)
}

# A fleet's reservations may hold the units the plan reserves, or the on-demand base its groups
# always run (a gold fleet's on-demand node; the base up to capacity.min), whichever is more: those
# instances run all the time and use the reservation
_problems contains findings.problem(findings.stack(input.document), msg) if {
	some name, held in _odcr_units
	total := sum([u | some [_, u] in held])
	fp := _planned[name]
	reserved := object.get(fp, "reserved_units", 0)
	always_on := min([_number_or_zero(object.get(fp, "on_demand_base", 0)), _number_or_zero(object.get(fp, "min_size", 0))])
	allowed := max([_number_or_zero(reserved), always_on])
	total > allowed
	msg := sprintf("fleet %s: its capacity reservations hold %v units, more than the %v the plan reserves or always runs on-demand; the rest bill at the on-demand rate, used or not, outside the estimate", [name, total, allowed])
}

_number_or_zero(x) := x if is_number(x)

_number_or_zero(x) := 0 if not is_number(x)

_problems contains findings.problem(r, msg) if {
	_has_plan
	some i in resources.indices(_odcr_type)
	r := input.document.resources[i]
	not i in _counted_odcrs
	msg := sprintf("capacity reservation of %v x %v is not one the plan reserves (its seedance:fleet tag %v names no planned fleet, its type is not one the plan priced for it, or its count is unknown until apply); it bills at the on-demand rate, used or not, outside the estimate", [
		object.get(r.inputs, "instanceCount", "?"), object.get(r.inputs, "instanceType", "?"), _odcr_fleet(i),
	])
}

_counted_odcrs := {j | some _, held in _odcr_units; some [j, _] in held}
