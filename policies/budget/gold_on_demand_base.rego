package budget.gold_on_demand_base

import data.lib.budget
import data.lib.findings
import data.lib.fleets

# METADATA
# title: "Gold fleets keep an on-demand base"
# description: >-
#   Gold-tier fleets keep at least one unit of on-demand (or reserved) base capacity, in the
#   plan and on the autoscaling group (a group of a gold fleet by its seedance:sla tag or by the
#   policy's fleet it belongs to; one that runs no spot at all needs none), so a spot reclaim
#   cannot take the whole fleet down.
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

# a group of a gold fleet (its seedance:sla tag, in any case, or the policy's fleet its
# seedance:fleet tag names) with no on-demand base, unless it runs no spot at all
_problems contains findings.problem(asg, msg) if {
	some i in fleets.asg_indices(input.document)
	_gold_group(i)
	asg := input.document.resources[i]
	not fleets.has_on_demand_base(asg)
	fleets.may_use_spot(asg)
	msg := _no_base(fleets.fleet(i), asg)
}

_gold_group(i) if {
	sla := fleets.sla(i)
	is_string(sla)
	lower(sla) == "gold"
}

_gold_group(i) if _gold(fleets.fleet(i))

_no_base(fleet, asg) := sprintf("gold fleet %s has onDemandBaseCapacity 0", [fleet]) if {
	fleets.on_demand_base(asg) < 1
} else := sprintf("gold fleet %s: onDemandBaseCapacity is not a number (unknown until apply?), so an on-demand base cannot be established", [fleet])
