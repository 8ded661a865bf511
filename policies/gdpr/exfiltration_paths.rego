package gdpr.exfiltration_paths

import data.lib.endpoints
import data.lib.findings
import data.lib.frameworks

# METADATA
# title: "Exfiltration paths closed by VPC endpoints"
# description: >-
#   S3, KMS and CloudWatch Logs are reached through VPC endpoints whose policies restrict access
#   to the organisation or account, so data cannot be copied to a foreign account through them.
# related_resources:
#   - ref: https://gdpr-info.eu/art-44-gdpr/
#   - ref: https://docs.aws.amazon.com/vpc/latest/privatelink/vpc-endpoints-access.html
# custom:
#   control_id: GDPR-44-2
#   clause: "Art. 44 / Art. 32"
#   framework: gdpr
#   severity: advisory
#   remediation: >-
#     Create the missing VPC endpoints and give each a policy with an aws:PrincipalOrgID,
#     aws:PrincipalAccount or aws:ResourceAccount condition; a service whose endpoint the VPC
#     already has (another stack's, the landing zone's) goes in network.existingEndpoints.
violation contains findings.finding("GDPR-44-2", p.resource, p.message) if {
	frameworks.applies(input.policy, "gdpr")
	some p in _problems
}

_stack := findings.stack(input.document)

_problems contains findings.problem(_stack, msg) if {
	some service in ["s3", "kms", "logs"]
	not endpoints.present(input.document, service)
	msg := endpoints.missing_message(service, "its traffic leaves through NAT")
}

_problems contains findings.problem(ep, msg) if {
	some service in ["s3", "kms", "logs"]
	some ep in endpoints.for_service(input.document, service)
	not endpoints.org_restricted(ep)
	msg := sprintf("VPC endpoint for %s has no policy restricting it to the organisation or account", [service])
}

# the VPC's endpoints the policy names (network.existingEndpoints), as EC2 describes them (--lookup)
_problems contains findings.problem(_stack, msg) if {
	some service in ["s3", "kms", "logs"]
	some ep in endpoints.read_available(service)
	not endpoints.policy_restricted(object.get(ep, "policy", null))
	msg := sprintf("VPC endpoint %s for %s (network.existingEndpoints, read from EC2) has no policy restricting it to the organisation or account", [ep.id, service])
}
