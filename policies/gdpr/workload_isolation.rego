package gdpr.workload_isolation

import data.lib.findings
import data.lib.frameworks
import data.lib.network
import data.lib.pods
import data.lib.resources

# METADATA
# title: "Workload isolation"
# description: >-
#   Namespaces holding personal data have a default-deny NetworkPolicy that no NetworkPolicy
#   voids (an ingress rule admitting every source, a namespaceSelector {} or a 0.0.0.0/0 or ::/0
#   ipBlock on every port: NetworkPolicies add up) nor a network policy of another engine with
#   ingress rules, which the gate does not read; their pods are not privileged, cannot
#   escalate privileges and run as non-root; no ConfigMap carries credential-like keys.
# related_resources:
#   - ref: https://gdpr-info.eu/art-32-gdpr/
#   - ref: https://kubernetes.io/docs/concepts/security/pod-security-standards/
# custom:
#   control_id: GDPR-32.1b-2
#   clause: "Art. 32(1)(b)"
#   framework: gdpr
#   severity: mandatory
#   remediation: >-
#     Add a NetworkPolicy with an empty podSelector and no ingress rules to the namespace, and give
#     every other ingress rule there the sources it needs (from) or the ports it opens; set
#     securityContext privileged false, allowPrivilegeEscalation false, runAsNonRoot true; move
#     credentials to Secrets.
violation contains findings.finding("GDPR-32.1b-2", p.resource, p.message) if {
	frameworks.applies(input.policy, "gdpr")
	some p in _problems
}

# positions of the personal-data namespaces, and their names
_personal_namespace_indices := resources.indices("kubernetes:core/v1:Namespace") & resources.personal_indices

_personal_namespaces := {resources.name_of(input.document.resources[i]) | some i in _personal_namespace_indices}

_problems contains findings.problem(ns, "personal-data namespace has no default-deny NetworkPolicy") if {
	some i in _personal_namespace_indices
	ns := input.document.resources[i]
	not network.has_default_deny(input.document, resources.name_of(ns), "Ingress")
}

# an ingress rule open to every source on every port voids the default deny for the pods its
# policy selects (lib.network open_rules): in a personal-data namespace, or a policy labelled so
_problems contains findings.problem(input.document.resources[rule.position], rule.message) if {
	some rule in network.open_rules
	rule.direction == "Ingress"
	_personal_policy(rule)
}

_personal_policy(rule) if rule.namespace in _personal_namespaces

# a policy whose namespace is unknown until apply may be in one of them
_personal_policy(rule) if {
	resources.hidden(rule.namespace)
	count(_personal_namespaces) > 0
}

_personal_policy(rule) if rule.position in resources.personal_indices

_personal_workload(w) if resources.namespace(w) in _personal_namespaces

_personal_workload(w) if resources.personal(w)

# a cluster-wide template (a SidecarSet, a cluster training or serving runtime) runs its pods in the
# namespaces that use it, which may hold personal data when any namespace does
_personal_workload(w) if {
	resources.kind(w.type) in resources.cluster_scoped_workload_kinds
	count(_personal_namespaces) > 0
}

_problems contains findings.problem(w, msg) if {
	some w in resources.workloads(input.document)
	_personal_workload(w)
	some spec in resources.pod_specs(w)
	some c in resources.containers(spec)
	some issue in pods.weaknesses(spec, c)
	msg := sprintf("container %s: %s", [pods.name(c), issue])
}

_problems contains findings.problem(cm, msg) if {
	some ref in resources.credential_config_keys(input.document)
	cm := input.document.resources[ref[0]]
	msg := sprintf("ConfigMap key %q looks like a credential (use a Secret)", [ref[1]])
}

# a workload whose pod spec, or part of the way to its containers, is unknown until apply
_problems contains findings.problem(w, "pod spec unknown until apply: its containers' isolation (privilege, escalation, root, capabilities) cannot be checked") if {
	some w in resources.workloads(input.document)
	_personal_workload(w)
	resources.unknown_pod_spec(w)
}
