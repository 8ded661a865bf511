package mlps.trusted_software_test

import data.mlps.trusted_software
import data.lib.fixtures

_pod(image) := fixtures.resource("kubernetes:core/v1:Pod", "p", {"metadata": {"namespace": "batch"}, "spec": {"containers": [{"name": "app", "image": image}]}})

test_pass_pinned_trusted if {
	v := trusted_software.violation with input as fixtures.gate_input(fixtures.mlps_policy, [_pod("444455556666.dkr.ecr.cn-north-1.amazonaws.com.cn/models@sha256:abc")])
	v == set()
}

test_fail_untrusted_unpinned if {
	v := trusted_software.violation with input as fixtures.gate_input(fixtures.mlps_policy, [_pod("docker.io/library/python:3.11")])
	v == {
		fixtures.finding("MLPS-L3-8.1.4.5-6", "advisory", "kubernetes:core/v1:Pod", "p", "container app pulls docker.io/library/python:3.11 from a registry that is not allow-listed"),
		fixtures.finding("MLPS-L3-8.1.4.5-6", "advisory", "kubernetes:core/v1:Pod", "p", "container app image docker.io/library/python:3.11 is not pinned by digest"),
	}
}
