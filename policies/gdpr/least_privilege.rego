package gdpr.least_privilege

import data.lib.checks
import data.lib.findings
import data.lib.frameworks

# METADATA
# title: "Least privilege"
# description: >-
#   No IAM policy allows Action "*" on Resource "*" or iam:PassRole on every role, and launch
#   templates require IMDSv2 session tokens so a workload cannot be tricked into leaking its
#   role. No role's trust policy (assumeRolePolicy) lets anyone assume it (Principal "*" without
#   a condition narrowing it to an account, organisation or VPC), nor every identity of a
#   web-identity (OIDC) provider (no condition on its :sub, or on an :aud other than
#   sts.amazonaws.com).
# related_resources:
#   - ref: https://gdpr-info.eu/art-32-gdpr/
# custom:
#   control_id: GDPR-32.1b-1
#   clause: "Art. 32(1)(b)"
#   framework: gdpr
#   severity: mandatory
#   remediation: >-
#     Scope IAM actions and resources; list the roles iam:PassRole may pass; set
#     metadataOptions.httpTokens "required" on the launch template; name the principals a role
#     trusts (or add an aws:PrincipalOrgID / aws:SourceAccount condition) and condition a
#     web-identity trust on the provider's :sub.
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

# a role anyone may assume (lib.public_access): its permissions are everyone's
_problems contains p if {
	some p in data.lib.public_access.open_trust
}
