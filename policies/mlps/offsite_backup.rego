package mlps.offsite_backup

import data.lib.findings
import data.lib.frameworks
import data.lib.residency
import data.lib.resources
import data.lib.s3

# METADATA
# title: "Off-site backup within the residency"
# description: >-
#   Personal-data buckets replicate, through at least one enabled replication rule that copies
#   every object (no prefix or tag filter; on an SSE-KMS bucket, SSE-KMS objects replicated to a
#   replica KMS key), to a bucket in another region that is still inside the MLPS residency (for
#   example cn-north-1 to cn-northwest-1). A destination bucket the document does not declare
#   leaves the region unknown and is reported.
# related_resources:
#   - ref: https://openstd.samr.gov.cn/bzgk/gb/newGbInfo?hcno=BAFB47E8874764186BDB7865E8344DAF
# custom:
#   control_id: MLPS-L3-8.1.4.9b
#   clause: "8.1.4.9 b)"
#   framework: mlps-l3
#   severity: mandatory
#   remediation: >-
#     Add a BucketReplicationConfig to a versioned bucket in the other China region, with an
#     enabled rule without filter (or filter prefix "") that sets
#     sourceSelectionCriteria.sseKmsEncryptedObjects Enabled and a replica KMS key
#     (destination.encryptionConfiguration.replicaKmsKeyId).
violation contains findings.finding("MLPS-L3-8.1.4.9b", p.resource, p.message) if {
	frameworks.applies(input.policy, "mlps-l3")
	some p in _problems
}

_problems contains findings.problem(b, "personal-data bucket has no off-site (cross-region) replica") if {
	some i in s3.bucket_indices & resources.personal_indices
	b := input.document.resources[i]
	not s3.is_replica(i)
	count(s3.replication_configs(i)) == 0
	not i in s3.replication_hidden
}

# replication rules that are unknown until apply or secret prove no off-site copy
_problems contains findings.problem(b, msg) if {
	some i in s3.bucket_indices & resources.personal_indices
	i in s3.replication_hidden
	b := input.document.resources[i]
	not s3.is_replica(i)
	not _whole_replication(i)
	msg := sprintf("personal-data bucket's replication rules are %s, so an off-site (cross-region) replica cannot be established", [s3.hidden_replication(i)])
}

# a disabled rule copies nothing
_problems contains findings.problem(b, "personal-data bucket replicates through no enabled rule (every replication rule is disabled)") if {
	some i in s3.bucket_indices & resources.personal_indices
	b := input.document.resources[i]
	not s3.is_replica(i)
	count(s3.replication_configs(i)) > 0
	not i in s3.replication_hidden
	not _enabled_replication(i)
}

_enabled_replication(i) if {
	some rule in _enabled_rules(i)
}

_enabled_rules(i) := [rule |
	some rc in s3.replication_configs(i)
	some rule in resources.elements(object.get(rc.inputs, "rules", []))
	is_object(rule)
	s3.enabled_rule(rule)
]

# An enabled rule copies the whole bucket only when it filters nothing (no prefix, tag or and-block
# filter: s3.whole_bucket, as for lifecycle expiry) and, on a bucket encrypted with SSE-KMS (the
# gate requires it of personal data), replicates SSE-KMS objects (sourceSelectionCriteria
# sseKmsEncryptedObjects Enabled) to a replica KMS key: S3 skips such objects otherwise.
_whole_replication(i) if {
	some rule in _enabled_rules(i)
	count(_rule_gaps(rule, i)) == 0
}

_problems contains findings.problem(b, msg) if {
	some i in s3.bucket_indices & resources.personal_indices
	not s3.is_replica(i)
	not i in s3.replication_hidden
	_enabled_replication(i)
	not _whole_replication(i)
	b := input.document.resources[i]
	why := sort({sprintf("rule %s %s", [_rule_name(rule), concat(" and ", sort(_rule_gaps(rule, i)))]) | some rule in _enabled_rules(i)})
	msg := sprintf("personal-data bucket has no off-site (cross-region) replica of all its objects: %s", [concat("; ", why)])
}

_rule_gaps(rule, i) := {sprintf("copies only the objects its filter selects (%s)", [_filter_shown(rule)]) |
	not s3.whole_bucket(rule)
} | {why |
	_kms_bucket(i)
	some why in _kms_gaps(rule)
}

_filter_shown(rule) := json.marshal(object.filter(rule, ["filter", "prefix"]))

# a bucket whose default encryption is SSE-KMS, or may be (rules the document does not show)
_kms_bucket(i) if i in s3.kms_encrypted

_kms_bucket(i) if i in s3.encryption_hidden

_kms_gaps(rule) := {"skips the bucket's SSE-KMS objects (set sourceSelectionCriteria.sseKmsEncryptedObjects Enabled)"} if {
	not _replicates_kms_objects(rule)
} else := {"names no replica KMS key for the bucket's SSE-KMS objects (destination.encryptionConfiguration.replicaKmsKeyId)"} if {
	not _replica_key(rule)
} else := set()

# standalone BucketReplicationConfig: status "Enabled"; a bucket's inline rule: enabled true
_replicates_kms_objects(rule) if object.get(rule, ["sourceSelectionCriteria", "sseKmsEncryptedObjects", "status"], "") == "Enabled"

_replicates_kms_objects(rule) if resources.truthy(object.get(rule, ["sourceSelectionCriteria", "sseKmsEncryptedObjects", "enabled"], false))

# a key the document names, or one it does not show yet (a key the same preview creates)
_replica_key(rule) if _named(object.get(rule, ["destination", "encryptionConfiguration", "replicaKmsKeyId"], ""))

_replica_key(rule) if _named(object.get(rule, ["destination", "replicaKmsKeyId"], ""))

_named(v) if {
	is_string(v)
	v != ""
}

_rule_name(rule) := sprintf("'%s'", [rule.id]) if is_string(object.get(rule, "id", null)) else := "(no id)"

_problems contains findings.problem(d.source, msg) if {
	some d in residency.unlocated
	d.kind == "replication"
	msg := sprintf("replica bucket %v is not in the stack, so whether it is in another region cannot be established", [d.target])
}

_problems contains findings.problem(d.source, msg) if {
	some d in residency.destinations
	d.kind == "replication"
	src := resources.region(d.source, input.policy)
	d.region == src
	msg := sprintf("replica is in the same region (%s); off-site backup needs another region", [src])
}

_problems contains findings.problem(d.source, msg) if {
	some d in residency.destinations
	d.kind == "replication"
	not frameworks.in_regions(d.region, frameworks.setting("mlps_regions"))
	msg := sprintf("replica in %s leaves mainland China", [d.region])
}
