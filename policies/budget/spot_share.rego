package budget.spot_share

import data.lib.budget
import data.lib.findings
import data.lib.fleets
import data.lib.fmt
import data.lib.frameworks

# METADATA
# title: "Spot share within the fleet's cap"
# description: >-
#   A fleet's planned spot share above its on-demand base (in the plan, and as the autoscaling
#   group's onDemandPercentageAboveBaseCapacity) stays within the smaller of its spot.maxShare
#   and its SLA tier's cap (gold 0.5 by default, others 1; settable in data).
# related_resources:
#   - ref: https://www.finops.org/framework/capabilities/budgeting/
# custom:
#   control_id: BUDGET-SPOT-1
#   clause: "Seedance cost policy"
#   framework: budget
#   severity: mandatory
#   remediation: >-
#     Lower the fleet's spot share (raise onDemandPercentageAboveBaseCapacity) or, if the workload
#     tolerates interruptions, raise spot.maxShare within the SLA cap.
violation contains findings.finding("BUDGET-SPOT-1", p.resource, p.message) if {
	some p in _problems
}

_caps := frameworks.setting("sla_spot_cap")

# the spot cap of each fleet of the policy, worked out once rather than once per autoscaling group
_fleet_caps[name] := cap if {
	some f in object.get(input.policy, "fleets", [])
	name := f.name
	cap := budget.spot_cap(input.policy, name, _caps)
}

_problems contains findings.problem(findings.stack(input.document), msg) if {
	some fp in object.get(input, ["plan", "fleets"], [])
	cap := budget.spot_cap(input.policy, fp.name, _caps)
	fp.spot_share_above_base > cap
	msg := sprintf("plan runs fleet %s %s%% on spot above its base; the cap is %s%%", [fp.name, fmt.percent_down(fp.spot_share_above_base), fmt.percent_down(cap)])
}

_problems contains findings.problem(asg, msg) if {
	some i in fleets.asg_indices(input.document)
	name := fleets.fleet(i)
	cap := _fleet_caps[name]
	asg := input.document.resources[i]
	share := fleets.spot_share(asg)
	share > cap + 0.0001
	msg := sprintf("fleet %s runs %s%% on spot above its base; the cap is %s%%", [name, fmt.percent_down(share), fmt.percent_down(cap)])
}

_problems contains findings.problem(asg, msg) if {
	some i in fleets.asg_indices(input.document)
	name := fleets.fleet(i)
	cap := _fleet_caps[name]
	asg := input.document.resources[i]
	not fleets.spot_share(asg)
	msg := sprintf("fleet %s: onDemandPercentageAboveBaseCapacity is not a number (unknown until apply?), so its spot share cannot be shown within the cap of %s%%", [name, fmt.percent_down(cap)])
}
