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
