# METADATA
# title: Residency helpers
# description: >-
#   Where copies of data go: S3 replication destinations and the regions in log and flow-log
#   destination ARNs, each as {source, kind, region}.
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

destinations(document, policy) := {d |
	some b in s3.buckets(document)
	some rc in s3.replication_configs(document, b)
	some rule in object.get(rc.inputs, "rules", [])
	dest := s3.by_arn(document, rule.destination.bucket)
	d := {"source": b, "kind": "replication", "region": resources.region(dest, policy)}
} | {d |
	some fl in resources.of_type(document, "aws:ec2/flowLog:FlowLog")
	region := arn_region(object.get(fl.inputs, "logDestination", null))
	d := {"source": fl, "kind": "flow log delivery", "region": region}
} | {d |
	some t in resources.of_type(document, "aws:cloudtrail/trail:Trail")
	region := arn_region(object.get(t.inputs, "cloudWatchLogsGroupArn", null))
	d := {"source": t, "kind": "trail log delivery", "region": region}
}
