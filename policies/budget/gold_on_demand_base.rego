package budget.gold_on_demand_base

import data.lib.findings
import data.lib.fleets
import data.lib.resources

# METADATA
# title: "Gold fleets keep an on-demand base"
# description: >-
#   Gold-tier fleets keep at least one unit of on-demand (or reserved) base capacity, in the
#   plan and on the autoscaling group (a group of a gold fleet by its seedance:sla tag or by the
#   policy's fleet it belongs to; one that runs no spot at all needs none, nor does a fleet or
#   group that may run no node, such as one a budget response disabled), so a spot reclaim cannot
#   take the whole fleet down.
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

_problems contains findings.problem(findings.stack(input.document), msg) if {
	some fp in object.get(input, ["plan", "fleets"], [])
	fp.name in _gold_fleets
	not fp.name in _disabled
	fp.on_demand_base < 1
	msg := sprintf("plan gives gold fleet %s no on-demand base", [fp.name])
}

# a group of a gold fleet (its seedance:sla tag, in any case, or the policy's fleet its
# seedance:fleet tag names) with no on-demand base, unless it runs no spot at all
_problems contains findings.problem(asg, msg) if {
	some i in _gold_groups
	asg := input.document.resources[i]
	not fleets.has_on_demand_base(asg)
	fleets.may_use_spot(asg)
	not _runs_no_node(asg)
	msg := _no_base(fleets.fleet(i), asg)
}

# the gold groups, read from the tag index directly (fleets.sla / fleets.fleet and a policy lookup
# per group cost more in regorus)
_gold_groups := {i |
	some i in fleets.asg_indices(input.document)
	tags := object.get(resources.tags_at, i, {})
	_gold_tags(tags, input.document.resources[i].name)
}

_gold_tags(tags, _) if lower(sprintf("%v", [object.get(tags, "seedance:sla", "")])) == "gold"

_gold_tags(tags, name) if object.get(tags, "seedance:fleet", name) in _gold_fleets

# the policy's gold fleets, once
_gold_fleets := {f.name | some f in object.get(input.policy, "fleets", []); f.sla == "gold"}

# gold fleets the policy runs at no node (capacity.max 0): nothing to keep on-demand
_disabled contains f.name if {
	some f in object.get(input.policy, "fleets", [])
	object.get(f, ["capacity", "max"], null) == 0
}

# a group whose maxSize is 0 (a number, or its text) launches nothing
_runs_no_node(asg) if object.get(asg.inputs, "maxSize", null) in {0, "0"}

_no_base(fleet, asg) := sprintf("gold fleet %s has onDemandBaseCapacity 0", [fleet]) if {
	fleets.on_demand_base(asg) < 1
} else := sprintf("gold fleet %s: onDemandBaseCapacity is not a number (unknown until apply?), so an on-demand base cannot be established", [fleet])
