# METADATA
# title: Compute launch helpers
# description: >-
#   EC2 launch templates, instances, spot instance requests, launch configurations and the inline
#   launch specifications of spot fleet requests normalised to the same facts (EBS volumes,
#   instance metadata options, public IP, key pair, image, user data, spot interruption), so every
#   control that checks a launch template checks an instance the same way.
# scope: package
package lib.compute

import data.lib.resources

launch_template := "aws:ec2/launchTemplate:LaunchTemplate"

instance := "aws:ec2/instance:Instance"

spot_request := "aws:ec2/spotInstanceRequest:SpotInstanceRequest"

# an Auto Scaling launch configuration: an instance's settings (root and EBS devices, public IP,
# key pair, metadata options, user data) for the groups that use it
launch_configuration := "aws:ec2/launchConfiguration:LaunchConfiguration"

# A spot fleet request launches from launch templates (launchTemplateConfigs: the templates are
# checked as themselves) or from inline launchSpecifications, each an instance's settings: a list
# of root devices, EBS devices, public IP, key pair, AMI and user data, with no metadata options.
spot_fleet := "aws:ec2/spotFleetRequest:SpotFleetRequest"

launch_types := [launch_template, instance, spot_request, launch_configuration]

_instance_types := {instance, spot_request, launch_configuration}

# positions of the launch templates, instances, spot instance requests, launch configurations and
# spot fleet requests with launch specifications of their own
indices := {i | some t in launch_types; some i in resources.indices(t)} | _spot_fleets_with_specs

_spot_fleets_with_specs := {i |
	some i in resources.indices(spot_fleet)
	count(launch_specifications(input.document.resources[i])) > 0
}

# a spot fleet request's inline launch specifications (none for any other resource, or where the
# list is unknown until apply)
launch_specifications(r) := [s | some s in resources.elements(object.get(r.inputs, "launchSpecifications", [])); is_object(s)]

# what to call the resource in a message
noun(r) := _nouns[r.type]

_nouns := {
	launch_template: "launch template",
	instance: "instance",
	spot_request: "spot instance request",
	launch_configuration: "launch configuration",
	spot_fleet: "spot fleet launch specification",
}

# EBS volumes as launch-template block device mappings ({deviceName, ebs}). An instance's root
# volume is always there (rootBlockDevice, or the AMI's defaults when absent: unencrypted unless
# stated); EC2 deletes instance volumes on termination unless told otherwise. So is a launch
# template's: one that maps no root device (/dev/xvda or /dev/sda1), or no device at all, boots
# its instances on the AMI's root snapshot, not shown encrypted (as an instance that leaves its
# root to such a template is judged); a mapping list unknown until apply may be anything.
ebs_mappings(r) := array.concat(
	[m |
		some m in mappings
		is_object(m)
		is_object(object.get(m, "ebs", null))
	],
	array.concat(_template_root([m | some m in mappings; is_object(m)]), hidden_mappings("blockDeviceMappings", mappings)),
) if {
	r.type == launch_template
	mappings := object.get(r.inputs, "blockDeviceMappings", [])
	is_array(mappings)
} else := [_template_root_unknown(mappings)] if {
	r.type == launch_template
	mappings := object.get(r.inputs, "blockDeviceMappings", [])
	mappings != null
} else := _template_root([]) if {
	r.type == launch_template
} else := array.concat(array.concat(_root(r), [_ebs(d) |
	some d in resources.elements(object.get(r.inputs, "ebsBlockDevices", []))
	is_object(d)
]), hidden_mappings("ebsBlockDevices", object.get(r.inputs, "ebsBlockDevices", []))) if {
	r.type in _instance_types
} else := [_in_spec(k, m) |
	# a spot fleet request: each launch specification's root device (the first of
	# rootBlockDevices, the AMI's defaults when absent) and EBS devices, named by its position
	some k, spec in launch_specifications(r)
	some m in array.concat([_spec_root(spec)], [_ebs(d) | some d in resources.elements(object.get(spec, "ebsBlockDevices", [])); is_object(d)])
] if {
	r.type == spot_fleet
}

_spec_root(spec) := {"deviceName": "root", "ebs": object.union(_unstated_ebs, root)} if {
	some root in array.slice(resources.elements(object.get(spec, "rootBlockDevices", [])), 0, 1)
	is_object(root)
} else := {"deviceName": "root", "ebs": _unstated_ebs}

_in_spec(k, m) := object.union(m, {"deviceName": sprintf("%v of launchSpecifications[%d]", [m.deviceName, k])})

_root(r) := [{"deviceName": "root", "ebs": object.union(_unstated_ebs, root)}] if {
	root := object.get(r.inputs, "rootBlockDevice", null)
	is_object(root)
} else := [m] if {
	# an instance or spot request that leaves its root volume to its launch template: the template's
	# mapping of the root device (the template's own check judges it too)
	t := _sole_template(r)
	some m in object.get(t.inputs, "blockDeviceMappings", [])
	is_object(object.get(m, "ebs", null))
	object.get(m, "deviceName", "") in _root_devices
} else := [] if {
	# a template the document does not hold decides the root volume: reported as not checkable
	# (unseen_launch_problem), not judged as the AMI's default
	some [i, _] in unseen_launch_sources
	input.document.resources[i].urn == r.urn
} else := [{"deviceName": "root", "ebs": _unstated_ebs}]

# an instance volume as EC2 makes it where nothing says otherwise (a root volume nothing maps is
# the AMI's snapshot): not shown encrypted, deleted with the instance
_unstated_ebs := {"encrypted": false, "deleteOnTermination": true}

# a launch template's root volume when none of its mappings is the root device's: the AMI's own
_template_root(mappings) := [] if {
	some m in mappings
	is_object(object.get(m, "ebs", null))
	object.get(m, "deviceName", "") in _root_devices
} else := [{
	"deviceName": "root (no mapping of /dev/xvda or /dev/sda1, so the AMI's own snapshot)",
	"ebs": _unstated_ebs,
}]

_template_root_unknown(mappings) := {
	"deviceName": sprintf("blockDeviceMappings unknown until apply (%v)", [mappings]),
	"ebs": _unstated_ebs,
} if mappings != "[secret]"

_template_root_unknown(mappings) := hidden_mappings("blockDeviceMappings", mappings)[0] if mappings == "[secret]"

# A device list (or a device of it) that is hidden (unknown until apply, secret) may hold unencrypted
# volumes: one unstated mapping for it, named "ebsBlockDevices (secret)", "a device of
# blockDeviceMappings (unknown until apply)"
hidden_mappings(field, list) := [{"deviceName": sprintf("%s (%s)", [field, resources.hidden_why(list)]), "ebs": _unstated_ebs}] if {
	resources.hidden(list)
} else := [{"deviceName": sprintf("a device of %s (%s)", [field, resources.hidden_why(d)]), "ebs": _unstated_ebs} |
	some d in resources.elements(list)
	resources.hidden(d)
]

# the names AMIs give their root device (Amazon Linux and Bottlerocket, Ubuntu and most others)
_root_devices := {"/dev/xvda", "/dev/sda1"}

# the launch template of the document an instance or spot instance request launches from: named by
# a key of it, or, when the reference is unknown until apply, by the dependency recorded on it
_template_of(r) := {s |
	r.type in _instance_launchers
	lt := object.get(r.inputs, "launchTemplate", null)
	is_object(lt)
	some s in _launch_sources
	s.type == launch_template
	_names_template(r, lt, s)
}

_sole_template(r) := t if [t] := [s | some s in _template_of(r)]

# the launch templates of the document an instance or spot instance request launches from
templates_of(r) := _template_of(r)

_names_template(_, lt, s) if {
	some k in ["id", "name"]
	v := object.get(lt, k, null)
	is_string(v)
	some key in _forms(v)
	key in _source_keys(s)
}

_names_template(r, lt, s) if {
	not _literal([object.get(lt, "id", null), object.get(lt, "name", null)])
	s.urn in object.get(r, ["property_dependencies", "launchTemplate"], [])
}

_ebs(d) := {
	"deviceName": object.get(d, "deviceName", "?"),
	"ebs": object.remove(object.union(_unstated_ebs, d), ["deviceName"]),
}

# an instance's own setting, else its launch template's (of the document), else EC2's default
http_tokens(r) := tokens if {
	tokens := object.get(r.inputs, ["metadataOptions", "httpTokens"], null)
	tokens != null
} else := tokens if {
	t := _sole_template(r)
	tokens := object.get(t.inputs, ["metadataOptions", "httpTokens"], "optional")
} else := "optional"

# a public IP for the instances: a launch template's network interfaces, an instance's own flag,
# any launch specification's flag
public_ip(r) if {
	r.type == launch_template
	some ni in object.get(r.inputs, "networkInterfaces", [])
	resources.truthy(object.get(ni, "associatePublicIpAddress", false))
} else := true if {
	r.type in _instance_types
	resources.truthy(object.get(r.inputs, "associatePublicIpAddress", false))
} else := true if {
	r.type == spot_fleet
	some spec in launch_specifications(r)
	resources.truthy(object.get(spec, "associatePublicIpAddress", false))
}

# whether instances get a public IP is unknown until apply (associatePublicIpAddress is a preview's
# "[unknown]"): the controls that forbid one cannot pass it. Launch templates and spot fleet
# launch specifications only: an instance's is also an output a preview shows unknown when the
# program leaves it to the subnet (whose mapPublicIpOnLaunch is checked); an instance's secret flag
# is judged (no preview shows it)
public_ip_unknown(r) if {
	_public_ip_hidden(r)
}

# why: "unknown until apply" or "secret" (both when the specifications differ)
public_ip_why(r) := concat(", ", sort({resources.hidden_why(v) | some v in _public_ip_hidden_values(r)}))

_public_ip_hidden_values(r) := {v |
	r.type == launch_template
	some ni in resources.list_at(r.inputs, "networkInterfaces")
	is_object(ni)
	v := object.get(ni, "associatePublicIpAddress", false)
	resources.hidden(v)
} | {v |
	r.type == spot_fleet
	some spec in launch_specifications(r)
	v := object.get(spec, "associatePublicIpAddress", false)
	resources.hidden(v)
} | {v |
	r.type in _instance_types
	v := object.get(r.inputs, "associatePublicIpAddress", false)
	v == "[secret]"
}

_public_ip_hidden(r) if {
	r.type == launch_template
	some ni in resources.list_at(r.inputs, "networkInterfaces")
	is_object(ni)
	resources.hidden(object.get(ni, "associatePublicIpAddress", false))
} else := true if {
	r.type == spot_fleet
	some spec in launch_specifications(r)
	resources.hidden(object.get(spec, "associatePublicIpAddress", false))
} else := true if {
	r.type in _instance_types
	object.get(r.inputs, "associatePublicIpAddress", false) == "[secret]"
}

# whether a launch resource leaves the public IP to its subnet's mapPublicIpOnLaunch: an instance's,
# spot request's or launch configuration's associatePublicIpAddress unset (or unknown until apply:
# then the instance's output, which the subnet decides), a launch template none of whose network
# interfaces sets it, a spot fleet launch specification that does not
public_ip_left_to_subnet(r) if {
	r.type in _instance_types
	ip_left_unset(r.inputs)
}

public_ip_left_to_subnet(r) if {
	r.type == launch_template
	not _template_sets_ip(r)
}

public_ip_left_to_subnet(r) if {
	r.type == spot_fleet
	some spec in launch_specifications(r)
	ip_left_unset(spec)
}

ip_left_unset(inputs) if object.get(inputs, "associatePublicIpAddress", null) in {null, "", "[unknown]"}

_template_sets_ip(r) if {
	some ni in resources.elements(object.get(r.inputs, "networkInterfaces", []))
	is_object(ni)
	not ip_left_unset(ni)
}

# "launch template gives instances a public IP", "instance gets a public IP", ...
public_ip_phrase(r) := "launch template gives instances a public IP" if {
	r.type == launch_template
} else := sprintf("%s gets a public IP (associatePublicIpAddress)", [noun(r)])

key_name(r) := object.get(r.inputs, "keyName", "") if {
	r.type != spot_fleet
} else := concat(", ", sort({k |
	some spec in launch_specifications(r)
	k := object.get(spec, "keyName", "")
	k != ""
}))

# the images an instance boots: a launch template's imageId, an instance's or spot request's ami,
# each launch specification's ami (launch templates may leave it to whoever uses them, e.g. an EKS
# node group's amiType: no image, nothing to check; a launch configuration names its imageId)
images(r) := {x |
	some k in object.get(_image_key, r.type, [])
	x := object.get(r.inputs, k, null)
	x != null
} if r.type != spot_fleet else := {x |
	some spec in launch_specifications(r)
	x := object.get(spec, "ami", null)
	x != null
}

_image_key := {launch_template: ["imageId"], instance: ["ami"], spot_request: ["ami"], launch_configuration: ["imageId"]}

# user data as text: base64 in a launch template (and an instance's userDataBase64), plain text or
# base64 in an instance's userData
user_data(r) := {_decode(raw) |
	some key in ["userData", "userDataBase64"]
	raw := object.get(r.inputs, key, "")
	is_string(raw)
	raw != ""
} if {
	r.type != spot_fleet
} else := {_decode(raw) |
	some spec in launch_specifications(r)
	raw := object.get(spec, "userData", "")
	is_string(raw)
	raw != ""
}

_decode(raw) := base64.decode(raw) if base64.is_valid(raw)

_decode(raw) := raw if not base64.is_valid(raw)

# what spot instances do on interruption (terminate unless stop or hibernate is asked for)
interruption_behaviour(r) := object.get(r.inputs, "instanceInterruptionBehavior", "terminate") if {
	r.type == spot_request
} else := object.get(r.inputs, "instanceInterruptionBehaviour", "terminate") if {
	r.type == spot_fleet
} else := object.get(r.inputs, ["instanceMarketOptions", "spotOptions", "instanceInterruptionBehavior"], "terminate")

# What launches instances from a launch template (or, for a group, a launch configuration) it
# names: Auto Scaling groups, instances and spot instance requests (settings they leave unset come
# from the template), spot fleet requests and EC2 Fleets (launchTemplateConfigs) and EKS managed node
# groups.
_launchers := {
	"aws:autoscaling/group:Group": "group",
	instance: "instance",
	spot_request: "spot instance request",
	spot_fleet: "spot fleet request",
	"aws:ec2/fleet:Fleet": "EC2 Fleet",
	"aws:eks/nodeGroup:NodeGroup": "node group",
}

# Launchers whose launch template or configuration the document does not hold (made by another
# stack or by hand, an aws-native template, or named by an id unknown until apply with no recorded
# dependency): the rules cannot see its volumes, metadata options, public IP, key pair or AMI. Each
# as [position of the launcher, the reference as written].
#
# A reference is resolved by a key of one of the document's templates (id, or the id its ARN ends
# with, which a policy pack's resources carry instead; URN, name input; in a synthesised document,
# the logical name, which a mock id carries). A preview knows no id of a template it creates, so a
# reference unknown until apply is taken as one of the document's templates when the launcher's
# input records a dependency on one.
unseen_launch_sources contains [i, values[0]] if {
	some i, specs in _specs
	some [_, values] in specs
	_literal(values)
	not _matched(values)
}

unseen_launch_sources contains [i, values[0]] if {
	some i, specs in _specs
	some [field, values] in specs
	not _literal(values)
	not _matched(values)
	not _depends_on_a_template(input.document.resources[i], field)
}

# each launcher's template references, read once (launchers that name none left out)
_specs[i] := specs if {
	some t, _ in _launchers
	some i in resources.indices(t)
	specs := _launch_specs(input.document.resources[i].inputs)
	count(specs) > 0
}

# a reference known now (a template's id or name as written, not a preview's "[unknown]"): only
# the document's keys can resolve it, a recorded dependency cannot (it may come from another input
# of the same block, such as the version)
_literal(values) if {
	some v in values
	resources.settled(v)
}

# a finding's problem for launcher i, which launches from ref the document does not hold: what
# cannot be checked
unseen_launch_problem(i, ref, what) := {"at": r.urn, "message": msg, "resource": r} if {
	r := input.document.resources[i]
	msg := sprintf("%s launches from %v, which is not in the document: %s cannot be checked", [_launchers[r.type], ref, what])
}

# a template reference one of the document's templates answers to
_matched(values) if {
	some v in values
	is_string(v)
	some key in _forms(v)
	key in _launch_source_keys
}

# in a synthesised document, a mock id (NAME-xxxxxxxx) also answers to the logical name; elsewhere
# a name that happens to end so is only itself
_forms(v) := resources.lookup_forms(v) if _synthesised else := {v}

_synthesised if object.get(input.document, "source", "") == "synth"

# the launcher's input records a dependency on one of the document's templates: its references
# unknown until apply are taken as the document's (several may share one template)
_depends_on_a_template(r, field) if {
	some urn in object.get(r, ["property_dependencies", field], [])
	urn in _launch_source_urns
}

_source_keys(s) := ({k | some k in [object.get(s, "id", null), s.urn]; is_string(k)} | _logical_name(s)) | ({n | n := object.get(s.inputs, "name", null); is_string(n)} | _arn_id(s))

# the logical name answers to references only in a synthesised document (a mock id carries it); in a
# preview or export it is no AWS name, and another template may have it
_logical_name(s) := {s.name} if _synthesised else := set()

# the id a template's ARN ends with (arn:...:launch-template/lt-...), as outputs carry it
_arn_id(s) := {id |
	arn := object.get(s.inputs, "arn", null)
	is_string(arn)
	contains(arn, ":launch-template/")
	parts := split(arn, "/")
	id := parts[count(parts) - 1]
}

# [input the reference sits under, [the values naming one template: id, then name]] for each
# template or configuration a launcher names (empty strings, what outputs show for an unset
# reference, name none)
_launch_specs(inputs) := [[field, values] |
	some [field, candidates] in _launch_candidates(inputs)
	values := [v | some v in candidates; v != null; v != ""]
	count(values) > 0
] if is_object(inputs)

_launch_candidates(inputs) := array.concat(array.concat(array.concat([[field, [object.get(inputs, array.concat(path, [k]), null) | some k in keys]] |
	some [field, path, keys] in [
		["launchTemplate", ["launchTemplate"], ["id", "name"]],
		["mixedInstancesPolicy", ["mixedInstancesPolicy", "launchTemplate", "launchTemplateSpecification"], ["launchTemplateId", "launchTemplateName"]],
		["launchConfiguration", [], ["launchConfiguration"]],
	]
], [["mixedInstancesPolicy", [object.get(o, ["launchTemplateSpecification", k], null) | some k in ["launchTemplateId", "launchTemplateName"]]] |
	# an override may launch its type from a template of its own
	some o in resources.list_at(resources.as_object(object.get(inputs, ["mixedInstancesPolicy", "launchTemplate"], {})), "overrides")
	is_object(o)
]), [["launchTemplateConfigs", [object.get(config, ["launchTemplateSpecification", k], null) | some k in ["id", "launchTemplateId", "name", "launchTemplateName"]]] |
	# a spot fleet request's (id, name) or an EC2 Fleet's (launchTemplateId, launchTemplateName)
	some config in resources.list_at(inputs, "launchTemplateConfigs")
	is_object(config)
]), [[field, [v]] | some [field, v] in _unknown_refs(inputs)])

# a part on the way to the references that is unknown until apply (a preview's "[unknown]") names
# a template nothing can check
_unknown_parts(inputs) := [[path[0], v] |
	some path in [
		["launchTemplate"],
		["mixedInstancesPolicy"],
		["mixedInstancesPolicy", "launchTemplate"],
		["mixedInstancesPolicy", "launchTemplate", "launchTemplateSpecification"],
		["launchTemplateConfigs"],
	]
	v := object.get(inputs, path, null)
	is_string(v)
]

_unknown_refs(inputs) := array.concat(_unknown_parts(inputs), [["launchTemplateConfigs", v] |
	some config in resources.list_at(inputs, "launchTemplateConfigs")
	v := _unknown_config(config)
])

_unknown_config(config) := config if {
	is_string(config)
} else := v if {
	is_object(config)
	v := object.get(config, "launchTemplateSpecification", null)
	is_string(v)
}

# an instance or spot instance request that sets a launch setting itself (``key``, a path) overrides
# the template's: the rule that judges the setting judges the instance's own
overrides_template(r, key) if {
	r.type in _instance_launchers
	v := object.get(r.inputs, key, null)
	not v in {null, "", "[unknown]", "[secret]"}
}

_instance_launchers := {instance, spot_request}

_launch_sources := resources.of_types(input.document, [launch_template, launch_configuration])

_launch_source_urns := {r.urn | some r in _launch_sources}

# every way a group may name a template or configuration of the document: its id, URN, logical
# name (a mock id carries it), its name input
_launch_source_keys := {k | some r in _launch_sources; some k in _source_keys(r)}

# The launch templates and configurations of the document a launcher (an autoscaling group, an
# instance, ...) launches from, resolved as unseen_launch_sources resolves them: by a key of theirs,
# or, for a reference unknown until apply, by the dependency its input records
launch_sources_of(r) := {s |
	some [field, values] in _launch_specs(r.inputs)
	some s in _launch_sources
	_source_named(r, field, values, s)
}

_source_named(_, _, values, s) if {
	some v in values
	is_string(v)
	some key in _forms(v)
	key in _source_keys(s)
}

_source_named(r, field, values, s) if {
	not _literal(values)
	s.urn in object.get(r, ["property_dependencies", field], [])
}

# a launch template or configuration whose instances hold personal data: tagged personal itself
# (resources.personal_indices), or a launch template whose tagSpecifications tag its instances
# data-class personal (a class that is not shown counts as personal, as for tags: class_at)
launches_personal(s) if s.urn in _personal_source_urns

launches_personal(s) if {
	s.type == launch_template
	some spec in _instance_tag_specs(object.get(s.inputs, "tagSpecifications", []))
	resources.normalise_class(_spec_class(spec)) == "personal"
}

_personal_source_urns := {input.document.resources[i].urn |
	some t in [launch_template, launch_configuration]
	some i in resources.indices(t)
	i in resources.personal_indices
}

# the tag specifications that tag instances (all of them, as one hidden entry, when the list is not shown)
_instance_tag_specs(specs) := [{"tags": specs}] if {
	resources.hidden(specs)
} else := [spec |
	some spec in resources.elements(specs)
	_tags_instances(spec)
]

_tags_instances(spec) if not is_object(spec)

_tags_instances(spec) if {
	is_object(spec)
	object.get(spec, "resourceType", "instance") in {"instance", "[unknown]", "[secret]"}
}

_spec_class(spec) := "[unknown]" if {
	not is_object(spec)
} else := "[unknown]" if {
	resources.hidden(object.get(spec, "tags", {}))
} else := c if {
	is_object(spec.tags)
	c := object.get(spec.tags, "data-class", "")
} else := t.value if {
	is_array(spec.tags)
	some t in spec.tags
	t.key == "data-class"
} else := ""
