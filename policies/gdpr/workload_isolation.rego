package gdpr.workload_isolation

import data.lib.findings
import data.lib.frameworks
import data.lib.network
import data.lib.pods
import data.lib.resources

# METADATA
# title: "Workload isolation"
# description: >-
#   Namespaces holding personal data have a default-deny NetworkPolicy; their pods are not
#   privileged, cannot escalate privileges and run as non-root; no ConfigMap carries
#   credential-like keys.
# related_resources:
#   - ref: https://gdpr-info.eu/art-32-gdpr/
#   - ref: https://kubernetes.io/docs/concepts/security/pod-security-standards/
# custom:
#   control_id: GDPR-32.1b-2
#   clause: "Art. 32(1)(b)"
#   framework: gdpr
#   severity: mandatory
#   remediation: >-
#     Add a NetworkPolicy with an empty podSelector and no ingress rules to the namespace; set
#     securityContext privileged false, allowPrivilegeEscalation false, runAsNonRoot true; move
#     credentials to Secrets.
violation contains findings.finding("GDPR-32.1b-2", p.resource, p.message) if {
	frameworks.applies(input.policy, "gdpr")
	some p in _problems
}

_personal_namespaces := {resources.name_of(ns) | some ns in network.namespaces(input.document); resources.personal(ns)}

_problems contains findings.problem(ns, "personal-data namespace has no default-deny NetworkPolicy") if {
	some ns in network.namespaces(input.document)
	resources.personal(ns)
	not network.has_default_deny(input.document, resources.name_of(ns), "Ingress")
}

_personal_workload(w) if resources.namespace(w) in _personal_namespaces

_personal_workload(w) if resources.personal(w)

_problems contains findings.problem(w, msg) if {
	some w in resources.workloads(input.document)
	_personal_workload(w)
	some c in resources.containers(resources.pod_spec(w))
	some issue in pods.weaknesses(resources.pod_spec(w), c)
	msg := sprintf("container %s: %s", [c.name, issue])
}

_problems contains findings.problem(cm, msg) if {
	some cm in resources.of_type(input.document, "kubernetes:core/v1:ConfigMap")
	some key, _ in object.get(cm.inputs, "data", {})
	resources.credential_key(key)
	msg := sprintf("ConfigMap key %q looks like a credential (use a Secret)", [key])
}
