package budget.cost_allocation_tags_test

import data.budget.cost_allocation_tags
import data.lib.fixtures

_f(type, name, msg) := fixtures.finding("BUDGET-TAGS-1", "mandatory", type, name, msg)

pass_resources := [
	fixtures.bucket("ds", "internal"),
	fixtures.resource("aws:autoscaling/group:Group", "asg", {"tags": [
		{"key": "team", "value": "ml", "propagateAtLaunch": true},
		{"key": "cost-center", "value": "CC-1", "propagateAtLaunch": true},
		{"key": "environment", "value": "prod", "propagateAtLaunch": true},
		{"key": "owner", "value": "a@example.com", "propagateAtLaunch": true},
	]}),
	fixtures.resource("aws:s3/bucketVersioning:BucketVersioning", "ds-versioning", {"bucket": "ds"}),
]

fail_resources := [
	fixtures.resource("aws:ec2/securityGroup:SecurityGroup", "sg", {"vpcId": "vpc-1", "tags": {"team": "ml", "cost-center": "unassigned", "environment": "prod"}}),
	fixtures.resource("aws:sns/topic:Topic", "alerts", {}),
]

test_pass_tagged if {
	v := cost_allocation_tags.violation with input as fixtures.gate_input(fixtures.no_framework_policy, pass_resources)
	v == set()
}

test_fail_untagged if {
	v := cost_allocation_tags.violation with input as fixtures.gate_input(fixtures.no_framework_policy, fail_resources)
	v == {
		_f("aws:ec2/securityGroup:SecurityGroup", "sg", "missing cost-allocation tag(s): cost-center, owner"),
		_f("aws:sns/topic:Topic", "alerts", "missing cost-allocation tag(s): team, cost-center, environment, owner"),
	}
}

test_pass_provider_default_tags if {
	provider := object.union(fixtures.resource("pulumi:providers:aws", "aws", {"defaultTags": json.marshal({"tags": {
		"team": "ml", "cost-center": "CC-1", "environment": "prod", "owner": "a@example.com",
	}})}), {"custom": true})
	v := cost_allocation_tags.violation with input as fixtures.gate_input(fixtures.no_framework_policy, [provider, fail_resources[1]])
	v == set()
}

# default tags not known until apply (a preview's "[unknown]" placeholder), or JSON that is not an
# object: no default tags, no error
test_fail_provider_default_tags_unknown_or_not_an_object if {
	every raw in ["[unknown]", "false", "[1]"] {
		provider := object.union(fixtures.resource("pulumi:providers:aws", "aws", {"defaultTags": raw}), {"custom": true})
		v := cost_allocation_tags.violation with input as fixtures.gate_input(fixtures.no_framework_policy, [provider, fail_resources[1]])
		v == {_f("aws:sns/topic:Topic", "alerts", "missing cost-allocation tag(s): team, cost-center, environment, owner")}
	}
}

# a resource of a second provider without default tags is judged by its own tags and that
# provider's, not by the first provider's defaults
test_fail_resource_of_a_provider_without_default_tags if {
	tagged := object.union(fixtures.resource("pulumi:providers:aws", "aws", {"defaultTags": json.marshal({"tags": {
		"team": "ml", "cost-center": "CC-1", "environment": "prod", "owner": "a@example.com",
	}})}), {"custom": true})
	bare := object.union(fixtures.resource("pulumi:providers:aws", "other", {"region": "eu-west-1"}), {"custom": true})
	on_tagged := object.union(fixtures.resource("aws:sns/topic:Topic", "alerts", {}), {"provider": sprintf("%s::0123", [tagged.urn])})
	on_bare := object.union(fixtures.resource("aws:sns/topic:Topic", "elsewhere", {"tags": {"data-class": "internal"}}), {"provider": sprintf("%s::4567", [bare.urn])})
	v := cost_allocation_tags.violation with input as fixtures.gate_input(fixtures.no_framework_policy, [tagged, bare, on_tagged, on_bare])
	v == {_f("aws:sns/topic:Topic", "elsewhere", "missing cost-allocation tag(s): team, cost-center, environment, owner")}
}

# an Auto Scaling group gets no provider default tags, and its instances only the tags it
# propagates at launch
test_fail_group_tags_from_defaults_or_not_propagated if {
	provider := object.union(fixtures.resource("pulumi:providers:aws", "aws", {"defaultTags": json.marshal({"tags": {
		"team": "ml", "cost-center": "CC-1", "environment": "prod", "owner": "a@example.com",
	}})}), {"custom": true})
	bare := fixtures.resource("aws:autoscaling/group:Group", "bare-asg", {"tags": [{"key": "seedance:fleet", "value": "train", "propagateAtLaunch": true}]})
	kept := fixtures.resource("aws:autoscaling/group:Group", "kept-asg", {"tags": [
		{"key": "team", "value": "ml", "propagateAtLaunch": true},
		{"key": "cost-center", "value": "CC-1", "propagateAtLaunch": false},
		{"key": "environment", "value": "prod", "propagateAtLaunch": true},
		{"key": "owner", "value": "a@example.com", "propagateAtLaunch": true},
	]})
	v := cost_allocation_tags.violation with input as fixtures.gate_input(fixtures.no_framework_policy, [provider, bare, kept, pass_resources[1]])
	v == {
		_f("aws:autoscaling/group:Group", "bare-asg", "missing cost-allocation tag(s): team, cost-center, environment, owner on the instances it launches (the group's tags with propagateAtLaunch; provider default tags do not apply to Auto Scaling groups)"),
		_f("aws:autoscaling/group:Group", "kept-asg", "missing cost-allocation tag(s): cost-center on the instances it launches (the group's tags with propagateAtLaunch; provider default tags do not apply to Auto Scaling groups)"),
	}
}

# red team: a secret tag value cannot be shown to be set (as one unknown until apply)
test_fail_secret_tag_values if {
	tags := object.union(fixtures.tags("internal"), {"owner": "[secret]", "team": "[unknown]"})
	v := cost_allocation_tags.violation with input as fixtures.gate_input(fixtures.gdpr_policy, [fixtures.resource("aws:sns/topic:Topic", "alerts", {"tags": tags})])
	v == {_f("aws:sns/topic:Topic", "alerts", "missing cost-allocation tag(s): team, owner (secret: owner)")}
}

# red team (false positive): resources pulumi-aws gives no tags input (a route table association,
# a Lambda permission, S3's V2 configuration resources, a backup selection) cannot carry the tags
test_pass_resources_that_take_no_tags if {
	bare := object.union(fixtures.resource("pulumi:providers:aws", "other", {"region": "eu-west-1"}), {"custom": true})
	types := [
		"aws:ec2/routeTableAssociation:RouteTableAssociation",
		"aws:lambda/permission:Permission",
		"aws:s3/bucketVersioningV2:BucketVersioningV2",
		"aws:s3/bucketServerSideEncryptionConfigurationV2:BucketServerSideEncryptionConfigurationV2",
		"aws:backup/selection:Selection",
	]
	helpers := [h |
		some i, type in types
		h := object.union(fixtures.resource(type, sprintf("helper-%d", [i]), {}), {"provider": sprintf("%s::4567", [bare.urn])})
	]
	v := cost_allocation_tags.violation with input as fixtures.gate_input(fixtures.no_framework_policy, array.concat([bare], helpers))
	v == set()
}
