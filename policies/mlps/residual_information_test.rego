package mlps.residual_information_test

import data.mlps.residual_information
import data.lib.fixtures

_f(type, name, msg) := fixtures.finding("MLPS-L3-8.1.4.10", "mandatory", type, name, msg)

test_pass_wiped if {
	v := residual_information.violation with input as fixtures.gate_input(fixtures.mlps_policy, [fixtures.launch_template("lt", "personal", {}), fixtures.storage_class("general", "personal", {})])
	v == set()
}

test_fail_kept_storage if {
	lt := fixtures.launch_template("lt", "internal", {
		"blockDeviceMappings": [{"deviceName": "/dev/xvda", "ebs": {"deleteOnTermination": "false", "encrypted": "false"}}],
		"instanceMarketOptions": {"marketType": "spot", "spotOptions": {"instanceInterruptionBehavior": "hibernate"}},
	})
	v := residual_information.violation with input as fixtures.gate_input(fixtures.mlps_policy, [lt, fixtures.storage_class("fast", "internal", {"reclaimPolicy": "Retain"})])
	v == {
		_f("aws:ec2/launchTemplate:LaunchTemplate", "lt", "EBS mapping /dev/xvda survives instance termination (deleteOnTermination not true)"),
		_f("aws:ec2/launchTemplate:LaunchTemplate", "lt", "EBS mapping /dev/xvda is not encrypted, so released blocks are readable"),
		_f("aws:ec2/launchTemplate:LaunchTemplate", "lt", "sensitive spot instances hibernate on interruption and keep their volumes"),
		_f("kubernetes:storage.k8s.io/v1:StorageClass", "fast", "sensitive StorageClass keeps released volumes (reclaimPolicy Retain)"),
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

test_pass_instance_volumes_deleted_and_encrypted if {
	v := residual_information.violation with input as fixtures.gate_input(fixtures.mlps_policy, [_instance({})])
	v == set()
}

# audit A2: an instance root volume kept after termination
test_fail_instance_volume_survives if {
	v := residual_information.violation with input as fixtures.gate_input(fixtures.mlps_policy, [_weak_instance])
	v == {
		fixtures.finding("MLPS-L3-8.1.4.10", "mandatory", "aws:ec2/instance:Instance", "box", "EBS mapping root survives instance termination (deleteOnTermination not true)"),
		fixtures.finding("MLPS-L3-8.1.4.10", "mandatory", "aws:ec2/instance:Instance", "box", "EBS mapping root is not encrypted, so released blocks are readable"),
	}
}

# Instance stores, as EC2 describes the instance types (input.facts, from seedance check --lookup):
# a type whose instance store is not always encrypted is reported wherever it is launched; one
# that is (NVMe) or that has none is not; without facts nothing is checked.
_types_facts := {"region": "cn-north-1", "instance_types": {
	"d2.xlarge": {"instance_storage": true, "encryption_support": "unsupported"},
	"g5.xlarge": {"instance_storage": true, "encryption_support": "required"},
	"m5.large": {"instance_storage": false, "encryption_support": null},
}}

test_fail_instance_store_not_encrypted if {
	resources := [
		fixtures.launch_template("lt", "public", {"instanceType": "d2.xlarge"}),
		fixtures.resource("aws:autoscaling/group:Group", "asg", {"mixedInstancesPolicy": {"launchTemplate": {"overrides": [{"instanceType": "g5.xlarge"}, {"instanceType": "d2.xlarge"}]}}}),
		fixtures.resource("aws:eks/nodeGroup:NodeGroup", "ng", {"instanceTypes": ["m5.large", "d2.xlarge"]}),
		fixtures.launch_template("nvme", "public", {"instanceType": "g5.xlarge"}),
	]
	gi := object.union(fixtures.gate_input(fixtures.mlps_policy, resources), {"facts": _types_facts})
	v := residual_information.violation with input as gi
	msg := "instance type d2.xlarge has an instance store that is not always encrypted (EC2: encryption support unsupported), so released blocks may be readable"
	v == {
		fixtures.finding("MLPS-L3-8.1.4.10", "mandatory", "aws:ec2/launchTemplate:LaunchTemplate", "lt", msg),
		fixtures.finding("MLPS-L3-8.1.4.10", "mandatory", "aws:autoscaling/group:Group", "asg", msg),
		fixtures.finding("MLPS-L3-8.1.4.10", "mandatory", "aws:eks/nodeGroup:NodeGroup", "ng", msg),
	}
	w := residual_information.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	w == set()
}

# red team: a sensitive spot fleet that stops its instances on interruption, and a launch
# specification volume that outlives its instance
test_spot_fleet_interruption_and_volumes if {
	fleet := object.union(
		fixtures.spot_fleet("sfr", "personal", [{"ebsBlockDevices": [{"deviceName": "/dev/xvdb", "encrypted": true, "kmsKeyId": "arn:aws:kms:eu-central-1:111122223333:key/k", "deleteOnTermination": false}]}]),
		{"inputs": {"instanceInterruptionBehaviour": "stop"}},
	)
	v := residual_information.violation with input as fixtures.gate_input(fixtures.mlps_policy, [fleet, fixtures.spot_fleet("ok", "personal", [{}])])
	v == {
		_f("aws:ec2/spotFleetRequest:SpotFleetRequest", "sfr", "sensitive spot instances stop on interruption and keep their volumes"),
		_f("aws:ec2/spotFleetRequest:SpotFleetRequest", "sfr", "EBS mapping /dev/xvdb of launchSpecifications[0] survives instance termination (deleteOnTermination not true)"),
	}
}

# a group launching from a launch template the document does not hold (another stack's, an
# aws-native one, an id unknown until apply) cannot be checked and is reported; one launching from
# the document's template is judged by that template
# whatever the data class
test_fail_a_group_launching_from_a_template_the_document_lacks_residual_information if {
	lt := object.union(fixtures.launch_template("lt", "public", {}), {"id": "lt-0cccccccccccccccc"})
	v := residual_information.violation with input as fixtures.gate_input(fixtures.mlps_policy, [
		lt,
		_unseen_group("own", "public", "lt-0cccccccccccccccc"),
		_unseen_group("other", "public", "lt-0bbbbbbbbbbbbbbbb"),
	])
	v == {_f("aws:autoscaling/group:Group", "other", "group launches from lt-0bbbbbbbbbbbbbbbb, which is not in the document: whether its volumes are encrypted and deleted on termination cannot be checked")}
}

_unseen_group(name, data_class, ref) := fixtures.resource("aws:autoscaling/group:Group", name, {
	"maxSize": 2, "launchTemplate": {"id": ref, "version": "$Latest"},
	"tags": [{"key": "data-class", "value": data_class, "propagateAtLaunch": true}],
})

# red team: an internal-data launch template without a root mapping releases the AMI's root
# snapshot volume, not shown encrypted; mapping the root device encrypted passes
test_fail_template_root_volume_not_wiped if {
	bare := fixtures.resource("aws:ec2/launchTemplate:LaunchTemplate", "bare", {"imageId": "ami-0123456789abcdef0", "tags": fixtures.tags("internal")})
	v := residual_information.violation with input as fixtures.gate_input(fixtures.mlps_policy, [bare])
	v == {_f("aws:ec2/launchTemplate:LaunchTemplate", "bare", "EBS mapping root (no mapping of /dev/xvda or /dev/sda1, so the AMI's own snapshot) is not encrypted, so released blocks are readable")}
}

test_pass_launch_template_mapping_sda1 if {
	lt := fixtures.launch_template("sda1", "internal", {"blockDeviceMappings": [
		{"deviceName": "/dev/sda1", "ebs": {"encrypted": "true", "deleteOnTermination": "true", "kmsKeyId": "arn:aws:kms:cn-north-1:111122223333:key/k"}},
	]})
	v := residual_information.violation with input as fixtures.gate_input(fixtures.mlps_policy, [lt])
	v == set()
}
