package mlps.offsite_backup

import data.lib.findings
import data.lib.frameworks
import data.lib.residency
import data.lib.resources
import data.lib.s3

# METADATA
# title: "Off-site backup within the residency"
# description: >-
#   Personal-data buckets replicate, through at least one enabled replication rule, to a bucket
#   in another region that is still inside the MLPS residency (for example cn-north-1 to
#   cn-northwest-1). A destination bucket the document does not declare leaves the region
#   unknown and is reported.
# related_resources:
#   - ref: https://openstd.samr.gov.cn/bzgk/gb/newGbInfo?hcno=BAFB47E8874764186BDB7865E8344DAF
# custom:
#   control_id: MLPS-L3-8.1.4.9b
#   clause: "8.1.4.9 b)"
#   framework: mlps-l3
#   severity: mandatory
#   remediation: >-
#     Add a BucketReplicationConfig to a versioned bucket in the other China region.
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
	not _enabled_replication(i)
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
	some rc in s3.replication_configs(i)
	some rule in resources.elements(object.get(rc.inputs, "rules", []))
	is_object(rule)
	s3.enabled_rule(rule)
}

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
