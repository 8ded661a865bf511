package gdpr.encryption_in_transit

import data.lib.checks
import data.lib.findings
import data.lib.frameworks

# METADATA
# title: "Encryption in transit"
# description: >-
#   Bucket policies deny requests without TLS (aws:SecureTransport false) to everyone on every
#   object (Principal "*", Resource covering the bucket's ARN/*, no further condition); load-balancer
#   listeners, classic ones included, speak HTTPS/TLS (SSL) with a policy that refuses TLS below
#   1.2 (a classic listener by the SSL negotiation policy the stack sets on it); Kubernetes
#   LoadBalancer Services terminate TLS on every port (aws-load-balancer-ssl-cert, -ssl-ports)
#   with such a policy (-ssl-negotiation-policy); Ingresses terminate TLS: by spec.tls, or, those
#   of the AWS Load Balancer Controller, on HTTPS listeners only (listen-ports; HTTP ones
#   redirected by ssl-redirect) with such an ssl-policy; Gateway API listeners speak HTTPS or TLS,
#   an HTTP one only redirecting to https (every route of the stack attached to it).
# related_resources:
#   - ref: https://gdpr-info.eu/art-32-gdpr/
# custom:
#   control_id: GDPR-32.1a-2
#   clause: "Art. 32(1)(a)"
#   framework: gdpr
#   severity: mandatory
#   remediation: >-
#     Add a Deny of s3:* to Principal "*" on the bucket's objects (its ARN/*) on aws:SecureTransport
#     "false" to the bucket policy; use HTTPS/TLS
#     listeners with ELBSecurityPolicy-TLS13-1-2-2021-06 or newer, and on every HTTPS/SSL listener
#     of a classic load balancer a negotiation policy referencing ELBSecurityPolicy-TLS-1-2-2017-01;
#     give LoadBalancer Services an aws-load-balancer-ssl-cert for every port and a TLS 1.2+
#     aws-load-balancer-ssl-negotiation-policy; add spec.tls to the Ingress, or to an ALB Ingress
#     HTTPS listen-ports, ssl-redirect for its HTTP ports and a TLS 1.2+ ssl-policy; give Gateway
#     listeners HTTPS or TLS, and an HTTP one only an HTTPRoute with a RequestRedirect to https.
violation contains findings.finding("GDPR-32.1a-2", p.resource, p.message) if {
	frameworks.applies(input.policy, "gdpr")
	some p in _problems
}

_problems contains p if {
	some p in checks.in_transit(input.document)
}
