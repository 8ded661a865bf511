package gdpr.log_storage_limitation

import data.lib.audit
import data.lib.findings
import data.lib.frameworks
import data.lib.resources

# METADATA
# title: "Storage limitation for logs with personal data"
# description: >-
#   Log groups holding personal data (tagged so, or receiving the logs of a personal-data
#   resource) have a finite retention no longer than the declared maximum. Logs a personal-data
#   resource has AWS write to a log group the stack does not declare (EKS control-plane logs, RDS,
#   DocumentDB and Neptune log exports, Lambda functions, ECS awslogs containers, API Gateway access
#   logs, flow logs and trails delivering to CloudWatch Logs or to a
#   bucket outside the stack) have a retention that cannot be established, and are reported. In China the six-month minimum for network logs (Cybersecurity Law art. 21) is a
#   legal obligation that takes precedence, so there the maximum is raised to 365 days, the
#   smallest CloudWatch retention that surely covers six calendar months. Without a declared
#   compliance.personalDataMaxDays no retention can be shown to be limited, so every personal-data
#   log group is reported; so is a retention unknown until apply.
# related_resources:
#   - ref: https://gdpr-info.eu/art-5-gdpr/
#   - ref: https://www.cac.gov.cn/2016-11/07/c_1119867116.htm
# custom:
#   control_id: GDPR-5.1e-2
#   clause: "Art. 5(1)(e)"
#   framework: gdpr
#   severity: mandatory
#   remediation: >-
#     Set retentionInDays on the log group to at most compliance.personalDataMaxDays (in China: at
#     most the larger of that and 365); declare in the stack the log group a service writes to,
#     under the name AWS writes to, with such a retention.
violation contains findings.finding("GDPR-5.1e-2", p.resource, p.message) if {
	frameworks.applies(input.policy, "gdpr")
	some p in _problems
}

_max := frameworks.gdpr_log_max_days(input.policy)

_personal_logs := [input.document.resources[i] | some i in audit.personal_log_groups]

# logs of personal data written where the stack declares no log group (AWS creates the groups of
# EKS, the databases and Lambda itself, never expiring) or to a bucket outside the stack
_problems contains findings.problem(d.source, msg) if {
	some d in audit.undeclared_log_deliveries
	resources.personal(d.source)
	msg := sprintf("%s of personal data go to %s, so their retention cannot be established; declare that log group in the stack with retentionInDays %s", [d.what, d.label, _at_most])
}

_problems contains findings.problem(d.source, msg) if {
	some d in audit.log_bucket_deliveries
	count(d.buckets) == 0
	resources.personal(d.source)
	msg := sprintf("%s of personal data go to %v, which is not a bucket the stack creates, so how long they are kept cannot be established; deliver them to a bucket of the stack that expires objects after %s days", [d.what, d.target, _at_most])
}

_problems contains findings.problem(lg, msg) if {
	some lg in _personal_logs
	object.get(lg.inputs, "retentionInDays", 0) == 0
	msg := sprintf("log group with personal data never expires (maximum %v days)", [_limit])
}

_problems contains findings.problem(lg, msg) if {
	some lg in _personal_logs
	days := object.get(lg.inputs, "retentionInDays", 0)
	is_number(days)
	days > _max
	msg := sprintf("log group with personal data keeps logs %v days, above the maximum of %v days%s", [days, _max, _why])
}

# no declared maximum: a finite retention cannot be shown to be limited either
_problems contains findings.problem(lg, msg) if {
	not _max
	some lg in _personal_logs
	days := object.get(lg.inputs, "retentionInDays", 0)
	is_number(days)
	days > 0
	msg := sprintf("log group with personal data keeps logs %v days, but compliance.personalDataMaxDays is not declared", [days])
}

# a retention that is not a number (the preview's "[unknown]") cannot be shown to be limited
_problems contains findings.problem(lg, msg) if {
	some lg in _personal_logs
	days := object.get(lg.inputs, "retentionInDays", 0)
	not is_number(days)
	msg := sprintf("log group with personal data has a retention that cannot be established (%v; maximum %v days)", [days, _limit])
}

_limit := _max

_at_most := sprintf("at most %v", [_max]) if _max else := "at most compliance.personalDataMaxDays (which the policy does not declare)"

_limit := "undeclared" if not _max

_why := " (raised to the six-month minimum of the Chinese Cybersecurity Law)" if {
	frameworks.jurisdiction(input.policy) == "cn"
} else := ""
