package mlps.intrusion_prevention

import data.lib.findings
import data.lib.frameworks
import data.lib.network
import data.lib.pods
import data.lib.resources

# METADATA
# title: "Minimal footprint, no high-risk ports"
# description: >-
#   No security group, internet-facing LoadBalancer Service (or Service patch) or listener of an
#   internet-facing load balancer exposes 22, 3389, 3306, 5432, 6379 or 9200 to the internet (a
#   listener port not shown may be one of them), and pods (of
#   Kubernetes' own workloads and of AI workload custom resources) are not privileged, share none of
#   the host's network, PID or IPC namespaces, mount no host path and bind no host port, drop ALL
#   capabilities (adding none but NET_BIND_SERVICE), run with a read-only root filesystem, keep
#   seccomp on and /proc masked. A setting unknown until apply counts as the weak one.
# related_resources:
#   - ref: https://openstd.samr.gov.cn/bzgk/gb/newGbInfo?hcno=BAFB47E8874764186BDB7865E8344DAF
# custom:
#   control_id: MLPS-L3-8.1.4.4ab
#   clause: "8.1.4.4 a) b)"
#   framework: mlps-l3
#   severity: mandatory
#   remediation: >-
#     Close the high-risk ports to the internet; harden each container's securityContext
#     (privileged false, capabilities.drop [ALL], readOnlyRootFilesystem true, no Unconfined
#     seccompProfile or Unmasked procMount: these are container fields, a pod-level value is dropped)
#     and the pod (no hostNetwork, hostPID or hostIPC, no hostPath volumes, no hostPort).
violation contains findings.finding("MLPS-L3-8.1.4.4ab", p.resource, p.message) if {
	frameworks.applies(input.policy, "mlps-l3")
	some p in _problems
}

_problems contains findings.problem(rule.resource, msg) if {
	some rule in network.world_ingress_rules(input.document)
	some port in network.high_risk_ports
	network.covers(rule, port)
	msg := sprintf("%s exposes high-risk port %d to %s%s", [rule.group, port, network.reach(rule), network.protocol_note(rule)])
}

# an internet-facing load balancer answers the internet on its listeners' ports (lib.public_access);
# a port the document does not show may be one of them
_problems contains findings.problem(r, msg) if {
	some [r, _, what, port] in data.lib.public_access.internet_listeners
	msg := data.lib.public_access.exposed_port_message(what, port, network.high_risk_ports, "high-risk")
}

# the cloud controller opens a LoadBalancer Service's ports to the internet outside the document
_problems contains findings.problem(svc, msg) if {
	some svc in network.internet_services(input.document)
	some port in network.service_ports(svc) & network.high_risk_ports
	msg := sprintf("%s exposes high-risk port %d", [network.internet_service_noun(svc), port])
}

_problems contains findings.problem(w, msg) if {
	some w in resources.workloads(input.document)
	some spec in resources.pod_specs(w)
	some c in resources.containers(spec)
	some gap in pods.hardening_gaps(spec, c)
	msg := sprintf("container %s: %s", [pods.name(c), gap])
}

# a workload whose pod spec, or part of the way to its containers, is unknown until apply
_problems contains findings.problem(w, msg) if {
	some w in resources.workloads(input.document)
	resources.unknown_pod_spec(w)
	msg := sprintf("pod spec %s: its containers' hardening cannot be checked", [resources.pod_spec_why(w)])
}
