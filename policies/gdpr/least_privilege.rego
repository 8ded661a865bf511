package gdpr.least_privilege

import data.lib.checks
import data.lib.findings
import data.lib.frameworks

# METADATA
# title: "Least privilege"
# description: >-
#   No IAM policy allows Action "*" on Resource "*" or iam:PassRole on every role, and launch
#   templates require IMDSv2 session tokens so a workload cannot be tricked into leaking its
#   role.
# related_resources:
#   - ref: https://gdpr-info.eu/art-32-gdpr/
# custom:
#   control_id: GDPR-32.1b-1
#   clause: "Art. 32(1)(b)"
#   framework: gdpr
#   severity: mandatory
#   remediation: >-
#     Scope IAM actions and resources; list the roles iam:PassRole may pass; set
#     metadataOptions.httpTokens "required" on the launch template.
violation contains findings.finding("GDPR-32.1b-1", p.resource, p.message) if {
	frameworks.applies(input.policy, "gdpr")
	some p in _problems
}

_problems contains p if {
	some p in checks.wildcard_admin(input.document)
}

_problems contains p if {
	some p in checks.wildcard_passrole(input.document)
}

_problems contains p if {
	some p in checks.imdsv1(input.document)
}
