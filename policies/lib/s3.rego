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

# positions of the buckets
bucket_indices := {i | some t in bucket_types; some i in resources.indices(t)}

# A configuration resource names its bucket by one of the bucket's refs (its explicit name, its
# logical name or its URN) or by Pulumi's auto-name: the logical name, a dash and seven hex digits.
refs(b) := {x |
	some x in [b.name, b.urn, object.get(b.inputs, "bucket", null)]
	is_string(x)
}

config_types := {pab, sse, versioning, lifecycle, bucket_policy, acl, object_lock, replication, logging}

# Buckets by the references that name them: every ref of a bucket, and its logical name for Pulumi
# auto-names (NAME-1234abc). Built once, so a join costs a lookup instead of a scan.
_by_ref[ref] contains i if {
	some i in bucket_indices
	some ref in refs(input.document.resources[i])
}

_by_stem[b.name] contains i if {
	some i in bucket_indices
	b := input.document.resources[i]
}

# positions of the buckets a reference names
named(ref) := object.get(_by_ref, ref, set()) | _stem_named(ref) if is_string(ref)

_stem_named(ref) := positions if {
	count(ref) >= 8
	positions := _by_stem[substring(ref, 0, count(ref) - 8)]
	regex.match(`-[0-9a-f]{7}$`, ref)
} else := set()

# positions of the buckets one of whose refs is `ref` (exactly)
with_ref(ref) := object.get(_by_ref, ref, set())

# configuration resource position -> the positions of the buckets it configures (as named(ref); the
# two ways a reference names a bucket are two rule bodies, which is cheaper than a call per resource)
_config_buckets[i] contains b if {
	some i, ref in _config_refs
	some b in object.get(_by_ref, ref, set())
}

_config_buckets[i] contains b if {
	some i, ref in _config_refs
	n := count(ref)
	n >= 8
	positions := _by_stem[substring(ref, 0, n - 8)]
	trim_right(substring(ref, n - 8, 8), "0123456789abcdef") == "-" # ends with a dash and 7 hex digits
	some b in positions
}

# configuration resource position -> the bucket reference it holds
_config_refs := {i: ref |
	some t in config_types
	some i in resources.indices(t)
	ref := input.document.resources[i].inputs.bucket
	is_string(ref)
}

# positions of the buckets the configuration resource at position i configures
config_buckets(i) := object.get(_config_buckets, i, set())

# bucket position -> positions of its configuration resources
_configs_of[b] contains i if {
	some i, positions in _config_buckets
	some b in positions
}

strip_autoname(ref) := substring(ref, 0, count(ref) - 8) if {
	regex.match(`-[0-9a-f]{7}$`, ref)
} else := ref

# the configuration resources of a type attached to the bucket at position `b`, in document order
attached(b, type) := [c |
	some i in object.get(_configs_of, b, set())
	c := input.document.resources[i]
	c.type == type
]

# one accessor per configuration type: regorus mis-evaluates a function of this package when it is
# handed a rule of this package as an argument, so callers never pass s3.pab & co. themselves
encryption_configs(b) := attached(b, sse)

object_lock_configs(b) := attached(b, object_lock)

replication_configs(b) := attached(b, replication)

# Facts per bucket position, each built once from the configuration resources of its type.
versioned contains b if {
	some i in resources.indices(versioning)
	input.document.resources[i].inputs.versioningConfiguration.status == "Enabled"
	some b in _config_buckets[i]
}

kms_encrypted contains b if {
	some i in resources.indices(sse)
	some rule in input.document.resources[i].inputs.rules
	startswith(rule.applyServerSideEncryptionByDefault.sseAlgorithm, "aws:kms")
	some b in _config_buckets[i]
}

has_public_access_block contains b if {
	some i in resources.indices(pab)
	some b in _config_buckets[i]
}

_enabled_lifecycle_rules[b] contains rule if {
	some i in resources.indices(lifecycle)
	some rule in object.get(input.document.resources[i].inputs, "rules", [])
	object.get(rule, "status", "Enabled") == "Enabled"
	some b in _config_buckets[i]
}

# the smallest expiration (days) over the enabled lifecycle rules, undefined when none expires objects
expiration_days[b] := min(days) if {
	some b, rules in _enabled_lifecycle_rules
	days := [d |
		some rule in rules
		d := rule.expiration.days
		is_number(d)
	]
	count(days) > 0
}

noncurrent_expiration_days[b] := min(days) if {
	some b, rules in _enabled_lifecycle_rules
	days := [d |
		some rule in rules
		d := rule.noncurrentVersionExpiration.noncurrentDays
		is_number(d)
	]
	count(days) > 0
}

# bucket policy statements per bucket policy position, each policy document parsed once
_statements_at[i] := statements if {
	some i in resources.indices(bucket_policy)
	count(_config_buckets[i]) > 0
	statements := resources.policy_statements(input.document.resources[i].inputs.policy)
}

# bucket policy position -> its statements, for the bucket policies attached to some bucket
policy_documents(_) := _statements_at

policy_statements(b) := [s |
	some i in object.get(_configs_of, b, set())
	input.document.resources[i].type == bucket_policy
	some s in _statements_at[i]
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

# arn:aws:s3:::NAME or arn:aws:s3:::NAME/prefix -> NAME
arn_bucket(arn) := split(parts[1], "/")[0] if {
	parts := split(arn, ":::")
	count(parts) == 2
}

# bucket names that receive replicas (a replica needs no replica of its own)
_replica_keys contains key if {
	some i in resources.indices(replication)
	some rule in object.get(input.document.resources[i].inputs, "rules", [])
	name := arn_bucket(rule.destination.bucket)
	some key in {name, strip_autoname(name)}
}

is_replica(b) if {
	some ref in refs(input.document.resources[b])
	ref in _replica_keys
}
