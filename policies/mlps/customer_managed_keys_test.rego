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
