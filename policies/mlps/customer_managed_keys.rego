package mlps.customer_managed_keys

import data.lib.compute
import data.lib.findings
import data.lib.frameworks
import data.lib.karpenter
import data.lib.resources
import data.lib.s3

# METADATA
# title: "Customer-controlled keys"
# description: >-
#   Encryption uses customer-managed KMS keys: no AWS-managed alias (alias/aws/...), no SSE-S3
#   (AES256) bucket default nor an aws:kms default without a key (the aws/s3 key), and encrypted
#   launch-template volumes and StorageClasses name their key.
# related_resources:
#   - ref: https://openstd.samr.gov.cn/bzgk/gb/newGbInfo?hcno=BAFB47E8874764186BDB7865E8344DAF
# custom:
#   control_id: MLPS-L3-8.2.4-KMS
#   clause: "8.2.4 cloud extension: key management"
#   framework: mlps-l3
#   severity: advisory
#   remediation: >-
#     Create or name a customer-managed KMS key (compliance.kmsKeyArn) and use it for buckets,
#     volumes and logs.
violation contains findings.finding("MLPS-L3-8.2.4-KMS", p.resource, p.message) if {
	frameworks.applies(input.policy, "mlps-l3")
	some p in _problems
}

_problems contains findings.problem(input.document.resources[i], msg) if {
	_names_aws_managed_aliases
	some ref in _aws_managed_refs
	i := ref[0]
	msg := sprintf("uses the AWS-managed key %s instead of a customer-managed key", [ref[1]])
}

# An AWS-managed key is named by its alias (alias/aws/...), text that JSON leaves as it is: a
# document whose serialised resources never contain it names no such key, and serialising the
# resources once costs a fraction of the passes below (10,000 resources).
_names_aws_managed_aliases if contains(json.marshal(input.document.resources), "alias/aws/")

# [position, key] where a resource the stack creates names an AWS-managed KMS key: one pass over
# the resources per place a key can be named (direct references are the cheapest test there is)
_aws_managed_refs contains [i, key] if {
	some i, r in input.document.resources
	some name in ["kmsKeyId", "kmsKeyArn"]
	key := r.inputs[name]
	_aws_managed(key)
}

_aws_managed_refs contains [i, key] if {
	some i, r in input.document.resources
	key := r.inputs.parameters.kmsKeyId
	_aws_managed(key)
}

_aws_managed_refs contains [i, key] if {
	some i, r in input.document.resources
	key := r.inputs.encryptionConfig.provider.keyArn
	_aws_managed(key)
}

_aws_managed_refs contains [i, key] if {
	some i, r in input.document.resources
	some m in resources.elements(r.inputs.blockDeviceMappings)
	key := m.ebs.kmsKeyId
	_aws_managed(key)
}

_aws_managed_refs contains [i, key] if {
	some i, r in input.document.resources
	some rule in resources.elements(r.inputs.rules)
	key := rule.applyServerSideEncryptionByDefault.kmsMasterKeyId
	_aws_managed(key)
}

_aws_managed(key) if {
	is_string(key)
	resources.aws_managed_key(key)
}

_problems contains findings.problem(b, "bucket defaults to SSE-S3 (AES256), not a customer KMS key") if {
	some i in s3.bucket_indices
	some c in s3.encryption_configs(i)
	some rule in resources.elements(c.inputs.rules)
	rule.applyServerSideEncryptionByDefault.sseAlgorithm == "AES256"
	b := input.document.resources[i]
}

# encryption rules that are unknown until apply or secret may use SSE-S3 or the AWS-managed key
_problems contains findings.problem(b, msg) if {
	some i in s3.encryption_hidden
	b := input.document.resources[i]
	msg := sprintf("bucket's default encryption rules are %s, so a customer KMS key cannot be established", [s3.hidden_encryption(i)])
}

# aws:kms (or aws:kms:dsse) without kmsMasterKeyId encrypts with the AWS-managed aws/s3 key
_problems contains findings.problem(b, "bucket defaults to SSE-KMS without a key (the AWS-managed aws/s3 key), not a customer KMS key") if {
	some i in s3.bucket_indices
	some c in s3.encryption_configs(i)
	some rule in resources.elements(c.inputs.rules)
	is_object(rule)
	startswith(object.get(rule, ["applyServerSideEncryptionByDefault", "sseAlgorithm"], ""), "aws:kms")
	object.get(rule, ["applyServerSideEncryptionByDefault", "kmsMasterKeyId"], "") == ""
	b := input.document.resources[i]
}

# an encrypted StorageClass without kmsKeyId uses the account's default (AWS-managed) EBS key
_problems contains findings.problem(sc, "StorageClass encrypts volumes with the account's default (AWS-managed) EBS key (no kmsKeyId)") if {
	some sc in resources.of_type(input.document, "kubernetes:storage.k8s.io/v1:StorageClass")
	params := object.get(sc.inputs, "parameters", {})
	is_object(params)
	resources.truthy(object.get(params, "encrypted", false))
	object.get(params, "kmsKeyId", "") == ""
}

_problems contains findings.problem(lt, msg) if {
	some i in compute.indices
	lt := input.document.resources[i]
	some m in compute.ebs_mappings(lt)
	resources.truthy(object.get(m, ["ebs", "encrypted"], false))
	object.get(m.ebs, "kmsKeyId", "") == ""
	msg := sprintf("EBS mapping %v uses the account's default (AWS-managed) EBS key", [object.get(m, "deviceName", "?")])
}

_problems contains compute.unseen_launch_problem(i, ref, "the key that encrypts its volumes") if {
	some [i, ref] in compute.unseen_launch_sources
}

# Karpenter's EC2NodeClasses: an encrypted mapping without kmsKeyID, and the AMI family's default
# volumes (encrypted, with no key named), use the account's default EBS key
_problems contains findings.problem(nc, msg) if {
	some i in karpenter.node_class_indices
	nc := input.document.resources[i]
	some m in karpenter.ebs_mappings(nc)
	resources.truthy(m.ebs.encrypted)
	object.get(m.ebs, "kmsKeyId", "") == ""
	msg := sprintf("EBS mapping %v uses the account's default (AWS-managed) EBS key (no kmsKeyID)", [m.deviceName])
}

_problems contains findings.problem(nc, msg) if {
	some i in karpenter.node_class_indices
	nc := input.document.resources[i]
	some m in karpenter.ebs_mappings(nc)
	resources.truthy(m.ebs.encrypted)
	key := object.get(m.ebs, "kmsKeyId", "")
	is_string(key)
	resources.aws_managed_key(key)
	msg := sprintf("EBS mapping %v uses the AWS-managed key %s", [m.deviceName, key])
}
