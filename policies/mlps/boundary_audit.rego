package mlps.boundary_audit

import data.lib.audit
import data.lib.findings
import data.lib.frameworks
import data.lib.resources

# METADATA
# title: "Boundary audit"
# description: >-
#   Every VPC of the stack (the policy's vpcId and any VPC the document creates) has a flow log,
#   and load balancers write access logs.
# related_resources:
#   - ref: https://openstd.samr.gov.cn/bzgk/gb/newGbInfo?hcno=BAFB47E8874764186BDB7865E8344DAF
# custom:
#   control_id: MLPS-L3-8.1.3.5
#   clause: "8.1.3.5"
#   framework: mlps-l3
#   severity: mandatory
#   remediation: >-
#     Add an aws:ec2/flowLog:FlowLog with trafficType ALL on the VPC; enable accessLogs on load
#     balancers.
violation contains findings.finding("MLPS-L3-8.1.3.5", p.resource, p.message) if {
	frameworks.applies(input.policy, "mlps-l3")
	some p in _problems
}

_problems contains findings.problem(findings.stack(input.document), msg) if {
	some vpc in audit.vpcs(input.document, input.policy)
	not audit.flow_logged(input.document, vpc)
	msg := sprintf("VPC %s has no flow log of ALL traffic (trafficType \"ALL\")", [vpc])
}

# ALB/NLB (aws:lb and its alias aws:alb): accessLogs.enabled defaults to false
_problems contains findings.problem(lb, "load balancer writes no access logs") if {
	some lb in resources.of_types(input.document, {"aws:lb/loadBalancer:LoadBalancer", "aws:alb/loadBalancer:LoadBalancer"})
	not resources.truthy(object.get(lb.inputs, ["accessLogs", "enabled"], false))
}

# a classic ELB logs once it has an accessLogs block (whose enabled defaults to true)
_problems contains findings.problem(lb, "load balancer writes no access logs") if {
	some lb in resources.of_type(input.document, "aws:elb/loadBalancer:LoadBalancer")
	not _classic_logs(object.get(lb.inputs, "accessLogs", null))
	not _hidden_enabled(object.get(lb.inputs, "accessLogs", null))
}

_classic_logs(logs) if {
	is_object(logs)
	object.get(logs, "bucket", "") != ""
	not object.get(logs, "enabled", true) in {false, "false"}
	resources.shown(object.get(logs, "enabled", true))
}

# accessLogs.enabled that is secret or unknown until apply may be false
_hidden_enabled(logs) if {
	is_object(logs)
	resources.hidden(object.get(logs, "enabled", true))
}

_problems contains findings.problem(lb, msg) if {
	some lb in resources.of_type(input.document, "aws:elb/loadBalancer:LoadBalancer")
	v := lb.inputs.accessLogs.enabled
	resources.hidden(v)
	msg := sprintf("load balancer's accessLogs.enabled is %s, so that it writes access logs cannot be established", [resources.hidden_why(v)])
}
