# METADATA
# title: Pod security helpers
# description: >-
#   Weaknesses of a container in a pod spec. The pod-level securityContext is the fallback only for
#   the settings Kubernetes has at pod level (runAsNonRoot, seccompProfile, ...); privileged,
#   allowPrivilegeEscalation, readOnlyRootFilesystem, capabilities and procMount exist on containers
#   only, and the API server drops them from a pod's securityContext. A setting unknown until apply
#   counts as the weak value.
# scope: package
package lib.pods

_unknown := "[unknown]"

# the securityContext fields a PodSecurityContext also has
_pod_level := {"runAsNonRoot", "runAsUser", "runAsGroup", "seccompProfile", "seLinuxOptions", "appArmorProfile", "windowsOptions"}

_context(o) := c if {
	c := object.get(o, "securityContext", {})
	is_object(c)
} else := {"privileged": _unknown, "allowPrivilegeEscalation": _unknown, "runAsNonRoot": _unknown, "readOnlyRootFilesystem": _unknown, "capabilities": _unknown}

_setting(spec, container, key) := object.get(_context(container), key, object.get(_context(spec), key, null)) if key in _pod_level

_setting(_, container, key) := object.get(_context(container), key, null) if not key in _pod_level

# a boolean pod or container field that is true, or unknown until apply
_may_be_true(v) if v == true

_may_be_true(v) if v == _unknown

_field(spec, key) := object.get(spec, key, false)

# a container's name; Knative and KServe let it be left out
name(container) := object.get(container, "name", "(unnamed)")

weaknesses(spec, container) := ((_privileged(spec, container) | {"allows privilege escalation" | _setting(spec, container, "allowPrivilegeEscalation") != false}) | {"may run as root (runAsNonRoot not true)" | _setting(spec, container, "runAsNonRoot") != true}) | _added_capabilities(container)

# hardening the MLPS intrusion-prevention clause asks for beyond the basics, the Kubernetes Pod
# Security Standards' baseline among it (host namespaces, host paths and ports, seccomp, /proc)
hardening_gaps(spec, container) := (((((_privileged(spec, container) | _host_namespaces(spec)) | {"does not drop ALL capabilities" | not _drops_all(container)}) | {"root filesystem is writable" | _setting(spec, container, "readOnlyRootFilesystem") != true}) | _added_capabilities(container)) | _host_access(spec, container)) | _kernel_access(spec, container)

_privileged(spec, container) := {"runs privileged" | _setting(spec, container, "privileged") == true} | {"may run privileged (privileged unknown until apply)" | _setting(spec, container, "privileged") == _unknown}

_host_namespaces(spec) := {msg |
	some key, what in {"hostNetwork": "uses the host network", "hostPID": "shares the host PID namespace", "hostIPC": "shares the host IPC namespace"}
	_may_be_true(_field(spec, key))
	msg := sprintf("%s%s", [what, _unknown_note(_field(spec, key), key)])
}

_unknown_note(v, key) := sprintf(" (%s unknown until apply)", [key]) if v == _unknown

_unknown_note(v, _) := "" if v != _unknown

# host paths mounted into the pod, and host ports the container binds
_host_access(spec, container) := {sprintf("mounts host path %v", [p]) |
	volumes := object.get(spec, "volumes", [])
	is_array(volumes)
	some v in volumes
	is_object(v)
	hp := object.get(v, "hostPath", null)
	hp != null
	p := object.get(_object(hp), "path", _unknown)
} | {sprintf("binds host port %v", [port]) |
	ports := object.get(container, "ports", [])
	is_array(ports)
	some p in ports
	is_object(p)
	port := object.get(p, "hostPort", 0)
	port != 0
}

_object(x) := x if is_object(x)

_object(x) := {} if not is_object(x)

# seccomp off (container, else pod) and an unmasked /proc
_kernel_access(spec, container) := {"runs without seccomp (Unconfined)" |
	profile := _setting(spec, container, "seccompProfile")
	object.get(_object(profile), "type", "") == "Unconfined"
} | {"mounts /proc unmasked (procMount Unmasked)" | _setting(spec, container, "procMount") == "Unmasked"}

_drops_all(container) if {
	drop := object.get(_object(_setting({}, container, "capabilities")), "drop", [])
	is_array(drop)
	some c in drop
	upper(sprintf("%v", [c])) == "ALL"
}

# Capabilities added beyond NET_BIND_SERVICE, the only one the Kubernetes Pod Security Standards'
# restricted profile lets a container add (SYS_ADMIN, NET_ADMIN, ... reach the node); a list (or
# capabilities) unknown until apply may add any
_added_capabilities(container) := {msg |
	add := _capabilities_added(container)
	is_array(add)
	added := [sprintf("%v", [c]) | some c in add; upper(sprintf("%v", [c])) != "NET_BIND_SERVICE"]
	count(added) > 0
	msg := sprintf("adds capabilities %s (only NET_BIND_SERVICE may be added)", [concat(", ", sort(added))])
} | {"may add capabilities (unknown until apply)" | _capabilities_added(container) == _unknown}

_capabilities_added(container) := _unknown if _setting({}, container, "capabilities") == _unknown

_capabilities_added(container) := object.get(caps, "add", []) if {
	caps := _setting({}, container, "capabilities")
	is_object(caps)
}
