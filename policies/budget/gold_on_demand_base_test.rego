package budget.gold_on_demand_base_test

import data.budget.gold_on_demand_base
import data.lib.fixtures

_policy := json.patch(fixtures.no_framework_policy, [{"op": "replace", "path": "/fleets", "value": [{"name": "inference", "sla": "gold"}, {"name": "train", "sla": "bronze"}]}])

_asg(fleet, sla, base) := fixtures.resource("aws:autoscaling/group:Group", sprintf("%s-asg", [fleet]), {
	"mixedInstancesPolicy": {"instancesDistribution": {"onDemandBaseCapacity": base, "onDemandPercentageAboveBaseCapacity": 70}},
	"tags": [{"key": "seedance:fleet", "value": fleet, "propagateAtLaunch": true}, {"key": "seedance:sla", "value": sla, "propagateAtLaunch": true}],
})

_gate(resources, bases) := object.union(fixtures.gate_input(_policy, resources), {"plan": {"monthly_cost": 1, "currency": "USD", "fleets": [{"name": n, "on_demand_base": b, "spot_share_above_base": 0.3} | some n, b in bases]}})

test_pass_gold_base if {
	v := gold_on_demand_base.violation with input as _gate([_asg("inference", "gold", 2), _asg("train", "bronze", 0)], {"inference": 2, "train": 0})
	v == set()
}

test_fail_gold_without_base if {
	v := gold_on_demand_base.violation with input as _gate([_asg("inference", "gold", 0)], {"inference": 0})
	v == {
		fixtures.stack_finding("BUDGET-GOLD-1", "mandatory", "plan gives gold fleet inference no on-demand base"),
		fixtures.finding("BUDGET-GOLD-1", "mandatory", "aws:autoscaling/group:Group", "inference-asg", "gold fleet inference has onDemandBaseCapacity 0"),
	}
}

test_base_as_text_or_unknown if {
	v := gold_on_demand_base.violation with input as _gate([_asg("inference", "gold", "2")], {"inference": 2})
	v == set()
	w := gold_on_demand_base.violation with input as _gate([_asg("inference", "gold", "[unknown]")], {"inference": 2})
	w == {fixtures.finding("BUDGET-GOLD-1", "mandatory", "aws:autoscaling/group:Group", "inference-asg", "gold fleet inference: onDemandBaseCapacity is not a number (unknown until apply?), so an on-demand base cannot be established")}
}

# a group is gold by its seedance:sla tag in any case, or by the policy's fleet it belongs to; one
# that runs no spot at all (100% on-demand above a base of 0) keeps its nodes on-demand
test_gold_by_policy_or_tag_case_and_all_on_demand if {
	untagged := fixtures.resource("aws:autoscaling/group:Group", "untagged-asg", {
		"mixedInstancesPolicy": {"instancesDistribution": {"onDemandBaseCapacity": 0, "onDemandPercentageAboveBaseCapacity": 70}},
		"tags": [{"key": "seedance:fleet", "value": "inference", "propagateAtLaunch": true}],
	})
	upper := fixtures.resource("aws:autoscaling/group:Group", "upper-asg", {
		"mixedInstancesPolicy": {"instancesDistribution": {"onDemandBaseCapacity": 0, "onDemandPercentageAboveBaseCapacity": 70}},
		"tags": [
			{"key": "seedance:fleet", "value": "other", "propagateAtLaunch": true},
			{"key": "seedance:sla", "value": "Gold", "propagateAtLaunch": true},
		],
	})
	on_demand := fixtures.resource("aws:autoscaling/group:Group", "on-demand-asg", {
		"mixedInstancesPolicy": {"instancesDistribution": {"onDemandBaseCapacity": 0, "onDemandPercentageAboveBaseCapacity": 100}},
		"tags": [
			{"key": "seedance:fleet", "value": "inference", "propagateAtLaunch": true},
			{"key": "seedance:sla", "value": "gold", "propagateAtLaunch": true},
		],
	})
	v := gold_on_demand_base.violation with input as fixtures.gate_input(_policy, [untagged, upper, on_demand])
	v == {
		fixtures.finding("BUDGET-GOLD-1", "mandatory", "aws:autoscaling/group:Group", "untagged-asg", "gold fleet inference has onDemandBaseCapacity 0"),
		fixtures.finding("BUDGET-GOLD-1", "mandatory", "aws:autoscaling/group:Group", "upper-asg", "gold fleet other has onDemandBaseCapacity 0"),
	}
}

# red team: a budget response that disables a gold fleet (capacity.max 0, its group's maxSize 0)
# left the stack blocked; a fleet that runs no node has nothing to keep on-demand
test_pass_disabled_gold_fleet if {
	disabled := json.patch(_policy, [{"op": "add", "path": "/fleets/0/capacity", "value": {"min": 0, "desired": 0, "max": 0}}])
	asg := json.patch(_asg("inference", "gold", 0), [{"op": "add", "path": "/inputs/maxSize", "value": 0}])
	gate := object.union(_gate([asg], {"inference": 0}), {"policy": disabled})
	v := gold_on_demand_base.violation with input as gate
	v == set()
}

# near misses: a group that may still grow (maxSize 1, or unknown until apply) under a disabled
# fleet is judged; a fleet at max 1 still needs its base
test_fail_group_that_may_run_or_fleet_that_runs if {
	disabled := json.patch(_policy, [{"op": "add", "path": "/fleets/0/capacity", "value": {"min": 0, "desired": 0, "max": 0}}])
	one := json.patch(_asg("inference", "gold", 0), [{"op": "add", "path": "/inputs/maxSize", "value": 1}])
	unknown := json.patch(_asg("inference", "gold", 0), [{"op": "add", "path": "/inputs/maxSize", "value": "[unknown]"}])
	v := gold_on_demand_base.violation with input as object.union(_gate([one], {"inference": 0}), {"policy": disabled})
	v == {fixtures.finding("BUDGET-GOLD-1", "mandatory", "aws:autoscaling/group:Group", "inference-asg", "gold fleet inference has onDemandBaseCapacity 0")}
	w := gold_on_demand_base.violation with input as object.union(_gate([unknown], {"inference": 0}), {"policy": disabled})
	w == {fixtures.finding("BUDGET-GOLD-1", "mandatory", "aws:autoscaling/group:Group", "inference-asg", "gold fleet inference has onDemandBaseCapacity 0")}
	running := json.patch(_policy, [{"op": "add", "path": "/fleets/0/capacity", "value": {"min": 0, "desired": 0, "max": 1}}])
	x := gold_on_demand_base.violation with input as object.union(_gate([], {"inference": 0}), {"policy": running})
	x == {fixtures.stack_finding("BUDGET-GOLD-1", "mandatory", "plan gives gold fleet inference no on-demand base")}
}
