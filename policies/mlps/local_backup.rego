package mlps.local_backup

import data.lib.checks
import data.lib.findings
import data.lib.frameworks

# METADATA
# title: "Local backup"
# description: >-
#   As GDPR-32.1c-1 for important data: personal- and internal-data buckets are versioned and
#   databases keep automated backups at least 7 days.
# related_resources:
#   - ref: https://openstd.samr.gov.cn/bzgk/gb/newGbInfo?hcno=BAFB47E8874764186BDB7865E8344DAF
# custom:
#   control_id: MLPS-L3-8.1.4.9a
#   clause: "8.1.4.9 a)"
#   framework: mlps-l3
#   severity: mandatory
#   remediation: >-
#     Enable bucket versioning; set backupRetentionPeriod >= 7.
violation contains findings.finding("MLPS-L3-8.1.4.9a", p.resource, p.message) if {
	frameworks.applies(input.policy, "mlps-l3")
	some p in _problems
}

_problems contains p if {
	some p in checks.unversioned_buckets(input.document, {"personal", "internal"})
}

_problems contains p if {
	some p in checks.db_backups(input.document)
}
