package mlps.audit_protection

import data.lib.access_logging
import data.lib.audit
import data.lib.findings
import data.lib.frameworks
import data.lib.resources
import data.lib.s3

# METADATA
# title: "Protect audit records"
# description: >-
#   Trails validate log files and encrypt them with a KMS key (a trail the policy relies on,
#   compliance.existingTrail, as CloudTrail describes it), and the buckets receiving them or S3
#   server access logs are versioned and protected by Object Lock with a default retention or a
#   bucket policy denying s3:DeleteObject and s3:DeleteObjectVersion to everyone on every object.
# related_resources:
#   - ref: https://openstd.samr.gov.cn/bzgk/gb/newGbInfo?hcno=BAFB47E8874764186BDB7865E8344DAF
# custom:
#   control_id: MLPS-L3-8.1.4.3c
#   clause: "8.1.4.3 c)"
#   framework: mlps-l3
#   severity: mandatory
#   remediation: >-
#     Set enableLogFileValidation and kmsKeyId on the trail; version the trail bucket and the
#     access-log buckets and add Object Lock (trail bucket only: S3 does not deliver access logs to
#     a bucket with Object Lock) with a default retention (rule.defaultRetention), or a Deny of
#     s3:DeleteObject and s3:DeleteObjectVersion to Principal "*" on the bucket's ARN/*.
violation contains findings.finding("MLPS-L3-8.1.4.3c", p.resource, p.message) if {
	frameworks.applies(input.policy, "mlps-l3")
	some p in _problems
}

_problems contains findings.problem(t, "trail has log-file validation off") if {
	some t in audit.trails(input.document)
	not resources.truthy(object.get(t.inputs, "enableLogFileValidation", false))
}

_problems contains findings.problem(t, "trail log files are not encrypted with a KMS key") if {
	some t in audit.trails(input.document)
	object.get(t.inputs, "kmsKeyId", "") == ""
}

_problems contains p if {
	some p in audit.existing_weaknesses(input.document, {"validation", "kms"})
}

# positions of the buckets that receive trail log files or S3 server access logs
_log_buckets := s3.bucket_indices & (audit.trail_destinations | access_logging.targets)

_problems contains findings.problem(b, "audit log bucket is not versioned") if {
	some i in _log_buckets
	not i in s3.versioned
	b := input.document.resources[i]
}

_problems contains findings.problem(b, _unprotected(i)) if {
	some i in _log_buckets
	not _locked(i)
	not _denies_delete(i)
	b := input.document.resources[i]
}

# the message, with why what the bucket has does not protect its objects
_unprotected(i) := sprintf("audit log bucket has neither Object Lock with a default retention nor a policy denying deletes to everyone: %s", [concat("; ", sort(why))]) if {
	why := _lock_gaps(i) | _deny_gaps(i)
	count(why) > 0
} else := "audit log bucket has neither Object Lock nor a policy denying deletes"

# Object Lock locks the objects it receives only through a default retention (CloudTrail and S3
# log delivery set none of their own): a rule.defaultRetention with a mode and days or years
_locked(i) if {
	some lock in s3.object_lock_configs(i)
	retention := lock.inputs.rule.defaultRetention
	retention.mode in {"GOVERNANCE", "COMPLIANCE"}
	some key in ["days", "years"]
	resources.number(object.get(retention, key, null)) > 0
}

_lock_gaps(i) := {sprintf("its Object Lock default retention is %s, so that it locks the log files cannot be established", [resources.hidden_why(v)]) |
	some lock in s3.object_lock_configs(i)
	some v in _retention_parts(lock)
	resources.hidden(v)
} | {"Object Lock is on but sets no default retention, so it locks none of the log files (add a BucketObjectLockConfiguration with rule.defaultRetention)" |
	_lock_on(i)
	not _retention_shown_or_hidden(i)
}

_retention_parts(lock) := [v |
	some path in [["rule"], ["rule", "defaultRetention"], ["rule", "defaultRetention", "mode"], ["rule", "defaultRetention", "days"], ["rule", "defaultRetention", "years"]]
	v := object.get(lock.inputs, path, null)
]

_retention_shown_or_hidden(i) if _locked(i)

_retention_shown_or_hidden(i) if {
	some lock in s3.object_lock_configs(i)
	some v in _retention_parts(lock)
	resources.hidden(v)
}

_lock_on(i) if count(s3.object_lock_configs(i)) > 0

_lock_on(i) if resources.truthy(object.get(input.document.resources[i].inputs, "objectLockEnabled", false))

_lock_on(i) if input.document.resources[i].inputs.objectLockConfiguration.objectLockEnabled == "Enabled"

# Deletes are denied when the policy's unconditional Deny statements that hold for everyone on
# every object (s3.deny_scope_gaps) name, between them, both s3:DeleteObject and
# s3:DeleteObjectVersion (or a wildcard such as s3:Delete*, s3:*): on a versioned bucket
# DeleteObject only adds a delete marker, DeleteObjectVersion deletes a log file for good.
_denies_delete(i) if count(_denied_deletes(i)) == count(_delete_actions)

_delete_actions := ["s3:DeleteObject", "s3:DeleteObjectVersion"]

_denied_deletes(i) := {a |
	some st in s3.policy_statements(i)
	_delete_deny(st)
	not st.Condition
	count(s3.deny_scope_gaps(st, i)) == 0
	some a in _delete_actions
	_names_action(st, a)
}

# a Deny statement that names some delete action
_delete_deny(st) if {
	is_object(st)
	st.Effect == "Deny"
	some a in _delete_actions
	_names_action(st, a)
}

_names_action(st, action) if {
	some pattern in resources.as_list(object.get(st, "Action", []))
	is_string(pattern)
	regex.match(resources.wildcard_regex(lower(pattern)), lower(action))
}

_deny_gaps(i) := {sprintf("its policy statement %s %s", [_sid(st), concat(" and ", sort(why))]) |
	some st in s3.policy_statements(i)
	_delete_deny(st)
	why := _deny_statement_gaps(st, i)
	count(why) > 0
} | {sprintf("its policy denies %s to everyone but not %s (both are needed: on a versioned bucket DeleteObject only adds a delete marker, DeleteObjectVersion deletes a log file for good)", [concat(", ", sort(denied)), concat(", ", sort(missing))]) |
	denied := _denied_deletes(i)
	count(denied) > 0
	missing := {a | some a in _delete_actions} - denied
	count(missing) > 0
}

# a conditional deny (a TLS-only one of s3:*, say) is a delete deny only if it names deletes
_deny_statement_gaps(st, i) := {"applies only on conditions"} if {
	st.Condition
	some pattern in resources.as_list(object.get(st, "Action", []))
	contains(lower(sprintf("%v", [pattern])), "delete")
} else := set() if st.Condition else := s3.deny_scope_gaps(st, i)

_sid(st) := sprintf("'%s'", [st.Sid]) if is_string(object.get(st, "Sid", null)) else := "(no Sid)"
