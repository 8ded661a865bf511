package gdpr.log_storage_limitation_test

import data.gdpr.log_storage_limitation
import data.lib.fixtures

_f(name, msg) := fixtures.finding("GDPR-5.1e-2", "mandatory", "aws:cloudwatch/logGroup:LogGroup", name, msg)

pass_logs := [fixtures.log_group("app", "personal", 90), fixtures.log_group("infra", "internal", 0)]

fail_logs := [fixtures.log_group("app", "personal", 400), fixtures.log_group("forever", "personal", 0)]

test_pass_retention_within_maximum if {
	v := log_storage_limitation.violation with input as fixtures.gate_input(fixtures.gdpr_policy, pass_logs)
	v == set()
}

test_fail_retention_above_maximum_or_infinite if {
	v := log_storage_limitation.violation with input as fixtures.gate_input(fixtures.gdpr_policy, fail_logs)
	v == {
		_f("app", "log group with personal data keeps logs 400 days, above the maximum of 365 days"),
		_f("forever", "log group with personal data never expires (maximum 365 days)"),
	}
}

# jurisdiction branch: in China the GDPR maximum gives way to the six-month legal minimum
test_pass_cn_keeps_logs_365_days_despite_shorter_maximum if {
	policy := json.patch(fixtures.both_cn_policy, [{"op": "replace", "path": "/compliance/personalDataMaxDays", "value": 90}])
	v := log_storage_limitation.violation with input as fixtures.gate_input(policy, [fixtures.log_group("app", "personal", 365)])
	v == set()
}

test_fail_eu_same_logs_above_shorter_maximum if {
	policy := json.patch(fixtures.both_eu_policy, [{"op": "replace", "path": "/compliance/personalDataMaxDays", "value": 90}])
	v := log_storage_limitation.violation with input as fixtures.gate_input(policy, [fixtures.log_group("app", "personal", 365)])
	v == {_f("app", "log group with personal data keeps logs 365 days, above the maximum of 90 days")}
}

test_fail_cn_above_raised_maximum if {
	v := log_storage_limitation.violation with input as fixtures.gate_input(fixtures.both_cn_policy, [fixtures.log_group("app", "personal", 731)])
	v == {_f("app", "log group with personal data keeps logs 731 days, above the maximum of 365 days (raised to the six-month minimum of the Chinese Cybersecurity Law)")}
}

# audit A13: without a declared maximum a finite retention is not limited either
test_fail_finite_retention_without_declared_maximum if {
	policy := json.remove(fixtures.gdpr_policy, ["compliance/personalDataMaxDays"])
	v := log_storage_limitation.violation with input as fixtures.gate_input(policy, [fixtures.log_group("app", "personal", 3653), fixtures.log_group("infra", "internal", 3653)])
	v == {_f("app", "log group with personal data keeps logs 3653 days, but compliance.personalDataMaxDays is not declared")}
}

# audit A14: a retention unknown until apply
test_fail_unknown_retention if {
	v := log_storage_limitation.violation with input as fixtures.gate_input(fixtures.gdpr_policy, [fixtures.log_group("app", "personal", "[unknown]")])
	v == {_f("app", "log group with personal data has a retention that cannot be established ([unknown]; maximum 365 days)")}
}

# red-team F8: logs a personal-data resource has AWS write where the stack declares no log group
# (EKS control-plane logs, database log exports, flow logs and trails) or no bucket
_on(type, name, msg) := fixtures.finding("GDPR-5.1e-2", "mandatory", type, name, msg)

_eks(name, data_class) := fixtures.resource("aws:eks/cluster:Cluster", "cluster", {
	"name": name,
	"enabledClusterLogTypes": ["audit", "api"],
	"tags": fixtures.tags(data_class),
})

_db(data_class) := fixtures.resource("aws:rds/instance:Instance", "db", {
	"identifier": "pd-db",
	"enabledCloudwatchLogsExports": ["postgresql"],
	"tags": fixtures.tags(data_class),
})

_flow(name, data_class, kind, dest) := fixtures.resource("aws:ec2/flowLog:FlowLog", name, {
	"vpcId": "vpc-0123456789abcdef0",
	"trafficType": "ALL",
	"logDestinationType": kind,
	"logDestination": dest,
	"tags": fixtures.tags(data_class),
})

_named_group(logical, name, data_class, days) := object.union(fixtures.log_group(logical, data_class, days), {"inputs": {"name": name}})

_external_logs(data_class) := [
	_eks("pd", data_class),
	_db(data_class),
	_flow("fl", data_class, "cloud-watch-logs", "arn:aws:logs:eu-central-1:111122223333:log-group:central-flow-logs:*"),
	_flow("fl-s3", data_class, "s3", "arn:aws:s3:::central-flow-logs"),
]

test_fail_personal_logs_to_undeclared_groups_or_buckets if {
	v := log_storage_limitation.violation with input as fixtures.gate_input(fixtures.gdpr_policy, _external_logs("personal"))
	v == {
		_on("aws:eks/cluster:Cluster", "cluster", "EKS control-plane logs (api, audit) of personal data go to log group /aws/eks/pd/cluster, which the stack does not declare, so their retention cannot be established; declare that log group in the stack with retentionInDays at most 365"),
		_on("aws:rds/instance:Instance", "db", "postgresql logs of personal data go to log group /aws/rds/instance/pd-db/postgresql, which the stack does not declare, so their retention cannot be established; declare that log group in the stack with retentionInDays at most 365"),
		_on("aws:ec2/flowLog:FlowLog", "fl", "flow logs of personal data go to log group central-flow-logs, which the stack does not declare, so their retention cannot be established; declare that log group in the stack with retentionInDays at most 365"),
		_on("aws:ec2/flowLog:FlowLog", "fl-s3", "flow logs of personal data go to arn:aws:s3:::central-flow-logs, which is not a bucket the stack creates, so how long they are kept cannot be established; deliver them to a bucket of the stack that expires objects after at most 365 days"),
	}
}

test_pass_logs_of_other_classes_to_undeclared_groups if {
	v := log_storage_limitation.violation with input as fixtures.gate_input(fixtures.gdpr_policy, _external_logs("internal"))
	v == set()
}

# the groups declared under the names AWS writes to: an untagged group holds the personal data it
# receives, so its retention is held to the maximum too
test_pass_declared_groups_within_maximum if {
	groups := [
		_named_group("eks-logs", "/aws/eks/pd/cluster", "internal", 90),
		_named_group("db-logs", "/aws/rds/instance/pd-db/postgresql", "internal", 30),
		_named_group("flow-logs", "central-flow-logs", "internal", 90),
	]
	docs := [r | some r in _external_logs("personal"); r.name != "fl-s3"]
	v := log_storage_limitation.violation with input as fixtures.gate_input(fixtures.gdpr_policy, array.concat(docs, groups))
	v == set()
}

test_fail_declared_group_of_personal_logs_never_expires if {
	resources := [_eks("pd", "personal"), _named_group("eks-logs", "/aws/eks/pd/cluster", "internal", 0)]
	v := log_storage_limitation.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == {_f("eks-logs", "log group with personal data never expires (maximum 365 days)")}
}

# a cluster or database whose name the document does not show: no declared group can be matched to it
test_fail_unshown_identifier if {
	db := json.patch(_db("personal"), [{"op": "remove", "path": "/inputs/identifier"}])
	v := log_storage_limitation.violation with input as fixtures.gate_input(fixtures.gdpr_policy, [db])
	v == {_on("aws:rds/instance:Instance", "db", "postgresql logs of personal data go to log group /aws/rds/instance/<identifier>/postgresql, whose identifier the document does not show (unset, so named at apply; unknown until apply; or secret) and no log group of the stack can be matched to, so their retention cannot be established; declare that log group in the stack with retentionInDays at most 365")}
}

# a flow log tied to its group by property dependencies (the ARN unknown until apply)
test_pass_flow_log_tied_by_dependency if {
	group := fixtures.log_group("flow-logs", "internal", 90)
	fl := object.union(_flow("fl", "personal", "cloud-watch-logs", "[unknown]"), {"property_dependencies": {"logDestination": [group.urn]}})
	v := log_storage_limitation.violation with input as fixtures.gate_input(fixtures.gdpr_policy, [fl, group])
	v == set()
}

# Lambda functions, ECS containers (awslogs) and API Gateway stages' access logs
_fn(name, data_class, extra) := fixtures.resource("aws:lambda/function:Function", name, object.union(
	{"name": name, "runtime": "python3.12", "tags": fixtures.tags(data_class)},
	extra,
))

_task(data_class, containers) := fixtures.resource("aws:ecs/taskDefinition:TaskDefinition", "task", {
	"family": "scorer",
	"containerDefinitions": json.marshal(containers),
	"tags": fixtures.tags(data_class),
})

_awslogs(name, group) := {"name": name, "image": "scorer:1", "logConfiguration": {
	"logDriver": "awslogs",
	"options": {"awslogs-group": group, "awslogs-region": "eu-central-1", "awslogs-create-group": "true"},
}}

_stage(data_class, arn) := fixtures.resource("aws:apigateway/stage:Stage", "stage", {
	"stageName": "prod",
	"accessLogSettings": {"destinationArn": arn, "format": "$context.requestId"},
	"tags": fixtures.tags(data_class),
})

_service_logs(data_class) := [
	_fn("pd-fn", data_class, {}),
	_fn("pd-fn2", data_class, {"loggingConfig": {"logFormat": "JSON", "logGroup": "shared-fn-logs"}}),
	_task(data_class, [_awslogs("app", "scorer-logs"), {"name": "sidecar", "image": "envoy:1"}]),
	_stage(data_class, "arn:aws:logs:eu-central-1:111122223333:log-group:api-access"),
]

test_fail_service_logs_of_personal_data_to_undeclared_groups if {
	v := log_storage_limitation.violation with input as fixtures.gate_input(fixtures.gdpr_policy, _service_logs("personal"))
	v == {
		_on("aws:lambda/function:Function", "pd-fn", "Lambda function logs of personal data go to log group /aws/lambda/pd-fn, which the stack does not declare, so their retention cannot be established; declare that log group in the stack with retentionInDays at most 365"),
		_on("aws:lambda/function:Function", "pd-fn2", "Lambda function logs of personal data go to log group shared-fn-logs, which the stack does not declare, so their retention cannot be established; declare that log group in the stack with retentionInDays at most 365"),
		_on("aws:ecs/taskDefinition:TaskDefinition", "task", "ECS container logs (app) of personal data go to log group scorer-logs, which the stack does not declare, so their retention cannot be established; declare that log group in the stack with retentionInDays at most 365"),
		_on("aws:apigateway/stage:Stage", "stage", "API Gateway access logs of personal data go to log group api-access, which the stack does not declare, so their retention cannot be established; declare that log group in the stack with retentionInDays at most 365"),
	}
}

test_pass_service_logs_of_other_classes_to_undeclared_groups if {
	v := log_storage_limitation.violation with input as fixtures.gate_input(fixtures.gdpr_policy, _service_logs("internal"))
	v == set()
}

test_pass_service_logs_to_declared_groups_within_maximum if {
	groups := [
		_named_group("fn-logs", "/aws/lambda/pd-fn", "internal", 30),
		_named_group("shared-logs", "shared-fn-logs", "internal", 30),
		_named_group("task-logs", "scorer-logs", "internal", 30),
		_named_group("api-logs", "api-access", "internal", 30),
	]
	v := log_storage_limitation.violation with input as fixtures.gate_input(fixtures.gdpr_policy, array.concat(_service_logs("personal"), groups))
	v == set()
}

# a declared group receiving a personal-data function's logs holds personal data, whatever its tag
test_fail_declared_group_of_function_logs_never_expires if {
	resources := [_fn("pd-fn", "personal", {}), _named_group("fn-logs", "/aws/lambda/pd-fn", "internal", 0)]
	v := log_storage_limitation.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == {_f("fn-logs", "log group with personal data never expires (maximum 365 days)")}
}

# tied by property dependencies, the names unknown until apply (a group the same program creates)
test_pass_service_logs_tied_by_dependency if {
	fn_group := fixtures.log_group("fn-logs", "internal", 30)
	api_group := fixtures.log_group("api-logs", "internal", 30)
	fn := object.union(_fn("pd-fn", "personal", {"loggingConfig": {"logGroup": "[unknown]"}}), {"property_dependencies": {"loggingConfig": [fn_group.urn]}})
	stage := object.union(_stage("personal", "[unknown]"), {"property_dependencies": {"accessLogSettings": [api_group.urn]}})
	v := log_storage_limitation.violation with input as fixtures.gate_input(fixtures.gdpr_policy, [fn, stage, fn_group, api_group])
	v == set()
}

# a function without a name (Pulumi names it at apply), an access-log Firehose stream (no log group)
# and container definitions unknown until apply
test_service_logs_unnamed_function_firehose_and_hidden_containers if {
	fn := json.remove(_fn("pd-fn", "personal", {}), ["inputs/name"])
	stage := _stage("personal", "arn:aws:firehose:eu-central-1:111122223333:deliverystream/amazon-apigateway-access")
	task := json.patch(_task("personal", []), [{"op": "replace", "path": "/inputs/containerDefinitions", "value": "[unknown]"}])
	v := log_storage_limitation.violation with input as fixtures.gate_input(fixtures.gdpr_policy, [fn, stage, task])
	v == {_on("aws:lambda/function:Function", "pd-fn", "Lambda function logs of personal data go to log group /aws/lambda/<name>, whose name the document does not show (unset, so named at apply; unknown until apply; or secret) and no log group of the stack can be matched to, so their retention cannot be established; declare that log group in the stack with retentionInDays at most 365")}
}

# aws-native stages: the REST API stage's settings are accessLogSetting
test_fail_native_stage_access_logs_to_undeclared_groups if {
	native := [
		fixtures.resource("aws-native:apigatewayv2:Stage", "v2", {"accessLogSettings": {"destinationArn": "arn:aws:logs:eu-central-1:111122223333:log-group:/apigw/v2"}, "tags": fixtures.tags("personal")}),
		fixtures.resource("aws-native:apigateway:Stage", "rest", {"accessLogSetting": {"destinationArn": "arn:aws:logs:eu-central-1:111122223333:log-group:/apigw/rest"}, "tags": fixtures.tags("personal")}),
	]
	v := log_storage_limitation.violation with input as fixtures.gate_input(fixtures.gdpr_policy, native)
	v == {
		_on("aws-native:apigatewayv2:Stage", "v2", "API Gateway access logs of personal data go to log group /apigw/v2, which the stack does not declare, so their retention cannot be established; declare that log group in the stack with retentionInDays at most 365"),
		_on("aws-native:apigateway:Stage", "rest", "API Gateway access logs of personal data go to log group /apigw/rest, which the stack does not declare, so their retention cannot be established; declare that log group in the stack with retentionInDays at most 365"),
	}
}

# a log group's name is unique within a region only: a group of that name elsewhere is not where the
# source writes (Lambda: its own region; an access-log ARN: the region it names; ECS: awslogs-region)
test_service_logs_match_groups_in_their_own_region if {
	elsewhere := object.union(_named_group("fn-logs", "/aws/lambda/pd-fn", "internal", 30), {"region": "eu-west-1"})
	stage := _stage("personal", "arn:aws:logs:us-east-1:111122223333:log-group:api-access")
	task := _task("personal", [json.patch(_awslogs("app", "scorer-logs"), [{"op": "replace", "path": "/logConfiguration/options/awslogs-region", "value": "eu-west-1"}])])
	groups := [
		elsewhere,
		_named_group("api-logs", "api-access", "internal", 30), # in the stack's region, not the ARN's
		object.union(_named_group("task-logs", "scorer-logs", "internal", 30), {"region": "eu-west-1"}),
	]
	v := log_storage_limitation.violation with input as fixtures.gate_input(fixtures.gdpr_policy, array.concat([_fn("pd-fn", "personal", {}), stage, task], groups))
	v == {
		_on("aws:lambda/function:Function", "pd-fn", "Lambda function logs of personal data go to log group /aws/lambda/pd-fn, which the stack does not declare, so their retention cannot be established; declare that log group in the stack with retentionInDays at most 365"),
		_on("aws:apigateway/stage:Stage", "stage", "API Gateway access logs of personal data go to log group api-access, which the stack does not declare, so their retention cannot be established; declare that log group in the stack with retentionInDays at most 365"),
	}
}

# a group without a name is named at apply with a suffix: a name without one is never its, even one
# equal to its logical name; an auto-name of it is
test_unnamed_groups_match_auto_names_only if {
	logical := fixtures.log_group("/aws/lambda/pd-fn", "internal", 30)
	auto := fixtures.log_group("fn-logs", "internal", 30)
	resources := [
		_fn("pd-fn", "personal", {}),
		_fn("pd-fn2", "personal", {"loggingConfig": {"logGroup": "fn-logs-1a2b3c4"}}),
		logical,
		auto,
	]
	v := log_storage_limitation.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == {_on("aws:lambda/function:Function", "pd-fn", "Lambda function logs of personal data go to log group /aws/lambda/pd-fn, which the stack does not declare, so their retention cannot be established; declare that log group in the stack with retentionInDays at most 365")}
}

# red team: personal logs delivered to an aws-native log group are held to the maximum there
test_fail_personal_logs_in_an_aws_native_group_kept_too_long if {
	resources := [
		_fn("pd-fn", "personal", {}),
		fixtures.resource("aws-native:logs:LogGroup", "fn-logs", {"logGroupName": "/aws/lambda/pd-fn", "retentionInDays": 3653}),
	]
	v := log_storage_limitation.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	{[f.resource_name, f.message] | some f in v} == {["fn-logs", "log group with personal data keeps logs 3653 days, above the maximum of 365 days"]}
}

# red team: a personal-data REST API stage's execution logs (its method settings') are personal logs
test_fail_personal_stage_execution_logs if {
	stage := fixtures.resource("aws:apigateway/stage:Stage", "prod", {"restApi": "a1b2c3d4e5", "stageName": "prod", "tags": fixtures.tags("personal")})
	settings := fixtures.resource("aws:apigateway/methodSettings:MethodSettings", "all-methods", {"restApi": "a1b2c3d4e5", "stageName": "prod", "methodPath": "*/*", "settings": {"loggingLevel": "INFO", "dataTraceEnabled": true}})
	v := log_storage_limitation.violation with input as fixtures.gate_input(fixtures.gdpr_policy, [stage, settings])
	{[f.resource_name, f.message] | some f in v} == {["prod", "API Gateway execution logs of personal data go to log group API-Gateway-Execution-Logs_a1b2c3d4e5/prod, which the stack does not declare, so their retention cannot be established; declare that log group in the stack with retentionInDays at most 365"]}
}
