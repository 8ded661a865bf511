package budget.cost_allocation_tags

import data.lib.budget
import data.lib.findings
import data.lib.resources

# METADATA
# title: "Cost-allocation tags"
# description: >-
#   Every taggable AWS resource carries the cost-allocation tags team, cost-center, environment
#   and owner (its own tags or the provider's defaultTags) with a real value, so its cost can be
#   charged back.
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

_json(raw) := json.unmarshal(raw) if is_string(raw)

_json(raw) := raw if is_object(raw)

_problems contains findings.problem(r, msg) if {
	some i in resources.taggable_indices
	r := input.document.resources[i]
	tags := object.union(_default_tags, resources.tags(r))
	missing := [k | some k in budget.cost_tags; not _has(tags, k)]
	count(missing) > 0
	msg := sprintf("missing cost-allocation tag(s): %s", [concat(", ", missing)])
}

_has(tags, key) if {
	value := tags[key]
	not value in budget.missing_values
}
