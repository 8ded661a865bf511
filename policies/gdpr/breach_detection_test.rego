package gdpr.breach_detection_test

import data.gdpr.breach_detection
import data.lib.fixtures

_f(type, name, msg) := fixtures.finding("GDPR-33-1", "mandatory", type, name, msg)

pass_resources := array.concat(fixtures.good_bucket("ds", "personal"), [
	fixtures.trail("audit", {}),
	fixtures.flow_log("flow", "vpc-0123456789abcdef0"),
	fixtures.resource("aws:eks/cluster:Cluster", "eks", {"enabledClusterLogTypes": ["api", "audit", "authenticator"]}),
])

fail_resources := [
	fixtures.bucket("ds", "personal"),
	fixtures.trail("audit", {"isMultiRegionTrail": false, "enableLogFileValidation": false, "eventSelectors": []}),
	fixtures.resource("aws:eks/cluster:Cluster", "eks", {"enabledClusterLogTypes": ["api"]}),
]

test_pass_trail_flow_logs_and_audit_log if {
	v := breach_detection.violation with input as fixtures.gate_input(fixtures.gdpr_policy, pass_resources)
	v == set()
}

test_fail_detection_gaps if {
	v := breach_detection.violation with input as fixtures.gate_input(fixtures.gdpr_policy, fail_resources)
	v == {
		_f("aws:cloudtrail/trail:Trail", "audit", "trail is not multi-region"),
		_f("aws:cloudtrail/trail:Trail", "audit", "trail has log-file validation off"),
		_f("aws:s3/bucket:Bucket", "ds", "no trail records S3 data events for this personal-data bucket"),
		fixtures.stack_finding("GDPR-33-1", "mandatory", "VPC vpc-0123456789abcdef0 has no flow log of ALL traffic (trafficType \"ALL\")"),
		_f("aws:eks/cluster:Cluster", "eks", "EKS cluster does not send audit logs"),
	}
}

test_fail_no_trail_at_all if {
	v := breach_detection.violation with input as fixtures.gate_input(fixtures.gdpr_policy, [fixtures.flow_log("flow", "vpc-0123456789abcdef0")])
	v == {fixtures.stack_finding("GDPR-33-1", "mandatory", "no CloudTrail trail records the stack's account")}
}

# audit A6: a stopped trail records nothing
test_fail_stopped_trail if {
	resources := [fixtures.trail("audit", {"enableLogging": false}), fixtures.flow_log("flow", "vpc-0123456789abcdef0")]
	v := breach_detection.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == {_f("aws:cloudtrail/trail:Trail", "audit", "trail is stopped (enableLogging false): it records nothing")}
}

# audit B1: a FlowLog names a VPC the stack creates by its id (mock id or unknown), not by its URN
test_pass_flow_log_on_created_vpc if {
	resources := [
		fixtures.trail("audit", {}),
		fixtures.flow_log("flow", "vpc-0123456789abcdef0"),
		fixtures.resource("aws:ec2/vpc:Vpc", "data-vpc", {"cidrBlock": "10.30.0.0/16"}),
		fixtures.flow_log("data-flow", "data-vpc-9ec37ca1"),
		fixtures.resource("aws:ec2/vpc:Vpc", "app-vpc", {"cidrBlock": "10.31.0.0/16"}),
		fixtures.flow_log("app-flow", "[unknown]"),
	]
	v := breach_detection.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == set()
}

test_fail_created_vpc_without_flow_log if {
	resources := [
		fixtures.trail("audit", {}),
		fixtures.flow_log("flow", "vpc-0123456789abcdef0"),
		fixtures.resource("aws:ec2/vpc:Vpc", "data-vpc", {"cidrBlock": "10.30.0.0/16"}),
		fixtures.flow_log("other-flow", "other-vpc-9ec37ca1"),
	]
	v := breach_detection.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == {fixtures.stack_finding("GDPR-33-1", "mandatory", sprintf("VPC %s has no flow log of ALL traffic (trafficType \"ALL\")", [fixtures.urn("aws:ec2/vpc:Vpc", "data-vpc")]))}
}

# An unknown vpcId comes from the VPC its property dependencies name, and only from it; a deployed
# VPC is named by its recorded id.
test_fail_unknown_vpc_id_linked_to_another_vpc if {
	resources := [
		fixtures.trail("audit", {}),
		fixtures.flow_log("flow", "vpc-0123456789abcdef0"),
		fixtures.resource("aws:ec2/vpc:Vpc", "data-vpc", {"cidrBlock": "10.30.0.0/16"}),
		fixtures.resource("aws:ec2/vpc:Vpc", "app-vpc", {"cidrBlock": "10.31.0.0/16"}),
		object.union(fixtures.flow_log("app-flow", "[unknown]"), {"property_dependencies": {"vpcId": [fixtures.urn("aws:ec2/vpc:Vpc", "app-vpc")]}}),
	]
	v := breach_detection.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == {fixtures.stack_finding("GDPR-33-1", "mandatory", sprintf("VPC %s has no flow log of ALL traffic (trafficType \"ALL\")", [fixtures.urn("aws:ec2/vpc:Vpc", "data-vpc")]))}
}

test_pass_flow_log_names_deployed_vpc_by_id if {
	resources := [
		fixtures.trail("audit", {}),
		fixtures.flow_log("flow", "vpc-0123456789abcdef0"),
		object.union(fixtures.resource("aws:ec2/vpc:Vpc", "data-vpc", {"cidrBlock": "10.30.0.0/16"}), {"id": "vpc-0fedcba9876543210"}),
		fixtures.flow_log("data-flow", "vpc-0fedcba9876543210"),
	]
	v := breach_detection.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == set()
}

test_fail_flow_log_names_other_id if {
	resources := [
		fixtures.trail("audit", {}),
		fixtures.flow_log("flow", "vpc-0123456789abcdef0"),
		object.union(fixtures.resource("aws:ec2/vpc:Vpc", "data-vpc", {"cidrBlock": "10.30.0.0/16"}), {"id": "vpc-0fedcba9876543210"}),
		fixtures.flow_log("data-flow", "vpc-0aaaaaaaaaaaaaaaa"),
	]
	v := breach_detection.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == {fixtures.stack_finding("GDPR-33-1", "mandatory", sprintf("VPC %s has no flow log of ALL traffic (trafficType \"ALL\")", [fixtures.urn("aws:ec2/vpc:Vpc", "data-vpc")]))}
}

# test audit: S3 data events selected through advanced event selectors cover the buckets they name
_advanced_trail(arn_selector) := fixtures.trail("audit", {"eventSelectors": [], "advancedEventSelectors": [
	{"name": "mgmt", "fieldSelectors": [{"field": "eventCategory", "equals": ["Management"]}]},
	{"name": "s3", "fieldSelectors": array.concat(
		[{"field": "eventCategory", "equals": ["Data"]}, {"field": "resources.type", "equals": ["AWS::S3::Object"]}],
		arn_selector,
	)},
]})

_advanced_resources(arn_selector) := array.concat(fixtures.good_bucket("ds", "personal"), [
	_advanced_trail(arn_selector),
	fixtures.flow_log("flow", "vpc-0123456789abcdef0"),
	fixtures.resource("aws:eks/cluster:Cluster", "eks", {"enabledClusterLogTypes": ["api", "audit", "authenticator"]}),
])

test_pass_advanced_selectors_cover_bucket if {
	v := breach_detection.violation with input as fixtures.gate_input(fixtures.gdpr_policy, _advanced_resources([{"field": "resources.ARN", "startsWith": ["arn:aws:s3:::ds/"]}]))
	v == set()
}

test_pass_advanced_selectors_every_bucket if {
	v := breach_detection.violation with input as fixtures.gate_input(fixtures.gdpr_policy, _advanced_resources([]))
	v == set()
}

test_fail_advanced_selectors_other_bucket if {
	v := breach_detection.violation with input as fixtures.gate_input(fixtures.gdpr_policy, _advanced_resources([{"field": "resources.ARN", "startsWith": ["arn:aws:s3:::other/"]}]))
	v == {_f("aws:s3/bucket:Bucket", "ds", "no trail records S3 data events for this personal-data bucket")}
}

# a flow log of REJECT (or ACCEPT) traffic alone records half of what reaches the VPC
test_fail_flow_log_of_rejected_traffic_only if {
	reject := json.patch(fixtures.flow_log("flow", "vpc-0123456789abcdef0"), [{"op": "replace", "path": "/inputs/trafficType", "value": "REJECT"}])
	v := breach_detection.violation with input as fixtures.gate_input(fixtures.gdpr_policy, array.concat(pass_resources, [reject]))
	v == set()
	only := [r | some r in pass_resources; r.type != "aws:ec2/flowLog:FlowLog"]
	w := breach_detection.violation with input as fixtures.gate_input(fixtures.gdpr_policy, array.concat(only, [reject]))
	w == {fixtures.stack_finding("GDPR-33-1", "mandatory", "VPC vpc-0123456789abcdef0 has no flow log of ALL traffic (trafficType \"ALL\")")}
}

# An existing trail (compliance.existingTrail) records the account: the stack needs no trail of its
# own but for the personal-data buckets' S3 data events, which it may record too
_no_trail := [fixtures.flow_log("flow", "vpc-0123456789abcdef0")]

_data_trail := fixtures.trail("audit", {"eventSelectors": [{
	"readWriteType": "All",
	"includeManagementEvents": false,
	"dataResources": [{"type": "AWS::S3::Object", "values": ["arn:aws:s3:::ds/"]}],
}]})

test_pass_existing_trail_without_lookup_on_the_policy_s_word if {
	policy := fixtures.with_existing_trail(fixtures.gdpr_policy, true)
	v := breach_detection.violation with input as fixtures.gate_input(policy, array.concat(fixtures.good_bucket("ds", "personal"), _no_trail))
	v == set()
}

test_fail_existing_trail_that_records_no_data_events_leaves_personal_buckets_unrecorded if {
	policy := fixtures.with_existing_trail(fixtures.gdpr_policy, false)
	v := breach_detection.violation with input as fixtures.gate_input(policy, array.concat(fixtures.good_bucket("ds", "personal"), _no_trail))
	v == {_f("aws:s3/bucket:Bucket", "ds", "no trail records S3 data events for this personal-data bucket")}
}

test_pass_existing_trail_with_a_data_events_trail_of_the_stack if {
	policy := fixtures.with_existing_trail(fixtures.gdpr_policy, false)
	resources := array.concat(fixtures.good_bucket("ds", "personal"), [_data_trail, fixtures.flow_log("flow", "vpc-0123456789abcdef0")])
	v := breach_detection.violation with input as fixtures.gate_input(policy, resources)
	v == set()
}

test_fail_data_events_trail_without_an_existing_trail if {
	resources := array.concat(fixtures.good_bucket("ds", "personal"), [_data_trail, fixtures.flow_log("flow", "vpc-0123456789abcdef0")])
	v := breach_detection.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == {fixtures.stack_finding("GDPR-33-1", "mandatory", "no trail records the account's management events")}
}

test_fail_existing_trail_as_cloudtrail_describes_it if {
	policy := fixtures.with_existing_trail(fixtures.gdpr_policy, true)
	fact := fixtures.trail_fact({"multi_region": false, "logging": false, "management_events": false, "log_file_validation": false})
	gate_in := fixtures.with_trail_fact(fixtures.gate_input(policy, array.concat(fixtures.good_bucket("ds", "personal"), _no_trail)), fact)
	v := breach_detection.violation with input as gate_in
	arn := fixtures.existing_trail_arn
	v == {
		fixtures.stack_finding("GDPR-33-1", "mandatory", sprintf("existing trail %s is not multi-region (read from CloudTrail)", [arn])),
		fixtures.stack_finding("GDPR-33-1", "mandatory", sprintf("existing trail %s has log-file validation off (read from CloudTrail)", [arn])),
		fixtures.stack_finding("GDPR-33-1", "mandatory", sprintf("existing trail %s is not recording (logging is stopped) (read from CloudTrail)", [arn])),
		fixtures.stack_finding("GDPR-33-1", "mandatory", sprintf("existing trail %s does not record management events, reads and writes (read from CloudTrail)", [arn])),
		# the policy says it records the data events; CloudTrail says it records none
		_f("aws:s3/bucket:Bucket", "ds", "no trail records S3 data events for this personal-data bucket"),
	}
}

test_pass_existing_trail_whose_data_events_cover_the_bucket if {
	policy := fixtures.with_existing_trail(fixtures.gdpr_policy, true)
	every values in [["arn:aws:s3"], ["arn:aws:s3:::ds/"]] {
		fact := fixtures.trail_fact({"s3_data_events": values})
		gate_in := fixtures.with_trail_fact(fixtures.gate_input(policy, array.concat(fixtures.good_bucket("ds", "personal"), _no_trail)), fact)
		v := breach_detection.violation with input as gate_in
		v == set()
	}
}

test_fail_existing_trail_whose_data_events_cover_another_bucket if {
	policy := fixtures.with_existing_trail(fixtures.gdpr_policy, true)
	fact := fixtures.trail_fact({"s3_data_events": ["arn:aws:s3:::other/"]})
	gate_in := fixtures.with_trail_fact(fixtures.gate_input(policy, array.concat(fixtures.good_bucket("ds", "personal"), _no_trail)), fact)
	v := breach_detection.violation with input as gate_in
	v == {_f("aws:s3/bucket:Bucket", "ds", "no trail records S3 data events for this personal-data bucket")}
}

# audit: a bucket of the same logical name elsewhere (another stack's, or this one's before a
# replacement) is not this bucket: the existing trail's buckets are matched by their exact names
test_fail_existing_trail_recording_a_bucket_of_the_same_stem if {
	policy := fixtures.with_existing_trail(fixtures.gdpr_policy, true)
	named := object.union(fixtures.bucket("ds", "personal"), {"inputs": object.union(fixtures.bucket("ds", "personal").inputs, {"bucket": "ds-1a2b3c4"})})
	bucket := array.concat([named], array.slice(fixtures.good_bucket("ds", "personal"), 1, 100))
	same := fixtures.with_trail_fact(fixtures.gate_input(policy, array.concat(bucket, _no_trail)), fixtures.trail_fact({"s3_data_events": ["arn:aws:s3:::ds-1a2b3c4/"]}))
	ok := breach_detection.violation with input as same
	ok == set()
	other := fixtures.with_trail_fact(fixtures.gate_input(policy, array.concat(bucket, _no_trail)), fixtures.trail_fact({"s3_data_events": ["arn:aws:s3:::ds-0abcdef/"]}))
	v := breach_detection.violation with input as other
	v == {_f("aws:s3/bucket:Bucket", "ds", "no trail records S3 data events for this personal-data bucket")}
}

# audit: the policy names the stack's own trail (seedance-STACK), which this deploy turns into a
# data-events trail (or deletes)
test_fail_existing_trail_that_is_the_stack_s_own if {
	own := sprintf("arn:aws:cloudtrail:eu-central-1:111122223333:trail/seedance-%s", [fixtures.stack])
	policy := object.union(fixtures.gdpr_policy, {"compliance": object.union(fixtures.gdpr_policy.compliance, {"existingTrail": {"arn": own, "s3DataEvents": true}})})
	v := breach_detection.violation with input as fixtures.gate_input(policy, array.concat(fixtures.good_bucket("ds", "personal"), _no_trail))
	v == {fixtures.stack_finding("GDPR-33-1", "mandatory", sprintf("existing trail %s is this stack's own trail, which this deploy stops recording management events (or deletes): name a trail the stack does not manage", [own]))}
}

# audit: another account's trail records that account only, unless it is an organization trail
test_fail_existing_trail_of_another_account_not_an_organization_trail if {
	policy := fixtures.with_existing_trail(object.union(fixtures.gdpr_policy, {"cloud": object.union(fixtures.gdpr_policy.cloud, {"accountId": "111122223333"})}), true)
	gate_in := fixtures.gate_input(policy, array.concat(fixtures.good_bucket("ds", "personal"), _no_trail))
	org := breach_detection.violation with input as fixtures.with_trail_fact(gate_in, fixtures.trail_fact({"s3_data_events": ["arn:aws:s3"]}))
	org == set()
	v := breach_detection.violation with input as fixtures.with_trail_fact(gate_in, fixtures.trail_fact({"organization": false, "s3_data_events": ["arn:aws:s3"]}))
	v == {fixtures.stack_finding("GDPR-33-1", "mandatory", sprintf("existing trail %s is a trail of account 999988887777 and not an organization trail, so it does not record account 111122223333 (read from CloudTrail)", [fixtures.existing_trail_arn]))}
}

# audit: a trail whose selectors keep reads only records no change
test_fail_read_only_trail_records_no_management_events if {
	trail := fixtures.trail("audit", {"eventSelectors": [{"readWriteType": "ReadOnly", "includeManagementEvents": true}]})
	v := breach_detection.violation with input as fixtures.gate_input(fixtures.gdpr_policy, [trail, fixtures.flow_log("flow", "vpc-0123456789abcdef0")])
	v == {fixtures.stack_finding("GDPR-33-1", "mandatory", "no trail records the account's management events")}
}


# audit: the existing trail's buckets are matched with a bucket's own name, never its logical name;
# a bucket whose name the document does not know (offline synthesis) cannot be shown recorded
test_fail_existing_trail_recording_the_logical_name_or_an_unnamed_bucket if {
	policy := fixtures.with_existing_trail(fixtures.gdpr_policy, true)
	named := object.union(fixtures.bucket("ds", "personal"), {"inputs": object.union(fixtures.bucket("ds", "personal").inputs, {"bucket": "ds-1a2b3c4"})})
	logical := fixtures.with_trail_fact(fixtures.gate_input(policy, array.concat([named], _no_trail)), fixtures.trail_fact({"s3_data_events": ["arn:aws:s3:::ds/"]}))
	v := breach_detection.violation with input as logical
	v == {_f("aws:s3/bucket:Bucket", "ds", "no trail records S3 data events for this personal-data bucket")}
	unnamed := fixtures.resource("aws:s3/bucket:Bucket", "ds", {"tags": fixtures.tags("personal")})
	offline := fixtures.with_trail_fact(fixtures.gate_input(policy, array.concat([unnamed], _no_trail)), fixtures.trail_fact({"s3_data_events": ["arn:aws:s3:::ds-1a2b3c4/"]}))
	w := breach_detection.violation with input as offline
	w == {_f("aws:s3/bucket:Bucket", "ds", "no trail is shown to record S3 data events for this personal-data bucket: the existing trail records named buckets, and this document does not know this bucket's name (offline synthesis); check a document converted from a pulumi preview")}
}

# audit: a bucket's object reads and writes may be recorded by two selectors; reads alone do not count
_data_selector(kind) := {
	"readWriteType": kind, "includeManagementEvents": true,
	"dataResources": [{"type": "AWS::S3::Object", "values": ["arn:aws:s3:::ds/"]}],
}

test_data_events_of_reads_and_writes_by_two_selectors if {
	split := fixtures.trail("audit", {"eventSelectors": [_data_selector("ReadOnly"), _data_selector("WriteOnly")]})
	v := breach_detection.violation with input as fixtures.gate_input(fixtures.gdpr_policy, array.concat(fixtures.good_bucket("ds", "personal"), [split, fixtures.flow_log("flow", "vpc-0123456789abcdef0")]))
	v == set()
	reads := fixtures.trail("audit", {"eventSelectors": [_data_selector("ReadOnly"), {"readWriteType": "WriteOnly", "includeManagementEvents": true}]})
	w := breach_detection.violation with input as fixtures.gate_input(fixtures.gdpr_policy, array.concat(fixtures.good_bucket("ds", "personal"), [reads, fixtures.flow_log("flow", "vpc-0123456789abcdef0")]))
	w == {_f("aws:s3/bucket:Bucket", "ds", "no trail records S3 data events for this personal-data bucket")}
}


# red team: an advanced selector counts only when no field selector narrows the events
_red_team_sources := ["iam.amazonaws.com", "sts.amazonaws.com", "ec2.amazonaws.com", "eks.amazonaws.com", "kms.amazonaws.com", "s3.amazonaws.com"]

_filtered_mgmt_trail(arn_selector) := fixtures.trail("audit", {"eventSelectors": [], "advancedEventSelectors": [
	{"name": "mgmt", "fieldSelectors": [
		{"field": "eventCategory", "equals": ["Management"]},
		{"field": "eventSource", "notEquals": _red_team_sources},
	]},
	{"name": "s3", "fieldSelectors": array.concat(
		[{"field": "eventCategory", "equals": ["Data"]}, {"field": "resources.type", "equals": ["AWS::S3::Object"]}],
		arn_selector,
	)},
]})

test_fail_filtered_management_selector if {
	resources := array.concat(fixtures.good_bucket("ds", "personal"), [
		_filtered_mgmt_trail([]),
		fixtures.flow_log("flow", "vpc-0123456789abcdef0"),
	])
	v := breach_detection.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == {fixtures.stack_finding("GDPR-33-1", "mandatory", "no trail records the account's management events (not counted, as it narrows the events: trail 'audit': its selector 'mgmt' filters on eventSource)")}
}

# red team F12: a basic selector that excludes management event sources is refused as the
# advanced selector above is
test_fail_basic_selector_excluding_sources if {
	trail := fixtures.trail("audit", {"eventSelectors": [{
		"readWriteType": "All", "includeManagementEvents": true,
		"excludeManagementEventSources": ["kms.amazonaws.com"],
		"dataResources": [{"type": "AWS::S3::Object", "values": ["arn:aws:s3"]}],
	}]})
	resources := array.concat(fixtures.good_bucket("ds", "personal"), [trail, fixtures.flow_log("flow", "vpc-0123456789abcdef0")])
	v := breach_detection.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == {fixtures.stack_finding("GDPR-33-1", "mandatory", "no trail records the account's management events (not counted, as it narrows the events: trail 'audit': its event selector 1 excludes the management events of kms.amazonaws.com)")}
}

# ... while management events left out by a second selector (data events only) are not its doing
test_pass_basic_selectors_excluding_nothing if {
	trail := fixtures.trail("audit", {"eventSelectors": [
		{"readWriteType": "All", "includeManagementEvents": true, "excludeManagementEventSources": []},
		{"readWriteType": "All", "includeManagementEvents": false, "excludeManagementEventSources": ["kms.amazonaws.com"], "dataResources": [{"type": "AWS::S3::Object", "values": ["arn:aws:s3"]}]},
	]})
	resources := array.concat(fixtures.good_bucket("ds", "personal"), [trail, fixtures.flow_log("flow", "vpc-0123456789abcdef0")])
	v := breach_detection.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == set()
}

test_fail_filtered_data_selectors if {
	every extra in [
		[{"field": "eventName", "equals": ["GetObject"]}],
		[{"field": "eventName", "notStartsWith": ["Put", "Delete", "Copy"]}],
		[{"field": "eventSource", "equals": ["nothing.amazonaws.com"]}],
		[{"field": "userIdentity.arn", "startsWith": ["arn:aws:iam::111122223333:role/x"]}],
		[{"field": "resources.ARN", "startsWith": ["arn:aws:s3:::ds/"], "notStartsWith": ["arn:aws:s3:::ds/x"]}],
		[{"field": "readOnly", "notEquals": ["true"]}],
	] {
		v := breach_detection.violation with input as fixtures.gate_input(fixtures.gdpr_policy, _advanced_resources(extra))
		msgs := [f.message | some f in v]
		count(msgs) == 1
		startswith(msgs[0], "no trail records S3 data events for this personal-data bucket (not counted: trail 'audit': its selector 's3' ")
	}
}

test_fail_filtered_data_selector_says_why if {
	resources := _advanced_resources([{"field": "eventName", "equals": ["GetObject"]}])
	v := breach_detection.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == {_f("aws:s3/bucket:Bucket", "ds", "no trail records S3 data events for this personal-data bucket (not counted: trail 'audit': its selector 's3' filters on eventName)")}
}

test_fail_prefix_advanced_starts_with if {
	resources := _advanced_resources([{"field": "resources.ARN", "startsWith": ["arn:aws:s3:::ds/tmp/"]}])
	v := breach_detection.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == {_f("aws:s3/bucket:Bucket", "ds", "no trail records S3 data events for this personal-data bucket (not counted: trail 'audit' covers only the object prefix arn:aws:s3:::ds/tmp/ of it)")}
}

test_pass_whole_bucket_advanced_starts_with if {
	every value in ["arn:aws:s3:::ds/", "arn:aws:s3:::ds", "arn:aws:s3:::", "arn:aws:s3"] {
		resources := _advanced_resources([{"field": "resources.ARN", "startsWith": ["arn:aws:s3:::ds/tmp/", value]}])
		v := breach_detection.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
		v == set()
	}
}

test_pass_readonly_split_advanced if {
	resources := array.concat(fixtures.good_bucket("ds", "personal"), [
		fixtures.trail("audit", {"eventSelectors": [], "advancedEventSelectors": [
			{"name": "mgmt", "fieldSelectors": [{"field": "eventCategory", "equals": ["Management"]}]},
			{"name": "r", "fieldSelectors": [{"field": "eventCategory", "equals": ["Data"]}, {"field": "resources.type", "equals": ["AWS::S3::Object"]}, {"field": "readOnly", "equals": ["true"]}]},
			{"name": "w", "fieldSelectors": [{"field": "eventCategory", "equals": ["Data"]}, {"field": "resources.type", "equals": ["AWS::S3::Object"]}, {"field": "readOnly", "equals": ["false"]}]},
		]}),
		fixtures.flow_log("flow", "vpc-0123456789abcdef0"),
	])
	v := breach_detection.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == set()
}

_basic_trail(values) := fixtures.trail("audit", {"eventSelectors": [{
	"readWriteType": "All",
	"includeManagementEvents": true,
	"dataResources": [{"type": "AWS::S3::Object", "values": values}],
}]})

test_fail_prefix_basic_selector if {
	resources := array.concat(fixtures.good_bucket("ds", "personal"), [_basic_trail(["arn:aws:s3:::ds/tmp/"]), fixtures.flow_log("flow", "vpc-0123456789abcdef0")])
	v := breach_detection.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == {_f("aws:s3/bucket:Bucket", "ds", "no trail records S3 data events for this personal-data bucket (not counted: trail 'audit' covers only the object prefix arn:aws:s3:::ds/tmp/ of it)")}
}

test_pass_whole_bucket_basic_selector if {
	every value in ["arn:aws:s3:::ds/", "arn:aws:s3:::ds", "arn:aws:s3:::", "arn:aws:s3"] {
		resources := array.concat(fixtures.good_bucket("ds", "personal"), [_basic_trail([value]), fixtures.flow_log("flow", "vpc-0123456789abcdef0")])
		v := breach_detection.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
		v == set()
	}
}

# red team: a trail whose enableLogging is secret or unknown until apply may be stopped, and one
# whose includeManagementEvents is hidden may record no management events
test_fail_hidden_trail_switches_gdpr if {
	resources := array.concat(fixtures.good_bucket("ds", "personal"), [
		fixtures.trail("audit", {"enableLogging": "[secret]", "eventSelectors": [{"readWriteType": "All", "includeManagementEvents": "[unknown]"}]}),
		fixtures.flow_log("flow", "vpc-0123456789abcdef0"),
		fixtures.resource("aws:eks/cluster:Cluster", "eks", {"enabledClusterLogTypes": ["api", "audit", "authenticator"]}),
	])
	v := breach_detection.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == {
		_f("aws:cloudtrail/trail:Trail", "audit", "trail's enableLogging is secret, so that it records anything cannot be established"),
		_f("aws:s3/bucket:Bucket", "ds", "no trail records S3 data events for this personal-data bucket"),
		fixtures.stack_finding("GDPR-33-1", "mandatory", "no trail records the account's management events (trail 'audit': its includeManagementEvents is unknown until apply, so it may be off)"),
	}
}

# red team: a trail's whole selector list (or a selector, or its data resources) that is secret or
# unknown until apply may record nothing: judged (not an engine error) as recording no management
# events and no S3 data events, saying which list is hidden; so is an EKS cluster's hidden log types
test_fail_hidden_trail_selector_lists_gdpr if {
	every c in [
		[{"eventSelectors": "[secret]"}, "its eventSelectors is secret"],
		[{"eventSelectors": "[unknown]"}, "its eventSelectors is unknown until apply"],
		[{"advancedEventSelectors": "[secret]"}, "its advancedEventSelectors is secret"],
		[{"eventSelectors": ["[secret]"]}, "a selector of its eventSelectors is secret"],
		[{"advancedEventSelectors": [{"name": "all", "fieldSelectors": "[secret]"}]}, "the fieldSelectors of its selector 'all' is secret"],
	] {
		[inputs, note] := c
		resources := array.concat(fixtures.good_bucket("ds", "personal"), [
			fixtures.trail("audit", inputs),
			fixtures.flow_log("flow", "vpc-0123456789abcdef0"),
			fixtures.resource("aws:eks/cluster:Cluster", "eks", {"enabledClusterLogTypes": ["api", "audit", "authenticator"]}),
		])
		v := breach_detection.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
		v == {
			_f("aws:s3/bucket:Bucket", "ds", sprintf("no trail records S3 data events for this personal-data bucket (not counted: trail 'audit': %s, so which buckets it covers cannot be established)", [note])),
			fixtures.stack_finding("GDPR-33-1", "mandatory", sprintf("no trail records the account's management events (trail 'audit': %s, so what it records cannot be established)", [note])),
		}
	}
}

test_fail_hidden_eks_log_types_gdpr if {
	every c in [["[secret]", "secret"], ["[unknown]", "unknown until apply"]] {
		[value, why] := c
		resources := array.concat(pass_resources, [fixtures.resource("aws:eks/cluster:Cluster", "eks2", {"enabledClusterLogTypes": value})])
		v := breach_detection.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
		v == {_f("aws:eks/cluster:Cluster", "eks2", sprintf("EKS cluster's enabledClusterLogTypes is %s, so its audit logs may be off", [why]))}
	}
}

# review: the provider parses "False", "0" and "" as false as well; "True" and "1" as true
test_fail_trail_stopped_by_other_spellings if {
	every pair in [[0, "0"], ["0", "\"0\""], ["", "\"\""], ["False", "\"False\""], ["F", "\"F\""]] {
		[value, shown] := pair
		resources := [fixtures.trail("audit", {"enableLogging": value}), fixtures.flow_log("flow", "vpc-0123456789abcdef0")]
		v := breach_detection.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
		v == {_f("aws:cloudtrail/trail:Trail", "audit", sprintf("trail is stopped (enableLogging %s): it records nothing", [shown]))}
	}
	every value in [true, "True", "1", null] {
		resources := [fixtures.trail("audit", {"enableLogging": value}), fixtures.flow_log("flow", "vpc-0123456789abcdef0")]
		breach_detection.violation == set() with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	}
}
