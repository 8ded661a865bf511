package gdpr.least_privilege_test

import data.gdpr.least_privilege
import data.lib.fixtures

_f(type, name, msg) := fixtures.finding("GDPR-32.1b-1", "mandatory", type, name, msg)

_policy(name, statements) := fixtures.resource("aws:iam/policy:Policy", name, {"policy": json.marshal({"Version": "2012-10-17", "Statement": statements})})

pass_resources := [
	fixtures.launch_template("lt", "personal", {}),
	_policy("scoped", [{"Effect": "Allow", "Action": ["s3:GetObject"], "Resource": "arn:aws:s3:::ds/*"}]),
	_policy("deny-all", [{"Effect": "Deny", "Action": "*", "Resource": "*"}]),
]

fail_resources := [
	fixtures.launch_template("lt", "personal", {"metadataOptions": {"httpTokens": "optional"}}),
	_policy("admin", [{"Effect": "Allow", "Action": "*", "Resource": "*"}]),
	_policy("passrole", [{"Effect": "Allow", "Action": ["iam:PassRole"], "Resource": ["*"]}]),
]

test_pass_scoped_iam_and_imdsv2 if {
	v := least_privilege.violation with input as fixtures.gate_input(fixtures.gdpr_policy, pass_resources)
	v == set()
}

test_fail_wildcards_and_imdsv1 if {
	v := least_privilege.violation with input as fixtures.gate_input(fixtures.gdpr_policy, fail_resources)
	v == {
		_f("aws:ec2/launchTemplate:LaunchTemplate", "lt", "launch template allows IMDSv1 (metadataOptions.httpTokens is \"optional\", not \"required\")"),
		_f("aws:iam/policy:Policy", "admin", "IAM policy allows Action \"*\" on Resource \"*\""),
		_f("aws:iam/policy:Policy", "passrole", "IAM policy allows iam:PassRole on any role (Resource \"*\")"),
	}
}
