package gdpr.key_management_test

import data.gdpr.key_management
import data.lib.fixtures

_key(name, inputs) := fixtures.resource("aws:kms/key:Key", name, inputs)

_finding(name, message) := {
	"control_id": "GDPR-32.1a-3",
	"severity": "mandatory",
	"urn": fixtures.urn("aws:kms/key:Key", name),
	"resource_type": "aws:kms/key:Key",
	"resource_name": name,
	"message": message,
}

pass_key := _key("good", {
	"enableKeyRotation": true,
	"deletionWindowInDays": 30,
	"policy": json.marshal({"Statement": [
		{"Effect": "Allow", "Principal": {"AWS": "arn:aws:iam::111122223333:root"}, "Action": "kms:*", "Resource": "*"},
		{"Effect": "Allow", "Principal": "*", "Action": "kms:Decrypt", "Resource": "*", "Condition": {"StringEquals": {"aws:PrincipalOrgID": "o-abc"}}},
	]}),
})

fail_key := _key("bad", {
	"enableKeyRotation": false,
	"deletionWindowInDays": 5,
	"policy": json.marshal({"Statement": [{"Effect": "Allow", "Principal": {"AWS": ["*"]}, "Action": "kms:*", "Resource": "*"}]}),
})

test_pass_rotating_key_with_scoped_policy if {
	count(key_management.violation) == 0 with input as fixtures.gate_input(fixtures.gdpr_policy, [pass_key])
}

test_fail_reports_each_problem if {
	v := key_management.violation with input as fixtures.gate_input(fixtures.gdpr_policy, [fail_key])
	v == {
		_finding("bad", "KMS key rotation is off"),
		_finding("bad", "KMS key deletion window is 5 days (at least 7 required)"),
		_finding("bad", "KMS key policy grants Principal \"*\" without a condition that narrows it to an account, organisation or VPC"),
	}
}

test_pass_string_boolean_rotation if {
	count(key_management.violation) == 0 with input as fixtures.gate_input(
		fixtures.gdpr_policy,
		[_key("str", {"enableKeyRotation": "true"})],
	)
}

test_pass_outside_gdpr if {
	count(key_management.violation) == 0 with input as fixtures.gate_input(fixtures.mlps_policy, [fail_key])
}

# a key policy not known until apply (a preview's "[unknown]" placeholder) has no statements to judge
test_pass_policy_unknown_until_apply if {
	count(key_management.violation) == 0 with input as fixtures.gate_input(
		fixtures.gdpr_policy,
		[_key("later", {"enableKeyRotation": true, "policy": "[unknown]"}), _key("odd", {"enableKeyRotation": true, "policy": "false"})],
	)
}

_open_policy := json.marshal({"Statement": [{"Effect": "Allow", "Principal": {"AWS": "*"}, "Action": "kms:*", "Resource": "*"}]})

# audit A4: a separate key policy and a replica key are checked like an inline policy
test_fail_key_policy_resource_and_replica_key if {
	resources := [
		_key("k", {"enableKeyRotation": true}),
		fixtures.resource("aws:kms/keyPolicy:KeyPolicy", "k-policy", {"keyId": "k", "policy": _open_policy}),
		fixtures.resource("aws:kms/replicaKey:ReplicaKey", "k-replica", {"primaryKeyArn": "arn:aws:kms:eu-central-1:111122223333:key/k", "policy": _open_policy, "deletionWindowInDays": 5}),
	]
	v := key_management.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == {
		fixtures.finding("GDPR-32.1a-3", "mandatory", "aws:kms/keyPolicy:KeyPolicy", "k-policy", "KMS key policy grants Principal \"*\" without a condition that narrows it to an account, organisation or VPC"),
		fixtures.finding("GDPR-32.1a-3", "mandatory", "aws:kms/replicaKey:ReplicaKey", "k-replica", "KMS key policy grants Principal \"*\" without a condition that narrows it to an account, organisation or VPC"),
		fixtures.finding("GDPR-32.1a-3", "mandatory", "aws:kms/replicaKey:ReplicaKey", "k-replica", "KMS key deletion window is 5 days (at least 7 required)"),
	}
}

test_deletion_window_as_text_or_unknown if {
	keys := [
		_key("text-short", {"enableKeyRotation": true, "deletionWindowInDays": "5"}),
		_key("text-ok", {"enableKeyRotation": true, "deletionWindowInDays": "10"}),
		_key("unknown", {"enableKeyRotation": true, "deletionWindowInDays": "[unknown]"}),
	]
	v := key_management.violation with input as fixtures.gate_input(fixtures.gdpr_policy, keys)
	v == {
		_finding("text-short", "KMS key deletion window is 5 days (at least 7 required)"),
		_finding("unknown", "KMS key deletion window [unknown] is not a number of days, so at least 7 cannot be established"),
	}
}

_via_service_statement(condition) := {
	"Effect": "Allow",
	"Principal": {"AWS": "*"},
	"Action": ["kms:Encrypt", "kms:Decrypt", "kms:GenerateDataKey*"],
	"Resource": "*",
	"Condition": condition,
}

# red team: kms:ViaService names the service a request comes through, not whose request it is, so a
# statement for Principal "*" narrowed by it alone lets every account use the key through EBS
test_fail_via_service_alone_is_not_narrowing if {
	policy := json.marshal({"Statement": [_via_service_statement({"StringEquals": {"kms:ViaService": "ec2.eu-central-1.amazonaws.com"}})]})
	v := key_management.violation with input as fixtures.gate_input(
		fixtures.gdpr_policy,
		[_key("via", {"enableKeyRotation": true, "policy": policy})],
	)
	v == {_finding("via", "KMS key policy grants Principal \"*\" without a condition that narrows it to an account, organisation or VPC")}
}

# the form of AWS-managed keys' policies: the service and the calling account
test_pass_via_service_with_caller_account if {
	policy := json.marshal({"Statement": [_via_service_statement({"StringEquals": {
		"kms:ViaService": "ec2.eu-central-1.amazonaws.com",
		"kms:CallerAccount": "111122223333",
	}})]})
	count(key_management.violation) == 0 with input as fixtures.gate_input(
		fixtures.gdpr_policy,
		[_key("via-account", {"enableKeyRotation": true, "policy": policy})],
	)
}

# red team: a secret key policy (inline, a KeyPolicy resource, a secret Statement) is judged as
# possibly granting Principal "*": no preview shows it
test_fail_secret_key_policy if {
	resources := [
		_key("k", {"enableKeyRotation": true, "policy": "[secret]"}),
		_key("j", {"enableKeyRotation": true, "policy": {"Statement": "[secret]"}}),
		_key("s", {"enableKeyRotation": true, "policy": json.marshal({"Statement": ["[secret]"]})}),
		_key("m", {"enableKeyRotation": true}),
		fixtures.resource("aws:kms/keyPolicy:KeyPolicy", "m-policy", {"keyId": "m", "policy": "[secret]"}),
	]
	v := key_management.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == {
		_finding("k", "KMS key policy is secret, so public access cannot be ruled out"),
		_finding("j", "KMS key policy is secret, so public access cannot be ruled out"),
		_finding("s", "KMS key policy is secret, so public access cannot be ruled out"),
		object.union(_finding("m-policy", "KMS key policy is secret, so public access cannot be ruled out"), {
			"urn": fixtures.urn("aws:kms/keyPolicy:KeyPolicy", "m-policy"),
			"resource_type": "aws:kms/keyPolicy:KeyPolicy",
		}),
	}
}

# red team F15: KMS rotates symmetric encryption keys only; asymmetric, HMAC and custom-key-store
# keys cannot rotate, so they are not asked to. A spec unknown until apply may be symmetric.
test_rotation_not_required_where_kms_refuses_it if {
	keys := [
		_key("sign", {"keyUsage": "SIGN_VERIFY", "customerMasterKeySpec": "ECC_NIST_P256", "deletionWindowInDays": 30}),
		_key("rsa", {"keyUsage": "ENCRYPT_DECRYPT", "customerMasterKeySpec": "RSA_4096"}),
		_key("mac", {"keyUsage": "GENERATE_VERIFY_MAC", "keySpec": "HMAC_256"}),
		_key("sm2", {"customerMasterKeySpec": "SM2"}),
		_key("hsm", {"customKeyStoreId": "cks-1234567890abcdef0"}),
	]
	count(key_management.violation) == 0 with input as fixtures.gate_input(fixtures.gdpr_policy, keys)
}

test_fail_symmetric_or_unknown_spec_without_rotation if {
	keys := [
		_key("sym", {"customerMasterKeySpec": "SYMMETRIC_DEFAULT"}),
		_key("later", {"customerMasterKeySpec": "[unknown]"}),
		_key("hidden", {"keySpec": "[secret]"}),
		_key("store-later", {"customKeyStoreId": "[unknown]"}),
	]
	v := key_management.violation with input as fixtures.gate_input(fixtures.gdpr_policy, keys)
	v == {
		_finding("sym", "KMS key rotation is off"),
		_finding("later", "KMS key rotation is off"),
		_finding("hidden", "KMS key rotation is off"),
		_finding("store-later", "KMS key rotation is off"),
	}
}
