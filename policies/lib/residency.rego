# METADATA
# title: Residency helpers
# description: >-
#   The regions resources live in, and where copies of data go: S3 replication destinations and
#   the regions in log and flow-log destination ARNs, each as {source, kind, region}.
# scope: package
package lib.residency

import data.lib.resources
import data.lib.routing
import data.lib.s3

# the region field of an ARN (arn:partition:service:region:account:resource), when it has one
arn_region(arn) := parts[3] if {
	is_string(arn)
	parts := split(arn, ":")
	count(parts) > 4
	parts[3] != ""
}

# The regions the resources live in: their own `region`, else the stack's (policy.cloud.region).
# Controls decide once per region, then look for the resources of the regions that fail.
regions := _own_regions | {region | region := input.policy.cloud.region}

_own_regions := {r.region | some r in input.document.resources; is_string(r.region)}

# a region for a message: one the document holds but does not show (a secret, or unknown until
# apply) is named as such
shown(region) := sprintf("a region the document does not show (%s)", [region]) if {
	region in {"[secret]", "[unknown]"}
} else := region

# the positions among `positions` of the resources that live in `region`
located(positions, region) := {i | some i in positions; input.document.resources[i].region == region} | _defaulted(positions, region)

_defaulted(positions, region) := {i | some i in positions; not is_string(input.document.resources[i].region)} if {
	region == input.policy.cloud.region
} else := set()

# where copies of data go, each as {source, kind, region} (built once; "at" keeps set comparisons cheap)
destinations contains _destination(b, "replication", resources.region(dest, input.policy)) if {
	some i in s3.bucket_indices
	b := input.document.resources[i]
	some rc in s3.replication_configs(i)
	some rule in resources.elements(object.get(rc.inputs, "rules", []))
	is_object(rule)
	some j in s3.named(s3.arn_bucket(rule.destination.bucket))
	dest := input.document.resources[j]
}

# AWS Backup copy actions: the region of the destination vault's ARN
destinations contains _destination(plan, "backup copy", region) if {
	some plan in resources.of_type(input.document, "aws:backup/plan:Plan")
	some rule in resources.elements(object.get(plan.inputs, "rules", []))
	is_object(rule)
	some action in resources.elements(object.get(rule, "copyActions", []))
	is_object(action)
	region := arn_region(object.get(action, "destinationVaultArn", null))
}

destinations contains _destination(fl, "flow log delivery", region) if {
	some fl in resources.of_type(input.document, "aws:ec2/flowLog:FlowLog")
	region := arn_region(object.get(fl.inputs, "logDestination", null))
}

destinations contains _destination(t, "trail log delivery", region) if {
	some t in resources.of_type(input.document, "aws:cloudtrail/trail:Trail")
	region := arn_region(object.get(t.inputs, "cloudWatchLogsGroupArn", null))
}

# copies other services keep in other regions: DynamoDB global-table replicas (a table's replicas),
# EFS replication (a destination region; none means the source's) and ECR replication rules
destinations contains _destination(t, "global-table replica", region) if {
	some t in resources.of_type(input.document, "aws:dynamodb/table:Table")
	some replica in resources.as_list(object.get(t.inputs, "replicas", []))
	region := object.get(replica, "regionName", null)
	is_string(region)
}

destinations contains _destination(_efs_source(rc), "EFS replication", region) if {
	some rc in resources.of_type(input.document, "aws:efs/replicationConfiguration:ReplicationConfiguration")
	region := object.get(rc.inputs, ["destination", "region"], null)
	is_string(region)
}

# the file system an EFS replication copies (so its data class counts), else the configuration itself
_efs_source(rc) := fs if {
	some fs in resources.of_type(input.document, "aws:efs/fileSystem:FileSystem")
	routing.refers(rc, "sourceFileSystemId", fs)
} else := rc

destinations contains _destination(rc, "image replication", region) if {
	some rc in resources.of_type(input.document, "aws:ecr/replicationConfiguration:ReplicationConfiguration")
	some rule in resources.as_list(object.get(rc.inputs, ["replicationConfiguration", "rules"], []))
	some dest in resources.as_list(object.get(rule, "destinations", []))
	region := object.get(dest, "region", null)
	is_string(region)
}

_destination(source, kind, region) := {"at": source.urn, "kind": kind, "region": region, "source": source}

# Copies whose destination region cannot be established from the document, each as
# {source, kind, target, partition}: a replication destination bucket the document does not
# declare (a bucket ARN names no region) and a backup vault ARN without a region (unknown until
# apply). The partition (aws, aws-cn, ...) comes from the ARN, "" when it has none. Controls
# report them (fail closed) unless the partition alone settles their question.
unlocated contains _unlocated(b, "replication", target) if {
	some i in s3.bucket_indices
	b := input.document.resources[i]
	some rc in s3.replication_configs(i)
	some rule in resources.elements(object.get(rc.inputs, "rules", []))
	is_object(rule)
	target := object.get(rule, ["destination", "bucket"], "")
	count(s3.named(s3.arn_bucket(target))) == 0
}

unlocated contains _unlocated(b, "replication", target) if {
	some i in s3.bucket_indices
	b := input.document.resources[i]
	some rc in s3.replication_configs(i)
	some rule in resources.elements(object.get(rc.inputs, "rules", []))
	is_object(rule)
	target := object.get(rule, ["destination", "bucket"], "")
	not s3.arn_bucket(target)
}

unlocated contains _unlocated(plan, "backup copy", target) if {
	some plan in resources.of_type(input.document, "aws:backup/plan:Plan")
	some rule in resources.elements(object.get(plan.inputs, "rules", []))
	is_object(rule)
	some action in resources.elements(object.get(rule, "copyActions", []))
	is_object(action)
	target := object.get(action, "destinationVaultArn", "")
	not arn_region(target)
}

# replication rules and backup copy actions (or rules) that are unknown until apply or secret may
# copy anywhere: a destination the document does not show
unlocated contains _unlocated(input.document.resources[i], "replication", _not_shown(s3.hidden_replication(i))) if {
	some i in s3.replication_hidden
}

unlocated contains _unlocated(plan, "backup copy", _not_shown(resources.hidden_why(v))) if {
	some plan in resources.of_type(input.document, "aws:backup/plan:Plan")
	rules := object.get(plan.inputs, "rules", [])
	some v in array.concat([rules], [x | some x in resources.elements(rules)])
	resources.hidden(v)
}

unlocated contains _unlocated(plan, "backup copy", _not_shown(resources.hidden_why(v))) if {
	some plan in resources.of_type(input.document, "aws:backup/plan:Plan")
	some rule in resources.elements(object.get(plan.inputs, "rules", []))
	is_object(rule)
	actions := object.get(rule, "copyActions", [])
	some v in array.concat([actions], [x | some x in resources.elements(actions)])
	resources.hidden(v)
}

_not_shown(why) := sprintf("a destination the document does not show (%s)", [why])

_unlocated(source, kind, target) := {"at": source.urn, "kind": kind, "partition": partition(target), "source": source, "target": target}

# the partition field of an ARN, "" when it is not an ARN
partition(arn) := parts[1] if {
	is_string(arn)
	parts := split(arn, ":")
	count(parts) > 2
	parts[0] == "arn"
} else := ""
