package gdpr.backup

import data.lib.backup
import data.lib.checks
import data.lib.findings
import data.lib.frameworks

# METADATA
# title: "Backup and restore"
# description: >-
#   Personal-data buckets are versioned (overwritten or deleted objects can be restored; an S3
#   directory bucket cannot be, so personal data in one is reported), databases
#   (RDS, DocumentDB, Neptune, Redshift) keep automated backups at least 7 days, personal-data
#   DynamoDB tables have point-in-time recovery, personal-data ElastiCache and MemoryDB stores keep
#   automatic snapshots at least 7 days (a Memcached node-based cluster keeps none), and personal-data EBS volumes, standalone or provisioned by EBS CSI
#   StorageClasses (with the tags of their tagSpecification parameters), are selected by a backup
#   selection in their region whose plan is in the stack with a rule that keeps recovery points at
#   least 7 days. Tags, plan ids or retentions unknown until apply do not count.
# related_resources:
#   - ref: https://gdpr-info.eu/art-32-gdpr/
#   - ref: https://docs.aws.amazon.com/aws-backup/latest/devguide/assigning-resources.html
# custom:
#   control_id: GDPR-32.1c-1
#   clause: "Art. 32(1)(c)"
#   framework: gdpr
#   severity: mandatory
#   remediation: >-
#     Enable versioning on the bucket (BucketVersioning status Enabled); set backupRetentionPeriod
#     >= 7 (RDS, DocumentDB, Neptune), automatedSnapshotRetentionPeriod >= 7 (Redshift),
#     snapshotRetentionLimit >= 7 (ElastiCache, MemoryDB; Valkey or Redis OSS rather than a
#     Memcached cluster); enable DynamoDB pointInTimeRecovery. Put personal-data EBS
#     volumes under an AWS Backup plan of the stack whose rule keeps recovery points at least 7 days
#     (lifecycle deleteAfter >= 7, or none) and a selection in the volumes' region that selects them
#     by tag (selectionTags STRINGEQUALS, or conditions stringEquals on aws:ResourceTag/KEY) or ARN
#     (arn:PARTITION:ec2:REGION:ACCOUNT:volume/*); give an EBS StorageClass a tagSpecification_N
#     "KEY=VALUE" such a selection selects on (the components do this for storage.classes).
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

_problems contains p if {
	some p in checks.dynamodb_backups(input.document, {"personal"})
}

_problems contains p if {
	some p in checks.cache_backups(input.document, {"personal"})
}

_problems contains p if {
	some p in backup.unprotected(input.document, {"personal"})
}
