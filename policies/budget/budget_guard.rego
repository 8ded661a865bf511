package budget.budget_guard

import data.lib.findings
import data.lib.fmt
import data.lib.resources

# METADATA
# title: "An AWS Budget guards the policy's budget"
# description: >-
#   The budget rules judge a projection; what watches the real spend is the stack's AWS Budget, and
#   its alerts start the budget-triggered responses (degrade, spot only, freeze). The document must
#   hold one: a monthly COST budget on the stack's own spend (the TagKeyValue filter
#   user:seedance:stack$STACK), in the policy's currency, at or below budget.monthlyAmount, with an
#   ACTUAL notification, to a subscriber, at or below every threshold of the policy. A value
#   unknown until apply does not count as one.
# related_resources:
#   - ref: https://docs.aws.amazon.com/cost-management/latest/userguide/budgets-create.html
# custom:
#   control_id: BUDGET-GUARD-1
#   clause: "Seedance cost policy"
#   framework: budget
#   severity: mandatory
#   remediation: >-
#     Deploy the stack's BudgetGuard as the Seedance stack program creates it (budget.monthlyAmount,
#     budget.currency, one notification per threshold), and do not raise, remove or silence it.
violation contains findings.finding("BUDGET-GUARD-1", p.resource, p.message) if {
	some p in _problems
}

_budget := input.policy.budget

_filter := sprintf("user:seedance:stack$%s", [input.document.stack])

_budgets := resources.of_type(input.document, "aws:budgets/budget:Budget")

# why a budget of the document does not guard the policy's budget; none when it does
_faults(b) := {msg |
	some [key, want] in [["budgetType", "COST"], ["timeUnit", "MONTHLY"], ["limitUnit", _budget.currency]]
	got := object.get(b.inputs, key, null)
	got != want
	msg := sprintf("%s is %v, not %v", [key, got, want])
} | {msg |
	not _on_the_stack(b)
	msg := sprintf("it does not count the stack's own spend (a TagKeyValue cost filter on %s)", [_filter])
} | {msg |
	limit := resources.number(object.get(b.inputs, "limitAmount", null))
	limit > _budget.monthlyAmount + 0.005
	msg := sprintf("its limit %s is above the policy's %s", [fmt.two_decimals(limit), fmt.two_decimals(_budget.monthlyAmount)])
} | {msg |
	limit := object.get(b.inputs, "limitAmount", null)
	not resources.number(limit)
	msg := sprintf("its limit %v cannot be read", [limit])
}

_on_the_stack(b) if {
	some f in resources.list_at(b.inputs, "costFilters")
	is_object(f)
	object.get(f, "name", null) == "TagKeyValue"
	_filter in resources.list_at(f, "values")
}

_guards := [b | some b in _budgets; count(_faults(b)) == 0]

_problems contains findings.problem(findings.stack(input.document), "the document holds no AWS Budget: nothing watches the real spend, and no budget-triggered response can start") if {
	count(_budgets) == 0
}

_problems contains findings.problem(b, msg) if {
	count(_guards) == 0
	some b in _budgets
	msg := sprintf("AWS Budget does not guard the policy's budget of %s %s: %s", [fmt.two_decimals(_budget.monthlyAmount), _budget.currency, concat("; ", sort([m | some m in _faults(b)]))])
}

# a guarding budget alerts at every threshold of the policy (at or below it), to someone
_problems contains findings.problem(b, msg) if {
	some b in _guards
	some t in object.get(_budget, "thresholds", [])
	not _alerts_at(b, 100 * t.at)
	msg := sprintf("AWS Budget has no ACTUAL notification to a subscriber at or below the policy's %s%% threshold (action %s): that response would never start", [fmt.percent_down(t.at), t.action])
}

_alerts_at(b, percent) if {
	some n in resources.list_at(b.inputs, "notifications")
	is_object(n)
	object.get(n, "notificationType", null) == "ACTUAL"
	object.get(n, "thresholdType", "PERCENTAGE") == "PERCENTAGE"
	object.get(n, "comparisonOperator", null) in {"GREATER_THAN", "EQUAL_TO"}
	threshold := resources.number(object.get(n, "threshold", null))
	threshold <= percent + 0.0001
	_subscribed(n)
}

_subscribed(n) if {
	some key in ["subscriberEmailAddresses", "subscriberSnsTopicArns"]
	some s in resources.list_at(n, key)
	resources.settled(s)
}
