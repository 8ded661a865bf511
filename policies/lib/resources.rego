# METADATA
# title: Resource document helpers
# description: >-
#   Accessors over the resource document (seedance.io/v1 ResourceDocument): resources by type,
#   tags and labels, data classification, Pulumi's string booleans.
# scope: package
package lib.resources

# Indexes are rules over the gate input's document, so each is built once per evaluation: a
# function scanning every resource inside a loop over resources is quadratic (10,000 resources).
# The `document` parameters below therefore must be input.document (they always are).
# Cost notes for the embedded engine (regorus), measured on 10,000 resources: every step of a loop
# costs about a microsecond and a function call a few, so the indexes below visit each resource
# once, test a type's prefix once per type rather than once per resource, and controls iterate the
# positions of the types they check. regorus also builds every rule of a package the first time a
# rule of it is referenced through an import (functions stay lazy), so index rules live in the
# package whose controls need them.
_by_type[r.type] contains i if {
	some i, r in input.document.resources
}

# positions of the resources of a type, in document order
indices(type) := object.get(_by_type, type, set())

of_type(_, type) := [input.document.resources[i] | some i in indices(type)]

of_types(_, types) := [input.document.resources[i] | some t in types; some i in indices(t)]

# the Kubernetes types in the document
k8s_types(_) := {type | some type, _ in _by_type; startswith(type, "kubernetes:")}

# positions of the AWS resources and of the Kubernetes objects (a comprehension fills a collection
# faster than a partial rule does in regorus)
aws_indices := {i |
	some type, positions in _by_type
	startswith(type, "aws:")
	some i in positions
}

k8s_indices := {i |
	some type, positions in _by_type
	startswith(type, "kubernetes:")
	some i in positions
}

# tags of the AWS resources by position, as an object (autoscaling groups list {key, value} pairs),
# the same as tags(r); a local named `tags` would clash with that function in regorus
tags_at := object.union(_raw_tags, {i: {t.key: t.value | some t in raw} | some i, raw in _raw_tags; is_array(raw)})

_raw_tags := {i: raw | some i in aws_indices; raw := input.document.resources[i].inputs.tags}

# data class (seedance.io/data-class label) of the labelled Kubernetes objects by position
_labelled := {i: class |
	some i in k8s_indices
	class := input.document.resources[i].inputs.metadata.labels["seedance.io/data-class"]
}

# positions by data class: AWS tag data-class, Kubernetes label seedance.io/data-class
personal_indices := {i | some i, t in tags_at; t["data-class"] == "personal"} | {i | some i, class in _labelled; class == "personal"}

sensitive_indices := {i | some i, t in tags_at; t["data-class"] in _sensitive} | {i | some i, class in _labelled; class in _sensitive}

_sensitive := {"personal", "internal"}

# positions of taggable AWS resources
taggable_indices := {i |
	some type, positions in _by_type
	startswith(type, "aws:")
	not type in untaggable_aws
	some i in positions
	object.get(input.document.resources[i], "custom", true) == true
}

inputs(r) := object.get(r, "inputs", {})

is_aws(r) if startswith(r.type, "aws:")

is_k8s(r) if startswith(r.type, "kubernetes:")

# tags: AWS tags as an object (autoscaling groups carry a list of {key, value}); Kubernetes labels.
tags(r) := {t.key: t.value | some t in inputs(r).tags} if {
	is_aws(r)
	is_array(inputs(r).tags)
} else := object.get(inputs(r), "tags", {}) if {
	is_aws(r)
} else := object.get(inputs(r), ["metadata", "labels"], {}) if {
	is_k8s(r)
} else := {}

data_class(r) := object.get(tags(r), "data-class", "") if is_aws(r)

data_class(r) := object.get(tags(r), "seedance.io/data-class", "") if is_k8s(r)

personal(r) if data_class(r) == "personal"

# Pulumi's AWS provider types some booleans as strings ("true"); accept both spellings.
truthy(v) if v == true

truthy(v) if v == "true"

namespace(r) := object.get(r, ["inputs", "metadata", "namespace"], "default")

name_of(r) := object.get(inputs(r), ["metadata", "name"], r.name)

# the region a resource lives in: its own, else the stack's
region(r, policy) := r.region if {
	is_string(object.get(r, "region", null))
} else := policy.cloud.region

# kms_alias_aws: an AWS-managed key reference (alias/aws/...) rather than a customer key
aws_managed_key(k) if contains(k, "alias/aws/")

# workloads: Kubernetes objects carrying a pod template (or pods themselves) with their pod spec
workload_types := {
	"kubernetes:apps/v1:Deployment",
	"kubernetes:apps/v1:StatefulSet",
	"kubernetes:apps/v1:DaemonSet",
	"kubernetes:batch/v1:Job",
	"kubernetes:batch/v1:CronJob",
	"kubernetes:core/v1:Pod",
}

pod_spec(r) := inputs(r).spec if r.type == "kubernetes:core/v1:Pod"

pod_spec(r) := inputs(r).spec.jobTemplate.spec.template.spec if r.type == "kubernetes:batch/v1:CronJob"

pod_spec(r) := inputs(r).spec.template.spec if {
	r.type in workload_types
	not r.type in {"kubernetes:core/v1:Pod", "kubernetes:batch/v1:CronJob"}
}

containers(spec) := array.concat(object.get(spec, "containers", []), object.get(spec, "initContainers", []))

workloads(_) := [input.document.resources[i] | some t in workload_types; some i in indices(t)]

# credential-like keys in a ConfigMap or an env var
credential_key(k) if regex.match(`(?i)(password|passwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|credential)`, k)

# [position, key] of the ConfigMap data keys that look like credentials (built once, when asked)
credential_config_keys(_) := _credential_config_keys

_credential_config_keys contains [i, key] if {
	some i in indices("kubernetes:core/v1:ConfigMap")
	some key, _ in object.get(input.document.resources[i].inputs, "data", {})
	credential_key(key)
}

# resources that can be tagged (everything the AWS provider tags except helpers with no tags input)
untaggable_aws := {
	"aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock",
	"aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration",
	"aws:s3/bucketVersioning:BucketVersioning",
	"aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration",
	"aws:s3/bucketPolicy:BucketPolicy",
	"aws:s3/bucketLogging:BucketLogging",
	"aws:s3/bucketReplicationConfig:BucketReplicationConfig",
	"aws:s3/bucketObjectLockConfiguration:BucketObjectLockConfiguration",
	"aws:s3/bucketAcl:BucketAcl",
	"aws:s3/bucketOwnershipControls:BucketOwnershipControls",
	"aws:autoscaling/lifecycleHook:LifecycleHook",
	"aws:autoscaling/schedule:Schedule",
	"aws:sns/topicSubscription:TopicSubscription",
	"aws:sns/topicPolicy:TopicPolicy",
	"aws:ec2/securityGroupRule:SecurityGroupRule",
	"aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule",
	"aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule",
	"aws:iam/rolePolicy:RolePolicy",
	"aws:iam/rolePolicyAttachment:RolePolicyAttachment",
	"aws:kms/alias:Alias",
	"aws:ec2/amiLaunchPermission:AmiLaunchPermission",
	"aws:ec2/snapshotCreateVolumePermission:SnapshotCreateVolumePermission",
}

taggable(r) if {
	is_aws(r)
	object.get(r, "custom", true) == true
	not r.type in untaggable_aws
}

# IAM / resource policies arrive as JSON strings (or objects); statements as a list. A string that
# is not JSON (the preview's "[unknown]" placeholder) has no statements to check.
policy_statements(doc) := _statements(p) if {
	is_string(doc)
	json.is_valid(doc)
	p := json.unmarshal(doc)
	is_object(p)
}

policy_statements(doc) := _statements(doc) if is_object(doc)

_statements(p) := s if {
	s := p.Statement
	is_array(s)
} else := [p.Statement] if {
	is_object(p.Statement)
} else := []

as_list(x) := x if is_array(x)

as_list(x) := [x] if not is_array(x)

principal_star(statement) if statement.Principal == "*"

principal_star(statement) if {
	is_object(statement.Principal)
	some p in as_list(object.get(statement.Principal, "AWS", []))
	p == "*"
}

# NotPrincipal: everyone except the principals it names
principal_star(statement) if "NotPrincipal" in object.keys(statement)

# Allow to everyone unless a condition narrows it to the organisation or a VPC endpoint
unconditioned_public_allow(statement) if {
	object.get(statement, "Effect", "Allow") == "Allow"
	principal_star(statement)
	not _narrowing_condition(statement)
}

_narrowing_keys := {"aws:sourcevpce", "aws:sourcevpc", "aws:principalorgid", "aws:principalaccount", "aws:sourceaccount", "kms:calleraccount", "kms:viaservice"}

_narrowing_condition(statement) if narrows(statement, _narrowing_keys)

# narrows(statement, keys): a condition on one of keys (lower case) that admits only the values it
# names: a positive operator (no Not..., ...IfExists or Null: those let the others in) and concrete
# values (no wildcards)
_positive_operators := {"stringequals", "stringequalsignorecase", "stringlike", "arnequals", "arnlike"}

narrows(statement, keys) if {
	some operator, clause in object.get(statement, "Condition", {})
	lower(operator) in _positive_operators
	is_object(clause)
	some key, values in clause
	lower(key) in keys
	names := as_list(values)
	count(names) > 0
	every v in names {
		is_string(v)
		v != ""
		not contains(v, "*")
		not contains(v, "?")
		not contains(v, "${") # a policy variable (${aws:PrincipalAccount}) matches whoever asks
	}
}
