package lib.s3_test

import data.lib.fixtures
import data.lib.s3

# a bucket the program lets Pulumi name (no name shown, as offline synthesis records it): its logical
# name, an auto-name of it and its URN or recorded id name it
_auto := object.union(fixtures.resource("aws:s3/bucket:Bucket", "access-logs-bucket", {}), {"id": "access-logs-bucket-4aa4589"})

# the same bucket in a preview of the deployed stack: Pulumi shows the name it chose
_shown := fixtures.resource("aws:s3/bucket:Bucket", "access-logs-bucket", {"bucket": "access-logs-bucket-4aa4589"})

_named(doc, ref) := positions if {
	positions := s3.named(ref) with input as fixtures.gate_input(fixtures.gdpr_policy, [doc])
}

test_an_auto_named_bucket_is_named_by_its_logical_name_or_an_auto_name if {
	_named(_auto, "access-logs-bucket") == {0}
	_named(_auto, "access-logs-bucket-0a0b0c0") == {0} # offline, the auto-name is not known
	_named(_auto, "access-logs-bucket-4aa4589") == {0}
	_named(_auto, _auto.urn) == {0}
}

# red team: another stack's archive, named after the same logical name, was taken for this one's
test_a_bucket_whose_name_is_shown_is_named_by_that_name_only if {
	_named(_shown, "access-logs-bucket-4aa4589") == {0}
	_named(_shown, _shown.urn) == {0}
	_named(_shown, "access-logs-bucket-0a0b0c0") == set()
	_named(_shown, "access-logs-bucket") == set()
}
