package mlps.remote_administration_test

import data.mlps.remote_administration
import data.lib.fixtures

_f(type, name, msg) := fixtures.finding("MLPS-L3-8.1.4.1", "mandatory", type, name, msg)

pass_resources := [
	fixtures.security_group("sg", [{"protocol": "tcp", "fromPort": 22, "toPort": 22, "cidrBlocks": ["10.0.0.0/16"]}], []),
	fixtures.launch_template("lt", "internal", {}),
	fixtures.resource("aws:eks/cluster:Cluster", "eks", {"vpcConfig": {"endpointPublicAccess": false, "endpointPrivateAccess": true}}),
]

fail_resources := [
	fixtures.security_group("sg", [{"protocol": "tcp", "fromPort": 0, "toPort": 3389, "cidrBlocks": ["0.0.0.0/0"]}], []),
	fixtures.launch_template("lt", "internal", {"keyName": "ops"}),
	fixtures.resource("aws:eks/cluster:Cluster", "eks", {"vpcConfig": {"subnetIds": ["subnet-1"]}}),
]

test_pass_private_admin if {
	v := remote_administration.violation with input as fixtures.gate_input(fixtures.mlps_policy, pass_resources)
	v == set()
}

test_fail_public_admin if {
	v := remote_administration.violation with input as fixtures.gate_input(fixtures.mlps_policy, fail_resources)
	v == {
		_f("aws:ec2/securityGroup:SecurityGroup", "sg", "security group opens administration port 22 to the internet"),
		_f("aws:ec2/securityGroup:SecurityGroup", "sg", "security group opens administration port 3389 to the internet"),
		_f("aws:ec2/launchTemplate:LaunchTemplate", "lt", "launch template installs an SSH key pair (keyName); use Session Manager"),
		_f("aws:eks/cluster:Cluster", "eks", "EKS API endpoint is public to the whole internet"),
	}
}
