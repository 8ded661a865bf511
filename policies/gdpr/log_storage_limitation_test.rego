package gdpr.log_storage_limitation_test

import data.gdpr.log_storage_limitation
import data.lib.fixtures

_f(name, msg) := fixtures.finding("GDPR-5.1e-2", "mandatory", "aws:cloudwatch/logGroup:LogGroup", name, msg)

pass_logs := [fixtures.log_group("app", "personal", 90), fixtures.log_group("infra", "internal", 0)]

fail_logs := [fixtures.log_group("app", "personal", 400), fixtures.log_group("forever", "personal", 0)]

test_pass_retention_within_maximum if {
	v := log_storage_limitation.violation with input as fixtures.gate_input(fixtures.gdpr_policy, pass_logs)
	v == set()
}

test_fail_retention_above_maximum_or_infinite if {
	v := log_storage_limitation.violation with input as fixtures.gate_input(fixtures.gdpr_policy, fail_logs)
	v == {
		_f("app", "log group with personal data keeps logs 400 days, above the maximum of 365 days"),
		_f("forever", "log group with personal data never expires (maximum 365 days)"),
	}
}

# jurisdiction branch: in China the GDPR maximum gives way to the six-month legal minimum
test_pass_cn_keeps_logs_365_days_despite_shorter_maximum if {
	policy := json.patch(fixtures.both_cn_policy, [{"op": "replace", "path": "/compliance/personalDataMaxDays", "value": 90}])
	v := log_storage_limitation.violation with input as fixtures.gate_input(policy, [fixtures.log_group("app", "personal", 365)])
	v == set()
}

test_fail_eu_same_logs_above_shorter_maximum if {
	policy := json.patch(fixtures.both_eu_policy, [{"op": "replace", "path": "/compliance/personalDataMaxDays", "value": 90}])
	v := log_storage_limitation.violation with input as fixtures.gate_input(policy, [fixtures.log_group("app", "personal", 365)])
	v == {_f("app", "log group with personal data keeps logs 365 days, above the maximum of 90 days")}
}

test_fail_cn_above_raised_maximum if {
	v := log_storage_limitation.violation with input as fixtures.gate_input(fixtures.both_cn_policy, [fixtures.log_group("app", "personal", 731)])
	v == {_f("app", "log group with personal data keeps logs 731 days, above the maximum of 365 days (raised to the six-month minimum of the Chinese Cybersecurity Law)")}
}

# audit A13: without a declared maximum a finite retention is not limited either
test_fail_finite_retention_without_declared_maximum if {
	policy := json.remove(fixtures.gdpr_policy, ["compliance/personalDataMaxDays"])
	v := log_storage_limitation.violation with input as fixtures.gate_input(policy, [fixtures.log_group("app", "personal", 3653), fixtures.log_group("infra", "internal", 3653)])
	v == {_f("app", "log group with personal data keeps logs 3653 days, but compliance.personalDataMaxDays is not declared")}
}

# audit A14: a retention unknown until apply
test_fail_unknown_retention if {
	v := log_storage_limitation.violation with input as fixtures.gate_input(fixtures.gdpr_policy, [fixtures.log_group("app", "personal", "[unknown]")])
	v == {_f("app", "log group with personal data has a retention that cannot be established ([unknown]; maximum 365 days)")}
}
