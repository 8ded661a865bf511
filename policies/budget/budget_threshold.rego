package budget.budget_threshold

import data.lib.budget
import data.lib.findings

# METADATA
# title: "Projected cost past a budget threshold"
# description: >-
#   The projected monthly cost has crossed a budget threshold below 100% (for example 85%,
#   action degrade): the deploy may go ahead but the threshold's action is due.
# related_resources:
#   - ref: https://www.finops.org/framework/capabilities/budgeting/
# custom:
#   control_id: BUDGET-COST-2
#   clause: "Seedance cost policy"
#   framework: budget
#   severity: advisory
#   remediation: >-
#     Act on the threshold (notify, degrade non-core fleets, spot-only non-prod) or reduce the
#     plan's cost.
violation contains findings.finding("BUDGET-COST-2", p.resource, p.message) if {
	some p in _problems
}

_amount := input.policy.budget.monthlyAmount

_cost := budget.projected(input)

# the highest threshold below 100% that the projection has reached, while still within the budget
_crossed := max([t.at | some t in object.get(input.policy.budget, "thresholds", []); t.at < 1; _cost >= t.at * _amount])

_problems contains findings.problem(findings.stack(input.document), msg) if {
	_cost <= _amount
	some t in input.policy.budget.thresholds
	t.at == _crossed
	msg := sprintf("projected monthly cost is %d%% of the budget, past the %d%% threshold (action: %s)", [round((100 * _cost) / _amount), round(100 * t.at), t.action])
}
