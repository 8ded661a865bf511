package gdpr.encryption_at_rest_test

import data.gdpr.encryption_at_rest
import data.lib.fixtures

_f(type, name, msg) := fixtures.finding("GDPR-32.1a-1", "mandatory", type, name, msg)

pass_resources := array.concat(fixtures.good_bucket("ds", "personal"), [
	fixtures.launch_template("lt", "personal", {}),
	fixtures.storage_class("general", "personal", {}),
	fixtures.storage_class("scratch", "internal", {"provisioner": "kubernetes.io/no-provisioner", "parameters": {}}),
	fixtures.log_group("app", "personal", 90),
	fixtures.resource("aws:ebs/volume:Volume", "vol", {"encrypted": true, "size": 10}),
])

fail_resources := [
	fixtures.bucket("plain", "internal"),
	fixtures.launch_template("lt", "personal", {"blockDeviceMappings": [
		{"deviceName": "/dev/xvda", "ebs": {"encrypted": "false"}},
		{"deviceName": "/dev/xvdb", "ebs": {"encrypted": "true"}},
	]}),
	fixtures.storage_class("general", "personal", {"parameters": {"type": "gp3", "encrypted": "false"}}),
	fixtures.resource("aws:cloudwatch/logGroup:LogGroup", "app", {"retentionInDays": 30}),
	fixtures.resource("aws:ebs/volume:Volume", "vol", {"size": 10}),
]

test_pass_everything_encrypted if {
	v := encryption_at_rest.violation with input as fixtures.gate_input(fixtures.gdpr_policy, pass_resources)
	v == set()
}

test_fail_unencrypted_storage if {
	v := encryption_at_rest.violation with input as fixtures.gate_input(fixtures.gdpr_policy, fail_resources)
	v == {
		_f("aws:s3/bucket:Bucket", "plain", "bucket has no default encryption with aws:kms (SSE-KMS)"),
		_f("aws:ec2/launchTemplate:LaunchTemplate", "lt", "EBS mapping /dev/xvda is not encrypted"),
		_f("aws:ec2/launchTemplate:LaunchTemplate", "lt", "personal-data EBS mapping /dev/xvdb is encrypted with the AWS-managed default key, not a customer KMS key"),
		_f("kubernetes:storage.k8s.io/v1:StorageClass", "general", "EBS StorageClass does not set parameters.encrypted \"true\""),
		_f("aws:cloudwatch/logGroup:LogGroup", "app", "log group is not encrypted with a KMS key (kmsKeyId)"),
		_f("aws:ebs/volume:Volume", "vol", "EBS volume is not encrypted"),
	}
}

# an EC2 instance checked like a launch template (audit A2)
_instance(inputs) := fixtures.resource("aws:ec2/instance:Instance", "box", object.union(
	{
		"tags": fixtures.tags("personal"),
		"instanceType": "g5.xlarge",
		"rootBlockDevice": {"encrypted": true, "deleteOnTermination": true, "kmsKeyId": "arn:aws:kms:eu-central-1:111122223333:key/k"},
		"metadataOptions": {"httpTokens": "required"},
	},
	inputs,
))

_weak_instance := _instance({
	"associatePublicIpAddress": true,
	"keyName": "ops-key",
	"metadataOptions": {"httpTokens": "optional"},
	"rootBlockDevice": {"encrypted": false, "deleteOnTermination": false},
	"userData": "#!/bin/sh\nexport DB_PASSWORD=hunter2\n",
})

test_pass_encrypted_instance if {
	v := encryption_at_rest.violation with input as fixtures.gate_input(fixtures.gdpr_policy, [_instance({})])
	v == set()
}

# audit A2: an instance's root volume and extra EBS volumes
test_fail_instance_volumes if {
	instance := _instance({
		"rootBlockDevice": {"encrypted": false},
		"ebsBlockDevices": [{"deviceName": "/dev/sdf", "encrypted": true}],
	})
	v := encryption_at_rest.violation with input as fixtures.gate_input(fixtures.gdpr_policy, [instance])
	v == {
		fixtures.finding("GDPR-32.1a-1", "mandatory", "aws:ec2/instance:Instance", "box", "EBS mapping root is not encrypted"),
		fixtures.finding("GDPR-32.1a-1", "mandatory", "aws:ec2/instance:Instance", "box", "personal-data EBS mapping /dev/sdf is encrypted with the AWS-managed default key, not a customer KMS key"),
	}
}

# audit B2: the *V2 configuration types and inline bucket configuration count
test_pass_v2_and_inline_bucket_encryption if {
	kms := {"applyServerSideEncryptionByDefault": {"sseAlgorithm": "aws:kms", "kmsMasterKeyId": "arn:aws:kms:eu-central-1:111122223333:key/k"}}
	resources := [
		fixtures.bucket("v2", "personal"),
		fixtures.bucket_part("aws:s3/bucketServerSideEncryptionConfigurationV2:BucketServerSideEncryptionConfigurationV2", "v2", "sse", {"rules": [kms]}),
		object.union(fixtures.bucket("inline", "personal"), {"inputs": {"serverSideEncryptionConfiguration": {"rule": kms}}}),
	]
	v := encryption_at_rest.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == set()
}
