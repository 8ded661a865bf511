# METADATA
# title: Audit helpers
# description: >-
#   CloudTrail trails, S3 data events, VPC flow logs and EKS control-plane logs, and the log groups
#   and buckets the document's resources have AWS write their logs to.
# scope: package
package lib.audit

import data.lib.access_logging
import data.lib.findings
import data.lib.resources
import data.lib.routing
import data.lib.s3

trail_type := "aws:cloudtrail/trail:Trail"

trails(document) := resources.of_type(document, trail_type)

trail_weaknesses(document) := {findings.problem(t, "trail is not multi-region") |
	some t in trails(document)
	not resources.truthy(object.get(t.inputs, "isMultiRegionTrail", false))
} | {findings.problem(t, "trail has log-file validation off") |
	some t in trails(document)
	not resources.truthy(object.get(t.inputs, "enableLogFileValidation", false))
} | {findings.problem(t, sprintf("trail is stopped (enableLogging %s): it records nothing", [_quoted(v)])) |
	some t in trails(document)
	v := object.get(t.inputs, "enableLogging", true)
	switched_off(v)
	not resources.hidden(v)
} | {findings.problem(t, msg) |
	some t in trails(document)
	v := object.get(t.inputs, "enableLogging", true)
	resources.hidden(v)
	msg := sprintf("trail's enableLogging is %s, so that it records anything cannot be established", [resources.hidden_why(v)])
}

_quoted(v) := sprintf("%q", [v]) if is_string(v) else := sprintf("%v", [v])

# a trail created with enableLogging false (or "false") records nothing; one that is unknown until
# apply or secret may be false
stopped(t) if switched_off(object.get(t.inputs, "enableLogging", true))

# a trail switch that is off, or hidden (unknown until apply, secret) and so may be off: anything
# but true, null (the default, on) and the strings the provider parses as true ("true", "True",
# "t", "1"...; "False", "0" and "" are not on)
switched_off(v) if not _switched_on(v)

_switched_on(v) if v in {true, null, 1}

_switched_on(v) if {
	is_string(v)
	lower(v) in {"true", "t", "1"}
}

# the objects of a list the rules iterate (selectors, field selectors, data resources): none when the
# list, or an item, is hidden (unknown until apply, secret), so that a hidden list establishes
# nothing (hidden_selectors names it in the messages)
objects(v) := [x | some x in resources.elements(v); is_object(x)]

# the trail's selector lists (or items of them) that are hidden, as notes: "trail 'a': its
# eventSelectors is secret", also for a selector or its field selectors / data resources; those notes say why what the trail records cannot be established
hidden_selectors(t) := [note |
	some key in ["eventSelectors", "advancedEventSelectors"]
	v := object.get(t.inputs, key, [])
	some note in _hidden_list_notes(t, key, v)
]

_hidden_list_notes(t, key, v) := [sprintf("trail '%s': its %s is %s", [object.get(t, "name", "?"), key, resources.hidden_why(v)])] if {
	resources.hidden(v)
} else := array.concat([sprintf("trail '%s': a selector of its %s is %s", [object.get(t, "name", "?"), key, resources.hidden_why(sel)]) |
	some sel in resources.elements(v)
	resources.hidden(sel)
], [sprintf("trail '%s': the %s of its selector %s is %s", [object.get(t, "name", "?"), field, _selector_name(sel), resources.hidden_why(part)]) |
	some sel in objects(v)
	some field in ["fieldSelectors", "dataResources"]
	part := object.get(sel, field, [])
	resources.hidden(part)
])

# " (trail 'a': its includeManagementEvents is secret, so it may be off)" for the trail switches of
# the given names that are hidden, in the trails or their basic selectors; "" when none is
hidden_switch_note(document, names) := sprintf(" (%s)", [concat("; ", notes)]) if {
	notes := sort(array.concat([sprintf("trail '%s': its %s is %s, so it may be off", [object.get(t, "name", "?"), name, resources.hidden_why(v)]) |
		some t in trails(document)
		some name in names
		some v in array.concat([object.get(t.inputs, name, true)], [object.get(sel, name, true) |
			some sel in resources.elements(object.get(t.inputs, "eventSelectors", []))
			is_object(sel)
		])
		resources.hidden(v)
	], [sprintf("%s, so what it records cannot be established", [n]) | some t in trails(document); some n in hidden_selectors(t)]))
	count(notes) > 0
} else := ""

# Management events are on unless the selectors turn them off: with no selectors of either kind,
# when a basic selector includes them, or when an advanced selector (which replaces the basic
# ones) selects the Management category. Only a selector of reads and writes counts (readWriteType
# All; an advanced one without a readOnly field). An advanced selector counts only when it does not
# narrow the events (see selector_narrowing). A selector list unknown until apply decides nothing.
management_events(t) if {
	object.get(t.inputs, "eventSelectors", []) == []
	object.get(t.inputs, "advancedEventSelectors", []) == []
}

# reads and writes, by one selector or between them
management_events(t) if {
	object.get(t.inputs, "advancedEventSelectors", []) == []
	kinds := {k |
		some sel in objects(object.get(t.inputs, "eventSelectors", []))
		not switched_off(object.get(sel, "includeManagementEvents", true))
		count(_basic_narrowing(sel)) == 0
		some k in _basic_kinds(sel)
	}
	count(kinds) == 2
}

# Why a basic selector's management events do not count: it leaves out the management events of the
# services its excludeManagementEventSources names (kms.amazonaws.com drops every Decrypt and
# GenerateDataKey), as an advanced selector that filters on eventSource does; a list (or an item)
# that is hidden may name any
_basic_narrowing(sel) := {sprintf("has excludeManagementEventSources that are %s", [resources.hidden_why(v)]) |
	v := object.get(sel, "excludeManagementEventSources", [])
	resources.hidden(v)
} | {sprintf("has an excludeManagementEventSources item that is %s", [resources.hidden_why(x)]) |
	some x in resources.elements(object.get(sel, "excludeManagementEventSources", []))
	resources.hidden(x)
} | {sprintf("excludes the management events of %s", [concat(", ", sort(shown))]) |
	shown := {x |
		some x in resources.elements(object.get(sel, "excludeManagementEventSources", []))
		not resources.hidden(x)
		x != ""
	}
	count(shown) > 0
}

management_events(t) if {
	kinds := {k |
		some sel in objects(object.get(t.inputs, "advancedEventSelectors", []))
		_selects(sel, "eventCategory", "Management")
		count(selector_narrowing(sel)) == 0
		some k in _advanced_kinds(sel)
	}
	count(kinds) == 2
}

# Why an advanced selector does not count: each field selector must be one the rules understand and
# must not narrow the events. eventCategory, resources.type and readOnly by equals (readOnly picks
# reads or writes, judged apart), and in a Data selector resources.ARN by startsWith (its values
# judged one by one: only whole buckets count). Any other field (eventName, eventSource, eventType,
# userIdentity.arn, errorCode, sessionCredentialFromConsole, vpcEndpointId...), any other operator
# (notEquals, notStartsWith, endsWith...) or a field given twice narrows the events in a way the
# rules cannot follow: the selector is not counted (fail closed). E.g. {"filters on eventSource"}.
selector_narrowing(sel) := {why |
	some fs in objects(object.get(sel, "fieldSelectors", []))
	some why in _field_narrowing(sel, fs)
} | {why |
	some why in _hidden_field_selectors(sel)
}

# a hidden fieldSelectors list, or a hidden field selector, may narrow the events in any way
_hidden_field_selectors(sel) := {sprintf("has fieldSelectors that are %s", [resources.hidden_why(v)])} if {
	v := object.get(sel, "fieldSelectors", [])
	resources.hidden(v)
} else := {sprintf("has a field selector that is %s", [resources.hidden_why(fs)]) |
	some fs in resources.elements(object.get(sel, "fieldSelectors", []))
	resources.hidden(fs)
}

_understood_fields(sel) := {"eventCategory", "readOnly", "resources.type", "resources.ARN"} if {
	_selects(sel, "eventCategory", "Data")
} else := {"eventCategory", "readOnly"}

# an operator given with values (a null or empty list is no operator)
_operators(fs) := {k | some k, v in fs; k != "field"; not v in {null, []}}

_field_operator := {"eventCategory": "equals", "readOnly": "equals", "resources.type": "equals", "resources.ARN": "startsWith"}

_field_narrowing(sel, fs) := {sprintf("filters on %v", [object.get(fs, "field", null)])} if {
	not object.get(fs, "field", null) in _understood_fields(sel)
} else := {sprintf("filters on %s with %s", [fs.field, concat(", ", sort(extra))])} if {
	extra := _operators(fs) - {_field_operator[fs.field]}
	count(extra) > 0
} else := {sprintf("gives %s twice", [fs.field])} if {
	count([1 | some other in objects(sel.fieldSelectors); object.get(other, "field", null) == fs.field]) > 1
} else := {sprintf("has %s values that are %s", [fs.field, resources.hidden_why(v)])} if {
	some _, v in fs
	resources.hidden(v)
} else := set()

_selects(sel, field, value) if {
	some fs in objects(object.get(sel, "fieldSelectors", []))
	object.get(fs, "field", null) == field
	value in resources.elements(object.get(fs, "equals", []))
}

_has_field(sel, field) if {
	some fs in objects(object.get(sel, "fieldSelectors", []))
	object.get(fs, "field", null) == field
}

_selector_name(sel) := sprintf("'%s'", [sel.name]) if is_string(object.get(sel, "name", null)) else := "(unnamed)"

# why the management selectors of the document's trails do not count, e.g. ["trail 'audit': its
# selector 'mgmt' filters on eventSource"]; empty when none was left out. Basic selectors count
# only where the trail has no advanced ones (which replace them).
ignored_management_selectors(document) := sort(array.concat([msg |
	some t in trails(document)
	some sel in objects(object.get(t.inputs, "advancedEventSelectors", []))
	_selects(sel, "eventCategory", "Management")
	reasons := selector_narrowing(sel)
	count(reasons) > 0
	msg := sprintf("trail '%s': its selector %s %s", [object.get(t, "name", "?"), _selector_name(sel), concat(" and ", sort(reasons))])
], [msg |
	some t in trails(document)
	object.get(t.inputs, "advancedEventSelectors", []) == []
	some n, sel in objects(object.get(t.inputs, "eventSelectors", []))
	not switched_off(object.get(sel, "includeManagementEvents", true))
	reasons := _basic_narrowing(sel)
	count(reasons) > 0
	msg := sprintf("trail '%s': its event selector %d %s", [object.get(t, "name", "?"), n + 1, concat(" and ", sort(reasons))])
]))

# the reasons above as a note for a finding's message ("" when there are none)
ignored_management_note(document) := note if {
	reasons := ignored_management_selectors(document)
	count(reasons) > 0
	note := sprintf(" (not counted, as it narrows the events: %s)", [concat("; ", reasons)])
} else := ""

_basic_kinds(sel) := {"All": {"read", "write"}, "ReadOnly": {"read"}, "WriteOnly": {"write"}}[object.get(sel, "readWriteType", "All")]

_advanced_kinds(sel) := {"read", "write"} if _advanced_reads_and_writes(sel)

_advanced_kinds(sel) := {k |
	some fs in objects(sel.fieldSelectors)
	fs.field == "readOnly"
	some v in resources.elements(object.get(fs, "equals", []))
	k := {"true": "read", "false": "write"}[lower(sprintf("%v", [v]))]
} if not _advanced_reads_and_writes(sel)

_advanced_reads_and_writes(sel) if {
	every fs in objects(object.get(sel, "fieldSelectors", [])) {
		fs.field != "readOnly"
	}
}

# The trail the policy relies on instead of one of its own (compliance.existingTrail), and what
# CloudTrail says of it (input.facts.trails, read by seedance check --lookup). Without the facts its
# settings are not checked (every report says so) and the policy's word is taken for what it records.
existing_trail := arn if {
	arn := object.get(input.policy, ["compliance", "existingTrail", "arn"], null)
	is_string(arn)
}

existing_fact := input.facts.trails[existing_trail]

_existing_read if {
	_ := existing_fact
}

# the existing trail records the account's management events in every region
existing_records_management if {
	_ := existing_trail
	not _existing_read
}

existing_records_management if {
	f := existing_fact
	f.multi_region == true
	f.include_global_service_events == true
	f.logging == true
	f.management_events == true
}

# what the existing trail lacks, as problems of the stack: `wanted` names the kinds a rule reports
# (multi-region, validation, logging, management, global, kms, account, own)
existing_weaknesses(document, wanted) := {findings.problem(findings.stack(document), msg) |
	some kind, text in _existing_weak
	kind in wanted
	msg := sprintf("existing trail %s %s", [existing_trail, text])
}

_existing_weak["multi-region"] := "is not multi-region (read from CloudTrail)" if existing_fact.multi_region == false

_existing_weak.validation := "has log-file validation off (read from CloudTrail)" if existing_fact.log_file_validation == false

_existing_weak.logging := "is not recording (logging is stopped) (read from CloudTrail)" if existing_fact.logging == false

_existing_weak.management := "does not record management events, reads and writes (read from CloudTrail)" if {
	existing_fact.management_events == false
}

_existing_weak.global := "does not record global service events (read from CloudTrail)" if {
	existing_fact.include_global_service_events == false
}

_existing_weak.kms := "log files are not encrypted with a KMS key (read from CloudTrail)" if existing_fact.kms_key_id == null

# a trail of another account records that account only, unless it is an organization trail
_existing_weak.account := msg if {
	existing_fact.organization == false
	owner := split(existing_trail, ":")[4]
	account := object.get(input.policy, ["cloud", "accountId"], null)
	is_string(account)
	owner != account
	msg := sprintf("is a trail of account %s and not an organization trail, so it does not record account %s (read from CloudTrail)", [owner, account])
}

# the stack's own trail (seedance-STACK): this deploy turns off its management events, or deletes it
_existing_weak.own := "is this stack's own trail, which this deploy stops recording management events (or deletes): name a trail the stack does not manage" if {
	name := split(existing_trail, ":trail/")[1]
	name in _own_trail_names
}

_own_trail_names contains sprintf("seedance-%s", [input.document.stack])

_own_trail_names contains name if {
	some t in trails(input.document)
	name := object.get(t.inputs, "name", null)
	is_string(name)
}

# S3 data events: the bucket keys some trail's selectors cover (built once; "*" covers every bucket)
# reads and writes of a bucket's objects, by one selector or between two
_data_event_keys contains key if {
	some [kind, key] in _data_event_kinds
	kind == "read"
	["write", key] in _data_event_kinds
}

_data_event_kinds contains [kind, key] if {
	some t in trails(input.document)
	object.get(t.inputs, "advancedEventSelectors", []) == []
	some sel in objects(object.get(t.inputs, "eventSelectors", []))
	some dr in objects(object.get(sel, "dataResources", []))
	dr.type == "AWS::S3::Object"
	some v in resources.elements(dr.values)
	some key in _selector_keys(v)
	some kind in _basic_kinds(sel)
}

_data_event_kinds contains [kind, key] if {
	some t in trails(input.document)
	some sel in objects(object.get(t.inputs, "advancedEventSelectors", []))
	_s3_data_selector(sel)
	count(selector_narrowing(sel)) == 0
	some key in _arn_selector_keys(sel)
	some kind in _advanced_kinds(sel)
}

_s3_data_selector(sel) if {
	_selects(sel, "eventCategory", "Data")
	_selects(sel, "resources.type", "AWS::S3::Object")
}

# the existing trail's S3 data events: as CloudTrail reports them (whole buckets, named exactly: a
# bucket of the same logical name elsewhere is not this one), else as the policy declares them
_data_event_keys contains "*" if {
	some v in existing_fact.s3_data_events
	v in _every_bucket
}

# the bucket names the existing trail records, matched only with a bucket's own name (inputs.bucket,
# which a document converted from a preview holds), never with its logical name
_existing_bucket_names contains name if {
	some v in existing_fact.s3_data_events
	not v in _every_bucket
	name := s3.arn_bucket(v)
	name != ""
}

# a personal-data bucket whose name the document does not know (offline synthesis auto-names it at
# apply): whether the existing trail's named buckets include it cannot be shown
existing_names_unknown(b) if {
	count(_existing_bucket_names) > 0
	not is_string(object.get(input.document.resources[b].inputs, "bucket", null))
}

_data_event_keys contains "*" if {
	_ := existing_trail
	not _existing_read
	object.get(input.policy, ["compliance", "existingTrail", "s3DataEvents"], false) == true
}

# without resources.ARN a selector covers every bucket; with it, the buckets its startsWith values cover whole
_arn_selector_keys(sel) := {"*"} if not _has_field(sel, "resources.ARN")

_arn_selector_keys(sel) := {k |
	some fs in objects(sel.fieldSelectors)
	fs.field == "resources.ARN"
	some v in resources.elements(object.get(fs, "startsWith", []))
	some k in _selector_keys(v)
} if _has_field(sel, "resources.ARN")

# the data-resource values that select every bucket
_every_bucket := {"arn:aws:s3", "arn:aws-cn:s3", "arn:aws-us-gov:s3", "arn:aws:s3:::", "arn:aws-cn:s3:::", "arn:aws-us-gov:s3:::"}

# A value that covers a whole bucket: the bucket's ARN with an empty object prefix ("arn:aws:s3:::b/")
# or the bucket's ARN itself. One with an object prefix after the '/' ("arn:aws:s3:::b/tmp/") covers
# part of the bucket and counts for none. The same rule as seedance.gate.facts._WHOLE_BUCKETS.
whole_bucket_value(value) if value in _every_bucket

whole_bucket_value(value) if regex.match(`^arn:aws(-cn|-us-gov)?:s3:::[a-zA-Z0-9._-]+/?$`, value)

# "arn:aws:s3" (every bucket) or a whole bucket's ARN -> the bucket name, with and without an auto-name suffix
_selector_keys(value) := {"*"} if value in _every_bucket

_selector_keys(value) := {name, s3.strip_autoname(name)} if {
	not value in _every_bucket
	whole_bucket_value(value)
	name := s3.arn_bucket(value)
}

# Why the stack's trails' selectors that name the bucket at position b do not cover it, e.g.
# ["trail 'audit' covers only the object prefix arn:aws:s3:::b/tmp/ of it"]
ignored_data_selectors(b) := sort([msg | some msg in (_ignored_prefixes(b) | _ignored_narrowed(b)) | _hidden_data_selectors])

# the trails' hidden selector lists: any bucket may be among those they name
_hidden_data_selectors := {sprintf("%s, so which buckets it covers cannot be established", [n]) |
	some t in trails(input.document)
	some n in hidden_selectors(t)
}

_ignored_prefixes(b) := {sprintf("trail '%s' covers only the object prefix %s of it", [object.get(t, "name", "?"), v]) |
	some t in trails(input.document)
	some v in _named_values(t)
	is_string(v)
	not whole_bucket_value(v)
	not v in _every_bucket
	_names_bucket(v, b)
}

_ignored_narrowed(b) := {sprintf("trail '%s': its selector %s %s", [object.get(t, "name", "?"), _selector_name(sel), concat(" and ", sort(reasons))]) |
	some t in trails(input.document)
	some sel in objects(object.get(t.inputs, "advancedEventSelectors", []))
	_s3_data_selector(sel)
	reasons := selector_narrowing(sel)
	count(reasons) > 0
	_selector_may_name(sel, b)
}

# the data-resource values (basic) and resources.ARN startsWith values (advanced) of a trail's S3 selectors
_named_values(t) := [v |
	object.get(t.inputs, "advancedEventSelectors", []) == []
	some sel in objects(object.get(t.inputs, "eventSelectors", []))
	some dr in objects(object.get(sel, "dataResources", []))
	dr.type == "AWS::S3::Object"
	some v in resources.elements(dr.values)
] if object.get(t.inputs, "advancedEventSelectors", []) == []

_named_values(t) := [v |
	some sel in objects(t.inputs.advancedEventSelectors)
	_s3_data_selector(sel)
	count(selector_narrowing(sel)) == 0
	some fs in objects(sel.fieldSelectors)
	fs.field == "resources.ARN"
	some v in resources.elements(object.get(fs, "startsWith", []))
] if object.get(t.inputs, "advancedEventSelectors", []) != []

_names_bucket(value, b) if {
	name := s3.arn_bucket(value)
	some key in {name, s3.strip_autoname(name)}
	b in s3.with_ref(key)
}

_selector_may_name(sel, _) if not _has_field(sel, "resources.ARN")

_selector_may_name(sel, b) if {
	some fs in objects(sel.fieldSelectors)
	fs.field == "resources.ARN"
	some _, values in fs
	is_array(values)
	some v in values
	is_string(v)
	_names_bucket(v, b)
}

# data events cover the bucket at position b
data_events_cover(_) if "*" in _data_event_keys

data_events_cover(b) if b in _data_event_buckets

_data_event_buckets contains b if {
	some key in _data_event_keys
	some b in s3.with_ref(key)
}

_data_event_buckets contains b if {
	some b in s3.bucket_indices
	object.get(input.document.resources[b].inputs, "bucket", null) in _existing_bucket_names
}

# the stack's VPC and any VPC the document creates (by URN)
vpcs(document, policy) := {v | some v in [object.get(policy, ["cloud", "vpcId"], null)]; is_string(v)} | {r.urn |
	some r in resources.of_type(document, "aws:ec2/vpc:Vpc")
}

# The document carries inputs, so a FlowLog names a VPC the stack creates by that VPC's id, which
# is not among the VPC's inputs: lib.routing ties the reference to the VPC (property dependencies,
# recorded id, URN, mock id); an id unknown until apply without a dependency record (a
# hand-written document) may name any VPC the stack creates.
# Only a flow log of ALL traffic counts: one of ACCEPT or REJECT traffic alone misses the other half.
flow_logged(document, vpc) if {
	some fl in resources.of_type(document, "aws:ec2/flowLog:FlowLog")
	object.get(fl.inputs, "trafficType", "") == "ALL"
	object.get(fl.inputs, "vpcId", "") == vpc
}

flow_logged(document, vpc) if {
	some v in resources.of_type(document, "aws:ec2/vpc:Vpc")
	v.urn == vpc
	some fl in resources.of_type(document, "aws:ec2/flowLog:FlowLog")
	object.get(fl.inputs, "trafficType", "") == "ALL"
	_names_created_vpc(fl, v)
}

_names_created_vpc(fl, v) if routing.refers(fl, "vpcId", v)

_names_created_vpc(fl, _) if routing.unlinked_unknown(fl, "vpcId")

eks_log_gaps(document, required) := {findings.problem(c, msg) |
	some c in resources.of_type(document, "aws:eks/cluster:Cluster")
	types := object.get(c.inputs, "enabledClusterLogTypes", [])
	not resources.hidden(types)
	have := {t | some t in resources.elements(types)}
	missing := [t | some t in sort([x | some x in required]); not t in have]
	count(missing) > 0
	msg := sprintf("EKS cluster does not send %s logs", [concat(", ", missing)])
} | {findings.problem(c, msg) |
	# a hidden list of log types (unknown until apply, secret) may leave every log type off
	some c in resources.of_type(document, "aws:eks/cluster:Cluster")
	types := object.get(c.inputs, "enabledClusterLogTypes", [])
	resources.hidden(types)
	missing := sort([x | some x in required])
	msg := sprintf("EKS cluster's enabledClusterLogTypes is %s, so its %s logs may be off", [resources.hidden_why(types), concat(", ", missing)])
}

# positions of the buckets that receive a trail's log files (their own data events would log
# themselves): named by s3BucketName, or, when that is unknown until apply (a first deploy's
# `bucket.bucket`) or secret, the buckets its property dependencies name (lib.s3.hidden_ref_buckets)
trail_destinations contains b if {
	some t in trails(input.document)
	name := object.get(t.inputs, "s3BucketName", "")
	is_string(name)
	some key in {name, s3.strip_autoname(name)}
	some b in s3.with_ref(key)
}

trail_destinations contains b if {
	some t in trails(input.document)
	some b in s3.hidden_ref_buckets(t, object.get(t.inputs, "s3BucketName", ""), "s3BucketName")
}

# positions of the buckets that receive network logs: VPC flow logs delivered to S3, load-balancer
# access logs and S3 server access logs (as lib.access_logging reads them: BucketLogging(V2)
# targetBucket, or a bucket's inline logging or loggings)
network_log_archives contains b if {
	some fl in resources.of_type(input.document, "aws:ec2/flowLog:FlowLog")
	arn := object.get(fl.inputs, "logDestination", "")
	is_string(arn)
	contains(arn, ":s3:::")
	some b in _bucket_named(s3.arn_bucket(arn))
}

network_log_archives contains b if {
	some lb in resources.of_types(input.document, load_balancer_types)
	some b in _bucket_named(object.get(lb.inputs, ["accessLogs", "bucket"], null))
}

# a destination unknown until apply (a first deploy's bucket.arn / bucket.bucket) or secret: the
# buckets the input's property dependencies name (lib.s3.hidden_ref_buckets)
network_log_archives contains b if {
	some fl in resources.of_type(input.document, "aws:ec2/flowLog:FlowLog")
	some b in s3.hidden_ref_buckets(fl, object.get(fl.inputs, "logDestination", ""), "logDestination")
}

network_log_archives contains b if {
	some lb in resources.of_types(input.document, load_balancer_types)
	some v in [object.get(lb.inputs, "accessLogs", null), object.get(lb.inputs, ["accessLogs", "bucket"], null)]
	some b in s3.hidden_ref_buckets(lb, v, "accessLogs")
}

network_log_archives contains b if {
	some t in s3.logging_types
	some lg in resources.of_type(input.document, t)
	some b in _bucket_named(object.get(lg.inputs, "targetBucket", null))
}

network_log_archives contains b if some b in access_logging.targets

load_balancer_types := {"aws:lb/loadBalancer:LoadBalancer", "aws:alb/loadBalancer:LoadBalancer", "aws:elb/loadBalancer:LoadBalancer"}

_bucket_named(name) := s3.named(name) if is_string(name)

# ---------------------------------------------------------------- where services write logs

# CloudWatch Logs groups, pulumi-aws's and aws-native's, and the input naming each (retentionInDays
# and kmsKeyId are spelt alike)
log_group_types := {"aws:cloudwatch/logGroup:LogGroup": "name", "aws-native:logs:LogGroup": "logGroupName"}

log_group_indices := {j | some type, _ in log_group_types; some j in resources.indices(type)}

log_groups := [input.document.resources[j] | some j in log_group_indices]

# the name a log group's input gives (null when it gives none)
log_group_name(lg) := object.get(lg.inputs, log_group_types[lg.type], null)

# arn:PARTITION:logs:REGION:ACCOUNT:log-group:NAME (or NAME:*) -> NAME
arn_log_group(arn) := trim_suffix(parts[1], ":*") if {
	is_string(arn)
	parts := split(arn, ":log-group:")
	count(parts) == 2
}

# Logs the document's resources have AWS write to CloudWatch Logs, each as {at, source, what,
# name, field, label, region}: `source` sends `what` to the log group `name` (null when the document does
# not show it), which a message for a group the stack does not declare calls `label`; `field` is the input that references the group (""
# when AWS derives the name from the source's own). EKS
# control-plane logs go to /aws/eks/NAME/cluster; RDS, DocumentDB and Neptune log exports to
# /aws/rds/instance/ID/TYPE, /aws/rds/cluster/ID/TYPE, /aws/docdb/ID/TYPE, /aws/neptune/ID/TYPE
# (AWS creates those groups itself, never expiring, when the stack declares none); flow logs and
# trails delivering to CloudWatch Logs go to the group their ARN (or logGroupName) names.
log_deliveries contains _log_delivery(c, what, name, "", label) if {
	some c in resources.of_type(input.document, "aws:eks/cluster:Cluster")
	types := object.get(c.inputs, "enabledClusterLogTypes", [])
	not resources.hidden(types)
	count(resources.elements(types)) > 0
	what := sprintf("EKS control-plane logs (%s)", [concat(", ", sort([sprintf("%v", [t]) | some t in resources.elements(types)]))])
	id := object.get(c.inputs, "name", null)
	name := _derived_name("/aws/eks/%s/cluster", [id])
	label := _derived_label("/aws/eks/%s/cluster", ["<name>"], "name", name)
}

log_deliveries contains _log_delivery(db, sprintf("%s logs", [kind]), name, "", label) if {
	some type, spec in _log_exports
	some db in resources.of_type(input.document, type)
	some key in ["enabledCloudwatchLogsExports", "enableCloudwatchLogsExports"]
	some kind in resources.elements(object.get(db.inputs, key, []))
	name := _derived_name(spec[1], [object.get(db.inputs, spec[0], null), kind])
	label := _derived_label(spec[1], [sprintf("<%s>", [spec[0]]), kind], spec[0], name)
}

# database type -> [identifier input, log group name pattern]
_log_exports := {
	"aws:rds/instance:Instance": ["identifier", "/aws/rds/instance/%s/%v"],
	"aws:rds/cluster:Cluster": ["clusterIdentifier", "/aws/rds/cluster/%s/%v"],
	"aws:docdb/cluster:Cluster": ["clusterIdentifier", "/aws/docdb/%s/%v"],
	"aws:neptune/cluster:Cluster": ["clusterIdentifier", "/aws/neptune/%s/%v"],
}

# Lambda functions write to /aws/lambda/NAME, or to the group their loggingConfig.logGroup names
# (AWS creates /aws/lambda/NAME itself, never expiring, when the stack declares none; a function
# whose role may not write logs writes none, which the document cannot show, so it is counted)
log_deliveries contains _log_delivery(f, "Lambda function logs", name, "", label) if {
	some type, name_input in _lambda_name_inputs
	some f in resources.of_type(input.document, type)
	not _lambda_group(f)
	name := _derived_name("/aws/lambda/%s", [object.get(f.inputs, name_input, null)])
	label := _derived_label("/aws/lambda/%s", ["<name>"], name_input, name)
}

log_deliveries contains _log_delivery(f, "Lambda function logs", name, "loggingConfig", _ref_label(name)) if {
	some type, _ in _lambda_name_inputs
	some f in resources.of_type(input.document, type)
	name := _group_name("logGroupName", _lambda_group(f))
}

_lambda_group(f) := v if {
	v := object.get(f.inputs, ["loggingConfig", "logGroup"], null)
	not v in {null, ""}
}

_lambda_name_inputs := {"aws:lambda/function:Function": "name", "aws-native:lambda:Function": "functionName"}

# ECS containers with the awslogs driver write to the group their awslogs-group option names (with
# awslogs-create-group ECS creates it, never expiring); container definitions the document does
# not show are not read (as a hidden list of EKS log types)
log_deliveries contains _log_delivery_in(td, what, name, "", _ref_label(name), region) if {
	some type in ["aws:ecs/taskDefinition:TaskDefinition", "aws-native:ecs:TaskDefinition"]
	some td in resources.of_type(input.document, type)
	some c in resources.container_definitions(object.get(td.inputs, "containerDefinitions", []))
	log := object.get(c, "logConfiguration", {})
	object.get(log, "logDriver", null) == "awslogs"
	what := sprintf("ECS container logs (%v)", [object.get(c, "name", "?")])
	name := _group_name("logGroupName", object.get(log, ["options", "awslogs-group"], null))
	region := _awslogs_region(log, td)
}

# the awslogs-region option names the region of the group (default: the task's); one the document
# does not show is a region no group of the document can be matched in
_awslogs_region(log, td) := region if {
	region := object.get(log, ["options", "awslogs-region"], null)
	is_string(region)
	region != ""
} else := resources.region(td, input.policy)

# API Gateway stages' access logs go to the log group their access log settings' destinationArn
# names (a Firehose stream there is not a log group)
log_deliveries contains _log_delivery_in(s, "API Gateway access logs", name, field, _ref_label(name), _arn_region_or(arn, s)) if {
	some type, field in _stage_log_settings
	some s in resources.of_type(input.document, type)
	arn := object.get(s.inputs, [field, "destinationArn"], null)
	arn != null
	not contains(sprintf("%v", [arn]), ":firehose:")
	name := _group_name("destinationArn", arn)
}

# stage type -> the input holding its access log settings (aws-native's REST API stage: accessLogSetting)
_stage_log_settings := {
	"aws:apigateway/stage:Stage": "accessLogSettings", "aws:apigatewayv2/stage:Stage": "accessLogSettings",
	"aws-native:apigateway:Stage": "accessLogSetting", "aws-native:apigatewayv2:Stage": "accessLogSettings",
}

# API Gateway execution logs: a REST API stage's, once a method setting's loggingLevel is not OFF
# (or data trace is on), go to API-Gateway-Execution-Logs_{restApiId}/{stageName}; a WebSocket
# API stage's, once its default route settings or a route's say so, to
# /aws/apigateway/{apiId}/{stageName}. AWS creates those groups itself, never expiring. A
# MethodSettings resource's logs are the stage's it configures (tied by property dependencies or
# by API id and stage name), else its own.
log_deliveries contains _log_delivery(source, "API Gateway execution logs", name, "", label) if {
	some ms in resources.of_type(input.document, "aws:apigateway/methodSettings:MethodSettings")
	_logs_execution(object.get(ms.inputs, "settings", {}))
	api := object.get(ms.inputs, "restApi", null)
	stage := object.get(ms.inputs, "stageName", null)
	source := _configured_stage(ms, api, stage)
	name := _derived_name("API-Gateway-Execution-Logs_%s/%s", [api, stage])
	label := _derived_label("API-Gateway-Execution-Logs_%s/%s", ["<restApi>", "<stageName>"], "restApi or stageName", name)
}

log_deliveries contains _log_delivery(s, "API Gateway execution logs", name, "", label) if {
	some type, [api_input, stage_input, pattern] in _stage_execution_logs
	some s in resources.of_type(input.document, type)
	some v in _execution_settings(s)
	_logs_execution(v)
	name := _derived_name(pattern, [object.get(s.inputs, api_input, null), object.get(s.inputs, stage_input, null)])
	label := _derived_label(pattern, [sprintf("<%s>", [api_input]), sprintf("<%s>", [stage_input])], sprintf("%s or %s", [api_input, stage_input]), name)
}

# stage type -> [API id input, stage name input, log group pattern]
_stage_execution_logs := {
	"aws-native:apigateway:Stage": ["restApiId", "stageName", "API-Gateway-Execution-Logs_%s/%s"],
	"aws:apigatewayv2/stage:Stage": ["apiId", "name", "/aws/apigateway/%s/%s"],
	"aws-native:apigatewayv2:Stage": ["apiId", "stageName", "/aws/apigateway/%s/%s"],
}

# a stage's logging settings: aws-native REST API stages' method settings, else route settings
_execution_settings(s) := resources.elements(object.get(s.inputs, "methodSettings", [])) if {
	s.type == "aws-native:apigateway:Stage"
} else := _route_settings(s)

# the default route settings and each route's (a list in pulumi-aws, an object by route key in aws-native)
_route_settings(s) := array.concat(
	[object.get(s.inputs, "defaultRouteSettings", {})],
	[v | some v in resources.elements(object.get(s.inputs, "routeSettings", []))],
) if {
	not is_object(object.get(s.inputs, "routeSettings", null))
} else := array.concat([object.get(s.inputs, "defaultRouteSettings", {})], [v | some v in s.inputs.routeSettings])

# logging settings that write execution logs: a loggingLevel other than OFF, or data trace on; a
# level the document does not show may be either
_logs_execution(settings) if resources.hidden(settings)

_logs_execution(settings) if {
	is_object(settings)
	level := object.get(settings, "loggingLevel", null)
	not level in {null, ""}
	not upper(sprintf("%v", [level])) == "OFF"
}

_logs_execution(settings) if {
	is_object(settings)
	resources.truthy(object.get(settings, "dataTraceEnabled", false))
}

# the REST API stage of the document a MethodSettings resource configures, else the resource itself
_configured_stage(ms, api, stage) := s if {
	some s in resources.of_type(input.document, "aws:apigateway/stage:Stage")
	_configures(ms, s, api, stage)
} else := ms

_configures(ms, s, _, _) if routing.refers(ms, "stageName", s)

_configures(_, s, api, stage) if {
	resources.settled(stage)
	stage == object.get(s.inputs, "stageName", null)
	resources.settled(api)
	api == object.get(s.inputs, "restApi", null)
}

# a name AWS derives from identifiers the document shows; null when it does not (an identifier
# unknown until apply, secret, or left for Pulumi to auto-name at apply)
_derived_name(pattern, args) := sprintf(pattern, args) if {
	every a in args {
		is_string(a)
		resources.shown(a)
	}
} else := null

_derived_label(_, _, _, name) := _ref_label(name) if is_string(name)

_derived_label(pattern, args, input_name, null) := sprintf("log group %s, whose %s the document does not show (unset, so named at apply; unknown until apply; or secret) and no log group of the stack can be matched to", [sprintf(pattern, args), input_name])

# flow logs to CloudWatch Logs (the default destination type)
log_deliveries contains _log_delivery_in(fl, "flow logs", name, field, _ref_label(name), _arn_region_or(v, fl)) if {
	some fl in resources.of_type(input.document, "aws:ec2/flowLog:FlowLog")
	object.get(fl.inputs, "logDestinationType", "cloud-watch-logs") == "cloud-watch-logs"
	some field in ["logDestination", "logGroupName"]
	v := object.get(fl.inputs, field, null)
	v != null
	name := _group_name(field, v)
}

log_deliveries contains _log_delivery_in(t, "trail logs", name, "cloudWatchLogsGroupArn", _ref_label(name), _arn_region_or(arn, t)) if {
	some t in trails(input.document)
	arn := object.get(t.inputs, "cloudWatchLogsGroupArn", null)
	arn != null
	name := _group_name("logDestination", arn)
}

_ref_label(name) := sprintf("log group %s, which the stack does not declare", [name]) if is_string(name) else := "a log group the document does not show"

# the log group name an input gives: logGroupName itself, or the name in a log-group ARN; null when
# the document does not show it
_group_name(field, v) := v if {
	field == "logGroupName"
	is_string(v)
	resources.shown(v)
} else := name if {
	field != "logGroupName"
	name := arn_log_group(v)
} else := null

# (`groups`: the positions of the log groups of the document the delivery writes to, found once)
_log_delivery(source, what, name, field, label) := _log_delivery_in(source, what, name, field, label, resources.region(source, input.policy))

# a delivery to a group in `region`: a group of the document matched by name must be there (a log
# group's name is unique within a region only)
_log_delivery_in(source, what, name, field, label, region) := {
	"at": source.urn,
	"field": field,
	"groups": _delivered_groups(source, field, name, region),
	"label": label,
	"name": name,
	"region": region,
	"source": source,
	"what": what,
}

# the region a log-group ARN names, else the source's
_arn_region_or(arn, source) := region if {
	is_string(arn)
	startswith(arn, "arn:")
	region := resources.arn_region(arn)
} else := resources.region(source, input.policy)

# log group position -> its name (inputs.name), for the groups that show one
_group_names := {j: name |
	some j in log_group_indices
	name := log_group_name(input.document.resources[j])
	is_string(name)
	resources.shown(name)
}

# (comprehensions: an index with no entries is then {}, never undefined)
_groups_by_name := {name: js | some name, js in _groups_named}

_groups_named[name] contains j if some j, name in _group_names

# groups without a name input, by logical name: Pulumi auto-names them NAME-1234abc
_unnamed_by_stem := {stem: js | some stem, js in _unnamed_stems}

_unnamed_stems[stem] contains j if some j, stem in _unnamed

_unnamed := {j: input.document.resources[j].name |
	some j in log_group_indices
	not is_string(log_group_name(input.document.resources[j]))
}

# positions of the log groups of the document a delivery writes to: by name (an auto-named group by
# its logical name), or by a reference the input's property dependencies or value tie to a group
_delivered_groups(source, field, name, region) := {j |
	some j in object.get(_groups_by_name, name, set()) | _by_stem(name)
	resources.region(input.document.resources[j], input.policy) == region
} | _referred_groups(source, field) | _named_after(source, name)

# a group whose name the document does not show (unknown until apply) but which its property
# dependencies build from the source's own outputs (`/aws/lambda/${fn.name}` where the function's
# name is an output), when the delivery's name is not shown either: the group the source writes to
_named_after(source, null) := {j |
	some j in _groups_named_by_outputs[source.urn]
}

_named_after(_, name) := set() if name != null

_groups_named_by_outputs[urn] contains j if {
	some j in log_group_indices
	lg := input.document.resources[j]
	resources.hidden(log_group_name(lg))
	some urn in object.get(lg, ["property_dependencies", log_group_types[lg.type]], [])
}

_referred_groups(source, field) := routing.referred(source, field, _group_keys) if field != "" else := set()

_group_keys := {k: js | some k, js in _group_keyed}

_group_keyed[k] contains j if {
	some j in log_group_indices
	some k in routing.target_keys(input.document.resources[j])
}

# (a group without a name is named at apply LOGICAL-1234abc: a name without such a suffix is never
# its, even one equal to its logical name)
_by_stem(name) := object.get(_unnamed_by_stem, s3.strip_autoname(name), set()) if {
	is_string(name)
	s3.strip_autoname(name) != name
} else := set()

# positions of the log groups that hold personal data: tagged so, or receiving the logs of a
# personal-data resource
personal_log_groups := (log_group_indices & resources.personal_indices) | {j |
	some d in log_deliveries
	resources.personal(d.source)
	some j in d.groups
}

# deliveries to a log group the document does not declare (or whose name it does not show)
undeclared_log_deliveries := {d | some d in log_deliveries; count(d.groups) == 0}

# Logs written to S3 by flow logs (logDestinationType s3) and trails (s3BucketName), each as
# {at, source, what, target, buckets}: the target as the input gives it, and the positions of the
# buckets of the document it names (none: a bucket outside the stack, or a hidden reference).
log_bucket_deliveries contains _bucket_delivery(fl, "flow logs", target, "logDestination") if {
	some fl in resources.of_type(input.document, "aws:ec2/flowLog:FlowLog")
	object.get(fl.inputs, "logDestinationType", "cloud-watch-logs") == "s3"
	target := object.get(fl.inputs, "logDestination", "")
	target != ""
}

log_bucket_deliveries contains _bucket_delivery(t, "trail logs", target, "s3BucketName") if {
	some t in trails(input.document)
	target := object.get(t.inputs, "s3BucketName", "")
	target != ""
}

_bucket_delivery(source, what, target, field) := {
	"at": source.urn,
	"buckets": _log_buckets(source, field, target),
	"source": source,
	"target": target,
	"what": what,
}

_log_buckets(source, field, target) := {b |
	is_string(target)
	name := _bucket_name(target)
	some key in {name, s3.strip_autoname(name)}
	some b in s3.named(key)
} | routing.referred(source, field, _bucket_keys)

_bucket_keys := {k: bs | some k, bs in _bucket_keyed}

_bucket_keyed[k] contains b if {
	some b in s3.bucket_indices
	some k in routing.target_keys(input.document.resources[b])
}

_bucket_name(target) := s3.arn_bucket(target) if startswith(target, "arn:") else := target
