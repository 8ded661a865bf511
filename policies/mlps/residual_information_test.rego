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
