package mlps.data_residency

import data.lib.findings
import data.lib.frameworks
import data.lib.residency
import data.lib.resources

# METADATA
# title: "Data stays in China"
# description: >-
#   Every AWS resource of the stack, pulumi-aws and aws-native alike (configuration sub-resources of
#   pulumi-aws go with their resource), is in a mainland-China region (cn-north-1, cn-northwest-1; settable in data), and so are replication,
#   AWS Backup copy and log destinations; a destination whose region the document does not
#   establish passes only when its ARN is in the aws-cn partition.
# related_resources:
#   - ref: https://openstd.samr.gov.cn/bzgk/gb/newGbInfo?hcno=BAFB47E8874764186BDB7865E8344DAF
# custom:
#   control_id: MLPS-L3-8.2.4-DIC-a
#   clause: "8.2.4 cloud extension: data integrity and confidentiality a)"
#   framework: mlps-l3
#   severity: mandatory
#   remediation: >-
#     Deploy the stack in cn-north-1 or cn-northwest-1 and keep replicas and log destinations
#     there.
violation contains findings.finding("MLPS-L3-8.2.4-DIC-a", p.resource, p.message) if {
	frameworks.applies(input.policy, "mlps-l3")
	some p in _problems
}

_regions := frameworks.setting("mlps_regions")

# the resources held to the region list: taggable pulumi-aws resources and every aws-native one
_held := resources.taggable_indices | resources.native_indices

# configuration resources (bucket policies, lifecycle hooks, ...) go with the resource they configure
# one region at a time: a region is tested once, not once per resource
_problems contains findings.problem(r, msg) if {
	some region in residency.regions
	not frameworks.in_regions(region, _regions)
	msg := sprintf("resource in %s, outside mainland China (%s)", [residency.shown(region), concat(", ", _regions)])
	some i in residency.located(_held, region)
	r := input.document.resources[i]
}

_problems contains findings.problem(d.source, msg) if {
	some d in residency.destinations
	not frameworks.in_regions(d.region, _regions)
	msg := sprintf("%s goes to %s, outside mainland China", [d.kind, residency.shown(d.region)])
}

# a destination whose region is unknown stays in China only when its ARN is in the aws-cn partition
# (whose regions are cn-north-1 and cn-northwest-1)
_problems contains findings.problem(d.source, msg) if {
	some d in residency.unlocated
	d.partition != "aws-cn"
	msg := sprintf("%s goes to %v, whose region the stack does not establish (not an aws-cn ARN)", [d.kind, d.target])
}
