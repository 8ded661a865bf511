package gdpr.encryption_at_rest

import data.lib.checks
import data.lib.compute
import data.lib.findings
import data.lib.frameworks
import data.lib.resources

# METADATA
# title: "Encryption at rest"
# description: >-
#   Buckets default to SSE-KMS, launch-template EBS mappings and standalone volumes are
#   encrypted (personal-data launch templates with a customer KMS key), EBS CSI StorageClasses
#   set parameters.encrypted "true" (the driver's default is unencrypted), personal-data volume
#   claims (PersistentVolumeClaims, StatefulSet claim templates, ephemeral volumes) name a
#   StorageClass of the document whose encryption is judged (EBS CSI, or local volumes), log
#   groups use a KMS key, and RDS, DocumentDB and Neptune storage, EFS file systems and imported
#   EBS snapshots are encrypted. Personal data in a resource of a type no rule checks (another
#   service's data store, an S3 directory bucket, any aws-native resource) cannot be shown
#   encrypted and is reported.
# related_resources:
#   - ref: https://gdpr-info.eu/art-32-gdpr/
# custom:
#   control_id: GDPR-32.1a-1
#   clause: "Art. 32(1)(a)"
#   framework: gdpr
#   severity: mandatory
#   remediation: >-
#     Encrypt the resource: SSE-KMS bucket encryption, ebs.encrypted "true" with kmsKeyId,
#     StorageClass parameters.encrypted "true" (and a claim's storageClassName naming such a class
#     of the stack, not EKS's unencrypted gp2 or the cluster default), log group kmsKeyId,
#     storageEncrypted (RDS, DocumentDB, Neptune), encrypted (EFS, imported snapshots); for a type
#     no rule checks, encrypt it and waive the finding with the evidence.
violation contains findings.finding("GDPR-32.1a-1", p.resource, p.message) if {
	frameworks.applies(input.policy, "gdpr")
	some p in _problems
}

_problems contains p if {
	some p in checks.at_rest(input.document)
}

_problems contains p if {
	some p in checks.unchecked_personal_stores
}

# volume claims whose volumes are not shown to come from an encrypted StorageClass of the document
_problems contains p if {
	some p in checks.unencrypted_claims(input.document, {"personal"})
}

# a group, instance or fleet of personal data that launches from a template the document does not
# hold: its volumes' encryption cannot be checked
_problems contains compute.unseen_launch_problem(i, ref, "the encryption of its volumes") if {
	some [i, ref] in compute.unseen_launch_sources
	i in resources.personal_indices
}

_problems contains findings.problem(lt, msg) if {
	some i in compute.indices & resources.personal_indices
	lt := input.document.resources[i]
	some m in compute.ebs_mappings(lt)
	resources.truthy(object.get(m, ["ebs", "encrypted"], false))
	object.get(m.ebs, "kmsKeyId", "") == ""
	msg := sprintf("personal-data EBS mapping %v is encrypted with the AWS-managed default key, not a customer KMS key", [object.get(m, "deviceName", "?")])
}
