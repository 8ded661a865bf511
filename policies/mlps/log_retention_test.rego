package mlps.log_retention_test

import data.mlps.log_retention
import data.lib.fixtures

_lifecycle(days) := fixtures.bucket_part("aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration", "audit-logs", "lifecycle", {"rules": [{"id": "x", "status": "Enabled", "expiration": {"days": days}}]})

test_pass_six_months_or_more if {
	resources := [fixtures.log_group("flow", "internal", 365), fixtures.log_group("forever", "internal", 0), fixtures.trail("audit", {}), fixtures.bucket("audit-logs", "internal"), _lifecycle(400)]
	v := log_retention.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == set()
}

test_fail_short_retention if {
	resources := [fixtures.log_group("flow", "personal", 90), fixtures.trail("audit", {}), fixtures.bucket("audit-logs", "internal"), _lifecycle(90)]
	v := log_retention.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == {
		fixtures.finding("MLPS-L3-8.1.5.4d", "mandatory", "aws:cloudwatch/logGroup:LogGroup", "flow", "log group keeps logs 90 days; at least 180 required (365 is the safe CloudWatch value)"),
		fixtures.finding("MLPS-L3-8.1.5.4d", "mandatory", "aws:s3/bucket:Bucket", "audit-logs", "audit log archive expires after 90 days; six months needs at least 183"),
	}
}

# jurisdiction branch: a GDPR stack (EU) keeps 90-day logs, which the Chinese minimum rejects once MLPS applies
test_pass_eu_gdpr_only_short_logs if {
	v := log_retention.violation with input as fixtures.gate_input(fixtures.gdpr_policy, [fixtures.log_group("flow", "personal", 90)])
	v == set()
}

# settings in data.seedance.settings override the defaults (here a stricter one-year minimum)
test_fail_with_a_stricter_minimum_from_data if {
	resources := [fixtures.log_group("flow", "internal", 180)]
	v := log_retention.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
		with data.seedance.settings as {"mlps_min_log_days": 365}
	v == {fixtures.finding("MLPS-L3-8.1.5.4d", "mandatory", "aws:cloudwatch/logGroup:LogGroup", "flow", "log group keeps logs 180 days; at least 365 required (365 is the safe CloudWatch value)")}
}

test_pass_default_minimum_without_settings if {
	resources := [fixtures.log_group("flow", "internal", 180)]
	v := log_retention.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == set()
}

# audit A12: buckets receiving flow logs, load-balancer access logs and S3 access logs are network log archives
test_fail_network_log_archives if {
	resources := [
		fixtures.resource("aws:ec2/flowLog:FlowLog", "flow", {"vpcId": "vpc-0123456789abcdef0", "logDestinationType": "s3", "logDestination": "arn:aws-cn:s3:::flow-archive/flow-logs/"}),
		fixtures.bucket("flow-archive", "internal"),
		fixtures.bucket_part("aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration", "flow-archive", "lifecycle", {"rules": [{"id": "x", "status": "Enabled", "expiration": {"days": 30}}]}),
		fixtures.resource("aws:lb/loadBalancer:LoadBalancer", "alb", {"accessLogs": {"bucket": "lb-archive", "enabled": true}}),
		fixtures.bucket("lb-archive", "internal"),
		fixtures.bucket_part("aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration", "lb-archive", "lifecycle", {"rules": [{"id": "x", "status": "Enabled", "filter": {"prefix": "AWSLogs/"}, "expiration": {"days": 90}}]}),
		fixtures.bucket_part("aws:s3/bucketLogging:BucketLogging", "data", "logging", {"targetBucket": "access-archive"}),
		fixtures.bucket("access-archive", "internal"),
		fixtures.bucket_part("aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration", "access-archive", "lifecycle", {"rules": [{"id": "x", "status": "Enabled", "expiration": {"days": 400}}]}),
	]
	v := log_retention.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == {
		fixtures.finding("MLPS-L3-8.1.5.4d", "mandatory", "aws:s3/bucket:Bucket", "flow-archive", "network log archive expires after 30 days; six months needs at least 183"),
		fixtures.finding("MLPS-L3-8.1.5.4d", "mandatory", "aws:s3/bucket:Bucket", "lb-archive", "network log archive expires after 90 days; six months needs at least 183"),
	}
}

# BucketV2's inline loggings list names an access-log archive too
test_fail_inline_loggings_archive if {
	resources := [
		fixtures.resource("aws:s3/bucketV2:BucketV2", "src", {"bucket": "src", "loggings": [{"targetBucket": "v2-archive", "targetPrefix": "src/"}], "tags": fixtures.tags("internal")}),
		fixtures.bucket("v2-archive", "internal"),
		fixtures.bucket_part("aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration", "v2-archive", "lifecycle", {"rules": [{"id": "x", "status": "Enabled", "expiration": {"days": 60}}]}),
	]
	v := log_retention.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == {fixtures.finding("MLPS-L3-8.1.5.4d", "mandatory", "aws:s3/bucket:Bucket", "v2-archive", "network log archive expires after 60 days; six months needs at least 183")}
}

# audit A14: a retention unknown until apply is not six months
test_fail_unknown_log_retention_mlps if {
	v := log_retention.violation with input as fixtures.gate_input(fixtures.mlps_policy, [fixtures.log_group("flow", "internal", "[unknown]")])
	v == {fixtures.finding("MLPS-L3-8.1.5.4d", "mandatory", "aws:cloudwatch/logGroup:LogGroup", "flow", "log group retention [unknown] cannot be established; at least 180 days required")}
}

# red team: an audit-log archive whose lifecycle rules, a rule, or a rule's expiration days are secret
# or unknown until apply may expire logs within six months (as a log group's retention is judged)
test_fail_hidden_archive_expiration if {
	every c in [
		[{"rules": [{"id": "x", "status": "Enabled", "expiration": {"days": "[secret]"}}]}, "secret"],
		[{"rules": [{"id": "x", "status": "Enabled", "expiration": {"days": "[unknown]"}}]}, "unknown until apply"],
		[{"rules": [{"id": "x", "status": "Enabled", "expiration": "[secret]"}]}, "secret"],
		[{"rules": "[secret]"}, "secret"],
		[{"rules": ["[secret]"]}, "secret"],
	] {
		lifecycle := fixtures.bucket_part("aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration", "audit-logs", "lifecycle", c[0])
		resources := [fixtures.trail("audit", {}), fixtures.bucket("audit-logs", "internal"), lifecycle]
		v := log_retention.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
		v == {fixtures.finding("MLPS-L3-8.1.5.4d", "mandatory", "aws:s3/bucket:Bucket", "audit-logs", sprintf("audit log archive expiration is %s, so keeping logs at least 183 days cannot be established", [c[1]]))}
	}
}

# red-team F8 (MLPS variant): logs the stack has AWS write where it declares no log group or bucket
_mf(type, name, msg) := fixtures.finding("MLPS-L3-8.1.5.4d", "mandatory", type, name, msg)

_cluster := fixtures.resource("aws:eks/cluster:Cluster", "cluster", {"name": "gpu", "enabledClusterLogTypes": ["api", "audit", "authenticator"]})

_flow_s3(dest) := fixtures.resource("aws:ec2/flowLog:FlowLog", "fl", {"vpcId": "vpc-0123456789abcdef0", "trafficType": "ALL", "logDestinationType": "s3", "logDestination": dest})

test_fail_logs_written_outside_the_stack if {
	trail := fixtures.trail("audit", {"s3BucketName": "org-trail-archive", "cloudWatchLogsGroupArn": "arn:aws-cn:logs:cn-north-1:444455556666:log-group:org-trail:*"})
	resources := [_cluster, _flow_s3("arn:aws-cn:s3:::nowhere-bucket"), trail]
	v := log_retention.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == {
		_mf("aws:eks/cluster:Cluster", "cluster", "EKS control-plane logs (api, audit, authenticator) go to log group /aws/eks/gpu/cluster, which the stack does not declare, so keeping them at least 180 days cannot be established; declare that log group in the stack with retentionInDays 365"),
		_mf("aws:ec2/flowLog:FlowLog", "fl", "flow logs go to arn:aws-cn:s3:::nowhere-bucket, which is not a bucket the stack creates, so keeping them at least 183 days cannot be established; deliver them to a bucket of the stack that keeps them that long"),
		_mf("aws:cloudtrail/trail:Trail", "audit", "trail logs go to log group org-trail, which the stack does not declare, so keeping them at least 180 days cannot be established; declare that log group in the stack with retentionInDays 365"),
		_mf("aws:cloudtrail/trail:Trail", "audit", "trail logs go to org-trail-archive, which is not a bucket the stack creates, so keeping them at least 183 days cannot be established; deliver them to a bucket of the stack that keeps them that long"),
	}
}

test_pass_logs_written_to_the_stacks_groups_and_buckets if {
	group := object.union(fixtures.log_group("eks-logs", "internal", 365), {"inputs": {"name": "/aws/eks/gpu/cluster"}})
	resources := [_cluster, group, fixtures.bucket("flow-archive", "internal"), _flow_s3("arn:aws-cn:s3:::flow-archive/vpc/")]
	v := log_retention.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == set()
}

# Lambda functions, ECS containers and API Gateway access logs, whatever their data class
_fn := fixtures.resource("aws:lambda/function:Function", "scorer", {"name": "scorer", "tags": fixtures.tags("internal")})

_task := fixtures.resource("aws:ecs/taskDefinition:TaskDefinition", "task", {"family": "scorer", "containerDefinitions": json.marshal([{
	"name": "app",
	"logConfiguration": {"logDriver": "awslogs", "options": {"awslogs-group": "/ecs/scorer"}},
}])})

test_fail_service_logs_to_undeclared_groups if {
	v := log_retention.violation with input as fixtures.gate_input(fixtures.mlps_policy, [_fn, _task])
	v == {
		_mf("aws:lambda/function:Function", "scorer", "Lambda function logs go to log group /aws/lambda/scorer, which the stack does not declare, so keeping them at least 180 days cannot be established; declare that log group in the stack with retentionInDays 365"),
		_mf("aws:ecs/taskDefinition:TaskDefinition", "task", "ECS container logs (app) go to log group /ecs/scorer, which the stack does not declare, so keeping them at least 180 days cannot be established; declare that log group in the stack with retentionInDays 365"),
	}
}

test_pass_service_logs_to_declared_groups if {
	groups := [
		object.union(fixtures.log_group("fn-logs", "internal", 365), {"inputs": {"name": "/aws/lambda/scorer"}}),
		object.union(fixtures.log_group("task-logs", "internal", 365), {"inputs": {"name": "/ecs/scorer"}}),
	]
	v := log_retention.violation with input as fixtures.gate_input(fixtures.mlps_policy, array.concat([_fn, _task], groups))
	v == set()
}

# red team: aws-native log groups (logGroupName) are log groups too: their retention is judged and
# deliveries to them are matched by name
test_aws_native_log_groups if {
	resources := [
		_fn,
		fixtures.resource("aws-native:logs:LogGroup", "fn-logs", {"logGroupName": "/aws/lambda/scorer", "retentionInDays": 365, "tags": [{"key": "data-class", "value": "internal"}]}),
		fixtures.resource("aws-native:logs:LogGroup", "short", {"logGroupName": "/app/short", "retentionInDays": 30}),
	]
	v := log_retention.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == {_mf("aws-native:logs:LogGroup", "short", "log group keeps logs 30 days; at least 180 required (365 is the safe CloudWatch value)")}
}

# red team: API Gateway execution logs go to groups AWS names after the API and stage: a REST API
# stage's (method settings, reported on the stage they configure), a WebSocket stage's (default
# route settings or a route's), aws-native's alike; logging OFF writes none
test_api_gateway_execution_logs if {
	stage := fixtures.resource("aws:apigateway/stage:Stage", "prod", {"restApi": "a1b2c3d4e5", "stageName": "prod"})
	settings := fixtures.resource("aws:apigateway/methodSettings:MethodSettings", "all-methods", {"restApi": "a1b2c3d4e5", "stageName": "prod", "methodPath": "*/*", "settings": {"loggingLevel": "INFO"}})
	loose := fixtures.resource("aws:apigateway/methodSettings:MethodSettings", "loose", {"restApi": "f6g7h8i9j0", "stageName": "dev", "methodPath": "*/*", "settings": {"dataTraceEnabled": true}})
	off := fixtures.resource("aws:apigateway/methodSettings:MethodSettings", "off", {"restApi": "a1b2c3d4e5", "stageName": "test", "methodPath": "*/*", "settings": {"loggingLevel": "OFF", "metricsEnabled": true}})
	ws := fixtures.resource("aws:apigatewayv2/stage:Stage", "ws", {"apiId": "k1l2m3n4o5", "name": "live", "defaultRouteSettings": {"loggingLevel": "ERROR"}})
	ws_route := fixtures.resource("aws:apigatewayv2/stage:Stage", "ws-route", {"apiId": "k1l2m3n4o5", "name": "beta", "routeSettings": [{"routeKey": "$connect", "loggingLevel": "INFO"}]})
	ws_off := fixtures.resource("aws:apigatewayv2/stage:Stage", "ws-off", {"apiId": "k1l2m3n4o5", "name": "quiet", "defaultRouteSettings": {"loggingLevel": "OFF"}})
	native := fixtures.resource("aws-native:apigateway:Stage", "native", {"restApiId": "p6q7r8s9t0", "stageName": "prod", "methodSettings": [{"httpMethod": "*", "resourcePath": "/*", "loggingLevel": "INFO"}]})
	native_ws := fixtures.resource("aws-native:apigatewayv2:Stage", "native-ws", {"apiId": "u1v2w3x4y5", "stageName": "prod", "routeSettings": {"$default": {"dataTraceEnabled": true}}})
	unknown := fixtures.resource("aws:apigatewayv2/stage:Stage", "later", {"apiId": "[unknown]", "name": "live", "defaultRouteSettings": {"loggingLevel": "INFO"}})
	declared := object.union(fixtures.log_group("exec-logs", "internal", 365), {"inputs": {"name": "API-Gateway-Execution-Logs_a1b2c3d4e5/prod"}})
	v := log_retention.violation with input as fixtures.gate_input(fixtures.mlps_policy, [stage, settings, loose, off, ws, ws_route, ws_off, native, native_ws, unknown, declared])
	{[f.resource_name, f.message] | some f in v} == {
		["loose", _undeclared("API-Gateway-Execution-Logs_f6g7h8i9j0/dev")],
		["ws", _undeclared("/aws/apigateway/k1l2m3n4o5/live")],
		["ws-route", _undeclared("/aws/apigateway/k1l2m3n4o5/beta")],
		["native", _undeclared("API-Gateway-Execution-Logs_p6q7r8s9t0/prod")],
		["native-ws", _undeclared("/aws/apigateway/u1v2w3x4y5/prod")],
		["later", "API Gateway execution logs go to log group /aws/apigateway/<apiId>/<name>, whose apiId or name the document does not show (unset, so named at apply; unknown until apply; or secret) and no log group of the stack can be matched to, so keeping them at least 180 days cannot be established; declare that log group in the stack with retentionInDays 365"],
	}
}

_undeclared(group) := sprintf("API Gateway execution logs go to log group %s, which the stack does not declare, so keeping them at least 180 days cannot be established; declare that log group in the stack with retentionInDays 365", [group])

# red team: `/aws/lambda/${fn.name}` where the function's name is an output: both names are unknown
# until apply, and the group's property dependency names the function, so it is the group written to
test_a_group_named_after_the_function_s_output if {
	fn := fixtures.resource("aws:lambda/function:Function", "scorer", {"name": "[unknown]", "tags": fixtures.tags("internal")})
	tied := object.union(fixtures.log_group("fn-logs", "internal", 365), {"inputs": {"name": "[unknown]"}, "property_dependencies": {"name": [fn.urn]}})
	loose := fixtures.resource("aws:lambda/function:Function", "other", {"name": "[unknown]", "tags": fixtures.tags("internal")})
	v := log_retention.violation with input as fixtures.gate_input(fixtures.mlps_policy, [fn, tied, loose])
	{f.resource_name | some f in v} == {"other"}
}

# red team (first-deploy preview): the trail's s3BucketName and the flow log's logDestination are
# unknown until apply; their property dependencies name the archives, which must then keep six months
# of logs (they were taken for no archive: nothing was required of them)
test_fail_archives_unknown_until_apply_tied_by_property_dependencies if {
	trail := object.union(fixtures.trail("audit", {"s3BucketName": "[unknown]"}), {"property_dependencies": {"s3BucketName": [fixtures.urn(fixtures.bucket_type, "audit-logs")]}})
	flow := object.union(
		fixtures.resource("aws:ec2/flowLog:FlowLog", "flow", {"vpcId": "vpc-0123456789abcdef0", "logDestinationType": "s3", "logDestination": "[unknown]"}),
		{"property_dependencies": {"logDestination": [fixtures.urn(fixtures.bucket_type, "flow-archive")]}},
	)
	resources := [
		trail, fixtures.bucket("audit-logs", "internal"), _lifecycle(90),
		flow, fixtures.bucket("flow-archive", "internal"),
		fixtures.bucket_part("aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration", "flow-archive", "lifecycle", {"rules": [{"id": "x", "status": "Enabled", "expiration": {"days": 30}}]}),
	]
	v := log_retention.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == {
		fixtures.finding("MLPS-L3-8.1.5.4d", "mandatory", "aws:s3/bucket:Bucket", "audit-logs", "audit log archive expires after 90 days; six months needs at least 183"),
		fixtures.finding("MLPS-L3-8.1.5.4d", "mandatory", "aws:s3/bucket:Bucket", "flow-archive", "network log archive expires after 30 days; six months needs at least 183"),
	}
}
