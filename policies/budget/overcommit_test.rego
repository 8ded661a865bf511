package budget.overcommit_test

import data.budget.overcommit
import data.lib.fixtures

_f(type, name, msg) := fixtures.finding("BUDGET-OVERCOMMIT-1", "mandatory", type, name, msg)

_deploy(name, requests, limits) := fixtures.resource("kubernetes:apps/v1:Deployment", name, {
	"metadata": {"name": name, "namespace": "inference"},
	"spec": {"replicas": 2, "template": {"spec": {"containers": [{"name": "app", "image": "x", "resources": {"requests": requests, "limits": limits}}]}}},
})

pass_resources := [
	_deploy("api", {"cpu": "1", "memory": "2Gi"}, {"cpu": "1500m", "memory": "3Gi"}),
	fixtures.resource("kubernetes:core/v1:LimitRange", "lr", {"metadata": {"namespace": "inference"}, "spec": {"limits": [{"type": "Container", "maxLimitRequestRatio": {"cpu": "1.5"}}]}}),
]

fail_resources := [
	_deploy("api", {"cpu": "500m", "memory": "1Gi"}, {"cpu": "2", "memory": "1Gi"}),
	fixtures.resource("kubernetes:core/v1:LimitRange", "lr", {"metadata": {"namespace": "inference"}, "spec": {"limits": [{"type": "Container", "maxLimitRequestRatio": {"memory": "4"}}]}}),
]

test_pass_within_cap if {
	v := overcommit.violation with input as fixtures.gate_input(fixtures.no_framework_policy, pass_resources)
	v == set()
}

test_fail_above_cap if {
	v := overcommit.violation with input as fixtures.gate_input(fixtures.no_framework_policy, fail_resources)
	v == {
		_f("kubernetes:apps/v1:Deployment", "api", "container app overcommits cpu 4.00x (limit/request); the cap is 1.50x"),
		_f("kubernetes:core/v1:LimitRange", "lr", "LimitRange allows memory overcommit of 4.00x; the cap is 1.50x"),
	}
}

# a quantity that is not one ("[unknown]" in a preview, a typo) is not compared, and is no error
test_pass_unparsable_quantities_are_skipped if {
	resources := [_deploy("api", {"cpu": "[unknown]", "memory": "1Gi"}, {"cpu": "2", "memory": "lots"})]
	v := overcommit.violation with input as fixtures.gate_input(fixtures.no_framework_policy, resources)
	v == set()
}
