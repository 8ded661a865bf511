package mlps.customer_managed_keys_test

import data.mlps.customer_managed_keys
import data.lib.fixtures

_f(type, name, msg) := fixtures.finding("MLPS-L3-8.2.4-KMS", "advisory", type, name, msg)

test_pass_customer_keys if {
	v := customer_managed_keys.violation with input as fixtures.gate_input(fixtures.mlps_policy, array.concat(fixtures.good_bucket("ds", "internal"), [fixtures.launch_template("lt", "internal", {})]))
	v == set()
}

test_fail_aws_managed_keys if {
	sse := fixtures.bucket_part("aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration", "ds", "sse", {"rules": [{"applyServerSideEncryptionByDefault": {"sseAlgorithm": "AES256"}}]})
	lg := fixtures.resource("aws:cloudwatch/logGroup:LogGroup", "app", {"kmsKeyId": "arn:aws-cn:kms:cn-north-1:1:alias/aws/logs", "retentionInDays": 365})
	lt := fixtures.launch_template("lt", "internal", {"blockDeviceMappings": [{"deviceName": "/dev/xvda", "ebs": {"encrypted": "true", "deleteOnTermination": "true"}}]})
	v := customer_managed_keys.violation with input as fixtures.gate_input(fixtures.mlps_policy, [fixtures.bucket("ds", "internal"), sse, lg, lt])
	v == {
		_f("aws:s3/bucket:Bucket", "ds", "bucket defaults to SSE-S3 (AES256), not a customer KMS key"),
		_f("aws:cloudwatch/logGroup:LogGroup", "app", "uses the AWS-managed key arn:aws-cn:kms:cn-north-1:1:alias/aws/logs instead of a customer-managed key"),
		_f("aws:ec2/launchTemplate:LaunchTemplate", "lt", "EBS mapping /dev/xvda uses the account's default (AWS-managed) EBS key"),
	}
}

# audit A2: an instance volume encrypted with the account's default key
test_fail_instance_default_ebs_key if {
	instance := fixtures.resource("aws:ec2/instance:Instance", "box", {"rootBlockDevice": {"encrypted": true, "deleteOnTermination": true}})
	v := customer_managed_keys.violation with input as fixtures.gate_input(fixtures.mlps_policy, [instance])
	v == {fixtures.finding("MLPS-L3-8.2.4-KMS", "advisory", "aws:ec2/instance:Instance", "box", "EBS mapping root uses the account's default (AWS-managed) EBS key")}
}

# test audit: every place an AWS-managed key can be named (StorageClass parameters, EKS
# encryptionConfig, launch-template block devices, S3 default encryption)
_cmk := "arn:aws-cn:kms:cn-north-1:111122223333:key/k"

_key_holders(ebs_key, sc_key, eks_key, s3_key) := [
	fixtures.storage_class("gp3", "internal", {"parameters": {"type": "gp3", "encrypted": "true", "kmsKeyId": sc_key}}),
	fixtures.resource("aws:eks/cluster:Cluster", "eks", {"encryptionConfig": {"provider": {"keyArn": eks_key}, "resources": ["secrets"]}}),
	fixtures.launch_template("lt", "internal", {"blockDeviceMappings": [{"deviceName": "/dev/xvda", "ebs": {"encrypted": "true", "kmsKeyId": ebs_key}}]}),
	fixtures.bucket("ds", "internal"),
	fixtures.bucket_part("aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration", "ds", "sse", {"rules": [{"applyServerSideEncryptionByDefault": {"sseAlgorithm": "aws:kms", "kmsMasterKeyId": s3_key}}]}),
]

test_fail_aws_managed_key_in_every_place if {
	resources := _key_holders("alias/aws/ebs", "arn:aws-cn:kms:cn-north-1:1:alias/aws/ebs", "alias/aws/eks", "alias/aws/s3")
	v := customer_managed_keys.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == {
		_f("kubernetes:storage.k8s.io/v1:StorageClass", "gp3", "uses the AWS-managed key arn:aws-cn:kms:cn-north-1:1:alias/aws/ebs instead of a customer-managed key"),
		_f("aws:eks/cluster:Cluster", "eks", "uses the AWS-managed key alias/aws/eks instead of a customer-managed key"),
		_f("aws:ec2/launchTemplate:LaunchTemplate", "lt", "uses the AWS-managed key alias/aws/ebs instead of a customer-managed key"),
		_f("aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration", "ds-sse", "uses the AWS-managed key alias/aws/s3 instead of a customer-managed key"),
	}
}

test_pass_customer_key_in_every_place if {
	v := customer_managed_keys.violation with input as fixtures.gate_input(fixtures.mlps_policy, _key_holders(_cmk, _cmk, _cmk, _cmk))
	v == set()
}

# audit D: aws:kms without kmsMasterKeyId and an encrypted StorageClass without kmsKeyId use
# AWS-managed keys
_sse(algorithm, key) := fixtures.bucket_part("aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration", "ds", "sse", {"rules": [{"applyServerSideEncryptionByDefault": object.union({"sseAlgorithm": algorithm}, key)}]})

test_fail_sse_kms_and_storage_class_without_key if {
	resources := [
		fixtures.bucket("ds", "internal"),
		_sse("aws:kms", {}),
		fixtures.storage_class("general", "internal", {"parameters": {"type": "gp3", "encrypted": "true"}}),
	]
	v := customer_managed_keys.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == {
		_f("aws:s3/bucket:Bucket", "ds", "bucket defaults to SSE-KMS without a key (the AWS-managed aws/s3 key), not a customer KMS key"),
		_f("kubernetes:storage.k8s.io/v1:StorageClass", "general", "StorageClass encrypts volumes with the account's default (AWS-managed) EBS key (no kmsKeyId)"),
	}
}

test_fail_dsse_kms_with_empty_key if {
	v := customer_managed_keys.violation with input as fixtures.gate_input(fixtures.mlps_policy, [fixtures.bucket("ds", "internal"), _sse("aws:kms:dsse", {"kmsMasterKeyId": ""})])
	v == {_f("aws:s3/bucket:Bucket", "ds", "bucket defaults to SSE-KMS without a key (the AWS-managed aws/s3 key), not a customer KMS key")}
}

test_pass_sse_kms_and_storage_class_with_customer_key if {
	resources := [
		fixtures.bucket("ds", "internal"),
		_sse("aws:kms", {"kmsMasterKeyId": _cmk}),
		fixtures.storage_class("general", "internal", {"parameters": {"type": "gp3", "encrypted": "true", "kmsKeyId": _cmk}}),
		fixtures.storage_class("scratch", "internal", {"provisioner": "kubernetes.io/no-provisioner", "parameters": null}),
	]
	v := customer_managed_keys.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == set()
}

# Karpenter's EC2NodeClass: encrypted volumes without kmsKeyID (the family's defaults too) use the
# account's default EBS key
test_karpenter_node_class_keys if {
	resources := [
		fixtures.node_class("defaults", fixtures.node_class_defaults),
		fixtures.node_class("own-key", object.union(fixtures.node_class_defaults, {"blockDeviceMappings": [
			{"deviceName": "/dev/xvda", "ebs": {"volumeSize": "200Gi", "encrypted": true, "kmsKeyID": "arn:aws-cn:kms:cn-north-1:111122223333:key/abc"}},
		]})),
	]
	all := customer_managed_keys.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v := {f | some f in all; f.resource_type == fixtures.node_class_type}
	v == {_f(fixtures.node_class_type, "defaults", "EBS mapping the AMI family's default volumes uses the account's default (AWS-managed) EBS key (no kmsKeyID)")}
}

# the AWS-managed EBS key named outright, by alias or alias ARN
test_karpenter_node_class_aws_managed_key_by_name if {
	resources := [fixtures.node_class("aws-key", object.union(fixtures.node_class_defaults, {"blockDeviceMappings": [
		{"deviceName": "/dev/xvda", "ebs": {"volumeSize": "100Gi", "encrypted": true, "kmsKeyID": "alias/aws/ebs"}},
		{"deviceName": "/dev/xvdb", "ebs": {"volumeSize": "100Gi", "encrypted": true, "kmsKeyID": "arn:aws-cn:kms:cn-north-1:444455556666:alias/aws/ebs"}},
	]}))]
	all := customer_managed_keys.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v := {f | some f in all; f.resource_type == fixtures.node_class_type}
	v == {
		_f(fixtures.node_class_type, "aws-key", "EBS mapping /dev/xvda uses the AWS-managed key alias/aws/ebs"),
		_f(fixtures.node_class_type, "aws-key", "EBS mapping /dev/xvdb uses the AWS-managed key arn:aws-cn:kms:cn-north-1:444455556666:alias/aws/ebs"),
	}
}

# a group launching from a launch template the document does not hold (another stack's, an
# aws-native one, an id unknown until apply) cannot be checked and is reported; one launching from
# the document's template is judged by that template
# whatever the data class
test_fail_a_group_launching_from_a_template_the_document_lacks_customer_managed_keys if {
	lt := object.union(fixtures.launch_template("lt", "public", {}), {"id": "lt-0cccccccccccccccc"})
	v := customer_managed_keys.violation with input as fixtures.gate_input(fixtures.mlps_policy, [
		lt,
		_unseen_group("own", "public", "lt-0cccccccccccccccc"),
		_unseen_group("other", "public", "lt-0bbbbbbbbbbbbbbbb"),
	])
	v == {_f("aws:autoscaling/group:Group", "other", "group launches from lt-0bbbbbbbbbbbbbbbb, which is not in the document: the key that encrypts its volumes cannot be checked")}
}

_unseen_group(name, data_class, ref) := fixtures.resource("aws:autoscaling/group:Group", name, {
	"maxSize": 2, "launchTemplate": {"id": ref, "version": "$Latest"},
	"tags": [{"key": "data-class", "value": data_class, "propagateAtLaunch": true}],
})

# red team: default encryption rules that are secret or unknown until apply may use SSE-S3 or the
# AWS-managed key: judged, not an engine error, saying why
test_fail_hidden_bucket_encryption_rules_mlps if {
	every c in [["[secret]", "secret"], ["[unknown]", "unknown until apply"]] {
		[rules, why] := c
		sse := fixtures.bucket_part("aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration", "ds", "sse", {"rules": rules})
		v := customer_managed_keys.violation with input as fixtures.gate_input(fixtures.mlps_policy, [fixtures.bucket("ds", "internal"), sse])
		v == {_f("aws:s3/bucket:Bucket", "ds", sprintf("bucket's default encryption rules are %s, so a customer KMS key cannot be established", [why]))}
	}
}
