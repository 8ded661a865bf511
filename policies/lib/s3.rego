# METADATA
# title: S3 helpers
# description: >-
#   Buckets and the separate configuration resources that belong to them (public access block,
#   encryption, versioning, lifecycle, policy, ...). A configuration resource names its bucket in
#   its `bucket` input: the bucket's name, id or URN, or, when the document hides it (a bucket's id
#   is unknown until apply on a first deploy), through that input's property dependencies.
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

# pulumi-aws still ships the *V2 companions of the configuration resources (same inputs)
sse_v2 := "aws:s3/bucketServerSideEncryptionConfigurationV2:BucketServerSideEncryptionConfigurationV2"

versioning_v2 := "aws:s3/bucketVersioningV2:BucketVersioningV2"

lifecycle_v2 := "aws:s3/bucketLifecycleConfigurationV2:BucketLifecycleConfigurationV2"

acl_v2 := "aws:s3/bucketAclV2:BucketAclV2"

object_lock_v2 := "aws:s3/bucketObjectLockConfigurationV2:BucketObjectLockConfigurationV2"

logging_v2 := "aws:s3/bucketLoggingV2:BucketLoggingV2"

sse_types := [sse, sse_v2]

versioning_types := [versioning, versioning_v2]

lifecycle_types := [lifecycle, lifecycle_v2]

acl_types := [acl, acl_v2]

object_lock_types := [object_lock, object_lock_v2]

logging_types := [logging, logging_v2]

# positions of the buckets
bucket_indices := {i | some t in bucket_types; some i in resources.indices(t)}

# A configuration resource names its bucket by one of the bucket's refs (its explicit name, its
# recorded id or its URN) or, for a bucket the program lets Pulumi name (no name shown), by its
# logical name or an auto-name: the logical name, a dash and seven hex digits. A bucket named
# explicitly is named by nothing else: another stack's bucket may be called after this one's
# logical name, with or without such a suffix. A name or id the document hides ("[unknown]",
# "[secret]") is no ref: it would tie every hidden reference to the bucket.
refs(b) := {x |
	some x in [b.urn, object.get(b, "id", null), object.get(b.inputs, "bucket", null)]
	resources.settled(x)
	x != ""
} | {b.name | not _named_explicitly(b)}

_named_explicitly(b) if resources.settled(object.get(b.inputs, "bucket", null))

# bucket position -> its refs, worked out once (rules ask per statement and per reference)
_refs_at := {i: refs(input.document.resources[i]) | some i in bucket_indices}

config_types := {
	pab, sse, versioning, lifecycle, bucket_policy, acl, object_lock, replication, logging,
	sse_v2, versioning_v2, lifecycle_v2, acl_v2, object_lock_v2, logging_v2,
}

# Buckets by the references that name them: every ref of a bucket, and its logical name for Pulumi
# auto-names (NAME-1234abc). Built once, so a join costs a lookup instead of a scan.
_by_ref[ref] contains i if {
	some i in bucket_indices
	some ref in _refs_at[i]
}

_by_stem[b.name] contains i if {
	some i in bucket_indices
	b := input.document.resources[i]
	not _named_explicitly(b)
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

# configuration resource position -> the positions of the buckets it configures (as named(ref), or,
# for a reference the document hides, as hidden_ref_buckets), for the configuration resources that
# name some bucket; one comprehension, which regorus fills faster than a partial rule
_config_buckets := {i: positions |
	some i, ref in _config_refs
	positions := (object.get(_by_ref, ref, set()) | _autoname_buckets(ref)) | hidden_ref_buckets(input.document.resources[i], ref, "bucket")
	count(positions) > 0
}

# A reference the document hides (unknown until apply, as `bucket=bucket.id` is before the bucket
# exists; secret) names the buckets of the document that the property dependencies of the input
# holding it (dep_field) list: the value is built from their outputs. A dependency on several
# buckets ties it to each (as lib.routing.refers ties a reference to every resource its dependencies
# list); one on no bucket, or no dependency record, ties it to none (the bucket reports as lacking
# what the configuration would give it: fail closed). Empty for a shown reference: its value names
# its bucket (named).
hidden_ref_buckets(r, value, dep_field) := {b |
	resources.hidden(value)
	some urn in object.get(r, ["property_dependencies", dep_field], [])
	some b in object.get(_by_urn, urn, set())
}

# bucket positions by URN (a preview may hold a URN twice: a replacement's create and delete)
_by_urn := {urn: positions | some urn, positions in _urn_positions}

_urn_positions[b.urn] contains i if {
	some i in bucket_indices
	b := input.document.resources[i]
}

# the buckets whose logical name a Pulumi auto-name (NAME-1234abc) carries
_autoname_buckets(ref) := positions if {
	n := count(ref)
	n >= 8
	trim_right(substring(ref, n - 8, 8), "0123456789abcdef") == "-" # ends with a dash and 7 hex digits
	positions := _by_stem[substring(ref, 0, n - 8)]
} else := set()

# configuration resource position -> the bucket reference it holds
_config_refs := {i: ref |
	some t in config_types
	some i in resources.indices(t)
	ref := input.document.resources[i].inputs.bucket
	is_string(ref)
}

# positions of the buckets the configuration resource at position i configures (a bucket
# configures itself inline)
config_buckets(i) := _configured(i) | _self(i)

# (_config_buckets holds only the configuration resources that name some bucket)
_configured(i) := positions if {
	positions := _config_buckets[i]
} else := set()

_self(i) := {i} if {
	input.document.resources[i].type in bucket_types
} else := set()

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

# One accessor per configuration type: regorus mis-evaluates a function of this package when it is
# handed a rule of this package as an argument, so callers never pass s3.pab & co. themselves.
# Each also returns the bucket's inline configuration (aws.s3.Bucket still accepts it) as a
# configuration resource would carry it: {"inputs": {...}} in the standalone resource's shape.
encryption_configs(b) := array.concat(array.concat(attached(b, sse), attached(b, sse_v2)), [{"inputs": {"rules": [rule]}} |
	rule := input.document.resources[b].inputs.serverSideEncryptionConfiguration.rule
])

object_lock_configs(b) := array.concat(array.concat(attached(b, object_lock), attached(b, object_lock_v2)), [{"inputs": cfg} |
	cfg := input.document.resources[b].inputs.objectLockConfiguration
	is_object(cfg.rule)
])

replication_configs(b) := array.concat(attached(b, replication), [{"inputs": {"rules": rules}} |
	rules := _inline_replication_rules[b]
])

# inline replication rules in the standalone shape (deleteMarkerReplicationStatus -> deleteMarkerReplication)
_inline_replication_rules[b] := [object.union(rule, {"deleteMarkerReplication": {"status": object.get(rule, "deleteMarkerReplicationStatus", "Disabled")}}) |
	some rule in rc.rules
	is_object(rule)
] if {
	some b in bucket_indices
	rc := input.document.resources[b].inputs.replicationConfiguration
	is_object(rc)
	is_array(object.get(rc, "rules", null))
}

# Configurations the document hides (unknown until apply, secret), as [bucket position, why]
# pairs (why: "secret", "unknown until apply"; see hidden_encryption / hidden_replication). A bucket's encryption rules (of a configuration resource, or
# its inline configuration) and its replication rules (of a BucketReplicationConfig, its inline
# replicationConfiguration or that one's rules, or one rule of them). Such a list proves nothing:
# the controls judge the bucket as unencrypted / not replicated and say why.
_encryption_hidden := {[b, resources.hidden_why(v)] |
	some t in sse_types
	some i in resources.indices(t)
	v := _hidden_part(object.get(input.document.resources[i].inputs, "rules", []))
	some b in _config_buckets[i]
} | {[b, resources.hidden_why(v)] |
	some b in bucket_indices
	cfg := object.get(input.document.resources[b].inputs, "serverSideEncryptionConfiguration", null)
	v := _hidden_part([cfg, object.get(object.union({"rule": null}, _as_object(cfg)), "rule", null)])
}

_replication_hidden := {[b, resources.hidden_why(v)] |
	some i in resources.indices(replication)
	v := _hidden_part(object.get(input.document.resources[i].inputs, "rules", []))
	some b in _config_buckets[i]
} | {[b, resources.hidden_why(v)] |
	some b in bucket_indices
	rc := object.get(input.document.resources[b].inputs, "replicationConfiguration", null)
	v := _hidden_part([rc, object.get(object.union({"rules": null}, _as_object(rc)), "rules", null)])
} | {[b, resources.hidden_why(v)] |
	some b in bucket_indices
	rules := object.get(input.document.resources[b].inputs, ["replicationConfiguration", "rules"], [])
	v := _hidden_part(rules)
}

# the positions of the buckets whose encryption / replication rules are hidden
encryption_hidden := {b | some [b, _] in _encryption_hidden}

replication_hidden := {b | some [b, _] in _replication_hidden}

# why the bucket's encryption / replication rules are hidden ("secret" when some part is)
hidden_encryption(b) := _why({w | some [b2, w] in _encryption_hidden; b2 == b})

hidden_replication(b) := _why({w | some [b2, w] in _replication_hidden; b2 == b})

_why(whys) := "secret" if "secret" in whys else := "unknown until apply" if count(whys) > 0

# the list itself when it is hidden, else its first hidden item; undefined when none is
_hidden_part(list) := list if resources.hidden(list) else := [x | some x in resources.elements(list); resources.hidden(x)][0]

_as_object(v) := v if is_object(v) else := {}

# Facts per bucket position, each built once from the configuration resources of its type (each
# a comprehension: regorus fills one faster than a partial rule).
versioned := {b |
	some t in versioning_types
	some i in resources.indices(t)
	input.document.resources[i].inputs.versioningConfiguration.status == "Enabled"
	some b in _config_buckets[i]
} | {b |
	some b in bucket_indices
	resources.truthy(input.document.resources[b].inputs.versioning.enabled)
}

kms_encrypted := {b |
	some t in sse_types
	some i in resources.indices(t)
	some rule in resources.elements(input.document.resources[i].inputs.rules)
	startswith(rule.applyServerSideEncryptionByDefault.sseAlgorithm, "aws:kms")
	some b in _config_buckets[i]
} | {b |
	some b in bucket_indices
	rule := input.document.resources[b].inputs.serverSideEncryptionConfiguration.rule
	startswith(rule.applyServerSideEncryptionByDefault.sseAlgorithm, "aws:kms")
}

has_public_access_block := {b |
	some i in resources.indices(pab)
	some b in _config_buckets[i]
}

_enabled_lifecycle_rules[b] contains rule if {
	some t in lifecycle_types
	some i in resources.indices(t)
	some rule in resources.elements(object.get(input.document.resources[i].inputs, "rules", []))
	is_object(rule)
	object.get(rule, "status", "Enabled") == "Enabled"
	some b in _config_buckets[i]
}

# inline lifecycle rules (enabled, expiration.days, noncurrentVersionExpiration.days, prefix, tags)
# in the standalone shape
_enabled_lifecycle_rules[b] contains rule if {
	some b in bucket_indices
	some inline in resources.elements(input.document.resources[b].inputs.lifecycleRules)
	is_object(inline)
	resources.truthy(object.get(inline, "enabled", false))
	rule := {
		"status": "Enabled",
		"expiration": object.get(inline, "expiration", {}),
		"noncurrentVersionExpiration": {"noncurrentDays": object.get(inline, ["noncurrentVersionExpiration", "days"], null)},
		"filter": {"prefix": object.get(inline, "prefix", ""), "tags": object.get(inline, "tags", {})},
	}
}

# A rule applies to every object when it filters nothing: no prefix, tag, or size filter (an
# empty prefix or an empty and-block filters nothing). A rule scoped to tmp/ leaves the rest.
whole_bucket(rule) if {
	object.get(rule, "prefix", "") == ""
	_filters_nothing(object.get(rule, "filter", {}))
}

_filters_nothing(f) if {
	is_object(f)
	every k, v in f {
		_empty_filter_entry(k, v)
	}
}

_empty_filter_entry(_, v) if _empty_filter_value(v)

# an and-block (one level, as S3 allows) that filters nothing
_empty_filter_entry(k, v) if {
	k == "and"
	is_object(v)
	every x in v {
		_empty_filter_value(x)
	}
}

_empty_filter_value(v) if v in {"", null, {}, [], 0, "0"}

# the smallest expiration (days) over the enabled lifecycle rules that cover every object,
# undefined when none does
expiration_days[b] := min(days) if {
	some b, rules in _enabled_lifecycle_rules
	days := [d |
		some rule in rules
		whole_bucket(rule)
		d := rule.expiration.days
		is_number(d)
	]
	count(days) > 0
}

# the smallest expiration (days) over every enabled lifecycle rule, scoped or not (how soon some
# objects are deleted)
earliest_expiration_days[b] := min(days) if {
	some b, rules in _enabled_lifecycle_rules
	days := [d |
		some rule in rules
		d := rule.expiration.days
		is_number(d)
	]
	count(days) > 0
}

# [bucket, why] of the buckets whose lifecycle rules, a rule, or an enabled rule's expiration (days)
# the document does not show (why: secret, unknown until apply): objects may expire after any
# number of days (earliest_expiration_days reads only the numbers)
hidden_expiration contains [b, resources.hidden_why(v)] if {
	some t in lifecycle_types
	some i in resources.indices(t)
	rules := object.get(input.document.resources[i].inputs, "rules", [])
	some v in array.concat([rules], resources.elements(rules))
	resources.hidden(v)
	some b in _config_buckets[i]
}

hidden_expiration contains [b, resources.hidden_why(v)] if {
	some b in bucket_indices
	rules := object.get(input.document.resources[b].inputs, "lifecycleRules", [])
	some v in array.concat([rules], resources.elements(rules))
	resources.hidden(v)
}

hidden_expiration contains [b, resources.hidden_why(v)] if {
	some b, rules in _enabled_lifecycle_rules
	some rule in rules
	some v in [object.get(rule, "expiration", {}), object.get(rule, ["expiration", "days"], 0)]
	resources.hidden(v)
}

# buckets some of whose objects expire, but only under a filter
scoped_expiry contains b if {
	some b, rules in _enabled_lifecycle_rules
	some rule in rules
	not whole_bucket(rule)
	is_number(rule.expiration.days)
}

noncurrent_expiration_days[b] := min(days) if {
	some b, rules in _enabled_lifecycle_rules
	days := [d |
		some rule in rules
		whole_bucket(rule)
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

# a bucket's inline policy, at the bucket's own position (config_buckets of it is the bucket)
_statements_at[b] := statements if {
	some b in bucket_indices
	statements := resources.policy_statements(input.document.resources[b].inputs.policy)
}


# positions of the bucket policies (attached to some bucket) and buckets whose policy document is
# secret (resources.secret_document): judged as possibly public and as not denying plain HTTP
secret_policies contains i if {
	some i in resources.indices(bucket_policy)
	count(_config_buckets[i]) > 0
	resources.secret_document(input.document.resources[i].inputs.policy)
}

secret_policies contains b if {
	some b in bucket_indices
	resources.secret_document(input.document.resources[b].inputs.policy)
}

# bucket policy position -> its statements, for the bucket policies attached to some bucket
policy_documents(_) := _statements_at

policy_statements(b) := array.concat(
	[s |
		some i in object.get(_configs_of, b, set())
		input.document.resources[i].type == bucket_policy
		some s in _statements_at[i]
	],
	[s | some s in _statements_at[b]],
)

# A statement that denies requests whose aws:SecureTransport is false (Bool or BoolIfExists). It
# keeps them out only when plaintext_deny_gaps is empty.
plaintext_deny(statement) if {
	is_object(statement)
	statement.Effect == "Deny"
	some op, clause in object.get(statement, "Condition", {})
	lower(op) in {"bool", "boolifexists"}
	some key, value in clause
	lower(key) == "aws:securetransport"
	some v in resources.as_list(value)
	lower(sprintf("%v", [v])) == "false"
}

# Why such a statement of the policy of the bucket at position b leaves requests without TLS
# allowed: it must deny every S3 action (s3:* or *; a deny narrowed to some actions leaves the
# others open over plain HTTP), to everyone, on the bucket's objects, on no further condition (see
# deny_scope_gaps). Empty when it denies them all.
plaintext_deny_gaps(statement, b) := gaps if {
	action_gaps := {sprintf("denies only some actions (%s, not Action s3:*)", [_actions_shown(statement)]) |
		not _all_s3_actions(object.get(statement, "Action", []))
	}
	other := sort({sprintf("%s %s", [op, key]) |
		some op, clause in statement.Condition
		some key, _ in clause
		not _secure_transport_key(op, key)
	})
	condition_gaps := {sprintf("applies only on further conditions (%s)", [concat(", ", other)]) | count(other) > 0}
	gaps := (action_gaps | condition_gaps) | deny_scope_gaps(statement, b)
}

_actions_shown(statement) := sprintf("Action %s", [_shown(statement.Action)]) if {
	"Action" in object.keys(statement)
} else := sprintf("NotAction %s", [_shown(object.get(statement, "NotAction", null))])

_secure_transport_key(op, key) if {
	lower(op) in {"bool", "boolifexists"}
	lower(key) == "aws:securetransport"
}

# Why a Deny statement of the policy of the bucket at position b does not hold for everyone on every
# object of the bucket, e.g. {"names principals, not everyone (Principal \"*\")"}; empty when it does.
# Principal "*" or {"AWS": "*"} is everyone (NotPrincipal exempts the principals it names); the
# Resource must match every object (the bucket's ARN/*, or a wildcard that does: arn:aws:s3:::*,
# "*"); a NotResource must name none of the bucket's objects (another bucket, or the bucket itself
# without a key). A Resource or NotResource unknown until apply (the bucket's own ARN on a first
# deploy) is judged as the stack's policies write it, like a document unknown until apply; a secret
# one, or a Principal hidden either way (a literal "*" is never hidden), is not.
deny_scope_gaps(statement, b) := {why |
	some why in _principal_gap(statement)
} | {why |
	some why in _resource_gap(statement, b)
}

_principal_gap(statement) := {"exempts the principals its NotPrincipal names"} if {
	"NotPrincipal" in object.keys(statement)
} else := set() if {
	_everyone(object.get(statement, "Principal", null))
} else := {sprintf("names principals (%s), not everyone (Principal \"*\")", [_shown(object.get(statement, "Principal", null))])}

_everyone(p) if p == "*"

_everyone(p) if {
	is_object(p)
	"*" in resources.as_list(object.get(p, "AWS", []))
}

_resource_gap(statement, b) := {sprintf("has a NotResource (%s) that may leave out objects of the bucket", [_shown(statement.NotResource)])} if {
	not "Resource" in object.keys(statement)
	some r in resources.as_list(statement.NotResource)
	not _spares_objects(r, b)
} else := set() if {
	not "Resource" in object.keys(statement)
	"NotResource" in object.keys(statement)
} else := set() if {
	some r in resources.as_list(object.get(statement, "Resource", []))
	_covers_objects(r, b)
} else := {sprintf("has a Resource (%s) that does not cover the bucket's objects (the bucket's ARN/*)", [_shown(object.get(statement, "Resource", null))])}

_shown(v) := json.marshal(v) if not is_string(v) else := v

# a Resource entry that matches every object of the bucket at position b: it ends with a wildcard
# and matches the bucket's ARN with a slash (then it matches every key after it), in any partition
_covers_objects(r, _) if r == "[unknown]"

_covers_objects(r, b) if {
	is_string(r)
	endswith(r, "*")
	some name in (names(b) | _arn_named(r, b))
	some partition in ["aws", "aws-cn", "aws-us-gov"]
	regex.match(resources.wildcard_regex(r), sprintf("arn:%s:s3:::%s/", [partition, name]))
}

# a NotResource entry that leaves every object of the bucket at position b in the deny: one that
# can match no ARN of an object of the bucket (no S3 ARN, another bucket's objects, the bucket itself
# without a key); with wildcards, one whose text before the first wildcard already differs from the
# bucket's ARN/
_spares_objects(r, _) if r == "[unknown]"

_spares_objects(r, b) if {
	is_string(r)
	r != "[secret]"
	not _may_name_objects(r, b)
}

_may_name_objects(r, b) if {
	lit := regex.split(`[*?]`, r)[0]
	some name in (names(b) | _arn_named(r, b))
	some partition in ["aws", "aws-cn", "aws-us-gov"]
	objects := sprintf("arn:%s:s3:::%s/", [partition, name])
	_overlaps(lit, objects, r)
}

# the entry starts with the bucket's ARN/ (it names objects of it), or, with a wildcard, its literal
# start is a start of the bucket's ARN/ (it may match objects of it)
_overlaps(lit, objects, _) if startswith(lit, objects)

_overlaps(lit, objects, r) if {
	lit != r
	startswith(objects, lit)
}

# the bucket name an ARN names, when it is the bucket at position b (by its name, or an auto-name
# of its logical name)
_arn_named(arn, b) := {name} if {
	name := arn_bucket(arn)
	b in named(name)
} else := set()

# the names by which the bucket at position b may be called: its refs but its URN (no ARN holds one)
# and the `bucket` input of its configuration resources (its name as its policy names it)
names(b) := (_refs_at[b] - {input.document.resources[b].urn}) | {x |
	some i in object.get(_configs_of, b, set())
	x := input.document.resources[i].inputs.bucket
	resources.settled(x)
}

# a statement denying every S3 action (s3:* or *) to everyone on every object of the bucket at
# position b, to requests whose aws:SecureTransport is false
denies_insecure_transport(statement, b) if {
	plaintext_deny(statement)
	count(plaintext_deny_gaps(statement, b)) == 0
}

_all_s3_actions(action) if _every_s3_action(action)

_all_s3_actions(actions) if {
	is_array(actions)
	some action in actions
	_every_s3_action(action)
}

_every_s3_action(action) if {
	is_string(action)
	lower(action) in {"*", "s3:*"}
}

# arn:aws:s3:::NAME or arn:aws:s3:::NAME/prefix -> NAME
arn_bucket(arn) := split(parts[1], "/")[0] if {
	parts := split(arn, ":::")
	count(parts) == 2
}

# bucket names that receive replicas (a replica needs no replica of its own)
_replica_keys contains key if {
	some i in resources.indices(replication)
	some rule in resources.elements(object.get(input.document.resources[i].inputs, "rules", []))
	name := arn_bucket(rule.destination.bucket)
	some key in {name, strip_autoname(name)}
}

_replica_keys contains key if {
	some _, rules in _inline_replication_rules
	some rule in rules
	name := arn_bucket(rule.destination.bucket)
	some key in {name, strip_autoname(name)}
}

# A destination bucket unknown until apply (a first deploy's `bucket.arn`) or secret: the buckets the
# property dependencies of the rules name (a BucketReplicationConfig's `rules`, a bucket's
# `replicationConfiguration`), the source bucket aside (lib.s3.hidden_ref_buckets)
_replica_positions contains j if {
	some i in resources.indices(replication)
	c := input.document.resources[i]
	some rule in resources.elements(object.get(c.inputs, "rules", []))
	is_object(rule)
	some j in hidden_ref_buckets(c, object.get(rule, ["destination", "bucket"], ""), "rules")
	not j in object.get(_config_buckets, i, set())
}

_replica_positions contains j if {
	some b, rules in _inline_replication_rules
	some rule in rules
	some j in hidden_ref_buckets(input.document.resources[b], object.get(rule, ["destination", "bucket"], ""), "replicationConfiguration")
	j != b
}

# positions of the buckets a replication rule of the bucket at position b copies to (rc: one of
# replication_configs(b)): named by the destination's ARN, or, hidden, through the property
# dependencies of the rules (as _replica_positions reads them)
replica_buckets(b, rc, rule) := _arn_buckets(dest) | (_hidden_destination(b, rc, dest) - {b}) if {
	dest := object.get(rule, ["destination", "bucket"], "")
}

_arn_buckets(arn) := named(arn_bucket(arn)) if is_string(arn_bucket(arn)) else := set()

# a BucketReplicationConfig carries its URN and dependencies; an inline configuration is the bucket's
_hidden_destination(_, rc, dest) := hidden_ref_buckets(rc, dest, "rules") if is_string(object.get(rc, "urn", null))

_hidden_destination(b, rc, dest) := hidden_ref_buckets(input.document.resources[b], dest, "replicationConfiguration") if {
	not is_string(object.get(rc, "urn", null))
}

# a replication rule that copies (the service ignores rules whose status is not Enabled)
enabled_rule(rule) if object.get(rule, "status", "") == "Enabled"

is_replica(b) if {
	some ref in _refs_at[b]
	ref in _replica_keys
}

is_replica(b) if b in _replica_positions
