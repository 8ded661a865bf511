package gdpr.backup

import data.lib.checks
import data.lib.findings
import data.lib.frameworks

# METADATA
# title: "Backup and restore"
# description: >-
#   Personal-data buckets are versioned so overwritten or deleted objects can be restored, and
#   databases keep automated backups for at least 7 days.
# related_resources:
#   - ref: https://gdpr-info.eu/art-32-gdpr/
# custom:
#   control_id: GDPR-32.1c-1
#   clause: "Art. 32(1)(c)"
#   framework: gdpr
#   severity: mandatory
#   remediation: >-
#     Enable versioning on the bucket (BucketVersioning status Enabled); set backupRetentionPeriod
#     >= 7.
violation contains findings.finding("GDPR-32.1c-1", p.resource, p.message) if {
	frameworks.applies(input.policy, "gdpr")
	some p in _problems
}

_problems contains p if {
	some p in checks.unversioned_buckets(input.document, {"personal"})
}

_problems contains p if {
	some p in checks.db_backups(input.document)
}
