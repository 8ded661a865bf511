# METADATA
# title: S3 helpers
# description: >-
#   Buckets and the separate configuration resources that belong to them (public access block,
#   encryption, versioning, lifecycle, policy, ...). A configuration resource names its bucket in
#   its `bucket` input: the bucket's name, id or URN.
# scope: package
package lib.s3

import data.lib.resources

bucket_types := {"aws:s3/bucket:Bucket", "aws:s3/bucketV2:BucketV2"}

pab := "aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock"

sse := "aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration"

versioning := "aws:s3/bucketVersioning:BucketVersioning"

lifecycle := "aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration"

bucket_policy := "aws:s3/bucketPolicy:BucketPolicy"

acl := "aws:s3/bucketAcl:BucketAcl"

object_lock := "aws:s3/bucketObjectLockConfiguration:BucketObjectLockConfiguration"

replication := "aws:s3/bucketReplicationConfig:BucketReplicationConfig"

logging := "aws:s3/bucketLogging:BucketLogging"

buckets(document) := resources.of_types(document, bucket_types)

# the names a configuration resource may use for its bucket: its explicit name, its logical name or
# URN, or Pulumi's auto-name (logical name, a dash and seven hex digits)
refs(b) := {x |
	some x in [b.name, b.urn, object.get(b.inputs, "bucket", null)]
	is_string(x)
}

names(b, ref) if ref in refs(b)

names(b, ref) if {
	is_string(ref)
	prefix := sprintf("%s-", [b.name])
	startswith(ref, prefix)
	regex.match(`^[0-9a-f]{7}$`, trim_prefix(ref, prefix))
}

config_types := {pab, sse, versioning, lifecycle, bucket_policy, acl, object_lock, replication, logging}

# bucket reference (as written, and without a Pulumi auto-name suffix) -> configuration resources
_configs[key] contains i if {
	some t in config_types
	some i in resources.indices(t)
	ref := input.document.resources[i].inputs.bucket
	is_string(ref)
	some key in {ref, strip_autoname(ref)}
}

strip_autoname(ref) := substring(ref, 0, count(ref) - 8) if {
	regex.match(`-[0-9a-f]{7}$`, ref)
} else := ref

attached(_, b, type) := [s |
	some i in {j | some k in refs(b); some j in object.get(_configs, k, set())}
	s := input.document.resources[i]
	s.type == type
	names(b, s.inputs.bucket)
]

# one accessor per configuration type: regorus mis-evaluates a function of this package when it is
# handed a rule of this package as an argument, so callers never pass s3.pab & co. themselves
public_access_blocks(document, b) := attached(document, b, pab)

encryption_configs(document, b) := attached(document, b, sse)

versioning_configs(document, b) := attached(document, b, versioning)

lifecycle_configs(document, b) := attached(document, b, lifecycle)

bucket_policies(document, b) := attached(document, b, bucket_policy)

acls(document, b) := attached(document, b, acl)

object_lock_configs(document, b) := attached(document, b, object_lock)

replication_configs(document, b) := attached(document, b, replication)

logging_configs(document, b) := attached(document, b, logging)

bucket_name(b) := object.get(b.inputs, "bucket", b.name)

versioned(document, b) if {
	some v in attached(document, b, versioning)
	v.inputs.versioningConfiguration.status == "Enabled"
}

enabled_lifecycle_rules(document, b) := [rule |
	some lc in attached(document, b, lifecycle)
	some rule in object.get(lc.inputs, "rules", [])
	object.get(rule, "status", "Enabled") == "Enabled"
]

# the smallest expiration (days) over the enabled lifecycle rules, undefined when none expires objects
expiration_days(document, b) := min(days) if {
	days := [d |
		some rule in enabled_lifecycle_rules(document, b)
		d := rule.expiration.days
		is_number(d)
	]
	count(days) > 0
}

noncurrent_expiration_days(document, b) := min(days) if {
	days := [d |
		some rule in enabled_lifecycle_rules(document, b)
		d := rule.noncurrentVersionExpiration.noncurrentDays
		is_number(d)
	]
	count(days) > 0
}

policy_statements(document, b) := [s |
	some p in attached(document, b, bucket_policy)
	some s in resources.policy_statements(p.inputs.policy)
]

# a statement denying requests whose aws:SecureTransport is false
denies_insecure_transport(statement) if {
	statement.Effect == "Deny"
	some op, clause in statement.Condition
	lower(op) == "bool"
	some key, value in clause
	lower(key) == "aws:securetransport"
	lower(sprintf("%v", [value])) == "false"
}

kms_encrypted(document, b) if {
	some c in attached(document, b, sse)
	some rule in c.inputs.rules
	startswith(rule.applyServerSideEncryptionByDefault.sseAlgorithm, "aws:kms")
}

# S3 bucket whose ARN or name is referenced: arn:aws:s3:::NAME or arn:aws-cn:s3:::NAME
by_arn(document, arn) := b if {
	some b in buckets(document)
	names(b, arn_bucket(arn))
}

# arn:aws:s3:::NAME or arn:aws:s3:::NAME/prefix -> NAME
arn_bucket(arn) := split(parts[1], "/")[0] if {
	parts := split(arn, ":::")
	count(parts) == 2
}

# the bucket a name (trail s3BucketName, ...) refers to
by_name(document, name) := b if {
	some b in buckets(document)
	names(b, name)
}

has_public_access_block(document, b) if count(public_access_blocks(document, b)) > 0

# bucket names that receive replicas (a replica needs no replica of its own)
_replica_keys contains key if {
	some i in resources.indices(replication)
	some rule in object.get(input.document.resources[i].inputs, "rules", [])
	name := arn_bucket(rule.destination.bucket)
	some key in {name, strip_autoname(name)}
}

is_replica(_, b) if {
	some ref in refs(b)
	ref in _replica_keys
}
