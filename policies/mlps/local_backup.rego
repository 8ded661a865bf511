package mlps.local_backup

import data.lib.backup
import data.lib.checks
import data.lib.findings
import data.lib.frameworks

# METADATA
# title: "Local backup"
# description: >-
#   As GDPR-32.1c-1 for important data: personal- and internal-data buckets are versioned (S3
#   directory buckets, which cannot be, are reported),
#   databases (RDS, DocumentDB, Neptune, Redshift) keep automated backups at least 7 days,
#   personal- and internal-data DynamoDB tables have point-in-time recovery, personal- and
#   internal-data ElastiCache and MemoryDB stores keep automatic snapshots at least 7 days, and personal- and
#   internal-data EBS volumes (standalone, or provisioned by an EBS CSI StorageClass through the
#   tags of its tagSpecification parameters) are selected by an AWS Backup selection in their region whose plan is in the stack
#   with a rule that keeps recovery points at least 7 days.
# related_resources:
#   - ref: https://openstd.samr.gov.cn/bzgk/gb/newGbInfo?hcno=BAFB47E8874764186BDB7865E8344DAF
# custom:
#   control_id: MLPS-L3-8.1.4.9a
#   clause: "8.1.4.9 a)"
#   framework: mlps-l3
#   severity: mandatory
#   remediation: >-
#     Enable bucket versioning; set backupRetentionPeriod >= 7 (RDS, DocumentDB,
#     Neptune), automatedSnapshotRetentionPeriod >= 7 (Redshift), snapshotRetentionLimit >= 7
#     (ElastiCache, MemoryDB); enable pointInTimeRecovery on DynamoDB tables. Put personal- and internal-data EBS
#     volumes under an AWS Backup plan of the stack whose rule keeps recovery points at least 7 days
#     and a backup selection in their region that selects them by tag or by ARN
#     (arn:aws-cn:ec2:REGION:ACCOUNT:volume/*); give an EBS StorageClass a tagSpecification_N
#     parameter "KEY=VALUE" that such a selection selects on.
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

_problems contains p if {
	some p in checks.dynamodb_backups(input.document, {"personal", "internal"})
}

_problems contains p if {
	some p in checks.cache_backups(input.document, {"personal", "internal"})
}

_problems contains p if {
	some p in backup.unprotected(input.document, {"personal", "internal"})
}
