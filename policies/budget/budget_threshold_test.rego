package budget.budget_threshold_test

import data.budget.budget_threshold
import data.lib.fixtures

_policy := json.patch(fixtures.no_framework_policy, [{"op": "replace", "path": "/budget/thresholds", "value": [
	{"at": 0.5, "action": "notify"},
	{"at": 0.85, "action": "degrade"},
	{"at": 1.0, "action": "freeze"},
]}])

_with(total) := object.union(fixtures.gate_input(_policy, []), {"estimate": {"monthly_total": total, "currency": "USD"}})

test_pass_below_thresholds if {
	v := budget_threshold.violation with input as _with(400)
	v == set()
}

test_fail_reports_highest_crossed_threshold if {
	v := budget_threshold.violation with input as _with(900)
	v == {fixtures.stack_finding("BUDGET-COST-2", "advisory", "projected monthly cost is 90% of the budget, past the 85% threshold (action: degrade)")}
}

test_pass_over_budget_left_to_budget_rule if {
	v := budget_threshold.violation with input as _with(1200)
	v == set()
}

# test audit: a projection exactly at a threshold has reached it
test_fail_exactly_at_threshold if {
	v := budget_threshold.violation with input as _with(850)
	v == {fixtures.stack_finding("BUDGET-COST-2", "advisory", "projected monthly cost is 85% of the budget, past the 85% threshold (action: degrade)")}
}

test_fail_just_below_threshold_reports_lower_one if {
	# 84.999%, rounded down as the budget response reads an alert: 84.99%, not the 85% threshold, and said so
	v := budget_threshold.violation with input as _with(849.99)
	v == {fixtures.stack_finding("BUDGET-COST-2", "advisory", "projected monthly cost is 84.99% of the budget, past the 50% threshold (action: notify)")}
}

# test audit: exactly at the budget is still within it, and the 1.0 threshold is never the one
# reported (reaching 100% is the budget rule's business once the cost goes over)
test_fail_exactly_at_budget_reports_highest_threshold_below_one if {
	v := budget_threshold.violation with input as _with(1000)
	v == {fixtures.stack_finding("BUDGET-COST-2", "advisory", "projected monthly cost is 100% of the budget, past the 85% threshold (action: degrade)")}
}

test_pass_only_threshold_at_one if {
	policy := json.patch(fixtures.no_framework_policy, [{"op": "replace", "path": "/budget/thresholds", "value": [{"at": 1.0, "action": "freeze"}]}])
	gate := object.union(fixtures.gate_input(policy, []), {"estimate": {"monthly_total": 1000, "currency": "USD"}})
	v := budget_threshold.violation with input as gate
	v == set()
}

# red team: a partial estimate (China's data has no service prices) passed the budget rules silently
test_fail_a_partial_estimate_is_said_to_be_a_lower_bound if {
	estimate := {"monthly_total": 400, "currency": "USD", "unpriced": [
		{"resource": "vpc", "component": "NAT gateway", "reason": "no service prices for cn-north-1"},
		{"resource": "eks-cluster", "component": "EKS cluster", "reason": "no service prices for cn-north-1"},
	]}
	v := budget_threshold.violation with input as object.union(fixtures.gate_input(_policy, []), {"estimate": estimate})
	v == {fixtures.stack_finding("BUDGET-COST-2", "advisory", "the estimate leaves 2 component(s) unpriced (first: vpc, NAT gateway: no service prices for cn-north-1), so its projection of 400.00 USD is a lower bound: the budget rules compare only what it prices")}
	# fully priced, or a plan without an estimate: nothing to say
	w := budget_threshold.violation with input as object.union(fixtures.gate_input(_policy, []), {"estimate": object.union(estimate, {"unpriced": []})})
	w == set()
	x := budget_threshold.violation with input as object.union(fixtures.gate_input(_policy, []), {"estimate": null, "plan": {"monthly_cost": 400, "currency": "USD"}})
	x == set()
}

# a threshold between whole percentages is shown as it is, beside a share rounded down: 87.5% is
# not printed as 88% next to a cost at 87.5%
test_fail_threshold_between_whole_percentages_reads_as_given if {
	policy := json.patch(_policy, [{"op": "add", "path": "/budget/thresholds", "value": [{"at": 0.875, "action": "degrade"}]}])
	v := budget_threshold.violation with input as object.union(fixtures.gate_input(policy, []), {"estimate": {"monthly_total": 875, "currency": "USD"}})
	v == {fixtures.stack_finding("BUDGET-COST-2", "advisory", "projected monthly cost is 87.5% of the budget, past the 87.5% threshold (action: degrade)")}
}
