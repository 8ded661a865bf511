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

# positions of the EC2NodeClasses of the document (patches left out: they change a live class the
# document does not hold)
node_class_indices := {i |
	some t in resources.k8s_types(input.document)
	startswith(split(t, ":")[1], "karpenter.k8s.aws/")
	split(t, ":")[2] == "EC2NodeClass"
	some i in resources.indices(t)
}

_spec(r) := spec if {
	spec := object.get(r.inputs, "spec", {})
	is_object(spec)
} else := {}

# the AMI families whose default volumes Karpenter encrypts (AL2 and AL2023 /dev/xvda, Bottlerocket
# /dev/xvda and /dev/xvdb, Windows /dev/sda1; Ubuntu in v1beta1)
_encrypting_families := {"AL2", "AL2023", "Bottlerocket", "Windows2019", "Windows2022", "Windows2025", "Ubuntu"}

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

# EBS volumes as launch-template block device mappings ({deviceName, ebs: {encrypted, kmsKeyId}}):
# the given mappings (an encrypted flag left out is EC2's account default or the snapshot's, not
# shown encrypted), else the family's defaults, else (Custom, or a family unknown until apply) the
# AMI's own volumes, not shown encrypted
ebs_mappings(r) := [m |
	some d in mappings
	m := _mapping(d)
] if {
	mappings := object.get(_spec(r), "blockDeviceMappings", [])
	is_array(mappings)
	count(mappings) > 0
} else := [{"deviceName": "the AMI family's default volumes", "ebs": {"encrypted": true}}] if {
	_family(_spec(r)) in _encrypting_families
} else := [{"deviceName": "the AMI's own volumes (no blockDeviceMappings)", "ebs": {"encrypted": false}}]

_mapping(d) := {"deviceName": object.get(d, "deviceName", "?"), "ebs": {
	"encrypted": object.get(ebs, "encrypted", false),
	"kmsKeyId": object.get(ebs, "kmsKeyID", ""),
}} if {
	is_object(d)
	ebs := object.get(d, "ebs", {})
	is_object(ebs)
} else := {"deviceName": sprintf("%v", [d]), "ebs": {"encrypted": false}}

http_tokens(r) := tokens if {
	options := object.get(_spec(r), "metadataOptions", {})
	is_object(options)
	tokens := object.get(options, "httpTokens", "required")
} else := "[unknown]"

public_ip(r) if resources.truthy(object.get(_spec(r), "associatePublicIPAddress", false))

# the images of the amiSelectorTerms, as the AMI-owner check reads them: an alias resolves through
# AWS's public SSM parameters (/aws/service/eks/..., /aws/service/bottlerocket/...), an ssmParameter
# is resolve:ssm:PATH, an id is itself; a term that selects by name or tags picks whatever AMIs
# match among its owners (self and amazon unless owner says), described as such
images(r) := {image |
	some term in resources.elements(object.get(_spec(r), "amiSelectorTerms", []))
	image := _image(term)
}

_image(term) := sprintf("an amiSelectorTerm unknown until apply (%v)", [term]) if {
	not is_object(term)
} else := "resolve:ssm:/aws/service/" if {
	is_string(object.get(term, "alias", null))
} else := sprintf("resolve:ssm:%s", [term.ssmParameter]) if {
	is_string(object.get(term, "ssmParameter", null))
} else := term.id if {
	is_string(object.get(term, "id", null))
} else := sprintf("the AMIs an amiSelectorTerm selects by name or tags (%v) among owners %v", [
	object.remove(term, ["owner"]),
	object.get(term, "owner", "self,amazon"),
])
