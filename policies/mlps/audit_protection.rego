package mlps.audit_protection

import data.lib.access_logging
import data.lib.audit
import data.lib.findings
import data.lib.frameworks
import data.lib.resources
import data.lib.s3

# METADATA
# title: "Protect audit records"
# description: >-
#   Trails validate log files and encrypt them with a KMS key (a trail the policy relies on,
#   compliance.existingTrail, as CloudTrail describes it), and the buckets receiving them or S3
#   server access logs are versioned and protected by Object Lock or a bucket policy denying
#   deletes.
# related_resources:
#   - ref: https://openstd.samr.gov.cn/bzgk/gb/newGbInfo?hcno=BAFB47E8874764186BDB7865E8344DAF
# custom:
#   control_id: MLPS-L3-8.1.4.3c
#   clause: "8.1.4.3 c)"
#   framework: mlps-l3
#   severity: mandatory
#   remediation: >-
#     Set enableLogFileValidation and kmsKeyId on the trail; version the trail bucket and the
#     access-log buckets and add Object Lock (trail bucket only: S3 does not deliver access logs to
#     a bucket with Object Lock) or a Deny on s3:DeleteObject / s3:DeleteObjectVersion.
violation contains findings.finding("MLPS-L3-8.1.4.3c", p.resource, p.message) if {
	frameworks.applies(input.policy, "mlps-l3")
	some p in _problems
}

_problems contains findings.problem(t, "trail has log-file validation off") if {
	some t in audit.trails(input.document)
	not resources.truthy(object.get(t.inputs, "enableLogFileValidation", false))
}

_problems contains findings.problem(t, "trail log files are not encrypted with a KMS key") if {
	some t in audit.trails(input.document)
	object.get(t.inputs, "kmsKeyId", "") == ""
}

_problems contains p if {
	some p in audit.existing_weaknesses(input.document, {"validation", "kms"})
}

# positions of the buckets that receive trail log files or S3 server access logs
_log_buckets := s3.bucket_indices & (audit.trail_destinations | access_logging.targets)

_problems contains findings.problem(b, "audit log bucket is not versioned") if {
	some i in _log_buckets
	not i in s3.versioned
	b := input.document.resources[i]
}

_problems contains findings.problem(b, "audit log bucket has neither Object Lock nor a policy denying deletes") if {
	some i in _log_buckets
	count(s3.object_lock_configs(i)) == 0
	b := input.document.resources[i]
	object.get(b.inputs, "objectLockEnabled", false) != true
	not _denies_delete(i)
}

_denies_delete(b) if {
	some st in s3.policy_statements(b)
	st.Effect == "Deny"
	some a in resources.as_list(st.Action)
	a in {"s3:DeleteObject", "s3:DeleteObjectVersion", "s3:Delete*", "s3:*"}
	not st.Condition
}
