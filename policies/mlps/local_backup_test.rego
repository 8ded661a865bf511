package mlps.local_backup_test

import data.mlps.local_backup
import data.lib.fixtures

test_pass_versioned if {
	v := local_backup.violation with input as fixtures.gate_input(fixtures.mlps_policy, array.concat(fixtures.good_bucket("ckpt", "internal"), [fixtures.bucket("www", "public")]))
	v == set()
}

test_fail_unversioned_internal_data if {
	v := local_backup.violation with input as fixtures.gate_input(fixtures.mlps_policy, [fixtures.bucket("ckpt", "internal")])
	v == {fixtures.finding("MLPS-L3-8.1.4.9a", "mandatory", "aws:s3/bucket:Bucket", "ckpt", "internal-data bucket is not versioned (no recovery from overwrite or deletion)")}
}
