package mlps.stored_data_integrity

import data.lib.audit
import data.lib.findings
import data.lib.frameworks
import data.lib.resources
import data.lib.s3

# METADATA
# title: "Integrity of stored data"
# description: >-
#   Buckets holding important (personal or internal) data and audit-log buckets are versioned,
#   and trails validate their log files (a trail the policy relies on, compliance.existingTrail, as
#   CloudTrail describes it).
# related_resources:
#   - ref: https://openstd.samr.gov.cn/bzgk/gb/newGbInfo?hcno=BAFB47E8874764186BDB7865E8344DAF
# custom:
#   control_id: MLPS-L3-8.1.4.7b
#   clause: "8.1.4.7 b)"
#   framework: mlps-l3
#   severity: advisory
#   remediation: >-
#     Enable versioning on the bucket; set enableLogFileValidation on the trail.
violation contains findings.finding("MLPS-L3-8.1.4.7b", p.resource, p.message) if {
	frameworks.applies(input.policy, "mlps-l3")
	some p in _problems
}

_problems contains findings.problem(b, "important-data or log bucket is not versioned") if {
	some i in _important - s3.versioned
	b := input.document.resources[i]
}

# positions of the sensitive-data buckets and of the buckets receiving trail log files
_important := s3.bucket_indices & (resources.sensitive_indices | audit.trail_destinations)

_problems contains findings.problem(t, "trail has log-file validation off") if {
	some t in audit.trails(input.document)
	not resources.truthy(object.get(t.inputs, "enableLogFileValidation", false))
}

_problems contains p if {
	some p in audit.existing_weaknesses(input.document, {"validation"})
}
