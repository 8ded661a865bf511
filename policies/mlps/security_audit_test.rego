package mlps.security_audit_test

import data.mlps.security_audit
import data.lib.fixtures

test_pass_trail_and_eks_logs if {
	eks := fixtures.resource("aws:eks/cluster:Cluster", "eks", {"enabledClusterLogTypes": ["audit", "authenticator"]})
	v := security_audit.violation with input as fixtures.gate_input(fixtures.mlps_policy, [fixtures.trail("audit", {}), eks])
	v == set()
}

test_fail_single_region_trail_and_silent_eks if {
	eks := fixtures.resource("aws:eks/cluster:Cluster", "eks", {"enabledClusterLogTypes": ["api"]})
	trail := fixtures.trail("audit", {"isMultiRegionTrail": false})
	v := security_audit.violation with input as fixtures.gate_input(fixtures.mlps_policy, [trail, eks])
	v == {
		fixtures.stack_finding("MLPS-L3-8.1.4.3a", "mandatory", "no multi-region CloudTrail trail records management events"),
		fixtures.finding("MLPS-L3-8.1.4.3a", "mandatory", "aws:eks/cluster:Cluster", "eks", "EKS cluster does not send audit, authenticator logs"),
	}
}

test_fail_management_events_off if {
	trail := fixtures.trail("audit", {"eventSelectors": [{"includeManagementEvents": false, "readWriteType": "All"}]})
	v := security_audit.violation with input as fixtures.gate_input(fixtures.mlps_policy, [trail])
	v == {fixtures.stack_finding("MLPS-L3-8.1.4.3a", "mandatory", "no multi-region CloudTrail trail records management events")}
}

# audit A6: advanced selectors replace the basic ones; selecting only Data events records no management events
test_fail_advanced_selectors_without_management_events if {
	trail := fixtures.trail("audit", {"eventSelectors": [], "advancedEventSelectors": [{"name": "data", "fieldSelectors": [
		{"field": "eventCategory", "equals": ["Data"]},
		{"field": "resources.type", "equals": ["AWS::S3::Object"]},
	]}]})
	v := security_audit.violation with input as fixtures.gate_input(fixtures.mlps_policy, [trail])
	v == {fixtures.stack_finding("MLPS-L3-8.1.4.3a", "mandatory", "no multi-region CloudTrail trail records management events")}
}

test_pass_advanced_selectors_with_management_events if {
	trail := fixtures.trail("audit", {"eventSelectors": [], "advancedEventSelectors": [{"name": "mgmt", "fieldSelectors": [{"field": "eventCategory", "equals": ["Management"]}]}]})
	v := security_audit.violation with input as fixtures.gate_input(fixtures.mlps_policy, [trail])
	v == set()
}

# red team: a management selector that filters on eventSource (or any field but eventCategory and
# readOnly) does not count, and the finding says why
test_fail_filtered_management_selector_mlps if {
	trail := fixtures.trail("audit", {"eventSelectors": [], "advancedEventSelectors": [{"name": "mgmt", "fieldSelectors": [
		{"field": "eventCategory", "equals": ["Management"]},
		{"field": "eventSource", "notEquals": ["iam.amazonaws.com", "sts.amazonaws.com"]},
	]}]})
	v := security_audit.violation with input as fixtures.gate_input(fixtures.mlps_policy, [trail])
	v == {fixtures.stack_finding("MLPS-L3-8.1.4.3a", "mandatory", "no multi-region CloudTrail trail records management events (not counted, as it narrows the events: trail 'audit': its selector 'mgmt' filters on eventSource)")}
}

# red team F12: a basic selector's excludeManagementEventSources narrows its management events as a
# filter on eventSource does (kms.amazonaws.com drops every Decrypt), so it does not count either; a
# hidden list may name any service; an empty one excludes nothing
test_fail_basic_selector_excluding_sources_mlps if {
	every c in [
		[["kms.amazonaws.com", "rdsdata.amazonaws.com"], "excludes the management events of kms.amazonaws.com, rdsdata.amazonaws.com"],
		["[unknown]", "has excludeManagementEventSources that are unknown until apply"],
		[["[secret]"], "has an excludeManagementEventSources item that is secret"],
	] {
		[sources, why] := c
		trail := fixtures.trail("audit", {"eventSelectors": [{"readWriteType": "All", "includeManagementEvents": true, "excludeManagementEventSources": sources}]})
		v := security_audit.violation with input as fixtures.gate_input(fixtures.mlps_policy, [trail])
		v == {fixtures.stack_finding("MLPS-L3-8.1.4.3a", "mandatory", sprintf("no multi-region CloudTrail trail records management events (not counted, as it narrows the events: trail 'audit': its event selector 1 %s)", [why]))}
	}
}

test_pass_basic_selector_excluding_nothing_mlps if {
	every sources in [[], null] {
		trail := fixtures.trail("audit", {"eventSelectors": [{"readWriteType": "All", "includeManagementEvents": true, "excludeManagementEventSources": sources}]})
		v := security_audit.violation with input as fixtures.gate_input(fixtures.mlps_policy, [trail])
		v == set()
	}
}

test_fail_management_selector_other_filters if {
	every fs in [
		{"field": "eventName", "notStartsWith": ["Delete"]},
		{"field": "userIdentity.arn", "notEquals": ["arn:aws:iam::111122223333:role/x"]},
		{"field": "eventCategory", "notEquals": ["Data"]},
		{"field": "readOnly", "notEquals": ["true"]},
		{"field": "eventCategory", "equals": ["Management"]},
		{"field": "resources.type", "equals": ["AWS::S3::Object"]},
	] {
		trail := fixtures.trail("audit", {"eventSelectors": [], "advancedEventSelectors": [{"name": "mgmt", "fieldSelectors": [
			{"field": "eventCategory", "equals": ["Management"]},
			fs,
		]}]})
		v := security_audit.violation with input as fixtures.gate_input(fixtures.mlps_policy, [trail])
		msgs := [f.message | some f in v]
		count(msgs) == 1
		startswith(msgs[0], "no multi-region CloudTrail trail records management events (not counted, as it narrows the events: trail 'audit': its selector 'mgmt' ")
	}
}

test_pass_management_selectors_split_by_read_only if {
	trail := fixtures.trail("audit", {"eventSelectors": [], "advancedEventSelectors": [
		{"name": "r", "fieldSelectors": [{"field": "eventCategory", "equals": ["Management"]}, {"field": "readOnly", "equals": ["true"]}]},
		{"name": "w", "fieldSelectors": [{"field": "eventCategory", "equals": ["Management"]}, {"field": "readOnly", "equals": ["false"]}]},
	]})
	v := security_audit.violation with input as fixtures.gate_input(fixtures.mlps_policy, [trail])
	v == set()
}

# test audit: a trail with no selectors of either kind records management events (the default)
test_pass_trail_without_selectors if {
	trail := fixtures.trail("audit", {"eventSelectors": [], "advancedEventSelectors": []})
	v := security_audit.violation with input as fixtures.gate_input(fixtures.mlps_policy, [trail])
	v == set()
}

# ---------------------------------------------------------------- S3 server access logging

_bucket_logging := "aws:s3/bucketLogging:BucketLogging"

_no_access_logging := "bucket has no server access logging: no BucketLogging or inline logging names a bucket to receive its access logs"

# the gate input of an MLPS stack with a compliant trail and these resources
_with_trail(resources) := fixtures.gate_input(fixtures.mlps_policy, array.concat([fixtures.trail("audit", {})], resources))

_access_logging(type, source, target) := fixtures.bucket_part(type, source, "access-logging", {"targetBucket": target, "targetPrefix": concat("", [source, "/"])})

_bucket_finding(name, message) := fixtures.finding("MLPS-L3-8.1.4.3a", "mandatory", fixtures.bucket_type, name, message)

_unestablished(target) := sprintf("server access logs go to %s, so where they are kept and for how long cannot be established", [target])

# the access-log bucket receives the others' logs, so it need not log its own
test_pass_bucket_logging_to_an_access_log_bucket if {
	v := security_audit.violation with input as _with_trail([
		fixtures.bucket("data", "internal"),
		fixtures.bucket("access-logs", "internal"),
		_access_logging(_bucket_logging, "data", "access-logs"),
	])
	v == set()
}

test_pass_bucket_logging_v2 if {
	v := security_audit.violation with input as _with_trail([
		fixtures.bucket("data", "internal"),
		fixtures.bucket("access-logs", "internal"),
		_access_logging("aws:s3/bucketLoggingV2:BucketLoggingV2", "data", "access-logs"),
	])
	v == set()
}

# aws.s3.Bucket's inline `logging` object
test_pass_inline_logging if {
	data_bucket := fixtures.resource(fixtures.bucket_type, "data", {"bucket": "data", "logging": {"targetBucket": "access-logs", "targetPrefix": "data/"}})
	v := security_audit.violation with input as _with_trail([data_bucket, fixtures.bucket("access-logs", "internal")])
	v == set()
}

# aws.s3.BucketV2's inline `loggings` list
test_pass_inline_loggings_list if {
	data_bucket := fixtures.resource("aws:s3/bucketV2:BucketV2", "data", {"bucket": "data", "loggings": [{"targetBucket": "access-logs"}]})
	v := security_audit.violation with input as _with_trail([data_bucket, fixtures.bucket("access-logs", "internal")])
	v == set()
}

# AWS advises against it (logs about the logs), but a bucket logging to itself records its access
test_pass_bucket_logging_to_itself if {
	v := security_audit.violation with input as _with_trail([fixtures.bucket("data", "internal"), _access_logging(_bucket_logging, "data", "data")])
	v == set()
}

# a bucket is exempt only as the target of some bucket's access logs: "spare" receives none
test_fail_buckets_without_access_logging if {
	v := security_audit.violation with input as _with_trail([fixtures.bucket("data", "internal"), fixtures.bucket("spare", "internal")])
	v == {_bucket_finding("data", _no_access_logging), _bucket_finding("spare", _no_access_logging)}
}

# fail closed: a logging configuration whose bucket a preview does not know yet configures no bucket
# the document names, and its target is then no known bucket's target
test_fail_logging_configuration_of_an_unknown_bucket if {
	v := security_audit.violation with input as _with_trail([
		fixtures.bucket("data", "internal"),
		fixtures.bucket("access-logs", "internal"),
		fixtures.resource(_bucket_logging, "data-access-logging", {"bucket": "[unknown]", "targetBucket": "access-logs"}),
	])
	v == {_bucket_finding("data", _no_access_logging), _bucket_finding("access-logs", _no_access_logging)}
}

test_fail_target_outside_the_stack if {
	v := security_audit.violation with input as _with_trail([fixtures.bucket("data", "internal"), _access_logging(_bucket_logging, "data", "central-access-logs")])
	v == {_bucket_finding("data", _unestablished("central-access-logs, which is not a bucket the stack creates"))}
}

# fail closed: inline logging a preview does not know yet names no bucket
test_fail_inline_logging_unknown_at_preview if {
	data_bucket := fixtures.resource(fixtures.bucket_type, "data", {"bucket": "data", "logging": "[unknown]"})
	v := security_audit.violation with input as _with_trail([data_bucket, fixtures.bucket("access-logs", "internal")])
	v == {
		_bucket_finding("data", _unestablished("[unknown], which is not a bucket the stack creates")),
		_bucket_finding("access-logs", _no_access_logging),
	}
}

test_fail_logging_without_a_target if {
	logging := fixtures.bucket_part(_bucket_logging, "data", "access-logging", {"targetPrefix": "data/"})
	v := security_audit.violation with input as _with_trail([fixtures.bucket("data", "internal"), logging])
	v == {_bucket_finding("data", _unestablished("no bucket (the logging configuration names no target)"))}
}

# a target that is not a reference at all names no bucket either (never a silent pass)
test_fail_target_that_is_not_a_reference if {
	data_bucket := fixtures.resource(fixtures.bucket_type, "data", {"bucket": "data", "logging": {"targetBucket": 42}})
	v := security_audit.violation with input as _with_trail([data_bucket])
	v == {_bucket_finding("data", _unestablished("42, which is not a bucket the stack creates"))}
}

test_fail_target_in_another_region if {
	target := object.union(fixtures.bucket("access-logs", "internal"), {"region": "cn-northwest-1"})
	v := security_audit.violation with input as _with_trail([fixtures.bucket("data", "internal"), target, _access_logging(_bucket_logging, "data", "access-logs")])
	v == {_bucket_finding("data", "server access logs go to bucket access-logs in cn-northwest-1, but S3 delivers them only to a bucket in the source's region (cn-north-1)")}
}

# Object Lock on the target, in each form a bucket takes it: S3 does not deliver access logs there
test_fail_target_with_object_lock if {
	enabled := object.union(fixtures.bucket("locked-a", "internal"), {"inputs": {"objectLockEnabled": true}})
	inline := object.union(fixtures.bucket("locked-b", "internal"), {"inputs": {"objectLockConfiguration": {"objectLockEnabled": "Enabled"}}})
	lock := fixtures.bucket_part("aws:s3/bucketObjectLockConfiguration:BucketObjectLockConfiguration", "locked-c", "object-lock", {"rule": {"defaultRetention": {"mode": "GOVERNANCE", "days": 30}}})
	v := security_audit.violation with input as _with_trail([
		fixtures.bucket("data-a", "internal"), enabled, _access_logging(_bucket_logging, "data-a", "locked-a"),
		fixtures.bucket("data-b", "internal"), inline, _access_logging(_bucket_logging, "data-b", "locked-b"),
		fixtures.bucket("data-c", "internal"), fixtures.bucket("locked-c", "internal"), lock, _access_logging(_bucket_logging, "data-c", "locked-c"),
	])
	msg := "server access logs go to bucket %s, which has S3 Object Lock: S3 does not deliver access logs to such a bucket"
	v == {
		_bucket_finding("data-a", sprintf(msg, ["locked-a"])),
		_bucket_finding("data-b", sprintf(msg, ["locked-b"])),
		_bucket_finding("data-c", sprintf(msg, ["locked-c"])),
	}
}

# a trail the policy relies on (compliance.existingTrail) records management events: on the policy's
# word without --lookup, else as CloudTrail describes it
test_pass_existing_trail_records_management_events if {
	policy := fixtures.with_existing_trail(fixtures.mlps_policy, false)
	v := security_audit.violation with input as fixtures.gate_input(policy, [])
	v == set()
	w := security_audit.violation with input as fixtures.with_trail_fact(fixtures.gate_input(policy, []), fixtures.trail_fact({}))
	w == set()
}

test_fail_existing_trail_unrecording_or_without_global_events if {
	policy := fixtures.with_existing_trail(fixtures.mlps_policy, false)
	fact := fixtures.trail_fact({"include_global_service_events": false, "logging": false})
	v := security_audit.violation with input as fixtures.with_trail_fact(fixtures.gate_input(policy, []), fact)
	arn := fixtures.existing_trail_arn
	v == {
		fixtures.stack_finding("MLPS-L3-8.1.4.3a", "mandatory", "no multi-region CloudTrail trail records management events"),
		fixtures.stack_finding("MLPS-L3-8.1.4.3a", "mandatory", sprintf("existing trail %s does not record global service events (read from CloudTrail)", [arn])),
		fixtures.stack_finding("MLPS-L3-8.1.4.3a", "mandatory", sprintf("existing trail %s is not recording (logging is stopped) (read from CloudTrail)", [arn])),
	}
}

# audit: reads and writes of management events may come from two selectors; reads alone do not count
test_management_events_of_reads_and_writes_by_two_selectors if {
	split := fixtures.trail("audit", {"eventSelectors": [
		{"readWriteType": "ReadOnly", "includeManagementEvents": true},
		{"readWriteType": "WriteOnly", "includeManagementEvents": true},
	]})
	v := security_audit.violation with input as fixtures.gate_input(fixtures.mlps_policy, [split])
	v == set()
	reads := fixtures.trail("audit", {"eventSelectors": [], "advancedEventSelectors": [{"name": "r", "fieldSelectors": [
		{"field": "eventCategory", "equals": ["Management"]},
		{"field": "readOnly", "equals": ["true"]},
	]}]})
	w := security_audit.violation with input as fixtures.gate_input(fixtures.mlps_policy, [reads])
	w == {fixtures.stack_finding("MLPS-L3-8.1.4.3a", "mandatory", "no multi-region CloudTrail trail records management events")}
}


# red team: a trail switch that is secret or unknown until apply may be off: logging, global service
# events, management events; the message names it
test_fail_hidden_trail_switches if {
	every c in [
		[{"enableLogging": "[secret]"}, "enableLogging", "secret"],
		[{"enableLogging": "[unknown]"}, "enableLogging", "unknown until apply"],
		[{"includeGlobalServiceEvents": "[secret]"}, "includeGlobalServiceEvents", "secret"],
		[{"eventSelectors": [{"includeManagementEvents": "[secret]", "readWriteType": "All"}]}, "includeManagementEvents", "secret"],
		[{"eventSelectors": [{"includeManagementEvents": "[unknown]", "readWriteType": "All"}]}, "includeManagementEvents", "unknown until apply"],
	] {
		[inputs, name, why] := c
		eks := fixtures.resource("aws:eks/cluster:Cluster", "eks", {"enabledClusterLogTypes": ["audit", "authenticator"]})
		v := security_audit.violation with input as fixtures.gate_input(fixtures.mlps_policy, [fixtures.trail("audit", inputs), eks])
		v == {fixtures.stack_finding("MLPS-L3-8.1.4.3a", "mandatory", sprintf("no multi-region CloudTrail trail records management events (trail 'audit': its %s is %s, so it may be off)", [name, why]))}
	}
}

# red team: a trail's whole selector list, a selector or its field selectors that is secret or
# unknown until apply may record no management events (judged, not an engine error); so may an EKS
# cluster's hidden log types leave the audit and authenticator logs off
test_fail_hidden_trail_selector_lists if {
	every c in [
		[{"eventSelectors": "[secret]"}, "its eventSelectors is secret"],
		[{"advancedEventSelectors": "[unknown]"}, "its advancedEventSelectors is unknown until apply"],
		[{"advancedEventSelectors": ["[secret]"]}, "a selector of its advancedEventSelectors is secret"],
		[{"advancedEventSelectors": [{"name": "m", "fieldSelectors": "[unknown]"}]}, "the fieldSelectors of its selector 'm' is unknown until apply"],
	] {
		[inputs, note] := c
		eks := fixtures.resource("aws:eks/cluster:Cluster", "eks", {"enabledClusterLogTypes": ["audit", "authenticator"]})
		v := security_audit.violation with input as fixtures.gate_input(fixtures.mlps_policy, [fixtures.trail("audit", inputs), eks])
		v == {fixtures.stack_finding("MLPS-L3-8.1.4.3a", "mandatory", sprintf("no multi-region CloudTrail trail records management events (trail 'audit': %s, so what it records cannot be established)", [note]))}
	}
}

test_fail_hidden_eks_log_types if {
	eks := fixtures.resource("aws:eks/cluster:Cluster", "eks", {"enabledClusterLogTypes": "[secret]"})
	v := security_audit.violation with input as fixtures.gate_input(fixtures.mlps_policy, [fixtures.trail("audit", {}), eks])
	v == {fixtures.finding("MLPS-L3-8.1.4.3a", "mandatory", "aws:eks/cluster:Cluster", "eks", "EKS cluster's enabledClusterLogTypes is secret, so its audit, authenticator logs may be off")}
}

# red team (first-deploy preview): the logging configuration's `bucket` and `targetBucket` are unknown
# until apply; their property dependencies name the source and the access-log bucket (without them:
# test_fail_logging_configuration_of_an_unknown_bucket)
test_pass_logging_configuration_unknown_until_apply_tied_by_property_dependencies if {
	logging := object.union(fixtures.resource(_bucket_logging, "data-access-logging", {"bucket": "[unknown]", "targetBucket": "[unknown]"}), {"property_dependencies": {
		"bucket": [fixtures.urn(fixtures.bucket_type, "data")],
		"targetBucket": [fixtures.urn(fixtures.bucket_type, "access-logs")],
	}})
	v := security_audit.violation with input as _with_trail([fixtures.bucket("data", "internal"), fixtures.bucket("access-logs", "internal"), logging])
	v == set()
}

test_fail_logging_target_unknown_until_apply_without_property_dependencies if {
	logging := object.union(fixtures.resource(_bucket_logging, "data-access-logging", {"bucket": "[unknown]", "targetBucket": "[unknown]"}), {"property_dependencies": {
		"bucket": [fixtures.urn(fixtures.bucket_type, "data")],
	}})
	v := security_audit.violation with input as _with_trail([fixtures.bucket("data", "internal"), fixtures.bucket("access-logs", "internal"), logging])
	v == {
		_bucket_finding("data", _unestablished("[unknown], which is not a bucket the stack creates")),
		_bucket_finding("access-logs", _no_access_logging),
	}
}
