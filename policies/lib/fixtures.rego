# METADATA
# title: Test fixtures
# description: >-
#   Builders for the gate input used by the *_test.rego files: a minimal policy per jurisdiction,
#   resources with URNs of the test stack, and the gate input around them.
# scope: package
package lib.fixtures

project := "seedance-gpu"

stack := "test"

stack_urn := "urn:pulumi:test::seedance-gpu::pulumi:pulumi:Stack::seedance-gpu-test"

urn(type, name) := sprintf("urn:pulumi:%s::%s::%s::%s", [stack, project, type, name])

resource(type, name, inputs) := {
	"urn": urn(type, name),
	"type": type,
	"name": name,
	"parent": null,
	"custom": true,
	"region": null,
	"inputs": inputs,
}

tags(data_class) := {
	"data-class": data_class,
	"purpose": "test",
	"controller": "example-gmbh",
	"team": "ml-platform",
	"cost-center": "CC-1",
	"environment": "prod",
	"owner": "ml-platform@example.com",
}

labels(data_class) := {"seedance.io/data-class": data_class}

_base_policy(frameworks, jurisdiction, region, residency) := {
	"apiVersion": "seedance.io/v1",
	"kind": "CostPolicy",
	"metadata": {"name": "test", "environment": "prod", "owner": "ml-platform@example.com", "tags": {}},
	"cloud": {"region": region, "vpcId": "vpc-0123456789abcdef0", "vpcCidr": "10.0.0.0/16"},
	"compliance": {
		"frameworks": frameworks,
		"jurisdiction": jurisdiction,
		"dataResidency": residency,
		"logRetentionDays": 365,
		"personalDataMaxDays": 365,
	},
	"budget": {"monthlyAmount": 1000, "currency": "USD", "thresholds": []},
	"fleets": [],
	"scheduling": {"overcommitCap": 1.5},
	"waivers": [],
}

gdpr_policy := _base_policy(["gdpr"], "eu", "eu-central-1", ["eu-*"])

mlps_policy := _base_policy(["mlps-l3"], "cn", "cn-north-1", ["cn-*"])

both_eu_policy := _base_policy(["gdpr", "mlps-l3"], "eu", "eu-central-1", ["eu-*"])

both_cn_policy := _base_policy(["gdpr", "mlps-l3"], "cn", "cn-north-1", ["cn-*"])

no_framework_policy := _base_policy([], "other", "us-east-1", [])

gate_input(policy, resources) := {
	"document": {
		"apiVersion": "seedance.io/v1",
		"kind": "ResourceDocument",
		"stack": stack,
		"project": project,
		"source": "synth",
		"resources": resources,
	},
	"policy": policy,
	"plan": null,
	"estimate": null,
	"budget_state": null,
	"facts": null,
}

# finding is the whole expected finding object of a test
finding(control_id, severity, type, name, message) := {
	"control_id": control_id,
	"severity": severity,
	"urn": urn(type, name),
	"resource_type": type,
	"resource_name": name,
	"message": message,
}

stack_finding(control_id, severity, message) := {
	"control_id": control_id,
	"severity": severity,
	"urn": stack_urn,
	"resource_type": "pulumi:pulumi:Stack",
	"resource_name": "seedance-gpu-test",
	"message": message,
}

bucket_type := "aws:s3/bucket:Bucket"

bucket(name, data_class) := resource(bucket_type, name, {"bucket": name, "tags": tags(data_class)})

bucket_part(type, bucket_name, suffix, inputs) := resource(type, sprintf("%s-%s", [bucket_name, suffix]), object.union({"bucket": bucket_name}, inputs))

tls_only_policy(bucket_name) := json.marshal({
	"Version": "2012-10-17",
	"Statement": [{
		"Sid": "DenyInsecureTransport",
		"Effect": "Deny",
		"Principal": "*",
		"Action": "s3:*",
		"Resource": [sprintf("arn:aws:s3:::%s", [bucket_name]), sprintf("arn:aws:s3:::%s/*", [bucket_name])],
		"Condition": {"Bool": {"aws:SecureTransport": "false"}},
	}],
})

# a bucket configured the way the components configure one: private, SSE-KMS, versioned, expiring, TLS-only
good_bucket(name, data_class) := [
	bucket(name, data_class),
	bucket_part("aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock", name, "pab", {
		"blockPublicAcls": true, "blockPublicPolicy": true, "ignorePublicAcls": true, "restrictPublicBuckets": true,
	}),
	bucket_part("aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration", name, "sse", {"rules": [{
		"applyServerSideEncryptionByDefault": {"sseAlgorithm": "aws:kms", "kmsMasterKeyId": "arn:aws:kms:eu-central-1:111122223333:key/k"},
		"bucketKeyEnabled": true,
	}]}),
	bucket_part("aws:s3/bucketVersioning:BucketVersioning", name, "versioning", {"versioningConfiguration": {"status": "Enabled"}}),
	bucket_part("aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration", name, "lifecycle", {"rules": [{
		"id": "expire",
		"status": "Enabled",
		"expiration": {"days": 180},
		"noncurrentVersionExpiration": {"noncurrentDays": 7},
	}]}),
	bucket_part("aws:s3/bucketPolicy:BucketPolicy", name, "policy", {"policy": tls_only_policy(name)}),
]

# good_bucket as a preview of the stack's first deploy shows it: the bucket named by Pulumi at apply
# (no name shown), each configuration's `bucket` unknown until apply (`bucket=bucket.id`), tied to
# the bucket only by the input's property dependencies
first_deploy_bucket(name, data_class) := array.concat([resource(bucket_type, name, {"tags": tags(data_class)})], [c |
	some part in array.slice(good_bucket(name, data_class), 1, 6)
	c := object.union(part, {"inputs": {"bucket": "[unknown]"}, "property_dependencies": {"bucket": [urn(bucket_type, name)]}})
])

launch_template(name, data_class, inputs) := resource("aws:ec2/launchTemplate:LaunchTemplate", name, object.union(
	{
		"blockDeviceMappings": [{"deviceName": "/dev/xvda", "ebs": {
			"encrypted": "true", "deleteOnTermination": "true", "kmsKeyId": "arn:aws:kms:eu-central-1:111122223333:key/k",
			"volumeSize": 200, "volumeType": "gp3",
		}}],
		"metadataOptions": {"httpTokens": "required", "httpEndpoint": "enabled", "httpPutResponseHopLimit": 2},
		"tags": tags(data_class),
	},
	inputs,
))

# a spot fleet request that launches from inline launch specifications; each spec is merged over a
# compliant one (encrypted root with a customer key, no key pair, no public IP, a subnet of the stack)
spot_fleet(name, data_class, specs) := resource("aws:ec2/spotFleetRequest:SpotFleetRequest", name, {
	"iamFleetRole": "arn:aws:iam::111122223333:role/aws-ec2-spot-fleet-tagging-role",
	"targetCapacity": 2,
	"allocationStrategy": "priceCapacityOptimized",
	"launchSpecifications": [object.union(
		{
			"ami": "ami-0123456789abcdef0",
			"instanceType": "g5.xlarge",
			"rootBlockDevices": [{"encrypted": true, "deleteOnTermination": true, "kmsKeyId": "arn:aws:kms:eu-central-1:111122223333:key/k", "volumeSize": 200, "volumeType": "gp3"}],
			"subnetId": "subnet-0f0f0f0f0f0f0f0f0",
		},
		spec,
	) | some spec in specs],
	"tags": tags(data_class),
})

log_group(name, data_class, retention) := resource("aws:cloudwatch/logGroup:LogGroup", name, {
	"retentionInDays": retention,
	"kmsKeyId": "arn:aws:kms:eu-central-1:111122223333:key/k",
	"tags": tags(data_class),
})

security_group(name, ingress, egress) := resource("aws:ec2/securityGroup:SecurityGroup", name, {
	"vpcId": "vpc-0123456789abcdef0",
	"ingress": ingress,
	"egress": egress,
	"tags": tags("internal"),
})

namespace(name, data_class) := resource("kubernetes:core/v1:Namespace", name, {"metadata": {"name": name, "labels": labels(data_class)}})

deny_all(ns) := resource("kubernetes:networking.k8s.io/v1:NetworkPolicy", sprintf("%s-default-deny", [ns]), {
	"metadata": {"name": "default-deny", "namespace": ns},
	"spec": {"podSelector": {}, "policyTypes": ["Ingress", "Egress"]},
})

storage_class(name, data_class, inputs) := resource("kubernetes:storage.k8s.io/v1:StorageClass", name, object.union(
	{
		"metadata": {"name": name, "labels": labels(data_class)},
		"provisioner": "ebs.csi.aws.com",
		"parameters": {"type": "gp3", "encrypted": "true"},
		"reclaimPolicy": "Delete",
		"volumeBindingMode": "WaitForFirstConsumer",
	},
	inputs,
))

trail(name, inputs) := resource("aws:cloudtrail/trail:Trail", name, object.union(
	{
		"s3BucketName": "audit-logs",
		"isMultiRegionTrail": true,
		"includeGlobalServiceEvents": true,
		"enableLogFileValidation": true,
		"kmsKeyId": "arn:aws:kms:eu-central-1:111122223333:key/k",
		"eventSelectors": [{
			"readWriteType": "All",
			"includeManagementEvents": true,
			"dataResources": [{"type": "AWS::S3::Object", "values": ["arn:aws:s3"]}],
		}],
		"tags": tags("internal"),
	},
	inputs,
))

flow_log(name, vpc) := resource("aws:ec2/flowLog:FlowLog", name, {
	"vpcId": vpc,
	"trafficType": "ALL",
	"logDestinationType": "cloud-watch-logs",
	"logDestination": "arn:aws:logs:eu-central-1:111122223333:log-group:flow",
	"tags": tags("internal"),
})

# Security groups a stack is given, as `seedance check --lookup` reads them from EC2 (input.facts):
# an EKS cluster security group as EKS creates it (all traffic from itself, all egress) and a group
# that opens SSH to the internet.
eks_cluster_sg := "sg-0e0e0e0e0e0e0e0e0"

ssh_sg := "sg-0555555555555555a"

given_groups_facts := {"region": "eu-central-1", "subnets": {}, "security_groups": {
	eks_cluster_sg: {"name": "eks-cluster-sg-gpu-1234", "vpc_id": "vpc-0123456789abcdef0",
		"ingress": [{"protocol": "-1", "from_port": 0, "to_port": 65535, "cidrs": [], "groups": [eks_cluster_sg], "prefix_lists": []}],
		"egress": [{"protocol": "-1", "from_port": 0, "to_port": 65535, "cidrs": ["0.0.0.0/0"], "groups": [], "prefix_lists": []}],
	},
	ssh_sg: {"name": "bastion", "vpc_id": "vpc-0123456789abcdef0",
		"ingress": [{"protocol": "tcp", "from_port": 22, "to_port": 22, "cidrs": ["0.0.0.0/0"], "groups": [], "prefix_lists": []}],
		"egress": [],
	},
}}

# gate_input with those facts
gate_input_with_given_groups(policy, resources) := object.union(gate_input(policy, resources), {"facts": given_groups_facts})

# a Karpenter EC2NodeClass (karpenter.k8s.aws/v1) with the given spec
node_class(name, spec) := resource("kubernetes:karpenter.k8s.aws/v1:EC2NodeClass", name, {"metadata": {"name": name}, "spec": spec})

node_class_type := "kubernetes:karpenter.k8s.aws/v1:EC2NodeClass"

# Karpenter's documented defaults: an alias picks AWS's EKS-optimised AMI and its family's
# encrypted volumes; metadataOptions default to IMDSv2 only
node_class_defaults := {
	"role": "KarpenterNodeRole",
	"amiSelectorTerms": [{"alias": "al2023@latest"}],
	"subnetSelectorTerms": [{"tags": {"karpenter.sh/discovery": "gpu"}}],
	"securityGroupSelectorTerms": [{"tags": {"karpenter.sh/discovery": "gpu"}}],
}

# A trail the policy relies on instead of its own (compliance.existingTrail), and CloudTrail's
# description of it as `seedance check --lookup` passes it (input.facts.trails)
existing_trail_arn := "arn:aws:cloudtrail:us-east-1:999988887777:trail/org-trail"

with_existing_trail(policy, s3_data_events) := object.union(policy, {"compliance": object.union(
	policy.compliance,
	{"existingTrail": {"arn": existing_trail_arn, "s3DataEvents": s3_data_events}},
)})

trail_fact(overrides) := object.union(
	{
		"multi_region": true,
		"include_global_service_events": true,
		"log_file_validation": true,
		"kms_key_id": "arn:aws:kms:us-east-1:999988887777:key/k",
		"logging": true,
		"management_events": true,
		"s3_data_events": [],
		"organization": true,
		"home_region": "us-east-1",
		"s3_bucket": "org-audit-logs",
	},
	overrides,
)

with_trail_fact(gate_in, fact) := object.union(gate_in, {"facts": {"region": gate_in.policy.cloud.region, "trails": {existing_trail_arn: fact}}})

# The VPC's endpoints for the policy's network.existingEndpoints, as `seedance check --lookup` reads
# them from EC2 (input.facts.vpc_endpoints; the fixtures' policies are in vpc-0123456789abcdef0)
endpoint_fact(id, service, type, state, private_dns, policy) := {
	"id": id, "service_name": sprintf("com.amazonaws.eu-central-1.%s", [service]), "type": type, "state": state,
	"private_dns_enabled": private_dns, "policy": policy, "route_table_ids": _fact_route_tables(type),
}

# a gateway endpoint routes through a route table (one on none serves no subnet)
_fact_route_tables(type) := ["rtb-0aaaaaaaaaaaaaaa1"] if type == "Gateway"

else := []

endpoint_facts(vpc, services) := {"region": "eu-central-1", "subnets": {}, "security_groups": {}, "instance_types": {},
	"trails": {}, "vpc_endpoints": {"vpc_id": vpc, "services": services}}

# gate_input of a policy listing `listed` in network.existingEndpoints, with EC2's facts of the
# VPC's endpoints `services` (service -> endpoint facts) read for `vpc`
gate_input_with_endpoints(policy, resources, listed, vpc, services) := object.union(
	gate_input(json.patch(policy, [{"op": "add", "path": "/network", "value": {"existingEndpoints": listed}}]), resources),
	{"facts": endpoint_facts(vpc, services)},
)

# an endpoint policy that admits only principals of account 111122223333, parsed (as EC2's facts hold it)
account_endpoint_policy := {"Statement": [{"Effect": "Allow", "Principal": "*", "Action": "*", "Resource": "*",
	"Condition": {"StringEquals": {"aws:PrincipalAccount": "111122223333"}}}]}

# EC2's default endpoint policy: everyone, everything
full_access_endpoint_policy := {"Version": "2008-10-17", "Statement": [{"Effect": "Allow", "Principal": "*", "Action": "*", "Resource": "*"}]}
