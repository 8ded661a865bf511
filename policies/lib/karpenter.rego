# METADATA
# title: Karpenter node classes
# description: >-
#   Karpenter's EC2NodeClass (karpenter.k8s.aws, v1 and v1beta1) as the launch settings it gives
#   the nodes it starts: EBS volumes, instance metadata options, public IP and images, for the
#   controls that check launch templates. Defaults are Karpenter's (its EC2NodeClass API and AMI
#   family code): without blockDeviceMappings, an AMI family's own encrypted gp3 volumes (the
#   Custom family: the AMI's volumes, whatever they are); metadataOptions.httpTokens "required";
#   associatePublicIPAddress unset leaves it to the subnet.
# scope: package
package lib.karpenter

import data.lib.resources

# positions of the EC2NodeClasses of the document and of their patches (a patch is judged by the
# settings it sets: the live class's others are not in the document)
node_class_indices := {i |
	some t in resources.k8s_types(input.document)
	startswith(split(t, ":")[1], "karpenter.k8s.aws/")
	split(t, ":")[2] in {"EC2NodeClass", "EC2NodeClassPatch"}
	some i in resources.indices(t)
}

# the spec; one unknown until apply stands for a spec whose every setting is unknown
_spec(r) := spec if {
	spec := object.get(r.inputs, "spec", {})
	is_object(spec)
} else := {
	"blockDeviceMappings": _unknown,
	"metadataOptions": {"httpTokens": _unknown},
	"amiSelectorTerms": _unknown,
}

_unknown := "[unknown]"

# the AMI families whose default volumes Karpenter encrypts (AL2 and AL2023 /dev/xvda, Bottlerocket
# /dev/xvda and /dev/xvdb, Windows /dev/sda1; Ubuntu in v1beta1), and each family's root device
_root_device := {
	"AL2": "/dev/xvda", "AL2023": "/dev/xvda", "Bottlerocket": "/dev/xvda",
	"Windows2019": "/dev/sda1", "Windows2022": "/dev/sda1", "Windows2025": "/dev/sda1", "Ubuntu": "/dev/sda1",
}

# the family: amiFamily, else the one an alias term names (al2023@latest -> AL2023)
_family(spec) := spec.amiFamily if {
	is_string(object.get(spec, "amiFamily", null))
} else := families[0] if {
	families := [f |
		some term in resources.elements(object.get(spec, "amiSelectorTerms", []))
		is_object(term)
		alias := object.get(term, "alias", null)
		is_string(alias)
		f := _alias_families[lower(split(alias, "@")[0])]
	]
	count(families) > 0
} else := null

_alias_families := {
	"al2": "AL2", "al2023": "AL2023", "bottlerocket": "Bottlerocket",
	"windows2019": "Windows2019", "windows2022": "Windows2022", "windows2025": "Windows2025",
}

# EBS volumes as launch-template block device mappings ({deviceName, ebs: {encrypted, kmsKeyId}}).
# Given mappings replace the family's defaults entirely (Karpenter applies those only to an empty
# list): an encrypted flag left out is EC2's account default or the snapshot's, not shown
# encrypted, and a root device no mapping covers comes from the AMI's snapshot, not shown
# encrypted. Without mappings: the family's encrypted defaults, else (Custom, or a family unknown
# until apply) the AMI's own volumes, not shown encrypted. A list unknown until apply may be
# anything. A patch without mappings leaves the live class's.
ebs_mappings(r) := array.concat([_mapping(d) | some d in mappings], _uncovered_root(_spec(r), mappings)) if {
	mappings := object.get(_spec(r), "blockDeviceMappings", [])
	is_array(mappings)
	count(mappings) > 0
} else := [] if {
	resources.is_patch(r)
	object.get(_spec(r), "blockDeviceMappings", null) == null
} else := [{"deviceName": sprintf("blockDeviceMappings unknown until apply (%v)", [mappings]), "ebs": {"encrypted": false}}] if {
	mappings := object.get(_spec(r), "blockDeviceMappings", [])
	not mappings in {null, []}
	not is_array(mappings)
} else := [{"deviceName": "the AMI family's default volumes", "ebs": {"encrypted": true}}] if {
	_family(_spec(r)) in object.keys(_root_device)
} else := [{"deviceName": "the AMI's own volumes (no blockDeviceMappings)", "ebs": {"encrypted": false}}]

# the root volume, when no given mapping is it (rootVolume true, or the family's root device; for a
# family without a known root device, /dev/xvda or /dev/sda1)
_uncovered_root(spec, mappings) := [] if {
	some d in mappings
	is_object(d)
	_is_root(spec, d)
} else := [{"deviceName": sprintf("the root volume (%s: no mapping gives it, so it is the AMI's own)", [_root_name(spec)]), "ebs": {"encrypted": false}}]

_is_root(_, d) if d.rootVolume == true

_is_root(spec, d) if object.get(d, "deviceName", null) == _root_name(spec)

_is_root(spec, d) if {
	not _root_device[_family(spec)]
	object.get(d, "deviceName", null) in {"/dev/xvda", "/dev/sda1"}
}

_root_name(spec) := _root_device[_family(spec)] if _root_device[_family(spec)]

_root_name(spec) := "the AMI's root device" if not _root_device[_family(spec)]

_mapping(d) := {"deviceName": object.get(d, "deviceName", "?"), "ebs": {
	"encrypted": object.get(ebs, "encrypted", false),
	"kmsKeyId": object.get(ebs, "kmsKeyID", ""),
}} if {
	is_object(d)
	ebs := object.get(d, "ebs", {})
	is_object(ebs)
} else := {"deviceName": sprintf("%v", [d]), "ebs": {"encrypted": false}}

# httpTokens: Karpenter defaults metadataOptions (and each of its fields) to IMDSv2 only; a patch
# that sets none leaves the live class's
http_tokens(r) := tokens if {
	options := object.get(_spec(r), "metadataOptions", {})
	is_object(options)
	tokens := object.get(options, "httpTokens", "required")
} else := "required" if {
	object.get(_spec(r), "metadataOptions", null) == null
} else := _unknown

public_ip(r) if resources.truthy(object.get(_spec(r), "associatePublicIPAddress", false))

# the images of the amiSelectorTerms, as the AMI-owner check reads them: an alias resolves through
# AWS's public SSM parameters (/aws/service/eks/..., /aws/service/bottlerocket/...), an ssmParameter
# is resolve:ssm:PATH (given by name or by ARN), an id is itself; a term that selects by name or
# tags picks whatever AMIs match among its owners (self and amazon unless owner says), described as
# such; a list unknown until apply may select anything
images(r) := {image |
	some term in terms
	image := _image(term)
} if {
	terms := object.get(_spec(r), "amiSelectorTerms", [])
	is_array(terms)
} else := set() if {
	object.get(_spec(r), "amiSelectorTerms", null) == null
} else := {sprintf("amiSelectorTerms unknown until apply (%v)", [object.get(_spec(r), "amiSelectorTerms", null)])}

_image(term) := sprintf("an amiSelectorTerm unknown until apply (%v)", [term]) if {
	not is_object(term)
} else := "resolve:ssm:/aws/service/" if {
	is_string(object.get(term, "alias", null))
} else := sprintf("resolve:ssm:%s", [_parameter_path(term.ssmParameter)]) if {
	is_string(object.get(term, "ssmParameter", null))
} else := term.id if {
	is_string(object.get(term, "id", null))
} else := sprintf("the AMIs an amiSelectorTerm selects by name or tags (%v) among owners %v", [
	object.remove(term, ["owner"]),
	object.get(term, "owner", "self,amazon"),
])

# a parameter given by ARN (arn:PARTITION:ssm:REGION:ACCOUNT:parameter/NAME) as its path
_parameter_path(p) := concat("", ["/", substring(p, indexof(p, ":parameter/") + count(":parameter/"), -1)]) if {
	startswith(p, "arn:")
	contains(p, ":parameter/")
} else := p
