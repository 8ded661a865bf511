# EBS volumes under an AWS Backup plan, for MLPS-L3-8.1.4.9a (mlps/local_backup.rego). They live here,
# not in local_backup_test.rego, because tests/gate pins that file's test set (it appends test forms
# to it). The selection and plan checks themselves are tested with GDPR-32.1c-1 (gdpr/backup_test.rego).
package mlps.ebs_backups_test

import data.lib.fixtures
import data.mlps.local_backup

_volume_type := "aws:ebs/volume:Volume"

_sc_type := "kubernetes:storage.k8s.io/v1:StorageClass"

_vol(name, data_class) := fixtures.resource(_volume_type, name, {"size": 100, "encrypted": true, "tags": object.union(
	fixtures.tags(data_class),
	{"seedance:backup": "test"},
)})

_sc(name, data_class, params) := fixtures.storage_class(name, data_class, {"parameters": object.union({"type": "gp3", "encrypted": "true"}, params)})

_plan(days) := fixtures.resource("aws:backup/plan:Plan", "plan", {"name": "plan", "rules": [{
	"ruleName": "daily", "targetVaultName": "vault", "schedule": "cron(0 3 * * ? *)",
	"lifecycle": {"deleteAfter": days},
}]})

# the shape the components deploy in China: every EBS volume of the region carrying seedance:backup
_selection(partition) := fixtures.resource("aws:backup/selection:Selection", "sel", {
	"name": "sel",
	"planId": fixtures.urn("aws:backup/plan:Plan", "plan"),
	"iamRoleArn": "arn:aws-cn:iam::444455556666:role/backup",
	"resources": [sprintf("arn:%s:ec2:*:*:volume/*", [partition])],
	"conditions": [{"stringEquals": [{"key": "aws:ResourceTag/seedance:backup", "value": "test"}]}],
})

_mlps(resources) := v if {
	v := local_backup.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
}

_f(type, name, msg) := fixtures.finding("MLPS-L3-8.1.4.9a", "mandatory", type, name, msg)

test_pass_personal_and_internal_ebs_under_a_backup_plan if {
	_mlps([
		_vol("vol", "personal"),
		_vol("ckpt", "internal"),
		_sc("general", "personal", {"tagSpecification_1": "seedance:backup=test"}),
		_sc("fast-ckpt", "internal", {"tagSpecification_1": "seedance:backup=test"}),
		_plan(7),
		_selection("aws-cn"),
	]) == set()
}

# public data needs no backup
test_pass_public_ebs_without_backup if {
	_mlps([_vol("www", "public"), _sc("www", "public", {})]) == set()
}

# internal data needs a backup under MLPS (GDPR asks for personal data only)
test_fail_internal_ebs_without_backup if {
	_mlps([_vol("ckpt", "internal"), _sc("fast-ckpt", "internal", {})]) == {
		_f(_volume_type, "ckpt", "internal-data EBS volume is not selected by any AWS Backup selection (by tag or by resource ARN), so no backup plan covers it"),
		_f(_sc_type, "fast-ckpt", "internal-data EBS StorageClass gives its volumes no tag an AWS Backup selection selects on (parameters tagSpecification_N: \"key=value\"), so no backup plan covers them"),
	}
}

# cn-north-1 is in the aws-cn partition: an arn:aws: pattern selects nothing there
test_fail_selection_in_the_wrong_partition if {
	_mlps([_vol("vol", "personal"), _plan(7), _selection("aws")]) == {_f(
		_volume_type, "vol",
		"personal-data EBS volume is not selected by any AWS Backup selection (by tag or by resource ARN), so no backup plan covers it",
	)}
}

test_fail_backup_plan_keeps_too_briefly if {
	_mlps([_vol("ckpt", "internal"), _plan(6), _selection("aws-cn")]) == {_f(
		_volume_type, "ckpt",
		"internal-data EBS volume is not under an AWS Backup plan that keeps recovery points at least 7 days (selection sel: backup plan plan deletes recovery points after 6 days; at least 7 days required)",
	)}
}
