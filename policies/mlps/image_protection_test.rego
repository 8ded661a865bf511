package mlps.image_protection_test

import data.mlps.image_protection
import data.lib.fixtures

_f(type, name, msg) := fixtures.finding("MLPS-L3-8.2.4-IMG", "mandatory", type, name, msg)

test_pass_private_encrypted_images if {
	ami := fixtures.resource("aws:ec2/ami:Ami", "gpu-ami", {"ebsBlockDevices": [{"deviceName": "/dev/xvda", "encrypted": true, "snapshotId": "snap-1"}]})
	perm := fixtures.resource("aws:ec2/amiLaunchPermission:AmiLaunchPermission", "share", {"imageId": "ami-1", "accountId": "444455556666"})
	v := image_protection.violation with input as fixtures.gate_input(fixtures.mlps_policy, [ami, perm])
	v == set()
}

test_fail_public_unencrypted_images if {
	ami := fixtures.resource("aws:ec2/ami:Ami", "gpu-ami", {"ebsBlockDevices": [{"deviceName": "/dev/xvda", "snapshotId": "snap-1"}]})
	perm := fixtures.resource("aws:ec2/amiLaunchPermission:AmiLaunchPermission", "share", {"imageId": "ami-1", "group": "all"})
	copy := fixtures.resource("aws:ebs/snapshotCopy:SnapshotCopy", "copy", {"sourceSnapshotId": "snap-1", "sourceRegion": "cn-north-1"})
	v := image_protection.violation with input as fixtures.gate_input(fixtures.mlps_policy, [ami, perm, copy])
	v == {
		_f("aws:ec2/ami:Ami", "gpu-ami", "AMI volume /dev/xvda is not encrypted"),
		_f("aws:ec2/amiLaunchPermission:AmiLaunchPermission", "share", "AMI launch permission is granted to everyone"),
		_f("aws:ebs/snapshotCopy:SnapshotCopy", "copy", "snapshot copy is not encrypted"),
	}
}
