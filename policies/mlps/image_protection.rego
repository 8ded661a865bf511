package mlps.image_protection

import data.lib.compute
import data.lib.findings
import data.lib.frameworks
import data.lib.resources

# METADATA
# title: "Protect images and snapshots"
# description: >-
#   AMIs the stack builds or copies have encrypted volumes, snapshot copies are encrypted, and
#   no AMI launch permission or snapshot volume permission is granted to everyone.
# related_resources:
#   - ref: https://openstd.samr.gov.cn/bzgk/gb/newGbInfo?hcno=BAFB47E8874764186BDB7865E8344DAF
# custom:
#   control_id: MLPS-L3-8.2.4-IMG
#   clause: "8.2.4 cloud extension: image and snapshot protection"
#   framework: mlps-l3
#   severity: mandatory
#   remediation: >-
#     Encrypt AMI block devices and snapshot copies; grant launch and createVolume permissions to
#     named accounts only.
violation contains findings.finding("MLPS-L3-8.2.4-IMG", p.resource, p.message) if {
	frameworks.applies(input.policy, "mlps-l3")
	some p in _problems
}

_problems contains findings.problem(ami, msg) if {
	some ami in resources.of_types(input.document, {"aws:ec2/ami:Ami", "aws:ec2/amiCopy:AmiCopy"})
	some d in resources.elements(object.get(ami.inputs, "ebsBlockDevices", []))
	is_object(d)
	not resources.truthy(object.get(d, "encrypted", false))
	msg := sprintf("AMI volume %v is not encrypted", [object.get(d, "deviceName", "?")])
}

# a device list (or a device) that is unknown until apply or secret may hold unencrypted volumes
_problems contains findings.problem(ami, msg) if {
	some ami in resources.of_types(input.document, {"aws:ec2/ami:Ami", "aws:ec2/amiCopy:AmiCopy"})
	some m in compute.hidden_mappings("ebsBlockDevices", object.get(ami.inputs, "ebsBlockDevices", []))
	msg := sprintf("AMI volume %s is not shown encrypted", [m.deviceName])
}

_problems contains findings.problem(ami, "AMI copy is not encrypted") if {
	some ami in resources.of_type(input.document, "aws:ec2/amiCopy:AmiCopy")
	count(object.get(ami.inputs, "ebsBlockDevices", [])) == 0
	not resources.truthy(object.get(ami.inputs, "encrypted", false))
}

_problems contains findings.problem(s, "snapshot copy is not encrypted") if {
	some s in resources.of_type(input.document, "aws:ebs/snapshotCopy:SnapshotCopy")
	not resources.truthy(object.get(s.inputs, "encrypted", false))
}

_problems contains findings.problem(p, "AMI launch permission is granted to everyone") if {
	some p in resources.of_type(input.document, "aws:ec2/amiLaunchPermission:AmiLaunchPermission")
	object.get(p.inputs, "group", "") == "all"
}

_problems contains findings.problem(p, "snapshot createVolume permission is granted to everyone") if {
	some p in resources.of_type(input.document, "aws:ec2/snapshotCreateVolumePermission:SnapshotCreateVolumePermission")
	object.get(p.inputs, "accountId", "") == "all"
}
