package mlps.trusted_software_test

import data.mlps.trusted_software
import data.lib.fixtures

_pod(image) := fixtures.resource("kubernetes:core/v1:Pod", "p", {"metadata": {"namespace": "batch"}, "spec": {"containers": [{"name": "app", "image": image}]}})

_own_account_policy := json.patch(fixtures.mlps_policy, [{"op": "add", "path": "/cloud/accountId", "value": "444455556666"}])

test_pass_pinned_trusted if {
	v := trusted_software.violation with input as fixtures.gate_input(_own_account_policy, [_pod("444455556666.dkr.ecr.cn-north-1.amazonaws.com.cn/models@sha256:abc")])
	v == set()
}

test_fail_untrusted_unpinned if {
	v := trusted_software.violation with input as fixtures.gate_input(fixtures.mlps_policy, [_pod("docker.io/library/python:3.11")])
	v == {
		fixtures.finding("MLPS-L3-8.1.4.5-6", "advisory", "kubernetes:core/v1:Pod", "p", "container app pulls docker.io/library/python:3.11 from a registry that is not allow-listed"),
		fixtures.finding("MLPS-L3-8.1.4.5-6", "advisory", "kubernetes:core/v1:Pod", "p", "container app image docker.io/library/python:3.11 is not pinned by digest"),
	}
}

# audit C: only the account's own ECR is trusted, not any 12-digit account's
test_fail_foreign_account_ecr if {
	image := "999999999999.dkr.ecr.cn-north-1.amazonaws.com.cn/someone-else/tool@sha256:abc"
	v := trusted_software.violation with input as fixtures.gate_input(_own_account_policy, [_pod(image)])
	v == {fixtures.finding("MLPS-L3-8.1.4.5-6", "advisory", "kubernetes:core/v1:Pod", "p", sprintf("container app pulls %s from a registry that is not allow-listed", [image]))}
}

test_pass_own_ecr_in_another_region if {
	v := trusted_software.violation with input as fixtures.gate_input(_own_account_policy, [_pod("444455556666.dkr.ecr.cn-northwest-1.amazonaws.com.cn/models@sha256:abc")])
	v == set()
}

# without cloud.accountId no ECR can be told to be the account's own (fail closed)
test_fail_ecr_without_declared_account if {
	image := "444455556666.dkr.ecr.cn-north-1.amazonaws.com.cn/models@sha256:abc"
	v := trusted_software.violation with input as fixtures.gate_input(fixtures.mlps_policy, [_pod(image)])
	v == {fixtures.finding("MLPS-L3-8.1.4.5-6", "advisory", "kubernetes:core/v1:Pod", "p", sprintf("container app pulls %s from a registry that is not allow-listed", [image]))}
}

test_pass_allow_listed_registry if {
	v := trusted_software.violation with input as fixtures.gate_input(fixtures.mlps_policy, [_pod("nvcr.io/nvidia/pytorch@sha256:abc")])
	v == set()
}

_lt(image) := fixtures.resource("aws:ec2/launchTemplate:LaunchTemplate", "lt", {"imageId": image, "instanceType": "g5.xlarge"})

_advisory(type, name, msg) := fixtures.finding("MLPS-L3-8.1.4.5-6", "advisory", type, name, msg)

_untrusted(noun, image) := sprintf("%s boots %v, which is not shown to come from an allow-listed owner (an AMI resolved from resolve:ssm:/aws/service/, or listed in compliance.trusted.amis)", [noun, image])

# AMIs: AWS's public SSM parameters name AWS's own AMIs; an id, another parameter path or a value
# unknown until apply does not show the owner; a launch template without an image has none to check
test_pass_ami_from_aws_public_parameter if {
	resources := [
		_lt("resolve:ssm:/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/x86_64/nvidia/recommended/image_id"),
		fixtures.resource("aws:ec2/launchTemplate:LaunchTemplate", "no-image", {"instanceType": "g5.xlarge"}),
	]
	v := trusted_software.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == set()
}

test_fail_ami_owner_not_shown if {
	resources := [
		_lt("ami-0123456789abcdef0"),
		fixtures.resource("aws:ec2/launchTemplate:LaunchTemplate", "golden", {"imageId": "resolve:ssm:/golden/gpu-ami"}),
		fixtures.resource("aws:ec2/launchTemplate:LaunchTemplate", "later", {"imageId": "[unknown]"}),
		fixtures.resource("aws:ec2/instance:Instance", "box", {"ami": "ami-0fedcba9876543210", "instanceType": "m5.large"}),
		fixtures.resource("aws:ec2/launchTemplate:LaunchTemplate", "prefix-trick", {"imageId": "resolve:ssm:/golden/aws/service/x"}),
	]
	v := trusted_software.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == {
		_advisory("aws:ec2/launchTemplate:LaunchTemplate", "lt", _untrusted("launch template", "ami-0123456789abcdef0")),
		_advisory("aws:ec2/launchTemplate:LaunchTemplate", "golden", _untrusted("launch template", "resolve:ssm:/golden/gpu-ami")),
		_advisory("aws:ec2/launchTemplate:LaunchTemplate", "later", _untrusted("launch template", "[unknown]")),
		_advisory("aws:ec2/instance:Instance", "box", _untrusted("instance", "ami-0fedcba9876543210")),
		_advisory("aws:ec2/launchTemplate:LaunchTemplate", "prefix-trick", _untrusted("launch template", "resolve:ssm:/golden/aws/service/x")),
	}
}

test_pass_allow_listed_ami_ids_and_parameters if {
	resources := [_lt("ami-0123456789abcdef0"), fixtures.resource("aws:ec2/launchTemplate:LaunchTemplate", "golden", {"imageId": "resolve:ssm:/golden/gpu-ami"})]
	v := trusted_software.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
		with data.seedance.settings as {"trusted_amis": ["ami-0123456789abcdef0"], "trusted_ami_parameters": ["/aws/service/", "/golden/"]}
	v == set()
}

# the stack's policy adds its own registries, AMI parameter paths and AMI ids (compliance.trusted);
# the defaults stay trusted, and the prefixes match from the start only
_trusting_policy := json.patch(fixtures.mlps_policy, [{"op": "add", "path": "/compliance/trusted", "value": {
	"registries": ["registry.example.com/ml/"],
	"amiParameters": ["/golden/"],
	"amis": ["ami-0123456789abcdef0"],
}}])

test_pass_policy_trusted_entries if {
	resources := [
		_lt("ami-0123456789abcdef0"),
		fixtures.resource("aws:ec2/launchTemplate:LaunchTemplate", "golden", {"imageId": "resolve:ssm:/golden/gpu-ami"}),
		fixtures.resource("aws:ec2/launchTemplate:LaunchTemplate", "eks", {"imageId": "resolve:ssm:/aws/service/eks/optimized-ami/1.31/amazon-linux-2/recommended/image_id"}),
		_pod("registry.example.com/ml/trainer@sha256:abc"),
		object.union(_pod("nvcr.io/nvidia/pytorch@sha256:abc"), {"name": "q"}),
	]
	v := trusted_software.violation with input as fixtures.gate_input(_trusting_policy, resources)
	v == set()
}

test_fail_outside_policy_trusted_entries if {
	resources := [
		_lt("ami-0fedcba9876543210"),
		fixtures.resource("aws:ec2/launchTemplate:LaunchTemplate", "copy", {"imageId": "resolve:ssm:/other/golden/gpu-ami"}),
		_pod("registry.example.com/other/trainer@sha256:abc"),
	]
	v := trusted_software.violation with input as fixtures.gate_input(_trusting_policy, resources)
	trusted_paths := "(an AMI resolved from resolve:ssm:/aws/service/, resolve:ssm:/golden/, or listed in compliance.trusted.amis)"
	v == {
		_advisory("aws:ec2/launchTemplate:LaunchTemplate", "lt", sprintf("launch template boots ami-0fedcba9876543210, which is not shown to come from an allow-listed owner %s", [trusted_paths])),
		_advisory("aws:ec2/launchTemplate:LaunchTemplate", "copy", sprintf("launch template boots resolve:ssm:/other/golden/gpu-ami, which is not shown to come from an allow-listed owner %s", [trusted_paths])),
		_advisory("kubernetes:core/v1:Pod", "p", "container app pulls registry.example.com/other/trainer@sha256:abc from a registry that is not allow-listed"),
	}
}

test_pass_gdpr_only_stack_not_checked if {
	v := trusted_software.violation with input as fixtures.gate_input(fixtures.gdpr_policy, [_lt("ami-0123456789abcdef0")])
	v == set()
}

# red team: the images of a spot fleet's launch specifications and of a launch configuration
test_fail_spot_fleet_and_launch_configuration_images if {
	resources := [
		fixtures.spot_fleet("sfr", "internal", [{}, {"ami": "resolve:ssm:/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/x86_64/nvidia/recommended/image_id"}, {"ami": "ami-0fedcba9876543210"}]),
		fixtures.resource("aws:ec2/launchConfiguration:LaunchConfiguration", "lc", {"imageId": "ami-0aaaabbbbccccdddd", "instanceType": "g5.xlarge"}),
	]
	v := trusted_software.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == {
		_advisory("aws:ec2/spotFleetRequest:SpotFleetRequest", "sfr", _untrusted("spot fleet launch specification", "ami-0123456789abcdef0")),
		_advisory("aws:ec2/spotFleetRequest:SpotFleetRequest", "sfr", _untrusted("spot fleet launch specification", "ami-0fedcba9876543210")),
		_advisory("aws:ec2/launchConfiguration:LaunchConfiguration", "lc", _untrusted("launch configuration", "ami-0aaaabbbbccccdddd")),
	}
}

# Karpenter's EC2NodeClass: an alias (AWS's EKS-optimised AMI) and an SSM parameter under
# /aws/service/ pass; an AMI id, or AMIs selected by name or tags, are not shown to be trusted
test_karpenter_node_class_images if {
	resources := [
		fixtures.node_class("alias", fixtures.node_class_defaults),
		fixtures.node_class("ssm", {"amiFamily": "AL2023", "amiSelectorTerms": [{"ssmParameter": "/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/x86_64/nvidia/recommended/image_id"}]}),
		fixtures.node_class("pinned", {"amiFamily": "AL2023", "amiSelectorTerms": [{"id": "ami-0123456789abcdef0"}]}),
		fixtures.node_class("by-name", {"amiFamily": "AL2023", "amiSelectorTerms": [{"name": "gpu-node-*"}]}),
	]
	v := trusted_software.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == {
		fixtures.finding("MLPS-L3-8.1.4.5-6", "advisory", fixtures.node_class_type, "pinned", "EC2NodeClass boots ami-0123456789abcdef0, which is not shown to come from an allow-listed owner (an AMI resolved from resolve:ssm:/aws/service/, an alias, or listed in compliance.trusted.amis)"),
		fixtures.finding("MLPS-L3-8.1.4.5-6", "advisory", fixtures.node_class_type, "by-name", `EC2NodeClass boots the AMIs an amiSelectorTerm selects by name or tags ({"name": "gpu-node-*"}) among owners self,amazon, which is not shown to come from an allow-listed owner (an AMI resolved from resolve:ssm:/aws/service/, an alias, or listed in compliance.trusted.amis)`),
	}
}

# AWS's public parameter given by ARN passes like its path; terms unknown until apply, and a
# patch's own terms, are judged
test_karpenter_node_class_images_by_arn_unknown_and_patched if {
	resources := [
		fixtures.node_class("ssm-arn", {"amiFamily": "AL2023", "amiSelectorTerms": [{"ssmParameter": "arn:aws-cn:ssm:cn-north-1::parameter/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/x86_64/nvidia/recommended/image_id"}]}),
		fixtures.node_class("late", {"amiFamily": "AL2023", "amiSelectorTerms": "[unknown]"}),
		fixtures.resource("kubernetes:karpenter.k8s.aws/v1:EC2NodeClassPatch", "patch", {"metadata": {"name": "shared"}, "spec": {"amiSelectorTerms": [{"id": "ami-0123456789abcdef0"}]}}),
	]
	v := trusted_software.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == {
		fixtures.finding("MLPS-L3-8.1.4.5-6", "advisory", fixtures.node_class_type, "late", "EC2NodeClass boots amiSelectorTerms unknown until apply ([unknown]), which is not shown to come from an allow-listed owner (an AMI resolved from resolve:ssm:/aws/service/, an alias, or listed in compliance.trusted.amis)"),
		fixtures.finding("MLPS-L3-8.1.4.5-6", "advisory", "kubernetes:karpenter.k8s.aws/v1:EC2NodeClassPatch", "patch", "EC2NodeClass boots ami-0123456789abcdef0, which is not shown to come from an allow-listed owner (an AMI resolved from resolve:ssm:/aws/service/, an alias, or listed in compliance.trusted.amis)"),
	}
}

# an image that is no string (the API server refuses it) is reported as not allow-listed, and no
# longer stops the gate
test_fail_image_that_is_no_reference if {
	v := trusted_software.violation with input as fixtures.gate_input(fixtures.mlps_policy, [_pod(12345)])
	v == {fixtures.finding("MLPS-L3-8.1.4.5-6", "advisory", "kubernetes:core/v1:Pod", "p", "container app pulls 12345 from a registry that is not allow-listed")}
}

# a group launching from a launch template the document does not hold (another stack's, an
# aws-native one, an id unknown until apply) cannot be checked and is reported; one launching from
# the document's template is judged by that template
# whatever the data class
test_fail_a_group_launching_from_a_template_the_document_lacks_trusted_software if {
	lt := object.union(fixtures.launch_template("lt", "public", {}), {"id": "lt-0cccccccccccccccc"})
	v := trusted_software.violation with input as fixtures.gate_input(fixtures.mlps_policy, [
		lt,
		_unseen_group("own", "public", "lt-0cccccccccccccccc"),
		_unseen_group("other", "public", "lt-0bbbbbbbbbbbbbbbb"),
	])
	v == {fixtures.finding("MLPS-L3-8.1.4.5-6", "advisory", "aws:autoscaling/group:Group", "other", "group launches from lt-0bbbbbbbbbbbbbbbb, which is not in the document: the AMI it boots cannot be checked")}
}

_unseen_group(name, data_class, ref) := fixtures.resource("aws:autoscaling/group:Group", name, {
	"maxSize": 2, "launchTemplate": {"id": ref, "version": "$Latest"},
	"tags": [{"key": "data-class", "value": data_class, "propagateAtLaunch": true}],
})

# an instance that names its own AMI boots it, whatever its template says: that AMI is judged, and
# the template's is not reported as unseen
test_an_instance_with_its_own_ami_is_judged_by_it if {
	v := trusted_software.violation with input as fixtures.gate_input(fixtures.mlps_policy, [
		_templated_instance("own", {"ami": "ami-0123456789abcdef0"}),
		_templated_instance("template", {}),
	])
	{[f.resource_name, f.message] | some f in v} == {
		["own", "instance boots ami-0123456789abcdef0, which is not shown to come from an allow-listed owner (an AMI resolved from resolve:ssm:/aws/service/, or listed in compliance.trusted.amis)"],
		["template", "instance launches from lt-0bbbbbbbbbbbbbbbb, which is not in the document: the AMI it boots cannot be checked"],
	}
}

_templated_instance(name, inputs) := fixtures.resource("aws:ec2/instance:Instance", name, object.union(
	{"launchTemplate": {"id": "lt-0bbbbbbbbbbbbbbbb"}, "tags": fixtures.tags("public")},
	inputs,
))

# red team: a secret pod spec is reported as secret, not as unknown until apply
test_fail_secret_pod_spec_images if {
	deploy := fixtures.resource("kubernetes:apps/v1:Deployment", "web", {"metadata": {"namespace": "batch"}, "spec": {"template": {"spec": {"containers": ["[secret]"]}}}})
	v := trusted_software.violation with input as fixtures.gate_input(fixtures.mlps_policy, [deploy])
	some f in v
	f.message == "pod spec secret: its images cannot be shown to come from allow-listed registries, pinned by digest"
}
