package budget.overcommit

import data.lib.budget
import data.lib.findings
import data.lib.fmt
import data.lib.resources

# METADATA
# title: "Overcommit within the declared cap"
# description: >-
#   Containers' CPU and memory limits are at most scheduling.overcommitCap times their requests,
#   and LimitRange maxLimitRequestRatio does not allow more. (GPU time-slicing is declared
#   sharing under gpuSharing, not overcommit.)
# related_resources:
#   - ref: https://www.finops.org/framework/capabilities/budgeting/
# custom:
#   control_id: BUDGET-OVERCOMMIT-1
#   clause: "Seedance cost policy"
#   framework: budget
#   severity: mandatory
#   remediation: >-
#     Lower the limits or raise the requests so limit/request <= overcommitCap, or raise the cap
#     in the cost policy.
violation contains findings.finding("BUDGET-OVERCOMMIT-1", p.resource, p.message) if {
	some p in _problems
}

_cap := object.get(input.policy, ["scheduling", "overcommitCap"], 1)

_problems contains findings.problem(w, msg) if {
	some w in resources.workloads(input.document)
	some c in resources.containers(resources.pod_spec(w))
	some res in ["cpu", "memory"]
	limit := budget.quantity(c.resources.limits[res])
	request := budget.quantity(c.resources.requests[res])
	request > 0
	ratio := limit / request
	ratio > _cap
	msg := sprintf("container %s overcommits %s %sx (limit/request); the cap is %sx", [c.name, res, fmt.two_decimals(ratio), fmt.two_decimals(_cap)])
}

_problems contains findings.problem(lr, msg) if {
	some lr in resources.of_type(input.document, "kubernetes:core/v1:LimitRange")
	some limit in object.get(lr.inputs, ["spec", "limits"], [])
	some res, value in object.get(limit, "maxLimitRequestRatio", {})
	ratio := budget.quantity(value)
	ratio > _cap
	msg := sprintf("LimitRange allows %s overcommit of %sx; the cap is %sx", [res, fmt.two_decimals(ratio), fmt.two_decimals(_cap)])
}
