package mlps.network_zones_test

import data.mlps.network_zones
import data.lib.fixtures

_f(type, name, msg) := fixtures.finding("MLPS-L3-8.1.2.1c", "mandatory", type, name, msg)

_cm(name, ns) := fixtures.resource("kubernetes:core/v1:ConfigMap", name, {"metadata": {"name": name, "namespace": ns}, "data": {}})

pass_resources := [
	fixtures.security_group("sg", [], []),
	fixtures.resource("aws:autoscaling/group:Group", "asg", {"vpcZoneIdentifiers": ["subnet-1", "subnet-2"]}),
	_cm("cfg", "inference"),
	fixtures.storage_class("general", "internal", {}),
]

fail_resources := [
	fixtures.resource("aws:ec2/securityGroup:SecurityGroup", "sg", {"ingress": []}),
	fixtures.resource("aws:autoscaling/group:Group", "asg", {"availabilityZones": ["cn-north-1a"]}),
	fixtures.resource("kubernetes:core/v1:ConfigMap", "cfg", {"metadata": {"name": "cfg"}}),
]

test_pass_zoned if {
	v := network_zones.violation with input as fixtures.gate_input(fixtures.mlps_policy, pass_resources)
	v == set()
}

test_fail_default_vpc_and_namespace if {
	v := network_zones.violation with input as fixtures.gate_input(fixtures.mlps_policy, fail_resources)
	v == {
		_f("aws:ec2/securityGroup:SecurityGroup", "sg", "security group has no vpcId: it lands in the default VPC"),
		_f("aws:autoscaling/group:Group", "asg", "autoscaling group has no vpcZoneIdentifiers: it launches into the default VPC"),
		_f("kubernetes:core/v1:ConfigMap", "cfg", "Kubernetes object in the default namespace"),
	}
}

test_pass_outside_mlps if {
	v := network_zones.violation with input as fixtures.gate_input(fixtures.gdpr_policy, fail_resources)
	v == set()
}
