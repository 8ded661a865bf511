package mlps.image_protection

import data.lib.compute
import data.lib.findings
import data.lib.frameworks
import data.lib.resources

# METADATA
# title: "Protect images and snapshots"
# description: >-
#   AMIs the stack builds or copies have encrypted volumes, snapshot copies and imported snapshots
#   are encrypted, an AMI made from an instance is made from one of the document (whose volumes
#   the encryption rules judge), and no AMI launch permission (an Image Builder distribution's
#   included) or snapshot volume permission is granted to everyone.
# related_resources:
#   - ref: https://openstd.samr.gov.cn/bzgk/gb/newGbInfo?hcno=BAFB47E8874764186BDB7865E8344DAF
# custom:
#   control_id: MLPS-L3-8.2.4-IMG
#   clause: "8.2.4 cloud extension: image and snapshot protection"
#   framework: mlps-l3
#   severity: mandatory
#   remediation: >-
#     Encrypt AMI block devices, snapshot copies and imported snapshots; make AMIs from instances
#     of the stack (or waive the finding with the source instance's volume encryption as evidence);
#     grant launch permissions (Image Builder: launchPermission userIds, organizationArns) and
#     createVolume permissions to named accounts only.
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

_problems contains findings.problem(s, "imported snapshot is not encrypted") if {
	some s in resources.of_type(input.document, "aws:ebs/snapshotImport:SnapshotImport")
	not resources.truthy(object.get(s.inputs, "encrypted", false))
}

# An AMI made from an instance has the encryption of the instance's volumes. The encryption rules
# judge the instances of the document (and spot instance requests'); one the document does not
# hold (another stack's, made by hand, or an id unknown until apply that no property dependency
# ties to an instance of the document) may have unencrypted volumes.
_problems contains findings.problem(ami, msg) if {
	some ami in resources.of_type(input.document, "aws:ec2/amiFromInstance:AmiFromInstance")
	ref := object.get(ami.inputs, "sourceInstanceId", "")
	not _document_instance(ami, ref)
	msg := sprintf("AMI is made from instance %v, which is not in the document, so the encryption of its volumes cannot be established", [ref])
}

_instance_types := [compute.instance, compute.spot_request]

# a reference known now names an instance of the document by its id or URN (in a synthesised
# document also by the logical name a mock id carries)
_document_instance(_, ref) if {
	resources.settled(ref)
	some key in _forms(ref)
	key in _instance_keys
}

# one unknown until apply (or secret) is the document's when the input depends on one of its instances
_document_instance(ami, ref) if {
	resources.hidden(ref)
	some urn in object.get(ami, ["property_dependencies", "sourceInstanceId"], [])
	urn in {r.urn | some r in resources.of_types(input.document, _instance_types)}
}

_instance_keys contains key if {
	some r in resources.of_types(input.document, _instance_types)
	some key in {k | some k in [object.get(r, "id", null), r.urn]; is_string(k)} | _logical(r)
}

_synthesised if object.get(input.document, "source", "") == "synth"

_forms(v) := resources.lookup_forms(v) if _synthesised else := {v}

_logical(r) := {r.name} if _synthesised else := set()

# EC2 Image Builder: a distribution configuration's launchPermission shares every AMI its pipelines
# build; userGroups "all" makes them public. A distribution list, distribution or permission the
# document does not show may do so too.
_distribution_type := "aws:imagebuilder/distributionConfiguration:DistributionConfiguration"

_problems contains findings.problem(d, msg) if {
	some d in resources.of_type(input.document, _distribution_type)
	some region in _public_distributions(d)
	msg := sprintf("Image Builder distribution to %v grants launch permission to everyone (launchPermission.userGroups \"all\"): every AMI it distributes is public", [region])
}

_problems contains findings.problem(d, msg) if {
	some d in resources.of_type(input.document, _distribution_type)
	some [what, v] in _hidden_distribution_parts(d)
	msg := sprintf("Image Builder distribution: %s is %s, so a launch permission for everyone cannot be ruled out", [what, resources.hidden_why(v)])
}

_public_distributions(d) := {object.get(dist, "region", "?") |
	some dist in resources.list_at(d.inputs, "distributions")
	is_object(dist)
	groups := object.get(dist, ["amiDistributionConfiguration", "launchPermission", "userGroups"], [])
	is_array(groups)
	some g in groups
	is_string(g)
	lower(g) == "all"
}

_hidden_distribution_parts(d) := {["its distribution list", v] |
	v := object.get(d.inputs, "distributions", [])
	resources.hidden(v)
} | {[sprintf("the %s of its distribution to %v", [what, object.get(dist, "region", "?")]), v] |
	some dist in resources.list_at(d.inputs, "distributions")
	is_object(dist)
	some [what, path] in [
		["AMI distribution configuration", ["amiDistributionConfiguration"]],
		["launch permission", ["amiDistributionConfiguration", "launchPermission"]],
		["launch permission user groups", ["amiDistributionConfiguration", "launchPermission", "userGroups"]],
	]
	v := object.get(dist, path, null)
	resources.hidden(v)
} | {[sprintf("a launch permission user group of its distribution to %v", [object.get(dist, "region", "?")]), g] |
	some dist in resources.list_at(d.inputs, "distributions")
	is_object(dist)
	groups := object.get(dist, ["amiDistributionConfiguration", "launchPermission", "userGroups"], [])
	is_array(groups)
	some g in groups
	resources.hidden(g)
} | {["a distribution", dist] |
	some dist in resources.list_at(d.inputs, "distributions")
	resources.hidden(dist)
}
