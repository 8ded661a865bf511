package gdpr.records_of_processing_test

import data.gdpr.records_of_processing
import data.lib.fixtures

_f(type, name, msg) := fixtures.finding("GDPR-30-1", "advisory", type, name, msg)

pass_resources := [
	fixtures.bucket("ds", "personal"),
	fixtures.log_group("app", "personal", 90),
	fixtures.storage_class("general", "personal", {}),
]

fail_resources := [
	fixtures.resource("aws:s3/bucket:Bucket", "ds", {"bucket": "ds", "tags": {"data-class": "personal"}}),
	fixtures.resource("aws:cloudwatch/logGroup:LogGroup", "app", {"retentionInDays": 30}),
	fixtures.resource("kubernetes:storage.k8s.io/v1:StorageClass", "general", {"metadata": {"name": "general"}, "provisioner": "ebs.csi.aws.com"}),
]

test_pass_tagged_storage if {
	v := records_of_processing.violation with input as fixtures.gate_input(fixtures.gdpr_policy, pass_resources)
	v == set()
}

test_fail_untagged_storage if {
	v := records_of_processing.violation with input as fixtures.gate_input(fixtures.gdpr_policy, fail_resources)
	v == {
		_f("aws:s3/bucket:Bucket", "ds", "storage lacks record-of-processing tags: purpose, controller"),
		_f("aws:cloudwatch/logGroup:LogGroup", "app", "storage lacks record-of-processing tags: data-class, purpose, controller"),
		_f("kubernetes:storage.k8s.io/v1:StorageClass", "general", "Kubernetes storage lacks the seedance.io/data-class label"),
	}
}

test_severity_override_from_data if {
	v := records_of_processing.violation with input as fixtures.gate_input(fixtures.gdpr_policy, [fail_resources[1]])
		with data.seedance.severity_overrides as {"GDPR-30-1": "mandatory"}
	v == {fixtures.finding("GDPR-30-1", "mandatory", "aws:cloudwatch/logGroup:LogGroup", "app", "storage lacks record-of-processing tags: data-class, purpose, controller")}
}

# audit A3: record-of-processing tags set once on the provider count
test_pass_tags_from_provider_default_tags if {
	provider := fixtures.resource("pulumi:providers:aws", "aws", {"defaultTags": json.marshal({"tags": {"data-class": "personal", "purpose": "datasets", "controller": "c"}})})
	bucket := fixtures.resource("aws:s3/bucket:Bucket", "ds", {"bucket": "ds", "tags": {"team": "ml-platform"}})
	v := records_of_processing.violation with input as fixtures.gate_input(fixtures.gdpr_policy, [provider, bucket])
	v == set()
}
