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
_by_type[r.type] contains i if {
	some i, r in input.document.resources
}

# positions of the resources of a type, in document order
indices(type) := object.get(_by_type, type, set())

of_type(_, type) := [input.document.resources[i] | some i in indices(type)]

of_types(_, types) := [input.document.resources[i] | some t in types; some i in indices(t)]

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

sensitive(r) if data_class(r) in {"personal", "internal"}

# data class by position in the gate input's document, built in one pass (for loops over every resource)
_class[i] := v if {
	some i, r in input.document.resources
	v := r.inputs.tags["data-class"]
	is_string(v)
}

_class[i] := t.value if {
	some i, r in input.document.resources
	is_array(r.inputs.tags)
	some t in r.inputs.tags
	t.key == "data-class"
}

_class[i] := v if {
	some i, r in input.document.resources
	startswith(r.type, "kubernetes:")
	v := r.inputs.metadata.labels["seedance.io/data-class"]
}

personal_indices contains i if {
	some i, v in _class
	v == "personal"
}

# positions of taggable AWS resources
taggable_indices contains i if {
	some i, r in input.document.resources
	startswith(r.type, "aws:")
	object.get(r, "custom", true) == true
	not r.type in untaggable_aws
}

# Pulumi's AWS provider types some booleans as strings ("true"); accept both spellings.
truthy(v) if v == true

truthy(v) if v == "true"

namespace(r) := object.get(inputs(r), ["metadata", "namespace"], "default")

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

workloads(document) := [r | some r in document.resources; r.type in workload_types]

# credential-like keys in a ConfigMap or an env var
credential_key(k) if regex.match(`(?i)(password|passwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|credential)`, k)

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

# IAM / resource policies arrive as JSON strings (or objects); statements as a list
policy_statements(doc) := _statements(json.unmarshal(doc)) if is_string(doc)

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

# Allow to everyone unless a condition narrows it to the organisation or a VPC endpoint
unconditioned_public_allow(statement) if {
	object.get(statement, "Effect", "Allow") == "Allow"
	principal_star(statement)
	not _narrowing_condition(statement)
}

_narrowing_keys := {"aws:sourcevpce", "aws:sourcevpc", "aws:principalorgid", "aws:principalaccount", "aws:sourceaccount", "kms:calleraccount", "kms:viaservice"}

_narrowing_condition(statement) if {
	some _, clause in object.get(statement, "Condition", {})
	some key, _ in clause
	lower(key) in _narrowing_keys
}
