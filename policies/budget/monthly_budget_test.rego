package budget.monthly_budget_test

import data.budget.monthly_budget
import data.lib.fixtures

_f(msg) := fixtures.stack_finding("BUDGET-COST-1", "mandatory", msg)

_with(estimate) := object.union(fixtures.gate_input(fixtures.no_framework_policy, []), {"estimate": estimate})

test_pass_within_budget if {
	v := monthly_budget.violation with input as _with({"monthly_total": 999.5, "currency": "USD"})
	v == set()
}

test_fail_over_budget if {
	v := monthly_budget.violation with input as _with({"monthly_total": 1250, "currency": "USD"})
	v == {_f("projected monthly cost 1250.00 USD exceeds the budget of 1000.00 USD (125%)")}
}

test_fail_forecast_over_budget if {
	gate := object.union(_with({"monthly_total": 800, "currency": "USD"}), {"budget_state": {"forecast_monthly": 1100}})
	v := monthly_budget.violation with input as gate
	v == {_f("projected monthly cost 1100.00 USD exceeds the budget of 1000.00 USD (110%)")}
}

test_fail_currency_mismatch if {
	v := monthly_budget.violation with input as _with({"monthly_total": 10, "currency": "CNY"})
	v == {_f("the estimate is in CNY but the budget in USD; currencies are never mixed")}
}

test_fail_closed_without_estimate if {
	v := monthly_budget.violation with input as fixtures.gate_input(fixtures.no_framework_policy, [])
	v == {_f("no cost estimate or plan: the budget cannot be checked")}
}

test_pass_plan_cost_when_no_estimate if {
	gate := object.union(fixtures.gate_input(fixtures.no_framework_policy, []), {"plan": {"monthly_cost": 900, "currency": "USD", "fleets": []}})
	v := monthly_budget.violation with input as gate
	v == set()
}

# test audit: a cost exactly at the amount is within the budget; a cent above is over
test_pass_exactly_at_budget if {
	v := monthly_budget.violation with input as _with({"monthly_total": 1000, "currency": "USD"})
	v == set()
}

# rounded up: a cost over the budget never reads as 100%
test_fail_just_over_budget if {
	v := monthly_budget.violation with input as _with({"monthly_total": 1000.01, "currency": "USD"})
	v == {_f("projected monthly cost 1000.01 USD exceeds the budget of 1000.00 USD (100.01%)")}
}

# test audit: money already spent this month counts even when the estimate is lower
test_fail_month_to_date_over_budget if {
	gate := object.union(_with({"monthly_total": 800, "currency": "USD"}), {"budget_state": {"month_to_date": 1050}})
	v := monthly_budget.violation with input as gate
	v == {_f("projected monthly cost 1050.00 USD exceeds the budget of 1000.00 USD (105%)")}
}

test_pass_month_to_date_within_budget if {
	gate := object.union(_with({"monthly_total": 800, "currency": "USD"}), {"budget_state": {"month_to_date": 950}})
	v := monthly_budget.violation with input as gate
	v == set()
}

# test audit: without an estimate the plan's currency is the one compared
test_fail_plan_currency_mismatch if {
	gate := object.union(fixtures.gate_input(fixtures.no_framework_policy, []), {"plan": {"monthly_cost": 10, "currency": "CNY", "fleets": []}})
	v := monthly_budget.violation with input as gate
	v == {_f("the estimate is in CNY but the budget in USD; currencies are never mixed")}
}

# red team: the estimate prices the stack as it deploys (a stack without a cluster runs each group at
# its desired size); the plan's own cost, as a cluster would size the fleets, stands in only without
# an estimate, so a plan above the estimate does not block
test_pass_the_estimate_decides_over_the_plan if {
	gate := object.union(_with({"monthly_total": 900, "currency": "USD"}), {"plan": {"monthly_cost": 1300, "currency": "USD", "fleets": []}})
	v := monthly_budget.violation with input as gate
	v == set()
	over := object.union(_with({"monthly_total": 1100, "currency": "USD"}), {"plan": {"monthly_cost": 700, "currency": "USD", "fleets": []}})
	w := monthly_budget.violation with input as over
	w == {_f("projected monthly cost 1100.00 USD exceeds the budget of 1000.00 USD (110%)")}
}

# red team: --lookup took the stack's own endpoint (tagged seedance:stack by an earlier deploy of it)
# for the VPC's: no longer declared, the deploy deletes it
_tagged(stack) := object.union(fixtures.endpoint_fact("vpce-0aaaaaaaaaaaaaaa7", "s3", "Gateway", "available", false, null), {"tags": {"seedance:stack": stack}})

test_fail_existing_endpoint_is_the_stacks_own if {
	gate := object.union(
		fixtures.gate_input_with_endpoints(fixtures.no_framework_policy, [], ["s3"], "vpc-0123456789abcdef0", {"s3": [_tagged(fixtures.stack)]}),
		{"estimate": {"monthly_total": 10, "currency": "USD"}},
	)
	v := monthly_budget.violation with input as gate
	v == {_f("network.existingEndpoints names s3, but its VPC endpoint vpce-0aaaaaaaaaaaaaaa7 in vpc-0123456789abcdef0 is this stack's own (tagged seedance:stack=test by an earlier deploy): listing it in existingEndpoints makes this deploy delete it, and its traffic then goes through NAT")}
}

# another Seedance stack's endpoint is the VPC's, as the landing zone's is
test_pass_existing_endpoint_of_another_stack if {
	gate := object.union(
		fixtures.gate_input_with_endpoints(fixtures.no_framework_policy, [], ["s3"], "vpc-0123456789abcdef0", {"s3": [_tagged("shared-network")]}),
		{"estimate": {"monthly_total": 10, "currency": "USD"}},
	)
	v := monthly_budget.violation with input as gate
	v == set()
}

_no_nat(gate) := json.patch(gate, [{"op": "add", "path": "/policy/network/natGateways", "value": 0}])

# red team: with no NAT gateway, an existing endpoint EC2 shows not serving passed (priced "through NAT")
test_fail_no_nat_and_an_existing_endpoint_that_does_not_serve if {
	gate := _no_nat(object.union(
		fixtures.gate_input_with_endpoints(fixtures.no_framework_policy, [], ["ecr.dkr"], "vpc-0123456789abcdef0", {"ecr.dkr": []}),
		{"estimate": {"monthly_total": 10, "currency": "USD"}},
	))
	v := monthly_budget.violation with input as gate
	v == {_f("no VPC endpoint for ecr.dkr: network.existingEndpoints names it, but DescribeVpcEndpoints shows vpc-0123456789abcdef0 has none that serves: with no NAT gateway (network.natGateways 0) it has no route at all: the nodes cannot reach it, and the projection prices its traffic through a NAT gateway the VPC does not have; create the endpoint (list it in network.endpoints) or run a NAT gateway")}
}

# one that serves, or facts not read (the policy's word), or a NAT gateway to fall back on: no finding
test_pass_no_nat_and_existing_endpoints_that_serve_or_are_not_read if {
	serving := fixtures.endpoint_fact("vpce-0bbbbbbbbbbbbbbb1", "ecr.dkr", "Interface", "available", true, null)
	gate := _no_nat(object.union(
		fixtures.gate_input_with_endpoints(fixtures.no_framework_policy, [], ["ecr.dkr"], "vpc-0123456789abcdef0", {"ecr.dkr": [serving]}),
		{"estimate": {"monthly_total": 10, "currency": "USD"}},
	))
	monthly_budget.violation == set() with input as gate
	unread := json.patch(gate, [{"op": "remove", "path": "/facts"}])
	monthly_budget.violation == set() with input as unread
	with_nat := object.union(
		fixtures.gate_input_with_endpoints(fixtures.no_framework_policy, [], ["ecr.dkr"], "vpc-0123456789abcdef0", {"ecr.dkr": []}),
		{"estimate": {"monthly_total": 10, "currency": "USD"}},
	)
	monthly_budget.violation == set() with input as with_nat
}
