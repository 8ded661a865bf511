# METADATA
# title: Residency helpers
# description: >-
#   The regions resources live in, and where copies of data go: S3 replication destinations, the
#   regions in log and flow-log destination ARNs, the buckets flow logs and trails write to, log
#   subscription destinations, RDS automated-backup replications and DynamoDB table replicas, each
#   as {source, kind, region}.
# scope: package
package lib.residency

import data.lib.audit
import data.lib.resources
import data.lib.routing
import data.lib.s3

# the region field of an ARN (arn:partition:service:region:account:resource), when it has one
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
	some j in s3.replica_buckets(i, rc, rule)
	dest := input.document.resources[j]
}

# AWS Backup copy actions: the region of the destination vault's ARN
destinations contains _destination(plan, "backup copy", region) if {
	some plan in resources.of_type(input.document, "aws:backup/plan:Plan")
	some rule in resources.elements(object.get(plan.inputs, "rules", []))
	is_object(rule)
	some action in resources.elements(object.get(rule, "copyActions", []))
	is_object(action)
	region := resources.arn_region(object.get(action, "destinationVaultArn", null))
}

destinations contains _destination(fl, "flow log delivery", region) if {
	some fl in resources.of_type(input.document, "aws:ec2/flowLog:FlowLog")
	region := resources.arn_region(object.get(fl.inputs, "logDestination", null))
}

destinations contains _destination(t, "trail log delivery", region) if {
	some t in resources.of_type(input.document, "aws:cloudtrail/trail:Trail")
	region := resources.arn_region(object.get(t.inputs, "cloudWatchLogsGroupArn", null))
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

# ECR replicates the registry's repositories (the account's, of which the document may show some):
# their data class cannot be established from the configuration, which carries no tags
destinations contains _with_source({"source": rc, "undeclared": "the registry's repositories"}, "image replication", region) if {
	some rc in resources.of_types(input.document, {"aws:ecr/replicationConfiguration:ReplicationConfiguration", "aws-native:ecr:ReplicationConfiguration"})
	some rule in resources.as_list(object.get(rc.inputs, ["replicationConfiguration", "rules"], []))
	some dest in resources.as_list(object.get(rule, "destinations", []))
	region := object.get(dest, "region", null)
	is_string(region)
}

# flow logs and trails writing to a bucket of the document: the bucket's region (an S3 ARN names none)
destinations contains _destination(d.source, _log_kind[d.what], resources.region(input.document.resources[b], input.policy)) if {
	some d in audit.log_bucket_deliveries
	some b in d.buckets
}

# flow logs and trails writing to a log group whose ARN the document does not show: the region of
# the log group of the document the reference is tied to
destinations contains _destination(d.source, _log_kind[d.what], resources.region(input.document.resources[j], input.policy)) if {
	some d in audit.log_deliveries
	d.field in {"logDestination", "cloudWatchLogsGroupArn"}
	not resources.arn_region(d.source.inputs[d.field])
	some j in d.groups
}

_log_kind := {"flow logs": "flow log delivery", "trail logs": "trail log delivery"}

# the other logs AWS writes for the document's resources (ECS containers' awslogs-region, an API
# Gateway stage's destination ARN, or the log group of the document a hidden ARN is tied to) to a
# log group in another region than the resource's own
destinations contains _destination(d.source, replace(d.what, " logs", " log delivery"), region) if {
	some d in audit.log_deliveries
	not _log_kind[d.what]
	some region in {d.region} | {resources.region(input.document.resources[j], input.policy) | some j in d.groups}
	region != resources.region(d.source, input.policy)
}

# CloudWatch Logs subscription filters: the region of the destination ARN (a Kinesis or Firehose
# stream, a Lambda function, a Logs destination), else of the resource of the document the
# reference is tied to; the data is the log group's (see _subscribed)
destinations contains _with_source(_subscribed(f), "log subscription", region) if {
	some f in resources.of_type(input.document, subscription_type)
	region := _subscription_region(f)
}

subscription_type := "aws:cloudwatch/logSubscriptionFilter:LogSubscriptionFilter"

_subscription_region(f) := region if {
	region := resources.arn_region(f.inputs.destinationArn)
} else := region if {
	some j in routing.referred(f, "destinationArn", _destination_keys)
	region := resources.region(input.document.resources[j], input.policy)
}

# what a subscription filter can deliver to (a stream, a function or its alias, a Logs destination)
subscription_destination_types := {
	"aws:kinesis/stream:Stream", "aws:kinesis/firehoseDeliveryStream:FirehoseDeliveryStream",
	"aws:lambda/function:Function", "aws:lambda/alias:Alias", "aws:cloudwatch/logDestination:LogDestination",
	"aws-native:kinesis:Stream", "aws-native:kinesisfirehose:DeliveryStream", "aws-native:lambda:Function",
	"aws-native:lambda:Alias", "aws-native:logs:Destination",
}

_destination_keys := {k: js | some k, js in _destination_keyed}

_destination_keyed[k] contains j if {
	some type in subscription_destination_types
	some j in resources.indices(type)
	some k in routing.target_keys(input.document.resources[j])
}

# the log group a filter reads: the group of the document its logGroup names (or is tied to), else
# the resource that has AWS write to a group of that name (an EKS cluster, a database); else none
# the document declares, whose data class cannot be established
_subscribed(f) := {"source": lg} if {
	some lg in audit.log_groups
	_reads_group(f, lg)
} else := {"source": d.source} if {
	some d in audit.log_deliveries
	is_string(d.name)
	d.name == f.inputs.logGroup
} else := {"source": f, "undeclared": "a log group the document does not declare"}

_reads_group(f, lg) if routing.refers(f, "logGroup", lg)

_reads_group(f, lg) if {
	name := audit.log_group_name(lg)
	is_string(name)
	name == object.get(f.inputs, "logGroup", null)
}

# RDS automated-backup replications and DynamoDB table replicas, in their own region: they have no
# data class of their own (a replica's tags are its own), so the data is the database's or table's
# of the document they copy (tied by property dependencies, or named by its ARN); one the document
# does not declare has a data class that cannot be established
destinations contains _with_source(_copied(r, "sourceDbInstanceArn", ":db:", "aws:rds/instance:Instance", "identifier", "a database"), "automated-backup replication", resources.region(r, input.policy)) if {
	some r in resources.of_type(input.document, "aws:rds/instanceAutomatedBackupsReplication:InstanceAutomatedBackupsReplication")
}

destinations contains _with_source(_copied(r, "globalTableArn", ":table/", "aws:dynamodb/table:Table", "name", "a table"), "global-table replica", resources.region(r, input.policy)) if {
	some r in resources.of_type(input.document, "aws:dynamodb/tableReplica:TableReplica")
}

_copied(r, field, marker, type, id_field, what) := {"source": src} if {
	some src in resources.of_type(input.document, type)
	_copies(r, field, marker, src, id_field)
} else := {"source": r, "undeclared": sprintf("%s the document does not declare", [what])}

_copies(r, field, _, src, _) if routing.refers(r, field, src)

# the ARN's resource id is the source's identifier (its id_field input), else, when it has none,
# its logical name or Pulumi's auto-name of it (NAME-1234abc)
_copies(r, field, marker, src, id_field) if {
	parts := split(object.get(r.inputs, field, ""), marker)
	count(parts) == 2
	_is_id(parts[1], src, id_field)
}

_is_id(id, src, id_field) if id == src.inputs[id_field]

_is_id(id, src, id_field) if {
	not is_string(object.get(src.inputs, id_field, null))
	src.name in {id, s3.strip_autoname(id)}
}

_destination(source, kind, region) := {"at": source.urn, "kind": kind, "region": region, "source": source}

# a destination whose data is that of `of.source`, marked undeclared (with what it is) when the
# document does not declare the resource whose data it holds
_with_source(of, kind, region) := object.union(_destination(of.source, kind, region), object.remove(of, ["source"]))

# Copies whose destination region cannot be established from the document, each as
# {source, kind, target, partition}: a replication destination bucket the document does not
# declare (a bucket ARN names no region; one unknown until apply counts as declared when the rules'
# property dependencies name buckets of the document: lib.s3.replica_buckets) and a backup vault ARN without a region (unknown until
# apply). The partition (aws, aws-cn, ...) comes from the ARN, "" when it has none. Controls
# report them (fail closed) unless the partition alone settles their question.
unlocated contains _unlocated(b, "replication", target) if {
	some i in s3.bucket_indices
	b := input.document.resources[i]
	some rc in s3.replication_configs(i)
	some rule in resources.elements(object.get(rc.inputs, "rules", []))
	is_object(rule)
	target := object.get(rule, ["destination", "bucket"], "")
	count(s3.replica_buckets(i, rc, rule)) == 0
}

unlocated contains _unlocated(plan, "backup copy", target) if {
	some plan in resources.of_type(input.document, "aws:backup/plan:Plan")
	some rule in resources.elements(object.get(plan.inputs, "rules", []))
	is_object(rule)
	some action in resources.elements(object.get(rule, "copyActions", []))
	is_object(action)
	target := object.get(action, "destinationVaultArn", "")
	not resources.arn_region(target)
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

# flow logs and trails writing to a bucket the document does not declare (an S3 ARN or bucket name
# names no region; the services write only within their own partition, so a bare name is in the
# source's), or to a bucket or log group the document does not show (in the source's partition too)
unlocated contains _unlocated_in(d.source, _log_kind[d.what], _shown_target(d.target), _source_partition(d.source, d.target)) if {
	some d in audit.log_bucket_deliveries
	count(d.buckets) == 0
}

unlocated contains _unlocated_in(d.source, _log_kind[d.what], _not_shown(resources.hidden_why(v)), _source_partition(d.source, "")) if {
	some d in audit.log_deliveries
	d.field in {"logDestination", "cloudWatchLogsGroupArn"}
	v := d.source.inputs[d.field]
	resources.hidden(v)
	count(d.groups) == 0
}

# subscription filters whose destination has no region the document establishes
unlocated contains object.union(_unlocated(of.source, "log subscription", _shown_target(target)), object.remove(of, ["source"])) if {
	some f in resources.of_type(input.document, subscription_type)
	not _subscription_region(f)
	target := object.get(f.inputs, "destinationArn", "")
	of := _subscribed(f)
}

_shown_target(v) := _not_shown(resources.hidden_why(v)) if resources.hidden(v) else := v

_source_partition(_, target) := partition(target) if partition(target) != ""

_source_partition(source, target) := _region_partition(resources.region(source, input.policy)) if partition(target) == ""

_region_partition(region) := "aws-cn" if {
	startswith(region, "cn-")
} else := "aws-us-gov" if {
	startswith(region, "us-gov-")
} else := "aws" if {
	resources.shown(region)
} else := ""

_not_shown(why) := sprintf("a destination the document does not show (%s)", [why])

_unlocated(source, kind, target) := _unlocated_in(source, kind, target, partition(target))

_unlocated_in(source, kind, target, part) := {"at": source.urn, "kind": kind, "partition": part, "source": source, "target": target}

# the partition field of an ARN, "" when it is not an ARN
partition(arn) := parts[1] if {
	is_string(arn)
	parts := split(arn, ":")
	count(parts) > 2
	parts[0] == "arn"
} else := ""
