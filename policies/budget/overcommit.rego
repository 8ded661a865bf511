package budget.overcommit

import data.lib.budget
import data.lib.findings
import data.lib.fmt
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

_items(lr) := [item |
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
	some lr in _limit_ranges
	ns := resources.namespace(lr)
	some item in _items(lr)
	object.get(item, "type", "") == "Container"
	default_limit := object.union(_list(item, "max"), _list(item, "default"))
	d := {
		"limit": default_limit,
		"request": object.union(object.union(_list(item, "min"), default_limit), _list(item, "defaultRequest")),
	}
}

# namespaces where a maxLimitRequestRatio makes Kubernetes refuse a container with no limit for the
# resource (a Container or Pod item)
_ratio_bound[ns] contains res if {
	some lr in _limit_ranges
	ns := resources.namespace(lr)
	some item in _items(lr)
	object.get(item, "type", "") in {"Container", "Pod"}
	some res, _ in _list(item, "maxLimitRequestRatio")
}

# a container's own limit or request for a resource: absent (undefined) unless it gives one
_own(c, field, res) := v if {
	is_object(c)
	rr := object.get(c, "resources", {})
	is_object(rr)
	list := object.get(rr, field, {})
	is_object(list)
	v := list[res]
}

# the limits a container may run with, and where each comes from
_limits(c, _, res) := {[v, ""] | v := _own(c, "limits", res)} if _own(c, "limits", res)

_limits(c, ns, res) := {[v, " with the LimitRange's default limit"] |
	some d in _container_items[ns]
	v := d.limit[res]
} if not _own(c, "limits", res)

# the requests: a request left out is the container's own limit (API defaulting), else the default
_requests(c, _, res) := {v | v := _own(c, "requests", res)} if _own(c, "requests", res)

_requests(c, _, res) := {v | v := _own(c, "limits", res)} if {
	not _own(c, "requests", res)
	_own(c, "limits", res)
}

_requests(c, ns, res) := {v |
	some d in _container_items[ns]
	v := d.request[res]
} if {
	not _own(c, "requests", res)
	not _own(c, "limits", res)
}

_pod_limited(spec, res) if {
	rr := object.get(spec, "resources", {})
	is_object(rr)
	lim := object.get(rr, "limits", {})
	is_object(lim)
	lim[res]
}

_problems contains findings.problem(w, msg) if {
	some w in resources.workloads(input.document)
	ns := resources.namespace(w)
	some spec in resources.pod_specs(w)
	some c in resources.containers(spec)
	some res in _resources
	some [limit_q, source] in _limits(c, ns, res)
	some request_q in _requests(c, ns, res)
	limit := budget.quantity(limit_q)
	request := budget.quantity(request_q)
	request > 0
	ratio := limit / request
	ratio > _cap
	msg := sprintf("container %s overcommits %s %sx (limit/request%s); the cap is %sx", [c.name, res, fmt.two_decimals(ratio), source, fmt.two_decimals(_cap)])
}

# no limit at all: neither its own nor a LimitRange default, and nothing that refuses or bounds it
_problems contains findings.problem(w, msg) if {
	some w in resources.workloads(input.document)
	ns := resources.namespace(w)
	some spec in resources.pod_specs(w)
	some c in resources.containers(spec)
	some res in _resources
	count(_limits(c, ns, res)) == 0
	not res in object.get(_ratio_bound, ns, set())
	not _pod_limited(spec, res)
	msg := sprintf("container %s sets no %s limit and no LimitRange of namespace %s gives one: it may use all the spare %s of its node, which no overcommit cap (%sx) bounds", [c.name, res, ns, res, fmt.two_decimals(_cap)])
}

_problems contains findings.problem(lr, msg) if {
	some lr in _limit_ranges
	some item in _items(lr)
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
