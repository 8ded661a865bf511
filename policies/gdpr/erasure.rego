package gdpr.erasure

import data.lib.findings
import data.lib.frameworks
import data.lib.resources
import data.lib.s3

# METADATA
# title: "Personal data stays erasable"
# description: >-
#   Personal-data buckets carry no Object Lock in COMPLIANCE mode and no default retention
#   longer than the declared maximum, and personal-data volumes are not retained after release,
#   so an erasure request can be honoured.
# related_resources:
#   - ref: https://gdpr-info.eu/art-17-gdpr/
# custom:
#   control_id: GDPR-17-1
#   clause: "Art. 17"
#   framework: gdpr
#   severity: advisory
#   remediation: >-
#     Use GOVERNANCE mode with a retention within compliance.personalDataMaxDays (or no lock) on
#     personal-data buckets, and reclaimPolicy Delete on personal-data StorageClasses.
violation contains findings.finding("GDPR-17-1", p.resource, p.message) if {
	frameworks.applies(input.policy, "gdpr")
	some p in _problems
}

_max := frameworks.personal_data_max_days(input.policy)

_problems contains findings.problem(b, "Object Lock COMPLIANCE mode makes personal data undeletable until retention ends") if {
	some i in s3.bucket_indices & resources.personal_indices
	some lock in s3.object_lock_configs(i)
	lock.inputs.rule.defaultRetention.mode == "COMPLIANCE"
	b := input.document.resources[i]
}

_problems contains findings.problem(b, msg) if {
	some i in s3.bucket_indices & resources.personal_indices
	some lock in s3.object_lock_configs(i)
	days := _retention_days(lock.inputs.rule.defaultRetention)
	b := input.document.resources[i]
	days > _max
	msg := sprintf("Object Lock retention of %v days exceeds the personal-data maximum of %v days", [days, _max])
}

_retention_days(r) := r.days if is_number(object.get(r, "days", null))

_retention_days(r) := r.years * 365 if is_number(object.get(r, "years", null))

_problems contains findings.problem(sc, "personal-data StorageClass retains volumes after release (reclaimPolicy Retain)") if {
	some i in resources.indices("kubernetes:storage.k8s.io/v1:StorageClass") & resources.personal_indices
	sc := input.document.resources[i]
	object.get(sc.inputs, "reclaimPolicy", "Delete") == "Retain"
}

_problems contains findings.problem(pv, "personal-data PersistentVolume is retained after release") if {
	some i in resources.indices("kubernetes:core/v1:PersistentVolume") & resources.personal_indices
	pv := input.document.resources[i]
	object.get(pv.inputs, ["spec", "persistentVolumeReclaimPolicy"], "Retain") == "Retain"
}

# a reclaim policy the preview does not know yet (or not one Kubernetes has) may be Retain
_problems contains findings.problem(r, msg) if {
	some i in resources.personal_indices & (resources.indices("kubernetes:storage.k8s.io/v1:StorageClass") | resources.indices("kubernetes:core/v1:PersistentVolume"))
	r := input.document.resources[i]
	policy := object.get(r.inputs, _reclaim_path[r.type], "Delete")
	not policy in {"Delete", "Retain", "Recycle"}
	msg := sprintf("personal-data volumes: reclaim policy %v cannot be established (Delete required)", [policy])
}

_reclaim_path := {
	"kubernetes:storage.k8s.io/v1:StorageClass": ["reclaimPolicy"],
	"kubernetes:core/v1:PersistentVolume": ["spec", "persistentVolumeReclaimPolicy"],
}
