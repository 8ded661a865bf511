package mlps.transit_encryption

import data.lib.checks
import data.lib.endpoints
import data.lib.findings
import data.lib.frameworks
import data.lib.resources

# METADATA
# title: "Cryptographic protection in transit"
# description: >-
#   As GDPR-32.1a-2 (bucket policies denying requests without TLS to everyone on every object;
#   HTTPS/TLS listeners, classic ones included, with TLS >= 1.2; LoadBalancer Services and
#   Ingresses that terminate TLS, with TLS >= 1.2, on every port they serve; Gateway API listeners
#   on HTTPS or TLS, HTTP ones only redirecting to https), and interface VPC endpoints use private
#   DNS so clients reach them rather than the public endpoint.
# related_resources:
#   - ref: https://openstd.samr.gov.cn/bzgk/gb/newGbInfo?hcno=BAFB47E8874764186BDB7865E8344DAF
# custom:
#   control_id: MLPS-L3-8.1.2.2
#   clause: "8.1.2.2 a) b)"
#   framework: mlps-l3
#   severity: mandatory
#   remediation: >-
#     Deny s3:* on aws:SecureTransport false to Principal "*" on the bucket's objects (its ARN/*) in
#     bucket policies, use TLS 1.2+ listener policies (classic
#     load balancers: a negotiation policy on every HTTPS/SSL listener), terminate TLS on every
#     port of LoadBalancer Services and Ingresses (certificate annotations, ALB ssl-redirect, TLS
#     1.2+ policy annotations, Ingress tls), give Gateway listeners HTTPS or TLS (an HTTP one only
#     an HTTPRoute that redirects to https), and set privateDnsEnabled true on interface endpoints.
violation contains findings.finding("MLPS-L3-8.1.2.2", p.resource, p.message) if {
	frameworks.applies(input.policy, "mlps-l3")
	some p in _problems
}

_problems contains p if {
	some p in checks.in_transit(input.document)
}

_problems contains findings.problem(ep, "interface VPC endpoint has private DNS off: clients still resolve the public endpoint") if {
	some ep in resources.of_type(input.document, "aws:ec2/vpcEndpoint:VpcEndpoint")
	endpoints.interface(ep)
	not resources.truthy(object.get(ep.inputs, "privateDnsEnabled", false))
}

# the VPC's endpoints the policy names (network.existingEndpoints), as EC2 describes them (--lookup)
_problems contains findings.problem(findings.stack(input.document), msg) if {
	some [service, ep] in endpoints.private_dns_off
	msg := sprintf("interface VPC endpoint %s for %s (network.existingEndpoints, read from EC2) has private DNS off: clients still resolve the public endpoint", [ep.id, service])
}
