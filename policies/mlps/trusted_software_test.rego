package mlps.trusted_software_test

import data.mlps.trusted_software
import data.lib.fixtures

_pod(image) := fixtures.resource("kubernetes:core/v1:Pod", "p", {"metadata": {"namespace": "batch"}, "spec": {"containers": [{"name": "app", "image": image}]}})

_own_account_policy := json.patch(fixtures.mlps_policy, [{"op": "add", "path": "/cloud/accountId", "value": "444455556666"}])

test_pass_pinned_trusted if {
	v := trusted_software.violation with input as fixtures.gate_input(_own_account_policy, [_pod("444455556666.dkr.ecr.cn-north-1.amazonaws.com.cn/models@sha256:abc")])
	v == set()
}

test_fail_untrusted_unpinned if {
	v := trusted_software.violation with input as fixtures.gate_input(fixtures.mlps_policy, [_pod("docker.io/library/python:3.11")])
	v == {
		fixtures.finding("MLPS-L3-8.1.4.5-6", "advisory", "kubernetes:core/v1:Pod", "p", "container app pulls docker.io/library/python:3.11 from a registry that is not allow-listed"),
		fixtures.finding("MLPS-L3-8.1.4.5-6", "advisory", "kubernetes:core/v1:Pod", "p", "container app image docker.io/library/python:3.11 is not pinned by digest"),
	}
}

# audit C: only the account's own ECR is trusted, not any 12-digit account's
test_fail_foreign_account_ecr if {
	image := "999999999999.dkr.ecr.cn-north-1.amazonaws.com.cn/someone-else/tool@sha256:abc"
	v := trusted_software.violation with input as fixtures.gate_input(_own_account_policy, [_pod(image)])
	v == {fixtures.finding("MLPS-L3-8.1.4.5-6", "advisory", "kubernetes:core/v1:Pod", "p", sprintf("container app pulls %s from a registry that is not allow-listed", [image]))}
}

test_pass_own_ecr_in_another_region if {
	v := trusted_software.violation with input as fixtures.gate_input(_own_account_policy, [_pod("444455556666.dkr.ecr.cn-northwest-1.amazonaws.com.cn/models@sha256:abc")])
	v == set()
}

# without cloud.accountId no ECR can be told to be the account's own (fail closed)
test_fail_ecr_without_declared_account if {
	image := "444455556666.dkr.ecr.cn-north-1.amazonaws.com.cn/models@sha256:abc"
	v := trusted_software.violation with input as fixtures.gate_input(fixtures.mlps_policy, [_pod(image)])
	v == {fixtures.finding("MLPS-L3-8.1.4.5-6", "advisory", "kubernetes:core/v1:Pod", "p", sprintf("container app pulls %s from a registry that is not allow-listed", [image]))}
}

test_pass_allow_listed_registry if {
	v := trusted_software.violation with input as fixtures.gate_input(fixtures.mlps_policy, [_pod("nvcr.io/nvidia/pytorch@sha256:abc")])
	v == set()
}
