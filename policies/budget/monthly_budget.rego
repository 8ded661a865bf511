package budget.monthly_budget

import data.lib.budget
import data.lib.endpoints
import data.lib.findings
import data.lib.fmt

# METADATA
# title: "Projected monthly cost within the budget"
# description: >-
#   The projected monthly cost (estimate, else plan; raised to the budget state's forecast or
#   month-to-date spend) does not exceed budget.monthlyAmount, is in the budget's currency, and
#   exists at all: without a projection the budget cannot be checked and the gate blocks.
# related_resources:
#   - ref: https://www.finops.org/framework/capabilities/budgeting/
# custom:
#   control_id: BUDGET-COST-1
#   clause: "Seedance cost policy"
#   framework: budget
#   severity: mandatory
#   remediation: >-
#     Lower the plan's cost (more spot or reserved capacity, fewer nodes, cheaper types) or raise
#     budget.monthlyAmount; run seedance estimate to see where the money goes. A finding about
#     network.existingEndpoints says in its message what to change in the network instead.
violation contains findings.finding("BUDGET-COST-1", p.resource, p.message) if {
	some p in _problems
}

_stack := findings.stack(input.document)

_amount := input.policy.budget.monthlyAmount

_budget_currency := object.get(input.policy, ["budget", "currency"], "USD")

_problems contains findings.problem(_stack, "no cost estimate or plan: the budget cannot be checked") if {
	not budget.projected(input)
}

_problems contains findings.problem(_stack, msg) if {
	cur := budget.currency(input)
	cur != _budget_currency
	msg := sprintf("the estimate is in %s but the budget in %s; currencies are never mixed", [cur, _budget_currency])
}

_problems contains findings.problem(_stack, msg) if {
	cost := budget.projected(input)
	cost > _amount
	msg := sprintf("projected monthly cost %s %s exceeds the budget of %s %s (%s%%)", [fmt.two_decimals(cost), _budget_currency, fmt.two_decimals(_amount), _budget_currency, fmt.percent_up(cost / _amount)])
}

# an endpoint network.existingEndpoints names that EC2 shows is this very stack's own, made by an earlier
# deploy: the stack no longer declares it, so the deploy deletes it, and the estimate prices the
# service's traffic through NAT (seedance check --lookup, --facts)
_problems contains findings.problem(_stack, msg) if {
	some [name, ep] in endpoints.own_listed
	msg := sprintf("network.existingEndpoints names %s, but its VPC endpoint %s in %s is this stack's own (tagged seedance:stack=%s by an earlier deploy): listing it in existingEndpoints makes this deploy delete it, and its traffic then goes through NAT", [
		name, ep.id, input.facts.vpc_endpoints.vpc_id, input.document.stack,
	])
}

# a VPC without a NAT gateway (network.natGateways 0) and a service network.existingEndpoints names that
# EC2 shows no endpoint serving: its traffic has no route at all, so the nodes cannot reach it and the
# estimate, which prices that traffic through NAT, describes a network that does not exist
_problems contains findings.problem(_stack, msg) if {
	object.get(input.policy, ["network", "natGateways"], 1) == 0
	some name in object.get(input.policy, ["network", "existingEndpoints"], [])
	endpoints.read(name)
	endpoints.unavailable(name)
	msg := endpoints.missing_message(name, "with no NAT gateway (network.natGateways 0) it has no route at all: the nodes cannot reach it, and the projection prices its traffic through a NAT gateway the VPC does not have; create the endpoint (list it in network.endpoints) or run a NAT gateway")
}
