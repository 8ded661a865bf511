package budget.fleet_capacity_test

import data.budget.fleet_capacity
import data.lib.fixtures

_policy := json.patch(fixtures.no_framework_policy, [{"op": "replace", "path": "/fleets", "value": [
	{"name": "inference", "sla": "gold", "capacity": {"min": 1, "desired": 2, "max": 8}},
	{"name": "train", "sla": "bronze", "capacity": {"min": 0, "desired": 0, "max": 0}},
]}])

_asg(fleet, max_size, types) := fixtures.resource("aws:autoscaling/group:Group", sprintf("%s-asg", [fleet]), {
	"minSize": 0,
	"maxSize": max_size,
	"mixedInstancesPolicy": {
		"instancesDistribution": {"onDemandBaseCapacity": 1, "onDemandPercentageAboveBaseCapacity": 70},
		"launchTemplate": {"overrides": [{"instanceType": t} | some t in types]},
	},
	"tags": [{"key": "seedance:fleet", "value": fleet, "propagateAtLaunch": true}],
})

_plan := {"monthly_cost": 1, "currency": "USD", "fleets": [
	{"name": "inference", "instance_types": [{"instance_type": "g5.xlarge"}, {"instance_type": "g5.2xlarge"}]},
	{"name": "train", "instance_types": [{"instance_type": "p4d.24xlarge"}]},
]}

_gate(resources) := object.union(fixtures.gate_input(_policy, resources), {"plan": _plan})

test_pass_as_planned if {
	v := fleet_capacity.violation with input as _gate([_asg("inference", 8, ["g5.2xlarge", "g5.xlarge"]), _asg("train", 0, ["p4d.24xlarge"])])
	v == set()
}

test_fail_above_capacity_max if {
	v := fleet_capacity.violation with input as _gate([_asg("inference", 1000, ["g5.xlarge"]), _asg("train", 2, ["p4d.24xlarge"])])
	v == {
		fixtures.finding("BUDGET-FLEET-1", "mandatory", "aws:autoscaling/group:Group", "inference-asg", "fleet inference: group maxSize 1000 is above the policy's capacity.max 8"),
		fixtures.finding("BUDGET-FLEET-1", "mandatory", "aws:autoscaling/group:Group", "train-asg", "fleet train: group maxSize 2 is above the policy's capacity.max 0"),
	}
}

test_fail_unplanned_instance_types if {
	v := fleet_capacity.violation with input as _gate([_asg("inference", 8, ["g5.xlarge", "p4de.24xlarge", "g4dn.xlarge"])])
	v == {fixtures.finding("BUDGET-FLEET-1", "mandatory", "aws:autoscaling/group:Group", "inference-asg", "fleet inference runs instance types the plan did not price: g4dn.xlarge, p4de.24xlarge")}
}

test_fail_group_of_an_undeclared_fleet if {
	v := fleet_capacity.violation with input as _gate([_asg("shadow", 50, ["p4d.24xlarge"])])
	v == {fixtures.finding("BUDGET-FLEET-1", "mandatory", "aws:autoscaling/group:Group", "shadow-asg", "group runs fleet shadow, which the policy does not declare: no estimate covers it")}
}

test_pass_values_a_preview_does_not_know if {
	unknown := _asg("inference", "[unknown]", ["[unknown]", "g5.xlarge"])
	v := fleet_capacity.violation with input as _gate([unknown])
	v == set()
}

test_pass_without_a_plan_types_are_not_judged if {
	gate := fixtures.gate_input(_policy, [_asg("inference", 8, ["x1.32xlarge"])])
	v := fleet_capacity.violation with input as gate
	v == set()
}
