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
