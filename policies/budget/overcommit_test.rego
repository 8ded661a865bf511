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

# a typo that is no quantity is not compared (Kubernetes refuses it at apply); a value unknown until
# apply is reported: the ratio cannot be established
test_fail_unknown_quantities_are_reported_and_typos_skipped if {
	resources := [_deploy("api", {"cpu": "[unknown]", "memory": "1Gi"}, {"cpu": "2", "memory": "lots"})]
	v := overcommit.violation with input as fixtures.gate_input(fixtures.no_framework_policy, resources)
	v == {_f("kubernetes:apps/v1:Deployment", "api", "container app: its cpu limit or request is unknown until apply, so its overcommit cannot be checked against the cap")}
}

_pod(type, name, namespace, spec) := fixtures.resource(type, name, {"metadata": {"name": name, "namespace": namespace}, "spec": spec})

_limit_range(name, namespace, items) := fixtures.resource("kubernetes:core/v1:LimitRange", name, {"metadata": {"name": name, "namespace": namespace}, "spec": {"limits": items}})

_container(name, resources) := {"name": name, "image": "x", "resources": resources}

# Kubernetes fills in what a container leaves out from its namespace's LimitRange: the default limit
# (else the max) and the default request (else that default limit, else the min); a request left
# out with a limit given is the limit
test_fail_limit_range_defaults_above_cap if {
	defaults := _limit_range("defaults", "inference", [{"type": "Container", "default": {"cpu": "2"}, "defaultRequest": {"cpu": "500m"}, "max": {"memory": "8Gi"}}])
	pod := _pod("kubernetes:core/v1:Pod", "serve", "inference", {"containers": [
		_container("nothing", {}), # cpu 500m -> 2; memory: limit 8Gi (the max), request 8Gi (that limit)
		_container("request-only", {"requests": {"memory": "1Gi"}}), # memory limit 8Gi (the max)
		_container("limit-only", {"limits": {"cpu": "4", "memory": "1Gi"}}), # requests are the limits
	]})
	v := overcommit.violation with input as fixtures.gate_input(fixtures.no_framework_policy, [defaults, pod])
	v == {
		_f("kubernetes:core/v1:Pod", "serve", "container nothing overcommits cpu 4.00x (limit/request with the LimitRange's default limit); the cap is 1.50x"),
		_f("kubernetes:core/v1:Pod", "serve", "container request-only overcommits cpu 4.00x (limit/request with the LimitRange's default limit); the cap is 1.50x"),
		_f("kubernetes:core/v1:Pod", "serve", "container request-only overcommits memory 8.00x (limit/request with the LimitRange's default limit); the cap is 1.50x"),
	}
}

# a container with no limit, where nothing gives or demands one, is bounded by nothing; a
# maxLimitRequestRatio makes Kubernetes refuse it, and a pod-level limit bounds it
test_fail_containers_without_limits if {
	bounded := _limit_range("ratio", "bounded", [{"type": "Container", "maxLimitRequestRatio": {"cpu": "1"}}])
	open := _pod("kubernetes:apps/v1:Deployment", "open", "batch", {"template": {"spec": {"containers": [_container("app", {"requests": {"cpu": "1"}})]}}})
	half := _pod("kubernetes:apps/v1:Deployment", "half", "bounded", {"template": {"spec": {"containers": [_container("app", {"requests": {"cpu": "1", "memory": "1Gi"}})]}}})
	pod_level := _pod("kubernetes:core/v1:Pod", "pod-level", "batch", {
		"resources": {"limits": {"cpu": "2", "memory": "2Gi"}},
		"containers": [_container("app", {"requests": {"cpu": "1"}})],
	})
	v := overcommit.violation with input as fixtures.gate_input(fixtures.no_framework_policy, [bounded, open, half, pod_level])
	v == {
		_f("kubernetes:apps/v1:Deployment", "open", "container app sets no cpu limit and no LimitRange of namespace batch gives one: it may use all the spare cpu of its node, which no overcommit cap (1.50x) bounds"),
		_f("kubernetes:apps/v1:Deployment", "open", "container app sets no memory limit and no LimitRange of namespace batch gives one: it may use all the spare memory of its node, which no overcommit cap (1.50x) bounds"),
		_f("kubernetes:apps/v1:Deployment", "half", "container app sets no memory limit and no LimitRange of namespace bounded gives one: it may use all the spare memory of its node, which no overcommit cap (1.50x) bounds"),
	}
}

# the pods of AI workload custom resources, and the defaults of a patched LimitRange, count too
test_fail_training_job_with_patched_limit_range_defaults if {
	patch := fixtures.resource("kubernetes:core/v1:LimitRangePatch", "defaults", {"metadata": {"name": "defaults", "namespace": "train"}, "spec": {"limits": [
		{"type": "Container", "default": {"cpu": "8", "memory": "64Gi"}, "defaultRequest": {"cpu": "8", "memory": "16Gi"}},
	]}})
	job := _pod("kubernetes:kubeflow.org/v1:PyTorchJob", "ft", "train", {"pytorchReplicaSpecs": {
		"Master": {"template": {"spec": {"containers": [_container("pytorch", {"limits": {"cpu": "8", "memory": "64Gi", "nvidia.com/gpu": 8}})]}}},
		"Worker": {"template": {"spec": {"containers": [_container("pytorch", {"limits": {"nvidia.com/gpu": 8}})]}}},
	}})
	v := overcommit.violation with input as fixtures.gate_input(fixtures.no_framework_policy, [patch, job])
	v == {_f("kubernetes:kubeflow.org/v1:PyTorchJob", "ft", "container Worker/pytorch overcommits memory 4.00x (limit/request with the LimitRange's default limit); the cap is 1.50x")}
}

# Seedance's fleet namespaces: a maxLimitRequestRatio at the cap for both resources admits no
# container without limits, and the limits it admits are within the cap
test_pass_fleet_namespace_limit_range if {
	lr := _limit_range("overcommit-cap", "batch-embed", [{"type": "Container", "maxLimitRequestRatio": {"cpu": "1500m", "memory": "1500m"}}])
	job := _pod("kubernetes:batch/v1:Job", "embed", "batch-embed", {"template": {"spec": {"containers": [_container("embed", {"requests": {"cpu": "2"}})]}}})
	v := overcommit.violation with input as fixtures.gate_input(fixtures.no_framework_policy, [lr, job])
	v == set()
}

# LimitRanger as Kubernetes runs it: a Pod item's ratio compares the pod's summed limits and
# requests, so it refuses no single container without a limit; two LimitRanges' defaults are not
# mixed (the first one applied fills both); a request of 0 under a limit, a default or a ratio
# unknown until apply are reported, and an unknown ratio bounds nothing
test_fail_limit_range_semantics if {
	pod_ratio := _limit_range("pod-ratio", "pods", [{"type": "Pod", "maxLimitRequestRatio": {"cpu": "1", "memory": "1"}}])
	open := _pod("kubernetes:core/v1:Pod", "open", "pods", {"containers": [
		_container("a", {"limits": {"cpu": "1", "memory": "1Gi"}, "requests": {"cpu": "1", "memory": "1Gi"}}),
		_container("b", {"requests": {"cpu": "1", "memory": "1Gi"}, "limits": {"memory": "1Gi"}}),
	]})
	two := [
		_limit_range("big", "two", [{"type": "Container", "default": {"cpu": "2", "memory": "2Gi"}, "defaultRequest": {"cpu": "2", "memory": "2Gi"}}]),
		_limit_range("small", "two", [{"type": "Container", "default": {"cpu": "1", "memory": "1Gi"}, "defaultRequest": {"cpu": "1", "memory": "1Gi"}}]),
	]
	consistent := _pod("kubernetes:core/v1:Pod", "consistent", "two", {"containers": [_container("a", {})]})
	zero := _pod("kubernetes:core/v1:Pod", "zero", "two", {"containers": [_container("z", {"limits": {"cpu": "8", "memory": "1Gi"}, "requests": {"cpu": "0", "memory": "1Gi"}})]})
	unknown := _limit_range("unknown", "u", [{"type": "Container", "default": {"cpu": "[unknown]", "memory": "1Gi"}, "maxLimitRequestRatio": {"memory": "[unknown]"}}])
	in_unknown := _pod("kubernetes:core/v1:Pod", "in-unknown", "u", {"containers": [_container("u", {"requests": {"cpu": "1", "memory": "1Gi"}})]})
	v := overcommit.violation with input as fixtures.gate_input(fixtures.no_framework_policy, array.concat(two, [pod_ratio, open, consistent, zero, unknown, in_unknown]))
	v == {
		_f("kubernetes:core/v1:Pod", "open", "container b sets no cpu limit and no LimitRange of namespace pods gives one: it may use all the spare cpu of its node, which no overcommit cap (1.50x) bounds"),
		_f("kubernetes:core/v1:Pod", "zero", "container z requests no cpu (0) under a limit of 8: no overcommit cap (1.50x) bounds it"),
		_f("kubernetes:core/v1:Pod", "in-unknown", "container u: its cpu limit or request is unknown until apply, so its overcommit cannot be checked against the cap"),
		_f("kubernetes:core/v1:LimitRange", "unknown", "LimitRange's memory maxLimitRequestRatio is unknown until apply, so the overcommit it allows cannot be checked against the cap"),
	}
}

# a cluster-wide runtime's pods run in the namespaces of the jobs that use it: no LimitRange of the
# document is known to apply, and its containers are judged on their own limits
test_fail_cluster_wide_runtime_judged_on_its_own_limits if {
	lr := _limit_range("defaults", "default", [{"type": "Container", "default": {"cpu": "1", "memory": "1Gi"}, "defaultRequest": {"cpu": "1", "memory": "1Gi"}}])
	runtime := fixtures.resource("kubernetes:trainer.kubeflow.org/v1alpha1:ClusterTrainingRuntime", "torch", {"metadata": {"name": "torch"}, "spec": {"template": {"spec": {"replicatedJobs": [
		{"name": "node", "template": {"spec": {"template": {"spec": {"containers": [_container("node", {"limits": {"memory": "1Gi"}})]}}}}},
	]}}}})
	v := overcommit.violation with input as fixtures.gate_input(fixtures.no_framework_policy, [lr, runtime])
	v == {_f("kubernetes:trainer.kubeflow.org/v1alpha1:ClusterTrainingRuntime", "torch", "container replicatedJobs.node/node sets no cpu limit and no LimitRange is known to apply (its pods run in the namespaces that use it): it may use all the spare cpu of its node, which no overcommit cap (1.50x) bounds")}
}

# resources, or a whole requests or limits list, unknown until apply: the ratio cannot be
# established (a default or the limit must not stand in for it); a LimitRange whose ratio list or
# limits are unknown until apply is reported
test_fail_whole_resource_lists_unknown_until_apply if {
	lr := _limit_range("defaults", "inference", [{"type": "Container", "default": {"cpu": "1", "memory": "1Gi"}, "maxLimitRequestRatio": "[unknown]"}])
	blind := _limit_range("blind", "other", "[unknown]")
	pod := _pod("kubernetes:core/v1:Pod", "serve", "inference", {"containers": [
		_container("requests", {"limits": {"cpu": "8", "memory": "8Gi"}, "requests": "[unknown]"}),
		{"name": "all", "image": "x", "resources": "[unknown]"},
	]})
	v := overcommit.violation with input as fixtures.gate_input(fixtures.no_framework_policy, [lr, blind, pod])
	v == {
		_f("kubernetes:core/v1:Pod", "serve", "container requests: its cpu limit or request is unknown until apply, so its overcommit cannot be checked against the cap"),
		_f("kubernetes:core/v1:Pod", "serve", "container requests: its memory limit or request is unknown until apply, so its overcommit cannot be checked against the cap"),
		_f("kubernetes:core/v1:Pod", "serve", "container all: its cpu limit or request is unknown until apply, so its overcommit cannot be checked against the cap"),
		_f("kubernetes:core/v1:Pod", "serve", "container all: its memory limit or request is unknown until apply, so its overcommit cannot be checked against the cap"),
		_f("kubernetes:core/v1:LimitRange", "defaults", "LimitRange's maxLimitRequestRatio is unknown until apply, so the overcommit it allows cannot be checked against the cap"),
		_f("kubernetes:core/v1:LimitRange", "blind", "LimitRange's limits are unknown until apply, so the defaults and ratios it sets cannot be checked against the cap"),
	}
}
