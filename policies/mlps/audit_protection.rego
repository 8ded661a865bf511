package mlps.audit_protection

import data.lib.audit
import data.lib.findings
import data.lib.frameworks
import data.lib.resources
import data.lib.s3

# METADATA
# title: "Protect audit records"
# description: >-
#   Trails validate log files and encrypt them with a KMS key, and the bucket receiving them is
#   versioned and protected by Object Lock or a bucket policy denying deletes.
# related_resources:
#   - ref: https://openstd.samr.gov.cn/bzgk/gb/newGbInfo?hcno=BAFB47E8874764186BDB7865E8344DAF
# custom:
#   control_id: MLPS-L3-8.1.4.3c
#   clause: "8.1.4.3 c)"
#   framework: mlps-l3
#   severity: mandatory
#   remediation: >-
#     Set enableLogFileValidation and kmsKeyId on the trail; version the trail bucket and add
#     Object Lock or a Deny on s3:DeleteObject / s3:DeleteObjectVersion.
violation contains findings.finding("MLPS-L3-8.1.4.3c", p.resource, p.message) if {
	frameworks.applies(input.policy, "mlps-l3")
	some p in _problems
}

_problems contains {"resource": t, "message": "trail has log-file validation off"} if {
	some t in audit.trails(input.document)
	not resources.truthy(object.get(t.inputs, "enableLogFileValidation", false))
}

_problems contains {"resource": t, "message": "trail log files are not encrypted with a KMS key"} if {
	some t in audit.trails(input.document)
	object.get(t.inputs, "kmsKeyId", "") == ""
}

_log_buckets := [b | some b in s3.buckets(input.document); audit.trail_destination(input.document, b)]

_problems contains {"resource": b, "message": "audit log bucket is not versioned"} if {
	some b in _log_buckets
	not s3.versioned(input.document, b)
}

_problems contains {"resource": b, "message": "audit log bucket has neither Object Lock nor a policy denying deletes"} if {
	some b in _log_buckets
	count(s3.object_lock_configs(input.document, b)) == 0
	object.get(b.inputs, "objectLockEnabled", false) != true
	not _denies_delete(b)
}

_denies_delete(b) if {
	some st in s3.policy_statements(input.document, b)
	st.Effect == "Deny"
	some a in resources.as_list(st.Action)
	a in {"s3:DeleteObject", "s3:DeleteObjectVersion", "s3:Delete*", "s3:*"}
	not st.Condition
}
