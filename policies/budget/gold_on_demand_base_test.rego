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
