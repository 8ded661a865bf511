package budget.cost_allocation_tags

import data.lib.budget
import data.lib.findings
import data.lib.resources

# METADATA
# title: "Cost-allocation tags"
# description: >-
#   Every taggable AWS resource carries the cost-allocation tags team, cost-center, environment
#   and owner (its own tags or its provider's defaultTags; for an Auto Scaling group, the tags it
#   propagates to its instances at launch) with a real value, so its cost can be charged back.
# related_resources:
#   - ref: https://docs.aws.amazon.com/awsaccountbilling/latest/aboutv2/cost-alloc-tags.html
# custom:
#   control_id: BUDGET-TAGS-1
#   clause: "Seedance cost policy"
#   framework: budget
#   severity: mandatory
#   remediation: >-
#     Set metadata.tags team and cost-center (environment and owner come from metadata) in the
#     cost policy; the components put them on every taggable resource.
violation contains findings.finding("BUDGET-TAGS-1", p.resource, p.message) if {
	some p in _problems
}

_default_tags := object.union_n([t |
	some p in resources.of_type(input.document, "pulumi:providers:aws")
	raw := object.get(p.inputs, "defaultTags", "{}")
	doc := _json(raw)
	t := object.get(doc, "tags", {})
])

# a placeholder ("[unknown]" in a preview), text that is not JSON or JSON that is not an object
# gives no default tags
_json(raw) := doc if {
	is_string(raw)
	json.is_valid(raw)
	doc := json.unmarshal(raw)
	is_object(doc)
}

_json(raw) := raw if is_object(raw)

# Tag sets repeat across a stack (the same team, cost centre, environment and owner on most
# resources), so completeness is decided once per distinct tag set, not once per resource.
_incomplete := {tags |
	some tags in {t | some t in resources.tags_at}
	not _complete(tags)
}

# (resources.tags_at already holds each resource's own provider's default tags under its own: the
# defaults of every provider merged would count another provider's tags for it)
_problems contains findings.problem(input.document.resources[i], _message(tags)) if {
	count(_incomplete) > 0
	some i, tags in resources.tags_at
	tags in _incomplete
	i in _taggable_besides_groups
}

# taggable resources without tags of their own
_problems contains findings.problem(input.document.resources[i], _message(_default_tags)) if {
	not _complete(_default_tags)
	some i in (resources.taggable_indices - object.keys(resources.tags_at)) - _groups
}

# Auto Scaling groups: the AWS provider's default tags do not apply to them, and their instances
# carry the group's tags only where the group propagates them at launch, so a group is judged by
# the tags it propagates
_groups := resources.indices("aws:autoscaling/group:Group")

_taggable_besides_groups := resources.taggable_indices - _groups

_problems contains findings.problem(input.document.resources[i], msg) if {
	count(_incomplete_group_tags) > 0
	some i in _groups
	msg := _incomplete_group_tags[object.get(input.document.resources[i].inputs, "tags", [])]
}

# Groups of one fleet repeat the same tag list, so each distinct list is judged once (builtins
# only, cost tags first: regorus pays for every function call and loop step): list -> message
_incomplete_group_tags := {raw: msg |
	some raw in {object.get(input.document.resources[i].inputs, "tags", []) | some i in _groups}
	tags := {t.key: t.value |
		some t in resources.elements(raw)
		t.key in budget.cost_tags
		object.get(t, "propagateAtLaunch", false) in {true, "true"}
	}
	not _complete(tags)
	msg := sprintf("%s on the instances it launches (the group's tags with propagateAtLaunch; provider default tags do not apply to Auto Scaling groups)", [_message(tags)])
}

_complete(tags) if {
	present := object.filter(tags, budget.cost_tags)
	count(present) == count(budget.cost_tags)
	every value in present {
		not value in _missing_values
	}
}

# a secret tag value cannot be shown to be set (nor one unknown until apply: budget.missing_values)
_missing_values := budget.missing_values | {"[secret]"}

_message(tags) := sprintf("missing cost-allocation tag(s): %s%s", [concat(", ", missing), _secret_note(tags)]) if {
	missing := [k | some k in budget.cost_tags; not _has(tags, k)]
}

_secret_note(tags) := sprintf(" (secret: %s)", [concat(", ", secret)]) if {
	secret := [k | some k in budget.cost_tags; object.get(tags, k, "") == "[secret]"]
	count(secret) > 0
} else := ""

_has(tags, key) if {
	value := tags[key]
	not value in _missing_values
}
