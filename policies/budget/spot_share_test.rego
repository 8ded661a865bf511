package budget.spot_share_test

import data.budget.spot_share
import data.lib.fixtures

_policy := json.patch(fixtures.no_framework_policy, [{"op": "replace", "path": "/fleets", "value": [
	{"name": "inference", "sla": "gold", "spot": {"maxShare": 0.3}},
	{"name": "train", "sla": "bronze", "spot": {"maxShare": 1}},
	{"name": "eval", "sla": "silver"},
]}])

_asg(fleet, pct) := fixtures.resource("aws:autoscaling/group:Group", sprintf("%s-asg", [fleet]), {
	"vpcZoneIdentifiers": ["subnet-1", "subnet-2"],
	"mixedInstancesPolicy": {"instancesDistribution": {"onDemandBaseCapacity": 1, "onDemandPercentageAboveBaseCapacity": pct}},
	"tags": [{"key": "seedance:fleet", "value": fleet, "propagateAtLaunch": true}],
})

_plan(shares) := {"monthly_cost": 1, "currency": "USD", "fleets": [{"name": n, "spot_share_above_base": s, "on_demand_base": 1} | some n, s in shares]}

_gate(resources, shares) := object.union(fixtures.gate_input(_policy, resources), {"plan": _plan(shares)})

test_pass_within_caps if {
	v := spot_share.violation with input as _gate([_asg("inference", 70), _asg("train", 0), _asg("eval", 100)], {"inference": 0.3, "train": 1, "eval": 0})
	v == set()
}

test_fail_above_caps if {
	v := spot_share.violation with input as _gate([_asg("inference", 40), _asg("eval", 90)], {"inference": 0.6, "train": 1, "eval": 0})
	v == {
		fixtures.stack_finding("BUDGET-SPOT-1", "mandatory", "plan runs fleet inference 60% on spot above its base; the cap is 30%"),
		fixtures.finding("BUDGET-SPOT-1", "mandatory", "aws:autoscaling/group:Group", "inference-asg", "fleet inference runs 60% on spot above its base; the cap is 30%"),
		fixtures.finding("BUDGET-SPOT-1", "mandatory", "aws:autoscaling/group:Group", "eval-asg", "fleet eval runs 10% on spot above its base; the cap is 0%"),
	}
}

test_fail_sla_cap_below_max_share if {
	policy := json.patch(_policy, [{"op": "replace", "path": "/fleets/0/spot/maxShare", "value": 0.9}])
	gate := object.union(fixtures.gate_input(policy, []), {"plan": _plan({"inference": 0.6})})
	v := spot_share.violation with input as gate
	v == {fixtures.stack_finding("BUDGET-SPOT-1", "mandatory", "plan runs fleet inference 60% on spot above its base; the cap is 50%")}
}

# Pulumi string inputs and the preview's unknown values: a number as text counts, an unknown share
# cannot be shown within the cap (it used to stop the whole evaluation with a type error)
test_share_as_text_or_unknown if {
	v := spot_share.violation with input as _gate([_asg("inference", "70"), _asg("train", "0"), _asg("eval", "[unknown]")], {"inference": 0.3, "train": 1, "eval": 0})
	v == {fixtures.finding("BUDGET-SPOT-1", "mandatory", "aws:autoscaling/group:Group", "eval-asg", "fleet eval: onDemandPercentageAboveBaseCapacity is not a number (unknown until apply?), so its spot share cannot be shown within the cap of 0%")}
	w := spot_share.violation with input as _gate([_asg("inference", "40")], {"inference": 0.3})
	w == {fixtures.finding("BUDGET-SPOT-1", "mandatory", "aws:autoscaling/group:Group", "inference-asg", "fleet inference runs 60% on spot above its base; the cap is 30%")}
}

# a plain group whose launch template asks for spot runs all of it on spot
test_spot_through_the_launch_template if {
	lt := fixtures.resource("aws:ec2/launchTemplate:LaunchTemplate", "lt", {"instanceMarketOptions": {"marketType": "spot"}, "instanceType": "g5.xlarge"})
	asg := fixtures.resource("aws:autoscaling/group:Group", "inference-asg", {
		"vpcZoneIdentifiers": ["subnet-1", "subnet-2"],
		"launchTemplate": {"id": "lt-1a2b3c4d", "version": "$Latest"},
		"tags": [{"key": "seedance:fleet", "value": "inference", "propagateAtLaunch": true}],
	})
	on_demand := json.patch(asg, [{"op": "replace", "path": "/inputs/launchTemplate/id", "value": "other-1a2b3c4d"}])
	v := spot_share.violation with input as _gate([lt, asg], {"inference": 0.3})
	v == {fixtures.finding("BUDGET-SPOT-1", "mandatory", "aws:autoscaling/group:Group", "inference-asg", "fleet inference runs 100% on spot above its base; the cap is 30%")}
	w := spot_share.violation with input as _gate([lt, on_demand], {"inference": 0.3})
	w == set()
}

# a distribution, or a whole mixed-instances policy, unknown until apply: the share cannot be shown
# within the cap (a mixed-instances policy decides the share, so it cannot be read as none)
test_distribution_unknown_until_apply if {
	unknown_distribution := fixtures.resource("aws:autoscaling/group:Group", "eval-asg", {
		"mixedInstancesPolicy": {"instancesDistribution": "[unknown]"},
		"tags": [{"key": "seedance:fleet", "value": "eval", "propagateAtLaunch": true}],
	})
	unknown_policy := fixtures.resource("aws:autoscaling/group:Group", "train-asg", {
		"mixedInstancesPolicy": "[unknown]",
		"tags": [{"key": "seedance:fleet", "value": "train", "propagateAtLaunch": true}],
	})
	v := spot_share.violation with input as _gate([unknown_distribution, unknown_policy], {"eval": 0, "train": 1})
	v == {
		fixtures.finding("BUDGET-SPOT-1", "mandatory", "aws:autoscaling/group:Group", "eval-asg", "fleet eval: onDemandPercentageAboveBaseCapacity is not a number (unknown until apply?), so its spot share cannot be shown within the cap of 0%"),
		fixtures.finding("BUDGET-SPOT-1", "mandatory", "aws:autoscaling/group:Group", "train-asg", "fleet train: onDemandPercentageAboveBaseCapacity is not a number (unknown until apply?), so its spot share cannot be shown within the cap of 100%"),
	}
}

# a cap between whole percentages reads as given: 71% on spot against a cap of 70.5%, not "71% ...
# the cap is 71%"
test_fail_cap_between_whole_percentages_reads_as_given if {
	policy := json.patch(_policy, [{"op": "replace", "path": "/fleets/1/spot/maxShare", "value": 0.705}])
	v := spot_share.violation with input as object.union(fixtures.gate_input(policy, [_asg("train", 29)]), {"plan": _plan({"train": 0.7})})
	v == {fixtures.finding("BUDGET-SPOT-1", "mandatory", "aws:autoscaling/group:Group", "train-asg", "fleet train runs 71% on spot above its base; the cap is 70.5%")}
}
