# METADATA
# title: Audit helpers
# description: CloudTrail trails, S3 data events, VPC flow logs and EKS control-plane logs.
# scope: package
package lib.audit

import data.lib.resources
import data.lib.s3

trail_type := "aws:cloudtrail/trail:Trail"

trails(document) := resources.of_type(document, trail_type)

trail_weaknesses(document) := {{"resource": t, "message": "trail is not multi-region"} |
	some t in trails(document)
	not resources.truthy(object.get(t.inputs, "isMultiRegionTrail", false))
} | {{"resource": t, "message": "trail has log-file validation off"} |
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

data_events_cover(document, b) if {
	some t in trails(document)
	some sel in object.get(t.inputs, "eventSelectors", [])
	some dr in object.get(sel, "dataResources", [])
	dr.type == "AWS::S3::Object"
	some v in dr.values
	_covers(v, b)
}

data_events_cover(document, b) if {
	some t in trails(document)
	some sel in object.get(t.inputs, "advancedEventSelectors", [])
	fields := {fs.field: fs | some fs in sel.fieldSelectors}
	"Data" in object.get(fields, ["eventCategory", "equals"], [])
	"AWS::S3::Object" in object.get(fields, ["resources.type", "equals"], [])
	_arn_selector_covers(object.get(fields, "resources.ARN", {}), b)
}

_arn_selector_covers(selector, _) if selector == {}

_arn_selector_covers(selector, b) if {
	some v in object.get(selector, "startsWith", [])
	_covers(v, b)
}

# "arn:aws:s3" (every bucket) or the bucket's own ARN / prefix
_covers(value, _) if value in {"arn:aws:s3", "arn:aws-cn:s3", "arn:aws:s3:::", "arn:aws-cn:s3:::"}

_covers(value, b) if s3.names(b, s3.arn_bucket(value))

# the stack's VPC and any VPC the document creates
vpcs(document, policy) := {v | some v in [object.get(policy, ["cloud", "vpcId"], null)]; is_string(v)} | {r.urn |
	some r in resources.of_type(document, "aws:ec2/vpc:Vpc")
}

flow_logged(document, vpc) if {
	some fl in resources.of_type(document, "aws:ec2/flowLog:FlowLog")
	object.get(fl.inputs, "vpcId", "") == vpc
}

eks_log_gaps(document, required) := {{"resource": c, "message": msg} |
	some c in resources.of_type(document, "aws:eks/cluster:Cluster")
	have := {t | some t in object.get(c.inputs, "enabledClusterLogTypes", [])}
	missing := [t | some t in sort([x | some x in required]); not t in have]
	count(missing) > 0
	msg := sprintf("EKS cluster does not send %s logs", [concat(", ", missing)])
}

# a bucket that receives a trail's log files (its own data events would log themselves)
trail_destination(document, b) if {
	some t in trails(document)
	s3.names(b, object.get(t.inputs, "s3BucketName", ""))
}
