package gdpr.encryption_in_transit

import data.lib.checks
import data.lib.findings
import data.lib.frameworks

# METADATA
# title: "Encryption in transit"
# description: >-
#   Bucket policies deny requests without TLS (aws:SecureTransport false), load-balancer
#   listeners speak HTTPS/TLS with a policy that refuses TLS below 1.2, and Ingresses terminate
#   TLS.
# related_resources:
#   - ref: https://gdpr-info.eu/art-32-gdpr/
# custom:
#   control_id: GDPR-32.1a-2
#   clause: "Art. 32(1)(a)"
#   framework: gdpr
#   severity: mandatory
#   remediation: >-
#     Add a Deny statement on aws:SecureTransport "false" to the bucket policy; use HTTPS/TLS
#     listeners with ELBSecurityPolicy-TLS13-1-2-2021-06 or newer; add spec.tls to the Ingress.
violation contains findings.finding("GDPR-32.1a-2", p.resource, p.message) if {
	frameworks.applies(input.policy, "gdpr")
	some p in _problems
}

_problems contains p if {
	some p in checks.in_transit(input.document)
}
