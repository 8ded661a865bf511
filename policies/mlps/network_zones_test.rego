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

# audit A14: a subnet list unknown until apply may be the default VPC's
test_fail_unknown_subnets_default_vpc if {
	asg := fixtures.resource("aws:autoscaling/group:Group", "asg", {"vpcZoneIdentifiers": "[unknown]"})
	v := network_zones.violation with input as fixtures.gate_input(fixtures.mlps_policy, [asg])
	v == {_f("aws:autoscaling/group:Group", "asg", "autoscaling group subnets cannot be established ([unknown]): it may launch into the default VPC")}
}

# audit B3: cluster-scoped kinds have no namespace
test_pass_cluster_scoped_kinds if {
	resources := [
		fixtures.resource("kubernetes:networking.k8s.io/v1:IngressClass", "alb", {"metadata": {"name": "alb"}, "spec": {"controller": "ingress.k8s.aws/alb"}}),
		fixtures.resource("kubernetes:node.k8s.io/v1:RuntimeClass", "nvidia", {"metadata": {"name": "nvidia"}, "handler": "nvidia"}),
		fixtures.resource("kubernetes:admissionregistration.k8s.io/v1:ValidatingWebhookConfiguration", "vwc", {"metadata": {"name": "vwc"}, "webhooks": []}),
		fixtures.resource("kubernetes:storage.k8s.io/v1:CSIDriver", "ebs", {"metadata": {"name": "ebs.csi.aws.com"}}),
		fixtures.resource("kubernetes:apiregistration.k8s.io/v1:APIService", "metrics", {"metadata": {"name": "v1beta1.metrics.k8s.io"}}),
	]
	v := network_zones.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == set()
}
