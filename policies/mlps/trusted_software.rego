package mlps.trusted_software

import data.lib.findings
import data.lib.frameworks
import data.lib.resources

# METADATA
# title: "Trusted software"
# description: >-
#   Container images come from allow-listed registries (settable in data; the account's own ECR
#   is always trusted) and are pinned by digest.
# related_resources:
#   - ref: https://openstd.samr.gov.cn/bzgk/gb/newGbInfo?hcno=BAFB47E8874764186BDB7865E8344DAF
# custom:
#   control_id: MLPS-L3-8.1.4.5-6
#   clause: "8.1.4.5 / 8.1.4.6"
#   framework: mlps-l3
#   severity: advisory
#   remediation: >-
#     Pull images from the account's own ECR (cloud.accountId) or an allow-listed registry and
#     pin them as image@sha256:<digest>.
violation contains findings.finding("MLPS-L3-8.1.4.5-6", p.resource, p.message) if {
	frameworks.applies(input.policy, "mlps-l3")
	some p in _problems
}

# the account's own ECR (cloud.accountId, any region); another account's ECR is not trusted, and
# without a declared account no ECR is (fail closed)
_trusted(image) if {
	account := input.policy.cloud.accountId
	regex.match(`^[0-9]{12}$`, account)
	regex.match(sprintf(`^%s\.dkr\.ecr\.[a-z0-9-]+\.amazonaws\.com(\.cn)?/`, [account]), image)
}

_trusted(image) if strings.any_prefix_match(image, frameworks.setting("trusted_registries"))

_problems contains findings.problem(w, msg) if {
	some w in resources.workloads(input.document)
	some c in resources.containers(resources.pod_spec(w))
	not _trusted(c.image)
	msg := sprintf("container %s pulls %s from a registry that is not allow-listed", [c.name, c.image])
}

_problems contains findings.problem(w, msg) if {
	some w in resources.workloads(input.document)
	some c in resources.containers(resources.pod_spec(w))
	not contains(c.image, "@sha256:")
	msg := sprintf("container %s image %s is not pinned by digest", [c.name, c.image])
}
