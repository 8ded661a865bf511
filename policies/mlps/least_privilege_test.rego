package mlps.least_privilege_test

import data.mlps.least_privilege
import data.lib.fixtures

_f(type, name, msg) := fixtures.finding("MLPS-L3-8.1.4.2d", "mandatory", type, name, msg)

_crb(name, role) := fixtures.resource("kubernetes:rbac.authorization.k8s.io/v1:ClusterRoleBinding", name, {
	"roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": role},
	"subjects": [{"kind": "ServiceAccount", "name": "trainer", "namespace": "train"}],
})

pass_resources := [
	_crb("view", "view"),
	fixtures.resource("kubernetes:core/v1:ServiceAccount", "trainer", {"metadata": {"namespace": "train"}, "automountServiceAccountToken": false}),
]

fail_resources := [
	_crb("admin", "cluster-admin"),
	fixtures.resource("kubernetes:core/v1:ServiceAccount", "trainer", {"metadata": {"namespace": "train"}}),
	fixtures.resource("aws:iam/rolePolicy:RolePolicy", "god", {"role": "r", "policy": json.marshal({"Statement": [{"Effect": "Allow", "Action": "*:*", "Resource": "*"}]})}),
]

test_pass_narrow_rights if {
	v := least_privilege.violation with input as fixtures.gate_input(fixtures.mlps_policy, pass_resources)
	v == set()
}

test_fail_broad_rights if {
	v := least_privilege.violation with input as fixtures.gate_input(fixtures.mlps_policy, fail_resources)
	v == {
		_f("kubernetes:rbac.authorization.k8s.io/v1:ClusterRoleBinding", "admin", "binding gives service account trainer cluster-admin"),
		_f("kubernetes:core/v1:ServiceAccount", "trainer", "service account mounts its API token by default (automountServiceAccountToken not false)"),
		_f("aws:iam/rolePolicy:RolePolicy", "god", "IAM policy allows Action \"*\" on Resource \"*\""),
	}
}

# audit A1: AdministratorAccess attached to a role
test_fail_admin_policy_attachment if {
	attachment := fixtures.resource("aws:iam/rolePolicyAttachment:RolePolicyAttachment", "admin", {"policyArn": "arn:aws-cn:iam::aws:policy/AdministratorAccess", "role": "ops"})
	v := least_privilege.violation with input as fixtures.gate_input(fixtures.mlps_policy, [attachment])
	v == {fixtures.finding("MLPS-L3-8.1.4.2d", "mandatory", "aws:iam/rolePolicyAttachment:RolePolicyAttachment", "admin", "attaches the AWS-managed policy AdministratorAccess, which allows Action \"*\" on Resource \"*\"")}
}

# audit D: cluster-admin bound to a group that holds service accounts
_group_binding(name, role, groups) := fixtures.resource("kubernetes:rbac.authorization.k8s.io/v1:ClusterRoleBinding", name, {
	"roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": role},
	"subjects": [{"kind": "Group", "apiGroup": "rbac.authorization.k8s.io", "name": g} | some g in groups],
})

test_fail_cluster_admin_to_service_account_groups if {
	resources := [_group_binding("all-sa", "cluster-admin", ["system:serviceaccounts", "system:serviceaccounts:train", "system:authenticated"])]
	v := least_privilege.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == {
		_f("kubernetes:rbac.authorization.k8s.io/v1:ClusterRoleBinding", "all-sa", "binding gives the group system:serviceaccounts, which holds service accounts, cluster-admin"),
		_f("kubernetes:rbac.authorization.k8s.io/v1:ClusterRoleBinding", "all-sa", "binding gives the group system:serviceaccounts:train, which holds service accounts, cluster-admin"),
		_f("kubernetes:rbac.authorization.k8s.io/v1:ClusterRoleBinding", "all-sa", "binding gives the group system:authenticated, which holds service accounts, cluster-admin"),
	}
}

test_pass_cluster_admin_to_human_group_and_view_to_service_accounts if {
	resources := [
		_group_binding("admins", "cluster-admin", ["platform-admins"]),
		_group_binding("sa-view", "view", ["system:serviceaccounts"]),
	]
	v := least_privilege.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == set()
}

# a role of the document that allows every verb on every resource is cluster-admin by another name
_role(name, rules) := fixtures.resource("kubernetes:rbac.authorization.k8s.io/v1:ClusterRole", name, {"metadata": {"name": name}, "rules": rules})

test_fail_custom_admin_role if {
	resources := [
		_role("deployer", [{"apiGroups": ["*"], "resources": ["*"], "verbs": ["*"]}]),
		_role("reader", [{"apiGroups": ["*"], "resources": ["*"], "verbs": ["get", "list"]}]),
		_crb("deploy", "deployer"),
		_crb("read", "reader"),
	]
	v := least_privilege.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == {_f(
		"kubernetes:rbac.authorization.k8s.io/v1:ClusterRoleBinding", "deploy",
		"binding gives service account trainer the ClusterRole deployer, which allows every verb on every resource",
	)}
}

_pod_deploy(name, spec) := fixtures.resource("kubernetes:apps/v1:Deployment", name, {
	"metadata": {"name": name, "namespace": "train"},
	"spec": {"template": {"spec": object.union({"containers": [{"name": "app", "image": "nvcr.io/x@sha256:0"}]}, spec)}},
})

test_pods_that_mount_a_service_account_token if {
	resources := [
		fixtures.resource("kubernetes:core/v1:ServiceAccount", "trainer", {"metadata": {"name": "trainer", "namespace": "train"}, "automountServiceAccountToken": false}),
		_pod_deploy("quiet", {"serviceAccountName": "trainer"}),
		_pod_deploy("off", {"automountServiceAccountToken": false}),
		_pod_deploy("default-account", {}),
		_pod_deploy("forced", {"serviceAccountName": "trainer", "automountServiceAccountToken": true}),
		_pod_deploy("unknown", {"serviceAccountName": "trainer", "automountServiceAccountToken": "[unknown]"}),
	]
	v := least_privilege.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == {
		_f("kubernetes:apps/v1:Deployment", "default-account", "pods mount the API token of service account default (automountServiceAccountToken not false on the pod or the account)"),
		_f("kubernetes:apps/v1:Deployment", "forced", "pods mount the API token of service account trainer (automountServiceAccountToken not false on the pod or the account)"),
		_f("kubernetes:apps/v1:Deployment", "unknown", "pods mount the API token of service account trainer (automountServiceAccountToken not false on the pod or the account)"),
	}
}

# A binding to a role the document does not define: what it grants cannot be established, so it is
# reported (fail closed) unless the role is one of Kubernetes' own (view, system:...). The same for a
# RoleBinding's Role (looked up in the binding's namespace), a binding of another API version, a
# patch that sets no roleRef, and an aggregated ClusterRole (its rules come from other roles).
_rb(name, ns, kind, role) := fixtures.resource("kubernetes:rbac.authorization.k8s.io/v1:RoleBinding", name, {
	"metadata": {"name": name, "namespace": ns},
	"roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": kind, "name": role},
	"subjects": [{"kind": "ServiceAccount", "name": "trainer", "namespace": ns}],
})

_ns_role(name, ns, rules) := fixtures.resource("kubernetes:rbac.authorization.k8s.io/v1:Role", name, {"metadata": {"name": name, "namespace": ns}, "rules": rules})

_narrow_rules := [{"apiGroups": ["batch"], "resources": ["jobs"], "verbs": ["get", "list", "create"]}]

_crb_type := "kubernetes:rbac.authorization.k8s.io/v1:ClusterRoleBinding"

_rb_type := "kubernetes:rbac.authorization.k8s.io/v1:RoleBinding"

test_fail_binding_to_a_role_outside_the_document if {
	resources := [
		_crb("ci", "ci-deployer"),
		# a Role of the same name in another namespace is not the one bound
		_ns_role("job-runner", "other", _narrow_rules),
		_rb("jobs", "train", "Role", "job-runner"),
		_group_binding("sa-ops", "ops-role", ["system:serviceaccounts:train"]),
		fixtures.resource("kubernetes:rbac.authorization.k8s.io/v1beta1:ClusterRoleBinding", "legacy", {
			"roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "legacy-operator"},
			"subjects": [{"kind": "ServiceAccount", "name": "operator", "namespace": "ops"}],
		}),
		fixtures.resource("kubernetes:rbac.authorization.k8s.io/v1:RoleBindingPatch", "add-trainer", {
			"metadata": {"name": "existing", "namespace": "train"},
			"subjects": [{"kind": "ServiceAccount", "name": "trainer", "namespace": "train"}],
		}),
		fixtures.resource("kubernetes:rbac.authorization.k8s.io/v1:ClusterRole", "monitoring", {
			"metadata": {"name": "monitoring"},
			"aggregationRule": {"clusterRoleSelectors": [{"matchLabels": {"rbac.example.com/aggregate-to-monitoring": "true"}}]},
		}),
		_crb("monitor", "monitoring"),
	]
	v := least_privilege.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == {
		_f(_crb_type, "ci", "binding gives service account trainer the ClusterRole ci-deployer, which is not defined in the document, so what it grants cannot be established"),
		_f(_rb_type, "jobs", "binding gives service account trainer the Role job-runner, which is not defined in the document, so what it grants cannot be established"),
		_f(_crb_type, "sa-ops", "binding gives the group system:serviceaccounts:train, which holds service accounts, the ClusterRole ops-role, which is not defined in the document, so what it grants cannot be established"),
		_f("kubernetes:rbac.authorization.k8s.io/v1beta1:ClusterRoleBinding", "legacy", "binding gives service account operator the ClusterRole legacy-operator, which is not defined in the document, so what it grants cannot be established"),
		_f("kubernetes:rbac.authorization.k8s.io/v1:RoleBindingPatch", "add-trainer", "binding gives service account trainer a role that cannot be established (roleRef null)"),
		_f(_crb_type, "monitor", "binding gives service account trainer the ClusterRole monitoring, which aggregates the rules of the ClusterRoles its labels select, in the document or not, so what it grants cannot be established"),
	}
}

# the compliant forms: a binding to a role of the document is judged by that role (narrow: passes;
# every verb on every resource through a RoleBinding: reported), Kubernetes' own roles by what they
# grant (view anywhere, edit in one namespace, system:... roles), and bindings of people, not
# service accounts, are not this rule's
test_pass_bindings_to_roles_of_the_document_and_builtin_ones if {
	resources := [
		_ns_role("job-runner", "train", _narrow_rules),
		_rb("jobs", "train", "Role", "job-runner"),
		_role("reader", [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list"]}]),
		_rb("read", "train", "ClusterRole", "reader"),
		_crb("view-all", "view"),
		_rb("edit-train", "train", "ClusterRole", "edit"),
		_crb("discovery", "system:discovery"),
		_group_binding("humans", "ci-deployer", ["platform-admins"]),
	]
	v := least_privilege.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == set()
}

test_fail_role_of_the_document_allowing_everything_through_a_role_binding if {
	resources := [
		_ns_role("anything", "train", [{"apiGroups": ["*"], "resources": ["*"], "verbs": ["*"]}]),
		_rb("anything", "train", "Role", "anything"),
	]
	v := least_privilege.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == {_f(_rb_type, "anything", "binding gives service account trainer the Role anything, which allows every verb on every resource")}
}

# Kubernetes' edit (and admin, which holds it) runs pods as any service account of the namespaces it
# applies to: bound in every namespace, or in kube-system, that reaches the controllers' accounts
test_fail_builtin_edit_and_admin_across_namespaces if {
	resources := [
		_crb("edit-all", "edit"),
		_rb("admin-system", "kube-system", "ClusterRole", "admin"),
	]
	v := least_privilege.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == {
		_f(_crb_type, "edit-all", "binding gives service account trainer the built-in ClusterRole edit in every namespace, so it can run pods as any service account there (a path to cluster-admin)"),
		_f(_rb_type, "admin-system", "binding gives service account trainer the built-in ClusterRole admin in namespace kube-system, so it can run pods as any service account there (a path to cluster-admin)"),
	}
}

# subjects unknown until apply may be service accounts: reported when the role is one that matters
test_fail_binding_subjects_unknown_until_apply if {
	resources := [
		fixtures.resource(_crb_type, "later", {"roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "cluster-admin"}, "subjects": "[unknown]"}),
		fixtures.resource(_crb_type, "entry", {"roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "cluster-admin"}, "subjects": [{"kind": "[unknown]", "name": "x"}, {"kind": "User", "name": "alice"}]}),
		fixtures.resource(_crb_type, "viewers", {"roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"}, "subjects": "[unknown]"}),
	]
	v := least_privilege.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == {
		_f(_crb_type, "later", "binding gives subjects unknown until apply ([unknown]) cluster-admin: whether they include service accounts cannot be established"),
		_f(_crb_type, "entry", "binding gives subjects unknown until apply ({\"kind\": \"[unknown]\", \"name\": \"x\"}) cluster-admin: whether they include service accounts cannot be established"),
	}
}

# Kubernetes' own system: roles are judged by what its bootstrap policy grants them: those that read
# Secrets, create pods or tokens, or reach the kubelets are a path to cluster-admin in every
# namespace or in kube-system; a system: name Kubernetes does not define is not trusted for its prefix
test_fail_builtin_system_roles_with_a_path_and_unknown_system_names if {
	resources := [
		_crb("node-everywhere", "system:node"),
		_rb("jobs-system", "kube-system", "ClusterRole", "system:controller:job-controller"),
		_crb("kubelets", "system:kubelet-api-admin"),
		_group_binding("sa-kcm", "system:kube-controller-manager", ["system:serviceaccounts:train"]),
		_crb("coredns", "system:coredns"),
	]
	v := least_privilege.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == {
		_f(_crb_type, "node-everywhere", "binding gives service account trainer the built-in ClusterRole system:node in every namespace, which reads Secrets, creates service-account tokens and creates pods, which run as any service account of their namespace (a path to cluster-admin)"),
		_f(_rb_type, "jobs-system", "binding gives service account trainer the built-in ClusterRole system:controller:job-controller in namespace kube-system, which creates pods, which run as any service account of their namespace (a path to cluster-admin)"),
		_f(_crb_type, "kubelets", "binding gives service account trainer the built-in ClusterRole system:kubelet-api-admin in every namespace, which reaches the kubelets' API (nodes/proxy), which runs commands in any pod (a path to cluster-admin)"),
		_f(_crb_type, "sa-kcm", "binding gives the group system:serviceaccounts:train, which holds service accounts, the built-in ClusterRole system:kube-controller-manager in every namespace, which reads every Secret and creates service-account tokens (a path to cluster-admin)"),
		_f(_crb_type, "coredns", "binding gives service account trainer the ClusterRole system:coredns, which is not defined in the document, so what it grants cannot be established"),
	}
}

# the same roles in one ordinary namespace, Kubernetes' system: roles without such a path anywhere,
# and a ClusterRole of the document that takes a system: name (judged by its own rules) pass
test_pass_builtin_system_roles_without_a_path_or_in_one_namespace if {
	resources := [
		_rb("node-train", "train", "ClusterRole", "system:node"),
		_rb("kcm-train", "train", "ClusterRole", "system:controller:generic-garbage-collector"),
		_crb("delegator", "system:auth-delegator"),
		_crb("scheduler", "system:kube-scheduler"),
		_rb("hpa-system", "kube-system", "ClusterRole", "system:controller:horizontal-pod-autoscaler"),
		_role("system:node-proxier-lite", [{"apiGroups": [""], "resources": ["endpoints"], "verbs": ["list"]}]),
		_crb("lite", "system:node-proxier-lite"),
		_role("system:node", [{"apiGroups": [""], "resources": ["nodes"], "verbs": ["get"]}]),
		_crb("own-node-role", "system:node"),
	]
	v := least_privilege.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == set()
}

# Kubernetes' own Roles in kube-system: the two that read its Secrets are a path to cluster-admin;
# the others (an extension API server's authentication reader, leader locks) pass, and so does a
# Role of the same name in another namespace, which is not Kubernetes' (reported as not defined)
test_builtin_roles_of_kube_system if {
	resources := [
		_rb("tokens", "kube-system", "Role", "system:controller:token-cleaner"),
		_rb("bootstrap", "kube-system", "Role", "system:controller:bootstrap-signer"),
		_rb("public-info", "kube-public", "Role", "system:controller:bootstrap-signer"),
		_rb("auth-reader", "kube-system", "Role", "extension-apiserver-authentication-reader"),
		_rb("locks", "kube-system", "Role", "system::leader-locking-kube-scheduler"),
		_rb("elsewhere", "train", "Role", "extension-apiserver-authentication-reader"),
	]
	v := least_privilege.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == {
		_f(_rb_type, "tokens", "binding gives service account trainer the built-in Role system:controller:token-cleaner of namespace kube-system, which reads the Secrets there (a path to cluster-admin)"),
		_f(_rb_type, "bootstrap", "binding gives service account trainer the built-in Role system:controller:bootstrap-signer of namespace kube-system, which reads the Secrets there (a path to cluster-admin)"),
		_f(_rb_type, "elsewhere", "binding gives service account trainer the Role extension-apiserver-authentication-reader, which is not defined in the document, so what it grants cannot be established"),
	}
}

# bindings whose subjects or scope hide a service account or kube-system: a service account named
# as a User (system:serviceaccount:NS:NAME), a group whose name is unknown until apply, a
# RoleBinding in a namespace unknown until apply
test_fail_hidden_service_accounts_and_namespaces if {
	resources := [
		fixtures.resource(_crb_type, "sa-as-user", {
			"roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "cluster-admin"},
			"subjects": [{"kind": "User", "name": "system:serviceaccount:ci:deployer"}, {"kind": "User", "name": "alice"}],
		}),
		fixtures.resource(_crb_type, "unknown-group", {
			"roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "cluster-admin"},
			"subjects": [{"kind": "Group", "name": "[unknown]"}],
		}),
		_rb("edit-somewhere", "[unknown]", "ClusterRole", "edit"),
	]
	v := least_privilege.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == {
		_f(_crb_type, "sa-as-user", "binding gives the user system:serviceaccount:ci:deployer, a service account's name, cluster-admin"),
		_f(_crb_type, "unknown-group", `binding gives subjects unknown until apply ({"kind": "Group", "name": "[unknown]"}) cluster-admin: whether they include service accounts cannot be established`),
		_f(_rb_type, "edit-somewhere", "binding gives service account trainer the built-in ClusterRole edit in a namespace unknown until apply ([unknown]), which may be kube-system, so it can run pods as any service account there (a path to cluster-admin)"),
	}
}

# Kubernetes' edit aggregates the ClusterRoles labelled aggregate-to-edit, and admin holds edit: a
# role of the document so labelled that allows every verb widens both to every verb, in one
# namespace too; view, which does not hold edit, is not widened, nor by a narrow role labelled
# aggregate-to-view (this rule counts only every verb on every resource)
test_fail_builtin_roles_widened_by_aggregation if {
	resources := [
		fixtures.resource("kubernetes:rbac.authorization.k8s.io/v1:ClusterRole", "crd-editor", {
			"metadata": {"name": "crd-editor", "labels": {"rbac.authorization.k8s.io/aggregate-to-edit": "true"}},
			"rules": [{"apiGroups": ["*"], "resources": ["*"], "verbs": ["*"]}],
		}),
		fixtures.resource("kubernetes:rbac.authorization.k8s.io/v1:ClusterRole", "crd-reader", {
			"metadata": {"name": "crd-reader", "labels": {"rbac.authorization.k8s.io/aggregate-to-view": "true"}},
			"rules": [{"apiGroups": ["example.com"], "resources": ["widgets"], "verbs": ["get", "list"]}],
		}),
		_crb("view-all", "view"),
		_rb("edit-train", "train", "ClusterRole", "edit"),
		_rb("admin-train", "train", "ClusterRole", "admin"),
	]
	v := least_privilege.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == {
		_f(_rb_type, "edit-train", "binding gives service account trainer the built-in ClusterRole edit, which aggregates the document's ClusterRole crd-editor, which allows every verb on every resource"),
		_f(_rb_type, "admin-train", "binding gives service account trainer the built-in ClusterRole admin, which aggregates the document's ClusterRole crd-editor, which allows every verb on every resource"),
	}
}

# KServe's serving runtimes have no service account fields (the InferenceService's apply); the
# InferenceService's predictor is checked
test_fail_token_mounts_of_kserve_read_on_the_inference_service if {
	runtime := fixtures.resource("kubernetes:serving.kserve.io/v1alpha1:ServingRuntime", "vllm", {"metadata": {"namespace": "inference"}, "spec": {"containers": [{"name": "kserve-container", "image": "x"}]}})
	isvc := fixtures.resource("kubernetes:serving.kserve.io/v1beta1:InferenceService", "llm", {"metadata": {"namespace": "inference"}, "spec": {"predictor": {"model": {"modelFormat": {"name": "vllm"}}}}})
	v := least_privilege.violation with input as fixtures.gate_input(fixtures.mlps_policy, [runtime, isvc])
	v == {_f("kubernetes:serving.kserve.io/v1beta1:InferenceService", "llm", "pods mount the API token of service account default (automountServiceAccountToken not false on the pod or the account)")}
}

# an OpenKruise SidecarSet injects containers into other pods: it has no service account of its own
test_pass_sidecar_sets_have_no_token_mount_of_their_own if {
	sidecars := fixtures.resource("kubernetes:apps.kruise.io/v1alpha1:SidecarSet", "log", {"metadata": {"name": "log"}, "spec": {"containers": [{"name": "log", "image": "x"}]}})
	v := least_privilege.violation with input as fixtures.gate_input(fixtures.mlps_policy, [sidecars])
	v == set()
}

# red team: PowerUserAccess attached is reported as its NotAction statement would be
test_fail_power_user_access_attachment if {
	power := fixtures.resource("aws:iam/rolePolicyAttachment:RolePolicyAttachment", "power", {"policyArn": "arn:aws-cn:iam::aws:policy/PowerUserAccess", "role": "ops"})
	reader := fixtures.resource("aws:iam/rolePolicyAttachment:RolePolicyAttachment", "reader", {"policyArn": "arn:aws-cn:iam::aws:policy/ReadOnlyAccess", "role": "ops"})
	v := least_privilege.violation with input as fixtures.gate_input(fixtures.mlps_policy, [power, reader])
	v == {fixtures.finding("MLPS-L3-8.1.4.2d", "mandatory", "aws:iam/rolePolicyAttachment:RolePolicyAttachment", "power", "attaches the AWS-managed policy PowerUserAccess, which allows every action except iam:*, organizations:*, account:* on Resource \"*\" (NotAction)")}
}

# red team: a secret IAM policy document may allow Action "*" on Resource "*"; one unknown until
# apply stays judged as absent (README, Known limits)
test_fail_hidden_iam_policy_documents if {
	resources := [
		fixtures.resource("aws:iam/policy:Policy", "secret", {"policy": "[secret]"}),
		fixtures.resource("aws:iam/rolePolicy:RolePolicy", "unknown", {"role": "r", "policy": "[unknown]"}),
	]
	v := least_privilege.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == {
		_f("aws:iam/policy:Policy", "secret", "IAM policy document is secret, so administrator access (Action \"*\" on Resource \"*\") cannot be ruled out"),
	}
}

# red team: a secret managed-policy ARN (an attachment's, a role's list or an item of it), a secret
# inline-policy item or list, and a document secret in part may all amount to administrator access.
# An ARN unknown until apply (another resource's output) and an Action unknown until apply are not judged.
test_fail_secret_managed_policies_and_parts if {
	_role := "aws:iam/role:Role"
	resources := [
		fixtures.resource("aws:iam/rolePolicyAttachment:RolePolicyAttachment", "attach", {"policyArn": "[secret]", "role": "r"}),
		fixtures.resource(_role, "arns", {"managedPolicyArns": "[secret]"}),
		fixtures.resource(_role, "arn-item", {"managedPolicyArns": ["arn:aws-cn:iam::aws:policy/ReadOnlyAccess", "[secret]"]}),
		fixtures.resource(_role, "inline-item", {"inlinePolicies": ["[secret]"]}),
		fixtures.resource(_role, "inline-list", {"inlinePolicies": "[secret]"}),
		fixtures.resource("aws:iam/policy:Policy", "action", {"policy": {"Statement": [{"Effect": "Allow", "Action": "[secret]", "Resource": "*"}]}}),
		fixtures.resource("aws:iam/policy:Policy", "statement", {"policy": json.marshal({"Statement": "[secret]"})}),
		fixtures.resource("aws:iam/policy:Policy", "item", {"policy": {"Statement": ["[secret]"]}}),
		fixtures.resource("aws:iam/policy:Policy", "resource", {"policy": {"Statement": [{"Action": "*", "Resource": ["[secret]"]}]}}),
		fixtures.resource("aws:iam/rolePolicyAttachment:RolePolicyAttachment", "later", {"policyArn": "[unknown]", "role": "r"}),
		fixtures.resource(_role, "later-role", {"managedPolicyArns": ["[unknown]"]}),
		fixtures.resource("aws:iam/policy:Policy", "later-action", {"policy": {"Statement": [{"Effect": "Allow", "Action": "[unknown]", "Resource": "*"}]}}),
		fixtures.resource("aws:iam/policy:Policy", "scoped", {"policy": {"Statement": [{"Effect": "Allow", "Action": "[secret]", "Resource": "arn:aws-cn:s3:::ds/*"}]}}),
	]
	v := least_privilege.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	arn := "attaches a managed policy whose ARN is secret, so administrator access (Action \"*\" on Resource \"*\") cannot be ruled out"
	whole := "IAM policy document is secret, so administrator access (Action \"*\" on Resource \"*\") cannot be ruled out"
	part := "IAM policy document is secret in part, so administrator access (Action \"*\" on Resource \"*\") cannot be ruled out"
	v == {
		_f("aws:iam/rolePolicyAttachment:RolePolicyAttachment", "attach", arn),
		_f(_role, "arns", arn),
		_f(_role, "arn-item", arn),
		_f(_role, "inline-item", whole),
		_f(_role, "inline-list", whole),
		_f("aws:iam/policy:Policy", "action", part),
		_f("aws:iam/policy:Policy", "statement", part),
		_f("aws:iam/policy:Policy", "item", part),
		_f("aws:iam/policy:Policy", "resource", part),
	}
}

# red team: a ClusterRole whose rules, a rule, or a rule's verbs are secret (or unknown until apply)
# may allow every verb on every resource; the message says which
_cr(name, rules) := fixtures.resource("kubernetes:rbac.authorization.k8s.io/v1:ClusterRole", name, {"metadata": {"name": name}, "rules": rules})

_rbac_msg(role, why) := sprintf("binding gives service account trainer the ClusterRole %s, %s, so what it grants cannot be established", [role, why])

test_fail_hidden_cluster_role_rules if {
	resources := [
		_cr("all-secret", "[secret]"), _crb("b-all-secret", "all-secret"),
		_cr("all-later", "[unknown]"), _crb("b-all-later", "all-later"),
		_cr("item", ["[secret]"]), _crb("b-item", "item"),
		_cr("verbs", [{"apiGroups": ["*"], "resources": ["*"], "verbs": "[secret]"}]), _crb("b-verbs", "verbs"),
		_cr("verb", [{"apiGroups": ["*"], "resources": ["*"], "verbs": ["get", "[secret]"]}]), _crb("b-verb", "verb"),
		_cr("reader", [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}]), _crb("b-reader", "reader"),
	]
	v := least_privilege.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == {
		_f(_crb_type, "b-all-secret", _rbac_msg("all-secret", "whose rules are secret")),
		_f(_crb_type, "b-all-later", _rbac_msg("all-later", "whose rules are unknown until apply")),
		_f(_crb_type, "b-item", _rbac_msg("item", "a rule of which is secret")),
		_f(_crb_type, "b-verbs", _rbac_msg("verbs", "whose rules' verbs are secret")),
		_f(_crb_type, "b-verb", _rbac_msg("verb", "whose rules' verbs are secret")),
	}
}

# a role anyone may assume, and a KMS key policy anyone may use: access not limited to named
# subjects (the GDPR rules report them as GDPR-32.1b-1 and GDPR-32.1a-3)
_key(name, statements) := fixtures.resource("aws:kms/key:Key", name, {
	"enableKeyRotation": true,
	"deletionWindowInDays": 30,
	"policy": json.marshal({"Version": "2012-10-17", "Statement": statements}),
})

_account_root := {"Effect": "Allow", "Principal": {"AWS": "arn:aws-cn:iam::444455556666:root"}, "Action": "kms:*", "Resource": "*"}

_iam_role(name, statements) := fixtures.resource("aws:iam/role:Role", name, {"assumeRolePolicy": json.marshal({"Version": "2012-10-17", "Statement": statements})})

test_pass_named_trust_and_key_users if {
	resources := [
		_key("stack-key", [
			_account_root,
			{"Effect": "Allow", "Principal": {"Service": "logs.cn-north-1.amazonaws.com.cn"}, "Action": ["kms:Encrypt*", "kms:Decrypt*"], "Resource": "*"},
			{"Effect": "Allow", "Principal": {"AWS": "*"}, "Action": "kms:Decrypt", "Resource": "*", "Condition": {"StringEquals": {"kms:CallerAccount": "444455556666"}}},
		]),
		_iam_role("node", [{"Effect": "Allow", "Principal": {"Service": "ec2.amazonaws.com.cn"}, "Action": "sts:AssumeRole"}]),
		_iam_role("partner", [{"Effect": "Allow", "Principal": {"AWS": "arn:aws-cn:iam::777788889999:root"}, "Action": "sts:AssumeRole"}]),
	]
	v := least_privilege.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == set()
}

test_fail_public_trust_and_key_policy if {
	resources := [
		_key("open-key", [_account_root, {"Effect": "Allow", "Principal": "*", "Action": "kms:*", "Resource": "*"}]),
		fixtures.resource("aws:kms/keyPolicy:KeyPolicy", "open-policy", {"keyId": "k", "policy": json.marshal({"Statement": [{"Effect": "Allow", "Principal": {"AWS": "*"}, "Action": "kms:Decrypt", "Resource": "*"}]})}),
		_iam_role("open-role", [{"Effect": "Allow", "Principal": {"AWS": "*"}, "Action": "sts:AssumeRole"}]),
		# a secret key policy may grant Principal "*"; one unknown until apply is judged as absent
		fixtures.resource("aws:kms/key:Key", "secret-key", {"policy": "[secret]"}),
		fixtures.resource("aws:kms/key:Key", "later-key", {"policy": "[unknown]"}),
	]
	v := least_privilege.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == {
		_f("aws:kms/key:Key", "secret-key", "KMS key policy is secret, so public access cannot be ruled out"),
		_f("aws:kms/key:Key", "open-key", "KMS key policy grants Principal \"*\" without a condition that narrows it to an account, organisation or VPC"),
		_f("aws:kms/keyPolicy:KeyPolicy", "open-policy", "KMS key policy grants Principal \"*\" without a condition that narrows it to an account, organisation or VPC"),
		_f("aws:iam/role:Role", "open-role", "role trust policy (assumeRolePolicy) lets anyone assume the role: Principal \"*\" without a condition that narrows it to an account, organisation or VPC"),
	}
}
