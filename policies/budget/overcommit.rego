package budget.overcommit

import data.lib.budget
import data.lib.findings
import data.lib.fmt
import data.lib.pods
import data.lib.resources

# METADATA
# title: "Overcommit within the declared cap"
# description: >-
#   Containers' CPU and memory limits are at most scheduling.overcommitCap times their requests, as
#   Kubernetes admits them: a request left out is the limit, and a limit or request left out is the
#   default of the namespace's LimitRange (its default limit is its max when it gives none, its
#   default request that default limit, else its min). A container left with no limit may use every
#   spare CPU or byte of its node, which no cap bounds; it passes only where a LimitRange's
#   maxLimitRequestRatio, or a pod-level limit, bounds it. LimitRange maxLimitRequestRatio does not
#   allow more than the cap. The pods of every workload kind the gate reads count, AI workload
#   custom resources (PyTorchJob, RayCluster, JobSet, ...) included. (GPU time-slicing is declared
#   sharing under gpuSharing, not overcommit.)
# related_resources:
#   - ref: https://kubernetes.io/docs/concepts/policy/limit-range/
#   - ref: https://www.finops.org/framework/capabilities/budgeting/
# custom:
#   control_id: BUDGET-OVERCOMMIT-1
#   clause: "Seedance cost policy"
#   framework: budget
#   severity: mandatory
#   remediation: >-
#     Lower the limits or raise the requests so limit/request <= overcommitCap, give every container
#     CPU and memory limits (or the namespace a LimitRange whose defaults and maxLimitRequestRatio
#     stay within the cap, as Seedance's fleet namespaces have), or raise the cap in the cost policy.
violation contains findings.finding("BUDGET-OVERCOMMIT-1", p.resource, p.message) if {
	some p in _problems
}

_cap := object.get(input.policy, ["scheduling", "overcommitCap"], 1)

_resources := ["cpu", "memory"]

# the LimitRanges of the document (patches of live ones included) and their items
_limit_ranges := [input.document.resources[i] | some i in resources.kind_indices("LimitRange")]

# [LimitRange, item] for every item of every LimitRange, read once for all the rules below
_lr_items := [[lr, item] |
	some lr in _limit_ranges
	spec := object.get(resources.inputs(lr), "spec", {})
	is_object(spec)
	items := object.get(spec, "limits", [])
	is_array(items)
	some item in items
	is_object(item)
]

# an item's resource list (default, max, ...) as an object, empty when absent or unknown
_list(item, field) := l if {
	l := object.get(item, field, {})
	is_object(l)
} else := {}

# each namespace's Container items, as Kubernetes defaults them: the default limit falls back to
# max, the default request to that default limit, then to min
_container_items[ns] contains d if {
	some [lr, item] in _lr_items
	ns := resources.namespace(lr)
	object.get(item, "type", "") == "Container"
	default_limit := object.union(_list(item, "max"), _list(item, "default"))
	d := {
		"limit": default_limit,
		"request": object.union(object.union(_list(item, "min"), default_limit), _list(item, "defaultRequest")),
	}
}

# namespaces where a Container item's maxLimitRequestRatio makes Kubernetes refuse a container with
# no limit for the resource (a Pod item compares the pod's summed limits, which the other
# containers' limits can make, so it refuses no single container)
_ratio_bound[ns] contains res if {
	some [lr, item] in _lr_items
	ns := resources.namespace(lr)
	object.get(item, "type", "") == "Container"
	some res, value in _list(item, "maxLimitRequestRatio")
	budget.quantity(value)
}

# a container's own limit or request for a resource: absent (undefined) unless it gives one; its
# resources, or that list, unknown until apply make it unknown
_own(c, field, res) := v if {
	rr := object.get(c, "resources", {})
	is_object(rr)
	list := object.get(rr, field, {})
	is_object(list)
	v := list[res]
}

_own(c, _, _) := "[unknown]" if resources.hidden(object.get(c, "resources", {}))

_own(c, field, _) := "[unknown]" if resources.hidden(object.get(c, ["resources", field], {}))

_defaulted := " with the LimitRange's default limit"

# [limit, request, where the limit comes from] a container may be admitted with. A request left out
# is the container's own limit (API defaulting), else a LimitRange's default request; a limit left
# out is a LimitRange's default limit. LimitRanger fills in only what is still missing, one
# LimitRange after another, and an item with a default limit has a default request too, so both
# come from one item, or the request from an item that gives no default limit.
_pairs(c, _, res) := {[l, r, ""] | l := _own(c, "limits", res); r := _own(c, "requests", res)} if {
	_own(c, "limits", res)
	_own(c, "requests", res)
}

_pairs(c, _, res) := {[l, l, ""] | l := _own(c, "limits", res)} if {
	_own(c, "limits", res)
	not _own(c, "requests", res)
}

_pairs(c, ns, res) := {[d.limit[res], r, _defaulted] | some d in _container_items[ns]; d.limit[res]; r := _own(c, "requests", res)} if {
	not _own(c, "limits", res)
	_own(c, "requests", res)
}

_pairs(c, ns, res) := {[d.limit[res], d.request[res], _defaulted] | some d in _container_items[ns]; d.limit[res]} | {[d.limit[res], e.request[res], _defaulted] |
	some d in _container_items[ns]
	d.limit[res]
	some e in _container_items[ns]
	not e.limit[res]
	e.request[res]
} if {
	not _own(c, "limits", res)
	not _own(c, "requests", res)
}

_pod_limited(spec, res) if {
	rr := object.get(spec, "resources", {})
	is_object(rr)
	lim := object.get(rr, "limits", {})
	is_object(lim)
	lim[res]
}

# the namespace a workload's pods run in; a cluster-wide runtime's run in the namespaces of the jobs
# and services that use it, whose LimitRanges are not known here
_namespace(w) := _cluster_wide if resources.kind(w.type) in resources.cluster_scoped_workload_kinds

_cluster_wide := "(cluster-wide)"

_no_limit_range(ns) := "no LimitRange is known to apply (its pods run in the namespaces that use it)" if ns == _cluster_wide

_no_limit_range(ns) := sprintf("no LimitRange of namespace %s gives one", [ns]) if ns != _cluster_wide

_namespace(w) := resources.namespace(w) if not resources.kind(w.type) in resources.cluster_scoped_workload_kinds

_containers contains [w, ns, spec, c] if {
	some w in resources.workloads(input.document)
	ns := _namespace(w)
	some spec in resources.pod_specs(w)
	some c in resources.containers(spec)
}

_problems contains findings.problem(w, msg) if {
	some [w, ns, _, c] in _containers
	some res in _resources
	some [limit_q, request_q, source] in _pairs(c, ns, res)
	limit := budget.quantity(limit_q)
	request := budget.quantity(request_q)
	request > 0
	ratio := limit / request
	ratio > _cap
	msg := sprintf("container %s overcommits %s %sx (limit/request%s); the cap is %sx", [pods.name(c), res, fmt.two_decimals(ratio), source, fmt.two_decimals(_cap)])
}

# a request of 0 under a limit: the container may use up to its limit while reserving nothing
_problems contains findings.problem(w, msg) if {
	some [w, ns, _, c] in _containers
	some res in _resources
	some [limit_q, request_q, _] in _pairs(c, ns, res)
	budget.quantity(limit_q) > 0
	budget.quantity(request_q) == 0
	msg := sprintf("container %s requests no %s (0) under a limit of %v: no overcommit cap (%sx) bounds it", [pods.name(c), res, limit_q, fmt.two_decimals(_cap)])
}

# a limit or request unknown until apply: the ratio cannot be established
_problems contains findings.problem(w, msg) if {
	some [w, ns, _, c] in _containers
	some res in _resources
	some pair in _pairs(c, ns, res)
	some v in [pair[0], pair[1]]
	resources.hidden(v)
	msg := sprintf("container %s: its %s limit or request is unknown until apply, so its overcommit cannot be checked against the cap", [pods.name(c), res])
}

# no limit at all: neither its own nor a LimitRange default, and nothing that refuses or bounds it
_problems contains findings.problem(w, msg) if {
	some [w, ns, spec, c] in _containers
	some res in _resources
	not _own(c, "limits", res)
	not _has_default_limit(ns, res)
	not res in object.get(_ratio_bound, ns, set())
	not _pod_limited(spec, res)
	msg := sprintf("container %s sets no %s limit and %s: it may use all the spare %s of its node, which no overcommit cap (%sx) bounds", [pods.name(c), res, _no_limit_range(ns), res, fmt.two_decimals(_cap)])
}

_has_default_limit(ns, res) if {
	some d in _container_items[ns]
	d.limit[res]
}

# a maxLimitRequestRatio unknown until apply allows an overcommit no one can state
_problems contains findings.problem(lr, msg) if {
	some [lr, item] in _lr_items
	some res, value in _list(item, "maxLimitRequestRatio")
	resources.hidden(value)
	msg := sprintf("LimitRange's %s maxLimitRequestRatio is unknown until apply, so the overcommit it allows cannot be checked against the cap", [res])
}

_problems contains findings.problem(lr, "LimitRange's maxLimitRequestRatio is unknown until apply, so the overcommit it allows cannot be checked against the cap") if {
	some [lr, item] in _lr_items
	resources.hidden(object.get(item, "maxLimitRequestRatio", {}))
}

# limits (or one of them) unknown until apply: their defaults and ratios cannot be read
_problems contains findings.problem(lr, "LimitRange's limits are unknown until apply, so the defaults and ratios it sets cannot be checked against the cap") if {
	some lr in _limit_ranges
	spec := object.get(resources.inputs(lr), "spec", {})
	limits := object.get(resources.as_object(spec), "limits", [])
	_unknown_list(limits)
}


_unknown_list(l) if resources.hidden(l)

_unknown_list(l) if {
	is_array(l)
	some v in l
	resources.hidden(v)
}

_problems contains findings.problem(lr, msg) if {
	some [lr, item] in _lr_items
	some res, value in _list(item, "maxLimitRequestRatio")
	ratio := budget.quantity(value)
	ratio > _cap
	msg := sprintf("LimitRange allows %s overcommit of %sx; the cap is %sx", [res, fmt.two_decimals(ratio), fmt.two_decimals(_cap)])
}

# a workload whose pod spec, or part of the way to its containers, is unknown until apply
_problems contains findings.problem(w, "pod spec unknown until apply: its containers' limits cannot be checked against the overcommit cap") if {
	some w in resources.workloads(input.document)
	resources.unknown_pod_spec(w)
}
