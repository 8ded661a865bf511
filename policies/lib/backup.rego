# METADATA
# title: EBS volumes under an AWS Backup plan
# description: >-
#   Which EBS volumes the stack's AWS Backup plans cover: standalone volumes (aws:ebs/volume:Volume,
#   with their own tags over the provider's defaultTags) and the volumes that EBS CSI StorageClasses
#   provision (tagged only through the StorageClass's tagSpecification parameters). A volume is
#   covered when a backup selection in its region selects it and the selection's plan is declared
#   in the document with a rule that keeps recovery points at least 7 days. A value unknown until
#   apply never counts as a match (fail closed).
# scope: package
package lib.backup

import data.lib.checks
import data.lib.findings
import data.lib.resources

volume_type := "aws:ebs/volume:Volume"

plan_type := "aws:backup/plan:Plan"

selection_type := "aws:backup/selection:Selection"

# a backup rule counts when it keeps recovery points at least this long (days), as database backups
min_retention_days := 7

# the preview's placeholder for a value known only after apply
_unknown := "[unknown]"

# unprotected(_, classes): the problems ({resource, message}) of the EBS volumes and EBS CSI
# StorageClasses of the data classes given that no backup plan covers. The problems are built once,
# by data class, however many controls ask.
unprotected(_, classes) := {p | some class in classes; some p in object.get(_unprotected, class, set())}

# ---------------------------------------------------------------- what lacks a backup

# standalone volumes: data class as resources.class_at resolves it (provider defaultTags included;
# tags unknown until apply count as personal)
_unprotected[class] contains findings.problem(input.document.resources[i], _volume_message(class, gap)) if {
	some i, t in _volume_targets
	class := object.get(resources.class_at, i, "")
	gap := _gaps[t]
}

# the volumes an EBS CSI StorageClass provisions (its seedance.io/data-class label)
_unprotected[class] contains findings.problem(input.document.resources[i], _class_message(class, gap)) if {
	some i, t in _class_targets
	class := object.get(resources.class_at, i, "")
	gap := _gaps[t]
}

# targets by position: standalone volumes, and the StorageClasses of the EBS CSI driver
_volume_targets := {i: _volume_target(input.document.resources[i], i) | some i in resources.indices(volume_type)}

_class_targets := {i: _class_target(sc) |
	some i in resources.indices(checks.storage_class)
	sc := input.document.resources[i]
	object.get(sc.inputs, "provisioner", "") in checks.ebs_csi
}

# Resources with the same target (region, tags) are covered alike, so each distinct target is
# decided once: many StorageClasses carry the same backup tag (gaps by target, for the uncovered).
_gaps := {t: gap |
	some t in {x | some x in _volume_targets} | {x | some x in _class_targets}
	gap := _gap(t)
}

_volume_message(class, gap) := sprintf(
	"%s-data EBS volume is not selected by any AWS Backup selection (by tag or by resource ARN), so no backup plan covers it",
	[class],
) if {
	gap.why == "unselected"
}

_volume_message(class, gap) := sprintf(
	"%s-data EBS volume has tags unknown until apply, so no AWS Backup selection can be shown to select it",
	[class],
) if {
	gap.why == "unknown"
}

_volume_message(class, gap) := sprintf(
	"%s-data EBS volume is not under an AWS Backup plan that keeps recovery points at least %d days (%s)",
	[class, min_retention_days, gap.reasons],
) if {
	gap.why == "plans"
}

_class_message(class, gap) := sprintf(
	"%s-data EBS StorageClass gives its volumes no tag an AWS Backup selection selects on (parameters tagSpecification_N: \"key=value\"), so no backup plan covers them",
	[class],
) if {
	gap.why == "unselected"
}

_class_message(class, gap) := sprintf(
	"%s-data EBS StorageClass has parameters unknown until apply, so no AWS Backup selection can be shown to select its volumes",
	[class],
) if {
	gap.why == "unknown"
}

_class_message(class, gap) := sprintf(
	"%s-data EBS StorageClass provisions volumes that are not under an AWS Backup plan that keeps recovery points at least %d days (%s)",
	[class, min_retention_days, gap.reasons],
) if {
	gap.why == "plans"
}

# Why a target (the volumes of one resource) is not covered, undefined when it is: no selection
# selects it ("unselected"; "unknown" when its tags are unknown until apply), or none of those that
# select it counts ("plans", with each selection's reason).
_gap(t) := gap if {
	selecting := {s | some s in resources.indices(selection_type); _selects(input.document.resources[s], t)}
	count({s | some s in selecting; not _selection_problem[s]}) == 0
	gap := _gap_kind(selecting, t)
}

_gap_kind(selecting, t) := {"why": "unselected"} if {
	count(selecting) == 0
	t.known
} else := {"why": "unknown"} if {
	count(selecting) == 0
} else := {"why": "plans", "reasons": concat("; ", sort([reason |
	some s in selecting
	reason := sprintf("selection %s: %s", [input.document.resources[s].name, _selection_problem[s]])
]))}

# ---------------------------------------------------------------- the volumes of a resource

# A target: where the volumes live (region, partition, account) and the tags they carry; `known` is
# false when the tags cannot be read before apply (then no selection by tag can be shown to match).
_volume_target(v, i) := {
	"region": region,
	"partition": _partition(region),
	"account": _account,
	"known": _own_tags_known(v),
	"tags": object.get(resources.tags_at, i, {}),
} if {
	region := resources.region(v, input.policy)
}

# own tags that are not an object or a list (the preview's "[unknown]") are unknown
_own_tags_known(v) := false if {
	raw := v.inputs.tags
	not is_object(raw)
	not is_array(raw)
} else := true

# A StorageClass's volumes carry the tags of its tagSpecification* parameters (the EBS CSI driver
# splits each value at the first "=" into key and value); provider defaultTags do not reach them.
_class_target(sc) := {
	"region": region,
	"partition": _partition(region),
	"account": _account,
	"known": true,
	"tags": _class_tags(params),
} if {
	params := object.get(sc.inputs, "parameters", {})
	is_object(params)
	region := resources.region(sc, input.policy)
} else := {
	"region": region,
	"partition": _partition(region),
	"account": _account,
	"known": false,
	"tags": {},
} if {
	region := resources.region(sc, input.policy)
}

# the driver's parameter prefix (case-sensitive) for tags of the provisioned volumes
tag_parameter_prefix := "tagSpecification"

_tag_pairs(params) := [[key, _literal(value)] |
	some name, raw in params
	startswith(name, tag_parameter_prefix)
	is_string(raw)
	parts := split(raw, "=")
	count(parts) > 1
	key := parts[0]
	key != ""
	value := concat("=", array.slice(parts, 1, count(parts)))
]

# a value the driver renders from a Go template ({{ .PVCName }}) is known only when it provisions
_literal(value) := _unknown if contains(value, "{{") else := value

# a key given twice with different values gets one of them, in no set order: unknown
_class_tags(params) := {key: _single({pair[1] | some pair in pairs; pair[0] == key}) |
	pairs := _tag_pairs(params)
	some p in pairs
	key := p[0]
}

_single(values) := v if {
	count(values) == 1
	some v in values
} else := _unknown

# the policy's account ("" or null when it names none: _any_account matches no ARN account then)
_account := object.get(input.policy, ["cloud", "accountId"], "")

_partition(region) := "aws-cn" if {
	startswith(region, "cn-")
} else := "aws-us-gov" if {
	startswith(region, "us-gov-")
} else := "aws"

# ---------------------------------------------------------------- selections

# AWS Backup assigns a resource to a selection when it matches `resources` or `selectionTags`
# (OR), every `conditions` entry holds (AND) and no `notResources` ARN names it; a selection by
# conditions alone assigns what they match. Only selections in the volumes' region back them up.
_selects(sel, t) if {
	resources.region(sel, input.policy) == t.region
	_includes(sel.inputs, t)
	_conditions_hold(sel.inputs, t)
	not _may_exclude(sel.inputs, t)
}

_includes(inputs, t) if {
	some pattern in _list(inputs, "resources")
	_all_volumes(pattern, t)
}

_includes(inputs, t) if {
	t.known
	some c in _list(inputs, "selectionTags")
	c.type == "STRINGEQUALS"
	_equal(t.tags, c.key, c.value)
}

# conditions alone, with at least one tag value the resource must have
_includes(inputs, _) if {
	_empty(inputs, "resources")
	_empty(inputs, "selectionTags")
	some block in _list(inputs, "conditions")
	some op in ["stringEquals", "stringLikes"]
	count(_list(block, op)) > 0
}

# A resources entry covers every volume of the target: "*", or an ARN whose partition, service,
# region and account match the target's and whose resource part matches any volume id
# (volume/*, volume/vol-*, *). An ARN naming one volume cannot be matched: its id is not known.
_all_volumes(pattern, _) if pattern == "*"

_all_volumes(pattern, t) if {
	parts := _arn_parts(pattern)
	_like(parts[1], t.partition)
	_like(parts[2], "ec2")
	_like(parts[3], t.region)
	_any_account(parts[4], t.account)
	_any_volume_id(parts[5])
}

_arn_parts(arn) := parts if {
	is_string(arn)
	parts := split(arn, ":")
	count(parts) == 6
	parts[0] == "arn"
}

_any_account(field, _) if field == "*"

_any_account(field, account) if {
	account != ""
	_like(field, account)
}

_any_volume_id(resource) if {
	endswith(resource, "*")
	startswith("volume/vol-", substring(resource, 0, count(resource) - 1))
}

_wild(s) if contains(s, "*")

_wild(s) if contains(s, "?")

# conditions: every entry of every block holds; an operator or key the gate cannot evaluate, or a
# block that is not a list of entries, does not hold
_conditions_hold(inputs, _) if not "conditions" in object.keys(inputs)

_conditions_hold(inputs, t) if {
	blocks := inputs.conditions
	is_array(blocks)
	every block in blocks {
		_block_holds(block, t)
	}
}

_block_holds(block, t) if {
	is_object(block)
	every op, entries in block {
		_entries_hold(op, entries, t)
	}
}

_entries_hold(op, entries, t) if {
	is_array(entries)
	every e in entries {
		_holds(op, e, t)
	}
}

# (the key first: it checks that the entry is an object)
_holds(op, e, t) if {
	op == "stringEquals"
	t.known
	key := _condition_key(e)
	_equal(t.tags, key, e.value)
}

_holds(op, e, t) if {
	op == "stringLikes"
	t.known
	key := _condition_key(e)
	value := t.tags[key]
	_known(value)
	_like(e.value, value)
}

# a tag the resource does not carry is not equal to (nor like) any value, as in IAM
_holds(op, e, t) if {
	op in {"stringNotEquals", "stringNotLikes"}
	t.known
	key := _condition_key(e)
	not key in object.keys(t.tags)
}

_holds(op, e, t) if {
	op == "stringNotEquals"
	t.known
	key := _condition_key(e)
	_known(e.value)
	value := t.tags[key]
	_known(value)
	value != e.value
}

_holds(op, e, t) if {
	op == "stringNotLikes"
	t.known
	key := _condition_key(e)
	_known(e.value)
	value := t.tags[key]
	_known(value)
	not _like(e.value, value)
}

# conditions name tags as aws:ResourceTag/KEY
_condition_key(e) := substring(e.key, count(_tag_condition_prefix), -1) if {
	is_object(e)
	is_string(e.key)
	startswith(e.key, _tag_condition_prefix)
}

_tag_condition_prefix := "aws:ResourceTag/"

# notResources: a list unknown until apply, or an entry that may name one of the target's volumes
# (not a six-part ARN, or an ARN of EC2 in the target's partition and region whose resource type
# may be volume), may take the volumes out
_may_exclude(inputs, _) if {
	"notResources" in object.keys(inputs)
	not is_array(inputs.notResources)
}

_may_exclude(inputs, t) if {
	some arn in _list(inputs, "notResources")
	_may_name_volume(arn, t)
}

# A volume's ARN has six colon-separated fields. A pattern with fewer may match it through a
# wildcard that spans colons; one with more literal colons cannot; one with six matches it field by
# field.
_may_name_volume(arn, _) if not is_string(arn)

_may_name_volume(arn, _) if {
	is_string(arn)
	count(split(arn, ":")) < 6
}

_may_name_volume(arn, t) if {
	is_string(arn)
	parts := split(arn, ":")
	count(parts) == 6
	_like(parts[0], "arn")
	_like(parts[1], t.partition)
	_like(parts[2], "ec2")
	_like(parts[3], t.region)
	_volume_kind(split(parts[5], "/")[0])
}

_volume_kind(kind) if kind == "volume"

_volume_kind(kind) if _wild(kind)

# ---------------------------------------------------------------- plans

# why a selection does not count, by selection position; undefined when its plan counts. A
# selection names its plan by planId: the plan's id (known once the plan exists) or a value unknown
# until apply, and the document's property dependencies say which plan resource it came from. A
# plan id unknown until apply without that link can only be that of a plan the stack creates, so it
# counts when every plan the stack declares does.
_plan_ids := {s: object.get(input.document.resources[s].inputs, "planId", "") | some s in resources.indices(selection_type)}

_selection_problem[s] := "its plan id is unknown until apply, and the stack declares no backup plan" if {
	some s, id in _plan_ids
	resources.hidden(id)
	count(_linked_plans(s, id)) == 0
	count(resources.indices(plan_type)) == 0
}

_selection_problem[s] := sprintf("its plan id is unknown until apply, and not every backup plan of the stack counts (%s)", [reasons]) if {
	some s, id in _plan_ids
	resources.hidden(id)
	count(_linked_plans(s, id)) == 0
	bad := resources.indices(plan_type) - _good_plans
	count(bad) > 0
	reasons := concat("; ", sort([_plan_problem[p] | some p in bad]))
}

_selection_problem[s] := sprintf("its plan %v is not declared in the stack", [id]) if {
	some s, id in _plan_ids
	resources.shown(id)
	count(_linked_plans(s, id)) == 0
}

_selection_problem[s] := concat("; ", sort([_plan_problem[p] | some p in bad])) if {
	some s, id in _plan_ids
	bad := _linked_plans(s, id) - _good_plans
	count(bad) > 0
}

# The plans a selection names: through its planId's property dependencies (the plan's URN), or by
# the plan's id or URN. Plans are indexed by both once, so each selection costs lookups.
_linked_plans(s, id) := (_by_dependency(s) | _lookup(_plans_by_urn, id)) | _lookup(_plans_by_id, id)

_by_dependency(s) := {p |
	some urn in object.get(input.document.resources[s], ["property_dependencies", "planId"], [])
	some p in _lookup(_plans_by_urn, urn)
}

# (built by partial rules, one pass over the plans however many there are; a partial rule with
# no entries is undefined in regorus, so the comprehensions give an empty object then)
_plans_by_urn := {urn: plans | some urn, plans in _plan_urns}

_plans_by_id := {id: plans | some id, plans in _plan_ids_index}

_plan_urns[urn] contains p if {
	some p in resources.indices(plan_type)
	urn := input.document.resources[p].urn
}

_plan_ids_index[id] contains p if {
	some p in resources.indices(plan_type)
	id := input.document.resources[p].id
	_known(id)
}

_lookup(index, key) := object.get(index, key, set())

_good_plans := {p | some p in resources.indices(plan_type); not _plan_problem[p]}

# why a plan does not count, by plan position: no rule keeps recovery points 7 days
_plan_problem[p] := sprintf("backup plan %s has rules %s", [plan.name, why]) if {
	some p in resources.indices(plan_type)
	plan := input.document.resources[p]
	rules := object.get(plan.inputs, "rules", [])
	not is_array(rules)
	why := object.get({"[secret]": "that are secret"}, rules, "unknown until apply")
}

_plan_problem[p] := sprintf("backup plan %s has no rules", [plan.name]) if {
	some p in resources.indices(plan_type)
	plan := input.document.resources[p]
	object.get(plan.inputs, "rules", []) == []
}

_plan_problem[p] := msg if {
	some p in resources.indices(plan_type)
	plan := input.document.resources[p]
	rules := object.get(plan.inputs, "rules", [])
	is_array(rules)
	count(rules) > 0
	not _some_rule_keeps(rules)
	kept := concat(", ", sort({_retention(r) | some r in rules}))
	msg := sprintf("backup plan %s deletes recovery points after %s; at least %d days required", [plan.name, kept, min_retention_days])
}

_some_rule_keeps(rules) if {
	some rule in rules
	_keeps(rule)
}

# a rule keeps recovery points at least 7 days: no lifecycle, a lifecycle without deleteAfter
# (never deleted), or deleteAfter >= 7
_keeps(rule) if {
	is_object(rule)
	not "lifecycle" in object.keys(rule)
}

_keeps(rule) if {
	lifecycle := rule.lifecycle
	is_object(lifecycle)
	not "deleteAfter" in object.keys(lifecycle)
}

_keeps(rule) if {
	days := rule.lifecycle.deleteAfter
	is_number(days)
	days >= min_retention_days
}

# how long a rule that does not count keeps recovery points
_retention(rule) := sprintf("%v days", [days]) if {
	days := _delete_after(rule)
	is_number(days)
} else := sprintf("%v days (cannot be established)", [_delete_after(rule)])

_delete_after(rule) := object.get(lifecycle, "deleteAfter", _unknown) if {
	is_object(rule)
	lifecycle := object.get(rule, "lifecycle", {})
	is_object(lifecycle)
} else := rule.lifecycle if {
	is_object(rule)
} else := rule

# ---------------------------------------------------------------- values

_list(obj, key) := value if {
	is_object(obj)
	value := object.get(obj, key, [])
	is_array(value)
} else := []

# absent or an empty list (not a list unknown until apply)
_empty(obj, key) if not key in object.keys(obj)

_empty(obj, key) if obj[key] == []

_known(value) if {
	is_string(value)
	resources.shown(value)
}

_equal(tags, key, value) if {
	is_string(key)
	_known(value)
	tags[key] == value
}

# AWS string matching with the wildcards * (any run of characters) and ? (one character); a
# pattern without them is compared as it is (no regular expression to build)
_like(pattern, value) if {
	is_string(pattern)
	is_string(value)
	not _wild(pattern)
	pattern == value
}

_like(pattern, value) if {
	pattern == "*"
	is_string(value)
}

_like(pattern, value) if {
	is_string(pattern)
	is_string(value)
	_wild(pattern)
	pattern != "*"
	regex.match(resources.wildcard_regex(pattern), value)
}
