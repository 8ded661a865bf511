# METADATA
# title: Audit helpers
# description: CloudTrail trails, S3 data events, VPC flow logs and EKS control-plane logs.
# scope: package
package lib.audit

import data.lib.findings
import data.lib.resources
import data.lib.s3

trail_type := "aws:cloudtrail/trail:Trail"

trails(document) := resources.of_type(document, trail_type)

trail_weaknesses(document) := {findings.problem(t, "trail is not multi-region") |
	some t in trails(document)
	not resources.truthy(object.get(t.inputs, "isMultiRegionTrail", false))
} | {findings.problem(t, "trail has log-file validation off") |
	some t in trails(document)
	not resources.truthy(object.get(t.inputs, "enableLogFileValidation", false))
}

# management events are on unless every selector turns them off
management_events(t) if count(object.get(t.inputs, "eventSelectors", [])) == 0

management_events(t) if {
	some sel in object.get(t.inputs, "eventSelectors", [])
	object.get(sel, "includeManagementEvents", true) != false
}

management_events(t) if {
	some sel in object.get(t.inputs, "advancedEventSelectors", [])
	some fs in sel.fieldSelectors
	fs.field == "eventCategory"
	"Management" in object.get(fs, "equals", [])
}

# S3 data events: the bucket keys some trail's selectors cover (built once; "*" covers every bucket)
_data_event_keys contains key if {
	some t in trails(input.document)
	some sel in object.get(t.inputs, "eventSelectors", [])
	some dr in object.get(sel, "dataResources", [])
	dr.type == "AWS::S3::Object"
	some v in dr.values
	some key in _selector_keys(v)
}

_data_event_keys contains key if {
	some t in trails(input.document)
	some sel in object.get(t.inputs, "advancedEventSelectors", [])
	fields := {fs.field: fs | some fs in sel.fieldSelectors}
	"Data" in object.get(fields, ["eventCategory", "equals"], [])
	"AWS::S3::Object" in object.get(fields, ["resources.type", "equals"], [])
	some key in _arn_selector_keys(object.get(fields, "resources.ARN", {}))
}

_arn_selector_keys(selector) := {"*"} if selector == {}

_arn_selector_keys(selector) := {k | some v in object.get(selector, "startsWith", []); some k in _selector_keys(v)} if selector != {}

# "arn:aws:s3" (every bucket) or a bucket's ARN / prefix -> the bucket name, with and without an auto-name suffix
_selector_keys(value) := {"*"} if value in {"arn:aws:s3", "arn:aws-cn:s3", "arn:aws:s3:::", "arn:aws-cn:s3:::"}

_selector_keys(value) := {name, s3.strip_autoname(name)} if {
	not value in {"arn:aws:s3", "arn:aws-cn:s3", "arn:aws:s3:::", "arn:aws-cn:s3:::"}
	name := s3.arn_bucket(value)
}

# data events cover the bucket at position b
data_events_cover(_) if "*" in _data_event_keys

data_events_cover(b) if b in _data_event_buckets

_data_event_buckets contains b if {
	some key in _data_event_keys
	some b in s3.with_ref(key)
}

# the stack's VPC and any VPC the document creates
vpcs(document, policy) := {v | some v in [object.get(policy, ["cloud", "vpcId"], null)]; is_string(v)} | {r.urn |
	some r in resources.of_type(document, "aws:ec2/vpc:Vpc")
}

flow_logged(document, vpc) if {
	some fl in resources.of_type(document, "aws:ec2/flowLog:FlowLog")
	object.get(fl.inputs, "vpcId", "") == vpc
}

eks_log_gaps(document, required) := {findings.problem(c, msg) |
	some c in resources.of_type(document, "aws:eks/cluster:Cluster")
	have := {t | some t in object.get(c.inputs, "enabledClusterLogTypes", [])}
	missing := [t | some t in sort([x | some x in required]); not t in have]
	count(missing) > 0
	msg := sprintf("EKS cluster does not send %s logs", [concat(", ", missing)])
}

# positions of the buckets that receive a trail's log files (their own data events would log themselves)
trail_destinations contains b if {
	some t in trails(input.document)
	name := object.get(t.inputs, "s3BucketName", "")
	is_string(name)
	some key in {name, s3.strip_autoname(name)}
	some b in s3.with_ref(key)
}
