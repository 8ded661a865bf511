package mlps.transit_encryption_test

import data.mlps.transit_encryption
import data.lib.fixtures

_f(type, name, msg) := fixtures.finding("MLPS-L3-8.1.2.2", "mandatory", type, name, msg)

_ep(name, private_dns) := fixtures.resource("aws:ec2/vpcEndpoint:VpcEndpoint", name, {
	"serviceName": "cn.com.amazonaws.cn-north-1.kms", "vpcEndpointType": "Interface", "privateDnsEnabled": private_dns,
})

test_pass_tls_and_private_dns if {
	v := transit_encryption.violation with input as fixtures.gate_input(fixtures.mlps_policy, array.concat(fixtures.good_bucket("ds", "internal"), [_ep("kms", true)]))
	v == set()
}

test_fail_plaintext_and_public_dns if {
	v := transit_encryption.violation with input as fixtures.gate_input(fixtures.mlps_policy, [fixtures.bucket("ds", "internal"), _ep("kms", false)])
	v == {
		_f("aws:s3/bucket:Bucket", "ds", "bucket policy does not deny requests without TLS (aws:SecureTransport false)"),
		_f("aws:ec2/vpcEndpoint:VpcEndpoint", "kms", "interface VPC endpoint has private DNS off: clients still resolve the public endpoint"),
	}
}

# the red-team cases reach MLPS-L3-8.1.2.2 through lib.checks.in_transit: a classic HTTPS listener
# without a TLS 1.2+ negotiation policy, a LoadBalancer Service without a certificate, an ALB
# Ingress that listens for plain HTTP without a redirect
_mlps_red_team(secure) := [
	fixtures.resource("aws:elb/loadBalancer:LoadBalancer", "legacy", {"name": "legacy", "listeners": [{
		"lbProtocol": "https", "lbPort": 443, "instanceProtocol": "http", "instancePort": 8080,
		"sslCertificateId": "arn:aws-cn:iam::111122223333:server-certificate/web",
	}]}),
	fixtures.resource("kubernetes:core/v1:Service", "api", {
		"metadata": {"name": "api", "namespace": "inference", "annotations": _mlps_service_annotations(secure)},
		"spec": {"type": "LoadBalancer", "ports": [{"name": "https", "port": 443, "targetPort": 8080}]},
	}),
	fixtures.resource("kubernetes:networking.k8s.io/v1:Ingress", "web", {
		"metadata": {"name": "web", "namespace": "inference", "annotations": _mlps_ingress_annotations(secure)},
		"spec": {"ingressClassName": "alb", "rules": []},
	}),
]

_mlps_service_annotations(false) := {}

_mlps_service_annotations(true) := {
	"service.beta.kubernetes.io/aws-load-balancer-ssl-cert": "arn:aws-cn:acm:cn-north-1:111122223333:certificate/api",
	"service.beta.kubernetes.io/aws-load-balancer-ssl-negotiation-policy": "ELBSecurityPolicy-TLS13-1-2-2021-06",
}

_mlps_ingress_annotations(false) := {"alb.ingress.kubernetes.io/listen-ports": "[{\"HTTP\": 80}]"}

_mlps_ingress_annotations(true) := {
	"alb.ingress.kubernetes.io/certificate-arn": "arn:aws-cn:acm:cn-north-1:111122223333:certificate/web",
	"alb.ingress.kubernetes.io/listen-ports": "[{\"HTTP\": 80}, {\"HTTPS\": 443}]",
	"alb.ingress.kubernetes.io/ssl-redirect": "443",
	"alb.ingress.kubernetes.io/ssl-policy": "ELBSecurityPolicy-TLS13-1-2-2021-06",
}

_mlps_tls12_policy := [
	fixtures.resource("aws:elb/loadBalancerPolicy:LoadBalancerPolicy", "legacy-tls12", {
		"loadBalancerName": "legacy", "policyName": "legacy-tls12", "policyTypeName": "SSLNegotiationPolicyType",
		"policyAttributes": [{"name": "Reference-Security-Policy", "value": "ELBSecurityPolicy-TLS-1-2-2017-01"}],
	}),
	fixtures.resource("aws:elb/listenerPolicy:ListenerPolicy", "legacy-443", {
		"loadBalancerName": "legacy", "loadBalancerPort": 443, "policyNames": ["legacy-tls12"],
	}),
]

test_fail_mlps_transit_classic_service_and_ingress_listeners if {
	v := transit_encryption.violation with input as fixtures.gate_input(fixtures.mlps_policy, _mlps_red_team(false))
	v == {
		_f("aws:elb/loadBalancer:LoadBalancer", "legacy", "classic load balancer HTTPS listener on port 443 has no SSL negotiation policy in the stack, so it gets ELBSecurityPolicy-2016-08, which allows TLS 1.0"),
		_f("kubernetes:core/v1:Service", "api", "LoadBalancer Service has no service.beta.kubernetes.io/aws-load-balancer-ssl-cert annotation, so its load balancer terminates no TLS and carries port 443/TCP as plain TCP (unless the pods terminate TLS themselves)"),
		_f("kubernetes:networking.k8s.io/v1:Ingress", "web", "Ingress listens for plain HTTP on port 80 (alb.ingress.kubernetes.io/listen-ports) and its IngressGroup sets no alb.ingress.kubernetes.io/ssl-redirect"),
	}
}

test_pass_mlps_transit_classic_service_and_ingress_listeners if {
	v := transit_encryption.violation with input as fixtures.gate_input(fixtures.mlps_policy, array.concat(_mlps_red_team(true), _mlps_tls12_policy))
	v == set()
}

# the VPC's endpoints the policy names (network.existingEndpoints), as seedance check --lookup reads
# them from EC2: an available interface endpoint without private DNS, unless another of the service's
# available endpoints serves its public name (one with private DNS, or a gateway)
_fact(id, service, type, state, private_dns) := fixtures.endpoint_fact(id, service, type, state, private_dns, fixtures.account_endpoint_policy)

_with_endpoint_facts(services) := fixtures.gate_input_with_endpoints(fixtures.mlps_policy, [], ["kms", "logs", "s3", "sts"], "vpc-0123456789abcdef0", services)

test_fail_existing_interface_endpoint_without_private_dns if {
	services := {
		"kms": [_fact("vpce-0ccccccccccccccc1", "kms", "Interface", "available", false)],
		"logs": [_fact("vpce-0ccccccccccccccc2", "logs", "Interface", "available", true)],
		"s3": [_fact("vpce-0ccccccccccccccc3", "s3", "Gateway", "available", false), _fact("vpce-0ccccccccccccccc4", "s3", "Interface", "available", false)],
		"sts": [_fact("vpce-0ccccccccccccccc5", "sts", "Interface", "available", false), _fact("vpce-0ccccccccccccccc6", "sts", "Interface", "available", true)],
	}
	v := transit_encryption.violation with input as _with_endpoint_facts(services)
	v == {fixtures.stack_finding("MLPS-L3-8.1.2.2", "mandatory", "interface VPC endpoint vpce-0ccccccccccccccc1 for kms (network.existingEndpoints, read from EC2) has private DNS off: clients still resolve the public endpoint")}
}

# one that does not serve (deleted) is no finding here (MLPS-L3-8.1.3.1a reports the service missing)
test_pass_existing_endpoint_not_available_private_dns if {
	services := {"kms": [_fact("vpce-0ccccccccccccccc1", "kms", "Interface", "deleted", false)]}
	v := transit_encryption.violation with input as _with_endpoint_facts(services)
	v == set()
}

# red team F4 (through lib.checks.in_transit): a deny of plain HTTP aimed at one role, or at the
# bucket's ARN without its objects, does not count; one for everyone on ARN/* does
_cn_deny(bucket, principal, resource) := fixtures.bucket_part("aws:s3/bucketPolicy:BucketPolicy", bucket, "policy", {"policy": json.marshal({
	"Version": "2012-10-17",
	"Statement": [{
		"Sid": "DenyInsecureTransport", "Effect": "Deny", "Principal": principal, "Action": "s3:*",
		"Resource": resource, "Condition": {"Bool": {"aws:SecureTransport": "false"}},
	}],
})})

test_fail_tls_deny_not_for_everyone_on_every_object_mlps if {
	resources := [
		fixtures.bucket("role", "internal"), _cn_deny("role", {"AWS": "arn:aws-cn:iam::111122223333:role/nobody"}, "arn:aws-cn:s3:::role/*"),
		fixtures.bucket("arn", "internal"), _cn_deny("arn", "*", "arn:aws-cn:s3:::arn"),
	]
	v := transit_encryption.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == {
		_f("aws:s3/bucket:Bucket", "role", `bucket policy does not deny requests without TLS (aws:SecureTransport false) to everyone on every object: its statement 'DenyInsecureTransport' names principals ({"AWS":"arn:aws-cn:iam::111122223333:role/nobody"}), not everyone (Principal "*"); deny s3:* to Principal "*" on the bucket's ARN/*`),
		_f("aws:s3/bucket:Bucket", "arn", `bucket policy does not deny requests without TLS (aws:SecureTransport false) to everyone on every object: its statement 'DenyInsecureTransport' has a Resource (arn:aws-cn:s3:::arn) that does not cover the bucket's objects (the bucket's ARN/*); deny s3:* to Principal "*" on the bucket's ARN/*`),
	}
}

test_pass_tls_deny_for_everyone_on_every_object_mlps if {
	resources := [fixtures.bucket("ds", "internal"), _cn_deny("ds", {"AWS": "*"}, ["arn:aws-cn:s3:::ds", "arn:aws-cn:s3:::ds/*"])]
	v := transit_encryption.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == set()
}
