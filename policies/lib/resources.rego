# METADATA
# title: Resource document helpers
# description: >-
#   Accessors over the resource document (seedance.io/v1 ResourceDocument): resources by type,
#   tags and labels, data classification, Pulumi's string booleans.
# scope: package
package lib.resources

of_type(document, type) := [r | some r in document.resources; r.type == type]

of_types(document, types) := [r | some r in document.resources; r.type in types]

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
