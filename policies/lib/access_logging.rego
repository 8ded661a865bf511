# METADATA
# title: S3 server access logging helpers
# description: >-
#   Where each bucket sends its server access logs: BucketLogging resources (and the V2
#   companion) joined to their bucket as lib.s3 joins every configuration resource, and the forms
#   a bucket takes inline (`logging`, an object or a list, and BucketV2's `loggings` list). A
#   target is the reference a configuration gives for the bucket receiving the logs (a name, id or
#   URN, read as lib.s3.named reads it, or, unknown until apply or secret, the buckets its property
#   dependencies name); one that names no bucket of the document (another stack's, or a preview's
#   "[unknown]" without such a dependency) cannot be checked and is reported.
# scope: package
package lib.access_logging

import data.lib.findings
import data.lib.resources
import data.lib.s3

logging_types := ["aws:s3/bucketLogging:BucketLogging", "aws:s3/bucketLoggingV2:BucketLoggingV2"]

# [source bucket position, target reference, positions of the buckets it names] of every logging
# configuration (built once). A target unknown until apply (a first deploy's `bucket.bucket`) or
# secret names the buckets the property dependencies of its input name (lib.s3.hidden_ref_buckets).
deliveries contains [b, target, _named(target) | s3.hidden_ref_buckets(r, target, "targetBucket")] if {
	some t in logging_types
	some i in resources.indices(t)
	r := input.document.resources[i]
	target := _target(r.inputs)
	some b in s3.config_buckets(i)
}

deliveries contains [b, target, _named(target) | s3.hidden_ref_buckets(r, target, key)] if {
	some b in s3.bucket_indices
	r := input.document.resources[b]
	some key in ["logging", "loggings"]
	some entry in _entries(r.inputs[key])
	target := _target(entry)
}

_entries(v) := v if is_array(v)

_entries(v) := [v] if not is_array(v)

# a configuration that is not an object (a preview's "[unknown]") is its own target: it names no bucket
_target(cfg) := object.get(cfg, "targetBucket", "") if is_object(cfg)

_target(cfg) := cfg if not is_object(cfg)

# positions of the buckets a target reference names
_named(ref) := s3.named(ref) if is_string(ref)

_named(ref) := set() if not is_string(ref)

# positions of the buckets that send their access logs somewhere
_logged := {pair[0] | some pair in deliveries}

# positions of the buckets that receive access logs: they need not log their own (they would log
# to themselves, or to another target that would in turn log...). A bucket that receives only its
# own logs is among the logged ones anyway.
targets := {t |
	some pair in deliveries
	some t in pair[2]
}

# Problems, each on the source bucket: {resource, message} as lib.findings.problem builds them.
# A rule, built once however many controls ask; the function keeps it lazy.
gaps(_) := _gaps

_gaps contains findings.problem(input.document.resources[i], msg) if {
	some i in s3.bucket_indices
	not i in _logged
	not i in targets
	msg := "bucket has no server access logging: no BucketLogging or inline logging names a bucket to receive its access logs"
}

_gaps contains findings.problem(input.document.resources[pair[0]], msg) if {
	some pair in deliveries
	count(pair[2]) == 0
	msg := sprintf("server access logs go to %s, so where they are kept and for how long cannot be established", [_describe(pair[1])])
}

_describe(ref) := "no bucket (the logging configuration names no target)" if ref == ""

_describe(ref) := sprintf("%v, which is not a bucket the stack creates", [ref]) if ref != ""

_gaps contains findings.problem(source, msg) if {
	some pair in deliveries
	some t in pair[2]
	source := input.document.resources[pair[0]]
	target := input.document.resources[t]
	from := resources.region(source, input.policy)
	to := resources.region(target, input.policy)
	from != to
	msg := sprintf("server access logs go to bucket %s in %s, but S3 delivers them only to a bucket in the source's region (%s)", [target.name, to, from])
}

_gaps contains findings.problem(input.document.resources[pair[0]], msg) if {
	some pair in deliveries
	some t in pair[2]
	_object_locked(t)
	msg := sprintf("server access logs go to bucket %s, which has S3 Object Lock: S3 does not deliver access logs to such a bucket", [input.document.resources[t].name])
}

# S3 Object Lock on the bucket at position b: enabled on the bucket, inline or by a configuration resource
_object_locked(b) if resources.truthy(object.get(input.document.resources[b].inputs, "objectLockEnabled", false))

_object_locked(b) if input.document.resources[b].inputs.objectLockConfiguration.objectLockEnabled == "Enabled"

_object_locked(b) if count(s3.object_lock_configs(b)) > 0
