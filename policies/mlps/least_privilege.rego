package mlps.least_privilege

import data.lib.checks
import data.lib.findings
import data.lib.frameworks
import data.lib.k8s_rbac
import data.lib.resources

# METADATA
# title: "Least privilege and separation of duties"
# description: >-
#   No IAM policy allows *:* on every resource (nor every action but a few), no binding gives a
#   service account (or a group holding service accounts) cluster-admin, a role of every verb on
#   every resource, the built-in admin or edit in every namespace or in kube-system (they run pods
#   as any service account there), one of Kubernetes' own roles that read Secrets, create pods or
#   tokens, reach the kubelets or rewrite roles there, view, edit or admin widened by an aggregated
#   role of every verb, or a role whose grants cannot be established (one the document does not
#   define, other than Kubernetes' own, or an aggregated ClusterRole); service accounts named as
#   users, and subjects or namespaces unknown until apply, count; and neither service accounts nor
#   pods mount API tokens by default. No role's trust policy lets anyone (or every identity of a
#   web-identity provider) assume it, and no KMS key policy grants Principal "*" without a
#   condition narrowing it to an account, organisation or VPC.
# related_resources:
#   - ref: https://openstd.samr.gov.cn/bzgk/gb/newGbInfo?hcno=BAFB47E8874764186BDB7865E8344DAF
# custom:
#   control_id: MLPS-L3-8.1.4.2d
#   clause: "8.1.4.2 c) d)"
#   framework: mlps-l3
#   severity: mandatory
#   remediation: >-
#     Scope IAM policies; bind service accounts to narrow Roles defined in the stack (or waive a
#     binding to a role managed elsewhere, with its rules as evidence); set
#     automountServiceAccountToken false on ServiceAccounts and opt in per pod; name the
#     principals role trust and key policies admit (or add an aws:PrincipalOrgID condition).
violation contains findings.finding("MLPS-L3-8.1.4.2d", p.resource, p.message) if {
	frameworks.applies(input.policy, "mlps-l3")
	some p in _problems
}

_problems contains p if {
	some p in checks.wildcard_admin(input.document)
}

_problems contains findings.problem(b, msg) if {
	some i, role in _grants
	b := input.document.resources[i]
	some s in _subjects(b)
	s.kind == "ServiceAccount"
	msg := sprintf("binding gives service account %s %s", [s.name, role])
}

# a service account named as a user: the API server authenticates one as
# system:serviceaccount:NAMESPACE:NAME, and RBAC matches a User subject by that name
_problems contains findings.problem(b, msg) if {
	some i, role in _grants
	b := input.document.resources[i]
	some s in _subjects(b)
	s.kind == "User"
	is_string(s.name)
	startswith(s.name, "system:serviceaccount:")
	msg := sprintf("binding gives the user %s, a service account's name, %s", [s.name, role])
}

# a group that holds service accounts: all of them (system:serviceaccounts), a namespace's
# (system:serviceaccounts:NS), or every authenticated identity, service accounts included
_problems contains findings.problem(b, msg) if {
	some i, role in _grants
	b := input.document.resources[i]
	some s in _subjects(b)
	s.kind == "Group"
	_service_account_group(s.name)
	msg := sprintf("binding gives the group %s, which holds service accounts, %s", [s.name, role])
}

# position -> what each binding grants, where it matters (lib.k8s_rbac), worked out once
_grants := {i: role |
	some i in k8s_rbac.binding_indices
	role := k8s_rbac.grant(input.document.resources[i])
}

_subjects(b) := [s | some s in resources.elements(object.get(b.inputs, "subjects", [])); is_object(s)]

# subjects unknown until apply (the list, an entry, or an entry's kind) may be service accounts
_problems contains findings.problem(b, msg) if {
	some i, role in _grants
	b := input.document.resources[i]
	some unknown in _unknown_subjects(b)
	msg := sprintf("binding gives subjects unknown until apply (%v) %s: whether they include service accounts cannot be established", [unknown, role])
}

_unknown_subjects(b) := {subjects} if {
	subjects := object.get(b.inputs, "subjects", [])
	subjects != null
	not is_array(subjects)
} else := {s |
	some s in object.get(b.inputs, "subjects", [])
	not _known_subject(s)
}

# a subject whose kind is known, and for a group or a user whose name is (a group or a user name
# unknown until apply may be one that holds or names service accounts)
_known_subject(s) if {
	is_object(s)
	s.kind == "ServiceAccount"
}

_known_subject(s) if {
	is_object(s)
	s.kind in {"Group", "User"}
	is_string(s.name)
	resources.shown(s.name)
}

_service_account_group(name) if name in {"system:serviceaccounts", "system:authenticated"}

_service_account_group(name) if startswith(name, "system:serviceaccounts:")

_problems contains findings.problem(sa, "service account mounts its API token by default (automountServiceAccountToken not false)") if {
	some sa in resources.of_type(input.document, "kubernetes:core/v1:ServiceAccount")
	object.get(sa.inputs, "automountServiceAccountToken", true) != false
}

# a pod mounts its service account's token unless its spec says false, or (unset there) its service
# account of the document does; a value unknown until apply counts as mounting
_problems contains findings.problem(w, msg) if {
	some w in resources.workloads(input.document)
	not resources.kind(w.type) in _no_account_kinds
	some spec in resources.pod_specs(w)
	account := object.get(spec, "serviceAccountName", "default")
	_mounts_token(object.get(spec, "automountServiceAccountToken", null), resources.namespace(w), account)
	msg := sprintf("pods mount the API token of service account %s (automountServiceAccountToken not false on the pod or the account)", [account])
}

_mounts_token(pod, _, _) if {
	pod != null
	not pod in {false, "false"}
}

_mounts_token(null, namespace, account) if not _account_without_token(namespace, account)

_account_without_token(namespace, account) if {
	some sa in resources.of_type(input.document, "kubernetes:core/v1:ServiceAccount")
	object.get(sa.inputs, ["metadata", "name"], sa.name) == account
	resources.namespace(sa) == namespace
	object.get(sa.inputs, "automountServiceAccountToken", true) in {false, "false"}
}

# a workload whose pod spec, or part of the way to its containers, is unknown until apply
_problems contains findings.problem(w, "pod spec unknown until apply: whether its pods mount the API token cannot be checked") if {
	some w in resources.workloads(input.document)
	resources.unknown_pod_spec(w)
}

# KServe's serving runtimes and OpenKruise's SidecarSets: their pod specs have no service account
# fields; the pods run with the InferenceService's (whose predictor is checked) or their own
_no_account_kinds := {"ServingRuntime", "ClusterServingRuntime", "SidecarSet"}

# a role anyone may assume, and a KMS key anyone may use (lib.public_access): access not limited to
# named subjects
_problems contains p if {
	some p in data.lib.public_access.open_trust
}

_problems contains p if {
	some p in data.lib.public_access.public_key_policies
}
