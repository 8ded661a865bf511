package gdpr.no_public_storage

import data.lib.checks
import data.lib.findings
import data.lib.frameworks

# METADATA
# title: "No public exposure of storage"
# description: >-
#   Data protection by default: every bucket has a public access block with all four flags on,
#   no ACL grant to AllUsers or AuthenticatedUsers, and no bucket-policy statement allowing
#   Principal "*" without an aws:SourceVpce or aws:PrincipalOrgID condition.
# related_resources:
#   - ref: https://gdpr-info.eu/art-25-gdpr/
# custom:
#   control_id: GDPR-25.2-1
#   clause: "Art. 25(2)"
#   framework: gdpr
#   severity: mandatory
#   remediation: >-
#     Attach a BucketPublicAccessBlock with blockPublicAcls, blockPublicPolicy, ignorePublicAcls
#     and restrictPublicBuckets true; remove public grants; condition wildcard principals.
violation contains findings.finding("GDPR-25.2-1", p.resource, p.message) if {
	frameworks.applies(input.policy, "gdpr")
	some p in _problems
}

_problems contains p if {
	some p in checks.public_buckets(input.document, {"personal", "internal", "public", ""})
}
