package budget.budget_threshold

import data.lib.budget
import data.lib.findings
import data.lib.fmt

# METADATA
# title: "Projected cost past a budget threshold, or not fully priced"
# description: >-
#   The projected monthly cost has crossed a budget threshold below 100% (for example 85%,
#   action degrade): the deploy may go ahead but the threshold's action is due. An estimate that
#   leaves components unpriced (the public data has no China service prices, say) is a lower
#   bound: the budget rules compare only what it prices, which is said here.
# related_resources:
#   - ref: https://www.finops.org/framework/capabilities/budgeting/
# custom:
#   control_id: BUDGET-COST-2
#   clause: "Seedance cost policy"
#   framework: budget
#   severity: advisory
#   remediation: >-
#     Act on the threshold (notify, degrade non-core fleets, spot-only non-prod) or reduce the
#     plan's cost. Unpriced components have no price in the bundled data for the region (a price
#     refresh fetches EC2 instance prices only): the projection is a lower bound, so keep the
#     budget's margin for them.
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
	# rounded down, as the budget response reads an alert: 84.98% is not the 85% threshold
	msg := sprintf("projected monthly cost is %s%% of the budget, past the %s%% threshold (action: %s)", [fmt.percent_down(_cost / _amount), fmt.percent_down(t.at), t.action])
}

# an estimate with unpriced components: the projection is a lower bound
_problems contains findings.problem(findings.stack(input.document), msg) if {
	estimate := object.get(input, "estimate", null)
	is_object(estimate)
	unpriced := object.get(estimate, "unpriced", [])
	is_array(unpriced)
	count(unpriced) > 0
	first := unpriced[0]
	is_object(first)
	msg := sprintf("the estimate leaves %d component(s) unpriced (first: %v, %v: %v), so its projection of %s %s is a lower bound: the budget rules compare only what it prices", [
		count(unpriced), object.get(first, "resource", "?"), object.get(first, "component", "?"), object.get(first, "reason", "?"),
		fmt.two_decimals(object.get(estimate, "monthly_total", 0)), object.get(estimate, "currency", "?"),
	])
}
