package mlps.stored_data_confidentiality_test

import data.mlps.stored_data_confidentiality
import data.lib.fixtures

_f(type, name, msg) := fixtures.finding("MLPS-L3-8.1.4.8b", "mandatory", type, name, msg)

_deploy(env) := fixtures.resource("kubernetes:apps/v1:Deployment", "api", {"metadata": {"namespace": "inference"}, "spec": {"template": {"spec": {"containers": [{"name": "app", "image": "x", "env": env}]}}}})

pass_resources := array.concat(fixtures.good_bucket("ds", "internal"), [
	fixtures.launch_template("lt", "internal", {"userData": base64.encode("#!/bin/bash\n/etc/eks/bootstrap.sh gpu\n")}),
	_deploy([{"name": "DB_PASSWORD", "valueFrom": {"secretKeyRef": {"name": "db", "key": "password"}}}]),
	fixtures.resource("aws:eks/cluster:Cluster", "eks", {"encryptionConfig": {"provider": {"keyArn": "arn:aws-cn:kms:cn-north-1:1:key/k"}, "resources": ["secrets"]}}),
])

fail_resources := [
	fixtures.launch_template("lt", "internal", {"userData": base64.encode("export DB_PASSWORD=hunter2\n")}),
	_deploy([{"name": "API_TOKEN", "value": "abc"}]),
	fixtures.resource("aws:eks/cluster:Cluster", "eks", {}),
	fixtures.resource("aws:ebs/volume:Volume", "vol", {"encrypted": false}),
]

test_pass_encrypted_and_no_plaintext_secrets if {
	v := stored_data_confidentiality.violation with input as fixtures.gate_input(fixtures.mlps_policy, pass_resources)
	v == set()
}

test_fail_plaintext if {
	v := stored_data_confidentiality.violation with input as fixtures.gate_input(fixtures.mlps_policy, fail_resources)
	v == {
		_f("aws:ec2/launchTemplate:LaunchTemplate", "lt", "launch template user data contains a credential-like assignment"),
		_f("kubernetes:apps/v1:Deployment", "api", "container app sets credential API_TOKEN as a plaintext env value"),
		_f("aws:eks/cluster:Cluster", "eks", "EKS cluster does not encrypt Secrets with KMS (encryptionConfig)"),
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

# audit A2: credentials in an instance's plain-text user data
test_fail_instance_user_data_credential if {
	v := stored_data_confidentiality.violation with input as fixtures.gate_input(fixtures.mlps_policy, [_weak_instance])
	v == {
		fixtures.finding("MLPS-L3-8.1.4.8b", "mandatory", "aws:ec2/instance:Instance", "box", "EBS mapping root is not encrypted"),
		fixtures.finding("MLPS-L3-8.1.4.8b", "mandatory", "aws:ec2/instance:Instance", "box", "instance user data contains a credential-like assignment"),
	}
}

# test audit: a ConfigMap key named like a credential holds it in plain text; other keys do not
_config_map(entries) := fixtures.resource("kubernetes:core/v1:ConfigMap", "app-config", {"metadata": {"namespace": "inference"}, "data": entries})

test_fail_credential_config_map_key if {
	v := stored_data_confidentiality.violation with input as fixtures.gate_input(fixtures.mlps_policy, [_config_map({"LOG_LEVEL": "info", "db_password": "hunter2"})])
	v == {_f("kubernetes:core/v1:ConfigMap", "app-config", "ConfigMap key \"db_password\" looks like a plaintext credential")}
}

test_pass_config_map_without_credential_keys if {
	v := stored_data_confidentiality.violation with input as fixtures.gate_input(fixtures.mlps_policy, [_config_map({"LOG_LEVEL": "info", "MODEL_PATH": "/models"})])
	v == set()
}

test_internal_data_in_a_type_no_rule_checks_cannot_pass if {
	resources := [
		fixtures.resource("aws:dynamodb/table:Table", "events", {"tags": fixtures.tags("internal")}),
		fixtures.resource("aws:rds/instance:Instance", "db", {"tags": fixtures.tags("public")}),
		fixtures.resource("aws:dynamodb/table:Table", "open", {"tags": fixtures.tags("public")}),
	]
	v := stored_data_confidentiality.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == {
		_f("aws:dynamodb/table:Table", "events", "internal-data aws:dynamodb/table:Table: no rule here checks this type's encryption at rest, so it cannot be established; encrypt it, then waive this finding with the evidence"),
		_f("aws:rds/instance:Instance", "db", "aws:rds/instance:Instance is not encrypted at rest (storageEncrypted is not true)"),
	}
}

# red team: credentials in a spot fleet launch specification's user data (base64, as EC2 takes it)
test_spot_fleet_launch_specification_user_data if {
	fleets := [
		fixtures.spot_fleet("leaky", "internal", [{"userData": base64.encode("#!/bin/bash\nexport DB_PASSWORD=hunter2\n")}]),
		fixtures.spot_fleet("clean", "internal", [{"userData": base64.encode("#!/bin/bash\n/etc/eks/bootstrap.sh gpu\n")}]),
	]
	v := stored_data_confidentiality.violation with input as fixtures.gate_input(fixtures.mlps_policy, fleets)
	v == {_f("aws:ec2/spotFleetRequest:SpotFleetRequest", "leaky", "spot fleet launch specification user data contains a credential-like assignment")}
}

# Karpenter's EC2NodeClass: the family's default volumes are encrypted (an alias's family, or
# amiFamily, in v1beta1 too); a mapping that leaves encrypted out, and the Custom family's AMI
# volumes, are not shown encrypted
test_karpenter_node_class_volumes if {
	resources := [
		fixtures.node_class("defaults", fixtures.node_class_defaults),
		fixtures.resource("kubernetes:karpenter.k8s.aws/v1beta1:EC2NodeClass", "beta", {"metadata": {"name": "beta"}, "spec": {"amiFamily": "Bottlerocket"}}),
		fixtures.node_class("own-volume", object.union(fixtures.node_class_defaults, {"blockDeviceMappings": [
			{"deviceName": "/dev/xvda", "ebs": {"volumeSize": "200Gi", "volumeType": "gp3", "encrypted": true}},
			{"deviceName": "/dev/xvdb", "ebs": {"volumeSize": "500Gi", "volumeType": "gp3"}},
		]})),
		fixtures.node_class("custom", {"amiFamily": "Custom", "amiSelectorTerms": [{"id": "ami-0123456789abcdef0"}]}),
	]
	v := stored_data_confidentiality.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == {
		_f(fixtures.node_class_type, "own-volume", "EBS mapping /dev/xvdb is not encrypted"),
		_f(fixtures.node_class_type, "custom", "EBS mapping the AMI's own volumes (no blockDeviceMappings) is not encrypted"),
	}
}

# given mappings replace the family's defaults: a root device none of them covers is the AMI's own
# volume (Bottlerocket's OS volume /dev/xvda here), not shown encrypted; mappings or a spec unknown
# until apply may be anything; a patch is judged by the mappings it sets
test_karpenter_node_class_root_and_unknown_volumes if {
	cmk := "arn:aws-cn:kms:cn-north-1:111122223333:key/abc"
	resources := [
		fixtures.node_class("data-only", {"amiSelectorTerms": [{"alias": "bottlerocket@v1.20.0"}], "blockDeviceMappings": [
			{"deviceName": "/dev/xvdb", "ebs": {"volumeSize": "200Gi", "encrypted": true, "kmsKeyID": cmk}},
		]}),
		fixtures.node_class("root-flag", {"amiFamily": "Custom", "amiSelectorTerms": [{"id": "ami-0123456789abcdef0"}], "blockDeviceMappings": [
			{"deviceName": "/dev/nvme0n1", "rootVolume": true, "ebs": {"volumeSize": "100Gi", "encrypted": true}},
		]}),
		fixtures.node_class("late", {"amiSelectorTerms": [{"alias": "al2023@latest"}], "blockDeviceMappings": "[unknown]"}),
		fixtures.resource(fixtures.node_class_type, "late-spec", {"metadata": {"name": "late-spec"}, "spec": "[unknown]"}),
		fixtures.resource("kubernetes:karpenter.k8s.aws/v1:EC2NodeClassPatch", "patch", {"metadata": {"name": "shared"}, "spec": {"blockDeviceMappings": [
			{"deviceName": "/dev/xvda", "ebs": {"volumeSize": "100Gi", "encrypted": false}},
		]}}),
		fixtures.resource("kubernetes:karpenter.k8s.aws/v1:EC2NodeClassPatch", "labels-only", {"metadata": {"name": "shared", "labels": {"team": "ml"}}}),
	]
	v := stored_data_confidentiality.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == {
		_f(fixtures.node_class_type, "data-only", "EBS mapping the root volume (/dev/xvda: no mapping gives it, so it is the AMI's own) is not encrypted"),
		_f(fixtures.node_class_type, "late", "EBS mapping blockDeviceMappings unknown until apply ([unknown]) is not encrypted"),
		_f(fixtures.node_class_type, "late-spec", "EBS mapping blockDeviceMappings unknown until apply ([unknown]) is not encrypted"),
		_f("kubernetes:karpenter.k8s.aws/v1:EC2NodeClassPatch", "patch", "EBS mapping /dev/xvda is not encrypted"),
	}
}

# an env list, or a plaintext value's name, unknown until apply may hold a credential (an unknown
# list used to stop the whole gate); a value from a Secret with an unknown name is no plaintext
test_fail_env_unknown_until_apply if {
	unknown_list := fixtures.resource("kubernetes:apps/v1:Deployment", "list", {"metadata": {"namespace": "inference"}, "spec": {"template": {"spec": {"containers": [{"name": "app", "image": "x", "env": "[unknown]"}]}}}})
	resources := [
		unknown_list,
		_deploy([{"name": "[unknown]", "value": "hf_x"}, {"name": "[unknown]", "valueFrom": {"secretKeyRef": {"name": "s", "key": "k"}}}]),
	]
	v := stored_data_confidentiality.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == {
		_f("kubernetes:apps/v1:Deployment", "list", "container app: its env list unknown until apply, so a plaintext credential cannot be ruled out"),
		_f("kubernetes:apps/v1:Deployment", "api", "container app: the name of a plaintext env value unknown until apply, so a plaintext credential cannot be ruled out"),
	}
}

_group(name, class, ref) := fixtures.resource("aws:autoscaling/group:Group", name, {
	"maxSize": 2, "launchTemplate": {"id": ref},
	"tags": [{"key": "data-class", "value": class, "propagateAtLaunch": true}],
})

# a group of internal (or personal) data that launches from a template the document does not hold:
# its volumes cannot be checked; public data's is no concern here
test_fail_a_group_launching_from_a_template_the_document_lacks if {
	lt := fixtures.launch_template("lt", "internal", {})
	v := stored_data_confidentiality.violation with input as fixtures.gate_input(fixtures.mlps_policy, [
		lt, _group("own", "internal", lt.urn), _group("other", "internal", "lt-0bbbbbbbbbbbbbbbb"), _group("open", "public", "lt-0bbbbbbbbbbbbbbbb"),
	])
	v == {_f("aws:autoscaling/group:Group", "other", "group launches from lt-0bbbbbbbbbbbbbbbb, which is not in the document: the encryption of its volumes cannot be checked")}
}

# red team: an internal-data launch template without blockDeviceMappings boots on the AMI's root
# snapshot, not shown encrypted; one mapping its root device encrypted passes
test_fail_template_root_volume_not_encrypted if {
	bare := fixtures.resource("aws:ec2/launchTemplate:LaunchTemplate", "bare", {"imageId": "ami-0123456789abcdef0", "tags": fixtures.tags("internal")})
	v := stored_data_confidentiality.violation with input as fixtures.gate_input(fixtures.mlps_policy, [bare, fixtures.launch_template("mapped", "internal", {})])
	v == {_f("aws:ec2/launchTemplate:LaunchTemplate", "bare", "EBS mapping root (no mapping of /dev/xvda or /dev/sda1, so the AMI's own snapshot) is not encrypted")}
}

# red team: credentials as literal Lambda environment variables and ECS container env values
# (containerDefinitions as JSON text, or a list in aws-native), whatever the data class
_lambda(name, variables) := fixtures.resource("aws:lambda/function:Function", name, {
	"runtime": "python3.12", "handler": "h.h", "role": "arn:aws-cn:iam::111122223333:role/x",
	"environment": {"variables": variables}, "tags": fixtures.tags("public"),
})

_task(name, containers) := fixtures.resource("aws:ecs/taskDefinition:TaskDefinition", name, {"family": name, "containerDefinitions": json.marshal(containers), "tags": fixtures.tags("public")})

test_fail_plaintext_credentials_in_lambda_and_ecs_env if {
	resources := [
		_lambda("fn", {"DB_PASSWORD": "hunter2", "AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMI/K7MDENG", "LOG_LEVEL": "info"}),
		_lambda("late", "[unknown]"),
		_task("web", [{"name": "app", "image": "nginx", "environment": [{"name": "DB_PASSWORD", "value": "hunter2"}, {"name": "PORT", "value": "80"}]}]),
		fixtures.resource("aws-native:ecs:TaskDefinition", "native", {"containerDefinitions": [{"name": "worker", "image": "x", "environment": [{"name": "API_KEY", "value": "k"}]}]}),
		fixtures.resource("aws:ecs/taskDefinition:TaskDefinition", "unknown", {"family": "u", "containerDefinitions": "[unknown]"}),
	]
	v := stored_data_confidentiality.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == {
		_f("aws:lambda/function:Function", "fn", "function sets credential DB_PASSWORD as a plaintext environment variable (environment.variables); expected a Secrets Manager or SSM reference read at run time"),
		_f("aws:lambda/function:Function", "fn", "function sets credential AWS_SECRET_ACCESS_KEY as a plaintext environment variable (environment.variables); expected a Secrets Manager or SSM reference read at run time"),
		_f("aws:lambda/function:Function", "late", "function's environment variables are unknown until apply, so a plaintext credential cannot be ruled out"),
		_f("aws:ecs/taskDefinition:TaskDefinition", "web", "container app sets credential DB_PASSWORD as a plaintext env value (environment); expected secrets with valueFrom"),
		_f("aws-native:ecs:TaskDefinition", "native", "container worker sets credential API_KEY as a plaintext env value (environment); expected secrets with valueFrom"),
		_f("aws:ecs/taskDefinition:TaskDefinition", "unknown", "task definition's containerDefinitions are unknown until apply, so a plaintext credential cannot be ruled out"),
	}
}

# near miss: credentials through ECS secrets (valueFrom), a Lambda variable holding the ARN of the
# secret or parameter that keeps the credential, and env names that are not credentials
test_pass_credentials_by_reference_in_lambda_and_ecs if {
	resources := [
		_lambda("fn", {"DB_SECRET_ARN": "arn:aws-cn:secretsmanager:cn-north-1:111122223333:secret:db-AbCdEf", "API_TOKEN_PARAM": "arn:aws-cn:ssm:cn-north-1:111122223333:parameter/api-token", "LOG_LEVEL": "info"}),
		_lambda("bare", {}),
		fixtures.resource("aws:lambda/function:Function", "no-env", {"runtime": "python3.12", "handler": "h.h", "role": "arn:aws-cn:iam::111122223333:role/x"}),
		_task("web", [{"name": "app", "image": "nginx", "environment": [{"name": "PORT", "value": "80"}], "secrets": [{"name": "DB_PASSWORD", "valueFrom": "arn:aws-cn:secretsmanager:cn-north-1:111122223333:secret:db-AbCdEf"}]}]),
	]
	v := stored_data_confidentiality.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == set()
}

# red team: environment variables, or the whole environment, kept secret may hold a plaintext credential
test_fail_secret_lambda_environment if {
	resources := [
		_lambda("vars", "[secret]"),
		object.union(_lambda("env", {}), {"inputs": {"environment": "[secret]"}}),
	]
	v := stored_data_confidentiality.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == {
		_f("aws:lambda/function:Function", "vars", "function's environment variables are secret, so a plaintext credential cannot be ruled out"),
		_f("aws:lambda/function:Function", "env", "function's environment variables are secret, so a plaintext credential cannot be ruled out"),
	}
}

# red team: a secret pod spec is reported as secret, not as unknown until apply
test_fail_secret_pod_spec if {
	deploy := fixtures.resource("kubernetes:apps/v1:Deployment", "web", {"metadata": {"namespace": "batch"}, "spec": {"template": "[secret]"}})
	v := stored_data_confidentiality.violation with input as fixtures.gate_input(fixtures.mlps_policy, [deploy])
	some f in v
	f.message == "pod spec secret: whether its containers set credentials as plaintext env values cannot be checked"
}

# red team F3: internal data in an S3 directory bucket, which the S3 rules do not read
test_internal_data_in_a_directory_bucket_cannot_pass if {
	resources := [
		fixtures.resource("aws:s3/directoryBucket:DirectoryBucket", "express", {"bucket": "express--cnn1-az1--x-s3", "tags": fixtures.tags("internal")}),
		fixtures.resource("aws:s3/directoryBucket:DirectoryBucket", "open", {"bucket": "open--cnn1-az1--x-s3", "tags": fixtures.tags("public")}),
	]
	v := stored_data_confidentiality.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == {_f(
		"aws:s3/directoryBucket:DirectoryBucket", "express",
		"internal-data aws:s3/directoryBucket:DirectoryBucket: no rule here checks this type's encryption at rest (the S3 rules read general purpose buckets only, and a directory bucket encrypts with SSE-S3 unless its default encryption is set to SSE-KMS), so it cannot be established; encrypt it, then waive this finding with the evidence",
	)}
}

# red team F13: an imported EBS snapshot is encrypted only when it says so
test_unencrypted_snapshot_import if {
	resources := [
		fixtures.resource("aws:ebs/snapshotImport:SnapshotImport", "plain", {"encrypted": false, "tags": fixtures.tags("personal")}),
		fixtures.resource("aws:ebs/snapshotImport:SnapshotImport", "sealed", {"encrypted": true, "tags": fixtures.tags("personal")}),
	]
	v := stored_data_confidentiality.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == {_f("aws:ebs/snapshotImport:SnapshotImport", "plain", "aws:ebs/snapshotImport:SnapshotImport is not encrypted at rest (encrypted is not true)")}
}

# red team F1: an internal-data claim (here through its namespace) on a StorageClass outside the
# document; a public one is not MLPS's concern here
test_internal_claim_on_a_class_outside_the_document if {
	resources := [
		fixtures.namespace("eval", "internal"),
		fixtures.namespace("docs", "public"),
		fixtures.resource("kubernetes:core/v1:PersistentVolumeClaim", "cache", {"metadata": {"name": "cache", "namespace": "eval"}, "spec": {"storageClassName": "gp2"}}),
		fixtures.resource("kubernetes:core/v1:PersistentVolumeClaim", "site", {"metadata": {"name": "site", "namespace": "docs"}, "spec": {"storageClassName": "gp2"}}),
	]
	v := stored_data_confidentiality.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == {_f(
		"kubernetes:core/v1:PersistentVolumeClaim", "cache",
		"internal-data PersistentVolumeClaim names StorageClass gp2, which is not in the document, so the encryption of its volumes cannot be established (EKS's pre-installed gp2 class is unencrypted); name an encrypted StorageClass of the stack in storageClassName",
	)}
}

test_internal_claim_on_an_encrypted_class_of_the_document if {
	resources := [
		fixtures.namespace("eval", "internal"),
		fixtures.storage_class("general", "internal", {}),
		fixtures.resource("kubernetes:core/v1:PersistentVolumeClaim", "cache", {"metadata": {"name": "cache", "namespace": "eval"}, "spec": {"storageClassName": "general"}}),
	]
	v := stored_data_confidentiality.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == set()
}
