package gdpr.encryption_in_transit_test

import data.gdpr.encryption_in_transit
import data.lib.fixtures

_f(type, name, msg) := fixtures.finding("GDPR-32.1a-2", "mandatory", type, name, msg)

_listener(name, inputs) := fixtures.resource("aws:lb/listener:Listener", name, inputs)

pass_resources := array.concat(fixtures.good_bucket("ds", "personal"), [
	_listener("https", {"protocol": "HTTPS", "port": 443, "sslPolicy": "ELBSecurityPolicy-TLS13-1-2-2021-06"}),
	fixtures.resource("kubernetes:networking.k8s.io/v1:Ingress", "web", {"spec": {"tls": [{"hosts": ["a.example.com"]}]}}),
])

fail_resources := [
	fixtures.bucket("ds", "personal"),
	_listener("http", {"protocol": "HTTP", "port": 80}),
	_listener("old", {"protocol": "HTTPS", "port": 443, "sslPolicy": "ELBSecurityPolicy-2016-08"}),
	fixtures.resource("kubernetes:networking.k8s.io/v1:Ingress", "web", {"spec": {"rules": []}}),
]

test_pass_tls_everywhere if {
	v := encryption_in_transit.violation with input as fixtures.gate_input(fixtures.gdpr_policy, pass_resources)
	v == set()
}

test_fail_plaintext_paths if {
	v := encryption_in_transit.violation with input as fixtures.gate_input(fixtures.gdpr_policy, fail_resources)
	v == {
		_f("aws:s3/bucket:Bucket", "ds", "bucket policy does not deny requests without TLS (aws:SecureTransport false)"),
		_f("aws:lb/listener:Listener", "http", "load balancer listener uses HTTP, not HTTPS/TLS"),
		_f("aws:lb/listener:Listener", "old", "listener TLS policy ELBSecurityPolicy-2016-08 allows TLS below 1.2"),
		_f("kubernetes:networking.k8s.io/v1:Ingress", "web", "Ingress has no tls section"),
	}
}

# audit A5: an allow-list of TLS 1.2+ policies, the default policy of a listener that names none,
# and the aws:alb/listener alias type
test_fail_tls_below_1_2_and_default_policy if {
	resources := [
		_listener("tls13-1-0", {"protocol": "HTTPS", "port": 443, "sslPolicy": "ELBSecurityPolicy-TLS13-1-0-2021-06"}),
		_listener("tls13-1-1", {"protocol": "TLS", "port": 443, "sslPolicy": "ELBSecurityPolicy-TLS13-1-1-2021-06"}),
		_listener("fs-1-2", {"protocol": "HTTPS", "port": 443, "sslPolicy": "ELBSecurityPolicy-FS-1-2-Res-2020-10"}),
		_listener("tls13-1-3", {"protocol": "HTTPS", "port": 443, "sslPolicy": "ELBSecurityPolicy-TLS13-1-3-2021-06"}),
		_listener("no-policy", {"protocol": "HTTPS", "port": 443}),
		fixtures.resource("aws:alb/listener:Listener", "alb-plain", {"protocol": "HTTP", "port": 80}),
	]
	v := encryption_in_transit.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == {
		_f("aws:lb/listener:Listener", "tls13-1-0", "listener TLS policy ELBSecurityPolicy-TLS13-1-0-2021-06 allows TLS below 1.2"),
		_f("aws:lb/listener:Listener", "tls13-1-1", "listener TLS policy ELBSecurityPolicy-TLS13-1-1-2021-06 allows TLS below 1.2"),
		_f("aws:lb/listener:Listener", "no-policy", "listener names no sslPolicy, so it gets ELBSecurityPolicy-2016-08, which allows TLS 1.0"),
		_f("aws:alb/listener:Listener", "alb-plain", "load balancer listener uses HTTP, not HTTPS/TLS"),
	}
}

# audit B2: an inline bucket policy denying plain-text requests counts
test_pass_inline_tls_only_policy if {
	bucket := object.union(fixtures.bucket("inline", "personal"), {"inputs": {"policy": fixtures.tls_only_policy("inline")}})
	v := encryption_in_transit.violation with input as fixtures.gate_input(fixtures.gdpr_policy, [bucket])
	v == set()
}

# audit A5: classic load balancer listeners speak HTTPS or SSL
test_fail_classic_load_balancer_plain_listener if {
	elb := fixtures.resource("aws:elb/loadBalancer:LoadBalancer", "legacy", {"listeners": [
		{"lbProtocol": "http", "lbPort": 80, "instanceProtocol": "http", "instancePort": 8080},
		{"lbProtocol": "https", "lbPort": 443, "instanceProtocol": "http", "instancePort": 8080, "sslCertificateId": "arn:aws:acm:eu-central-1:111122223333:certificate/x"},
	]})
	v := encryption_in_transit.violation with input as fixtures.gate_input(fixtures.gdpr_policy, [elb])
	v == {_f("aws:elb/loadBalancer:LoadBalancer", "legacy", "classic load balancer listener on port 80 uses HTTP, not HTTPS/SSL")}
}

# audit D: a SecureTransport deny narrowed to some actions leaves the others open over HTTP
_tls_policy(bucket, action) := fixtures.bucket_part("aws:s3/bucketPolicy:BucketPolicy", bucket, "policy", {"policy": json.marshal({
	"Version": "2012-10-17",
	"Statement": [{
		"Effect": "Deny",
		"Principal": "*",
		"Action": action,
		"Resource": [sprintf("arn:aws:s3:::%s", [bucket]), sprintf("arn:aws:s3:::%s/*", [bucket])],
		"Condition": {"Bool": {"aws:SecureTransport": "false"}},
	}],
})})

test_fail_tls_deny_narrowed_to_some_actions if {
	resources := [
		fixtures.bucket("put", "personal"), _tls_policy("put", "s3:PutObject"),
		fixtures.bucket("list", "personal"), _tls_policy("list", ["s3:GetObject", "s3:PutObject"]),
	]
	v := encryption_in_transit.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == {
		_f("aws:s3/bucket:Bucket", "put", "bucket policy does not deny requests without TLS (aws:SecureTransport false)"),
		_f("aws:s3/bucket:Bucket", "list", "bucket policy does not deny requests without TLS (aws:SecureTransport false)"),
	}
}

test_pass_tls_deny_on_every_action if {
	resources := [
		fixtures.bucket("star", "personal"), _tls_policy("star", "*"),
		fixtures.bucket("list", "personal"), _tls_policy("list", ["s3:GetObject", "S3:*"]),
	]
	v := encryption_in_transit.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == set()
}
