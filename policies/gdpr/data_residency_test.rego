package gdpr.data_residency_test

import data.gdpr.data_residency
import data.lib.fixtures
import data.lib.frameworks

_f(type, name, msg) := fixtures.finding("GDPR-44-1", "mandatory", type, name, msg)

_regions := concat(", ", frameworks.default_settings.gdpr_regions)

_replication(name, dest) := fixtures.bucket_part("aws:s3/bucketReplicationConfig:BucketReplicationConfig", name, "replication", {
	"role": "arn:aws:iam::111122223333:role/r",
	"rules": [{"id": "all", "status": "Enabled", "destination": {"bucket": sprintf("arn:aws:s3:::%s", [dest])}, "deleteMarkerReplication": {"status": "Enabled"}}],
})

_replica(name, region) := object.union(fixtures.bucket(name, "personal"), {"region": region})

pass_resources := [
	fixtures.bucket("ds", "personal"),
	_replication("ds", "ds-replica"),
	_replica("ds-replica", "eu-west-1"),
	fixtures.launch_template("lt", "personal", {}),
]

fail_resources := [
	fixtures.bucket("ds", "personal"),
	_replication("ds", "ds-replica"),
	_replica("ds-replica", "us-east-1"),
	fixtures.flow_log("flow", "vpc-0123456789abcdef0"),
]

test_pass_eu_stack if {
	v := data_residency.violation with input as fixtures.gate_input(fixtures.gdpr_policy, pass_resources)
	v == set()
}

test_fail_replica_outside_eu if {
	v := data_residency.violation with input as fixtures.gate_input(fixtures.gdpr_policy, fail_resources)
	v == {
		_f("aws:s3/bucket:Bucket", "ds-replica", sprintf("personal data in us-east-1, outside the GDPR transfer regions (%s)", [_regions])),
		_f("aws:s3/bucket:Bucket", "ds", sprintf("replication of personal data goes to us-east-1, outside the GDPR transfer regions (%s)", [_regions])),
	}
}

# jurisdiction branch: the China stack with GDPR forced on fails residency even though its own list allows cn-*
test_fail_china_stack_under_gdpr if {
	v := data_residency.violation with input as fixtures.gate_input(fixtures.both_cn_policy, [fixtures.launch_template("lt", "personal", {})])
	v == {_f("aws:ec2/launchTemplate:LaunchTemplate", "lt", sprintf("personal data in cn-north-1, outside the GDPR transfer regions (%s)", [_regions]))}
}

test_fail_eea_region_outside_declared_list if {
	policy := json.patch(fixtures.gdpr_policy, [{"op": "replace", "path": "/compliance/dataResidency", "value": ["eu-central-1"]}])
	v := data_residency.violation with input as fixtures.gate_input(policy, [object.union(fixtures.bucket("ds", "personal"), {"region": "eu-west-1"})])
	v == {_f("aws:s3/bucket:Bucket", "ds", "personal data in eu-west-1, outside compliance.dataResidency (eu-central-1)")}
}

# a region the document holds but does not show (a secret provider region, one unknown until apply)
# is not taken to be the stack's: the data may go anywhere
test_fail_region_not_shown if {
	secret := object.union(fixtures.bucket("ds", "personal"), {"region": "[secret]"})
	unknown := object.union(fixtures.launch_template("lt", "personal", {}), {"region": "[unknown]"})
	v := data_residency.violation with input as fixtures.gate_input(fixtures.gdpr_policy, [secret, unknown])
	v == {
		_f("aws:s3/bucket:Bucket", "ds", sprintf("personal data in a region the document does not show ([secret]), outside the GDPR transfer regions (%s)", [_regions])),
		_f("aws:ec2/launchTemplate:LaunchTemplate", "lt", sprintf("personal data in a region the document does not show ([unknown]), outside the GDPR transfer regions (%s)", [_regions])),
	}
}

test_pass_internal_data_anywhere if {
	v := data_residency.violation with input as fixtures.gate_input(fixtures.both_cn_policy, [fixtures.launch_template("lt", "internal", {})])
	v == set()
}

_backup_plan(name, vault_arn) := fixtures.resource("aws:backup/plan:Plan", name, {"rules": [{
	"ruleName": "daily",
	"schedule": "cron(0 3 * * ? *)",
	"copyActions": [{"destinationVaultArn": vault_arn}],
}]})

# audit A8: AWS Backup copies leave the EEA; a replica bucket outside the document has no known region
test_fail_backup_copy_and_undeclared_replica if {
	resources := [
		fixtures.bucket("ds", "personal"),
		_replication("ds", "analytics-us-east-1-copy"),
		_backup_plan("plan", "arn:aws:backup:us-east-1:111122223333:backup-vault:us-copy"),
		_backup_plan("eu-plan", "arn:aws:backup:eu-west-1:111122223333:backup-vault:eu-copy"),
	]
	v := data_residency.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == {
		_f("aws:backup/plan:Plan", "plan", sprintf("backup copy of personal data goes to us-east-1, outside the GDPR transfer regions (%s)", [_regions])),
		_f("aws:s3/bucket:Bucket", "ds", "replication of personal data goes to arn:aws:s3:::analytics-us-east-1-copy, whose region the stack does not establish; declare the destination in the stack or waive"),
	}
}

# audit B2: inline replication configuration is a copy too
test_fail_inline_replication_abroad if {
	bucket := object.union(fixtures.bucket("ds", "personal"), {"inputs": {"replicationConfiguration": {"role": "arn:aws:iam::111122223333:role/r", "rules": [{"status": "Enabled", "destination": {"bucket": "arn:aws:s3:::ds-replica"}}]}}})
	v := data_residency.violation with input as fixtures.gate_input(fixtures.gdpr_policy, [bucket, object.union(fixtures.bucket("ds-replica", "internal"), {"region": "us-east-1"})])
	v == {_f("aws:s3/bucket:Bucket", "ds", sprintf("replication of personal data goes to us-east-1, outside the GDPR transfer regions (%s)", [_regions]))}
}

# copies other services keep: a DynamoDB global-table replica, an EFS replication (reported on the
# file system it copies), an ECR replication of images (no data class: MLPS residency only)
test_fail_other_services_replicas_outside_eu if {
	resources := [
		fixtures.resource("aws:dynamodb/table:Table", "events", {"tags": fixtures.tags("personal"), "serverSideEncryption": {"enabled": true},
			"replicas": [{"regionName": "eu-west-1"}, {"regionName": "us-east-1"}]}),
		fixtures.resource("aws:efs/fileSystem:FileSystem", "shared", {"tags": fixtures.tags("personal"), "encrypted": true}),
		fixtures.resource("aws:efs/replicationConfiguration:ReplicationConfiguration", "shared-dr", {
			"sourceFileSystemId": "shared-0a1b2c3d", "destination": {"region": "us-west-2"}}),
		fixtures.resource("aws:ecr/replicationConfiguration:ReplicationConfiguration", "images", {
			"replicationConfiguration": {"rules": [{"destinations": [{"region": "us-east-1", "registryId": "111122223333"}]}]}}),
	]
	v := data_residency.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == {
		_f("aws:dynamodb/table:Table", "events", sprintf("global-table replica of personal data goes to us-east-1, outside the GDPR transfer regions (%s)", [_regions])),
		_f("aws:efs/fileSystem:FileSystem", "shared", sprintf("EFS replication of personal data goes to us-west-2, outside the GDPR transfer regions (%s)", [_regions])),
		# red team: ECR copies the registry's repositories, whose data class the untagged configuration
		# cannot show, so they count as personal
		_f("aws:ecr/replicationConfiguration:ReplicationConfiguration", "images", sprintf("image replication of the registry's repositories (whose data class cannot be established, so it counts as personal) goes to us-east-1, outside the GDPR transfer regions (%s)", [_regions])),
	}
}

# aws-native resources carry their data class in their own tags (a list of {key, value}, or an
# object); tags unknown until apply count as personal
test_fail_aws_native_personal_data_outside_eu if {
	listed := object.union(
		fixtures.resource("aws-native:s3:Bucket", "native", {"tags": [{"key": "data-class", "value": "Personal"}]}),
		{"region": "us-east-1"},
	)
	mapped := object.union(fixtures.resource("aws-native:dynamodb:Table", "table", {"tags": {"data-class": "personal"}}), {"region": "ap-south-1"})
	unknown := object.union(fixtures.resource("aws-native:sqs:Queue", "queue", {"tags": "[unknown]"}), {"region": "us-west-2"})
	internal := object.union(
		fixtures.resource("aws-native:s3:Bucket", "logs", {"tags": [{"key": "data-class", "value": "internal"}]}),
		{"region": "us-east-1"},
	)
	in_eu := object.union(
		fixtures.resource("aws-native:s3:Bucket", "eu", {"tags": [{"key": "data-class", "value": "personal"}]}),
		{"region": "eu-west-1"},
	)
	v := data_residency.violation with input as fixtures.gate_input(fixtures.gdpr_policy, [listed, mapped, unknown, internal, in_eu])
	v == {
		_f("aws-native:s3:Bucket", "native", sprintf("personal data in us-east-1, outside the GDPR transfer regions (%s)", [_regions])),
		_f("aws-native:dynamodb:Table", "table", sprintf("personal data in ap-south-1, outside the GDPR transfer regions (%s)", [_regions])),
		_f("aws-native:sqs:Queue", "queue", sprintf("personal data in us-west-2, outside the GDPR transfer regions (%s)", [_regions])),
	}
}

# the default transfer regions: the EEA's and those of adequacy decisions, by name (eu-* let Zurich
# and London in but not Tel Aviv or Tokyo, though all four have one); not the US or others
test_adequacy_regions_by_name if {
	every region in ["eu-west-1", "eu-north-1", "eu-south-2", "eu-central-2", "eu-west-2", "il-central-1", "ap-northeast-1", "ap-northeast-2", "ap-southeast-6", "ca-central-1"] {
		data_residency.violation == set() with input as fixtures.gate_input(_undeclared, [_in(region)])
	}
	every region in ["us-east-1", "me-central-1", "ap-southeast-1", "sa-east-1", "eu-isoe-west-1"] {
		count(data_residency.violation) == 1 with input as fixtures.gate_input(_undeclared, [_in(region)])
	}
}

_in(region) := object.union(fixtures.bucket("ds", "personal"), {"region": region})

# a policy that declares no dataResidency of its own: the transfer regions alone decide
_undeclared := json.patch(fixtures.gdpr_policy, [{"op": "replace", "path": "/compliance/dataResidency", "value": []}])

# red team: backup plan rules or copy actions (whole lists, or an item) and replication rules that
# are secret or unknown until apply may copy anywhere: judged, not an engine error, as a copy whose
# destination the document does not show
test_fail_hidden_copy_destinations if {
	every c in [
		[fixtures.resource("aws:backup/plan:Plan", "plan", {"rules": "[secret]"}), "aws:backup/plan:Plan", "plan", "backup copy", "secret"],
		[fixtures.resource("aws:backup/plan:Plan", "plan", {"rules": ["[unknown]"]}), "aws:backup/plan:Plan", "plan", "backup copy", "unknown until apply"],
		[fixtures.resource("aws:backup/plan:Plan", "plan", {"rules": [{"ruleName": "r", "copyActions": "[secret]"}]}), "aws:backup/plan:Plan", "plan", "backup copy", "secret"],
		[fixtures.resource("aws:backup/plan:Plan", "plan", {"rules": [{"ruleName": "r", "copyActions": ["[secret]"]}]}), "aws:backup/plan:Plan", "plan", "backup copy", "secret"],
		[_replication_rules("ds", "[secret]"), "aws:s3/bucket:Bucket", "ds", "replication", "secret"],
	] {
		[r, type, name, kind, why] := c
		v := data_residency.violation with input as fixtures.gate_input(fixtures.gdpr_policy, [fixtures.bucket("ds", "personal"), r])
		v == {_f(type, name, sprintf("%s of personal data goes to a destination the document does not show (%s), whose region the stack does not establish; declare the destination in the stack or waive", [kind, why]))}
	}
}

_replication_rules(name, rules) := fixtures.bucket_part("aws:s3/bucketReplicationConfig:BucketReplicationConfig", name, "replication", {"rules": rules})

# red-team F2: copies that leave through RDS automated-backup replication, log subscriptions, flow
# logs and trails writing to S3, and standalone DynamoDB table replicas
_at(r, region) := object.union(r, {"region": region})

_rds(data_class) := fixtures.resource("aws:rds/instance:Instance", "pd-db", {"engine": "postgres", "storageEncrypted": true, "tags": fixtures.tags(data_class)})

_backup_replication(arn) := _at(fixtures.resource("aws:rds/instanceAutomatedBackupsReplication:InstanceAutomatedBackupsReplication", "pd-db-bk", {"sourceDbInstanceArn": arn, "retentionPeriod": 14}), "us-east-1")

_outside_gdpr := sprintf("outside the GDPR transfer regions (%s)", [_regions])

test_fail_rds_backup_replication_abroad if {
	resources := [_rds("personal"), _backup_replication("arn:aws:rds:eu-central-1:111122223333:db:pd-db")]
	v := data_residency.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == {_f("aws:rds/instance:Instance", "pd-db", sprintf("automated-backup replication of personal data goes to us-east-1, %s", [_outside_gdpr]))}
}

# a database the document does not declare: its data class cannot be established
test_fail_rds_backup_replication_of_undeclared_database if {
	v := data_residency.violation with input as fixtures.gate_input(fixtures.gdpr_policy, [_backup_replication("arn:aws:rds:eu-central-1:111122223333:db:other")])
	v == {_f("aws:rds/instanceAutomatedBackupsReplication:InstanceAutomatedBackupsReplication", "pd-db-bk", sprintf("automated-backup replication of a database the document does not declare (whose data class cannot be established, so it counts as personal) goes to us-east-1, %s", [_outside_gdpr]))}
}

test_pass_rds_backup_replication_of_internal_database if {
	resources := [_rds("internal"), _backup_replication("arn:aws:rds:eu-central-1:111122223333:db:pd-db")]
	data_residency.violation == set() with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
}

_subscription(dest) := fixtures.resource("aws:cloudwatch/logSubscriptionFilter:LogSubscriptionFilter", "ship", {"logGroup": "/app/personal", "destinationArn": dest, "filterPattern": ""})

_personal_group := object.union(fixtures.log_group("app-logs", "personal", 30), {"inputs": {"name": "/app/personal"}})

test_fail_log_subscription_abroad if {
	resources := [_personal_group, _subscription("arn:aws:firehose:us-east-1:111122223333:deliverystream/central")]
	v := data_residency.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == {_f("aws:cloudwatch/logGroup:LogGroup", "app-logs", sprintf("log subscription of personal data goes to us-east-1, %s", [_outside_gdpr]))}
}

test_pass_log_subscription_in_the_eu if {
	resources := [_personal_group, _subscription("arn:aws:kinesis:eu-west-1:111122223333:stream/central")]
	data_residency.violation == set() with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
}

# a destination ARN unknown until apply is located by the stream, function or Logs destination of
# the stack it is tied to; tied to anything else, it is not established
_stream(region) := object.union(fixtures.resource("aws:kinesis/stream:Stream", "central", {"shardCount": 1}), {"region": region})

_tied_subscription(target) := object.union(_subscription("[unknown]"), {"property_dependencies": {"destinationArn": [target.urn]}})

test_fail_log_subscription_tied_to_a_stream_abroad if {
	stream := _stream("us-east-1")
	resources := [_personal_group, stream, _tied_subscription(stream)]
	v := data_residency.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == {_f("aws:cloudwatch/logGroup:LogGroup", "app-logs", sprintf("log subscription of personal data goes to us-east-1, %s", [_outside_gdpr]))}
}

test_pass_log_subscription_tied_to_a_stream_in_the_eu if {
	stream := _stream("eu-west-1")
	resources := [_personal_group, stream, _tied_subscription(stream)]
	data_residency.violation == set() with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
}

test_fail_log_subscription_tied_to_no_destination_type if {
	bucket := _at(fixtures.bucket("eu-logs", "internal"), "eu-west-1")
	resources := [_personal_group, bucket, _tied_subscription(bucket)]
	v := data_residency.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == {_f("aws:cloudwatch/logGroup:LogGroup", "app-logs", "log subscription of personal data goes to a destination the document does not show (unknown until apply), whose region the stack does not establish; declare the destination in the stack or waive")}
}

_flow_to(dest) := fixtures.resource("aws:ec2/flowLog:FlowLog", "fl", {
	"vpcId": "vpc-0123456789abcdef0",
	"trafficType": "ALL",
	"logDestinationType": "s3",
	"logDestination": dest,
	"tags": fixtures.tags("personal"),
})

# an S3 ARN names no region: a bucket outside the stack cannot be located; one of the stack is in its own
test_fail_flow_logs_to_s3_outside_the_stack_or_abroad if {
	trail := fixtures.trail("audit", {"s3BucketName": "us-archive", "tags": fixtures.tags("personal")})
	resources := [_flow_to("arn:aws:s3:::central-flowlogs"), trail, _at(fixtures.bucket("us-archive", "internal"), "us-east-1")]
	v := data_residency.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == {
		_f("aws:ec2/flowLog:FlowLog", "fl", "flow log delivery of personal data goes to arn:aws:s3:::central-flowlogs, whose region the stack does not establish; declare the destination in the stack or waive"),
		_f("aws:cloudtrail/trail:Trail", "audit", sprintf("trail log delivery of personal data goes to us-east-1, %s", [_outside_gdpr])),
	}
}

test_pass_flow_logs_to_a_bucket_of_the_stack if {
	resources := [_flow_to("arn:aws:s3:::flow-archive/vpc/"), fixtures.bucket("flow-archive", "internal")]
	data_residency.violation == set() with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
}

_table := fixtures.resource("aws:dynamodb/table:Table", "pd-table", {"name": "pd-table", "hashKey": "id", "tags": fixtures.tags("personal")})

_table_replica(region) := _at(object.union(
	fixtures.resource("aws:dynamodb/tableReplica:TableReplica", "pd-table-replica", {"globalTableArn": "[unknown]"}),
	{"property_dependencies": {"globalTableArn": [_table.urn]}},
), region)

test_fail_standalone_table_replica_abroad if {
	v := data_residency.violation with input as fixtures.gate_input(fixtures.gdpr_policy, [_table, _table_replica("us-east-1")])
	v == {_f("aws:dynamodb/table:Table", "pd-table", sprintf("global-table replica of personal data goes to us-east-1, %s", [_outside_gdpr]))}
}

test_pass_standalone_table_replica_in_the_eu if {
	data_residency.violation == set() with input as fixtures.gate_input(fixtures.gdpr_policy, [_table, _table_replica("eu-west-1")])
}

# an untagged log group holds the personal data a personal-data flow log writes to it
test_fail_log_subscription_of_group_receiving_personal_logs if {
	group := object.union(fixtures.log_group("flow-logs", "internal", 30), {"inputs": {"name": "/app/personal"}})
	fl := fixtures.resource("aws:ec2/flowLog:FlowLog", "fl", {
		"vpcId": "vpc-0123456789abcdef0",
		"trafficType": "ALL",
		"logDestination": "arn:aws:logs:eu-central-1:111122223333:log-group:/app/personal",
		"tags": fixtures.tags("personal"),
	})
	resources := [group, fl, _subscription("arn:aws:lambda:us-west-2:111122223333:function:ship")]
	v := data_residency.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == {_f("aws:cloudwatch/logGroup:LogGroup", "flow-logs", sprintf("log subscription of personal data goes to us-west-2, %s", [_outside_gdpr]))}
}

# a personal flow log's log group unknown until apply and tied to nothing may be anywhere
test_fail_hidden_log_group_of_personal_flow_log if {
	fl := fixtures.resource("aws:ec2/flowLog:FlowLog", "fl", {"vpcId": "vpc-0123456789abcdef0", "trafficType": "ALL", "logDestination": "[unknown]", "tags": fixtures.tags("personal")})
	v := data_residency.violation with input as fixtures.gate_input(fixtures.gdpr_policy, [fl])
	v == {_f("aws:ec2/flowLog:FlowLog", "fl", "flow log delivery of personal data goes to a destination the document does not show (unknown until apply), whose region the stack does not establish; declare the destination in the stack or waive")}
}

# a subscription to the group a personal-data Lambda function writes to, which the stack does not
# declare: the data is the function's
test_fail_log_subscription_of_undeclared_function_group if {
	fn := fixtures.resource("aws:lambda/function:Function", "scorer", {"name": "scorer", "tags": fixtures.tags("personal")})
	sub := json.patch(_subscription("arn:aws:lambda:us-west-2:111122223333:function:ship"), [{"op": "replace", "path": "/inputs/logGroup", "value": "/aws/lambda/scorer"}])
	v := data_residency.violation with input as fixtures.gate_input(fixtures.gdpr_policy, [fn, sub])
	v == {_f("aws:lambda/function:Function", "scorer", sprintf("log subscription of personal data goes to us-west-2, %s", [_outside_gdpr]))}
}

test_pass_log_subscription_of_undeclared_internal_function_group if {
	fn := fixtures.resource("aws:lambda/function:Function", "scorer", {"name": "scorer", "tags": fixtures.tags("internal")})
	sub := json.patch(_subscription("arn:aws:lambda:us-west-2:111122223333:function:ship"), [{"op": "replace", "path": "/inputs/logGroup", "value": "/aws/lambda/scorer"}])
	data_residency.violation == set() with input as fixtures.gate_input(fixtures.gdpr_policy, [fn, sub])
}

# red team: logs AWS writes to a group in another region leave with the data: an ECS container's
# awslogs-region, an API Gateway stage's destination ARN; an aws-native ECR replication copies too.
# Logs kept in the resource's own region are not a copy.
test_fail_logs_and_images_sent_abroad if {
	task := fixtures.resource("aws:ecs/taskDefinition:TaskDefinition", "task", {
		"family": "scorer",
		"containerDefinitions": json.marshal([
			{"name": "app", "image": "scorer:1", "logConfiguration": {"logDriver": "awslogs", "options": {"awslogs-group": "/ecs/app", "awslogs-region": "us-east-1"}}},
			{"name": "local", "image": "scorer:1", "logConfiguration": {"logDriver": "awslogs", "options": {"awslogs-group": "/ecs/local"}}},
		]),
		"tags": fixtures.tags("personal"),
	})
	stage := fixtures.resource("aws:apigatewayv2/stage:Stage", "stage", {
		"name": "prod",
		"accessLogSettings": {"destinationArn": "arn:aws:logs:us-west-2:111122223333:log-group:api-access:*", "format": "$context.requestId"},
		"tags": fixtures.tags("personal"),
	})
	internal := object.union(task, {"name": "internal-task", "urn": "urn:pulumi:eu-prod::seedance::aws:ecs/taskDefinition:TaskDefinition::internal-task", "inputs": object.union(task.inputs, {"tags": fixtures.tags("internal")})})
	images := fixtures.resource("aws-native:ecr:ReplicationConfiguration", "images", {
		"replicationConfiguration": {"rules": [{"destinations": [{"region": "us-east-1", "registryId": "111122223333"}]}]},
	})
	v := data_residency.violation with input as fixtures.gate_input(fixtures.gdpr_policy, [task, stage, internal, images])
	v == {
		_f("aws:ecs/taskDefinition:TaskDefinition", "task", sprintf("ECS container log delivery (app) of personal data goes to us-east-1, outside the GDPR transfer regions (%s)", [_regions])),
		_f("aws:apigatewayv2/stage:Stage", "stage", sprintf("API Gateway access log delivery of personal data goes to us-west-2, outside the GDPR transfer regions (%s)", [_regions])),
		_f("aws-native:ecr:ReplicationConfiguration", "images", sprintf("image replication of the registry's repositories (whose data class cannot be established, so it counts as personal) goes to us-east-1, outside the GDPR transfer regions (%s)", [_regions])),
	}
}

# red team (stop 34): a stage's destination ARN unknown until apply, tied by its dependency to a log
# group of the document in another region, sends its logs there
test_fail_access_logs_to_a_tied_group_abroad if {
	group := object.union(fixtures.log_group("api-access", "internal", 365), {"region": "us-east-1"})
	stage := object.union(fixtures.resource("aws:apigatewayv2/stage:Stage", "stage", {
		"name": "prod",
		"accessLogSettings": {"destinationArn": "[unknown]", "format": "$context.requestId"},
		"tags": fixtures.tags("personal"),
	}), {"property_dependencies": {"accessLogSettings": [group.urn]}})
	v := data_residency.violation with input as fixtures.gate_input(fixtures.gdpr_policy, [group, stage])
	{[f.resource_name, f.message] | some f in v} == {["stage", sprintf("API Gateway access log delivery of personal data goes to us-east-1, outside the GDPR transfer regions (%s)", [_regions])]}
}
