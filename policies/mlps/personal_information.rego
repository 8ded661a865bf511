package mlps.personal_information

import data.lib.checks
import data.lib.findings
import data.lib.frameworks
import data.lib.resources

# METADATA
# title: "Personal information protection"
# description: >-
#   Personal-information resources are labelled with purpose and controller, and personal-data
#   buckets are fully private: a public access block with all flags on and no unconditioned
#   public grant or policy.
# related_resources:
#   - ref: https://openstd.samr.gov.cn/bzgk/gb/newGbInfo?hcno=BAFB47E8874764186BDB7865E8344DAF
# custom:
#   control_id: MLPS-L3-8.1.4.11
#   clause: "8.1.4.11"
#   framework: mlps-l3
#   severity: mandatory
#   remediation: >-
#     Tag personal-data resources with purpose and controller; block public access on
#     personal-data buckets and restrict access to named roles or aws:SourceVpce.
violation contains findings.finding("MLPS-L3-8.1.4.11", p.resource, p.message) if {
	frameworks.applies(input.policy, "mlps-l3")
	some p in _problems
}

# AWS resources are personal by their data-class tag, so each of them has tags
_problems contains findings.problem(input.document.resources[i], _lacks(tags)) if {
	some i, tags in resources.tags_at
	i in resources.personal_indices
	not _complete(tags)
}

# aws-native resources: their own tags (their provider's default tags are not read)
_problems contains findings.problem(input.document.resources[i], _lacks(tags)) if {
	some i, tags in resources.native_tags_at
	i in resources.personal_indices
	not _complete(tags)
}

_lacks(tags) := sprintf("personal-information resource lacks tag(s): %s", [concat(", ", missing)]) if {
	missing := [k | some k in ["purpose", "controller"]; object.get(tags, k, "") == ""]
}

_complete(tags) if {
	tags.purpose != ""
	tags.controller != ""
}

_problems contains p if {
	some p in checks.public_buckets(input.document, {"personal"})
}
