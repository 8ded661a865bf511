# Database backups of MLPS-L3-8.1.4.9a (mlps/local_backup.rego). They live here, not in
# local_backup_test.rego, because tests/gate pins that file's test set (it appends test forms to it).
package mlps.database_backups_test

import data.lib.fixtures
import data.mlps.local_backup

# test audit: database backups are kept at least 7 days (the default of 1 day is too short)
test_fail_database_backups_too_short if {
	resources := [
		fixtures.resource("aws:rds/instance:Instance", "db", {"engine": "postgres", "backupRetentionPeriod": 6}),
		fixtures.resource("aws:rds/cluster:Cluster", "aurora", {"engine": "aurora-postgresql"}),
	]
	v := local_backup.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == {
		fixtures.finding("MLPS-L3-8.1.4.9a", "mandatory", "aws:rds/instance:Instance", "db", "database keeps backups 6 days (at least 7 required)"),
		fixtures.finding("MLPS-L3-8.1.4.9a", "mandatory", "aws:rds/cluster:Cluster", "aurora", "database keeps backups 1 days (at least 7 required)"),
	}
}

test_pass_database_backups_seven_days if {
	resources := [fixtures.resource("aws:rds/instance:Instance", "db", {"engine": "postgres", "backupRetentionPeriod": 7})]
	v := local_backup.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == set()
}

# fail closed: a retention the preview does not know yet is not taken as long enough
test_fail_database_backup_retention_unknown if {
	resources := [fixtures.resource("aws:rds/instance:Instance", "db", {"engine": "postgres", "backupRetentionPeriod": "[unknown]"})]
	v := local_backup.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == {fixtures.finding("MLPS-L3-8.1.4.9a", "mandatory", "aws:rds/instance:Instance", "db", "database backup retention [unknown] cannot be established (at least 7 days required)")}
}

# red team: DocumentDB and Neptune clusters, and personal- or internal-data DynamoDB tables
# without point-in-time recovery; a public-data table needs none
test_fail_document_graph_and_table_backups if {
	resources := [
		fixtures.resource("aws:docdb/cluster:Cluster", "docdb", {"storageEncrypted": true, "backupRetentionPeriod": 1}),
		fixtures.resource("aws:neptune/cluster:Cluster", "neptune", {"storageEncrypted": true, "backupRetentionPeriod": "[unknown]"}),
		fixtures.resource("aws:dynamodb/table:Table", "events", {"hashKey": "id", "tags": fixtures.tags("internal"), "pointInTimeRecovery": {"enabled": false}}),
		fixtures.resource("aws:dynamodb/table:Table", "catalog", {"hashKey": "id", "tags": fixtures.tags("public")}),
	]
	v := local_backup.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == {
		fixtures.finding("MLPS-L3-8.1.4.9a", "mandatory", "aws:docdb/cluster:Cluster", "docdb", "database keeps backups 1 days (at least 7 required)"),
		fixtures.finding("MLPS-L3-8.1.4.9a", "mandatory", "aws:neptune/cluster:Cluster", "neptune", "database backup retention [unknown] cannot be established (at least 7 days required)"),
		fixtures.finding("MLPS-L3-8.1.4.9a", "mandatory", "aws:dynamodb/table:Table", "events", "internal-data DynamoDB table has no point-in-time recovery (pointInTimeRecovery.enabled is false, true required)"),
	}
}

test_pass_document_graph_and_table_backups if {
	resources := [
		fixtures.resource("aws:docdb/cluster:Cluster", "docdb", {"storageEncrypted": true, "backupRetentionPeriod": 7}),
		fixtures.resource("aws:dynamodb/table:Table", "events", {"hashKey": "id", "tags": fixtures.tags("internal"), "pointInTimeRecovery": {"enabled": "true"}}),
	]
	v := local_backup.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == set()
}

# red team F5: Redshift snapshots, and personal- or internal-data ElastiCache and MemoryDB
# snapshots, are kept at least 7 days; a public-data cache needs none
test_fail_redshift_and_cache_backups if {
	resources := [
		fixtures.resource("aws:redshift/cluster:Cluster", "dw", {"encrypted": true, "automatedSnapshotRetentionPeriod": 1}),
		fixtures.resource("aws:elasticache/replicationGroup:ReplicationGroup", "rg", {"tags": fixtures.tags("internal"), "snapshotRetentionLimit": 0}),
		fixtures.resource("aws:memorydb/cluster:Cluster", "mdb", {"tags": fixtures.tags("public")}),
	]
	v := local_backup.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == {
		fixtures.finding("MLPS-L3-8.1.4.9a", "mandatory", "aws:redshift/cluster:Cluster", "dw", "database keeps backups 1 days (at least 7 required)"),
		fixtures.finding("MLPS-L3-8.1.4.9a", "mandatory", "aws:elasticache/replicationGroup:ReplicationGroup", "rg", "internal-data ElastiCache replication group keeps no automatic snapshots (snapshotRetentionLimit 0; at least 7 days required)"),
	}
}

test_pass_redshift_and_cache_backups if {
	resources := [
		fixtures.resource("aws:redshift/cluster:Cluster", "dw", {"encrypted": true, "automatedSnapshotRetentionPeriod": 7}),
		fixtures.resource("aws:elasticache/replicationGroup:ReplicationGroup", "rg", {"tags": fixtures.tags("internal"), "snapshotRetentionLimit": 7}),
	]
	v := local_backup.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == set()
}

# red team F3: an internal-data S3 directory bucket cannot be versioned; a public-data one need not be
test_fail_internal_directory_bucket_cannot_be_versioned if {
	resources := [
		fixtures.resource("aws:s3/directoryBucket:DirectoryBucket", "express", {"bucket": "express--cnn1-az1--x-s3", "tags": fixtures.tags("internal")}),
		fixtures.resource("aws:s3/directoryBucket:DirectoryBucket", "open", {"bucket": "open--cnn1-az1--x-s3", "tags": fixtures.tags("public")}),
	]
	v := local_backup.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == {fixtures.finding(
		"MLPS-L3-8.1.4.9a", "mandatory", "aws:s3/directoryBucket:DirectoryBucket", "express",
		"internal-data S3 directory bucket cannot be versioned (S3 Express One Zone does not support versioning), so overwritten or deleted objects cannot be restored; keep the data in a general purpose bucket, or waive this finding with the evidence of another copy",
	)}
}
