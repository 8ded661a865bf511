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

import data.lib.resources

_unknown := "[unknown]"

# the securityContext fields a PodSecurityContext also has
_pod_level := {"runAsNonRoot", "runAsUser", "runAsGroup", "seccompProfile", "seLinuxOptions", "appArmorProfile", "windowsOptions"}

_context(o) := c if {
	c := object.get(o, "securityContext", {})
	is_object(c)
} else := {"privileged": h, "allowPrivilegeEscalation": h, "runAsNonRoot": h, "readOnlyRootFilesystem": h, "capabilities": h} if {
	h := _hidden_as(object.get(o, "securityContext", {}))
}

# a securityContext the document does not show, as its placeholder ("[secret]" stays secret)
_hidden_as(v) := v if resources.hidden(v) else := _unknown

_setting(spec, container, key) := object.get(_context(container), key, object.get(_context(spec), key, null)) if key in _pod_level

_setting(_, container, key) := object.get(_context(container), key, null) if not key in _pod_level

# a boolean pod or container field that is true, or unknown until apply
_may_be_true(v) if v == true

_may_be_true(v) if resources.hidden(v)

_field(spec, key) := object.get(spec, key, false)

# a container's name; Knative and KServe let it be left out
name(container) := object.get(container, "name", "(unnamed)")

weaknesses(spec, container) := ((_privileged(spec, container) | _weak(spec, container, "allowPrivilegeEscalation", false, "allows privilege escalation")) | _weak(spec, container, "runAsNonRoot", true, "may run as root (runAsNonRoot not true)")) | _added_capabilities(container)

# a setting that is not the safe value: what it allows, or that it is unknown until apply
_weak(spec, container, key, safe, what) := {msg |
	v := _setting(spec, container, key)
	v != safe
	msg := sprintf("%s%s", [what, _unknown_note(v, key)])
}

# hardening the MLPS intrusion-prevention clause asks for beyond the basics, the Kubernetes Pod
# Security Standards' baseline among it (host namespaces, host paths and ports, seccomp, /proc)
hardening_gaps(spec, container) := (((((_privileged(spec, container) | _host_namespaces(spec)) | {"does not drop ALL capabilities" | not _drops_all(container)}) | _weak(spec, container, "readOnlyRootFilesystem", true, "root filesystem is writable")) | _added_capabilities(container)) | _host_access(spec, container)) | _kernel_access(spec, container)

_privileged(spec, container) := {"runs privileged" | _setting(spec, container, "privileged") == true} | {sprintf("may run privileged (privileged %s)", [resources.hidden_why(v)]) | v := _setting(spec, container, "privileged"); resources.hidden(v)}

_host_namespaces(spec) := {msg |
	some key, what in {"hostNetwork": "uses the host network", "hostPID": "shares the host PID namespace", "hostIPC": "shares the host IPC namespace"}
	_may_be_true(_field(spec, key))
	msg := sprintf("%s%s", [what, _unknown_note(_field(spec, key), key)])
}

_unknown_note(v, key) := sprintf(" (%s %s)", [key, resources.hidden_why(v)]) if resources.hidden(v)

_unknown_note(v, _) := "" if resources.shown(v)

# host paths the container mounts (a volume it names in volumeMounts), and host ports it binds; a
# volume or port list unknown until apply may hold either
_host_access(spec, container) := {sprintf("mounts host path %v", [path]) |
	some vol, path in _host_paths(spec)
	some m in resources.list_at(container, "volumeMounts")
	object.get(resources.as_object(m), "name", null) in {vol} | resources.placeholders
} | {sprintf("binds host port %v", [port]) |
	some p in resources.list_at(container, "ports")
	port := object.get(resources.as_object(p), "hostPort", 0)
	port != 0
} | {sprintf("may mount host paths (volumes %s)", [resources.hidden_why(spec.volumes)]) |
	_list_unknown(spec, "volumes")
	count(resources.list_at(container, "volumeMounts")) > 0
} | {sprintf("may mount host paths (volumeMounts %s)", [resources.hidden_why(container.volumeMounts)]) |
	count(_host_paths(spec)) > 0
	_list_unknown(container, "volumeMounts")
} | {sprintf("may bind host ports (ports %s)", [resources.hidden_why(container.ports)]) |
	_list_unknown(container, "ports")
} | {sprintf("may bind host ports (a port %s)", [resources.hidden_why(p)]) |
	some p in resources.list_at(container, "ports")
	resources.hidden(p)
} | {sprintf("may mount host paths (a volume %s)", [resources.hidden_why(v)]) |
	some v in resources.list_at(spec, "volumes")
	resources.hidden(v)
	count(resources.list_at(container, "volumeMounts")) > 0
}

# the pod's host path volumes: name -> path
_host_paths(spec) := {vol: path |
	some v in resources.list_at(spec, "volumes")
	is_object(v)
	hp := object.get(v, "hostPath", null)
	hp != null
	vol := object.get(v, "name", _unknown)
	path := object.get(resources.as_object(hp), "path", _unknown)
}


_list_unknown(o, key) if resources.hidden(object.get(o, key, []))


# seccomp off (container, else pod) and an unmasked /proc; either unknown until apply may be so
_kernel_access(spec, container) := {"runs without seccomp (Unconfined)" |
	profile := _setting(spec, container, "seccompProfile")
	object.get(resources.as_object(profile), "type", "") == "Unconfined"
} | {sprintf("may run without seccomp (seccompProfile %s)", [resources.hidden_why(v)]) |
	profile := _setting(spec, container, "seccompProfile")
	some v in {profile, object.get(resources.as_object(profile), "type", "")}
	resources.hidden(v)
} | {"mounts /proc unmasked (procMount Unmasked)" | _setting(spec, container, "procMount") == "Unmasked"} | {sprintf("may mount /proc unmasked (procMount %s)", [resources.hidden_why(v)]) | v := _setting(spec, container, "procMount"); resources.hidden(v)}

_drops_all(container) if {
	drop := object.get(resources.as_object(_setting({}, container, "capabilities")), "drop", [])
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
} | {sprintf("may add capabilities (%s)", [resources.hidden_why(add)]) | add := _capabilities_added(container); resources.hidden(add)}

_capabilities_added(container) := caps if {
	caps := _setting({}, container, "capabilities")
	resources.hidden(caps)
}

_capabilities_added(container) := object.get(caps, "add", []) if {
	caps := _setting({}, container, "capabilities")
	is_object(caps)
}
