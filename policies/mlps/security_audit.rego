package mlps.security_audit

import data.lib.access_logging
import data.lib.audit
import data.lib.findings
import data.lib.frameworks
import data.lib.resources

# METADATA
# title: "Audit users and important events"
# description: >-
#   A multi-region CloudTrail trail records management events (including global services; a trail
#   the policy relies on, compliance.existingTrail, as CloudTrail describes it; an advanced
#   selector that filters on eventSource or any field but eventCategory and readOnly does not count,
#   nor a basic one with excludeManagementEventSources), EKS
#   clusters send audit and authenticator logs, and every S3 bucket sends server access logs
#   (a BucketLogging resource, or the bucket's inline logging) to a bucket the stack creates in
#   the same region, without S3 Object Lock; a bucket that receives other buckets' access logs
#   need not log its own. A target the document does not declare (or a preview does not know
#   yet) is reported: where the logs are kept cannot be established.
# related_resources:
#   - ref: https://openstd.samr.gov.cn/bzgk/gb/newGbInfo?hcno=BAFB47E8874764186BDB7865E8344DAF
# custom:
#   control_id: MLPS-L3-8.1.4.3a
#   clause: "8.1.4.3 a) b)"
#   framework: mlps-l3
#   severity: mandatory
#   remediation: >-
#     Create a multi-region trail with includeGlobalServiceEvents and management events; enable
#     the EKS audit and authenticator log types; give every bucket a BucketLogging whose
#     targetBucket is an access-log bucket of the stack in the bucket's region, without Object
#     Lock (Seedance's AccessLogArchive).
violation contains findings.finding("MLPS-L3-8.1.4.3a", p.resource, p.message) if {
	frameworks.applies(input.policy, "mlps-l3")
	some p in _problems
}

_stack := findings.stack(input.document)

_problems contains findings.problem(_stack, msg) if {
	not _audited
	note := audit.hidden_switch_note(input.document, ["enableLogging", "includeGlobalServiceEvents", "includeManagementEvents", "isMultiRegionTrail"])
	msg := sprintf("no multi-region CloudTrail trail records management events%s%s", [audit.ignored_management_note(input.document), note])
}

_audited if {
	some t in audit.trails(input.document)
	resources.truthy(object.get(t.inputs, "isMultiRegionTrail", false))
	not audit.switched_off(object.get(t.inputs, "includeGlobalServiceEvents", true))
	not audit.stopped(t)
	audit.management_events(t)
}

_audited if audit.existing_records_management

_problems contains p if {
	some p in audit.existing_weaknesses(input.document, {"multi-region", "logging", "management", "global", "account", "own"})
}

_problems contains p if {
	some p in audit.eks_log_gaps(input.document, {"audit", "authenticator"})
}

_problems contains p if {
	some p in access_logging.gaps(input.document)
}
