package mlps.controlled_interfaces_test

import data.mlps.controlled_interfaces
import data.lib.fixtures

_f(type, name, msg) := fixtures.finding("MLPS-L3-8.1.3.1a", "mandatory", type, name, msg)

_ep(service) := fixtures.resource("aws:ec2/vpcEndpoint:VpcEndpoint", service, {
	"serviceName": sprintf("cn.com.amazonaws.cn-north-1.%s", [service]),
	"vpcEndpointType": "Interface",
	"privateDnsEnabled": true,
})

pass_resources := [_ep("s3"), _ep("kms"), _ep("logs"), _ep("ecr.api"), _ep("ecr.dkr"), fixtures.launch_template("lt", "internal", {})]

fail_resources := [
	_ep("s3"), _ep("kms"), _ep("logs"), _ep("ecr.api"),
	fixtures.resource("aws:ec2/subnet:Subnet", "public", {"mapPublicIpOnLaunch": true}),
	fixtures.launch_template("lt", "internal", {"networkInterfaces": [{"associatePublicIpAddress": "true"}]}),
]

test_pass_private_paths if {
	v := controlled_interfaces.violation with input as fixtures.gate_input(fixtures.mlps_policy, pass_resources)
	v == set()
}

test_fail_public_paths if {
	v := controlled_interfaces.violation with input as fixtures.gate_input(fixtures.mlps_policy, fail_resources)
	v == {
		_f("aws:ec2/subnet:Subnet", "public", "subnet maps public IPs on launch"),
		_f("aws:ec2/launchTemplate:LaunchTemplate", "lt", "launch template gives instances a public IP"),
		fixtures.stack_finding("MLPS-L3-8.1.3.1a", "mandatory", "no VPC endpoint for ecr.dkr: its traffic crosses the internet boundary through NAT"),
	}
}

# an EC2 instance checked like a launch template (audit A2)
_instance(inputs) := fixtures.resource("aws:ec2/instance:Instance", "box", object.union(
	{
		"tags": fixtures.tags("personal"),
		"instanceType": "g5.xlarge",
		"rootBlockDevice": {"encrypted": true, "deleteOnTermination": true, "kmsKeyId": "arn:aws:kms:eu-central-1:111122223333:key/k"},
		"metadataOptions": {"httpTokens": "required"},
	},
	inputs,
))

_weak_instance := _instance({
	"associatePublicIpAddress": true,
	"keyName": "ops-key",
	"metadataOptions": {"httpTokens": "optional"},
	"rootBlockDevice": {"encrypted": false, "deleteOnTermination": false},
	"userData": "#!/bin/sh\nexport DB_PASSWORD=hunter2\n",
})

# audit A2: an instance with a public IP
test_fail_instance_public_ip_mlps if {
	v := controlled_interfaces.violation with input as fixtures.gate_input(fixtures.mlps_policy, [_weak_instance])
	instance_findings := {f | some f in v; f.resource_type == "aws:ec2/instance:Instance"}
	instance_findings == {fixtures.finding("MLPS-L3-8.1.3.1a", "mandatory", "aws:ec2/instance:Instance", "box", "instance gets a public IP (associatePublicIpAddress)")}
}
