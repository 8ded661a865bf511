package mlps.data_residency_test

import data.mlps.data_residency
import data.lib.fixtures

test_pass_china_stack if {
	v := data_residency.violation with input as fixtures.gate_input(fixtures.mlps_policy, [fixtures.bucket("ds", "personal"), fixtures.launch_template("lt", "internal", {})])
	v == set()
}

# jurisdiction branch: the EU stack with MLPS forced on fails residency
test_fail_eu_stack_under_mlps if {
	v := data_residency.violation with input as fixtures.gate_input(fixtures.both_eu_policy, [fixtures.bucket("ds", "internal")])
	v == {fixtures.finding("MLPS-L3-8.2.4-DIC-a", "mandatory", "aws:s3/bucket:Bucket", "ds", "resource in eu-central-1, outside mainland China (cn-north-1, cn-northwest-1)")}
}

test_fail_log_destination_abroad if {
	fl := fixtures.resource("aws:ec2/flowLog:FlowLog", "flow", {"vpcId": "vpc-0123456789abcdef0", "logDestination": "arn:aws:logs:ap-east-1:1:log-group:flow"})
	v := data_residency.violation with input as fixtures.gate_input(fixtures.mlps_policy, [fl])
	v == {fixtures.finding("MLPS-L3-8.2.4-DIC-a", "mandatory", "aws:ec2/flowLog:FlowLog", "flow", "flow log delivery goes to ap-east-1, outside mainland China")}
}

_backup_plan(name, vault_arn) := fixtures.resource("aws:backup/plan:Plan", name, {"rules": [{
	"ruleName": "daily",
	"schedule": "cron(0 3 * * ? *)",
	"copyActions": [{"destinationVaultArn": vault_arn}],
}]})

_replication(dest) := fixtures.bucket_part("aws:s3/bucketReplicationConfig:BucketReplicationConfig", "ds", "replication", {
	"rules": [{"id": "all", "status": "Enabled", "destination": {"bucket": dest}}],
})

# audit A8: a backup copy abroad, and replicas outside the document: only an aws-cn ARN stays in China
test_fail_backup_copy_abroad_and_unknown_replica_region if {
	resources := [
		fixtures.bucket("ds", "personal"),
		_replication("arn:aws:s3:::global-copy"),
		_backup_plan("plan", "arn:aws-cn:backup:ap-east-1:444455556666:backup-vault:hk"),
	]
	v := data_residency.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == {
		fixtures.finding("MLPS-L3-8.2.4-DIC-a", "mandatory", "aws:backup/plan:Plan", "plan", "backup copy goes to ap-east-1, outside mainland China"),
		fixtures.finding("MLPS-L3-8.2.4-DIC-a", "mandatory", "aws:s3/bucket:Bucket", "ds", "replication goes to arn:aws:s3:::global-copy, whose region the stack does not establish (not an aws-cn ARN)"),
	}
}

test_pass_replica_outside_document_in_aws_cn if {
	resources := [fixtures.bucket("ds", "personal"), _replication("arn:aws-cn:s3:::existing-dr-bucket")]
	v := data_residency.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == set()
}

# test audit: a trail's CloudWatch Logs delivery is a destination too
_trail_to(group_arn) := fixtures.trail("audit", {"kmsKeyId": "arn:aws-cn:kms:cn-north-1:111122223333:key/k", "cloudWatchLogsGroupArn": group_arn})

test_fail_trail_log_delivery_abroad if {
	v := data_residency.violation with input as fixtures.gate_input(fixtures.mlps_policy, [_trail_to("arn:aws:logs:ap-east-1:1:log-group:trail:*")])
	v == {fixtures.finding("MLPS-L3-8.2.4-DIC-a", "mandatory", "aws:cloudtrail/trail:Trail", "audit", "trail log delivery goes to ap-east-1, outside mainland China")}
}

test_pass_trail_log_delivery_in_china if {
	v := data_residency.violation with input as fixtures.gate_input(fixtures.mlps_policy, [_trail_to("arn:aws-cn:logs:cn-northwest-1:1:log-group:trail:*")])
	v == set()
}

test_fail_image_and_table_replicas_abroad if {
	resources := [
		fixtures.resource("aws:ecr/replicationConfiguration:ReplicationConfiguration", "images", {
			"replicationConfiguration": {"rules": [{"destinations": [{"region": "ap-east-1", "registryId": "111122223333"}]}]}}),
		fixtures.resource("aws:dynamodb/table:Table", "events", {"replicas": [{"regionName": "cn-northwest-1"}]}),
	]
	v := data_residency.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == {fixtures.finding("MLPS-L3-8.2.4-DIC-a", "mandatory", "aws:ecr/replicationConfiguration:ReplicationConfiguration", "images", "image replication goes to ap-east-1, outside mainland China")}
}

# red team: backup plan rules and replication rules that are secret or unknown until apply may copy
# out of China: judged, not an engine error, as a copy whose destination the document does not show
test_fail_hidden_copy_destinations_mlps if {
	every c in [
		[fixtures.resource("aws:backup/plan:Plan", "plan", {"rules": "[unknown]"}), "aws:backup/plan:Plan", "plan", "backup copy", "unknown until apply"],
		[fixtures.resource("aws:backup/plan:Plan", "plan", {"rules": [{"ruleName": "r", "copyActions": "[secret]"}]}), "aws:backup/plan:Plan", "plan", "backup copy", "secret"],
		[fixtures.bucket_part("aws:s3/bucketReplicationConfig:BucketReplicationConfig", "ds", "replication", {"rules": "[secret]"}), "aws:s3/bucket:Bucket", "ds", "replication", "secret"],
	] {
		[r, type, name, kind, why] := c
		v := data_residency.violation with input as fixtures.gate_input(fixtures.mlps_policy, [fixtures.bucket("ds", "personal"), r])
		v == {fixtures.finding("MLPS-L3-8.2.4-DIC-a", "mandatory", type, name, sprintf("%s goes to a destination the document does not show (%s), whose region the stack does not establish (not an aws-cn ARN)", [kind, why]))}
	}
}

# red-team F14: aws-native resources, tagged or not, are held to mainland China as pulumi-aws ones are
test_fail_aws_native_outside_china if {
	tagged := object.union(
		fixtures.resource("aws-native:s3:Bucket", "native", {"tags": [{"key": "data-class", "value": "personal"}]}),
		{"region": "ap-east-1"},
	)
	untagged := object.union(fixtures.resource("aws-native:rds:DbInstance", "db", {"engine": "postgres"}), {"region": "us-east-1"})
	v := data_residency.violation with input as fixtures.gate_input(fixtures.mlps_policy, [tagged, untagged])
	v == {
		fixtures.finding("MLPS-L3-8.2.4-DIC-a", "mandatory", "aws-native:s3:Bucket", "native", "resource in ap-east-1, outside mainland China (cn-north-1, cn-northwest-1)"),
		fixtures.finding("MLPS-L3-8.2.4-DIC-a", "mandatory", "aws-native:rds:DbInstance", "db", "resource in us-east-1, outside mainland China (cn-north-1, cn-northwest-1)"),
	}
}

test_pass_aws_native_in_china if {
	in_cn := object.union(
		fixtures.resource("aws-native:s3:Bucket", "native", {"tags": [{"key": "data-class", "value": "personal"}]}),
		{"region": "cn-northwest-1"},
	)
	defaulted := fixtures.resource("aws-native:rds:DbInstance", "db", {"engine": "postgres"})
	data_residency.violation == set() with input as fixtures.gate_input(fixtures.mlps_policy, [in_cn, defaulted])
}

# red-team F2: log subscriptions and S3 log deliveries are destinations too; a bucket outside the
# stack that a flow log or trail of a China region writes to is in the aws-cn partition
test_fail_log_subscription_outside_china if {
	f := fixtures.resource("aws:cloudwatch/logSubscriptionFilter:LogSubscriptionFilter", "ship", {"logGroup": "/app/logs", "destinationArn": "arn:aws:firehose:ap-east-1:1:deliverystream/hk"})
	v := data_residency.violation with input as fixtures.gate_input(fixtures.mlps_policy, [f])
	v == {fixtures.finding("MLPS-L3-8.2.4-DIC-a", "mandatory", "aws:cloudwatch/logSubscriptionFilter:LogSubscriptionFilter", "ship", "log subscription goes to ap-east-1, outside mainland China")}
}

test_pass_log_buckets_outside_the_stack_in_aws_cn if {
	fl := fixtures.resource("aws:ec2/flowLog:FlowLog", "fl", {"vpcId": "vpc-0123456789abcdef0", "trafficType": "ALL", "logDestinationType": "s3", "logDestination": "arn:aws-cn:s3:::org-flow-logs"})
	trail := fixtures.trail("audit", {"s3BucketName": "org-trail-archive", "kmsKeyId": "arn:aws-cn:kms:cn-north-1:111122223333:key/k"})
	data_residency.violation == set() with input as fixtures.gate_input(fixtures.mlps_policy, [fl, trail])
}

# a flow log's log group unknown until apply and tied to nothing: in the flow log's partition (aws-cn)
test_pass_hidden_log_group_in_china if {
	fl := fixtures.resource("aws:ec2/flowLog:FlowLog", "fl", {"vpcId": "vpc-0123456789abcdef0", "trafficType": "ALL", "logDestination": "[unknown]"})
	data_residency.violation == set() with input as fixtures.gate_input(fixtures.mlps_policy, [fl])
}
