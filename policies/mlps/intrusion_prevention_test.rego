package mlps.intrusion_prevention_test

import data.mlps.intrusion_prevention
import data.lib.fixtures

_f(type, name, msg) := fixtures.finding("MLPS-L3-8.1.4.4ab", "mandatory", type, name, msg)

_job(name, spec) := fixtures.resource("kubernetes:batch/v1:Job", name, {"metadata": {"namespace": "batch"}, "spec": {"template": {"spec": spec}}})

_hardened := {"containers": [{"name": "embed", "image": "x", "securityContext": {"capabilities": {"drop": ["ALL"]}, "readOnlyRootFilesystem": true, "privileged": false}}]}

test_pass_hardened if {
	v := intrusion_prevention.violation with input as fixtures.gate_input(fixtures.mlps_policy, [_job("embed", _hardened)])
	v == set()
}

test_fail_exposed_and_soft if {
	sg := fixtures.security_group("db", [{"protocol": "tcp", "fromPort": 6379, "toPort": 6379, "cidrBlocks": ["0.0.0.0/0"]}], [])
	job := _job("embed", {"hostNetwork": true, "containers": [{"name": "embed", "image": "x"}]})
	v := intrusion_prevention.violation with input as fixtures.gate_input(fixtures.mlps_policy, [sg, job])
	v == {
		_f("aws:ec2/securityGroup:SecurityGroup", "db", "security group exposes high-risk port 6379 to the internet"),
		_f("kubernetes:batch/v1:Job", "embed", "container embed: uses the host network"),
		_f("kubernetes:batch/v1:Job", "embed", "container embed: does not drop ALL capabilities"),
		_f("kubernetes:batch/v1:Job", "embed", "container embed: root filesystem is writable"),
	}
}
