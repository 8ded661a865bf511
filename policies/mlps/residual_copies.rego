package mlps.residual_copies

import data.lib.findings
import data.lib.frameworks
import data.lib.resources
import data.lib.s3

# METADATA
# title: "Deleting removes every copy"
# description: >-
#   Versioned buckets expire noncurrent versions, and replication rules replicate delete
#   markers, so deleting an object does not leave copies behind.
# related_resources:
#   - ref: https://openstd.samr.gov.cn/bzgk/gb/newGbInfo?hcno=BAFB47E8874764186BDB7865E8344DAF
# custom:
#   control_id: MLPS-L3-8.2.4-RIP
#   clause: "8.2.4 cloud extension: residual information b)"
#   framework: mlps-l3
#   severity: advisory
#   remediation: >-
#     Add noncurrentVersionExpiration to the lifecycle rules and deleteMarkerReplication Enabled
#     to replication rules.
violation contains findings.finding("MLPS-L3-8.2.4-RIP", p.resource, p.message) if {
	frameworks.applies(input.policy, "mlps-l3")
	some p in _problems
}

_problems contains findings.problem(b, "versioned bucket never expires noncurrent versions") if {
	some i in s3.versioned
	not s3.noncurrent_expiration_days[i]
	b := input.document.resources[i]
}

_problems contains findings.problem(b, "replication does not replicate delete markers") if {
	some i in s3.bucket_indices
	some rc in s3.replication_configs(i)
	some rule in resources.elements(object.get(rc.inputs, "rules", []))
	is_object(rule)
	object.get(rule, ["deleteMarkerReplication", "status"], "Disabled") != "Enabled"
	b := input.document.resources[i]
}
