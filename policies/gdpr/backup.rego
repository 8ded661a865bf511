package gdpr.backup

import data.lib.backup
import data.lib.checks
import data.lib.findings
import data.lib.frameworks

# METADATA
# title: "Backup and restore"
# description: >-
#   Personal-data buckets are versioned so overwritten or deleted objects can be restored,
#   databases (RDS, DocumentDB, Neptune) keep automated backups for at least 7 days,
#   personal-data DynamoDB tables have point-in-time recovery, and personal-data EBS volumes are
#   under an AWS Backup plan: standalone volumes, and the volumes EBS CSI StorageClasses provision
#   (through the tags their tagSpecification parameters give them), are selected by a backup
#   selection in their region whose plan is in the stack with a rule that keeps recovery points
#   at least 7 days. Tags, plan ids or retentions unknown until apply do not count.
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
#     >= 7 (RDS, DocumentDB, Neptune); enable pointInTimeRecovery on DynamoDB tables. Put
#     personal-data EBS volumes under an AWS Backup plan of the stack whose rule keeps recovery
#     points at least 7 days (lifecycle deleteAfter >= 7, or none) and a backup selection in the
#     volumes' region that selects them by tag (selectionTags STRINGEQUALS, or conditions
#     stringEquals on aws:ResourceTag/KEY) or by ARN (arn:PARTITION:ec2:REGION:ACCOUNT:volume/*);
#     give an EBS StorageClass a tagSpecification_N parameter "KEY=VALUE" that such a selection
#     selects on (the components do this for storage.classes).
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
	some p in backup.unprotected(input.document, {"personal"})
}
