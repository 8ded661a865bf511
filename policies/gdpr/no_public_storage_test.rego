package gdpr.no_public_storage_test

import data.gdpr.no_public_storage
import data.lib.fixtures

_f(name, msg) := fixtures.finding("GDPR-25.2-1", "mandatory", "aws:s3/bucket:Bucket", name, msg)

fail_resources := [
	fixtures.bucket("open", "personal"),
	fixtures.bucket_part("aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock", "open", "pab", {
		"blockPublicAcls": true, "blockPublicPolicy": false, "ignorePublicAcls": "true", "restrictPublicBuckets": true,
	}),
	fixtures.bucket_part("aws:s3/bucketAcl:BucketAcl", "open", "acl", {"acl": "public-read"}),
	fixtures.bucket_part("aws:s3/bucketPolicy:BucketPolicy", "open", "policy", {"policy": json.marshal({"Statement": [
		{"Effect": "Allow", "Principal": "*", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::open/*"},
	]})}),
	fixtures.bucket("bare", "internal"),
]

test_pass_private_bucket if {
	v := no_public_storage.violation with input as fixtures.gate_input(fixtures.gdpr_policy, fixtures.good_bucket("ds", "personal"))
	v == set()
}

test_fail_public_bucket if {
	v := no_public_storage.violation with input as fixtures.gate_input(fixtures.gdpr_policy, fail_resources)
	v == {
		_f("open", "public access block leaves blockPublicPolicy off"),
		_f("open", "bucket ACL grants access to AllUsers or AuthenticatedUsers"),
		_f("open", "bucket policy allows Principal \"*\" without an aws:SourceVpce or aws:PrincipalOrgID condition"),
		_f("bare", "bucket has no public access block"),
	}
}

# audit A3: every bucket, whatever its data class, needs the public access block
test_fail_other_data_class_without_public_access_block if {
	v := no_public_storage.violation with input as fixtures.gate_input(fixtures.gdpr_policy, [fixtures.bucket("secret", "confidential")])
	v == {_f("secret", "bucket has no public access block")}
}

# audit B2: an inline public ACL and an inline public policy
test_fail_inline_acl_and_policy if {
	policy := json.marshal({"Statement": [{"Effect": "Allow", "Principal": "*", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::inline/*"}]})
	bucket := object.union(fixtures.bucket("inline", "personal"), {"inputs": {"acl": "public-read", "policy": policy}})
	pab := fixtures.bucket_part("aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock", "inline", "pab", {
		"blockPublicAcls": true, "blockPublicPolicy": true, "ignorePublicAcls": true, "restrictPublicBuckets": true,
	})
	v := no_public_storage.violation with input as fixtures.gate_input(fixtures.gdpr_policy, [bucket, pab])
	v == {
		_f("inline", "bucket ACL grants access to AllUsers or AuthenticatedUsers"),
		_f("inline", "bucket policy allows Principal \"*\" without an aws:SourceVpce or aws:PrincipalOrgID condition"),
	}
}

# red team: a secret bucket policy (attached or inline) could hold anything, Principal "*" included:
# judged as possibly public. One unknown until apply is judged as absent (README, Known limits).
_policy_bucket(name, policy) := array.concat(array.slice(fixtures.good_bucket(name, "personal"), 0, 5), [
	fixtures.bucket_part("aws:s3/bucketPolicy:BucketPolicy", name, "policy", {"policy": policy}),
])

test_fail_secret_bucket_policy if {
	inline := array.concat(
		[object.union(fixtures.bucket("inline", "personal"), {"inputs": {"policy": "[secret]"}})],
		array.slice(fixtures.good_bucket("inline", "personal"), 1, 6),
	)
	principal := json.marshal({"Statement": [{"Effect": "Allow", "Principal": {"AWS": "[secret]"}, "Action": "s3:*", "Resource": "*"}]})
	resources := array.concat(array.concat(_policy_bucket("attached", "[secret]"), inline), _policy_bucket("principal", principal))
	v := no_public_storage.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == {
		_f("attached", "bucket policy is secret, so public access cannot be ruled out"),
		_f("inline", "bucket policy is secret, so public access cannot be ruled out"),
		_f("principal", "bucket policy is secret, so public access cannot be ruled out"),
	}
}

test_pass_bucket_policy_unknown_until_apply if {
	v := no_public_storage.violation with input as fixtures.gate_input(fixtures.gdpr_policy, _policy_bucket("later", "[unknown]"))
	v == set()
}

# red team: a secret ACL (canned, access control policy, grants, a grant, its grantee or grantee URI;
# a bucket's inline acl, grants or grant URI) may grant AllUsers
_acl(name, inputs) := array.concat(fixtures.good_bucket(name, "personal"), [fixtures.bucket_part("aws:s3/bucketAcl:BucketAcl", name, "acl", inputs)])

_inline(name, inputs) := array.concat([object.union(fixtures.bucket(name, "personal"), {"inputs": inputs})], array.slice(fixtures.good_bucket(name, "personal"), 1, 6))

test_fail_secret_bucket_acls if {
	resources := array.concat(array.concat(array.concat(array.concat(array.concat(array.concat(array.concat(array.concat(
		_acl("canned", {"acl": "[secret]"}),
		_acl("acp", {"accessControlPolicy": "[secret]"})),
		_acl("grants", {"accessControlPolicy": {"grants": "[secret]"}})),
		_acl("grant", {"accessControlPolicy": {"grants": ["[secret]"]}})),
		_acl("uri", {"accessControlPolicy": {"grants": [{"grantee": {"type": "Group", "uri": "[secret]"}, "permission": "READ"}]}})),
		_inline("inline", {"acl": "[secret]"})),
		_inline("inline-grants", {"grants": "[secret]"})),
		_inline("inline-uri", {"grants": [{"type": "Group", "uri": "[secret]", "permissions": ["READ"]}]})),
		_acl("later", {"acl": "private", "accessControlPolicy": {"grants": [{"grantee": {"type": "CanonicalUser", "id": "abc"}, "permission": "READ"}]}}),
	)
	v := no_public_storage.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == {_f(name, "bucket ACL is secret, so public access cannot be ruled out") |
		some name in ["canned", "acp", "grants", "grant", "uri", "inline", "inline-grants", "inline-uri"]
	}
}

# red team (false positive): S3 applies the account's public access block to every bucket of the
# account; one for another account, or leaving a flag off, does not cover them
_account_pab(inputs) := fixtures.resource("aws:s3/accountPublicAccessBlock:AccountPublicAccessBlock", "account-pab", object.union({
	"blockPublicAcls": true, "blockPublicPolicy": true, "ignorePublicAcls": true, "restrictPublicBuckets": true,
}, inputs))

test_an_account_public_access_block_covers_the_account_s_buckets if {
	bare := fixtures.bucket("bare", "personal")
	v := no_public_storage.violation with input as fixtures.gate_input(fixtures.gdpr_policy, [bare, _account_pab({})])
	v == set()
	other := no_public_storage.violation with input as fixtures.gate_input(fixtures.gdpr_policy, [bare, _account_pab({"accountId": "999999999999"})])
	other == {_f("bare", "bucket has no public access block")}
	partial := no_public_storage.violation with input as fixtures.gate_input(fixtures.gdpr_policy, [bare, _account_pab({"blockPublicPolicy": false})])
	partial == {_f("bare", "bucket has no public access block")}
	# a bucket's own block leaving a flag off is covered where the account's sets it
	open_flag := [fail_resources[0], fixtures.bucket_part("aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock", "open", "pab",
		{"blockPublicAcls": true, "blockPublicPolicy": false, "ignorePublicAcls": true, "restrictPublicBuckets": true})]
	covered := no_public_storage.violation with input as fixtures.gate_input(fixtures.gdpr_policy, array.concat(open_flag, [_account_pab({})]))
	not _f("open", "public access block leaves blockPublicPolicy off") in covered
}

# red team: a provider of another account (allowedAccountIds, assumeRole) puts its resources in that
# account: an account block under it covers only its buckets, and one under the default provider
# does not cover a bucket created under it
_other_provider := fixtures.urn("pulumi:providers:aws", "other-account")

_under(r, provider) := object.union(r, {"provider": sprintf("%s::0123-id", [provider])})

test_an_account_public_access_block_covers_only_the_buckets_of_its_provider if {
	bare := fixtures.bucket("bare", "personal")
	provider := fixtures.resource("pulumi:providers:aws", "other-account", {"region": "eu-central-1", "allowedAccountIds": "[\"999999999999\"]"})
	other_block := no_public_storage.violation with input as fixtures.gate_input(fixtures.gdpr_policy, [provider, bare, _under(_account_pab({}), _other_provider)])
	other_block == {_f("bare", "bucket has no public access block")}
	other_bucket := no_public_storage.violation with input as fixtures.gate_input(fixtures.gdpr_policy, [provider, _under(bare, _other_provider), _account_pab({})])
	other_bucket == {_f("bare", "bucket has no public access block")}
	# near miss: block and bucket under the same provider
	same := no_public_storage.violation with input as fixtures.gate_input(fixtures.gdpr_policy, [provider, _under(bare, _other_provider), _under(_account_pab({}), _other_provider)])
	same == set()
}

# red team (first-deploy preview): the public access block's `bucket` is unknown until apply and only
# its property dependencies name the bucket; without them it names none and the bucket is reported
test_pass_first_deploy_public_access_block_tied_by_property_dependencies if {
	v := no_public_storage.violation with input as fixtures.gate_input(fixtures.gdpr_policy, fixtures.first_deploy_bucket("ds", "personal"))
	v == set()
}

test_fail_first_deploy_public_access_block_without_property_dependencies if {
	resources := [object.remove(r, ["property_dependencies"]) | some r in fixtures.first_deploy_bucket("ds", "personal")]
	v := no_public_storage.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == {_f("ds", "bucket has no public access block")}
}
