package gdpr.breach_detection

import data.lib.audit
import data.lib.findings
import data.lib.frameworks
import data.lib.resources
import data.lib.s3

# METADATA
# title: "Breach detection"
# description: >-
#   A multi-region CloudTrail trail with log-file validation records management events and S3
#   data events on personal-data buckets, the stack's VPC has flow logs, and EKS clusters send
#   audit logs. An advanced selector counts only when it does not narrow the events (a filter on
#   eventName, eventSource or any field but eventCategory, resources.type, readOnly and whole-bucket
#   resources.ARN startsWith values), a basic selector's management events only when it has no
#   excludeManagementEventSources, and a data resource only when it names whole buckets (no
#   object prefix). A trail the policy relies on instead (compliance.existingTrail) is judged on what
#   CloudTrail says of it (seedance check --lookup); without that, on the policy's word.
# related_resources:
#   - ref: https://gdpr-info.eu/art-33-gdpr/
#   - ref: https://gdpr-info.eu/art-32-gdpr/
# custom:
#   control_id: GDPR-33-1
#   clause: "Art. 33(1) / Art. 32(1)(d)"
#   framework: gdpr
#   severity: mandatory
#   remediation: >-
#     Create a multi-region trail with enableLogFileValidation and an S3 data-event selector
#     covering the personal-data buckets; add a FlowLog on the VPC; enable the EKS audit log type.
violation contains findings.finding("GDPR-33-1", p.resource, p.message) if {
	frameworks.applies(input.policy, "gdpr")
	some p in _problems
}

_stack := findings.stack(input.document)

_trails := resources.of_type(input.document, "aws:cloudtrail/trail:Trail")

_problems contains findings.problem(_stack, "no CloudTrail trail records the stack's account") if {
	count(_trails) == 0
	not audit.existing_trail
}

_problems contains p if {
	some p in audit.trail_weaknesses(input.document)
}

_problems contains p if {
	some p in audit.existing_weaknesses(input.document, {"multi-region", "validation", "logging", "management", "account", "own"})
}

# the stack's trails record only data events, and no existing trail is named
_problems contains findings.problem(_stack, msg) if {
	count(_trails) > 0
	not audit.existing_trail
	not _management_recorded
	note := audit.hidden_switch_note(input.document, ["includeManagementEvents"])
	msg := sprintf("no trail records the account's management events%s%s", [audit.ignored_management_note(input.document), note])
}

# (a stopped trail is reported as such)
_management_recorded if {
	some t in _trails
	audit.management_events(t)
}

_problems contains findings.problem(b, msg) if {
	_some_trail
	some i in s3.bucket_indices & resources.personal_indices
	not i in audit.trail_destinations
	not audit.data_events_cover(i)
	b := input.document.resources[i]
	msg := _unrecorded(i)
}

_unrecorded(i) := concat("", [
	"no trail is shown to record S3 data events for this personal-data bucket: the existing trail records ",
	"named buckets, and this document does not know this bucket's name (offline synthesis); check a document ",
	"converted from a pulumi preview",
]) if audit.existing_names_unknown(i)

_unrecorded(i) := concat("", ["no trail records S3 data events for this personal-data bucket", _ignored(i)]) if {
	not audit.existing_names_unknown(i)
}

# the stack's trail selectors that name the bucket but do not count (an object prefix, a filter)
_ignored(i) := sprintf(" (not counted: %s)", [concat("; ", reasons)]) if {
	reasons := audit.ignored_data_selectors(i)
	count(reasons) > 0
} else := ""

_some_trail if count(_trails) > 0

_some_trail if audit.existing_trail

_problems contains findings.problem(_stack, msg) if {
	some vpc in audit.vpcs(input.document, input.policy)
	not audit.flow_logged(input.document, vpc)
	msg := sprintf("VPC %s has no flow log of ALL traffic (trafficType \"ALL\")", [vpc])
}

_problems contains p if {
	some p in audit.eks_log_gaps(input.document, {"audit"})
}
