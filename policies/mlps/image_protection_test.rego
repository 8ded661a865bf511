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

# red team F13: an Image Builder distribution that shares its AMIs with everyone, an unencrypted
# imported snapshot, and an AMI made from an instance the document does not hold
_dist(name, distributions) := fixtures.resource("aws:imagebuilder/distributionConfiguration:DistributionConfiguration", name, {"name": name, "distributions": distributions})

_public_dist(region) := {"region": region, "amiDistributionConfiguration": {"name": "gpu-ami-{{ imagebuilder:buildDate }}", "launchPermission": {"userGroups": ["all"]}}}

test_fail_public_image_builder_distribution if {
	resources := [
		_dist("public", [_public_dist("cn-north-1"), {"region": "cn-northwest-1", "amiDistributionConfiguration": {"launchPermission": {"userIds": ["444455556666"]}}}]),
		_dist("hidden", [{"region": "cn-north-1", "amiDistributionConfiguration": {"launchPermission": "[unknown]"}}, {"region": "cn-northwest-1", "amiDistributionConfiguration": {"launchPermission": {"userGroups": ["[secret]"]}}}]),
		_dist("later", "[unknown]"),
	]
	v := image_protection.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	_type := "aws:imagebuilder/distributionConfiguration:DistributionConfiguration"
	v == {
		_f(_type, "public", "Image Builder distribution to cn-north-1 grants launch permission to everyone (launchPermission.userGroups \"all\"): every AMI it distributes is public"),
		_f(_type, "hidden", "Image Builder distribution: the launch permission of its distribution to cn-north-1 is unknown until apply, so a launch permission for everyone cannot be ruled out"),
		_f(_type, "hidden", "Image Builder distribution: a launch permission user group of its distribution to cn-northwest-1 is secret, so a launch permission for everyone cannot be ruled out"),
		_f(_type, "later", "Image Builder distribution: its distribution list is unknown until apply, so a launch permission for everyone cannot be ruled out"),
	}
}

test_pass_private_image_builder_distribution if {
	resources := [_dist("private", [
		{"region": "cn-north-1", "amiDistributionConfiguration": {"kmsKeyId": "arn:aws-cn:kms:cn-north-1:444455556666:key/k", "launchPermission": {"userIds": ["444455556666"], "organizationArns": ["arn:aws-cn:organizations::444455556666:organization/o-abc"]}}},
		{"region": "cn-northwest-1"},
	])]
	v := image_protection.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == set()
}

test_fail_unencrypted_snapshot_import if {
	resources := [
		fixtures.resource("aws:ebs/snapshotImport:SnapshotImport", "plain", {"diskContainer": {"format": "VHD"}, "encrypted": false}),
		fixtures.resource("aws:ebs/snapshotImport:SnapshotImport", "unset", {"diskContainer": {"format": "VHD"}}),
		fixtures.resource("aws:ebs/snapshotImport:SnapshotImport", "sealed", {"diskContainer": {"format": "VHD"}, "encrypted": true}),
	]
	v := image_protection.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == {
		_f("aws:ebs/snapshotImport:SnapshotImport", "plain", "imported snapshot is not encrypted"),
		_f("aws:ebs/snapshotImport:SnapshotImport", "unset", "imported snapshot is not encrypted"),
	}
}

_from_instance(name, ref) := fixtures.resource("aws:ec2/amiFromInstance:AmiFromInstance", name, {"sourceInstanceId": ref})

test_fail_ami_from_an_instance_outside_the_document if {
	resources := [
		_from_instance("external", "i-0123456789abcdef0"),
		_from_instance("unlinked", "[unknown]"),
	]
	v := image_protection.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == {
		_f("aws:ec2/amiFromInstance:AmiFromInstance", "external", "AMI is made from instance i-0123456789abcdef0, which is not in the document, so the encryption of its volumes cannot be established"),
		_f("aws:ec2/amiFromInstance:AmiFromInstance", "unlinked", "AMI is made from instance [unknown], which is not in the document, so the encryption of its volumes cannot be established"),
	}
}

# near miss: the instance is the document's, by its mock id (synthesised document) or by the
# dependency an id unknown until apply records
test_pass_ami_from_an_instance_of_the_document if {
	node := fixtures.resource("aws:ec2/instance:Instance", "builder", {"rootBlockDevice": {"encrypted": true}})
	linked := object.union(_from_instance("linked", "[unknown]"), {"property_dependencies": {"sourceInstanceId": [node.urn]}})
	resources := [node, _from_instance("by-id", "builder-1a2b3c4d"), linked]
	v := image_protection.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == set()
}
