package gdpr.storage_limitation

import data.lib.findings
import data.lib.frameworks
import data.lib.resources
import data.lib.s3

# METADATA
# title: "Storage limitation for personal data"
# description: >-
#   Personal data is kept no longer than the declared maximum: personal-data buckets expire
#   objects (and noncurrent versions when versioned) within compliance.personalDataMaxDays
#   through lifecycle rules that cover every object (no prefix, tag or size filter), and
#   personal-data StorageClasses and PersistentVolumes release volumes with reclaim policy Delete.
# related_resources:
#   - ref: https://gdpr-info.eu/art-5-gdpr/
# custom:
#   control_id: GDPR-5.1e-1
#   clause: "Art. 5(1)(e)"
#   framework: gdpr
#   severity: mandatory
#   remediation: >-
#     Declare compliance.personalDataMaxDays and give every personal-data bucket a lifecycle rule
#     whose expiration and noncurrentVersionExpiration are at most that many days; use
#     reclaimPolicy Delete on StorageClasses and persistentVolumeReclaimPolicy Delete on
#     PersistentVolumes.
violation contains findings.finding("GDPR-5.1e-1", p.resource, p.message) if {
	frameworks.applies(input.policy, "gdpr")
	some p in _problems
}

_max := frameworks.personal_data_max_days(input.policy)

# positions of the personal-data buckets
_personal_buckets := s3.bucket_indices & resources.personal_indices

_problems contains findings.problem(findings.stack(input.document), msg) if {
	not _max
	count(_personal_buckets) > 0
	msg := "personal data is stored but compliance.personalDataMaxDays is not declared"
}

# only rules that cover every object count (a rule scoped to tmp/ leaves the rest for ever)
_problems contains findings.problem(b, msg) if {
	some i in _personal_buckets
	not s3.expiration_days[i]
	not i in s3.scoped_expiry
	b := input.document.resources[i]
	msg := sprintf("personal-data bucket never expires objects (maximum %v days)", [_declared])
}

_problems contains findings.problem(b, msg) if {
	some i in _personal_buckets & s3.scoped_expiry
	not s3.expiration_days[i]
	b := input.document.resources[i]
	msg := sprintf("personal-data bucket expires only objects under a prefix, tag or size filter; no rule expires every object (maximum %v days)", [_declared])
}

_declared := object.get(input.policy, ["compliance", "personalDataMaxDays"], "undeclared")

_problems contains findings.problem(b, msg) if {
	some i in _personal_buckets
	days := s3.expiration_days[i]
	b := input.document.resources[i]
	days > _max
	msg := sprintf("personal-data bucket expires objects after %v days, above the maximum of %v days", [days, _max])
}

_problems contains findings.problem(b, "versioned personal-data bucket never expires noncurrent versions") if {
	some i in _personal_buckets & s3.versioned
	not s3.noncurrent_expiration_days[i]
	b := input.document.resources[i]
}

_problems contains findings.problem(b, msg) if {
	some i in _personal_buckets
	days := s3.noncurrent_expiration_days[i]
	b := input.document.resources[i]
	days > _max
	msg := sprintf("noncurrent versions expire after %v days, above the maximum of %v days", [days, _max])
}

_problems contains findings.problem(sc, msg) if {
	some i in resources.indices("kubernetes:storage.k8s.io/v1:StorageClass") & resources.personal_indices
	sc := input.document.resources[i]
	policy := object.get(sc.inputs, "reclaimPolicy", "Delete")
	policy != "Delete"
	msg := sprintf("personal-data StorageClass keeps released volumes (reclaimPolicy %s)", [policy])
}

# a PersistentVolume created by hand keeps its volume unless it says Delete (Kubernetes defaults
# persistentVolumeReclaimPolicy to Retain for those; dynamically provisioned ones take their
# StorageClass's, checked above); a value unknown until apply is not Delete either
_problems contains findings.problem(pv, msg) if {
	some i in resources.indices("kubernetes:core/v1:PersistentVolume") & resources.personal_indices
	pv := input.document.resources[i]
	policy := object.get(pv.inputs, ["spec", "persistentVolumeReclaimPolicy"], "Retain")
	policy != "Delete"
	msg := sprintf("personal-data PersistentVolume keeps its volume after release (persistentVolumeReclaimPolicy %v)", [policy])
}
