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
