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

# data stores of other services: their own encryption input (audit of the types the rules read)
_store(type, name, inputs) := fixtures.resource(type, name, object.union({"tags": fixtures.tags("personal")}, inputs))

test_fail_unencrypted_data_stores if {
	resources := [
		_store("aws:rds/instance:Instance", "db", {"engine": "postgres"}),
		_store("aws:rds/instance:Instance", "db2", {"storageEncrypted": "[unknown]"}),
		_store("aws:rds/cluster:Cluster", "aurora", {"storageEncrypted": false, "engineMode": "provisioned"}),
		_store("aws:docdb/cluster:Cluster", "docs", {}),
		_store("aws:neptune/cluster:Cluster", "graph", {"storageEncrypted": "false"}),
		_store("aws:efs/fileSystem:FileSystem", "shared", {"kmsKeyId": "arn:aws:kms:eu-central-1:111122223333:key/k"}),
		_store("aws:sns/topic:Topic", "alerts", {"kmsMasterKeyId": ""}),
	]
	v := encryption_at_rest.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == {
		_f("aws:rds/instance:Instance", "db", "aws:rds/instance:Instance is not encrypted at rest (storageEncrypted is not true)"),
		_f("aws:rds/instance:Instance", "db2", "aws:rds/instance:Instance is not encrypted at rest (storageEncrypted is not true)"),
		_f("aws:rds/cluster:Cluster", "aurora", "aws:rds/cluster:Cluster is not encrypted at rest (storageEncrypted is not true)"),
		_f("aws:docdb/cluster:Cluster", "docs", "aws:docdb/cluster:Cluster is not encrypted at rest (storageEncrypted is not true)"),
		_f("aws:neptune/cluster:Cluster", "graph", "aws:neptune/cluster:Cluster is not encrypted at rest (storageEncrypted is not true)"),
		_f("aws:efs/fileSystem:FileSystem", "shared", "aws:efs/fileSystem:FileSystem is not encrypted at rest (encrypted is not true)"),
		_f("aws:sns/topic:Topic", "alerts", "aws:sns/topic:Topic is not encrypted at rest (no kmsMasterKeyId: SNS encrypts a topic's messages only with a KMS key)"),
	}
}

test_pass_encrypted_data_stores if {
	resources := [
		_store("aws:rds/instance:Instance", "db", {"storageEncrypted": true}),
		_store("aws:rds/instance:Instance", "replica", {"replicateSourceDb": "arn:aws:rds:eu-west-1:111122223333:db:src", "kmsKeyId": "arn:aws:kms:eu-central-1:111122223333:key/k"}),
		_store("aws:rds/cluster:Cluster", "aurora", {"storageEncrypted": "true"}),
		_store("aws:rds/cluster:Cluster", "serverless", {"engineMode": "serverless"}),
		_store("aws:docdb/cluster:Cluster", "docs", {"storageEncrypted": true}),
		_store("aws:efs/fileSystem:FileSystem", "shared", {"encrypted": true}),
		_store("aws:sns/topic:Topic", "alerts", {"kmsMasterKeyId": "alias/aws/sns"}),
	]
	count(encryption_at_rest.violation) == 0 with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
}

_unchecked(class, type) := sprintf(
	"%s-data %s: no rule here checks this type's encryption at rest, so it cannot be established; encrypt it, then waive this finding with the evidence",
	[class, type],
)

test_personal_data_in_a_type_no_rule_checks_cannot_pass if {
	resources := [
		_store("aws:dynamodb/table:Table", "events", {}),
		fixtures.resource("aws:dynamodb/table:Table", "internal-only", {"tags": fixtures.tags("internal")}),
		fixtures.resource("aws:dynamodb/table:Table", "untagged", {}),
		fixtures.resource("aws:sqs/queue:Queue", "unknown-tags", {"tags": "[unknown]"}),
		fixtures.resource("aws-native:s3:Bucket", "native", {"tags": [{"key": "data-class", "value": "Personal"}]}),
		fixtures.resource("aws-native:s3:Bucket", "native-public", {"tags": [{"key": "data-class", "value": "public"}]}),
		_store("aws:iam/role:Role", "role", {}),
		_store("aws:ec2/securityGroup:SecurityGroup", "sg", {}),
		_store("aws:backup/vault:Vault", "vault", {}),
	]
	v := encryption_at_rest.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == {
		_f("aws:dynamodb/table:Table", "events", _unchecked("personal", "aws:dynamodb/table:Table")),
		_f("aws:sqs/queue:Queue", "unknown-tags", _unchecked("personal", "aws:sqs/queue:Queue")),
		_f("aws-native:s3:Bucket", "native", _unchecked("personal", "aws-native:s3:Bucket")),
	}
}

test_personal_data_class_from_provider_default_tags_counts_for_unchecked_types if {
	provider := fixtures.resource("pulumi:providers:aws", "default", {"defaultTags": "{\"tags\": {\"data-class\": \"personal\"}}"})
	table := fixtures.resource("aws:dynamodb/table:Table", "events", {"tags": {"team": "ml"}})
	v := encryption_at_rest.violation with input as fixtures.gate_input(fixtures.gdpr_policy, [provider, table])
	v == {_f("aws:dynamodb/table:Table", "events", _unchecked("personal", "aws:dynamodb/table:Table"))}
}

test_launch_configuration_volumes if {
	lc := fixtures.resource("aws:ec2/launchConfiguration:LaunchConfiguration", "lc", {
		"tags": fixtures.tags("internal"),
		"rootBlockDevice": {"encrypted": true},
		"ebsBlockDevices": [{"deviceName": "/dev/xvdb", "encrypted": false}],
	})
	v := encryption_at_rest.violation with input as fixtures.gate_input(fixtures.gdpr_policy, [lc])
	v == {_f("aws:ec2/launchConfiguration:LaunchConfiguration", "lc", "EBS mapping /dev/xvdb is not encrypted")}
}

# red team: the root and EBS devices of a spot fleet request's launch specifications
test_spot_fleet_launch_specification_volumes if {
	fleet := fixtures.spot_fleet("sfr", "personal", [
		{"rootBlockDevices": [{"encrypted": false, "volumeSize": 100}]},
		{"ebsBlockDevices": [{"deviceName": "/dev/xvdb", "encrypted": true, "volumeSize": 500}]},
		{"rootBlockDevices": []},
	])
	v := encryption_at_rest.violation with input as fixtures.gate_input(fixtures.gdpr_policy, [fleet])
	v == {
		_f("aws:ec2/spotFleetRequest:SpotFleetRequest", "sfr", "EBS mapping root of launchSpecifications[0] is not encrypted"),
		_f("aws:ec2/spotFleetRequest:SpotFleetRequest", "sfr", "personal-data EBS mapping /dev/xvdb of launchSpecifications[1] is encrypted with the AWS-managed default key, not a customer KMS key"),
		_f("aws:ec2/spotFleetRequest:SpotFleetRequest", "sfr", "EBS mapping root of launchSpecifications[2] is not encrypted"),
	}
}

_group(name, data_class, inputs) := fixtures.resource("aws:autoscaling/group:Group", name, object.union({
	"maxSize": 2, "minSize": 0,
	"tags": [{"key": "data-class", "value": data_class, "propagateAtLaunch": true}],
}, inputs))

_spec(ref) := {"mixedInstancesPolicy": {"launchTemplate": {"launchTemplateSpecification": {"launchTemplateId": ref}, "overrides": [{"instanceType": "g5.xlarge"}]}}}

# a group of personal data that launches from a template the document does not hold (another stack's,
# an aws-native one, or an id unknown until apply with no recorded dependency): its volumes cannot be
# checked; one that names the document's template, by id, name or dependency, is judged by it
test_fail_groups_launching_from_templates_the_document_lacks if {
	lt := fixtures.launch_template("lt", "personal", {"name": "gpu-nodes"})
	resources := [
		lt,
		_group("by-id", "personal", _spec(lt.urn)),
		_group("by-name", "personal", {"launchTemplate": {"name": "gpu-nodes"}}),
		object.union(_group("by-dependency", "personal", _spec("[unknown]")), {"property_dependencies": {"mixedInstancesPolicy": [lt.urn]}}),
		_group("elsewhere", "personal", _spec("lt-0aaaaaaaaaaaaaaaa")),
		_group("unknown", "personal", {"launchTemplate": {"id": "[unknown]"}}),
		_group("override", "personal", {"mixedInstancesPolicy": {"launchTemplate": {"launchTemplateSpecification": {"launchTemplateName": "gpu-nodes"}, "overrides": [
			{"instanceType": "g5.xlarge", "launchTemplateSpecification": {"launchTemplateName": "other-nodes"}},
		]}}}),
		_group("internal", "internal", _spec("lt-0aaaaaaaaaaaaaaaa")),
	]
	v := encryption_at_rest.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	{[f.resource_name, f.message] | some f in v} == {
		["elsewhere", "group launches from lt-0aaaaaaaaaaaaaaaa, which is not in the document: the encryption of its volumes cannot be checked"],
		["unknown", "group launches from [unknown], which is not in the document: the encryption of its volumes cannot be checked"],
		["override", "group launches from other-nodes, which is not in the document: the encryption of its volumes cannot be checked"],
	}
}

# instances, spot instance requests, spot fleets, EC2 Fleets and EKS node groups launching from a
# template the document does not hold (or whose template configuration is unknown until apply) are
# reported alike; those naming the document's template, by id, name or dependency, are judged by it
test_fail_other_launchers_from_templates_the_document_lacks if {
	lt := object.union(fixtures.launch_template("lt", "personal", {"name": "gpu-nodes"}), {"id": "lt-0cccccccccccccccc"})
	resources := [
		lt,
		_launcher("aws:ec2/instance:Instance", "instance", "personal", {"launchTemplate": {"id": "lt-0aaaaaaaaaaaaaaaa"}, "rootBlockDevice": {"encrypted": true, "kmsKeyId": "k"}}),
		# no root device of its own: the unseen template maps it, not the AMI's default (not reported
		# as an unencrypted root volume as well)
		_launcher("aws:ec2/instance:Instance", "instance-template-root", "personal", {"launchTemplate": {"id": "lt-0aaaaaaaaaaaaaaaa"}}),
		_launcher("aws:ec2/spotInstanceRequest:SpotInstanceRequest", "spot-request", "personal", {"launchTemplate": {"name": "other-nodes"}, "ebsBlockDevices": [{"deviceName": "/dev/sdf"}]}),
		_launcher("aws:ec2/spotFleetRequest:SpotFleetRequest", "spot-fleet", "personal", {"launchTemplateConfigs": [
			{"launchTemplateSpecification": {"id": "lt-0cccccccccccccccc"}},
			{"launchTemplateSpecification": {"name": "other-nodes"}},
		]}),
		_launcher("aws:ec2/fleet:Fleet", "ec2-fleet", "personal", {"launchTemplateConfigs": [{"launchTemplateSpecification": {"launchTemplateId": "lt-0bbbbbbbbbbbbbbbb"}}]}),
		_launcher("aws:ec2/fleet:Fleet", "unknown-spec", "personal", {"launchTemplateConfigs": [{"launchTemplateSpecification": "[unknown]"}]}),
		_launcher("aws:ec2/spotFleetRequest:SpotFleetRequest", "unknown-configs", "personal", {"launchTemplateConfigs": "[unknown]"}),
		_launcher("aws:eks/nodeGroup:NodeGroup", "node-group", "personal", {"launchTemplate": {"name": "eks-nodes", "version": "1"}}),
		_launcher("aws:ec2/fleet:Fleet", "own-by-name", "personal", {"launchTemplateConfigs": [{"launchTemplateSpecification": {"launchTemplateName": "gpu-nodes"}}]}),
		object.union(
			_launcher("aws:eks/nodeGroup:NodeGroup", "own-by-dependency", "personal", {"launchTemplate": {"id": "[unknown]"}}),
			{"property_dependencies": {"launchTemplate": [lt.urn]}},
		),
		_launcher("aws:ec2/fleet:Fleet", "public", "public", {"launchTemplateConfigs": [{"launchTemplateSpecification": {"launchTemplateId": "lt-0bbbbbbbbbbbbbbbb"}}]}),
	]
	v := encryption_at_rest.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	{[f.resource_name, f.message] | some f in v} == {
		["instance", "instance launches from lt-0aaaaaaaaaaaaaaaa, which is not in the document: the encryption of its volumes cannot be checked"],
		["instance-template-root", "instance launches from lt-0aaaaaaaaaaaaaaaa, which is not in the document: the encryption of its volumes cannot be checked"],
		["spot-request", "spot instance request launches from other-nodes, which is not in the document: the encryption of its volumes cannot be checked"],
		["spot-request", "EBS mapping /dev/sdf is not encrypted"],
		["spot-fleet", "spot fleet request launches from other-nodes, which is not in the document: the encryption of its volumes cannot be checked"],
		["ec2-fleet", "EC2 Fleet launches from lt-0bbbbbbbbbbbbbbbb, which is not in the document: the encryption of its volumes cannot be checked"],
		["unknown-spec", "EC2 Fleet launches from [unknown], which is not in the document: the encryption of its volumes cannot be checked"],
		["unknown-configs", "spot fleet request launches from [unknown], which is not in the document: the encryption of its volumes cannot be checked"],
		["node-group", "node group launches from eks-nodes, which is not in the document: the encryption of its volumes cannot be checked"],
	}
}

_launcher(type, name, data_class, inputs) := fixtures.resource(type, name, object.union({"tags": fixtures.tags(data_class)}, inputs))

# review: a reference known now is resolved only by the document's keys (the id an output ARN ends
# with included); one unknown until apply is taken as a template the input depends on only while
# such templates remain; an id and a name of one template count once; an empty reference (outputs
# show "" for an unset launch configuration) names none
test_fail_outside_references_beside_a_recorded_dependency if {
	lt := fixtures.launch_template("lt", "personal", {})
	resources := [
		lt,
		object.union(_launcher("aws:ec2/spotFleetRequest:SpotFleetRequest", "mixed", "personal", {"launchTemplateConfigs": [
			{"launchTemplateSpecification": {"id": "[unknown]"}},
			{"launchTemplateSpecification": {"id": "lt-0bbbbbbbbbbbbbbbb"}},
		]}), _deps(lt, "launchTemplateConfigs")),
		object.union(_group("id-and-name", "personal", {"launchTemplate": {"id": "[unknown]", "name": "[unknown]"}}), _deps(lt, "launchTemplate")),
		object.union(_group("override", "personal", {"mixedInstancesPolicy": {"launchTemplate": {
			"launchTemplateSpecification": {"launchTemplateId": "[unknown]"},
			"overrides": [{"instanceType": "g5.xlarge", "launchTemplateSpecification": {"launchTemplateId": "lt-0cccccccccccccccc"}}],
		}}}), _deps(lt, "mixedInstancesPolicy")),
		_group("empty-configuration", "personal", {"launchConfiguration": "", "launchTemplate": {"id": lt.urn}}),
		# the dependency comes from the version (the document's template's latest), the id is another's
		object.union(_group("version-only", "personal", {"launchTemplate": {"id": "lt-0dddddddddddddddd", "version": "[unknown]"}}),
			_deps(lt, "launchTemplate")),
		# a pack's resources carry no id: the output ARN's
		object.union(fixtures.launch_template("packed", "personal", {"arn": "arn:aws:ec2:eu-central-1:111122223333:launch-template/lt-0eeeeeeeeeeeeeeee"}), {}),
		_group("by-arn", "personal", {"launchTemplate": {"id": "lt-0eeeeeeeeeeeeeeee"}}),
		object.union(_group("two-unknown", "personal", {"mixedInstancesPolicy": {"launchTemplate": {
			"launchTemplateSpecification": {"launchTemplateId": "[unknown]"},
			"overrides": [{"instanceType": "g5.xlarge", "launchTemplateSpecification": {"launchTemplateId": "[unknown]"}}],
		}}}), _deps(lt, "mixedInstancesPolicy")),
	]
	v := encryption_at_rest.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	{[f.resource_name, f.message] | some f in v} == {
		["mixed", "spot fleet request launches from lt-0bbbbbbbbbbbbbbbb, which is not in the document: the encryption of its volumes cannot be checked"],
		["override", "group launches from lt-0cccccccccccccccc, which is not in the document: the encryption of its volumes cannot be checked"],
		["version-only", "group launches from lt-0dddddddddddddddd, which is not in the document: the encryption of its volumes cannot be checked"],
	}
}

# review: in a preview or export the logical name (and a name ending like a mock id) is no AWS name:
# an outside template of that name is not the stack's; in a synthesised document it is the mock id's
test_fail_a_logical_name_answers_only_in_a_synthesised_document if {
	lt := fixtures.launch_template("nodes-lt", "personal", {"name": "nodes-lt-3f9a2c1"})
	resources := [
		lt,
		_group("by-logical-name", "personal", {"launchTemplate": {"name": "nodes-lt"}}),
		_group("by-date-suffix", "personal", {"launchTemplate": {"name": "nodes-lt-20240101"}}),
		_group("by-aws-name", "personal", {"launchTemplate": {"name": "nodes-lt-3f9a2c1"}}),
	]
	synth := fixtures.gate_input(fixtures.gdpr_policy, resources)
	preview := json.patch(synth, [{"op": "replace", "path": "/document/source", "value": "preview"}])
	v := encryption_at_rest.violation with input as synth
	{f.resource_name | some f in v} == set()
	w := encryption_at_rest.violation with input as preview
	{f.resource_name | some f in w} == {"by-logical-name", "by-date-suffix"}
}

_deps(lt, field) := {"property_dependencies": {field: [lt.urn]}}

# review: an instance that leaves its root volume to a launch template of the document is judged by
# the template's mapping of the root device; without one, by the AMI's default (not shown encrypted)
test_an_instance_is_judged_by_its_template_s_root_volume if {
	lt := object.union(fixtures.launch_template("lt", "personal", {}), {"id": "lt-0aaaaaaaaaaaaaaaa"})
	bare := object.union(fixtures.launch_template("bare", "personal", {"blockDeviceMappings": []}), {"id": "lt-0bbbbbbbbbbbbbbbb"})
	resources := [
		lt,
		bare,
		_launcher("aws:ec2/instance:Instance", "from-template", "personal", {"launchTemplate": {"id": "lt-0aaaaaaaaaaaaaaaa"}}),
		object.union(_launcher("aws:ec2/instance:Instance", "by-dependency", "personal", {"launchTemplate": {"id": "[unknown]"}}),
			_deps(lt, "launchTemplate")),
		_launcher("aws:ec2/instance:Instance", "no-root-mapping", "personal", {"launchTemplate": {"id": "lt-0bbbbbbbbbbbbbbbb"}}),
		_launcher("aws:ec2/instance:Instance", "own-root", "personal", {"launchTemplate": {"id": "lt-0aaaaaaaaaaaaaaaa"}, "rootBlockDevice": {"volumeSize": 100}}),
	]
	v := encryption_at_rest.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	{f.resource_name | some f in v} == {"bare", "no-root-mapping", "own-root"}
}

# red team: a launch template that maps no root device boots its instances on the AMI's root
# snapshot, not shown encrypted, as an instance without a root mapping is judged
_lt_type := "aws:ec2/launchTemplate:LaunchTemplate"

_ami_root := "EBS mapping root (no mapping of /dev/xvda or /dev/sda1, so the AMI's own snapshot) is not encrypted"

test_fail_launch_template_without_root_mapping if {
	data_only := {"deviceName": "/dev/xvdb", "ebs": {"encrypted": "true", "kmsKeyId": "arn:aws:kms:eu-central-1:111122223333:key/k"}}
	resources := [
		fixtures.resource(_lt_type, "no-mappings", {"imageId": "ami-0123456789abcdef0", "tags": fixtures.tags("personal")}),
		fixtures.launch_template("empty", "personal", {"blockDeviceMappings": []}),
		fixtures.launch_template("data-only", "personal", {"blockDeviceMappings": [data_only]}),
		fixtures.launch_template("root-no-ebs", "personal", {"blockDeviceMappings": [{"deviceName": "/dev/xvda", "noDevice": ""}]}),
		fixtures.launch_template("late", "personal", {"blockDeviceMappings": "[unknown]"}),
	]
	v := encryption_at_rest.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == {
		_f(_lt_type, "no-mappings", _ami_root),
		_f(_lt_type, "empty", _ami_root),
		_f(_lt_type, "data-only", _ami_root),
		_f(_lt_type, "root-no-ebs", _ami_root),
		_f(_lt_type, "late", "EBS mapping blockDeviceMappings unknown until apply ([unknown]) is not encrypted"),
	}
}

# near miss: the root device mapped and encrypted under either name AMIs give it, beside a data volume
test_pass_launch_template_mapping_its_root_device if {
	key := "arn:aws:kms:eu-central-1:111122223333:key/k"
	resources := [
		fixtures.launch_template("xvda", "personal", {}),
		fixtures.launch_template("sda1", "personal", {"blockDeviceMappings": [
			{"deviceName": "/dev/xvdb", "ebs": {"encrypted": true, "kmsKeyId": key}},
			{"deviceName": "/dev/sda1", "ebs": {"encrypted": true, "kmsKeyId": key}},
		]}),
	]
	v := encryption_at_rest.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == set()
}

# red team: a bucket's default encryption rules that are secret or unknown until apply may be
# anything (SSE-S3, none): judged, not an engine error, saying why
test_fail_hidden_bucket_encryption_rules if {
	every c in [
		[{"rules": "[secret]"}, {}, "secret"],
		[{"rules": ["[unknown]"]}, {}, "unknown until apply"],
		[null, {"serverSideEncryptionConfiguration": "[secret]"}, "secret"],
		[null, {"serverSideEncryptionConfiguration": {"rule": "[unknown]"}}, "unknown until apply"],
	] {
		[sse, inline, why] := c
		parts := [fixtures.bucket_part("aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration", "ds", "sse", sse) | sse != null]
		bucket := object.union(fixtures.bucket("ds", "personal"), {"inputs": inline})
		v := encryption_at_rest.violation with input as fixtures.gate_input(fixtures.gdpr_policy, array.concat([bucket], parts))
		v == {_f("aws:s3/bucket:Bucket", "ds", sprintf("bucket's default encryption rules are %s, so encryption with aws:kms (SSE-KMS) cannot be established", [why]))}
	}
}

# red team: an instance's ebsBlockDevices or a launch template's mapping that is secret or unknown
# until apply may be unencrypted: judged, not an engine error, naming the hidden list
test_fail_hidden_block_devices if {
	every c in [
		[_instance({"ebsBlockDevices": "[secret]"}), "aws:ec2/instance:Instance", "box", "ebsBlockDevices (secret)"],
		[_instance({"ebsBlockDevices": ["[unknown]"]}), "aws:ec2/instance:Instance", "box", "a device of ebsBlockDevices (unknown until apply)"],
		[fixtures.launch_template("lt", "personal", {"blockDeviceMappings": "[secret]"}), "aws:ec2/launchTemplate:LaunchTemplate", "lt", "blockDeviceMappings (secret)"],
	] {
		[r, type, name, device] := c
		v := encryption_at_rest.violation with input as fixtures.gate_input(fixtures.gdpr_policy, [r])
		sprintf("EBS mapping %s is not encrypted", [device]) in {f.message | some f in v; f.resource_name == name; f.resource_type == type}
	}
}

# red team F3: an S3 directory bucket (S3 Express One Zone) is a data store of S3, whose other
# types configure general purpose buckets: the S3 rules do not read it, so personal data in one is
# reported as a store no rule checks; an untagged or public one is not
test_personal_data_in_a_directory_bucket_cannot_pass if {
	resources := [
		_store("aws:s3/directoryBucket:DirectoryBucket", "express", {"bucket": "express--euc1-az1--x-s3", "location": {"name": "euc1-az1", "type": "AvailabilityZone"}}),
		fixtures.resource("aws:s3/directoryBucket:DirectoryBucket", "open", {"bucket": "open--euc1-az1--x-s3", "tags": fixtures.tags("public")}),
		fixtures.resource("aws:s3/directoryBucket:DirectoryBucket", "untagged", {"bucket": "untagged--euc1-az1--x-s3"}),
	]
	v := encryption_at_rest.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == {_f(
		"aws:s3/directoryBucket:DirectoryBucket", "express",
		"personal-data aws:s3/directoryBucket:DirectoryBucket: no rule here checks this type's encryption at rest (the S3 rules read general purpose buckets only, and a directory bucket encrypts with SSE-S3 unless its default encryption is set to SSE-KMS), so it cannot be established; encrypt it, then waive this finding with the evidence",
	)}
}

# red team F1: a volume claim of personal data (its own label, its workload's, or its namespace's)
# must land on an encrypted StorageClass of the document; a class outside it (EKS's pre-installed,
# unencrypted gp2), none (the cluster's default), "" or a name unknown until apply cannot be shown
# encrypted
_pvc_type := "kubernetes:core/v1:PersistentVolumeClaim"

_pvc(name, ns, labels, spec) := fixtures.resource(_pvc_type, name, {
	"metadata": {"name": name, "namespace": ns, "labels": labels},
	"spec": spec,
})

_claim_spec(extra) := object.union({"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "10Gi"}}}, extra)

_sts(name, ns, templates) := fixtures.resource("kubernetes:apps/v1:StatefulSet", name, {
	"metadata": {"name": name, "namespace": ns},
	"spec": {
		"serviceName": name,
		"template": {"spec": {"containers": [{"name": "db", "image": "db"}]}},
		"volumeClaimTemplates": templates,
	},
})

_claim_msg(class, noun, gap) := sprintf("%s-data %s %s; name an encrypted StorageClass of the stack in storageClassName", [class, noun, gap])

_outside(name) := sprintf("names StorageClass %s, which is not in the document, so the encryption of its volumes cannot be established", [name])

test_fail_personal_claims_not_shown_on_an_encrypted_class if {
	efs := fixtures.resource("kubernetes:storage.k8s.io/v1:StorageClass", "shared", {"metadata": {"name": "shared"}, "provisioner": "efs.csi.aws.com", "parameters": {"fileSystemId": "fs-0123"}})
	deploy := fixtures.resource("kubernetes:apps/v1:Deployment", "api", {
		"metadata": {"name": "api", "namespace": "inference"},
		"spec": {"template": {"spec": {
			"containers": [{"name": "api", "image": "api"}],
			"volumes": [{"name": "cache", "ephemeral": {"volumeClaimTemplate": {"spec": _claim_spec({})}}}],
		}}},
	})
	resources := [
		fixtures.namespace("inference", "personal"),
		fixtures.namespace("eval", "internal"),
		efs,
		_pvc("gp2-claim", "eval", fixtures.labels("personal"), _claim_spec({"storageClassName": "gp2"})),
		_pvc("default-claim", "inference", {}, _claim_spec({})),
		_pvc("static-claim", "inference", {}, _claim_spec({"storageClassName": ""})),
		_pvc("later-claim", "inference", {}, _claim_spec({"storageClassName": "[unknown]"})),
		_pvc("hidden-spec", "inference", {}, "[secret]"),
		_pvc("efs-claim", "inference", {}, _claim_spec({"storageClassName": "shared"})),
		_pvc("unknown-ns", "[unknown]", {}, _claim_spec({"storageClassName": "other"})),
		fixtures.resource("kubernetes:core/v1:PersistentVolumeClaimPatch", "patch", {"metadata": {"name": "old", "namespace": "inference"}, "spec": {"resources": {"requests": {"storage": "20Gi"}}}}),
		_sts("db", "inference", [{"metadata": {"name": "data"}, "spec": _claim_spec({"storageClassName": "gp2"})}]),
		_sts("later-db", "inference", "[unknown]"),
		deploy,
		# not GDPR's: internal and unclassified claims
		_pvc("internal-claim", "eval", {}, _claim_spec({"storageClassName": "gp2"})),
		_pvc("stray", "default", {}, _claim_spec({})),
	]
	v := encryption_at_rest.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == {
		_f(_pvc_type, "gp2-claim", _claim_msg("personal", "PersistentVolumeClaim", concat("", [_outside("gp2"), " (EKS's pre-installed gp2 class is unencrypted)"]))),
		_f(_pvc_type, "default-claim", _claim_msg("personal", "PersistentVolumeClaim", "names no storageClassName, so its volumes come from the cluster's default StorageClass, which is not in the document (EKS's pre-installed gp2 is unencrypted), and their encryption cannot be established")),
		_f(_pvc_type, "static-claim", _claim_msg("personal", "PersistentVolumeClaim", "sets storageClassName \"\", so it binds a pre-provisioned PersistentVolume without a class, whose encryption the document does not show")),
		_f(_pvc_type, "later-claim", _claim_msg("personal", "PersistentVolumeClaim", "has a storageClassName that is unknown until apply, so the encryption of its volumes cannot be established")),
		_f(_pvc_type, "hidden-spec", _claim_msg("personal", "PersistentVolumeClaim", "has a spec that is secret, so the StorageClass of its volumes cannot be established")),
		_f(_pvc_type, "efs-claim", _claim_msg("personal", "PersistentVolumeClaim", "names StorageClass shared, whose provisioner efs.csi.aws.com is neither the EBS CSI driver nor local volumes, so the encryption of its volumes cannot be established")),
		_f(_pvc_type, "unknown-ns", _claim_msg("personal", "PersistentVolumeClaim", _outside("other"))),
		_f("kubernetes:core/v1:PersistentVolumeClaimPatch", "patch", _claim_msg("personal", "PersistentVolumeClaim patch", "does not set storageClassName, so the StorageClass of the claim it patches, which is not in the document, cannot be established")),
		_f("kubernetes:apps/v1:StatefulSet", "db", _claim_msg("personal", "volume claim template data", concat("", [_outside("gp2"), " (EKS's pre-installed gp2 class is unencrypted)"]))),
		_f("kubernetes:apps/v1:StatefulSet", "later-db", _claim_msg("personal", "volume claim templates", "has a spec that is unknown until apply, so the StorageClass of its volumes cannot be established")),
		_f("kubernetes:apps/v1:Deployment", "api", _claim_msg("personal", "ephemeral volume cache", "names no storageClassName, so its volumes come from the cluster's default StorageClass, which is not in the document (EKS's pre-installed gp2 is unencrypted), and their encryption cannot be established")),
	}
}

# near miss: claims on the document's encrypted EBS class, on its local class, and a name unknown
# until apply that the claim's spec depends on a class of the document for; a claim on an
# unencrypted class of the document is reported on the class, not again on the claim
test_pass_personal_claims_on_classes_of_the_document if {
	local := fixtures.resource("kubernetes:storage.k8s.io/v1:StorageClass", "scratch", {"metadata": {"name": "scratch"}, "provisioner": "kubernetes.io/no-provisioner"})
	general := fixtures.storage_class("general", "personal", {})
	plain := fixtures.storage_class("plain", "personal", {"parameters": {"encrypted": "false"}})
	linked := object.union(
		_pvc("linked", "inference", {}, _claim_spec({"storageClassName": "[unknown]"})),
		{"property_dependencies": {"spec": [general.urn]}},
	)
	resources := [
		fixtures.namespace("inference", "personal"),
		general, local, plain, linked,
		_pvc("data", "inference", fixtures.labels("personal"), _claim_spec({"storageClassName": "general"})),
		_pvc("tmp", "inference", {}, _claim_spec({"storageClassName": "scratch"})),
		_pvc("on-plain", "inference", {}, _claim_spec({"storageClassName": "plain"})),
		_sts("db", "inference", [{"metadata": {"name": "data"}, "spec": _claim_spec({"storageClassName": "general"})}]),
	]
	v := encryption_at_rest.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == {_f("kubernetes:storage.k8s.io/v1:StorageClass", "plain", "EBS StorageClass does not set parameters.encrypted \"true\"")}
}

# two StorageClasses (or Namespaces) of one name, in different clusters, do not stop the gate: a
# claim on the name is judged by every class of it, in the most protected namespace of it
test_claims_with_classes_and_namespaces_that_share_a_name if {
	ebs := fixtures.storage_class("shared", "personal", {})
	efs := object.union(
		fixtures.resource("kubernetes:storage.k8s.io/v1:StorageClass", "shared-efs", {"metadata": {"name": "shared"}, "provisioner": "efs.csi.aws.com"}),
		{"provider": "urn:pulumi:test::seedance-gpu::pulumi:providers:kubernetes::other"},
	)
	ns_other := object.union(fixtures.namespace("inference", "public"), {"name": "inference-other", "urn": fixtures.urn("kubernetes:core/v1:Namespace", "inference-other")})
	resources := [
		fixtures.namespace("inference", "personal"), ns_other, ebs, efs,
		_pvc("claim", "inference", {}, _claim_spec({"storageClassName": "shared"})),
	]
	v := encryption_at_rest.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == {_f(_pvc_type, "claim", _claim_msg("personal", "PersistentVolumeClaim", "names StorageClass shared, whose provisioner efs.csi.aws.com is neither the EBS CSI driver nor local volumes, so the encryption of its volumes cannot be established"))}
}

# a claim labelled personal in a document without Namespaces
test_fail_labelled_claim_without_namespaces if {
	v := encryption_at_rest.violation with input as fixtures.gate_input(fixtures.gdpr_policy, [_pvc("solo", "default", fixtures.labels("personal"), _claim_spec({"storageClassName": "gp2"}))])
	v == {_f(_pvc_type, "solo", _claim_msg("personal", "PersistentVolumeClaim", concat("", [_outside("gp2"), " (EKS's pre-installed gp2 class is unencrypted)"])))}
}

# red team (false positives): subnet, parameter and option groups, security-group rules, WAF and
# Secrets Manager hold no data (a secret is always KMS-encrypted); an Aurora instance of a cluster
# the document holds is judged by that cluster, one of a cluster it lacks still cannot be established
test_configuration_and_cluster_members_are_not_unchecked_stores if {
	cluster := _store("aws:rds/cluster:Cluster", "aurora", {"clusterIdentifier": "app-aurora", "storageEncrypted": true})
	tied := object.union(_store("aws:rds/clusterInstance:ClusterInstance", "aurora-0", {}),
		{"property_dependencies": {"clusterIdentifier": [cluster.urn]}})
	named := _store("aws:rds/clusterInstance:ClusterInstance", "aurora-1", {"clusterIdentifier": "app-aurora"})
	elsewhere := _store("aws:rds/clusterInstance:ClusterInstance", "other-0", {"clusterIdentifier": "not-here"})
	unknown := _store("aws:rds/cluster:Cluster", "hidden", {"clusterIdentifier": "[unknown]", "storageEncrypted": true})
	untied := _store("aws:rds/clusterInstance:ClusterInstance", "hidden-0", {"clusterIdentifier": "[unknown]"})
	resources := [
		cluster, tied, named, elsewhere, unknown, untied,
		_store("aws:rds/subnetGroup:SubnetGroup", "db-subnets", {}),
		_store("aws:rds/parameterGroup:ParameterGroup", "force-ssl", {}),
		_store("aws:elasticache/subnetGroup:SubnetGroup", "cache-subnets", {}),
		_store("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule", "db-from-app", {}),
		_store("aws:wafv2/webAcl:WebAcl", "acl", {}),
		_store("aws:secretsmanager/secret:Secret", "db-password", {}),
	]
	v := encryption_at_rest.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == {
		_f("aws:rds/clusterInstance:ClusterInstance", "other-0", _unchecked("personal", "aws:rds/clusterInstance:ClusterInstance")),
		_f("aws:rds/clusterInstance:ClusterInstance", "hidden-0", _unchecked("personal", "aws:rds/clusterInstance:ClusterInstance")),
	}
}

# red team (first-deploy preview): the encryption configuration's `bucket` is unknown until apply and
# only its property dependencies name the bucket; without them it names none and the bucket is reported
test_pass_first_deploy_encryption_tied_by_property_dependencies if {
	v := encryption_at_rest.violation with input as fixtures.gate_input(fixtures.gdpr_policy, fixtures.first_deploy_bucket("ds", "personal"))
	v == set()
}

test_fail_first_deploy_encryption_without_property_dependencies if {
	resources := [object.remove(r, ["property_dependencies"]) | some r in fixtures.first_deploy_bucket("ds", "personal")]
	v := encryption_at_rest.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == {_f("aws:s3/bucket:Bucket", "ds", "bucket has no default encryption with aws:kms (SSE-KMS)")}
}
