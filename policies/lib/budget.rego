# METADATA
# title: Budget helpers
# description: >-
#   The projected monthly cost (estimate, else plan, raised by the budget state's forecast), its
#   currency, the policy's fleets by name and Kubernetes quantities.
# scope: package
package lib.budget

# the projected monthly cost; undefined when neither an estimate nor a plan is given
# (the estimate prices the whole stack as it deploys, from the plan when there is one; the plan's
# own cost, its fleets as a cluster would size them, stands in only without an estimate)
projected(gate) := max(candidates) if {
	candidates := [c |
		some c in [
			_base(gate),
			object.get(gate, ["budget_state", "forecast_monthly"], null),
			object.get(gate, ["budget_state", "month_to_date"], null),
		]
		is_number(c)
	]
	count(candidates) > 0
}

_base(gate) := e if {
	e := object.get(gate, ["estimate", "monthly_total"], null)
	is_number(e)
} else := object.get(gate, ["plan", "monthly_cost"], null)

currency(gate) := c if {
	c := object.get(gate, ["estimate", "currency"], object.get(gate, ["plan", "currency"], null))
	is_string(c)
}

policy_fleet(policy, name) := f if {
	some f in object.get(policy, "fleets", [])
	f.name == name
}

# the spot cap of a fleet: the smaller of its spot.maxShare (0 without spot) and its SLA tier's cap
spot_cap(policy, name, sla_caps) := min([max_share, object.get(sla_caps, f.sla, 1)]) if {
	f := policy_fleet(policy, name)
	max_share := object.get(f, ["spot", "maxShare"], 0)
}

# a Kubernetes quantity as a number ("500m" -> 0.5, "1Gi" -> 1073741824, 2 -> 2)
quantity(q) := q if is_number(q)

quantity(q) := units.parse(q) if {
	is_string(q)
	regex.match(`^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+|m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)?$`, q)
}

cost_tags := ["team", "cost-center", "environment", "owner"]

missing_values := {"", "unassigned", "unknown", "[unknown]"}
