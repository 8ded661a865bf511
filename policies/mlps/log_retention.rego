package mlps.log_retention

import data.lib.audit
import data.lib.findings
import data.lib.frameworks
import data.lib.resources
import data.lib.s3

# METADATA
# title: "Central logs kept at least six months"
# description: >-
#   Log groups keep logs at least 180 days (never-expiring counts as kept; CloudWatch offers 180
#   then 365, and six calendar months can be 181-184 days, so 365 is the safe value; a retention
#   unknown until apply is reported), and S3 buckets receiving audit logs (trail log files) or
#   network logs (flow logs, load-balancer and S3 access logs) have no lifecycle rule, scoped or
#   not, that expires objects before 183 days. Logs the stack has AWS write where it declares no
#   log group (EKS control-plane logs, RDS, DocumentDB and Neptune log exports, Lambda functions,
#   ECS awslogs containers, API Gateway access logs, flow logs and trails delivering to CloudWatch
#   Logs) or no bucket (flow logs and trails delivering to S3) are
#   kept for a time that cannot be established, and are reported.
# related_resources:
#   - ref: https://openstd.samr.gov.cn/bzgk/gb/newGbInfo?hcno=BAFB47E8874764186BDB7865E8344DAF
#   - ref: https://www.cac.gov.cn/2016-11/07/c_1119867116.htm
# custom:
#   control_id: MLPS-L3-8.1.5.4d
#   clause: "8.1.5.4 / Cybersecurity Law art. 21"
#   framework: mlps-l3
#   severity: mandatory
#   remediation: >-
#     Set retentionInDays to 365 (compliance.logRetentionDays) and keep audit and network log
#     archives at least 183 days; declare in the stack the log group (under the name AWS writes
#     to) or bucket a service writes its logs to.
violation contains findings.finding("MLPS-L3-8.1.5.4d", p.resource, p.message) if {
	frameworks.applies(input.policy, "mlps-l3")
	some p in _problems
}

_min := frameworks.setting("mlps_min_log_days")

_problems contains findings.problem(lg, msg) if {
	some lg in audit.log_groups
	days := object.get(lg.inputs, "retentionInDays", 0)
	is_number(days)
	days > 0
	days < _min
	msg := sprintf("log group keeps logs %v days; at least %v required (365 is the safe CloudWatch value)", [days, _min])
}

# a retention that is not a number (the preview's "[unknown]") cannot be shown to keep six months
_problems contains findings.problem(lg, msg) if {
	some lg in audit.log_groups
	days := object.get(lg.inputs, "retentionInDays", 0)
	not is_number(days)
	msg := sprintf("log group retention %v cannot be established; at least %v days required", [days, _min])
}

_problems contains findings.problem(b, msg) if {
	some i in s3.bucket_indices & audit.trail_destinations
	days := s3.earliest_expiration_days[i]
	b := input.document.resources[i]
	days < 183
	msg := sprintf("audit log archive expires after %v days; six months needs at least 183", [days])
}

_problems contains findings.problem(b, msg) if {
	some i in s3.bucket_indices & audit.network_log_archives
	not i in audit.trail_destinations
	days := s3.earliest_expiration_days[i]
	b := input.document.resources[i]
	days < 183
	msg := sprintf("network log archive expires after %v days; six months needs at least 183", [days])
}

# an expiration the document does not show may be under six months (as a log group's retention)
_problems contains findings.problem(b, msg) if {
	some [i, why] in s3.hidden_expiration
	i in audit.trail_destinations | audit.network_log_archives
	b := input.document.resources[i]
	kind := _archive_kind(i)
	msg := sprintf("%s log archive expiration is %s, so keeping logs at least 183 days cannot be established", [kind, why])
}

_archive_kind(i) := "audit" if i in audit.trail_destinations else := "network"

# logs written where the stack declares no log group: AWS creates the groups of EKS and the
# databases itself, never expiring, but another stack's group may expire them at any time
_problems contains findings.problem(d.source, msg) if {
	some d in audit.undeclared_log_deliveries
	msg := sprintf("%s go to %s, so keeping them at least %v days cannot be established; declare that log group in the stack with retentionInDays 365", [d.what, d.label, _min])
}

_problems contains findings.problem(d.source, msg) if {
	some d in audit.log_bucket_deliveries
	count(d.buckets) == 0
	msg := sprintf("%s go to %v, which is not a bucket the stack creates, so keeping them at least 183 days cannot be established; deliver them to a bucket of the stack that keeps them that long", [d.what, d.target])
}
