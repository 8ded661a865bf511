package mlps.boundary_audit_test

import data.mlps.boundary_audit
import data.lib.fixtures

test_pass_flow_logged if {
	v := boundary_audit.violation with input as fixtures.gate_input(fixtures.mlps_policy, [fixtures.flow_log("flow", "vpc-0123456789abcdef0")])
	v == set()
}

test_fail_no_flow_log_no_access_logs if {
	lb := fixtures.resource("aws:lb/loadBalancer:LoadBalancer", "alb", {"internal": true})
	v := boundary_audit.violation with input as fixtures.gate_input(fixtures.mlps_policy, [lb, fixtures.flow_log("other", "vpc-other")])
	v == {
		fixtures.stack_finding("MLPS-L3-8.1.3.5", "mandatory", "VPC vpc-0123456789abcdef0 has no flow log of ALL traffic (trafficType \"ALL\")"),
		fixtures.finding("MLPS-L3-8.1.3.5", "mandatory", "aws:lb/loadBalancer:LoadBalancer", "alb", "load balancer writes no access logs"),
	}
}

# the aws:alb alias and classic ELBs log too
test_access_logs_of_alb_alias_and_classic_elb if {
	flow := fixtures.flow_log("flow", "vpc-0123456789abcdef0")
	lbs := [
		fixtures.resource("aws:alb/loadBalancer:LoadBalancer", "alias", {"internal": true}),
		fixtures.resource("aws:alb/loadBalancer:LoadBalancer", "alias-logged", {"accessLogs": {"bucket": "logs", "enabled": true}}),
		fixtures.resource("aws:elb/loadBalancer:LoadBalancer", "classic", {"listeners": []}),
		fixtures.resource("aws:elb/loadBalancer:LoadBalancer", "classic-off", {"accessLogs": {"bucket": "logs", "enabled": false}}),
		fixtures.resource("aws:elb/loadBalancer:LoadBalancer", "classic-logged", {"accessLogs": {"bucket": "logs"}}),
	]
	v := boundary_audit.violation with input as fixtures.gate_input(fixtures.mlps_policy, array.concat([flow], lbs))
	v == {
		fixtures.finding("MLPS-L3-8.1.3.5", "mandatory", "aws:alb/loadBalancer:LoadBalancer", "alias", "load balancer writes no access logs"),
		fixtures.finding("MLPS-L3-8.1.3.5", "mandatory", "aws:elb/loadBalancer:LoadBalancer", "classic", "load balancer writes no access logs"),
		fixtures.finding("MLPS-L3-8.1.3.5", "mandatory", "aws:elb/loadBalancer:LoadBalancer", "classic-off", "load balancer writes no access logs"),
	}
}

# red team: a classic load balancer's accessLogs.enabled that is secret or unknown until apply may be false
_elb(name, enabled) := fixtures.resource("aws:elb/loadBalancer:LoadBalancer", name, {"accessLogs": {"bucket": "logs", "enabled": enabled}})

test_fail_hidden_classic_access_logs if {
	v := boundary_audit.violation with input as fixtures.gate_input(fixtures.mlps_policy, [_elb("s", "[secret]"), _elb("u", "[unknown]"), _elb("on", true)])
	{f.resource_name: f.message | some f in v; f.resource_type == "aws:elb/loadBalancer:LoadBalancer"} == {
		"s": "load balancer's accessLogs.enabled is secret, so that it writes access logs cannot be established",
		"u": "load balancer's accessLogs.enabled is unknown until apply, so that it writes access logs cannot be established",
	}
}
