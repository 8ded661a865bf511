package mlps.log_retention_test

import data.mlps.log_retention
import data.lib.fixtures

_lifecycle(days) := fixtures.bucket_part("aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration", "audit-logs", "lifecycle", {"rules": [{"id": "x", "status": "Enabled", "expiration": {"days": days}}]})

test_pass_six_months_or_more if {
	resources := [fixtures.log_group("flow", "internal", 365), fixtures.log_group("forever", "internal", 0), fixtures.trail("audit", {}), fixtures.bucket("audit-logs", "internal"), _lifecycle(400)]
	v := log_retention.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == set()
}

test_fail_short_retention if {
	resources := [fixtures.log_group("flow", "personal", 90), fixtures.trail("audit", {}), fixtures.bucket("audit-logs", "internal"), _lifecycle(90)]
	v := log_retention.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == {
		fixtures.finding("MLPS-L3-8.1.5.4d", "mandatory", "aws:cloudwatch/logGroup:LogGroup", "flow", "log group keeps logs 90 days; at least 180 required (365 is the safe CloudWatch value)"),
		fixtures.finding("MLPS-L3-8.1.5.4d", "mandatory", "aws:s3/bucket:Bucket", "audit-logs", "audit log archive expires after 90 days; six months needs at least 183"),
	}
}

# jurisdiction branch: a GDPR stack (EU) keeps 90-day logs, which the Chinese minimum rejects once MLPS applies
test_pass_eu_gdpr_only_short_logs if {
	v := log_retention.violation with input as fixtures.gate_input(fixtures.gdpr_policy, [fixtures.log_group("flow", "personal", 90)])
	v == set()
}

# settings in data.seedance.settings override the defaults (here a stricter one-year minimum)
test_fail_with_a_stricter_minimum_from_data if {
	resources := [fixtures.log_group("flow", "internal", 180)]
	v := log_retention.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
		with data.seedance.settings as {"mlps_min_log_days": 365}
	v == {fixtures.finding("MLPS-L3-8.1.5.4d", "mandatory", "aws:cloudwatch/logGroup:LogGroup", "flow", "log group keeps logs 180 days; at least 365 required (365 is the safe CloudWatch value)")}
}

test_pass_default_minimum_without_settings if {
	resources := [fixtures.log_group("flow", "internal", 180)]
	v := log_retention.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == set()
}
