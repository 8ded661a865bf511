package gdpr.data_residency

import data.lib.audit
import data.lib.findings
import data.lib.frameworks
import data.lib.residency
import data.lib.resources

# METADATA
# title: "Personal data stays in allowed regions"
# description: >-
#   Every personal-data resource, and every replication and log destination of one, is in a
#   region allowed for GDPR transfers (the EEA's regions and those of countries with an EU
#   adequacy decision, by name; settable in data) and in the policy's compliance.dataResidency list. AWS Backup copy destinations count whatever the
#   plan's tags (its selections decide what it copies); RDS automated-backup replications, DynamoDB
#   table replicas and log subscriptions carry the data class of the database, table or log group
#   they copy (one the document does not declare counts as personal); and a destination whose
#   region the document does not establish (a replica bucket or log bucket outside the stack) is
#   reported, not assumed.
# related_resources:
#   - ref: https://gdpr-info.eu/art-44-gdpr/
#   - ref: https://gdpr-info.eu/art-45-gdpr/
#   - ref: https://gdpr-info.eu/art-46-gdpr/
# custom:
#   control_id: GDPR-44-1
#   clause: "Chapter V, Art. 44-46"
#   framework: gdpr
#   severity: mandatory
#   remediation: >-
#     Deploy personal data in an EEA (or adequacy-decision) region listed in
#     compliance.dataResidency, and point replication and log destinations there too; a transfer
#     elsewhere needs safeguards (Art. 46) recorded as a waiver.
violation contains findings.finding("GDPR-44-1", p.resource, p.message) if {
	frameworks.applies(input.policy, "gdpr")
	some p in _problems
}

_gdpr_regions := frameworks.setting("gdpr_regions")

_declared := object.get(input.policy, ["compliance", "dataResidency"], [])

# why a region is not allowed; undefined when it is
_outside(region) := sprintf("outside the GDPR transfer regions (%s)", [concat(", ", _gdpr_regions)]) if {
	not frameworks.in_regions(region, _gdpr_regions)
} else := sprintf("outside compliance.dataResidency (%s)", [concat(", ", _declared)]) if {
	count(_declared) > 0
	not frameworks.in_regions(region, _declared)
}

# one region at a time: the reason is worked out once per region, not once per resource
_problems contains findings.problem(r, msg) if {
	some region in residency.regions
	reason := _outside(region)
	msg := sprintf("personal data in %s, %s", [residency.shown(region), reason])
	some i in residency.located(resources.personal_indices, region)
	r := input.document.resources[i]
}

_problems contains findings.problem(d.source, msg) if {
	some d in residency.destinations
	_carries_personal_data(d)
	msg := sprintf("%s of %s goes to %s, %s", [d.kind, _data(d), residency.shown(d.region), _outside(d.region)])
}

_carries_personal_data(d) if resources.personal(d.source)

_carries_personal_data(d) if d.kind == "backup copy"

# a log subscription reads a log group that receives a personal-data resource's logs, whatever its tags
_carries_personal_data(d) if {
	d.kind == "log subscription"
	d.at in _personal_log_group_urns
}

_personal_log_group_urns := {input.document.resources[j].urn | some j in audit.personal_log_groups}

# a copy of a database, table or log group the document does not declare: its data class cannot be
# established, so it counts as personal (as tags unknown until apply do), unless the copy has one
_carries_personal_data(d) if {
	_undeclared(d)
	resources.data_class(d.source) == ""
}

_undeclared(d) if is_string(object.get(d, "undeclared", null))

_data(d) := sprintf("%s (whose data class cannot be established, so it counts as personal)", [d.undeclared]) if {
	_undeclared(d)
	not resources.personal(d.source)
} else := "personal data"

_problems contains findings.problem(d.source, msg) if {
	some d in residency.unlocated
	_carries_personal_data(d)
	msg := sprintf("%s of %s goes to %v, whose region the stack does not establish; declare the destination in the stack or waive", [d.kind, _data(d), d.target])
}
