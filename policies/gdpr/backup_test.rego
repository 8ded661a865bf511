package gdpr.backup_test

import data.gdpr.backup
import data.lib.fixtures

_f(type, name, msg) := fixtures.finding("GDPR-32.1c-1", "mandatory", type, name, msg)

pass_resources := array.concat(fixtures.good_bucket("ds", "personal"), [
	fixtures.bucket("scratch", "internal"),
	fixtures.resource("aws:rds/instance:Instance", "db", {"backupRetentionPeriod": 7}),
])

fail_resources := [
	fixtures.bucket("ds", "personal"),
	fixtures.bucket_part("aws:s3/bucketVersioning:BucketVersioning", "ds", "versioning", {"versioningConfiguration": {"status": "Suspended"}}),
	fixtures.resource("aws:rds/instance:Instance", "db", {"backupRetentionPeriod": 1}),
]

test_pass_versioned_personal_data if {
	v := backup.violation with input as fixtures.gate_input(fixtures.gdpr_policy, pass_resources)
	v == set()
}

test_fail_unversioned_personal_data if {
	v := backup.violation with input as fixtures.gate_input(fixtures.gdpr_policy, fail_resources)
	v == {
		_f("aws:s3/bucket:Bucket", "ds", "personal-data bucket is not versioned (no recovery from overwrite or deletion)"),
		_f("aws:rds/instance:Instance", "db", "database keeps backups 1 days (at least 7 required)"),
	}
}

# audit B2: versioning through the V2 type or inline counts
test_pass_v2_and_inline_versioning if {
	resources := [
		fixtures.bucket("v2", "personal"),
		fixtures.bucket_part("aws:s3/bucketVersioningV2:BucketVersioningV2", "v2", "versioning", {"versioningConfiguration": {"status": "Enabled"}}),
		object.union(fixtures.bucket("inline", "personal"), {"inputs": {"versioning": {"enabled": true}}}),
	]
	v := backup.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == set()
}

# ---------------------------------------------------------------- EBS volumes under an AWS Backup plan

_volume_type := "aws:ebs/volume:Volume"

_sc_type := "kubernetes:storage.k8s.io/v1:StorageClass"

_vol(name, tags) := fixtures.resource(_volume_type, name, {"size": 100, "encrypted": true, "tags": tags})

# a personal-data volume carrying backup=VALUE
_tagged(name, value) := _vol(name, object.union(fixtures.tags("personal"), {"backup": value}))

_rule(lifecycle) := object.union({"ruleName": "daily", "targetVaultName": "vault", "schedule": "cron(0 3 * * ? *)"}, lifecycle)

_days(n) := _rule({"lifecycle": {"deleteAfter": n}})

_plan(name, rules) := fixtures.resource("aws:backup/plan:Plan", name, {"name": name, "rules": rules, "tags": fixtures.tags("personal")})

_plan_urn(name) := fixtures.urn("aws:backup/plan:Plan", name)

_sel(name, plan_id, inputs) := fixtures.resource("aws:backup/selection:Selection", name, object.union(
	{"name": name, "planId": plan_id, "iamRoleArn": "arn:aws:iam::111122223333:role/backup"},
	inputs,
))

_by_tag(value) := {"selectionTags": [{"type": "STRINGEQUALS", "key": "backup", "value": value}]}

_cond(op, key, value) := {"conditions": [{op: [{"key": key, "value": value}]}]}

_gdpr(resources) := v if {
	v := backup.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
}

_vol_finding(name, msg) := _f(_volume_type, name, msg)

_unselected := "personal-data EBS volume is not selected by any AWS Backup selection (by tag or by resource ARN), so no backup plan covers it"

_not_kept(reasons) := sprintf("personal-data EBS volume is not under an AWS Backup plan that keeps recovery points at least 7 days (%s)", [reasons])

# the shape the components deploy: every EBS volume of the region, narrowed to a tag by a condition
_component_selection(name) := _sel(name, _plan_urn("plan"), {
	"resources": ["arn:aws:ec2:*:*:volume/*"],
	"conditions": [{"stringEquals": [{"key": "aws:ResourceTag/backup", "value": "daily"}]}],
})

test_pass_ebs_volume_under_a_backup_plan if {
	_gdpr([
		_tagged("vol", "daily"),
		_plan("plan", [_days(7)]),
		_sel("sel", _plan_urn("plan"), _by_tag("daily")),
		_tagged("vol2", "daily"),
		_component_selection("sel2"),
	]) == set()
}

# how a selection names its plan: the plan's id once it exists (a preview of a deployed stack, an
# export, synthesis), or a value unknown until apply linked to the plan by its property dependencies
test_pass_plan_named_by_id_or_dependency if {
	plan := object.union(_plan("plan", [_days(7)]), {"id": "a1b2c3d4-5678-90ab-cdef-111122223333"})
	_gdpr([_tagged("vol", "daily"), plan, _sel("sel", "a1b2c3d4-5678-90ab-cdef-111122223333", _by_tag("daily"))]) == set()

	# linked, so another plan of the stack that would not count does not matter
	linked := object.union(_sel("sel", "[unknown]", _by_tag("daily")), {"property_dependencies": {"planId": [_plan_urn("plan")]}})
	_gdpr([_tagged("vol", "daily"), _plan("plan", [_days(7)]), _plan("short", [_days(1)]), linked]) == set()
}

test_fail_plan_linked_by_dependency_does_not_count if {
	linked := object.union(_sel("sel", "[unknown]", _by_tag("daily")), {"property_dependencies": {"planId": [_plan_urn("short")]}})
	_gdpr([_tagged("vol", "daily"), _plan("plan", [_days(7)]), _plan("short", [_days(1)]), linked]) == {_vol_finding(
		"vol",
		_not_kept("selection sel: backup plan short deletes recovery points after 1 days; at least 7 days required"),
	)}
}

# the lifecycle deletes nothing: no lifecycle, or one without deleteAfter
test_pass_backup_rule_that_never_deletes if {
	_gdpr([_tagged("vol", "daily"), _plan("plan", [_rule({})]), _sel("sel", _plan_urn("plan"), _by_tag("daily"))]) == set()
	_gdpr([
		_tagged("vol", "daily"),
		_plan("plan", [_rule({"lifecycle": {"coldStorageAfter": 30}})]),
		_sel("sel", _plan_urn("plan"), _by_tag("daily")),
	]) == set()
}

# one rule that keeps recovery points long enough is enough
test_pass_one_backup_rule_keeps_long_enough if {
	_gdpr([_tagged("vol", "daily"), _plan("plan", [_days(1), _days(35)]), _sel("sel", _plan_urn("plan"), _by_tag("daily"))]) == set()
}

# tags given as a list of {key, value} (the autoscaling-group form) are tags too
test_pass_tags_as_a_list if {
	tags := [{"key": k, "value": v} | some k, v in object.union(fixtures.tags("personal"), {"backup": "daily"})]
	_gdpr([_vol("vol", tags), _plan("plan", [_days(7)]), _sel("sel", _plan_urn("plan"), _by_tag("daily"))]) == set()
}

# the tag may come from the provider's defaultTags
test_pass_selection_by_a_default_tag if {
	provider := fixtures.resource("pulumi:providers:aws", "aws", {"defaultTags": json.marshal({"tags": {"backup": "daily"}})})
	_gdpr([provider, _vol("vol", fixtures.tags("personal")), _plan("plan", [_days(7)]), _sel("sel", _plan_urn("plan"), _by_tag("daily"))]) == set()
}

test_pass_selection_by_resource_arn if {
	plan := _plan("plan", [_days(7)])
	_gdpr([_tagged("vol", "x"), plan, _sel("sel", _plan_urn("plan"), {"resources": ["*"]})]) == set()
	_gdpr([_tagged("vol", "x"), plan, _sel("sel", _plan_urn("plan"), {"resources": ["arn:aws:ec2:eu-*:*:volume/vol-*"]})]) == set()
	_gdpr([_tagged("vol", "x"), plan, _sel("sel", _plan_urn("plan"), {"resources": ["arn:aws:*:eu-central-1:*:*"]})]) == set()
}

# an account in the ARN matches the policy's cloud.accountId
test_pass_selection_by_arn_of_the_stack_account if {
	policy := object.union(fixtures.gdpr_policy, {"cloud": {"accountId": "111122223333"}})
	resources := [_tagged("vol", "x"), _plan("plan", [_days(7)]), _sel("sel", _plan_urn("plan"), {"resources": ["arn:aws:ec2:eu-central-1:111122223333:volume/*"]})]
	v := backup.violation with input as fixtures.gate_input(policy, resources)
	v == set()
}

# an ARN of another account, or of an account when the policy names none (null), covers nothing
test_fail_selection_by_arn_of_another_account if {
	resources := [_tagged("vol", "x"), _plan("plan", [_days(7)]), _sel("sel", _plan_urn("plan"), {"resources": ["arn:aws:ec2:eu-central-1:111122223333:volume/*"]})]
	other := object.union(fixtures.gdpr_policy, {"cloud": {"accountId": "444455556666"}})
	v := backup.violation with input as fixtures.gate_input(other, resources)
	v == {_vol_finding("vol", _unselected)}
	unnamed := object.union(fixtures.gdpr_policy, {"cloud": {"accountId": null}})
	w := backup.violation with input as fixtures.gate_input(unnamed, resources)
	w == {_vol_finding("vol", _unselected)}
}

# conditions alone select what they match; every condition operator evaluated on the volume's tags
test_pass_selection_by_conditions if {
	conditions := {"conditions": [
		{"stringEquals": [{"key": "aws:ResourceTag/backup", "value": "daily"}]},
		{"stringLikes": [{"key": "aws:ResourceTag/purpose", "value": "te*"}], "stringNotEquals": [
			{"key": "aws:ResourceTag/backup", "value": "never"},
			{"key": "aws:ResourceTag/absent", "value": "x"},
		]},
		{"stringNotLikes": [{"key": "aws:ResourceTag/purpose", "value": "prod*"}, {"key": "aws:ResourceTag/absent", "value": "*"}]},
	]}
	_gdpr([_tagged("vol", "daily"), _plan("plan", [_days(7)]), _sel("sel", _plan_urn("plan"), conditions)]) == set()
	empty_lists := object.union({"resources": [], "selectionTags": []}, _cond("stringEquals", "aws:ResourceTag/backup", "daily"))
	_gdpr([_tagged("vol", "daily"), _plan("plan", [_days(7)]), _sel("sel", _plan_urn("plan"), empty_lists)]) == set()
}

# GovCloud volumes have arn:aws-us-gov: ARNs
test_pass_selection_in_govcloud if {
	vol := object.union(_tagged("vol", "x"), {"region": "us-gov-west-1"})
	sel := object.union(_sel("sel", _plan_urn("plan"), {"resources": ["arn:aws-us-gov:ec2:*:*:volume/*"]}), {"region": "us-gov-west-1"})
	_gdpr([vol, _plan("plan", [_days(7)]), sel]) == set()
}

# excluding other resources leaves the volume selected
test_pass_not_resources_elsewhere if {
	not_resources := {"resources": ["*"], "notResources": [
		"arn:aws:ec2:eu-central-1:111122223333:instance/*",
		"arn:aws:ec2:eu-west-1:111122223333:volume/*",
		"arn:aws:rds:eu-central-1:111122223333:db:*",
		"arn:aws-cn:ec2:*:*:volume/*",
		"arn:aws:ec2:eu-central-1:111122223333:volume/vol-1:more", # more fields than a volume ARN
		"xrn:aws:ec2:eu-central-1:111122223333:volume/*",
		"arn:aws:rds:eu-central-1:111122223333:volume/x",
	]}
	_gdpr([_tagged("vol", "x"), _plan("plan", [_days(7)]), _sel("sel", _plan_urn("plan"), not_resources)]) == set()
}

# a plan id unknown until apply names a plan the stack creates: it counts when every plan counts
test_pass_unknown_plan_id_when_every_plan_counts if {
	_gdpr([_tagged("vol", "daily"), _plan("plan", [_days(7)]), _plan("other", [_rule({})]), _sel("sel", "[unknown]", _by_tag("daily"))]) == set()
}

# GDPR asks for backups of personal data only
test_pass_internal_ebs_volume_without_backup if {
	_gdpr([_vol("vol", fixtures.tags("internal")), fixtures.storage_class("ckpt", "internal", {})]) == set()
}

test_fail_ebs_volume_not_selected if {
	_gdpr([_tagged("vol", "daily")]) == {_vol_finding("vol", _unselected)}
}

# tags unknown until apply: the class is personal and no tag can be shown to match (not even the
# provider's default tag)
test_fail_ebs_volume_with_unknown_tags if {
	provider := fixtures.resource("pulumi:providers:aws", "aws", {"defaultTags": json.marshal({"tags": {"backup": "daily"}})})
	resources := [provider, _vol("vol", "[unknown]"), _plan("plan", [_days(7)]), _sel("sel", _plan_urn("plan"), _by_tag("daily"))]
	_gdpr(resources) == {_vol_finding("vol", "personal-data EBS volume has tags unknown until apply, so no AWS Backup selection can be shown to select it")}
}

# nor through conditions, of any operator
test_fail_unknown_tags_under_conditions if {
	provider := fixtures.resource("pulumi:providers:aws", "aws", {"defaultTags": json.marshal({"tags": {"backup": "daily"}})})
	msg := "personal-data EBS volume has tags unknown until apply, so no AWS Backup selection can be shown to select it"
	every conditions in [
		_cond("stringEquals", "aws:ResourceTag/backup", "daily"),
		_cond("stringLikes", "aws:ResourceTag/backup", "da*"),
		_cond("stringNotEquals", "aws:ResourceTag/backup", "never"),
		_cond("stringNotLikes", "aws:ResourceTag/backup", "x*"),
		_cond("stringNotEquals", "aws:ResourceTag/absent", "x"),
	] {
		sel := _sel("sel", _plan_urn("plan"), object.union({"resources": ["*"]}, conditions))
		_gdpr([provider, _vol("vol", "[unknown]"), _plan("plan", [_days(7)]), sel]) == {_vol_finding("vol", msg)}
	}
}

test_fail_backup_rule_deletes_too_soon if {
	resources := [_tagged("vol", "daily"), _plan("plan", [_days(3), _days(6)]), _sel("sel", _plan_urn("plan"), _by_tag("daily"))]
	_gdpr(resources) == {_vol_finding("vol", _not_kept("selection sel: backup plan plan deletes recovery points after 3 days, 6 days; at least 7 days required"))}
}

# a retention the preview does not know yet is not taken as long enough, wherever it is unknown
test_fail_backup_retention_unknown if {
	resources := [
		_tagged("vol", "daily"),
		_plan("days", [_days("[unknown]")]),
		_plan("lifecycle", [_rule({"lifecycle": "[unknown]"})]),
		_plan("rule", ["[unknown]"]),
		_sel("s1", _plan_urn("days"), _by_tag("daily")),
		_sel("s2", _plan_urn("lifecycle"), _by_tag("daily")),
		_sel("s3", _plan_urn("rule"), _by_tag("daily")),
	]
	msg := _not_kept(concat("; ", [
		"selection s1: backup plan days deletes recovery points after [unknown] days (cannot be established); at least 7 days required",
		"selection s2: backup plan lifecycle deletes recovery points after [unknown] days (cannot be established); at least 7 days required",
		"selection s3: backup plan rule deletes recovery points after [unknown] days (cannot be established); at least 7 days required",
	]))
	_gdpr(resources) == {_vol_finding("vol", msg)}
}

test_fail_backup_plan_without_rules if {
	empty := [_tagged("vol", "daily"), _plan("plan", []), _sel("sel", _plan_urn("plan"), _by_tag("daily"))]
	_gdpr(empty) == {_vol_finding("vol", _not_kept("selection sel: backup plan plan has no rules"))}
	unknown := [_tagged("vol", "daily"), _plan("plan", "[unknown]"), _sel("sel", _plan_urn("plan"), _by_tag("daily"))]
	_gdpr(unknown) == {_vol_finding("vol", _not_kept("selection sel: backup plan plan has rules unknown until apply"))}
	secret := [_tagged("vol", "daily"), _plan("plan", "[secret]"), _sel("sel", _plan_urn("plan"), _by_tag("daily"))]
	_gdpr(secret) == {_vol_finding("vol", _not_kept("selection sel: backup plan plan has rules that are secret"))}
}

test_fail_backup_plan_not_in_the_stack if {
	resources := [_tagged("vol", "daily"), _plan("plan", [_days(7)]), _sel("sel", "a1b2c3d4-5678-90ab-cdef-111122223333", _by_tag("daily"))]
	_gdpr(resources) == {_vol_finding("vol", _not_kept("selection sel: its plan a1b2c3d4-5678-90ab-cdef-111122223333 is not declared in the stack"))}
}

# only a plan of the stack counts: by URN, id or property dependency
test_fail_plan_ids_that_name_no_plan if {
	vault := fixtures.resource("aws:backup/vault:Vault", "vault", {"name": "vault"})
	every id in [fixtures.urn("aws:backup/vault:Vault", "vault"), 7, "junk-0123abcd", "plan-0123abcd", "plan"] {
		resources := [_tagged("vol", "daily"), vault, _plan("plan", [_days(7)]), _sel("sel", id, _by_tag("daily"))]
		_gdpr(resources) == {_vol_finding("vol", _not_kept(sprintf("selection sel: its plan %v is not declared in the stack", [id])))}
	}
	_gdpr([_tagged("vol", "daily"), _sel("sel", "elsewhere", _by_tag("daily"))]) == {_vol_finding(
		"vol",
		_not_kept("selection sel: its plan elsewhere is not declared in the stack"),
	)}
}

test_fail_unknown_plan_id_without_plans if {
	_gdpr([_tagged("vol", "daily"), _sel("sel", "[unknown]", _by_tag("daily"))]) == {_vol_finding(
		"vol",
		_not_kept("selection sel: its plan id is unknown until apply, and the stack declares no backup plan"),
	)}
}

test_fail_unknown_plan_id_with_a_plan_that_does_not_count if {
	resources := [_tagged("vol", "daily"), _plan("plan", [_days(7)]), _plan("short", [_days(1)]), _sel("sel", "[unknown]", _by_tag("daily"))]
	msg := _not_kept("selection sel: its plan id is unknown until apply, and not every backup plan of the stack counts (backup plan short deletes recovery points after 1 days; at least 7 days required)")
	_gdpr(resources) == {_vol_finding("vol", msg)}
}

# every selection that selects the volume is named with its reason
test_fail_every_selection_named if {
	resources := [
		_tagged("vol", "daily"),
		_plan("short", [_days(2)]),
		_sel("a", _plan_urn("short"), _by_tag("daily")),
		_sel("b", "elsewhere", _by_tag("daily")),
		_sel("c", "elsewhere", _by_tag("other")), # does not select the volume: not named
	]
	msg := _not_kept("selection a: backup plan short deletes recovery points after 2 days; at least 7 days required; selection b: its plan elsewhere is not declared in the stack")
	_gdpr(resources) == {_vol_finding("vol", msg)}
}

# Selections that do not select the volume, one volume (backup=K) and one selection each
_miss(k, inputs) := [_tagged(k, k), _sel(concat("-", ["sel", k]), _plan_urn("plan"), inputs)]

_misses(cases) := array.concat([_plan("plan", [_days(7)])], [r | some k, inputs in cases; some r in _miss(k, inputs)])

_unselected_all(cases) := {_vol_finding(k, _unselected) | some k, _ in cases}

test_fail_selection_tags_that_do_not_match if {
	cases := {
		"wrong-type": {"selectionTags": [{"type": "STRINGLIKE", "key": "backup", "value": "wrong-type"}]},
		"wrong-value": _by_tag("other"),
		"unknown-value": _by_tag("[unknown]"),
		"not-an-object": {"selectionTags": ["[unknown]"]},
		"unknown-list": {"selectionTags": "[unknown]"},
	}
	_gdpr(_misses(cases)) == _unselected_all(cases)
}

# a selection backs up the resources of its own region only
test_fail_selection_in_another_region if {
	sel := object.union(_sel("sel", _plan_urn("plan"), {"resources": ["*"]}), {"region": "eu-west-1"})
	_gdpr([_tagged("vol", "daily"), _plan("plan", [_days(7)]), sel]) == {_vol_finding("vol", _unselected)}
}

test_fail_unknown_tag_value_matches_nothing if {
	resources := [_tagged("vol", "[unknown]"), _plan("plan", [_days(7)]), _sel("sel", _plan_urn("plan"), _by_tag("[unknown]"))]
	_gdpr(resources) == {_vol_finding("vol", _unselected)}
}

test_fail_conditions_that_do_not_hold if {
	cases := {
		"equals": _cond("stringEquals", "aws:ResourceTag/backup", "other"),
		"equals-bare-key": _cond("stringEquals", "backup", "equals-bare-key"),
		"likes": _cond("stringLikes", "aws:ResourceTag/backup", "x*"),
		"likes-escaped": _cond("stringLikes", "aws:ResourceTag/backup", "likes.escaped"),
		"likes-absent": object.union(_by_tag("likes-absent"), _cond("stringLikes", "aws:ResourceTag/absent", "*")),
		"not-equals": object.union(_by_tag("not-equals"), _cond("stringNotEquals", "aws:ResourceTag/backup", "not-equals")),
		"not-likes": object.union(_by_tag("not-likes"), _cond("stringNotLikes", "aws:ResourceTag/backup", "not-*")),
		"not-equals-bad-key": object.union(_by_tag("not-equals-bad-key"), _cond("stringNotEquals", "backup", "x")),
		"not-likes-unknown": object.union(_by_tag("not-likes-unknown"), _cond("stringNotLikes", "aws:ResourceTag/backup", "[unknown]")),
		"not-equals-unknown": object.union(_by_tag("not-equals-unknown"), _cond("stringNotEquals", "aws:ResourceTag/backup", "[unknown]")),
		"not-equals-number": object.union(_by_tag("not-equals-number"), _cond("stringNotEquals", "aws:ResourceTag/backup", 7)),
		"key-not-text": object.union(_by_tag("key-not-text"), {"conditions": [{"stringNotEquals": [{"key": 7, "value": "x"}]}]}),
		"other-operator": object.union(_by_tag("other-operator"), _cond("stringStartsWith", "aws:ResourceTag/backup", "o")),
		"block-not-object": object.union(_by_tag("block-not-object"), {"conditions": ["[unknown]"]}),
		"entries-not-list": object.union(_by_tag("entries-not-list"), {"conditions": [{"stringEquals": "[unknown]"}]}),
		"entry-not-object": object.union(_by_tag("entry-not-object"), {"conditions": [{"stringNotEquals": ["[unknown]"]}]}),
		"equals-entry-not-object": object.union(_by_tag("equals-entry-not-object"), {"conditions": [{"stringEquals": [7]}]}),
		"unknown-conditions": object.union(_by_tag("unknown-conditions"), {"conditions": "[unknown]"}),
		"only-negative": _cond("stringNotEquals", "aws:ResourceTag/backup", "x"),
		"resources-unknown": object.union({"resources": "[unknown]"}, _cond("stringEquals", "aws:ResourceTag/backup", "resources-unknown")),
		# with resources or selectionTags, the conditions only narrow what those select
		"resources-other": object.union({"resources": ["arn:aws:ec2:*:*:instance/*"]}, _cond("stringEquals", "aws:ResourceTag/backup", "resources-other")),
		"tags-other": object.union(_by_tag("other"), _cond("stringEquals", "aws:ResourceTag/backup", "tags-other")),
	}
	_gdpr(_misses(cases)) == _unselected_all(cases)
}

# a tag value unknown until apply cannot be shown to match, nor to differ
test_fail_conditions_on_an_unknown_value if {
	vol := _vol("vol", object.union(fixtures.tags("personal"), {"backup": "daily", "tier": "[unknown]"}))
	resources := [vol, _plan("plan", [_days(7)]), _sel("sel", _plan_urn("plan"), object.union(_by_tag("daily"), _cond("stringNotEquals", "aws:ResourceTag/tier", "x")))]
	_gdpr(resources) == {_vol_finding("vol", _unselected)}
	not_likes := [vol, _plan("plan", [_days(7)]), _sel("sel", _plan_urn("plan"), object.union(_by_tag("daily"), _cond("stringNotLikes", "aws:ResourceTag/tier", "x*")))]
	_gdpr(not_likes) == {_vol_finding("vol", _unselected)}
	likes := [vol, _plan("plan", [_days(7)]), _sel("sel", _plan_urn("plan"), object.union(_by_tag("daily"), _cond("stringLikes", "aws:ResourceTag/tier", "*")))]
	_gdpr(likes) == {_vol_finding("vol", _unselected)}
}

test_fail_resource_arns_that_do_not_cover_every_volume if {
	cases := {
		"one-volume": {"resources": ["arn:aws:ec2:eu-central-1:111122223333:volume/vol-0123456789abcdef0"]},
		"other-partition": {"resources": ["arn:aws-cn:ec2:*:*:volume/*"]},
		"other-service": {"resources": ["arn:aws:rds:*:*:volume/*"]},
		"other-region": {"resources": ["arn:aws:ec2:us-*:*:volume/*"]},
		"named-account": {"resources": ["arn:aws:ec2:*:111122223333:volume/*"]}, # the policy names no account
		"instances": {"resources": ["arn:aws:ec2:*:*:instance/*"]},
		"wildcard-inside": {"resources": ["arn:aws:ec2:*:*:volume/*vol"]},
		"wildcard-in-id": {"resources": ["arn:aws:ec2:*:*:volume/vol-0*"]},
		"single-character": {"resources": ["arn:aws:ec2:*:*:volume/?*"]},
		"service-only": {"resources": ["arn:aws:ec2:*"]},
		"unknown": {"resources": ["[unknown]"]},
		"unknown-list": {"resources": "[unknown]"},
		"not-text": {"resources": [7]},
		"more-fields": {"resources": ["arn:aws:ec2:*:*:volume/*:x"]},
		"not-an-arn": {"resources": ["xrn:aws:ec2:*:*:volume/*"]},
		"empty-account": {"resources": ["arn:aws:ec2:*::volume/*"]},
		"no-wildcard": {"resources": ["arn:aws:ec2:*:*:volume/"]},
	}
	_gdpr(_misses(cases)) == _unselected_all(cases)
}

test_fail_not_resources_that_may_name_the_volume if {
	cases := {
		"everything": {"resources": ["*"], "notResources": ["*"]},
		"every-volume": {"resources": ["*"], "notResources": ["arn:aws:ec2:*:*:volume/*"]},
		"one-volume": {"resources": ["*"], "notResources": ["arn:aws:ec2:eu-central-1:111122223333:volume/vol-0123456789abcdef0"]},
		"any-type": {"resources": ["*"], "notResources": ["arn:aws:ec2:eu-central-1:111122223333:*"]},
		"any-letter": {"resources": ["*"], "notResources": ["arn:aws:ec2:eu-central-1:111122223333:v?lume/vol-1"]},
		"not-an-arn": {"resources": ["*"], "notResources": ["[unknown]"]},
		"colons-spanned": {"resources": ["*"], "notResources": ["arn:aws:ec2:*:volume/*"]},
		"not-a-string": {"resources": ["*"], "notResources": [{}]},
		"unknown-list": {"resources": ["*"], "notResources": "[unknown]"},
	}
	_gdpr(_misses(cases)) == _unselected_all(cases)
}

# ---------------------------------------------------------------- StorageClasses of the EBS CSI driver

_sc(name, params) := fixtures.storage_class(name, "personal", {"parameters": object.union({"type": "gp3", "encrypted": "true"}, params)})

_sc_finding(name, msg) := _f(_sc_type, name, msg)

_sc_unselected := "personal-data EBS StorageClass gives its volumes no tag an AWS Backup selection selects on (parameters tagSpecification_N: \"key=value\"), so no backup plan covers them"

test_pass_storage_class_tags_its_volumes if {
	resources := [
		_sc("general", {"tagSpecification_1": "backup=daily", "tagSpecification_2": "team=a=b"}),
		fixtures.storage_class("legacy", "personal", {"provisioner": "kubernetes.io/aws-ebs", "parameters": {"tagSpecification_1": "backup=daily"}}),
		_plan("plan", [_days(7)]),
		_component_selection("sel"),
		_sc("split", {"tagSpecification_1": "team=a=b"}),
		_sel("sel2", _plan_urn("plan"), {"selectionTags": [{"type": "STRINGEQUALS", "key": "team", "value": "a=b"}]}),
		# local NVMe and other provisioners are not EBS
		fixtures.storage_class("scratch", "personal", {"provisioner": "kubernetes.io/no-provisioner", "parameters": {}}),
	]
	_gdpr(resources) == set()
}

test_fail_storage_class_without_a_selected_tag if {
	resources := [
		_sc("none", {}),
		_sc("other-prefix", {"labels": "backup=daily", "TagSpecification_1": "backup=daily"}),
		_sc("no-separator", {"tagSpecification_1": "backup"}),
		_sc("templated", {"tagSpecification_1": "backup={{ .PVCNamespace }}"}),
		_sc("twice", {"tagSpecification_1": "backup=daily", "tagSpecification_2": "backup=weekly"}),
		_sc("not-text", {"tagSpecification_1": 7}),
		_sc("empty-key", {"tagSpecification_1": "=daily"}), # the driver refuses it
		_plan("plan", [_days(7)]),
		_component_selection("sel"),
		# these would select a value-less "backup" tag and an empty key, were they tags
		_sel("sel2", _plan_urn("plan"), {"selectionTags": [
			{"type": "STRINGEQUALS", "key": "backup", "value": ""},
			{"type": "STRINGEQUALS", "key": "", "value": "daily"},
		]}),
	]
	names := ["none", "other-prefix", "no-separator", "templated", "twice", "not-text", "empty-key"]
	_gdpr(resources) == {_sc_finding(name, _sc_unselected) | some name in names}
}

test_fail_storage_class_with_unknown_parameters if {
	sc := fixtures.storage_class("general", "personal", {"parameters": "[unknown]"})
	_gdpr([sc, _plan("plan", [_days(7)]), _component_selection("sel")]) == {_sc_finding(
		"general",
		"personal-data EBS StorageClass has parameters unknown until apply, so no AWS Backup selection can be shown to select its volumes",
	)}
}

test_fail_storage_class_volumes_kept_too_briefly if {
	resources := [_sc("general", {"tagSpecification_1": "backup=daily"}), _plan("plan", [_days(5)]), _component_selection("sel")]
	_gdpr(resources) == {_sc_finding(
		"general",
		"personal-data EBS StorageClass provisions volumes that are not under an AWS Backup plan that keeps recovery points at least 7 days (selection sel: backup plan plan deletes recovery points after 5 days; at least 7 days required)",
	)}
}

# red team: DocumentDB and Neptune clusters keep automated backups as RDS does (1 day when unset),
# and a personal-data DynamoDB table restores only with point-in-time recovery
_table(name, class, inputs) := fixtures.resource("aws:dynamodb/table:Table", name, object.union({"hashKey": "id", "tags": fixtures.tags(class)}, inputs))

test_fail_docdb_neptune_and_dynamodb_backups if {
	resources := [
		fixtures.resource("aws:docdb/cluster:Cluster", "docdb", {"storageEncrypted": true, "backupRetentionPeriod": 1}),
		fixtures.resource("aws:neptune/cluster:Cluster", "neptune", {"storageEncrypted": true}),
		_table("users", "personal", {}),
		_table("late", "personal", {"pointInTimeRecovery": {"enabled": "[unknown]"}}),
	]
	v := backup.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == {
		_f("aws:docdb/cluster:Cluster", "docdb", "database keeps backups 1 days (at least 7 required)"),
		_f("aws:neptune/cluster:Cluster", "neptune", "database keeps backups 1 days (at least 7 required)"),
		_f("aws:dynamodb/table:Table", "users", "personal-data DynamoDB table has no point-in-time recovery (pointInTimeRecovery.enabled is false, true required)"),
		_f("aws:dynamodb/table:Table", "late", "personal-data DynamoDB table has no point-in-time recovery (pointInTimeRecovery.enabled is [unknown], true required)"),
	}
}

# near miss: 7 days of backups, point-in-time recovery on, and an internal-data table (not GDPR's)
test_pass_docdb_neptune_and_dynamodb_backups if {
	resources := [
		fixtures.resource("aws:docdb/cluster:Cluster", "docdb", {"storageEncrypted": true, "backupRetentionPeriod": 7}),
		fixtures.resource("aws:neptune/cluster:Cluster", "neptune", {"storageEncrypted": true, "backupRetentionPeriod": 35}),
		_table("users", "personal", {"pointInTimeRecovery": {"enabled": true}}),
		_table("cache", "internal", {}),
	]
	v := backup.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == set()
}

# red team F5: Redshift clusters keep automated snapshots as databases keep backups (1 day when
# unset), and personal-data ElastiCache and MemoryDB stores keep automatic snapshots 7 days (none
# when unset; a Memcached node-based cluster cannot keep any)
_store(type, name, class, inputs) := fixtures.resource(type, name, object.union({"tags": fixtures.tags(class)}, inputs))

test_fail_redshift_and_in_memory_store_backups if {
	resources := [
		_store("aws:redshift/cluster:Cluster", "dw", "personal", {"encrypted": true, "automatedSnapshotRetentionPeriod": 1}),
		_store("aws:redshift/cluster:Cluster", "dw-default", "internal", {"encrypted": true}),
		_store("aws:elasticache/replicationGroup:ReplicationGroup", "rg", "personal", {"snapshotRetentionLimit": 0}),
		_store("aws:elasticache/replicationGroup:ReplicationGroup", "rg-short", "personal", {"snapshotRetentionLimit": 3}),
		_store("aws:elasticache/cluster:Cluster", "single", "personal", {"engine": "valkey"}),
		_store("aws:elasticache/cluster:Cluster", "mc", "personal", {"engine": "memcached"}),
		_store("aws:elasticache/serverlessCache:ServerlessCache", "sl", "personal", {"engine": "redis", "snapshotRetentionLimit": "[unknown]"}),
		_store("aws:memorydb/cluster:Cluster", "mdb", "personal", {}),
	]
	v := backup.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == {
		_f("aws:redshift/cluster:Cluster", "dw", "database keeps backups 1 days (at least 7 required)"),
		_f("aws:redshift/cluster:Cluster", "dw-default", "database keeps backups 1 days (at least 7 required)"),
		_f("aws:elasticache/replicationGroup:ReplicationGroup", "rg", "personal-data ElastiCache replication group keeps no automatic snapshots (snapshotRetentionLimit 0; at least 7 days required)"),
		_f("aws:elasticache/replicationGroup:ReplicationGroup", "rg-short", "personal-data ElastiCache replication group keeps snapshots 3 days (snapshotRetentionLimit; at least 7 required)"),
		_f("aws:elasticache/cluster:Cluster", "single", "personal-data ElastiCache cluster keeps no automatic snapshots (snapshotRetentionLimit 0; at least 7 days required)"),
		_f("aws:elasticache/cluster:Cluster", "mc", "personal-data ElastiCache Memcached cluster keeps no backups (ElastiCache snapshots Valkey and Redis OSS clusters and serverless caches only; at least 7 days required)"),
		_f("aws:elasticache/serverlessCache:ServerlessCache", "sl", "personal-data ElastiCache serverless cache: snapshot retention [unknown] cannot be established (snapshotRetentionLimit; at least 7 days required)"),
		_f("aws:memorydb/cluster:Cluster", "mdb", "personal-data MemoryDB cluster keeps no automatic snapshots (snapshotRetentionLimit 0; at least 7 days required)"),
	}
}

# near miss: 7 days and more; a group member is backed up by its group; an internal-data cache is
# not GDPR's
test_pass_redshift_and_in_memory_store_backups if {
	resources := [
		_store("aws:redshift/cluster:Cluster", "dw", "personal", {"encrypted": true, "automatedSnapshotRetentionPeriod": 7}),
		_store("aws:elasticache/replicationGroup:ReplicationGroup", "rg", "personal", {"snapshotRetentionLimit": 7}),
		_store("aws:elasticache/cluster:Cluster", "member", "personal", {"replicationGroupId": "rg"}),
		_store("aws:elasticache/serverlessCache:ServerlessCache", "sl", "personal", {"engine": "memcached", "snapshotRetentionLimit": "14"}),
		_store("aws:memorydb/cluster:Cluster", "mdb", "personal", {"snapshotRetentionLimit": 35}),
		_store("aws:elasticache/replicationGroup:ReplicationGroup", "scratch", "internal", {}),
	]
	v := backup.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == set()
}

# red team F3: an S3 directory bucket cannot be versioned, so personal data in one cannot be
# restored after an overwrite or deletion; an internal-data one is not GDPR's
test_fail_personal_directory_bucket_cannot_be_versioned if {
	resources := [
		_store("aws:s3/directoryBucket:DirectoryBucket", "express", "personal", {"bucket": "express--euc1-az1--x-s3"}),
		_store("aws:s3/directoryBucket:DirectoryBucket", "scratch", "internal", {"bucket": "scratch--euc1-az1--x-s3"}),
	]
	v := backup.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == {_f(
		"aws:s3/directoryBucket:DirectoryBucket", "express",
		"personal-data S3 directory bucket cannot be versioned (S3 Express One Zone does not support versioning), so overwritten or deleted objects cannot be restored; keep the data in a general purpose bucket, or waive this finding with the evidence of another copy",
	)}
}
