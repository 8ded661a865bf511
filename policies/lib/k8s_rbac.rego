# METADATA
# title: Kubernetes RBAC helpers
# description: >-
#   What a RoleBinding or ClusterRoleBinding of the document grants, as far as the document shows
#   it: cluster-admin, a role of every verb on every resource, the built-in admin or edit or one of
#   Kubernetes' system: roles that read Secrets, create pods or tokens or reach the kubelets, across
#   namespaces or in kube-system, or a role whose grants cannot be established (not defined in the
#   document and not Kubernetes' own, or aggregated from other ClusterRoles); Kubernetes' Roles that
#   read kube-system's Secrets, bound there.
# scope: package
package lib.k8s_rbac

import data.lib.resources

# The rbac.authorization.k8s.io types of the document, in every API version the Pulumi provider
# has (v1, v1beta1, v1alpha1), whole objects and server-side patches: type -> kind without "Patch"
# and whether it is a patch.
_types := {t: [resources.kind(t), endswith(t, "Patch")] |
	some t in resources.k8s_types(input.document)
	parts := split(t, ":")
	count(parts) == 3
	startswith(parts[1], "rbac.authorization.k8s.io/")
}

# positions of the bindings, patches included (a patch that sets subjects binds them to the live
# binding's role, which it names only if it sets roleRef too)
binding_indices := {i |
	some t, k in _types
	k[0] in {"ClusterRoleBinding", "RoleBinding"}
	some i in resources.indices(t)
}

# A role is found by kind, namespace (a Role lives in its binding's namespace; a ClusterRole in
# none) and name: "ClusterRole//NAME", "Role/NAMESPACE/NAME".
_key(kind, ns, name) := concat("/", [kind, ns, name])

# key -> [position, patch] of each role object of the document
_roles[key] contains [i, k[1]] if {
	some t, k in _types
	k[0] in {"ClusterRole", "Role"}
	some i in resources.indices(t)
	r := input.document.resources[i]
	key := _key(k[0], _role_namespace(k[0], r), resources.name_of(r))
}

_role_namespace("ClusterRole", _) := ""

_role_namespace("Role", r) := resources.namespace(r)

# roles the document defines (a patch changes a role that lives outside it)
_defined contains key if {
	some key, entries in _roles
	some e in entries
	e[1] == false
}

# roles of the document (or a patch of one) with a rule of every verb on every resource of every
# API group
_every_verb contains key if {
	some key, entries in _roles
	some e in entries
	rules := object.get(input.document.resources[e[0]].inputs, "rules", [])
	is_array(rules)
	some rule in rules
	is_object(rule)
	"*" in object.get(rule, "verbs", [])
	"*" in object.get(rule, "resources", [])
	"*" in object.get(rule, "apiGroups", [""])
}

# roles of the document whose rules the document does not settle: an aggregated ClusterRole (the
# controller fills its rules from every ClusterRole its selectors match, in the document or not),
# or rules unknown until apply
_unsettled[key] := "which aggregates the rules of the ClusterRoles its labels select, in the document or not" if {
	some key, _ in _roles
	_aggregated(key)
}

_unsettled[key] := concat("; ", sort(reasons)) if {
	some key, entries in _roles
	not _aggregated(key)
	reasons := {reason | some e in entries; reason := _unsettled_rules(input.document.resources[e[0]].inputs)}
	count(reasons) > 0
}

# rules the document does not show: the list, a rule, or a rule's verbs, resources or apiGroups
# (secret, or unknown until apply: any of them may be "*")
_unsettled_rules(inputs) := sprintf("whose rules are %s", [_why(rules)]) if {
	rules := object.get(inputs, "rules", [])
	rules != null
	not is_array(rules)
} else := sprintf("a rule of which is %s", [concat(", ", whys)]) if {
	whys := sort({_why(rule) | some rule in inputs.rules; not is_object(rule)})
	count(whys) > 0
} else := sprintf("whose rules' %s", [concat(", ", parts)]) if {
	parts := sort({sprintf("%s are %s", [field, resources.hidden_why(v)]) |
		some rule in inputs.rules
		some field in ["verbs", "resources", "apiGroups"]
		some v in _hidden_parts(object.get(rule, field, []))
	})
	count(parts) > 0
}

_why(v) := resources.hidden_why(v) if resources.hidden(v) else := "unknown until apply"

_hidden_parts(v) := {v} if resources.hidden(v) else := {x | some x in v; resources.hidden(x)} if is_array(v) else := set()

_aggregated(key) if {
	some e in _roles[key]
	selectors := object.get(input.document.resources[e[0]].inputs, ["aggregationRule", "clusterRoleSelectors"], [])
	not selectors in {null, []}
}

# The ClusterRoles Kubernetes itself defines (its RBAC bootstrap policy: the user-facing roles, the
# core components' and the controller-manager's controllers' roles), whose grants are known. A
# "system:" name that is not one of them (an add-on's, another distribution's, one made by hand) is
# not trusted for its prefix: what it grants is not known.
builtin_cluster_role(name) if name in {"cluster-admin", "admin", "edit", "view"}

builtin_cluster_role(name) if name in _system_roles_without_escalation

builtin_cluster_role(name) if _system_role_escalation[name]

# Kubernetes' own system: ClusterRoles that, bound in every namespace or in kube-system, give a
# path to cluster-admin: they read Secrets (a get, list, watch or patch of them, or of every
# resource), create pods or the objects that make them (a pod runs as any service account of its
# namespace), create service-account tokens, reach the kubelets' API (which runs commands in any
# pod), rewrite roles, or write ConfigMaps (on EKS, kube-system's aws-auth maps IAM identities to
# groups, system:masters included). Name -> what it allows, for the finding.
_system_role_escalation := {
	"system:aggregate-to-edit": "reads Secrets, impersonates service accounts and creates pods, which run as any service account of their namespace",
	"system:kube-controller-manager": "reads every Secret and creates service-account tokens",
	"system:kubelet-api-admin": "reaches the kubelets' API (nodes/proxy), which runs commands in any pod",
	"system:node": "reads Secrets, creates service-account tokens and creates pods, which run as any service account of their namespace",
	"system:controller:certificate-controller": "approves kubelet client certificates and signs certificates for the cluster's signers",
	"system:controller:clusterrole-aggregation-controller": "can escalate and rewrite every ClusterRole",
	"system:controller:cronjob-controller": "creates Jobs, whose pods run as any service account of their namespace",
	"system:controller:daemon-set-controller": "creates pods, which run as any service account of their namespace",
	"system:controller:deployment-controller": "creates ReplicaSets, whose pods run as any service account of their namespace",
	"system:controller:generic-garbage-collector": "reads every Secret and updates every object",
	"system:controller:job-controller": "creates pods, which run as any service account of their namespace",
	"system:controller:namespace-controller": "reads every Secret",
	"system:controller:persistent-volume-binder": "creates pods, which run as any service account of their namespace",
	"system:controller:replicaset-controller": "creates pods, which run as any service account of their namespace",
	"system:controller:replication-controller": "creates pods, which run as any service account of their namespace",
	"system:controller:resourcequota-controller": "lists every object, Secrets included",
	"system:controller:statefulset-controller": "creates pods, which run as any service account of their namespace",
	"system:controller:legacy-service-account-token-cleaner": "patches every Secret, and a patch returns the whole Secret",
	"system:controller:root-ca-cert-publisher": "creates and updates every ConfigMap, kube-system's aws-auth included, which maps IAM identities to Kubernetes groups on EKS",
}

# Kubernetes' own system: ClusterRoles without such a path (reviews, discovery, health and metrics
# endpoints, reads of no Secret, node and volume bookkeeping, certificate requests, and signer
# approval, which needs the approval subresource none of them grants)
_system_roles_without_escalation := {
	"system:aggregate-to-admin",
	"system:aggregate-to-view",
	"system:auth-delegator",
	"system:basic-user",
	"system:certificates.k8s.io:certificatesigningrequests:nodeclient",
	"system:certificates.k8s.io:certificatesigningrequests:selfnodeclient",
	"system:certificates.k8s.io:kube-apiserver-client-approver",
	"system:certificates.k8s.io:kube-apiserver-client-kubelet-approver",
	"system:certificates.k8s.io:kubelet-serving-approver",
	"system:certificates.k8s.io:legacy-unknown-approver",
	"system:discovery",
	"system:heapster",
	"system:kube-aggregator",
	"system:kube-dns",
	"system:kube-scheduler",
	"system:monitoring",
	"system:node-bootstrapper",
	"system:node-problem-detector",
	"system:node-proxier",
	"system:persistent-volume-provisioner",
	"system:public-info-viewer",
	"system:service-account-issuer-discovery",
	"system:volume-scheduler",
	"system:controller:attachdetach-controller",
	"system:controller:device-taint-eviction-controller",
	"system:controller:disruption-controller",
	"system:controller:endpoint-controller",
	"system:controller:endpointslice-controller",
	"system:controller:endpointslicemirroring-controller",
	"system:controller:ephemeral-volume-controller",
	"system:controller:expand-controller",
	"system:controller:horizontal-pod-autoscaler",
	"system:controller:node-controller",
	"system:controller:pod-garbage-collector",
	"system:controller:pv-protection-controller",
	"system:controller:pvc-protection-controller",
	"system:controller:resource-claim-controller",
	"system:controller:route-controller",
	"system:controller:selinux-warning-controller",
	"system:controller:service-account-controller",
	"system:controller:service-cidrs-controller",
	"system:controller:service-controller",
	"system:controller:ttl-after-finished-controller",
	"system:controller:ttl-controller",
	"system:controller:validatingadmissionpolicy-status-controller",
	"system:controller:volumeattributesclass-protection-controller",
}

# [kind, name] of the role a binding names; undefined when roleRef is missing or not settled
_ref(b) := [kind, name] if {
	ref := b.inputs.roleRef
	is_object(ref)
	kind := ref.kind
	name := ref.name
	kind in {"ClusterRole", "Role"}
	is_string(name)
}

_binding_key(_, "ClusterRole", name) := _key("ClusterRole", "", name)

_binding_key(b, "Role", name) := _key("Role", resources.namespace(b), name)

# a binding whose grants reach every namespace, or kube-system (whose service accounts run the
# cluster's controllers)
_scope(b) := "in every namespace" if {
	_types[b.type][0] == "ClusterRoleBinding"
} else := "in namespace kube-system" if {
	resources.namespace(b) == "kube-system"
} else := sprintf("in a namespace unknown until apply (%v), which may be kube-system", [ns]) if {
	ns := resources.namespace(b)
	not resources.settled(ns)
}

# What a binding grants when it amounts to cluster-admin, or cannot be established; undefined
# otherwise (a role of the document without a rule of every verb on every resource, view, admin or
# edit or a system: role with a path in one ordinary namespace, the other system: roles of
# Kubernetes' own). Kubernetes' RBAC guide (user-facing roles)
# notes that edit, and so admin, can read Secrets and run pods as any service account of the
# namespaces it applies to: across every namespace, or in kube-system, that includes the
# controllers' accounts.
grant(b) := "cluster-admin" if {
	_ref(b) == ["ClusterRole", "cluster-admin"]
} else := sprintf("the %s %s, which allows every verb on every resource", [ref[0], ref[1]]) if {
	ref := _ref(b)
	key := _binding_key(b, ref[0], ref[1])
	key in _every_verb
} else := sprintf("the built-in ClusterRole %s, which aggregates the document's ClusterRole %s, which allows every verb on every resource", [ref[1], aggs[0]]) if {
	ref := _ref(b)
	ref[0] == "ClusterRole"
	aggs := sort([name | some [into, name] in _widened; into == ref[1]])
	count(aggs) > 0
	key := _binding_key(b, ref[0], ref[1])
	not key in _defined
} else := sprintf("the built-in ClusterRole %s %s, so it can run pods as any service account there (a path to cluster-admin)", [ref[1], _scope(b)]) if {
	ref := _ref(b)
	ref[0] == "ClusterRole"
	ref[1] in {"admin", "edit"}
	key := _binding_key(b, ref[0], ref[1])
	not key in _defined
} else := sprintf("the built-in ClusterRole %s %s, which %s (a path to cluster-admin)", [ref[1], _scope(b), what]) if {
	ref := _ref(b)
	ref[0] == "ClusterRole"
	what := _system_role_escalation[ref[1]]
	key := _binding_key(b, ref[0], ref[1])
	not key in _defined
} else := sprintf("the built-in Role %s of namespace kube-system, which reads the Secrets there (a path to cluster-admin)", [ref[1]]) if {
	ref := _ref(b)
	key := _binding_key(b, ref[0], ref[1])
	key in _secret_reading_roles
	not key in _defined
} else := sprintf("the %s %s, which is not defined in the document, so what it grants cannot be established", [ref[0], ref[1]]) if {
	ref := _ref(b)
	key := _binding_key(b, ref[0], ref[1])
	not _builtin_ref(ref, key)
	not key in _defined
} else := sprintf("the %s %s, %s, so what it grants cannot be established", [ref[0], ref[1], reason]) if {
	ref := _ref(b)
	reason := _unsettled[_binding_key(b, ref[0], ref[1])]
} else := sprintf("a role that cannot be established (roleRef %v)", [object.get(b.inputs, "roleRef", null)]) if {
	not _ref(b)
}

# Kubernetes' view, edit and admin aggregate the ClusterRoles labelled to join them
# (rbac.authorization.k8s.io/aggregate-to-view, -to-edit, -to-admin "true"; view itself joins edit,
# and edit admin): a ClusterRole of the document labelled so, with a rule of every verb on every
# resource, widens them to every verb. [built-in role, the document's role] of each.
_aggregated_into := {
	"view": {"aggregate-to-view"},
	"edit": {"aggregate-to-view", "aggregate-to-edit"},
	"admin": {"aggregate-to-view", "aggregate-to-edit", "aggregate-to-admin"},
}

_widened contains [into, resources.name_of(r)] if {
	some key in _every_verb
	startswith(key, "ClusterRole//")
	some e in _roles[key]
	r := input.document.resources[e[0]]
	metadata := object.get(r.inputs, "metadata", {})
	is_object(metadata)
	labels := object.get(metadata, "labels", {})
	is_object(labels)
	some into, joins in _aggregated_into
	some label in joins
	object.get(labels, concat("/", ["rbac.authorization.k8s.io", label]), null) == "true"
}

_builtin_ref(ref, _) if {
	ref[0] == "ClusterRole"
	builtin_cluster_role(ref[1])
}

_builtin_ref(_, key) if key in _builtin_roles

# The Roles Kubernetes itself defines in kube-system and kube-public (its RBAC bootstrap policy), by
# key: the two that read kube-system's Secrets (bootstrap tokens, and service-account token
# Secrets), and those that read one ConfigMap or manage leases. Extension API servers (the metrics
# server, custom-metrics adapters) bind extension-apiserver-authentication-reader.
_secret_reading_roles := {
	"Role/kube-system/system:controller:bootstrap-signer",
	"Role/kube-system/system:controller:token-cleaner",
}

_builtin_roles := _secret_reading_roles | {
	"Role/kube-system/extension-apiserver-authentication-reader",
	"Role/kube-system/system::leader-locking-kube-controller-manager",
	"Role/kube-system/system::leader-locking-kube-scheduler",
	"Role/kube-system/system:controller:cloud-provider",
	"Role/kube-public/system:controller:bootstrap-signer",
}
