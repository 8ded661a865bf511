# METADATA
# title: Frameworks and jurisdiction
# description: >-
#   Which compliance frameworks apply to a stack, its jurisdiction and the settings that
#   differ between jurisdictions (residency lists, log retention bounds). Defaults live here;
#   data.seedance.settings may override each one; a stack's policy may only add to the allow-lists
#   (compliance.trusted).
# scope: package
package lib.frameworks

default_settings := {
	# GDPR Chapter V: personal data stays in the EEA, or goes where a Commission adequacy decision
	# (Art. 45: no further authorisation needed) covers it. By name, not eu-*: Zurich and London are
	# not in the EEA (adequacy decisions for Switzerland and the UK), and Tel Aviv, Tokyo, Osaka,
	# Seoul, Auckland and Canada's regions are covered as they are (Israel, Japan, Republic of Korea,
	# New Zealand, Canada: commercial organisations under PIPEDA). The US is not (the Data Privacy Framework covers only
	# certified organisations): a transfer there, or anywhere else, needs safeguards recorded as a
	# waiver. A policy narrows this with compliance.dataResidency.
	"gdpr_regions": [
		"eu-central-1", "eu-north-1", "eu-south-1", "eu-south-2", "eu-west-1", "eu-west-3", # EEA
		"eu-central-2", "eu-west-2", "il-central-1", "ap-northeast-1", "ap-northeast-3", "ap-northeast-2",
		"ap-southeast-6", "ca-central-1", "ca-west-1",
	],
	# MLPS cloud extension: data stored inside mainland China
	"mlps_regions": ["cn-north-1", "cn-northwest-1"],
	# Cybersecurity Law art. 21: network logs kept not less than six months (CloudWatch offers 180, then 365)
	"mlps_min_log_days": 180,
	# six calendar months can be 181-184 days; the smallest CloudWatch value above that
	"cn_safe_log_days": 365,
	# largest spot share above the on-demand base per SLA tier
	"sla_spot_cap": {"gold": 0.5, "silver": 1, "bronze": 1},
	# trusted image registries and AMI owners: AMIs are trusted when resolved from a public SSM
	# parameter path that only their owner publishes (AWS's /aws/service/) or listed by id
	"trusted_registries": ["public.ecr.aws/", "nvcr.io/", "registry.k8s.io/"],
	"trusted_ami_parameters": ["/aws/service/"],
	"trusted_amis": [],
}

# only data.seedance is read, never the whole data document (OPA rejects that as recursion)
_overrides := {name: value | some name, value in data.seedance.settings}

setting(name) := object.get(_overrides, name, default_settings[name])

# An allow-list setting extended by the stack's policy (compliance.trusted): the policy adds entries,
# it never removes one.
allow_list(name) := array.concat(setting(name), _policy_entries(name))

_policy_lists := {"trusted_registries": "registries", "trusted_ami_parameters": "amiParameters", "trusted_amis": "amis"}

_policy_entries(name) := [e |
	some e in object.get(input.policy, ["compliance", "trusted", _policy_lists[name]], [])
	is_string(e)
]

applies(policy, framework) if framework in object.get(policy, ["compliance", "frameworks"], [])

jurisdiction(policy) := object.get(policy, ["compliance", "jurisdiction"], "other")

in_regions(region, globs) if {
	some g in globs
	glob.match(g, [], region)
}

# personal_data_max_days is the GDPR storage-limitation maximum, or undefined when the policy declares none.
personal_data_max_days(policy) := days if {
	days := object.get(policy, ["compliance", "personalDataMaxDays"], null)
	is_number(days)
}

# gdpr_log_max_days: the GDPR maximum for logs with personal data. In China the six-month legal
# minimum for network logs wins (a legal obligation under Art. 6(1)(c)), so the maximum is raised to
# the smallest CloudWatch retention that surely covers six months.
gdpr_log_max_days(policy) := max([personal_data_max_days(policy), setting("cn_safe_log_days")]) if {
	jurisdiction(policy) == "cn"
} else := personal_data_max_days(policy)
