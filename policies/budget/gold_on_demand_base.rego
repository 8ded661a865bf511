package budget.gold_on_demand_base

import data.lib.budget
import data.lib.findings
import data.lib.fleets

# METADATA
# title: "Gold fleets keep an on-demand base"
# description: >-
#   Gold-tier fleets keep at least one unit of on-demand (or reserved) base capacity, in the
#   plan and on the autoscaling group, so a spot reclaim cannot take the whole fleet down.
# related_resources:
#   - ref: https://www.finops.org/framework/capabilities/budgeting/
# custom:
#   control_id: BUDGET-GOLD-1
#   clause: "Seedance cost policy"
#   framework: budget
#   severity: mandatory
#   remediation: >-
#     Set onDemandBaseCapacity >= 1 (the planner does this for gold fleets), or reserve capacity.
violation contains findings.finding("BUDGET-GOLD-1", p.resource, p.message) if {
	some p in _problems
}

_gold(name) if budget.policy_fleet(input.policy, name).sla == "gold"

_problems contains findings.problem(findings.stack(input.document), msg) if {
	some fp in object.get(input, ["plan", "fleets"], [])
	_gold(fp.name)
	fp.on_demand_base < 1
	msg := sprintf("plan gives gold fleet %s no on-demand base", [fp.name])
}

_problems contains findings.problem(asg, msg) if {
	some i in fleets.asg_indices(input.document)
	fleets.sla(i) == "gold"
	asg := input.document.resources[i]
	not fleets.has_on_demand_base(asg)
	msg := _no_base(fleets.fleet(i), asg)
}

_no_base(fleet, asg) := sprintf("gold fleet %s has onDemandBaseCapacity 0", [fleet]) if {
	fleets.on_demand_base(asg) < 1
} else := sprintf("gold fleet %s: onDemandBaseCapacity is not a number (unknown until apply?), so an on-demand base cannot be established", [fleet])
