# METADATA
# title: Residency helpers
# description: >-
#   The regions resources live in, and where copies of data go: S3 replication destinations and
#   the regions in log and flow-log destination ARNs, each as {source, kind, region}.
# scope: package
package lib.residency

import data.lib.resources
import data.lib.s3

# the region field of an ARN (arn:partition:service:region:account:resource), when it has one
arn_region(arn) := parts[3] if {
	is_string(arn)
	parts := split(arn, ":")
	count(parts) > 4
	parts[3] != ""
}

# The regions the resources live in: their own `region`, else the stack's (policy.cloud.region).
# Controls decide once per region, then look for the resources of the regions that fail.
regions := _own_regions | {region | region := input.policy.cloud.region}

_own_regions := {r.region | some r in input.document.resources; is_string(r.region)}

# the positions among `positions` of the resources that live in `region`
located(positions, region) := {i | some i in positions; input.document.resources[i].region == region} | _defaulted(positions, region)

_defaulted(positions, region) := {i | some i in positions; not is_string(input.document.resources[i].region)} if {
	region == input.policy.cloud.region
} else := set()

# where copies of data go, each as {source, kind, region} (built once; "at" keeps set comparisons cheap)
destinations contains _destination(b, "replication", resources.region(dest, input.policy)) if {
	some i in s3.bucket_indices
	b := input.document.resources[i]
	some rc in s3.replication_configs(i)
	some rule in object.get(rc.inputs, "rules", [])
	some j in s3.named(s3.arn_bucket(rule.destination.bucket))
	dest := input.document.resources[j]
}

destinations contains _destination(fl, "flow log delivery", region) if {
	some fl in resources.of_type(input.document, "aws:ec2/flowLog:FlowLog")
	region := arn_region(object.get(fl.inputs, "logDestination", null))
}

destinations contains _destination(t, "trail log delivery", region) if {
	some t in resources.of_type(input.document, "aws:cloudtrail/trail:Trail")
	region := arn_region(object.get(t.inputs, "cloudWatchLogsGroupArn", null))
}

_destination(source, kind, region) := {"at": source.urn, "kind": kind, "region": region, "source": source}
