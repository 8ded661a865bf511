package gdpr.key_management

import data.lib.findings
import data.lib.frameworks
import data.lib.resources

# METADATA
# title: Key management
# description: >-
#   Customer-managed KMS keys rotate automatically, keep a deletion window of at least 7 days
#   and have no key-policy statement granting Principal "*" without a condition, whether the
#   policy is inline or a separate aws:kms/keyPolicy; replica and external keys keep the same
#   deletion window and key-policy rules (rotation follows the primary key, or is not offered).
#   KMS rotates symmetric encryption keys only: asymmetric and HMAC keys (a key spec other than
#   SYMMETRIC_DEFAULT, such as RSA_*, ECC_*, HMAC_* or SM2) and keys in a custom key store are not
#   required to rotate; a key spec or key store unknown until apply or secret is.
# related_resources:
#   - ref: https://gdpr-info.eu/art-32-gdpr/
# custom:
#   control_id: GDPR-32.1a-3
#   clause: Art. 32(1)(a)
#   framework: gdpr
#   severity: mandatory
#   remediation: >-
#     Set enableKeyRotation true (symmetric encryption keys) and deletionWindowInDays >= 7 on the key, and restrict
#     key-policy principals to named roles or add an aws:PrincipalOrgID / aws:SourceVpce condition.
violation contains findings.finding("GDPR-32.1a-3", p.resource, p.message) if {
	frameworks.applies(input.policy, "gdpr")
	some p in _problems
}

_keys := resources.of_type(input.document, "aws:kms/key:Key")

# every resource that carries a key policy or a deletion window
_policy_holders := resources.of_types(input.document, data.lib.public_access.key_policy_types)

_problems contains findings.problem(k, "KMS key rotation is off") if {
	some k in _keys
	not _rotation_not_offered(k.inputs)
	not resources.truthy(object.get(k.inputs, "enableKeyRotation", false))
}

# KMS refuses automatic rotation (EnableKeyRotation) for asymmetric and HMAC keys and for keys in a
# custom key store (AWS KMS API reference, EnableKeyRotation). The spec is customerMasterKeySpec in
# pulumi-aws (keySpec elsewhere), SYMMETRIC_DEFAULT when unset; a value unknown until apply or
# secret may be SYMMETRIC_DEFAULT, so rotation stays required then.
_rotation_not_offered(inputs) if {
	some field in ["customerMasterKeySpec", "keySpec"]
	spec := object.get(inputs, field, "SYMMETRIC_DEFAULT")
	resources.settled(spec)
	upper(spec) != "SYMMETRIC_DEFAULT"
}

_rotation_not_offered(inputs) if {
	store := object.get(inputs, "customKeyStoreId", "")
	resources.settled(store)
	store != ""
}

_problems contains findings.problem(k, msg) if {
	some k in _policy_holders
	k.type != "aws:kms/keyPolicy:KeyPolicy"
	msg := _deletion_window_problem(object.get(k.inputs, "deletionWindowInDays", 30))
}

_deletion_window_problem(days) := sprintf("KMS key deletion window is %v days (at least 7 required)", [days]) if {
	resources.number(days) < 7
}

# a window in a form that is no number of days (the preview's "[unknown]"): cannot be established
_deletion_window_problem(days) := sprintf("KMS key deletion window %v is not a number of days, so at least 7 cannot be established", [days]) if {
	not resources.number(days)
}

# a key policy granting Principal "*" without a narrowing condition, or a secret one (lib.public_access,
# which MLPS-L3-8.1.4.2d reads too)
_problems contains p if {
	some p in data.lib.public_access.public_key_policies
}
