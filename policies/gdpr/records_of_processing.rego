package gdpr.records_of_processing

import data.lib.findings
import data.lib.frameworks
import data.lib.resources

# METADATA
# title: "Records of processing: storage inventory tags"
# description: >-
#   Storage that may hold personal data (S3 buckets, EBS volumes, log groups, launch-template
#   volumes) carries the data-class, purpose and controller tags, and Kubernetes storage the
#   seedance.io/data-class label, so the record of processing can be built from the inventory.
# related_resources:
#   - ref: https://gdpr-info.eu/art-30-gdpr/
# custom:
#   control_id: GDPR-30-1
#   clause: "Art. 30"
#   framework: gdpr
#   severity: advisory
#   remediation: >-
#     Tag the resource with data-class, purpose and controller (the components do this from the
#     policy's metadata.tags and fleet dataClass).
violation contains findings.finding("GDPR-30-1", p.resource, p.message) if {
	frameworks.applies(input.policy, "gdpr")
	some p in _problems
}

_aws_storage := {
	"aws:s3/bucket:Bucket",
	"aws:s3/bucketV2:BucketV2",
	"aws:ebs/volume:Volume",
	"aws:cloudwatch/logGroup:LogGroup",
	"aws:ec2/launchTemplate:LaunchTemplate",
}

_k8s_storage := {
	"kubernetes:storage.k8s.io/v1:StorageClass",
	"kubernetes:core/v1:PersistentVolume",
	"kubernetes:core/v1:PersistentVolumeClaim",
}

_problems contains findings.problem(input.document.resources[i], msg) if {
	some type in _aws_storage
	some i in resources.indices(type)
	tags := object.get(resources.tags_at, i, {})
	not _recorded(tags)
	missing := [k | some k in ["data-class", "purpose", "controller"]; not tags[k]]
	msg := sprintf("storage lacks record-of-processing tags: %s", [concat(", ", missing)])
}

_recorded(tags) if {
	tags["data-class"]
	tags.purpose
	tags.controller
}

_problems contains findings.problem(r, "Kubernetes storage lacks the seedance.io/data-class label") if {
	some r in resources.of_types(input.document, _k8s_storage)
	resources.data_class(r) == ""
}
