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

# audit A5: classic load balancer listeners speak HTTPS or SSL (and an HTTPS one without an SSL
# negotiation policy gets ELBSecurityPolicy-2016-08: red-team case below)
test_fail_classic_load_balancer_plain_listener if {
	elb := fixtures.resource("aws:elb/loadBalancer:LoadBalancer", "legacy", {"listeners": [
		{"lbProtocol": "http", "lbPort": 80, "instanceProtocol": "http", "instancePort": 8080},
		{"lbProtocol": "https", "lbPort": 443, "instanceProtocol": "http", "instancePort": 8080, "sslCertificateId": "arn:aws:acm:eu-central-1:111122223333:certificate/x"},
	]})
	v := encryption_in_transit.violation with input as fixtures.gate_input(fixtures.gdpr_policy, [elb])
	v == {
		_f("aws:elb/loadBalancer:LoadBalancer", "legacy", "classic load balancer listener on port 80 uses HTTP, not HTTPS/SSL"),
		_f("aws:elb/loadBalancer:LoadBalancer", "legacy", "classic load balancer HTTPS listener on port 443 has no SSL negotiation policy in the stack, so it gets ELBSecurityPolicy-2016-08, which allows TLS 1.0"),
	}
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
		_f("aws:s3/bucket:Bucket", "put", _partial_deny("(no Sid) denies only some actions (Action s3:PutObject, not Action s3:*)")),
		_f("aws:s3/bucket:Bucket", "list", _partial_deny(`(no Sid) denies only some actions (Action ["s3:GetObject","s3:PutObject"], not Action s3:*)`)),
	}
}

_partial_deny(why) := sprintf(`bucket policy does not deny requests without TLS (aws:SecureTransport false) to everyone on every object: its statement %s; deny s3:* to Principal "*" on the bucket's ARN/*`, [why])

# red team F4: a deny of plain HTTP counts only when it holds for everyone (Principal "*" or
# {"AWS": "*"}, no NotPrincipal) on every object of the bucket (a Resource matching ARN/*; a
# NotResource naming none of its objects), on no further condition
_deny_plaintext(bucket, fields) := fixtures.bucket_part("aws:s3/bucketPolicy:BucketPolicy", bucket, "policy", {"policy": json.marshal({
	"Version": "2012-10-17",
	"Statement": [object.union({
		"Sid": "tls",
		"Effect": "Deny",
		"Principal": "*",
		"Action": "s3:*",
		"Condition": {"Bool": {"aws:SecureTransport": "false"}},
	}, fields)],
})})

_without(bucket, key, fields) := fixtures.bucket_part("aws:s3/bucketPolicy:BucketPolicy", bucket, "policy", {"policy": json.marshal({
	"Version": "2012-10-17",
	"Statement": [object.remove(object.union({
		"Sid": "tls",
		"Effect": "Deny",
		"Principal": "*",
		"Action": "s3:*",
		"Condition": {"Bool": {"aws:SecureTransport": "false"}},
	}, fields), [key])],
})})

test_fail_tls_deny_for_some_principals_or_objects if {
	resources := [
		fixtures.bucket("arn-only", "personal"), _deny_plaintext("arn-only", {"Resource": "arn:aws:s3:::arn-only"}),
		fixtures.bucket("one-role", "personal"), _deny_plaintext("one-role", {"Principal": {"AWS": "arn:aws:iam::111122223333:role/nobody"}, "Resource": "arn:aws:s3:::one-role/*"}),
		fixtures.bucket("other", "personal"), _deny_plaintext("other", {"Resource": ["arn:aws:s3:::some-other-bucket/*"]}),
		fixtures.bucket("prefix", "personal"), _deny_plaintext("prefix", {"Resource": ["arn:aws:s3:::prefix", "arn:aws:s3:::prefix/public/*"]}),
		fixtures.bucket("not-res", "personal"), _without("not-res", "Resource", {"NotResource": ["arn:aws:s3:::not-res/*"]}),
		fixtures.bucket("not-wild", "personal"), _without("not-wild", "Resource", {"NotResource": "arn:aws:s3:::*/private/*"}),
		fixtures.bucket("not-princ", "personal"), _without("not-princ", "Principal", {"NotPrincipal": {"AWS": "arn:aws:iam::111122223333:root"}, "Resource": "arn:aws:s3:::not-princ/*"}),
		fixtures.bucket("cond", "personal"), _deny_plaintext("cond", {"Resource": "arn:aws:s3:::cond/*", "Condition": {
			"Bool": {"aws:SecureTransport": "false"},
			"StringNotEquals": {"aws:PrincipalAccount": "111122223333"},
		}}),
		fixtures.bucket("secret-res", "personal"), _deny_plaintext("secret-res", {"Resource": "[secret]"}),
	]
	v := encryption_in_transit.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == {
		_f("aws:s3/bucket:Bucket", "arn-only", _partial_deny(`'tls' has a Resource (arn:aws:s3:::arn-only) that does not cover the bucket's objects (the bucket's ARN/*)`)),
		_f("aws:s3/bucket:Bucket", "one-role", _partial_deny(`'tls' names principals ({"AWS":"arn:aws:iam::111122223333:role/nobody"}), not everyone (Principal "*")`)),
		_f("aws:s3/bucket:Bucket", "other", _partial_deny(`'tls' has a Resource (["arn:aws:s3:::some-other-bucket/*"]) that does not cover the bucket's objects (the bucket's ARN/*)`)),
		_f("aws:s3/bucket:Bucket", "prefix", _partial_deny(`'tls' has a Resource (["arn:aws:s3:::prefix","arn:aws:s3:::prefix/public/*"]) that does not cover the bucket's objects (the bucket's ARN/*)`)),
		_f("aws:s3/bucket:Bucket", "not-res", _partial_deny(`'tls' has a NotResource (["arn:aws:s3:::not-res/*"]) that may leave out objects of the bucket`)),
		_f("aws:s3/bucket:Bucket", "not-wild", _partial_deny(`'tls' has a NotResource (arn:aws:s3:::*/private/*) that may leave out objects of the bucket`)),
		_f("aws:s3/bucket:Bucket", "not-princ", _partial_deny(`'tls' exempts the principals its NotPrincipal names`)),
		_f("aws:s3/bucket:Bucket", "cond", _partial_deny(`'tls' applies only on further conditions (StringNotEquals aws:PrincipalAccount)`)),
		_f("aws:s3/bucket:Bucket", "secret-res", _partial_deny(`'tls' has a Resource ([secret]) that does not cover the bucket's objects (the bucket's ARN/*)`)),
	}
}

# ... and a deny in any of its common, correct forms counts: the objects by ARN/*, a wildcard that
# covers them, {"AWS": "*"}, a NotResource of another bucket or of the bucket alone, an auto-named
# bucket named by the name its policy uses, a Resource unknown until apply (a first deploy)
test_pass_tls_deny_for_everyone_on_every_object if {
	auto := fixtures.resource("aws:s3/bucket:Bucket", "auto", {"tags": fixtures.tags("personal")})
	resources := [
		fixtures.bucket("objects", "personal"), _deny_plaintext("objects", {"Resource": "arn:aws:s3:::objects/*"}),
		fixtures.bucket("aws-star", "personal"), _deny_plaintext("aws-star", {"Principal": {"AWS": ["*"]}, "Resource": ["arn:aws:s3:::aws-star", "arn:aws:s3:::aws-star/*"]}),
		fixtures.bucket("wild.bucket", "personal"), _deny_plaintext("wild.bucket", {"Resource": "arn:aws:s3:::wild.*"}),
		fixtures.bucket("every", "personal"), _deny_plaintext("every", {"Resource": "*"}),
		fixtures.bucket("cn", "personal"), _deny_plaintext("cn", {"Resource": "arn:aws-cn:s3:::cn/*", "Condition": {"BoolIfExists": {"aws:SecureTransport": ["false"]}}}),
		fixtures.bucket("not-other", "personal"), _without("not-other", "Resource", {"NotResource": ["arn:aws:s3:::elsewhere/*", "arn:aws:s3:::not-other"]}),
		auto, object.union(_deny_plaintext("auto-1234abc", {"Resource": "arn:aws:s3:::auto-1234abc/*"}), {"name": "auto-policy"}),
		fixtures.bucket("later", "personal"), _deny_plaintext("later", {"Resource": "[unknown]"}),
	]
	v := encryption_in_transit.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == set()
}

test_pass_tls_deny_on_every_action if {
	resources := [
		fixtures.bucket("star", "personal"), _tls_policy("star", "*"),
		fixtures.bucket("list", "personal"), _tls_policy("list", ["s3:GetObject", "S3:*"]),
	]
	v := encryption_in_transit.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == set()
}

# ---------------------------------------------------------------- red-team: classic ELB SSL negotiation

_elb(name, inputs) := fixtures.resource("aws:elb/loadBalancer:LoadBalancer", name, inputs)

_classic_listener(protocol, port) := {
	"lbProtocol": protocol, "lbPort": port, "instanceProtocol": "http", "instancePort": 8080,
	"sslCertificateId": "arn:aws:acm:eu-central-1:111122223333:certificate/x",
}

_lb_policy(name, lb_name, attributes) := fixtures.resource("aws:elb/loadBalancerPolicy:LoadBalancerPolicy", name, {
	"loadBalancerName": lb_name, "policyName": name, "policyTypeName": "SSLNegotiationPolicyType",
	"policyAttributes": attributes,
})

_listener_policy(name, lb_name, port, names) := fixtures.resource("aws:elb/listenerPolicy:ListenerPolicy", name, {
	"loadBalancerName": lb_name, "loadBalancerPort": port, "policyNames": names,
})

_tls12_only := [
	{"name": "Protocol-SSLv3", "value": "false"},
	{"name": "Protocol-TLSv1", "value": "false"},
	{"name": "Protocol-TLSv1.1", "value": "false"},
	{"name": "Protocol-TLSv1.2", "value": "true"},
	{"name": "ECDHE-RSA-AES128-GCM-SHA256", "value": "true"},
]

# A classic HTTPS/SSL listener without a negotiation policy gets ELBSecurityPolicy-2016-08 (TLS 1.0);
# one whose policy references an older predefined policy, leaves a protocol below TLS 1.2 unset,
# or is not declared in the stack, is reported too; so is the deprecated aws:elasticloadbalancing type.
test_fail_transit_classic_listeners_without_tls12_policy if {
	resources := [
		_elb("legacy", {"name": "legacy", "listeners": [
			_classic_listener("https", 443), _classic_listener("ssl", 8443),
			_classic_listener("https", 9443), _classic_listener("https", 10443),
		]}),
		_lb_policy("tls11", "legacy", [{"name": "Reference-Security-Policy", "value": "ELBSecurityPolicy-TLS-1-1-2017-01"}]),
		_listener_policy("legacy-8443", "legacy", 8443, ["tls11"]),
		fixtures.resource("aws:elb/sslNegotiationPolicy:SslNegotiationPolicy", "custom", {
			"name": "custom", "loadBalancer": "legacy", "lbPort": 9443,
			"attributes": [{"name": "Protocol-TLSv1", "value": "false"}, {"name": "Protocol-TLSv1.1", "value": "false"}, {"name": "Protocol-TLSv1.2", "value": "true"}],
		}),
		_listener_policy("legacy-10443", "legacy", 10443, ["made-by-hand"]),
		fixtures.resource("aws:elasticloadbalancing/loadBalancer:LoadBalancer", "old-sdk", {"listeners": [_classic_listener("HTTPS", 443)]}),
	]
	v := encryption_in_transit.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == {
		_f("aws:elb/loadBalancer:LoadBalancer", "legacy", "classic load balancer HTTPS listener on port 443 has no SSL negotiation policy in the stack, so it gets ELBSecurityPolicy-2016-08, which allows TLS 1.0"),
		_f("aws:elb/loadBalancer:LoadBalancer", "legacy", "classic load balancer SSL listener on port 8443: SSL negotiation policy tls11 references ELBSecurityPolicy-TLS-1-1-2017-01, which allows TLS below 1.2"),
		_f("aws:elb/loadBalancer:LoadBalancer", "legacy", "classic load balancer HTTPS listener on port 9443: SSL negotiation policy custom does not set Protocol-SSLv3, Protocol-TLSv1 and Protocol-TLSv1.1 to \"false\" (what a custom policy enables for a protocol it leaves out is not documented)"),
		_f("aws:elb/loadBalancer:LoadBalancer", "legacy", "classic load balancer HTTPS listener on port 10443: SSL negotiation policy made-by-hand is not declared in the stack as an SSL negotiation policy of this load balancer, so what it allows cannot be established"),
		_f("aws:elasticloadbalancing/loadBalancer:LoadBalancer", "old-sdk", "classic load balancer HTTPS listener on port 443 has no SSL negotiation policy in the stack, so it gets ELBSecurityPolicy-2016-08, which allows TLS 1.0"),
	}
}

# The compliant forms: an SslNegotiationPolicy turning off every protocol below TLS 1.2, tied to its
# load balancer by property dependencies (the id is unknown in a preview); a Reference-Security-Policy
# to ELBSecurityPolicy-TLS-1-2-2017-01 set by a ListenerPolicy on a load balancer named by its
# Pulumi auto-name; the same through the load balancer's id recorded by a mock runtime.
test_pass_transit_classic_listeners_with_tls12_policy if {
	resources := [
		_elb("front", {"listeners": [_classic_listener("https", 443)]}),
		object.union(
			fixtures.resource("aws:elb/sslNegotiationPolicy:SslNegotiationPolicy", "front-tls", {
				"name": "front-tls", "loadBalancer": "[unknown]", "lbPort": 443, "attributes": _tls12_only,
			}),
			{"property_dependencies": {"loadBalancer": [fixtures.urn("aws:elb/loadBalancer:LoadBalancer", "front")]}},
		),
		_elb("web", {"name": "web-1a2b3c4", "listeners": [_classic_listener("ssl", "8443")]}),
		_lb_policy("web-tls12", "web-1a2b3c4", [{"name": "Reference-Security-Policy", "value": "ELBSecurityPolicy-TLS-1-2-2017-01"}]),
		fixtures.resource("aws:elb/loadBalancerPolicy:LoadBalancerPolicy", "web-sticky", {
			"loadBalancerName": "web-1a2b3c4", "policyName": "web-sticky", "policyTypeName": "LBCookieStickinessPolicyType",
			"policyAttributes": [{"name": "CookieExpirationPeriod", "value": "60"}],
		}),
		_listener_policy("web-8443", "web-1a2b3c4", 8443, ["web-tls12", "web-sticky"]),
		_elb("api", {"listeners": [_classic_listener("https", 443)]}),
		_lb_policy("api-tls12", "api-0123abcd", [{"name": "Reference-Security-Policy", "value": "ELBSecurityPolicy-TLS-1-2-Ext-2018-06"}]),
		_listener_policy("api-443", "api-0123abcd", 443, ["api-tls12"]),
	]
	v := encryption_in_transit.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == set()
}

# ---------------------------------------------------------------- red-team: LoadBalancer Services

_svc_type := "kubernetes:core/v1:Service"

_cert := "arn:aws:acm:eu-central-1:111122223333:certificate/web"

_svc(type, name, annotations, ports) := fixtures.resource(type, name, {
	"metadata": {"name": name, "namespace": "inference", "annotations": annotations},
	"spec": {"type": "LoadBalancer", "selector": {"app": name}, "ports": ports},
})

# Without a certificate the load balancer forwards plain TCP; with one, the ports ssl-ports leaves
# out (or "*", which the AWS Load Balancer Controller matches with no port) and UDP ports get no
# TLS, and the TLS listeners get ELBSecurityPolicy-2016-08 unless a negotiation policy is named.
test_fail_transit_load_balancer_services_without_tls if {
	resources := [
		_svc(_svc_type, "plain", {"service.beta.kubernetes.io/aws-load-balancer-scheme": "internal"}, [
			{"name": "http", "port": 80, "targetPort": 8080, "protocol": "TCP"},
			{"name": "grpc", "port": 9000, "targetPort": 9000},
		]),
		_svc(_svc_type, "partial", {
			"service.beta.kubernetes.io/aws-load-balancer-type": "external",
			"service.beta.kubernetes.io/aws-load-balancer-ssl-cert": _cert,
			"service.beta.kubernetes.io/aws-load-balancer-ssl-ports": "443",
			"service.beta.kubernetes.io/aws-load-balancer-ssl-negotiation-policy": "ELBSecurityPolicy-TLS13-1-2-2021-06",
		}, [{"name": "https", "port": 443, "targetPort": 8080}, {"name": "http", "port": 80, "targetPort": 8080}]),
		_svc(_svc_type, "star", {
			"service.beta.kubernetes.io/aws-load-balancer-ssl-cert": _cert,
			"service.beta.kubernetes.io/aws-load-balancer-ssl-ports": "*",
			"service.beta.kubernetes.io/aws-load-balancer-ssl-negotiation-policy": "ELBSecurityPolicy-TLS-1-2-2017-01",
		}, [{"name": "https", "port": 443, "targetPort": 8080}]),
		_svc(_svc_type, "default-policy", {"service.beta.kubernetes.io/aws-load-balancer-ssl-cert": _cert}, [
			{"name": "https", "port": 443, "targetPort": 8080},
			{"name": "syslog", "port": 514, "targetPort": 514, "protocol": "UDP"},
		]),
		_svc(_svc_type, "old-policy", {
			"service.beta.kubernetes.io/aws-load-balancer-ssl-cert": _cert,
			"service.beta.kubernetes.io/aws-load-balancer-ssl-negotiation-policy": "ELBSecurityPolicy-TLS-1-1-2017-01",
		}, [{"name": "https", "port": 443, "targetPort": 8080}]),
		_svc("kubernetes:core/v1:ServicePatch", "patched", {}, [{"port": 8000}]),
	]
	v := encryption_in_transit.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == {
		_f(_svc_type, "plain", "LoadBalancer Service has no service.beta.kubernetes.io/aws-load-balancer-ssl-cert annotation, so its load balancer terminates no TLS and carries ports 80/TCP, 9000/TCP as plain TCP (unless the pods terminate TLS themselves)"),
		_f(_svc_type, "partial", "LoadBalancer Service: service.beta.kubernetes.io/aws-load-balancer-ssl-ports \"443\" leaves out port 80/TCP, which the load balancer therefore serves without TLS"),
		_f(_svc_type, "star", "LoadBalancer Service lists \"*\" in service.beta.kubernetes.io/aws-load-balancer-ssl-ports, which the AWS Load Balancer Controller matches with no port (the legacy cloud provider with every port), so port 443/TCP may be served without TLS: list the ports by number or name"),
		_f(_svc_type, "default-policy", "LoadBalancer Service sets no service.beta.kubernetes.io/aws-load-balancer-ssl-negotiation-policy, so its TLS listeners get ELBSecurityPolicy-2016-08 (the AWS Load Balancer Controller's default unless its --default-ssl-policy changes it, and the ELB API's), which allows TLS 1.0"),
		_f(_svc_type, "default-policy", "LoadBalancer Service port 514 is UDP, which the load balancer forwards without TLS"),
		_f(_svc_type, "old-policy", "LoadBalancer Service TLS policy ELBSecurityPolicy-TLS-1-1-2017-01 (service.beta.kubernetes.io/aws-load-balancer-ssl-negotiation-policy) allows TLS below 1.2"),
		_f("kubernetes:core/v1:ServicePatch", "patched", "LoadBalancer Service has no service.beta.kubernetes.io/aws-load-balancer-ssl-cert annotation, so its load balancer terminates no TLS and carries port 8000/TCP as plain TCP (unless the pods terminate TLS themselves)"),
	}
}

# A certificate on every port (no ssl-ports), or on the ports ssl-ports names by number or by name,
# with a TLS 1.2+ policy; a ClusterIP Service has no load balancer.
test_pass_transit_load_balancer_services_with_tls if {
	resources := [
		_svc(_svc_type, "all-ports", {
			"service.beta.kubernetes.io/aws-load-balancer-type": "external",
			"service.beta.kubernetes.io/aws-load-balancer-scheme": "internet-facing",
			"service.beta.kubernetes.io/aws-load-balancer-ssl-cert": _cert,
			"service.beta.kubernetes.io/aws-load-balancer-ssl-negotiation-policy": "ELBSecurityPolicy-TLS13-1-2-2021-06",
		}, [{"name": "https", "port": 443, "targetPort": 8080}, {"name": "grpc", "port": 9443, "targetPort": 9000}]),
		_svc(_svc_type, "listed", {
			"service.beta.kubernetes.io/aws-load-balancer-ssl-cert": _cert,
			"service.beta.kubernetes.io/aws-load-balancer-ssl-ports": "443, metrics",
			"service.beta.kubernetes.io/aws-load-balancer-ssl-negotiation-policy": "ELBSecurityPolicy-TLS-1-2-2017-01",
		}, [{"name": "https", "port": 443, "targetPort": 8080}, {"name": "metrics", "port": "9100", "targetPort": 9100}]),
		fixtures.resource(_svc_type, "internal-only", {"metadata": {"name": "internal-only"}, "spec": {"type": "ClusterIP", "ports": [{"port": 80}]}}),
	]
	v := encryption_in_transit.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == set()
}

# ---------------------------------------------------------------- red-team: Ingress listen ports

_ing(type, name, annotations, spec) := fixtures.resource(type, name, {
	"metadata": {"name": name, "namespace": "inference", "annotations": annotations},
	"spec": spec,
})

_ing_type := "kubernetes:networking.k8s.io/v1:Ingress"

_rules := [{"host": "api.example.com", "http": {"paths": [{"path": "/", "pathType": "Prefix", "backend": {"service": {"name": "api", "port": {"number": 80}}}}]}}]

_tls := [{"hosts": ["api.example.com"]}]

# The AWS Load Balancer Controller serves HTTP on the HTTP ports of listen-ports unless ssl-redirect
# is set in the IngressGroup, listens on HTTP 80 alone without certificate-arn and listen-ports
# whatever spec.tls says, and gives HTTPS listeners ELBSecurityPolicy-2016-08 unless ssl-policy
# names a policy. Ingresses of the other API versions, and patches, are read too.
test_fail_transit_ingress_listeners if {
	resources := [
		_ing(_ing_type, "both", {
			"alb.ingress.kubernetes.io/scheme": "internal",
			"alb.ingress.kubernetes.io/certificate-arn": _cert,
			"alb.ingress.kubernetes.io/listen-ports": "[{\"HTTP\": 80}, {\"HTTPS\": 443}]",
			"alb.ingress.kubernetes.io/ssl-policy": "ELBSecurityPolicy-TLS13-1-2-2021-06",
		}, {"ingressClassName": "alb", "rules": _rules, "tls": _tls}),
		_ing(_ing_type, "tls-only-in-spec", {}, {"ingressClassName": "alb", "rules": _rules, "tls": _tls}),
		_ing(_ing_type, "old-policy", {
			"kubernetes.io/ingress.class": "alb",
			"alb.ingress.kubernetes.io/certificate-arn": _cert,
			"alb.ingress.kubernetes.io/ssl-policy": "ELBSecurityPolicy-2016-08",
		}, {"rules": _rules}),
		_ing(_ing_type, "no-policy", {
			"alb.ingress.kubernetes.io/listen-ports": "[{\"HTTPS\": 8443}]",
			"alb.ingress.kubernetes.io/certificate-arn": _cert,
		}, {"rules": _rules, "tls": _tls}),
		_ing(_ing_type, "garbled", {"alb.ingress.kubernetes.io/listen-ports": "HTTPS:443"}, {"ingressClassName": "alb", "rules": _rules}),
		_ing("kubernetes:networking.k8s.io/v1beta1:Ingress", "beta", {}, {"ingressClassName": "nginx", "rules": _rules}),
		_ing("kubernetes:extensions/v1beta1:Ingress", "legacy", {}, {"rules": _rules}),
		_ing("kubernetes:networking.k8s.io/v1:IngressPatch", "patched", {"alb.ingress.kubernetes.io/listen-ports": "[{\"HTTP\": 8080}]"}, {"rules": _rules}),
	]
	v := encryption_in_transit.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == {
		_f(_ing_type, "both", "Ingress listens for plain HTTP on port 80 (alb.ingress.kubernetes.io/listen-ports) and its IngressGroup sets no alb.ingress.kubernetes.io/ssl-redirect"),
		_f(_ing_type, "tls-only-in-spec", "Ingress sets neither alb.ingress.kubernetes.io/certificate-arn nor alb.ingress.kubernetes.io/listen-ports, so the AWS Load Balancer Controller gives it one listener, plain HTTP on port 80 (spec.tls adds no HTTPS listener), and its IngressGroup sets no alb.ingress.kubernetes.io/ssl-redirect"),
		_f(_ing_type, "old-policy", "Ingress TLS policy ELBSecurityPolicy-2016-08 (alb.ingress.kubernetes.io/ssl-policy) allows TLS below 1.2"),
		_f(_ing_type, "no-policy", "Ingress has HTTPS listeners but its IngressGroup sets no alb.ingress.kubernetes.io/ssl-policy, so they get ELBSecurityPolicy-2016-08 (the AWS Load Balancer Controller's default unless its --default-ssl-policy changes it), which allows TLS 1.0"),
		_f(_ing_type, "garbled", "Ingress alb.ingress.kubernetes.io/listen-ports HTTPS:443 is not a JSON list of {\"HTTP\"|\"HTTPS\": port}, so its listeners cannot be established"),
		_f("kubernetes:networking.k8s.io/v1beta1:Ingress", "beta", "Ingress has no tls section"),
		_f("kubernetes:extensions/v1beta1:Ingress", "legacy", "Ingress has no tls section"),
		_f("kubernetes:networking.k8s.io/v1:IngressPatch", "patched", "Ingress listens for plain HTTP on port 8080 (alb.ingress.kubernetes.io/listen-ports) and its IngressGroup sets no alb.ingress.kubernetes.io/ssl-redirect"),
	}
}

# HTTP listeners that redirect to HTTPS (ssl-redirect on the Ingress, or on another Ingress of its
# IngressGroup), HTTPS listeners with a TLS 1.2+ policy, an IngressClass of the document whose
# controller is the AWS Load Balancer Controller (its Ingresses need no spec.tls), and an Ingress of
# another controller that terminates TLS by spec.tls.
test_pass_transit_ingress_listeners_with_tls if {
	resources := [
		_ing(_ing_type, "redirect", {
			"alb.ingress.kubernetes.io/scheme": "internet-facing",
			"alb.ingress.kubernetes.io/certificate-arn": _cert,
			"alb.ingress.kubernetes.io/listen-ports": "[{\"HTTP\": 80}, {\"HTTPS\": 443}]",
			"alb.ingress.kubernetes.io/ssl-redirect": "443",
			"alb.ingress.kubernetes.io/ssl-policy": "ELBSecurityPolicy-TLS13-1-2-2021-06",
		}, {"ingressClassName": "alb", "rules": _rules}),
		_ing(_ing_type, "group-front", {
			"alb.ingress.kubernetes.io/group.name": "shared",
			"alb.ingress.kubernetes.io/certificate-arn": _cert,
			"alb.ingress.kubernetes.io/listen-ports": "[{\"HTTPS\": 443}]",
			"alb.ingress.kubernetes.io/ssl-redirect": "443",
			"alb.ingress.kubernetes.io/ssl-policy": "ELBSecurityPolicy-TLS13-1-2-Res-2021-06",
		}, {"ingressClassName": "alb", "rules": _rules}),
		_ing(_ing_type, "group-member", {
			"alb.ingress.kubernetes.io/group.name": "shared",
			"alb.ingress.kubernetes.io/listen-ports": "[{\"HTTP\": 80}, {\"HTTPS\": 443}]",
		}, {"ingressClassName": "alb", "rules": _rules}),
		fixtures.resource("kubernetes:networking.k8s.io/v1:IngressClass", "public", {
			"metadata": {"name": "public"}, "spec": {"controller": "ingress.k8s.aws/alb"},
		}),
		_ing(_ing_type, "own-class", {
			"alb.ingress.kubernetes.io/certificate-arn": _cert,
			"alb.ingress.kubernetes.io/ssl-policy": "ELBSecurityPolicy-FS-1-2-Res-2020-10",
		}, {"ingressClassName": "public", "rules": _rules}),
		_ing("kubernetes:networking.k8s.io/v1beta1:Ingress", "nginx", {"nginx.ingress.kubernetes.io/ssl-redirect": "true"}, {"ingressClassName": "nginx", "rules": _rules, "tls": _tls}),
	]
	v := encryption_in_transit.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == set()
}

# Gateway API: an HTTP listener serves plain HTTP unless every route of the stack attached to it
# (or that may be: parentRefs unknown until apply, a route asking for the default Gateway beside
# one) is an HTTPRoute that only redirects to https, and one is attached; a GRPCRoute on it is
# served in the clear (h2c). TCP and UDP listeners carry plain traffic; a protocol of an
# implementation's, or listeners unknown until apply, cannot be established; a ListenerSet's
# listeners count as a Gateway's; a patch leaves the live object's other listeners unseen. HTTPS
# and TLS listeners (terminated or passed through), another group's Gateway (Istio's) and routes
# that attach elsewhere are not this listener's.
_gw_type := "kubernetes:gateway.networking.k8s.io/v1:Gateway"

_gw(name, listeners) := fixtures.resource(_gw_type, name, {
	"metadata": {"name": name, "namespace": "edge"},
	"spec": {"gatewayClassName": "amazon-vpc-lattice", "listeners": listeners},
})

_route_of(kind, name, parent_refs, rules) := fixtures.resource(sprintf("kubernetes:gateway.networking.k8s.io/v1:%s", [kind]), name, {
	"metadata": {"name": name, "namespace": "edge"},
	"spec": {"parentRefs": parent_refs, "rules": rules},
})

_route(name, parent_refs, rules) := _route_of("HTTPRoute", name, parent_refs, rules)

_redirect_rule := {"filters": [{"type": "RequestRedirect", "requestRedirect": {"scheme": "https", "statusCode": 301}}]}

_serve_rule := {"backendRefs": [{"name": "api", "port": 8080}]}

_https_listener := {"name": "https", "port": 443, "protocol": "HTTPS", "tls": {"certificateRefs": [{"name": "api-cert"}]}}

_plain_http(kind, listener, port) := sprintf("%s listener %s serves plain HTTP on port %d (the stack's routes do not show that every request to it is redirected to https)", [kind, listener, port])

test_fail_transit_gateway_listeners if {
	resources := [
		# HTTP served by a route that sends requests to the pods
		_gw("served", [{"name": "http", "port": 80, "protocol": "HTTP"}, _https_listener]),
		_route("served-api", [{"name": "served"}], [_serve_rule]),
		# one route redirects, another of the same listener serves
		_gw("mixed", [{"name": "web", "port": 8080, "protocol": "HTTP"}]),
		_route("mixed-redirect", [{"name": "mixed", "sectionName": "web"}], [_redirect_rule]),
		_route("mixed-serve", [{"name": "mixed"}], [_redirect_rule, _serve_rule]),
		# no route of the stack attached (the redirect names another listener)
		_gw("bare", [{"name": "http", "port": 80, "protocol": "HTTP"}, _https_listener]),
		_route("bare-elsewhere", [{"name": "bare", "sectionName": "https"}], [_redirect_rule]),
		_gw("plain-tcp", [{"name": "db", "port": 5432, "protocol": "TCP"}, {"name": "dns", "port": 53, "protocol": "UDP"}]),
		_gw("custom", [{"name": "x", "port": 9000, "protocol": "example.com/quic"}]),
		fixtures.resource(_gw_type, "unknown", {"metadata": {"name": "unknown", "namespace": "edge"}, "spec": {"listeners": "[unknown]"}}),
	]
	v := encryption_in_transit.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == {
		_f(_gw_type, "served", _plain_http("Gateway", "http", 80)),
		_f(_gw_type, "mixed", _plain_http("Gateway", "web", 8080)),
		_f(_gw_type, "bare", _plain_http("Gateway", "http", 80)),
		_f(_gw_type, "plain-tcp", "Gateway listener db carries plain TCP on port 5432 (unless the pods terminate TLS themselves)"),
		_f(_gw_type, "plain-tcp", "Gateway listener dns carries plain UDP on port 53 (unless the pods terminate TLS themselves)"),
		_f(_gw_type, "custom", "Gateway listener x has protocol example.com/quic, so whether it carries plain traffic cannot be established"),
		_f(_gw_type, "unknown", "Gateway listener [unknown] is unknown until apply, so whether it carries plain traffic cannot be established"),
	}
}

test_fail_transit_gateway_listeners_behind_redirects if {
	resources := [
		# a GRPCRoute beside the redirect: gRPC over cleartext HTTP/2
		_gw("grpc", [{"name": "http", "port": 80, "protocol": "HTTP"}]),
		_route("grpc-redirect", [{"name": "grpc"}], [_redirect_rule]),
		_route_of("GRPCRoute", "grpc-api", [{"name": "grpc"}], [_serve_rule]),
		# a route whose parentRefs are unknown until apply beside the redirect
		_gw("late", [{"name": "http", "port": 80, "protocol": "HTTP"}]),
		_route("late-redirect", [{"name": "late"}], [_redirect_rule]),
		_route("late-api", [{"name": "[unknown]", "sectionName": "http"}], [_serve_rule]),
		# a default Gateway, and a route that asks for it
		fixtures.resource(_gw_type, "default", {"metadata": {"name": "default", "namespace": "edge"}, "spec": {"defaultScope": "All", "listeners": [{"name": "http", "port": 80, "protocol": "HTTP"}]}}),
		_route("default-redirect", [{"name": "default"}], [_redirect_rule]),
		fixtures.resource("kubernetes:gateway.networking.k8s.io/v1:HTTPRoute", "default-api", {"metadata": {"name": "default-api", "namespace": "edge"}, "spec": {"useDefaultGateway": "All", "rules": [_serve_rule]}}),
		# a ListenerSet adds a plain listener to an HTTPS Gateway
		_gw("tls-only", [_https_listener]),
		fixtures.resource("kubernetes:gateway.networking.k8s.io/v1:ListenerSet", "extra", {
			"metadata": {"name": "extra", "namespace": "edge"},
			"spec": {"parentRef": {"name": "tls-only"}, "listeners": [{"name": "plain", "port": 8080, "protocol": "HTTP"}]},
		}),
		_route("extra-api", [{"kind": "ListenerSet", "name": "extra"}], [_serve_rule]),
		# a patch of a Gateway outside the document
		fixtures.resource("kubernetes:gateway.networking.k8s.io/v1:GatewayPatch", "shared", {"metadata": {"name": "shared", "namespace": "edge"}, "spec": {"listeners": [_https_listener]}}),
	]
	v := encryption_in_transit.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == {
		_f(_gw_type, "grpc", _plain_http("Gateway", "http", 80)),
		_f(_gw_type, "late", _plain_http("Gateway", "http", 80)),
		_f(_gw_type, "default", _plain_http("Gateway", "http", 80)),
		_f("kubernetes:gateway.networking.k8s.io/v1:ListenerSet", "extra", _plain_http("ListenerSet", "plain", 8080)),
		_f("kubernetes:gateway.networking.k8s.io/v1:GatewayPatch", "shared", "Gateway patch: the live Gateway's listeners that the patch does not name are not in the document, so whether they carry plain traffic cannot be established"),
	}
}

test_pass_transit_gateway_listeners_with_tls if {
	resources := [
		# HTTP only redirects to https (the route names the Gateway's namespace, group and kind)
		_gw("edge", [{"name": "http", "port": 80, "protocol": "HTTP"}, _https_listener]),
		_route("to-https", [{"group": "gateway.networking.k8s.io", "kind": "Gateway", "namespace": "edge", "name": "edge", "sectionName": "http"}], [_redirect_rule]),
		_route("api", [{"name": "edge", "sectionName": "https"}], [_serve_rule]),
		_route_of("GRPCRoute", "grpc-api", [{"name": "edge", "port": 443}], [_serve_rule]),
		_gw("passthrough", [{"name": "tls", "port": 443, "protocol": "TLS", "tls": {"mode": "Passthrough"}}]),
		# Istio's Gateway is another API
		fixtures.resource("kubernetes:networking.istio.io/v1beta1:Gateway", "istio", {"metadata": {"name": "istio"}, "spec": {"servers": [{"port": {"number": 80, "protocol": "HTTP"}}]}}),
	]
	v := encryption_in_transit.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == set()
}

# red team: a secret bucket policy cannot be shown to deny plain HTTP, and the message says so
test_fail_secret_bucket_policy_not_shown_tls_only if {
	resources := array.concat(array.slice(fixtures.good_bucket("ds", "personal"), 0, 5), [
		fixtures.bucket_part("aws:s3/bucketPolicy:BucketPolicy", "ds", "policy", {"policy": "[secret]"}),
	])
	v := encryption_in_transit.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == {_f("aws:s3/bucket:Bucket", "ds", "bucket policy is secret, so a deny of requests without TLS (aws:SecureTransport false) cannot be established")}
}

# red team: a listener protocol, TLS policy or classic listener list the document does not show is
# reported as such (not as "uses [SECRET]")
test_fail_hidden_listener_settings if {
	resources := array.concat(fixtures.good_bucket("ds", "personal"), [
		_listener("proto", {"protocol": "[secret]", "port": 443}),
		_listener("later", {"protocol": "[unknown]", "port": 443}),
		_listener("policy", {"protocol": "HTTPS", "port": 443, "sslPolicy": "[secret]"}),
		fixtures.resource("aws:elb/loadBalancer:LoadBalancer", "classic", {"listeners": "[secret]"}),
		fixtures.resource("aws:elb/loadBalancer:LoadBalancer", "classic-item", {"listeners": ["[secret]"]}),
		fixtures.resource("aws:elb/loadBalancer:LoadBalancer", "classic-proto", {"listeners": [{"lbPort": 443, "lbProtocol": "[secret]", "instancePort": 80, "instanceProtocol": "HTTP"}]}),
	])
	v := encryption_in_transit.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == {
		_f("aws:lb/listener:Listener", "proto", "load balancer listener: its protocol is secret, so HTTPS/TLS cannot be established"),
		_f("aws:lb/listener:Listener", "later", "load balancer listener: its protocol is unknown until apply, so HTTPS/TLS cannot be established"),
		_f("aws:lb/listener:Listener", "policy", "listener TLS policy is secret, so refusing TLS below 1.2 cannot be established"),
		_f("aws:elb/loadBalancer:LoadBalancer", "classic", "classic load balancer listeners are secret, so HTTPS/SSL cannot be established"),
		_f("aws:elb/loadBalancer:LoadBalancer", "classic-item", "classic load balancer listeners are secret, so HTTPS/SSL cannot be established"),
		_f("aws:elb/loadBalancer:LoadBalancer", "classic-proto", "classic load balancer listener on port 443: its protocol is secret, so HTTPS/SSL cannot be established"),
	}
}

# red team (false positive): port 80 of an HTTPS load balancer that only redirects to HTTPS carries
# nothing in the clear; a redirect that keeps HTTP, or a listener rule that may forward on it, does
_redirect(protocol) := [{"type": "redirect", "redirect": {"port": "443", "protocol": protocol, "statusCode": "HTTP_301"}}]

test_an_http_listener_that_only_redirects_to_https_passes if {
	https := _listener("https", {"protocol": "HTTPS", "port": 443, "sslPolicy": "ELBSecurityPolicy-TLS13-1-2-2021-06"})
	redirect := _listener("http", {"protocol": "HTTP", "port": 80, "defaultActions": _redirect("HTTPS")})
	rule_on_https := object.union(fixtures.resource("aws:lb/listenerRule:ListenerRule", "api", {"actions": [{"type": "forward"}]}),
		{"property_dependencies": {"listenerArn": [https.urn]}})
	v := encryption_in_transit.violation with input as fixtures.gate_input(fixtures.gdpr_policy, [https, redirect, rule_on_https])
	v == set()
}

test_an_http_listener_that_forwards_or_keeps_http_fails if {
	keeps := _listener("keeps", {"protocol": "HTTP", "port": 80, "defaultActions": _redirect("#{protocol}")})
	mixed := _listener("mixed", {"protocol": "HTTP", "port": 8080,
		"defaultActions": array.concat(_redirect("HTTPS"), [{"type": "forward", "targetGroupArn": "arn:tg"}])})
	v := encryption_in_transit.violation with input as fixtures.gate_input(fixtures.gdpr_policy, [keeps, mixed])
	v == {
		_f("aws:lb/listener:Listener", "keeps", "load balancer listener uses HTTP, not HTTPS/TLS"),
		_f("aws:lb/listener:Listener", "mixed", "load balancer listener uses HTTP, not HTTPS/TLS"),
	}
	# a redirect-only listener with a rule not shown to be on another listener: it may forward on it
	redirect := _listener("http", {"protocol": "HTTP", "port": 80, "defaultActions": _redirect("HTTPS")})
	loose := fixtures.resource("aws:lb/listenerRule:ListenerRule", "loose", {"listenerArn": "[unknown]", "actions": [{"type": "forward"}]})
	w := encryption_in_transit.violation with input as fixtures.gate_input(fixtures.gdpr_policy, [redirect, loose])
	w == {_f("aws:lb/listener:Listener", "http", "load balancer listener uses HTTP, not HTTPS/TLS")}
	# ... or one that names it by its ARN (a deployed stack's listener has it as its id)
	deployed := object.union(redirect, {"id": "arn:aws:elasticloadbalancing:eu-central-1:1:listener/app/web/1/80"})
	named := fixtures.resource("aws:lb/listenerRule:ListenerRule", "named", {"listenerArn": deployed.id, "actions": [{"type": "forward"}]})
	x := encryption_in_transit.violation with input as fixtures.gate_input(fixtures.gdpr_policy, [deployed, named])
	x == {_f("aws:lb/listener:Listener", "http", "load balancer listener uses HTTP, not HTTPS/TLS")}
}

# red team (false positive): a rule on another stack's shared listener, named by an ARN that is no
# listener of the document, is not on this stack's redirect-only listener
test_a_rule_on_a_listener_outside_the_document_leaves_the_redirect_alone if {
	redirect := _listener("http", {"protocol": "HTTP", "port": 80, "defaultActions": _redirect("HTTPS")})
	shared := fixtures.resource("aws:lb/listenerRule:ListenerRule", "docs", {"listenerArn": "arn:aws:elasticloadbalancing:eu-central-1:1:listener/app/shared-edge/0123/fedc", "actions": [{"type": "forward"}]})
	v := encryption_in_transit.violation with input as fixtures.gate_input(fixtures.gdpr_policy, [redirect, shared])
	v == set()
}

# red team: a forwarding rule whose listenerArn is hidden and whose dependencies name both the
# redirect listener and another one may be on the redirect listener: tied to it, it is never excused
test_a_rule_tied_to_the_redirect_listener_and_another_is_not_excused if {
	https := _listener("https", {"protocol": "HTTPS", "port": 443, "sslPolicy": "ELBSecurityPolicy-TLS13-1-2-2021-06"})
	redirect := _listener("http", {"protocol": "HTTP", "port": 80, "defaultActions": _redirect("HTTPS")})
	both := object.union(fixtures.resource("aws:lb/listenerRule:ListenerRule", "api", {"listenerArn": "[unknown]", "actions": [{"type": "forward"}]}),
		{"property_dependencies": {"listenerArn": [redirect.urn, https.urn]}})
	v := encryption_in_transit.violation with input as fixtures.gate_input(fixtures.gdpr_policy, [https, redirect, both])
	v == {_f("aws:lb/listener:Listener", "http", "load balancer listener uses HTTP, not HTTPS/TLS")}
	# near miss: tied to the other listener only, it is not on the redirect listener
	other := object.union(both, {"property_dependencies": {"listenerArn": [https.urn]}})
	w := encryption_in_transit.violation with input as fixtures.gate_input(fixtures.gdpr_policy, [https, redirect, other])
	w == set()
}

# red team (first-deploy preview): the bucket policy's `bucket` is unknown until apply and only its
# property dependencies name the bucket; without them it names none and the bucket is reported
test_pass_first_deploy_bucket_policy_tied_by_property_dependencies if {
	v := encryption_in_transit.violation with input as fixtures.gate_input(fixtures.gdpr_policy, fixtures.first_deploy_bucket("ds", "personal"))
	v == set()
}

test_fail_first_deploy_bucket_policy_without_property_dependencies if {
	resources := [object.remove(r, ["property_dependencies"]) | some r in fixtures.first_deploy_bucket("ds", "personal")]
	v := encryption_in_transit.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == {_f("aws:s3/bucket:Bucket", "ds", "bucket policy does not deny requests without TLS (aws:SecureTransport false)")}
}
