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
