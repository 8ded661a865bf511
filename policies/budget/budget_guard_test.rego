package budget.budget_guard_test

import data.budget.budget_guard
import data.lib.fixtures

_policy := json.patch(fixtures.no_framework_policy, [{"op": "replace", "path": "/budget/thresholds", "value": [
	{"at": 0.85, "action": "degrade"}, {"at": 1, "action": "freeze"},
]}])

_notification(kind, threshold) := {
	"comparisonOperator": "GREATER_THAN", "notificationType": kind, "threshold": threshold, "thresholdType": "PERCENTAGE",
	"subscriberEmailAddresses": ["finops@example.com"], "subscriberSnsTopicArns": ["[unknown]"],
}

# as the stack program creates it
_budget := fixtures.resource("aws:budgets/budget:Budget", "budget", {
	"budgetType": "COST", "timeUnit": "MONTHLY", "limitAmount": "1000.00", "limitUnit": "USD",
	"costFilters": [{"name": "TagKeyValue", "values": ["user:seedance:stack$test"]}],
	"notifications": [_notification("ACTUAL", 85), _notification("ACTUAL", 100), _notification("FORECASTED", 100)],
})

_f(msg) := fixtures.finding("BUDGET-GUARD-1", "mandatory", "aws:budgets/budget:Budget", "budget", msg)

_with(budget) := fixtures.gate_input(_policy, [budget])

test_pass_the_stack_s_budget if {
	v := budget_guard.violation with input as _with(_budget)
	v == set()
	# a lower limit or earlier alerts guard it too
	earlier := json.patch(_budget, [{"op": "replace", "path": "/inputs/limitAmount", "value": "900"}, {"op": "replace", "path": "/inputs/notifications/0/threshold", "value": 80}])
	w := budget_guard.violation with input as _with(earlier)
	w == set()
}

test_fail_no_budget if {
	v := budget_guard.violation with input as fixtures.gate_input(_policy, [])
	v == {fixtures.stack_finding("BUDGET-GUARD-1", "mandatory", "the document holds no AWS Budget: nothing watches the real spend, and no budget-triggered response can start")}
}

test_fail_a_budget_raised_or_pointed_elsewhere if {
	raised := json.patch(_budget, [
		{"op": "replace", "path": "/inputs/limitAmount", "value": "9999999.00"},
		{"op": "replace", "path": "/inputs/limitUnit", "value": "JPY"},
		{"op": "replace", "path": "/inputs/costFilters/0/values", "value": ["user:seedance:stack$other"]},
	])
	v := budget_guard.violation with input as _with(raised)
	v == {_f("AWS Budget does not guard the policy's budget of 1000.00 USD: it does not count the stack's own spend (a TagKeyValue cost filter on user:seedance:stack$test); its limit 9999999.00 is above the policy's 1000.00; limitUnit is JPY, not USD")}
	unknown := json.patch(_budget, [{"op": "replace", "path": "/inputs/limitAmount", "value": "[unknown]"}])
	w := budget_guard.violation with input as _with(unknown)
	w == {_f("AWS Budget does not guard the policy's budget of 1000.00 USD: its limit [unknown] cannot be read")}
}

test_fail_a_threshold_without_an_alert if {
	silenced := json.patch(_budget, [
		{"op": "replace", "path": "/inputs/notifications", "value": [
			_notification("FORECASTED", 85),
			object.union(_notification("ACTUAL", 100), {"subscriberEmailAddresses": [], "subscriberSnsTopicArns": ["[unknown]"]}),
		]},
	])
	v := budget_guard.violation with input as _with(silenced)
	v == {
		_f("AWS Budget has no ACTUAL notification to a subscriber at or below the policy's 85% threshold (action degrade): that response would never start"),
		_f("AWS Budget has no ACTUAL notification to a subscriber at or below the policy's 100% threshold (action freeze): that response would never start"),
	}
}
