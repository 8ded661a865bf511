# METADATA
# title: Pod security helpers
# description: Weaknesses of a container in a pod spec (pod-level securityContext as the fallback).
# scope: package
package lib.pods

_setting(spec, container, key) := object.get(container, ["securityContext", key], object.get(spec, ["securityContext", key], null))

weaknesses(spec, container) := (({"runs privileged" | _setting(spec, container, "privileged") == true} | {"allows privilege escalation" | _setting(spec, container, "allowPrivilegeEscalation") != false}) | {"may run as root (runAsNonRoot not true)" | _setting(spec, container, "runAsNonRoot") != true}) | _added_capabilities(container)

# hardening the MLPS intrusion-prevention clause asks for beyond the basics
hardening_gaps(spec, container) := ((({"runs privileged" | _setting(spec, container, "privileged") == true} | {"uses the host network" | object.get(spec, "hostNetwork", false) == true}) | ({"shares the host PID namespace" | object.get(spec, "hostPID", false) == true} | {"does not drop ALL capabilities" | not _drops_all(container)})) | {"root filesystem is writable" | _setting(spec, container, "readOnlyRootFilesystem") != true}) | _added_capabilities(container)

_drops_all(container) if {
	some c in object.get(container, ["securityContext", "capabilities", "drop"], [])
	upper(c) == "ALL"
}

# Capabilities added beyond NET_BIND_SERVICE, the only one the Kubernetes Pod Security Standards'
# restricted profile lets a container add (SYS_ADMIN, NET_ADMIN, ... reach the node)
_added_capabilities(container) := {msg |
	added := [sprintf("%v", [c]) | some c in object.get(container, ["securityContext", "capabilities", "add"], []); upper(sprintf("%v", [c])) != "NET_BIND_SERVICE"]
	count(added) > 0
	msg := sprintf("adds capabilities %s (only NET_BIND_SERVICE may be added)", [concat(", ", sort(added))])
}
