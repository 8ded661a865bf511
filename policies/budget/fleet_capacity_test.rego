package budget.fleet_capacity_test

import data.budget.fleet_capacity
import data.lib.fixtures

_policy := json.patch(fixtures.no_framework_policy, [{"op": "replace", "path": "/fleets", "value": [
	{"name": "inference", "sla": "gold", "capacity": {"min": 1, "desired": 2, "max": 8}, "offPeak": [{"cron": "0 22 * * *", "hours": 8, "desired": 4}]},
	{"name": "train", "sla": "bronze", "capacity": {"min": 0, "desired": 0, "max": 0}},
]}])

_parent(fleet) := sprintf("urn:pulumi:test::seedance::seedance:fleet:SpotRiFleet::%s", [fleet])

_asg_named(name, fleet, max_size, types) := object.union(
	fixtures.resource("aws:autoscaling/group:Group", name, {
		"minSize": 0,
		"maxSize": max_size,
		"mixedInstancesPolicy": {
			"instancesDistribution": {"onDemandBaseCapacity": 1, "onDemandPercentageAboveBaseCapacity": 70},
			"launchTemplate": {"overrides": [{"instanceType": t} | some t in types]},
		},
		"tags": [{"key": "seedance:fleet", "value": fleet, "propagateAtLaunch": true}],
	}),
	{"parent": _parent(fleet)},
)

_asg(fleet, max_size, types) := _asg_named(sprintf("%s-asg", [fleet]), fleet, max_size, types)

_schedule(fleet, max_size) := object.union(
	fixtures.resource("aws:autoscaling/schedule:Schedule", sprintf("%s-offpeak-0-up", [fleet]), {"maxSize": max_size, "minSize": 0, "desiredCapacity": 4}),
	{"parent": _parent(fleet)},
)

_plan := {"monthly_cost": 1, "currency": "USD", "fleets": [
	{"name": "inference", "instance_types": [{"instance_type": "g5.xlarge"}, {"instance_type": "g5.2xlarge"}], "on_demand_base": 1, "spot_share_above_base": 0.3},
	{"name": "train", "instance_types": [{"instance_type": "p4d.24xlarge"}], "on_demand_base": 1, "spot_share_above_base": 0.3},
]}

_gate(resources) := object.union(fixtures.gate_input(_policy, resources), {"plan": _plan})

_f(name, msg) := fixtures.finding("BUDGET-FLEET-1", "mandatory", "aws:autoscaling/group:Group", name, msg)

test_pass_as_planned if {
	v := fleet_capacity.violation with input as _gate([
		_asg("inference", 8, ["g5.2xlarge", "g5.xlarge"]), _asg("train", 0, ["p4d.24xlarge"]), _schedule("inference", 8),
	])
	v == set()
}

test_fail_one_above_capacity_max if {
	v := fleet_capacity.violation with input as _gate([_asg("inference", 9, ["g5.xlarge"]), _asg("train", 2, ["p4d.24xlarge"])])
	v == {
		_f("inference-asg", "fleet inference: its groups' maxSize adds up to 9, above the policy's capacity.max 8"),
		_f("train-asg", "fleet train: its groups' maxSize adds up to 2, above the policy's capacity.max 0"),
	}
}

test_fail_two_groups_of_one_fleet_add_up if {
	v := fleet_capacity.violation with input as _gate([
		_asg_named("inference-a", "inference", 8, ["g5.xlarge"]), _asg_named("inference-b", "inference", 8, ["g5.xlarge"]),
	])
	v == {
		_f("inference-a", "fleet inference: its groups' maxSize adds up to 16, above the policy's capacity.max 8"),
		_f("inference-b", "fleet inference: its groups' maxSize adds up to 16, above the policy's capacity.max 8"),
	}
}

test_fail_a_schedule_above_capacity_max if {
	v := fleet_capacity.violation with input as _gate([_asg("inference", 8, ["g5.xlarge"]), _schedule("inference", 1000)])
	v == {fixtures.finding(
		"BUDGET-FLEET-1", "mandatory", "aws:autoscaling/schedule:Schedule", "inference-offpeak-0-up",
		"fleet inference: scheduled action raises maxSize to 1000 units, above the policy's capacity.max 8",
	)}
}

test_fail_a_schedule_size_that_cannot_be_read if {
	v := fleet_capacity.violation with input as _gate([_asg("inference", 8, ["g5.xlarge"]), _schedule("inference", "[unknown]")])
	v == {fixtures.finding(
		"BUDGET-FLEET-1", "mandatory", "aws:autoscaling/schedule:Schedule", "inference-offpeak-0-up",
		"fleet inference: scheduled action maxSize [unknown] cannot be read, so its capacity cannot be checked against the estimate",
	)}
}

test_fail_unplanned_instance_types if {
	v := fleet_capacity.violation with input as _gate([_asg("inference", 8, ["g5.xlarge", "p4de.24xlarge", "g4dn.xlarge"])])
	v == {_f("inference-asg", "fleet inference runs instance types the plan did not price: g4dn.xlarge, p4de.24xlarge")}
}

test_fail_types_the_group_does_not_list if {
	by_attributes := json.patch(_asg("inference", 8, []), [{"op": "replace", "path": "/inputs/mixedInstancesPolicy/launchTemplate/overrides",
		"value": [{"instanceRequirements": {"vcpuCount": {"min": 4}}}]}])
	plain := json.patch(_asg("inference", 8, []), [{"op": "remove", "path": "/inputs/mixedInstancesPolicy"}])
	msg := "fleet inference: the group does not list its instance types (mixed-instances overrides with instanceType), so the plan's prices may not apply"
	every asg in [by_attributes, plain] {
		v := fleet_capacity.violation with input as _gate([asg])
		v == {_f("inference-asg", msg)}
	}
}

test_fail_group_of_an_undeclared_fleet if {
	v := fleet_capacity.violation with input as _gate([_asg("shadow", 50, ["p4d.24xlarge"])])
	v == {_f("shadow-asg", "group runs fleet shadow, which the policy does not declare: no estimate covers it")}
}

test_fail_fleet_the_plan_does_not_plan if {
	policy := json.patch(_policy, [{"op": "add", "path": "/fleets/-", "value": {"name": "batch", "sla": "bronze", "capacity": {"min": 0, "desired": 1, "max": 4}}}])
	gate := object.union(fixtures.gate_input(policy, [_asg("batch", 4, ["g4dn.xlarge"])]), {"plan": _plan})
	v := fleet_capacity.violation with input as gate
	v == {_f("batch-asg", "group runs fleet batch, which the plan does not plan: no estimate covers it")}
}

test_fail_a_size_that_cannot_be_read if {
	v := fleet_capacity.violation with input as _gate([_asg("inference", "[unknown]", ["g5.xlarge"])])
	v == {_f("inference-asg", "fleet inference: group maxSize [unknown] cannot be read, so its capacity cannot be checked against the estimate")}
}

# a type a preview does not know yet may be any type: whether the plan priced it cannot be
# established (fail closed); it is not reported as a type the plan missed
test_fail_types_a_preview_does_not_know_yet if {
	v := fleet_capacity.violation with input as _gate([_asg("inference", 8, ["[unknown]", "g5.xlarge"])])
	v == {_f("inference-asg", "fleet inference: an instance type of the group is unknown until apply ([unknown]), so whether the plan priced it cannot be established")}
}

# a scheduled action outside the fleets' components whose group is named by a value unknown until
# apply may resize any fleet
test_fail_schedule_of_a_group_unknown_until_apply if {
	sched := fixtures.resource("aws:autoscaling/schedule:Schedule", "late", {"autoscalingGroupName": "[unknown]", "maxSize": 60})
	v := fleet_capacity.violation with input as _gate([_asg("inference", 8, ["g5.xlarge"]), sched])
	v == {fixtures.finding("BUDGET-FLEET-1", "mandatory", "aws:autoscaling/schedule:Schedule", "late", "scheduled action sets maxSize 60 on a group named by a value unknown until apply ([unknown]), so which fleet's capacity it must respect cannot be established")}
}

# red team: one that sets only the desired size or minimum (holding a group above its desired size)
# passed; -1 leaves a size as it is
test_schedule_of_a_group_unknown_until_apply_by_each_size if {
	desired := fixtures.resource("aws:autoscaling/schedule:Schedule", "up", {"autoscalingGroupName": "[unknown]", "desiredCapacity": 40, "minSize": 40, "maxSize": -1})
	unchanged := fixtures.resource("aws:autoscaling/schedule:Schedule", "same", {"autoscalingGroupName": "[unknown]", "desiredCapacity": -1, "minSize": -1, "maxSize": -1})
	# red team: a scale-to-zero window exceeds no capacity
	zero := fixtures.resource("aws:autoscaling/schedule:Schedule", "zero", {"autoscalingGroupName": "[unknown]", "desiredCapacity": 0, "minSize": 0, "maxSize": 0})
	v := fleet_capacity.violation with input as _gate([_asg("inference", 8, ["g5.xlarge"]), desired, unchanged, zero])
	v == {fixtures.finding("BUDGET-FLEET-1", "mandatory", "aws:autoscaling/schedule:Schedule", "up", "scheduled action sets desiredCapacity 40, minSize 40 on a group named by a value unknown until apply ([unknown]), so which fleet's capacity it must respect cannot be established")}
}

test_pass_without_a_plan_types_are_not_judged if {
	gate := fixtures.gate_input(_policy, [_asg("inference", 8, ["x1.32xlarge"])])
	v := fleet_capacity.violation with input as gate
	v == set()
}

# capacity outside what the plan priced: a schedule created outside the fleet's component (found by
# the group it names), a warm pool, compute that is no autoscaling group of a fleet
test_fail_capacity_outside_the_plan if {
	loose := fixtures.resource("aws:autoscaling/schedule:Schedule", "burst", {"autoscalingGroupName": "inference-asg-1a2b3c4d", "maxSize": 400})
	pooled := json.patch(_asg("inference", 8, ["g5.xlarge"]), [{"op": "add", "path": "/inputs/warmPool", "value": {"poolState": "Running", "minSize": 20}}])
	v := fleet_capacity.violation with input as _gate([
		pooled, loose,
		fixtures.resource("aws:eks/nodeGroup:NodeGroup", "gpus", {"scalingConfig": {"minSize": 1, "maxSize": 50, "desiredSize": 1}}),
		fixtures.resource("aws:ec2/fleet:Fleet", "burst-fleet", {"targetCapacitySpecification": {"totalTargetCapacity": 40}}),
	])
	v == {
		fixtures.finding("BUDGET-FLEET-1", "mandatory", "aws:autoscaling/schedule:Schedule", "burst", "fleet inference: scheduled action raises maxSize to 400 units, above the policy's capacity.max 8"),
		_f("inference-asg", "fleet inference: the group's warm pool keeps instances beyond the capacity the plan priced"),
		fixtures.finding("BUDGET-FLEET-1", "mandatory", "aws:eks/nodeGroup:NodeGroup", "gpus", "EKS managed node group launches instances that no fleet of the policy plans, so the estimate the budget rules check does not cover them"),
		fixtures.finding("BUDGET-FLEET-1", "mandatory", "aws:ec2/fleet:Fleet", "burst-fleet", "EC2 Fleet launches instances that no fleet of the policy plans, so the estimate the budget rules check does not cover them"),
	}
}

# capacity outside the policy's fleets through other kinds: an instance of its own, a spot instance
# request, an AWS Batch compute environment, an aws-native group, a Karpenter NodePool, EKS Auto Mode
test_fail_capacity_outside_the_fleets_through_other_kinds if {
	resources := [
		fixtures.resource("aws:ec2/instance:Instance", "box", {"instanceType": "p4d.24xlarge", "ami": "ami-1"}),
		fixtures.resource("aws:ec2/spotInstanceRequest:SpotInstanceRequest", "cheap", {"instanceType": "p4d.24xlarge", "ami": "ami-1"}),
		fixtures.resource("aws:batch/computeEnvironment:ComputeEnvironment", "batch", {"type": "MANAGED", "computeResources": {"type": "SPOT", "maxVcpus": 9600}}),
		fixtures.resource("aws-native:autoscaling:AutoScalingGroup", "native", {"maxSize": "200", "minSize": "0"}),
		fixtures.resource("kubernetes:karpenter.sh/v1:NodePool", "gpu", {"metadata": {"name": "gpu"}, "spec": {"limits": {"nvidia.com/gpu": 800}}}),
		fixtures.resource("aws:eks/cluster:Cluster", "auto", {"computeConfig": {"enabled": true, "nodePools": ["general-purpose"]}}),
		fixtures.resource("aws:eks/cluster:Cluster", "classic", {"version": "1.31"}),
	]
	all := fleet_capacity.violation with input as fixtures.gate_input(_policy, resources)
	v := {[f.resource_name, f.message] | some f in all}
	v == {
		["box", "EC2 instance (an instance of its own) launches instances that no fleet of the policy plans, so the estimate the budget rules check does not cover them"],
		["cheap", "spot instance request (an instance of its own) launches instances that no fleet of the policy plans, so the estimate the budget rules check does not cover them"],
		["batch", "AWS Batch compute environment launches instances that no fleet of the policy plans, so the estimate the budget rules check does not cover them"],
		["native", "Auto Scaling group (aws-native) launches instances that no fleet of the policy plans, so the estimate the budget rules check does not cover them"],
		["gpu", "karpenter.sh NodePool launches nodes that no fleet of the policy plans, so the estimate the budget rules check does not cover them"],
		["auto", "EKS Auto Mode (computeConfig.enabled) launches instances that no fleet of the policy plans, so the estimate the budget rules check does not cover them"],
	}
}

# capacity reservations bill at the on-demand rate, used or not: a fleet's may hold the units the
# plan reserves (instances times the type's weight), no more; one of no planned fleet is capacity
# the estimate does not cover
_odcr(name, fleet, type, n) := fixtures.resource("aws:ec2/capacityReservation:CapacityReservation", name, {
	"instanceType": type, "instanceCount": n, "availabilityZone": "eu-west-1a", "instancePlatform": "Linux/UNIX",
	"tags": {"seedance:fleet": fleet},
})

test_capacity_reservations_against_the_plan if {
	plan := {"monthly_cost": 1, "currency": "USD", "fleets": [
		{"name": "inference", "reserved_units": 24, "instance_types": [{"instance_type": "g5.xlarge", "weight": 1}, {"instance_type": "g5.12xlarge", "weight": 4}]},
		{"name": "train", "reserved_units": 0, "instance_types": [{"instance_type": "p4d.24xlarge", "weight": 1}]},
	]}
	within := [_odcr("inf-a", "inference", "g5.xlarge", 8), _odcr("inf-b", "inference", "g5.xlarge", 16)]
	v := fleet_capacity.violation with input as object.union(fixtures.gate_input(_policy, within), {"plan": plan})
	v == set()
	# more units; a reservation of no planned fleet; one of another type the plan priced (4 x
	# g5.12xlarge hold the same 16 units at another price than the g5.xlarge the plan reserves);
	# one on dedicated instances
	dedicated := object.union(_odcr("inf-d", "inference", "g5.xlarge", 1), {"inputs": object.union(_odcr("inf-d", "inference", "g5.xlarge", 1).inputs, {"tenancy": "dedicated"})})
	over := array.concat(within, [
		_odcr("inf-c", "inference", "g5.xlarge", 1), _odcr("stray", "nobody", "p4d.24xlarge", 2),
		_odcr("inf-big", "inference", "g5.12xlarge", 4), dedicated,
	])
	w := fleet_capacity.violation with input as object.union(fixtures.gate_input(_policy, over), {"plan": plan})
	{[f.resource_name, f.message] | some f in w} == {
		["seedance-gpu-test", "fleet inference: its capacity reservations hold 25 units, more than the 24 the plan reserves or runs on-demand (in whole instances); the rest bill at the on-demand rate, used or not, outside the estimate"],
		["stray", "capacity reservation of 2 x p4d.24xlarge (tenancy default, Linux/UNIX) is not one the plan reserves (its seedance:fleet tag nobody names no planned fleet, it is not of the type the fleet's on-demand base runs on, on shared Linux instances, or its count is unknown until apply); it bills at the on-demand rate, used or not, outside the estimate"],
		["inf-big", "capacity reservation of 4 x g5.12xlarge (tenancy default, Linux/UNIX) is not one the plan reserves (its seedance:fleet tag inference names no planned fleet, it is not of the type the fleet's on-demand base runs on, on shared Linux instances, or its count is unknown until apply); it bills at the on-demand rate, used or not, outside the estimate"],
		["inf-d", "capacity reservation of 1 x g5.xlarge (tenancy dedicated, Linux/UNIX) is not one the plan reserves (its seedance:fleet tag inference names no planned fleet, it is not of the type the fleet's on-demand base runs on, on shared Linux instances, or its count is unknown until apply); it bills at the on-demand rate, used or not, outside the estimate"],
	}
}

# a gold fleet that reserves nothing (reserved.mode none, as a budget freeze sets it, or capacity.min
# 0) still runs its on-demand node whenever its group runs: the stack program reserves that node, in
# whole instances of the type the base runs on (the plan's first, which a group counting instances
# lists too); more instances than that are not the plan's, nor is a reservation of another type
test_capacity_reservation_of_the_on_demand_base_passes if {
	plan := {"monthly_cost": 1, "currency": "USD", "fleets": [
		{"name": "inference", "reserved_units": 0, "on_demand_base": 1, "min_size": 0, "instance_types": [{"instance_type": "g5.12xlarge", "weight": 4}, {"instance_type": "g5.xlarge", "weight": 1}, {"instance_type": "g5.2xlarge", "weight": 1}]},
		{"name": "train", "reserved_units": 0, "on_demand_base": 1, "min_size": 0, "instance_types": [{"instance_type": "p4d.24xlarge", "weight": 8}]},
	]}
	resources := [_odcr("inf-a", "inference", "g5.12xlarge", 1), _odcr("inf-a2", "inference", "g5.12xlarge", 1), _odcr("train-a", "train", "p4d.24xlarge", 1)]
	v := fleet_capacity.violation with input as object.union(fixtures.gate_input(_policy, resources), {"plan": plan})
	{f.message | some f in v} == {"fleet inference: its capacity reservations hold 8 units, more than the 4 the plan reserves or runs on-demand (in whole instances); the rest bill at the on-demand rate, used or not, outside the estimate"}
	w := fleet_capacity.violation with input as object.union(fixtures.gate_input(_policy, [resources[0], resources[2]]), {"plan": plan})
	w == set()
	other := [_odcr("inf-b", "inference", "g5.xlarge", 1), _odcr("inf-c", "inference", "g5.2xlarge", 1)]
	x := fleet_capacity.violation with input as object.union(fixtures.gate_input(_policy, other), {"plan": plan})
	{f.resource_name | some f in x} == {"inf-b", "inf-c"}
}

# a group's weights below the plan's start more capacity than its sizes say: 8 x g5.2xlarge counted
# as 1 unit each where the plan counts 2; a weight that cannot be read cannot be judged
test_fail_weights_below_the_plan if {
	plan := {"monthly_cost": 1, "currency": "USD", "fleets": [{"name": "inference", "on_demand_base": 1, "spot_share_above_base": 0.3, "instance_types": [
		{"instance_type": "g5.xlarge", "weight": 1}, {"instance_type": "g5.2xlarge", "weight": 2},
	]}]}
	weighted := json.patch(_asg("inference", 8, ["g5.xlarge"]), [{"op": "replace", "path": "/inputs/mixedInstancesPolicy/launchTemplate/overrides", "value": [
		{"instanceType": "g5.xlarge", "weightedCapacity": "1"}, {"instanceType": "g5.2xlarge", "weightedCapacity": "2"},
	]}])
	v := fleet_capacity.violation with input as object.union(fixtures.gate_input(_policy, [weighted]), {"plan": plan})
	v == set()
	low := json.patch(weighted, [{"op": "replace", "path": "/inputs/mixedInstancesPolicy/launchTemplate/overrides/1/weightedCapacity", "value": "1"}])
	w := fleet_capacity.violation with input as object.union(fixtures.gate_input(_policy, [low]), {"plan": plan})
	w == {
		_f("inference-asg", "fleet inference: the group counts g5.2xlarge as 1 unit(s), the plan as 2: its sizes start 2x the capacity the plan priced"),
		_f("inference-asg", "fleet inference: its groups' maxSize adds up to 16, above the policy's capacity.max 8"),
	}
	unknown := json.patch(weighted, [{"op": "replace", "path": "/inputs/mixedInstancesPolicy/launchTemplate/overrides/1/weightedCapacity", "value": "[unknown]"}])
	x := fleet_capacity.violation with input as object.union(fixtures.gate_input(_policy, [unknown]), {"plan": plan})
	x == {_f("inference-asg", "fleet inference: the group's weight for g5.2xlarge is [unknown], which cannot be read as a positive number, so how many instances its sizes start cannot be established")}
}

# a group that counts instances (no weights, as a Cluster Autoscaler's) runs its types' weight per
# instance: 2 x g5.2xlarge of 2 units fit a capacity.max of 4, not 8 x g5.2xlarge
test_groups_counting_instances_run_the_plan_s_weight_per_instance if {
	policy := json.patch(_policy, [{"op": "replace", "path": "/fleets/0/capacity", "value": {"min": 1, "desired": 2, "max": 4}}])
	plan := {"monthly_cost": 1, "currency": "USD", "fleets": [{"name": "inference", "on_demand_base": 1, "min_size": 1, "desired": 2, "spot_share_above_base": 0.3, "instance_types": [
		{"instance_type": "g5.2xlarge", "weight": 2},
	]}]}
	ok := json.patch(_asg("inference", 2, ["g5.2xlarge"]), [{"op": "add", "path": "/inputs/minSize", "value": 1}, {"op": "add", "path": "/inputs/desiredCapacity", "value": 1}])
	v := fleet_capacity.violation with input as object.union(fixtures.gate_input(policy, [ok]), {"plan": plan})
	v == set()
	big := json.patch(ok, [{"op": "replace", "path": "/inputs/maxSize", "value": 4}, {"op": "replace", "path": "/inputs/desiredCapacity", "value": 2}])
	w := fleet_capacity.violation with input as object.union(fixtures.gate_input(policy, [big]), {"plan": plan})
	w == {
		_f("inference-asg", "fleet inference: its groups' maxSize adds up to 8, above the policy's capacity.max 4"),
		_f("inference-asg", "fleet inference: its groups' desiredCapacity runs 3 units, above the plan's 2: capacity the estimate did not price runs all the time"),
	}
}

# the sizes a group keeps running, and its on-demand share, are the plan's at most
test_fail_lower_sizes_and_on_demand_above_the_plan if {
	plan := {"monthly_cost": 1, "currency": "USD", "fleets": [{"name": "inference", "on_demand_base": 1, "min_size": 1, "desired": 2, "spot_share_above_base": 0.3, "instance_types": [{"instance_type": "g5.xlarge", "weight": 1}]}]}
	asg := json.patch(_asg("inference", 8, ["g5.xlarge"]), [
		{"op": "replace", "path": "/inputs/minSize", "value": 6},
		{"op": "add", "path": "/inputs/desiredCapacity", "value": 6},
		{"op": "replace", "path": "/inputs/mixedInstancesPolicy/instancesDistribution", "value": {"onDemandBaseCapacity": 3, "onDemandPercentageAboveBaseCapacity": 100}},
	])
	v := fleet_capacity.violation with input as object.union(fixtures.gate_input(_policy, [asg]), {"plan": plan})
	v == {
		_f("inference-asg", "fleet inference: its groups' minSize runs 6 units, above the plan's 1: capacity the estimate did not price runs all the time"),
		_f("inference-asg", "fleet inference: its groups' desiredCapacity runs 6 units, above the plan's 2: capacity the estimate did not price runs all the time"),
		_f("inference-asg", "fleet inference: the group's on-demand base runs 3 units on-demand, above the plan's 1: on-demand capacity the estimate priced at spot or reserved rates"),
		_f("inference-asg", "fleet inference: the group runs 100% on-demand above its base, the plan 70%: the estimate priced the rest at spot"),
	}
	unknown := json.patch(asg, [{"op": "replace", "path": "/inputs/minSize", "value": "[unknown]"}, {"op": "remove", "path": "/inputs/desiredCapacity"}, {"op": "replace", "path": "/inputs/mixedInstancesPolicy/instancesDistribution", "value": {"onDemandBaseCapacity": 1, "onDemandPercentageAboveBaseCapacity": 70}}])
	w := fleet_capacity.violation with input as object.union(fixtures.gate_input(_policy, [unknown]), {"plan": plan})
	w == {_f("inference-asg", "fleet inference: group minSize [unknown] cannot be read, so the capacity it keeps running cannot be checked against the estimate")}
}

# scheduled actions keep a group at most at its desired capacity or an off-peak window's, and name
# a group the document holds
test_fail_schedules_that_hold_more_than_the_policy_runs if {
	sched := fixtures.resource("aws:autoscaling/schedule:Schedule", "all-day", {"autoscalingGroupName": "inference-asg", "minSize": 8, "desiredCapacity": "[unknown]", "maxSize": 8})
	elsewhere := fixtures.resource("aws:autoscaling/schedule:Schedule", "elsewhere", {"autoscalingGroupName": "gpu-prod-training", "minSize": 60, "maxSize": 60})
	v := fleet_capacity.violation with input as _gate([_asg("inference", 8, ["g5.xlarge"]), sched, elsewhere])
	{[f.resource_name, f.message] | some f in v} == {
		["all-day", "fleet inference: scheduled action sets minSize to 8 units, above the 4 the policy runs it at (capacity.desired or an off-peak window's desired): capacity the estimate did not price"],
		["all-day", "fleet inference: scheduled action desiredCapacity [unknown] cannot be read, so its capacity cannot be checked against the estimate"],
		["elsewhere", "scheduled action resizes group gpu-prod-training, which is not in the document: capacity on no fleet the estimate covers"],
	}
}

# more kinds that start capacity of their own
test_fail_more_capacity_outside_the_fleets if {
	resources := [
		fixtures.resource("aws-native:autoscaling:WarmPool", "warm", {"autoScalingGroupName": "inference-asg", "minSize": 6}),
		fixtures.resource("aws-native:ec2:CapacityReservation", "odcr", {"instanceType": "p4d.24xlarge", "instanceCount": 40}),
		fixtures.resource("aws:ec2/dedicatedHost:DedicatedHost", "host", {"instanceFamily": "p4d"}),
		fixtures.resource("aws:emr/cluster:Cluster", "emr", {}),
		fixtures.resource("aws:cloudformation/stack:Stack", "cfn", {"templateBody": "{}"}),
		fixtures.resource("kubernetes:karpenter.sh/v1:NodeClaim", "claim", {"metadata": {"name": "claim"}}),
		fixtures.resource("kubernetes:karpenter.sh/v1alpha5:Provisioner", "prov", {"metadata": {"name": "prov"}}),
		fixtures.resource("kubernetes:ec2.services.k8s.aws/v1alpha1:Instance", "ack", {"metadata": {"name": "ack"}}),
		fixtures.resource("aws-native:eks:Cluster", "auto", {"computeConfig": {"enabled": true}}),
	]
	v := fleet_capacity.violation with input as _gate(resources)
	{[f.resource_name, f.message] | some f in v} == {
		["warm", "warm pool (aws-native), which keeps instances beyond a group's size, launches instances that no fleet of the policy plans, so the estimate the budget rules check does not cover them"],
		["odcr", "capacity reservation (aws-native), billed used or not, launches instances that no fleet of the policy plans, so the estimate the budget rules check does not cover them"],
		["host", "dedicated host launches instances that no fleet of the policy plans, so the estimate the budget rules check does not cover them"],
		["emr", "EMR cluster launches instances that no fleet of the policy plans, so the estimate the budget rules check does not cover them"],
		["cfn", "CloudFormation stack, whose template the gate does not read, launches instances that no fleet of the policy plans, so the estimate the budget rules check does not cover them"],
		["claim", "karpenter.sh NodeClaim launches nodes that no fleet of the policy plans, so the estimate the budget rules check does not cover them"],
		["prov", "karpenter.sh Provisioner launches nodes that no fleet of the policy plans, so the estimate the budget rules check does not cover them"],
		["ack", "ec2.services.k8s.aws Instance launches nodes that no fleet of the policy plans, so the estimate the budget rules check does not cover them"],
		["auto", "EKS Auto Mode (computeConfig.enabled) launches instances that no fleet of the policy plans, so the estimate the budget rules check does not cover them"],
	}
}

# a group the Cluster Autoscaler discovers has its desired capacity set by the autoscaler (a preview
# after a refresh shows the live size): only its minSize is held to the plan's
test_an_autoscaled_group_s_desired_capacity_is_the_autoscaler_s if {
	plan := {"monthly_cost": 1, "currency": "USD", "fleets": [{"name": "inference", "on_demand_base": 1, "min_size": 1, "desired": 2, "spot_share_above_base": 0.3, "instance_types": [{"instance_type": "g5.xlarge", "weight": 1}]}]}
	asg := json.patch(_asg("inference", 8, ["g5.xlarge"]), [
		{"op": "add", "path": "/inputs/desiredCapacity", "value": 6},
		{"op": "add", "path": "/inputs/tags/-", "value": {"key": "k8s.io/cluster-autoscaler/enabled", "value": "true", "propagateAtLaunch": false}},
	])
	v := fleet_capacity.violation with input as object.union(fixtures.gate_input(_policy, [asg]), {"plan": plan})
	v == set()
	raised := json.patch(asg, [{"op": "replace", "path": "/inputs/minSize", "value": 6}])
	w := fleet_capacity.violation with input as object.union(fixtures.gate_input(_policy, [raised]), {"plan": plan})
	w == {_f("inference-asg", "fleet inference: its groups' minSize runs 6 units, above the plan's 1: capacity the estimate did not price runs all the time")}
}

# red team: the outputs of an existing group show "" for an override's unset weightedCapacity; it
# gives no weight (the group counts instances), it is not a weight that cannot be read
test_pass_an_empty_weight_is_no_weight if {
	plan := {"monthly_cost": 1, "currency": "USD", "fleets": [{"name": "inference", "on_demand_base": 1, "min_size": 1, "desired": 2, "spot_share_above_base": 0.3, "instance_types": [
		{"instance_type": "g5.xlarge", "weight": 1},
	]}]}
	asg := json.patch(_asg("inference", 2, ["g5.xlarge"]), [
		{"op": "add", "path": "/inputs/minSize", "value": 1},
		{"op": "add", "path": "/inputs/desiredCapacity", "value": 1},
		{"op": "add", "path": "/inputs/mixedInstancesPolicy/launchTemplate/overrides/0/weightedCapacity", "value": ""},
	])
	v := fleet_capacity.violation with input as object.union(fixtures.gate_input(_policy, [asg]), {"plan": plan})
	v == set()
}

# red team: GPU compute of other services (SageMaker Studio apps, HyperPod, EMR Serverless, an
# endpoint on a configuration the document does not hold) is capacity no fleet plans
test_fail_gpu_compute_of_other_services if {
	resources := [
		fixtures.resource("aws:sagemaker/app:App", "studio", {"appType": "KernelGateway", "resourceSpec": {"instanceType": "ml.p4d.24xlarge"}}),
		fixtures.resource("aws-native:sagemaker:Cluster", "hyperpod", {"instanceGroups": [{"instanceType": "ml.p5.48xlarge", "instanceCount": 16}]}),
		fixtures.resource("aws:emrserverless/application:Application", "spark", {"type": "spark", "maximumCapacity": {"cpu": "4000 vCPU"}}),
		fixtures.resource("aws:sagemaker/endpoint:Endpoint", "sdk-made", {"endpointConfigName": "made-by-ml-team-sdk"}),
		fixtures.resource("aws:sagemaker/endpoint:Endpoint", "late", {"endpointConfigName": "[unknown]"}),
	]
	v := fleet_capacity.violation with input as _gate(resources)
	{[f.resource_name, f.message] | some f in v} == {
		["studio", "SageMaker Studio app, which runs on an instance of its resourceSpec, launches instances that no fleet of the policy plans, so the estimate the budget rules check does not cover them"],
		["hyperpod", "SageMaker HyperPod cluster (aws-native) launches instances that no fleet of the policy plans, so the estimate the budget rules check does not cover them"],
		["spark", "EMR Serverless application, whose workers run up to its maximumCapacity, launches instances that no fleet of the policy plans, so the estimate the budget rules check does not cover them"],
		["sdk-made", "SageMaker endpoint runs the instances of endpoint configuration made-by-ml-team-sdk, which the document does not hold, so no fleet of the policy plans them and the estimate the budget rules check does not cover them"],
		["late", "SageMaker endpoint runs the instances of endpoint configuration [unknown], which the document does not hold, so no fleet of the policy plans them and the estimate the budget rules check does not cover them"],
	}
}

# near miss: an endpoint whose configuration is in the document (by name, or by the dependency an
# unknown name records) is reported once, on the configuration
test_an_endpoint_on_a_configuration_of_the_document_is_reported_on_the_configuration if {
	cfg := fixtures.resource("aws:sagemaker/endpointConfiguration:EndpointConfiguration", "cfg", {"name": "serve-cfg", "productionVariants": [{"instanceType": "ml.g5.xlarge", "initialInstanceCount": 1}]})
	resources := [
		cfg,
		fixtures.resource("aws:sagemaker/endpoint:Endpoint", "by-name", {"endpointConfigName": "serve-cfg"}),
		object.union(fixtures.resource("aws:sagemaker/endpoint:Endpoint", "by-dependency", {"endpointConfigName": "[unknown]"}), {"property_dependencies": {"endpointConfigName": [cfg.urn]}}),
	]
	v := fleet_capacity.violation with input as _gate(resources)
	{[f.resource_name, f.message] | some f in v} == {
		["cfg", "SageMaker endpoint configuration launches instances that no fleet of the policy plans, so the estimate the budget rules check does not cover them"],
	}
}

# red team: an on-demand base or share that is secret or unknown until apply may run more on-demand
# than the plan priced: it is reported as not readable
test_fail_hidden_on_demand_base_and_share if {
	plan := {"monthly_cost": 1, "currency": "USD", "fleets": [{"name": "inference", "on_demand_base": 1, "min_size": 1, "desired": 2, "spot_share_above_base": 0.3, "instance_types": [{"instance_type": "g5.xlarge", "weight": 1}]}]}
	asg := json.patch(_asg("inference", 8, ["g5.xlarge"]), [
		{"op": "replace", "path": "/inputs/minSize", "value": 1},
		{"op": "add", "path": "/inputs/desiredCapacity", "value": 2},
		{"op": "replace", "path": "/inputs/mixedInstancesPolicy/instancesDistribution", "value": {"onDemandBaseCapacity": "[secret]", "onDemandPercentageAboveBaseCapacity": "[unknown]"}},
	])
	v := fleet_capacity.violation with input as object.union(fixtures.gate_input(_policy, [asg]), {"plan": plan})
	v == {
		_f("inference-asg", "fleet inference: the group's onDemandBaseCapacity [secret] cannot be read, so the on-demand capacity it runs cannot be checked against the estimate"),
		_f("inference-asg", "fleet inference: the group's onDemandPercentageAboveBaseCapacity [unknown] cannot be read, so the on-demand capacity it runs cannot be checked against the estimate"),
	}
}

# an audit: three listed zones and one subnet gave a gold fleet a reservation in each zone; those in
# a zone none of the fleet's groups launches in are never used. EC2's zones of the subnets (facts)
# decide; without a zone for every subnet nothing is judged.
test_capacity_reservation_in_a_zone_the_fleet_does_not_launch_in if {
	plan := {"monthly_cost": 1, "currency": "USD", "fleets": [
		{"name": "inference", "reserved_units": 0, "on_demand_base": 3, "instance_types": [{"instance_type": "g5.xlarge", "weight": 1}]},
		{"name": "train", "reserved_units": 0, "on_demand_base": 0, "instance_types": [{"instance_type": "p4d.24xlarge", "weight": 1}]},
	]}
	asg := json.patch(_asg("inference", 8, ["g5.xlarge"]), [{"op": "add", "path": "/inputs/vpcZoneIdentifiers", "value": ["subnet-a", "subnet-a2"]}])
	resources := [
		asg,
		json.patch(_odcr("inf-a", "inference", "g5.xlarge", 1), [{"op": "replace", "path": "/inputs/availabilityZone", "value": "eu-west-1a"}]),
		json.patch(_odcr("inf-b", "inference", "g5.xlarge", 1), [{"op": "replace", "path": "/inputs/availabilityZone", "value": "eu-west-1b"}]),
	]
	gate := object.union(fixtures.gate_input(_policy, resources), {"plan": plan})
	facts := {"subnets": {"subnet-a": {"availability_zone": "eu-west-1a"}, "subnet-a2": {"availability_zone": "eu-west-1a"}}}
	v := fleet_capacity.violation with input as object.union(gate, {"facts": facts})
	{[f.resource_name, f.message] | some f in v} == {[
		"inf-b",
		"capacity reservation of fleet inference is in eu-west-1b, where none of its groups launches (their subnets: subnet-a in eu-west-1a, subnet-a2 in eu-west-1a, as EC2 describes them): no instance of the fleet uses it, and it bills at the on-demand rate; list in cloud.availabilityZones the zones of cloud.subnetIds",
	]}
	# a subnet in that zone: both are used
	in_b := {"subnets": {"subnet-a": {"availability_zone": "eu-west-1a"}, "subnet-a2": {"availability_zone": "eu-west-1b"}}}
	w := fleet_capacity.violation with input as object.union(gate, {"facts": in_b})
	w == set()
	# no facts, or a subnet without a zone in them: not judged
	x := fleet_capacity.violation with input as gate
	x == set()
	partial := {"subnets": {"subnet-a": {"availability_zone": "eu-west-1a"}}}
	y := fleet_capacity.violation with input as object.union(gate, {"facts": partial})
	y == set()
}

