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

# test audit: an AMI copy without block devices is checked by its own encrypted flag
test_fail_unencrypted_ami_copy if {
	copy := fixtures.resource("aws:ec2/amiCopy:AmiCopy", "copy", {"sourceAmiId": "ami-1", "sourceAmiRegion": "cn-north-1"})
	v := image_protection.violation with input as fixtures.gate_input(fixtures.mlps_policy, [copy])
	v == {_f("aws:ec2/amiCopy:AmiCopy", "copy", "AMI copy is not encrypted")}
}

test_pass_encrypted_ami_copy if {
	copy := fixtures.resource("aws:ec2/amiCopy:AmiCopy", "copy", {"sourceAmiId": "ami-1", "sourceAmiRegion": "cn-north-1", "encrypted": true})
	v := image_protection.violation with input as fixtures.gate_input(fixtures.mlps_policy, [copy])
	v == set()
}

# test audit: createVolumePermission for "all" makes the snapshot public; one account does not
test_fail_public_snapshot_create_volume_permission if {
	perm := fixtures.resource("aws:ec2/snapshotCreateVolumePermission:SnapshotCreateVolumePermission", "share", {"snapshotId": "snap-1", "accountId": "all"})
	v := image_protection.violation with input as fixtures.gate_input(fixtures.mlps_policy, [perm])
	v == {_f("aws:ec2/snapshotCreateVolumePermission:SnapshotCreateVolumePermission", "share", "snapshot createVolume permission is granted to everyone")}
}

test_pass_snapshot_create_volume_permission_to_one_account if {
	perm := fixtures.resource("aws:ec2/snapshotCreateVolumePermission:SnapshotCreateVolumePermission", "share", {"snapshotId": "snap-1", "accountId": "444455556666"})
	v := image_protection.violation with input as fixtures.gate_input(fixtures.mlps_policy, [perm])
	v == set()
}

# red team: an AMI's device list (or a device) that is secret or unknown until apply may hold
# unencrypted volumes: judged, not an engine error, saying why
test_fail_hidden_ami_devices if {
	every c in [["[secret]", "ebsBlockDevices (secret)"], [["[unknown]"], "a device of ebsBlockDevices (unknown until apply)"]] {
		[devices, name] := c
		ami := fixtures.resource("aws:ec2/ami:Ami", "img", {"ebsBlockDevices": devices})
		v := image_protection.violation with input as fixtures.gate_input(fixtures.mlps_policy, [ami])
		v == {fixtures.finding("MLPS-L3-8.2.4-IMG", "mandatory", "aws:ec2/ami:Ami", "img", sprintf("AMI volume %s is not shown encrypted", [name]))}
	}
}
