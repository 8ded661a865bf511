package gdpr.workload_isolation_test

import data.gdpr.workload_isolation
import data.lib.fixtures

_f(type, name, msg) := fixtures.finding("GDPR-32.1b-2", "mandatory", type, name, msg)

_deployment(name, ns, security_context) := fixtures.resource("kubernetes:apps/v1:Deployment", name, {
	"metadata": {"name": name, "namespace": ns},
	"spec": {"replicas": 2, "template": {"spec": {"containers": [{"name": "app", "image": "nvcr.io/x@sha256:0", "securityContext": security_context}]}}},
})

_safe := {"privileged": false, "allowPrivilegeEscalation": false, "runAsNonRoot": true}

pass_resources := [
	fixtures.namespace("inference", "personal"),
	fixtures.deny_all("inference"),
	_deployment("api", "inference", _safe),
	fixtures.resource("kubernetes:core/v1:ConfigMap", "cfg", {"metadata": {"namespace": "inference"}, "data": {"config.yaml": "a: 1"}}),
]

fail_resources := [
	fixtures.namespace("inference", "personal"),
	_deployment("api", "inference", {"privileged": true}),
	fixtures.resource("kubernetes:core/v1:ConfigMap", "cfg", {"metadata": {"namespace": "inference"}, "data": {"DB_PASSWORD": "hunter2"}}),
]

test_pass_isolated_namespace if {
	v := workload_isolation.violation with input as fixtures.gate_input(fixtures.gdpr_policy, pass_resources)
	v == set()
}

test_fail_open_namespace_privileged_pod_and_credentials if {
	v := workload_isolation.violation with input as fixtures.gate_input(fixtures.gdpr_policy, fail_resources)
	v == {
		_f("kubernetes:core/v1:Namespace", "inference", "personal-data namespace has no default-deny NetworkPolicy"),
		_f("kubernetes:apps/v1:Deployment", "api", "container app: runs privileged"),
		_f("kubernetes:apps/v1:Deployment", "api", "container app: allows privilege escalation"),
		_f("kubernetes:apps/v1:Deployment", "api", "container app: may run as root (runAsNonRoot not true)"),
		_f("kubernetes:core/v1:ConfigMap", "cfg", "ConfigMap key \"DB_PASSWORD\" looks like a credential (use a Secret)"),
	}
}

# audit A11: a personal-data ReplicaSet (and ReplicationController) is a workload
test_fail_privileged_replica_set if {
	rs := fixtures.resource("kubernetes:apps/v1:ReplicaSet", "rs", {
		"metadata": {"name": "rs", "namespace": "scratch", "labels": fixtures.labels("personal")},
		"spec": {"template": {"spec": {"containers": [{"name": "app", "image": "x", "securityContext": {"privileged": true, "allowPrivilegeEscalation": false, "runAsNonRoot": true}}]}}},
	})
	rc := fixtures.resource("kubernetes:core/v1:ReplicationController", "rc", {
		"metadata": {"name": "rc", "namespace": "scratch", "labels": fixtures.labels("personal")},
		"spec": {"template": {"spec": {"containers": [{"name": "app", "image": "x", "securityContext": {"allowPrivilegeEscalation": false}}]}}},
	})
	v := workload_isolation.violation with input as fixtures.gate_input(fixtures.gdpr_policy, [rs, rc])
	v == {
		_f("kubernetes:apps/v1:ReplicaSet", "rs", "container app: runs privileged"),
		_f("kubernetes:core/v1:ReplicationController", "rc", "container app: may run as root (runAsNonRoot not true)"),
	}
}

test_fail_added_capabilities if {
	caps := object.union(_safe, {"capabilities": {"drop": ["ALL"], "add": ["SYS_ADMIN", "net_bind_service", "NET_ADMIN"]}})
	bind_only := object.union(_safe, {"capabilities": {"drop": ["ALL"], "add": ["NET_BIND_SERVICE"]}})
	resources := array.concat(pass_resources, [_deployment("caps", "inference", caps), _deployment("web", "inference", bind_only)])
	v := workload_isolation.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == {_f("kubernetes:apps/v1:Deployment", "caps", "container app: adds capabilities NET_ADMIN, SYS_ADMIN (only NET_BIND_SERVICE may be added)")}
}

# pods of other API versions and of server-side patches are workloads too
test_fail_privileged_pods_in_older_versions_and_patches if {
	container := {"name": "app", "image": "nvcr.io/x@sha256:0", "securityContext": object.union(_safe, {"privileged": true})}
	cron := fixtures.resource("kubernetes:batch/v1beta1:CronJob", "nightly", {
		"metadata": {"name": "nightly", "namespace": "inference"},
		"spec": {"jobTemplate": {"spec": {"template": {"spec": {"containers": [container]}}}}},
	})
	patch := fixtures.resource("kubernetes:apps/v1:DeploymentPatch", "api-patch", {
		"metadata": {"name": "api", "namespace": "inference"},
		"spec": {"template": {"spec": {"containers": [container]}}},
	})
	v := workload_isolation.violation with input as fixtures.gate_input(fixtures.gdpr_policy, array.concat(pass_resources, [cron, patch]))
	v == {
		_f("kubernetes:batch/v1beta1:CronJob", "nightly", "container app: runs privileged"),
		_f("kubernetes:apps/v1:DeploymentPatch", "api-patch", "container app: runs privileged"),
	}
}

# a workload without metadata.namespace lands in its Kubernetes provider's namespace
test_fail_privileged_pod_placed_by_the_provider_namespace if {
	provider := fixtures.resource("pulumi:providers:kubernetes", "k8s", {"namespace": "inference"})
	deploy := object.union(fixtures.resource("kubernetes:apps/v1:Deployment", "api2", {
		"metadata": {"name": "api2"},
		"spec": {"replicas": 2, "template": {"spec": {"containers": [{"name": "app", "image": "nvcr.io/x@sha256:0", "securityContext": {"privileged": true}}]}}},
	}), {"provider": sprintf("%s::0b1c2d3e", [provider.urn])})
	v := workload_isolation.violation with input as fixtures.gate_input(fixtures.gdpr_policy, array.concat(pass_resources, [provider, deploy]))
	v == {
		_f("kubernetes:apps/v1:Deployment", "api2", "container app: runs privileged"),
		_f("kubernetes:apps/v1:Deployment", "api2", "container app: allows privilege escalation"),
		_f("kubernetes:apps/v1:Deployment", "api2", "container app: may run as root (runAsNonRoot not true)"),
	}
}

# NetworkPolicies add up: a personal-data namespace's default deny is void for the pods a policy
# opens to every source on every port (an empty rule; every namespace's pods). Not reported by this
# control: the same in an internal-data namespace (MLPS-L3-8.1.3.2a reports it), and narrow rules.
_isolation_np(name, ns, labels, spec) := fixtures.resource("kubernetes:networking.k8s.io/v1:NetworkPolicy", name, {
	"metadata": {"name": name, "namespace": ns, "labels": labels},
	"spec": spec,
})

test_fail_personal_namespace_opened_beside_its_default_deny if {
	resources := array.concat(pass_resources, [
		fixtures.namespace("scratch", "internal"),
		fixtures.deny_all("scratch"),
		_isolation_np("open", "inference", {}, {"podSelector": {}, "policyTypes": ["Ingress"], "ingress": [{}]}),
		_isolation_np("from-cluster", "inference", {}, {"podSelector": {"matchLabels": {"app": "api"}}, "ingress": [{"from": [{"namespaceSelector": {}, "podSelector": {}}]}]}),
		_isolation_np("scratch-open", "scratch", {}, {"podSelector": {}, "ingress": [{}]}),
		# red team: every namespace carries kubernetes.io/metadata.name, so asking that it exist selects all
		_isolation_np("any-named", "inference", {}, {"podSelector": {}, "ingress": [{"from": [{"namespaceSelector": {"matchExpressions": [{"key": "kubernetes.io/metadata.name", "operator": "Exists"}]}}]}]}),
		# red team: a selector that only rules namespaces out selects every other one, and port ranges
		# that together span every port are every port
		_isolation_np("not-blocked", "inference", {}, {"podSelector": {}, "ingress": [{"from": [{"namespaceSelector": {"matchExpressions": [{"key": "blocked", "operator": "DoesNotExist"}]}}]}]}),
		_isolation_np("split-ports", "inference", {}, {"podSelector": {}, "ingress": [{"from": [{"namespaceSelector": {}}], "ports": [{"port": 1, "endPort": 32767}, {"port": 32768, "endPort": 65535}]}]}),
		_isolation_np("gap-ports", "inference", {}, {"podSelector": {}, "ingress": [{"from": [{"namespaceSelector": {}}], "ports": [{"port": 1, "endPort": 32766}, {"port": 32768, "endPort": 65535}]}]}),
		_isolation_np("udp-half", "inference", {}, {"podSelector": {}, "ingress": [{"from": [{"namespaceSelector": {}}], "ports": [{"port": 1, "endPort": 32767}, {"protocol": "UDP", "port": 32768, "endPort": 65535}]}]}),
		# a policy labelled personal counts wherever it lives
		_isolation_np("labelled-open", "scratch", fixtures.labels("personal"), {"podSelector": {}, "ingress": [{"from": [{"ipBlock": {"cidr": "0.0.0.0/0"}}]}]}),
	])
	v := workload_isolation.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == {
		_f("kubernetes:networking.k8s.io/v1:NetworkPolicy", "open", "NetworkPolicy admits every source (an ingress rule without from) to every pod of namespace inference on every port, which voids a default-deny ingress there"),
		_f("kubernetes:networking.k8s.io/v1:NetworkPolicy", "from-cluster", "NetworkPolicy admits every pod of every namespace (namespaceSelector {}) to the pods it selects in namespace inference on every port, which voids a default-deny ingress there"),
		_f("kubernetes:networking.k8s.io/v1:NetworkPolicy", "labelled-open", "NetworkPolicy admits the internet (ipBlock 0.0.0.0/0) to every pod of namespace scratch on every port, which voids a default-deny ingress there"),
		_f("kubernetes:networking.k8s.io/v1:NetworkPolicy", "any-named", "NetworkPolicy admits every pod of every namespace (namespaceSelector {}) to every pod of namespace inference on every port, which voids a default-deny ingress there"),
		_f("kubernetes:networking.k8s.io/v1:NetworkPolicy", "not-blocked", "NetworkPolicy admits every pod of every namespace (namespaceSelector {}) to every pod of namespace inference on every port, which voids a default-deny ingress there"),
		_f("kubernetes:networking.k8s.io/v1:NetworkPolicy", "split-ports", "NetworkPolicy admits every pod of every namespace (namespaceSelector {}) to every pod of namespace inference on every port (port ranges that together span them all), which voids a default-deny ingress there"),
	}
}

test_pass_personal_namespace_with_narrow_allow_rules if {
	resources := array.concat(pass_resources, [
		_isolation_np("from-gateway", "inference", {}, {
			"podSelector": {"matchLabels": {"app": "api"}},
			"ingress": [{
				"from": [{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "gateway"}}}],
				"ports": [{"protocol": "TCP", "port": 8080}],
			}],
		}),
		_isolation_np("internet-https", "inference", {}, {"podSelector": {"matchLabels": {"app": "api"}}, "ingress": [{"ports": [{"port": 443}]}]}),
	])
	v := workload_isolation.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == set()
}

# a network policy of another engine that the gate does not read (lib.network): reported in a
# personal-data namespace, and a cluster-wide one, which reaches it from anywhere; not one in an
# internal-data namespace (MLPS-L3-8.1.3.2a reports it)
test_fail_network_policies_of_other_engines_reaching_personal_namespaces if {
	resources := array.concat(pass_resources, [
		fixtures.namespace("scratch", "internal"),
		fixtures.deny_all("scratch"),
		fixtures.resource("kubernetes:cilium.io/v2:CiliumNetworkPolicy", "in-personal", {
			"metadata": {"name": "in-personal", "namespace": "inference"},
			"spec": {"endpointSelector": {}, "ingress": [{"fromEntities": ["all"]}]},
		}),
		fixtures.resource("kubernetes:cilium.io/v2:CiliumClusterwideNetworkPolicy", "everywhere", {
			"metadata": {"name": "everywhere"},
			"spec": {"endpointSelector": {}, "ingress": [{"fromCIDR": ["0.0.0.0/0"]}]},
		}),
		fixtures.resource("kubernetes:cilium.io/v2:CiliumNetworkPolicy", "in-scratch", {
			"metadata": {"name": "in-scratch", "namespace": "scratch"},
			"spec": {"endpointSelector": {}, "ingress": [{"fromEntities": ["all"]}]},
		}),
	])
	v := workload_isolation.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == {
		_f("kubernetes:cilium.io/v2:CiliumNetworkPolicy", "in-personal", "CiliumNetworkPolicy (cilium.io/v2) is a network policy of another engine, which the gate does not read: whether it admits traffic that voids a default-deny ingress cannot be established"),
		_f("kubernetes:cilium.io/v2:CiliumClusterwideNetworkPolicy", "everywhere", "CiliumClusterwideNetworkPolicy (cilium.io/v2) is a network policy of another engine, which the gate does not read: whether it admits traffic that voids a default-deny ingress cannot be established"),
	}
}

# a policy whose namespace is unknown until apply may be in a personal-data namespace
test_fail_open_policy_in_a_namespace_unknown_until_apply if {
	resources := array.concat(pass_resources, [
		fixtures.resource("kubernetes:cilium.io/v2:CiliumNetworkPolicy", "somewhere", {
			"metadata": {"name": "somewhere", "namespace": "[unknown]"},
			"spec": {"endpointSelector": {}, "ingress": [{"fromEntities": ["world"]}]},
		}),
		_isolation_np("np-somewhere", "[unknown]", {}, {"podSelector": {}, "ingress": [{}]}),
	])
	v := workload_isolation.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == {
		_f("kubernetes:cilium.io/v2:CiliumNetworkPolicy", "somewhere", "CiliumNetworkPolicy (cilium.io/v2) is a network policy of another engine, which the gate does not read: whether it admits traffic that voids a default-deny ingress cannot be established"),
		_f("kubernetes:networking.k8s.io/v1:NetworkPolicy", "np-somewhere", "NetworkPolicy admits every source (an ingress rule without from) to every pod of namespace [unknown] on every port, which voids a default-deny ingress there"),
	}
}

# a cluster-wide template (a SidecarSet, a cluster runtime) runs its containers in the namespaces
# that use it: where a namespace holds personal data, it is judged as a personal workload
test_fail_cluster_wide_templates_where_personal_data_is_held if {
	sidecars := fixtures.resource("kubernetes:apps.kruise.io/v1alpha1:SidecarSet", "log", {"metadata": {"name": "log"}, "spec": {"containers": [{"name": "log", "image": "x", "securityContext": {"privileged": true, "allowPrivilegeEscalation": false, "runAsNonRoot": true}}]}})
	v := workload_isolation.violation with input as fixtures.gate_input(fixtures.gdpr_policy, array.concat(pass_resources, [sidecars]))
	v == {_f("kubernetes:apps.kruise.io/v1alpha1:SidecarSet", "log", "container log: runs privileged")}
	# with no personal namespace in the document, it is not
	none := workload_isolation.violation with input as fixtures.gate_input(fixtures.gdpr_policy, [sidecars])
	none == set()
}
