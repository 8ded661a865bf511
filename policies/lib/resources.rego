# METADATA
# title: Resource document helpers
# description: >-
#   Accessors over the resource document (seedance.io/v1 ResourceDocument): resources by type,
#   tags and labels, data classification, Pulumi's string booleans.
# scope: package
package lib.resources

# Indexes are rules over the gate input's document, so each is built once per evaluation: a
# function scanning every resource inside a loop over resources is quadratic (10,000 resources).
# The `document` parameters below therefore must be input.document (they always are).
# Cost notes for the embedded engine (regorus), measured on 10,000 resources: every step of a loop
# costs about a microsecond and a function call a few, so the indexes below visit each resource
# once, test a type's prefix once per type rather than once per resource, and controls iterate the
# positions of the types they check. regorus also builds every rule of a package the first time a
# rule of it is referenced through an import (functions stay lazy), so index rules live in the
# package whose controls need them.
_by_type[r.type] contains i if {
	some i, r in input.document.resources
}

# the resource types of the document
types := object.keys(_by_type)

# a number, or one written as text ("22", "0.5": Pulumi string inputs may carry numbers so); undefined
# for anything else (the preview's "[unknown]"). One body with else branches: a number settles it at once.
number(v) := v if {
	is_number(v)
} else := to_number(v) if {
	is_string(v)
	regex.match(`^-?[0-9]+(\.[0-9]+)?$`, v)
}

# the regular expression of an AWS pattern with the wildcards * (any run of characters, "/" and
# ":" included) and ? (one character), anchored at both ends; every other character stands for itself
wildcard_regex(pattern) := concat("", ["^", wildcards, "$"]) if {
	escaped := regex.replace(pattern, `[.+^$()\[\]{}|\\]`, `\$0`)
	wildcards := replace(replace(escaped, "*", ".*"), "?", ".")
}

# the forms a reference to a resource may take: its recorded id, its URN, its logical name (which
# a mock runtime id, NAME-xxxxxxxx, carries); for indexes keyed by them (see lookup_forms)
reference_keys(r) := {k | some k in [object.get(r, "id", null), r.urn, r.name]; is_string(k)}

# the keys to look a reference up under in such an index
lookup_forms(ref) := {ref, mock_name(ref)}

# NAME for an id the mock runtime gives a resource, NAME-xxxxxxxx (8 hex digits), else the value
# itself (lib.routing.names and the indexes keyed by logical name read such ids through it)
# (string functions, not a regular expression: regorus pays for compiling one on every call)
mock_name(value) := substring(value, 0, count(value) - 9) if {
	is_string(value)
	count(value) > 9
	substring(value, count(value) - 9, 1) == "-"
	trim(substring(value, count(value) - 8, 8), "0123456789abcdef") == ""
} else := value

# positions of the resources of a type, in document order
indices(type) := object.get(_by_type, type, set())

of_type(_, type) := [input.document.resources[i] | some i in indices(type)]

of_types(_, types) := [input.document.resources[i] | some t in types; some i in indices(t)]

# the Kubernetes types in the document
k8s_types(_) := {type | some type, _ in _by_type; startswith(type, "kubernetes:")}

# positions of the AWS resources and of the Kubernetes objects (a comprehension fills a collection
# faster than a partial rule does in regorus)
aws_indices := {i |
	some type, positions in _by_type
	startswith(type, "aws:")
	some i in positions
}

k8s_indices := {i |
	some type, positions in _by_type
	startswith(type, "kubernetes:")
	some i in positions
}

# Tags of the AWS resources by position, as an object: the default tags of the resource's provider
# (pulumi:providers:aws defaultTags, which the provider adds to every resource it tags) under the
# resource's own tags (autoscaling groups list {key, value} pairs). Resources with tags of their own
# are here, and taggable resources without any when a provider declares default tags. Own tags that
# are not an object or a list (the preview's "[unknown]") count as none; their data class is unknown
# (see class_at). A local named `tags` would clash with the function tags(r) in regorus.
# Built per provider rather than per resource (provider_tags(r) gives the same tags): regorus pays
# a few microseconds for every function call and loop step, and this index is built on every
# evaluation, so the merge is skipped where one side is empty.
tags_at := object.union({i: {} | some i in _unknown_tags}, _own_tags) if {
	count(_provider_default_tags) == 0
} else := object.union(_provided_tags, {i: object.union(_all_provider_tags, object.get(_own_tags, i, {})) |
	some i in _unprovided
})

# the tags of the holders with a provider field, built per provider
_provided_tags := object.union_n([part |
	some p, positions in _holders_by_provider
	defaults := _defaults_for(p)
	some part in _merged(defaults, positions)
])

# tag holders without a provider field (the default provider's, as for null)
_unprovided := _tag_holders - object.keys(_provided_tags)

# the tags of the positions of one provider: its default tags under each resource's own
_merged(defaults, positions) := [
	object.filter(_own_tags, positions),
	{i: {} | some i in positions - _own_keys},
] if {
	count(defaults) == 0
}

_merged(defaults, positions) := [
	{i: object.union(defaults, _own_tags[i]) | some i in positions & _own_keys},
	{i: defaults | some i in positions - _own_keys},
] if {
	count(defaults) > 0
}

_tag_holders := object.keys(_raw_tags) | _default_tagged

_default_tagged := taggable_indices if {
	count(_provider_default_tags) > 0
} else := set()

# provider reference (whatever the resource's provider field holds) -> positions of the tag holders,
# when some provider declares default tags (every rule of this package is built on every evaluation)
_holders_by_provider[p] contains i if {
	count(_provider_default_tags) > 0
	some i in _tag_holders
	p := input.document.resources[i].provider
}

# the default tags for a provider reference, as provider_tags(r) gives them
_defaults_for(p) := object.get(_provider_default_tags, _provider_urn(p), {}) if {
	is_string(p)
} else := _all_provider_tags

_raw_tags := {i: raw | some i in aws_indices; raw := input.document.resources[i].inputs.tags}

_own_tags := object.union(
	{i: raw | some i, raw in _raw_tags; is_object(raw)},
	{i: {t.key: t.value | some t in raw} | some i, raw in _raw_tags; is_array(raw)},
)

_own_keys := object.keys(_own_tags)

# positions whose own tags are unknown until apply (not an object or a list)
_unknown_tags := object.keys(_raw_tags) - _own_keys

# provider URN -> its default tags; a placeholder or text that is not a JSON object gives none
_provider_default_tags := {p.urn: t |
	some p in of_type(input.document, "pulumi:providers:aws")
	t := object.get(json_object(object.get(p.inputs, "defaultTags", "{}")), "tags", {})
	is_object(t)
	count(t) > 0
}

# every provider's default tags merged, for resources that name no provider (the default provider)
_all_provider_tags := object.union_n([t | some _, t in _provider_default_tags])

# the default tags that apply to a resource: its provider's (a reference is the provider's URN,
# possibly followed by ::ID), else those of every AWS provider in the document
provider_tags(r) := object.get(_provider_default_tags, _provider_urn(r.provider), {}) if {
	is_string(object.get(r, "provider", null))
} else := _all_provider_tags

# the provider a resource is created under, for comparing two resources': its provider's URN (the
# reference without its id), or "" for the default provider (no provider recorded)
provider_key(r) := _provider_urn(p) if {
	p := object.get(r, "provider", null)
	is_string(p)
} else := ""

_provider_urn(ref) := concat("::", array.slice(parts, 0, 4)) if {
	parts := split(ref, "::")
	count(parts) > 4
} else := ref

# a JSON object given as text or as an object; undefined for anything else
json_object(raw) := doc if {
	is_string(raw)
	json.is_valid(raw)
	doc := json.unmarshal(raw)
	is_object(doc)
}

json_object(raw) := raw if is_object(raw)

# the region an ARN names (arn:PARTITION:SERVICE:REGION:...); undefined when it names none
arn_region(arn) := parts[3] if {
	is_string(arn)
	parts := split(arn, ":")
	count(parts) > 4
	parts[3] != ""
}

# an ECS task definition's containers, as objects: pulumi-aws gives containerDefinitions as JSON
# text, aws-native as a list; undefined for a value the document does not show
container_definitions(raw) := [c | some c in raw; is_object(c)] if is_array(raw)

container_definitions(raw) := [c | some c in defs; is_object(c)] if {
	is_string(raw)
	json.is_valid(raw)
	defs := json.unmarshal(raw)
	is_array(defs)
}

# data class (seedance.io/data-class label) of the labelled Kubernetes objects by position
_labelled := {i: class |
	some i in k8s_indices
	class := input.document.resources[i].inputs.metadata.labels["seedance.io/data-class"]
}

# The data class by position, normalised: the known classes (personal, internal, public) in any
# case; a class that is set but not one of them ("confidential", "[unknown]", a non-string) and AWS
# tags that are unknown until apply count as personal, the most protected class (fail closed). A
# resource without a data-class tag or label has no class ("").
known_classes := {"personal", "internal", "public"}

normalise_class(v) := lower(v) if {
	is_string(v)
	lower(v) in known_classes
} else := "" if {
	v == ""
} else := "personal"

# (the data-class tag of tags_at, read from the own tags and once per provider's default tags)
class_at := object.union_n([
	{i: _normalised[c] | some p, positions in _holders_by_provider; c := _defaults_for(p)["data-class"]; some i in positions},
	{i: _normalised[c] | c := _all_provider_tags["data-class"]; some i in _unprovided},
	{i: _normalised[c] | some i, c in _own_class},
	{i: "personal" | some i in _unknown_tags},
	{i: _normalised[c] | some i, c in _labelled},
	{i: _normalised[c] | some i, c in _native_class},
	{i: "personal" | some i in _native_unknown},
])

_own_class := {i: c | some i, t in _own_tags; c := t["data-class"]}

# aws-native resources: the data-class tag among their own tags (a list of {key, value}, or an
# object); tags unknown until apply count as personal, as for pulumi-aws resources. Their
# provider's default tags are not read.
_native_tags := {i: raw |
	some type, positions in _by_type
	startswith(type, "aws-native:")
	some i in positions
	raw := input.document.resources[i].inputs.tags
}

_native_class := object.union(
	{i: c | some i, raw in _native_tags; is_object(raw); c := raw["data-class"]},
	{i: t.value | some i, raw in _native_tags; is_array(raw); some t in raw; t.key == "data-class"},
)


# the own tags of aws-native resources by position, as an object (tags_at holds pulumi-aws resources)
native_tags_at := object.union(
	{i: raw | some i, raw in _native_tags; is_object(raw)},
	{i: {t.key: t.value | some t in raw} | some i, raw in _native_tags; is_array(raw)},
)

# positions of aws-native resources whose own tags are unknown until apply (not an object or a list)
_native_unknown := object.keys(_native_tags) - object.keys(native_tags_at)

# every data-class value in the document, normalised once
_normalised := {v: normalise_class(v) | some v in _class_values}

_class_values := {c | some _, c in _own_class} | {c | some _, c in _labelled} | {c | some _, c in _native_class} | {c |
	some p, _ in _holders_by_provider
	c := _defaults_for(p)["data-class"]
} | {c | c := _all_provider_tags["data-class"]}

_class_by_urn := {input.document.resources[i].urn: c | some i, c in class_at}

# positions by data class: AWS tag data-class, Kubernetes label seedance.io/data-class
personal_indices := {i | some i, c in class_at; c == "personal"}

sensitive_indices := personal_indices | {i | some i, c in class_at; c == "internal"}

# positions of taggable AWS resources
taggable_indices := {i |
	some type, positions in _by_type
	startswith(type, "aws:")
	not type in untaggable_aws
	some i in positions
	not input.document.resources[i].custom != true # custom, or no flag (a builtin call per resource costs more)
}

# positions of the aws-native resources (custom, or no flag), which have no untaggable helpers to
# leave out: the residency rules hold every one of them to the region lists
native_indices := {i |
	some type, positions in _by_type
	startswith(type, "aws-native:")
	some i in positions
	not input.document.resources[i].custom != true
}

inputs(r) := object.get(r, "inputs", {})

is_aws(r) if startswith(r.type, "aws:")

is_k8s(r) if startswith(r.type, "kubernetes:")

# tags: AWS tags as an object (autoscaling groups carry a list of {key, value}); Kubernetes labels.
tags(r) := {t.key: t.value | some t in inputs(r).tags} if {
	is_aws(r)
	is_array(inputs(r).tags)
} else := object.get(inputs(r), "tags", {}) if {
	is_aws(r)
} else := object.get(inputs(r), ["metadata", "labels"], {}) if {
	is_k8s(r)
} else := {}

# the normalised data class of a resource (see class_at), "" when it has none
data_class(r) := object.get(_class_by_urn, r.urn, "")

personal(r) if data_class(r) == "personal"

# Pulumi's AWS provider types some booleans as strings ("true"); accept both spellings.
truthy(v) if v == true

truthy(v) if v == "true"

# an object's namespace: its own metadata.namespace, else the namespace its Kubernetes provider puts
# objects without one in (pulumi:providers:kubernetes `namespace`), else "default"
namespace(r) := ns if {
	ns := r.inputs.metadata.namespace
} else := ns if {
	provider := object.get(r, "provider", null)
	is_string(provider) # a document may record no provider (null): the default one
	ns := _k8s_provider_namespace[_provider_urn(provider)]
} else := "default"

_k8s_provider_namespace[p.urn] := ns if {
	some i in indices("pulumi:providers:kubernetes")
	p := input.document.resources[i]
	ns := p.inputs.namespace
	is_string(ns)
	ns != ""
}

name_of(r) := object.get(inputs(r), ["metadata", "name"], r.name)

# the region a resource lives in: its own, else the stack's
region(r, policy) := r.region if {
	is_string(object.get(r, "region", null))
} else := policy.cloud.region

# kms_alias_aws: an AWS-managed key reference (alias/aws/...) rather than a customer key
aws_managed_key(k) if contains(k, "alias/aws/")

# workloads: Kubernetes objects carrying a pod template (or pods themselves) with their pod spec
# The Kubernetes kinds that run pods, in any API version the provider has (apps/v1beta2,
# batch/v1beta1, extensions/v1beta1, ...) and as server-side patches (DeploymentPatch, ...): the
# types of the document that are one of them.
workload_kinds := {"Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "ReplicationController", "Job", "CronJob", "Pod"}

# the API groups of those kinds ("core" is the provider's name for the legacy group)
_workload_groups := {"core", "apps", "batch", "extensions"}

# Custom resources that run pods from pod specs they embed, at paths that differ by kind, by API
# group: Kubeflow's training jobs (PyTorchJob and the other *ReplicaSpecs kinds, MPIJob), notebooks
# and Trainer runtimes, JobSet, LeaderWorkerSet, KubeRay, Volcano jobs, KServe inference services
# and serving runtimes, Knative services, Argo Rollouts, OpenKruise workloads and AppWrapper.
# Every object under such a resource's spec that holds a list of containers counts as a pod spec.
pod_template_kinds := {
	"kubeflow.org": {"PyTorchJob", "TFJob", "MPIJob", "XGBoostJob", "PaddleJob", "JAXJob", "MXJob", "Notebook"},
	"trainer.kubeflow.org": {"TrainingRuntime", "ClusterTrainingRuntime"},
	"jobset.x-k8s.io": {"JobSet"},
	"leaderworkerset.x-k8s.io": {"LeaderWorkerSet"},
	"ray.io": {"RayCluster", "RayJob", "RayService"},
	"batch.volcano.sh": {"Job"},
	"serving.kserve.io": {"InferenceService", "ServingRuntime", "ClusterServingRuntime", "LLMInferenceService"},
	"serving.knative.dev": {"Service", "Configuration", "Revision"},
	"argoproj.io": {"Rollout", "AnalysisTemplate", "ClusterAnalysisTemplate"},
	"apps.kruise.io": {"CloneSet", "StatefulSet", "DaemonSet", "BroadcastJob", "AdvancedCronJob", "UnitedDeployment", "SidecarSet"},
	"workload.codeflare.dev": {"AppWrapper"},
}

_embeds_pods(type) if kind(type) in object.get(pod_template_kinds, api_group(type), set())

# the cluster-scoped kinds among them: templates whose pods run in the namespaces of their users
cluster_scoped_workload_kinds := {"ClusterTrainingRuntime", "ClusterServingRuntime", "ClusterAnalysisTemplate", "SidecarSet"}

# the API group of a Kubernetes type: kubernetes:kubeflow.org/v1:PyTorchJob -> kubeflow.org
api_group(type) := split(split(type, ":")[1], "/")[0]

workload_types := {t |
	some t in k8s_types(input.document)
	kind(t) in workload_kinds
	api_group(t) in _workload_groups
} | {t |
	some t in k8s_types(input.document)
	_embeds_pods(t)
}

# a Kubernetes type's kind, whatever its API version, patches included:
# kubernetes:apps/v1:DeploymentPatch -> Deployment
kind(type) := trim_suffix(parts[count(parts) - 1], "Patch") if parts := split(type, ":")

# a server-side patch (kubernetes:...:KindPatch): it changes a live object the document does not hold
is_patch(r) if endswith(r.type, "Patch")

# A value the document holds but does not show: a preview's "[unknown]" (known only at apply) or
# Pulumi's secret marker "[secret]" (seedance/synth/document.py SECRET). The gate cannot read
# either, so a rule must judge it as the worst value it could hold (fail closed): a secret is
# hidden from the gate exactly like a value unknown until apply.
placeholders := {"[unknown]", "[secret]"}

hidden(v) if v in placeholders

# a value that is not such a placeholder (undefined for an undefined value, as `!=` is)
shown(v) if not v in placeholders

# why a hidden value cannot be read, for a message: "unknown until apply" or "secret"
hidden_why(v) := "unknown until apply" if v == "[unknown]"

hidden_why(v) := "secret" if v == "[secret]"

# a string known now, not a preview's "[unknown]" or "[secret]" placeholder
settled(v) if {
	is_string(v)
	shown(v)
}

# positions of the Kubernetes objects of a kind, of every API version, patches included
kind_indices(k) := {i |
	some t in k8s_types(input.document)
	kind(t) == k
	some i in indices(t)
}

# the pod specs a workload runs: one for Kubernetes' own kinds, every embedded one for the custom
# resources of pod_template_kinds (a spec unknown until apply holds none)
pod_specs(r) := {s | s := pod_spec(r); is_object(s)} if api_group(r.type) in _workload_groups

pod_specs(r) := _walked_pod_specs(r) if {
	_embeds_pods(r.type)
	not _kserve_inference_service(r.type)
	not _united_deployment(r.type)
}

# every object holding a list of containers under the spec, not under metadata or a patch, its
# containers named after where it sits (Worker/pytorch for a PyTorchJob's workers, tasks.ps/tf for a
# Volcano job's ps task), so a finding says which pods it is about
_walked_pod_specs(r) := {_named_spec(spec, path, v) |
	spec := object.get(inputs(r), "spec", {})
	some path, v
	walk(spec, [path, v])
	_walked_pod(path, v)
}

# the same, container names as written: a UnitedDeployment's subset patches merge by them
_raw_walked_pod_specs(r) := {v |
	some path, v
	walk(object.get(inputs(r), "spec", {}), [path, v])
	_walked_pod(path, v)
}

_walked_pod(path, v) if {
	is_object(v)
	is_array(object.get(v, "containers", null))
	not _in_metadata(path)
	not _in_patch(path)
}

_named_spec(root, path, v) := object.union(v, {key: _named_in(label, l) |
	some key in ["containers", "initContainers"]
	l := object.get(v, key, null)
	is_array(l)
}) if {
	label := _place(root, path)
	label != ""
} else := v

# where a pod spec sits under a resource's spec: the keys on the way, less the ones every template
# has (spec, template), a Kubeflow job's *ReplicaSpecs and the pod spec's own; a list element by
# its name (groupName for KubeRay's worker groups), else its position
_place(root, path) := concat(".", [part |
	some i, key in path
	part := _path_part(root, path, i, key)
])

_path_part(_, _, _, key) := key if {
	is_string(key)
	not key in {"spec", "template", "jobTemplate"}
	not endswith(key, "ReplicaSpecs")
}

_path_part(root, path, i, key) := _element_name(as_object(object.get(root, array.slice(path, 0, i + 1), null)), key) if is_number(key)

_element_name(el, i) := n if {
	n := object.get(el, "name", null)
	is_string(n)
} else := n if {
	n := object.get(el, "groupName", null)
	is_string(n)
} else := sprintf("%v", [i])


# an OpenKruise UnitedDeployment: its template's pod spec, and that spec with each subset's
# strategic-merge patch applied (pod fields replaced, containers merged by name, new ones added)
pod_specs(r) := _raw_walked_pod_specs(r) | {merged |
	some base in _raw_walked_pod_specs(r)
	topology := object.get(object.get(inputs(r), "spec", {}), "topology", {})
	is_object(topology)
	some subset in list_at(topology, "subsets")
	is_object(subset)
	spec := object.get(subset, ["patch", "spec"], null)
	is_object(spec)
	merged := _merge_pod(_merge_pod(base, object.remove(spec, ["template"])), _nested_patch(spec))
} if _united_deployment(r.type)

# a subset's patch is a strategic-merge patch of the pod template (PodTemplateSpec), so its spec
# patches the pod spec; a workload-shaped patch (spec.template.spec) is applied too, so that no
# form of it goes unread
_nested_patch(spec) := p if {
	p := object.get(spec, ["template", "spec"], null)
	is_object(p)
} else := {}

_united_deployment(type) if {
	api_group(type) == "apps.kruise.io"
	kind(type) == "UnitedDeployment"
}

_merge_pod(base, patch) := object.union(object.union(base, object.remove(patch, ["containers", "initContainers"])), {
	"containers": _merge_containers(list_at(base, "containers"), list_at(patch, "containers")),
	"initContainers": _merge_containers(list_at(base, "initContainers"), list_at(patch, "initContainers")),
})

_merge_containers(base, patch) := array.concat(
	[merged |
		some c in base
		is_object(c)
		same := [p | some p in patch; is_object(p); object.get(p, "name", null) == object.get(c, "name", "")]
		merged := _merge_one(c, same)
	],
	[p | some p in patch; is_object(p); not object.get(p, "name", null) in {object.get(c, "name", "") | some c in base; is_object(c)}],
)

_merge_one(c, []) := c

_merge_one(c, [p]) := object.union(c, p)

# a KServe InferenceService: each component (predictor, transformer, explainer) is a pod spec whose
# pod fields sit inline, with its containers and, inline too, the model server's container (model,
# or a framework key such as pytorch), which KServe names kserve-container. Container names carry
# the component (predictor/kserve-container), so a finding says which pods it is about.
pod_specs(r) := {pod |
	spec := object.get(inputs(r), "spec", {})
	is_object(spec)
	some component in ["predictor", "transformer", "explainer"]
	c := object.get(spec, component, null)
	is_object(c)
	servers := [object.union({"name": "kserve-container"}, m) | some key in _kserve_servers; m := object.get(c, key, null); is_object(m)]
	pod := object.union(c, {"containers": _named_in(component, array.concat(list_at(c, "containers"), servers))})
} | {pod |
	# multi-node serving: the predictor's worker pods
	spec := object.get(inputs(r), "spec", {})
	is_object(spec)
	worker := object.get(spec, ["predictor", "workerSpec"], null)
	is_object(worker)
	pod := object.union(worker, {"containers": _named_in("predictor.workerSpec", list_at(worker, "containers"))})
} if _kserve_inference_service(r.type)

# containers named after the part of the resource they run in; one unknown until apply stays as it is
_named_in(part, containers) := [named |
	some c in containers
	named := _prefixed(part, c)
]

_prefixed(part, c) := object.union(c, {"name": sprintf("%s/%v", [part, object.get(c, "name", "(unnamed)")])}) if is_object(c)

_prefixed(_, c) := c if not is_object(c)

_kserve_inference_service(type) if {
	api_group(type) == "serving.kserve.io"
	kind(type) == "InferenceService"
}

_kserve_servers := ["model", "sklearn", "xgboost", "tensorflow", "pytorch", "triton", "onnx", "huggingface", "pmml", "lightgbm", "paddle", "alibi", "art"]

# under metadata: labels and annotations, not a pod spec
_in_metadata(path) if {
	some key in path
	key == "metadata"
}

# inside a strategic-merge patch (OpenKruise's UnitedDeployment subsets): a part of a pod spec, which
# pod_specs merges into the template
_in_patch(path) if {
	some i, key in path
	key == "patch"
	i < count(path) - 1
}

pod_spec(r) := inputs(r).spec if kind(r.type) == "Pod"

pod_spec(r) := inputs(r).spec.jobTemplate.spec.template.spec if kind(r.type) == "CronJob"

pod_spec(r) := inputs(r).spec.template.spec if {
	r.type in workload_types
	not kind(r.type) in {"Pod", "CronJob"}
}

# a pod spec's containers, init containers included (a list unknown until apply holds none, and a
# container unknown until apply is left out: see unknown_pod_spec)
containers(spec) := [c | some c in array.concat(list_at(spec, "containers"), list_at(spec, "initContainers")); is_object(c)]

# the list at o[key]; absent, or anything but a list (a preview's "[unknown]"), gives none
list_at(o, key) := l if {
	l := object.get(o, key, [])
	is_array(l)
} else := []

# x when it is an object, else {} (absent, or a preview's "[unknown]")
as_object(x) := x if is_object(x)

as_object(x) := {} if not is_object(x)

# a workload whose pods cannot all be read before apply: its spec, a template or pod spec on the
# way to the containers, a list of containers or one container is a preview's "[unknown]", so
# the rules that read pods must report it rather than pass it
unknown_pod_spec(r) if not is_object(object.get(inputs(r), "spec", {}))

unknown_pod_spec(r) if {
	some path, v
	walk(object.get(inputs(r), "spec", {}), [path, v])
	hidden(v)
	_structural(path)
	not _in_metadata(path)
}

# why, for a message: "unknown until apply", "secret", or both ("secret, unknown until apply")
pod_spec_why(r) := concat(", ", whys) if {
	spec := object.get(inputs(r), "spec", {})
	whys := sort({hidden_why(v) |
		some path, v
		walk(spec, [path, v])
		hidden(v)
		_spec_part(path)
	})
	count(whys) > 0
} else := "unknown until apply"

_spec_part(path) if count(path) == 0

_spec_part(path) if {
	_structural(path)
	not _in_metadata(path)
}

_structural_keys := {"template", "jobTemplate", "containers", "initContainers", "tasks", "components", "predictor", "transformer", "explainer", "rayClusterConfig", "patch"} | {k | some k in _kserve_servers}

# lists and maps of pod templates: an element unknown until apply is a whole template
_template_collections := {"containers", "initContainers", "tasks", "components", "replicatedJobs", "workerGroupSpecs"}

_structural(path) if {
	count(path) > 1
	parent := path[count(path) - 2]
	is_string(parent)
	_collection(parent)
}

_collection(key) if key in _template_collections

_collection(key) if endswith(key, "ReplicaSpecs")

_structural(path) if path[count(path) - 1] in _structural_keys

# a spec: the resource's own, or a template's (not a volume claim template's)
_structural(path) if {
	path[count(path) - 1] == "spec"
	_template_key(path, count(path) - 2)
}

_template_key(path, i) if path[i] in {"template", "jobTemplate"}

_template_key(path, i) if {
	is_string(path[i])
	endswith(path[i], "Template")
	not contains(path[i], "volumeClaim")
}

_structural(path) if {
	key := path[count(path) - 1]
	is_string(key)
	not contains(key, "volumeClaim")
	some suffix in ["Spec", "Specs", "Template", "Jobs"]
	endswith(key, suffix)
}


workloads(_) := [input.document.resources[i] | some t in workload_types; some i in indices(t)]

# credential-like keys in a ConfigMap or an env var
credential_key(k) if {
	is_string(k)
	regex.match(`(?i)(password|passwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|credential)`, k)
}

# [position, key] of the ConfigMap data keys that look like credentials (built once, when asked)
credential_config_keys(_) := _credential_config_keys

_credential_config_keys contains [i, key] if {
	some i in indices("kubernetes:core/v1:ConfigMap")
	some key, _ in object.get(input.document.resources[i].inputs, "data", {})
	credential_key(key)
}

# resources that can be tagged (everything the AWS provider tags except helpers with no tags input)
untaggable_aws := {
	"aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock",
	"aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration",
	"aws:s3/bucketVersioning:BucketVersioning",
	"aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration",
	"aws:s3/bucketPolicy:BucketPolicy",
	"aws:s3/bucketLogging:BucketLogging",
	"aws:s3/bucketReplicationConfig:BucketReplicationConfig",
	"aws:s3/bucketObjectLockConfiguration:BucketObjectLockConfiguration",
	"aws:s3/bucketAcl:BucketAcl",
	"aws:s3/bucketOwnershipControls:BucketOwnershipControls",
	"aws:autoscaling/lifecycleHook:LifecycleHook",
	"aws:autoscaling/schedule:Schedule",
	"aws:sns/topicSubscription:TopicSubscription",
	"aws:sns/topicPolicy:TopicPolicy",
	"aws:ec2/securityGroupRule:SecurityGroupRule",
	"aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule",
	"aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule",
	"aws:iam/rolePolicy:RolePolicy",
	"aws:iam/rolePolicyAttachment:RolePolicyAttachment",
	"aws:kms/alias:Alias",
	"aws:ec2/amiLaunchPermission:AmiLaunchPermission",
	"aws:ec2/snapshotCreateVolumePermission:SnapshotCreateVolumePermission",
	# (these take no tags input either: pulumi-aws's Args have no `tags`)
	"aws:s3/bucketServerSideEncryptionConfigurationV2:BucketServerSideEncryptionConfigurationV2",
	"aws:s3/bucketVersioningV2:BucketVersioningV2",
	"aws:s3/bucketLifecycleConfigurationV2:BucketLifecycleConfigurationV2",
	"aws:s3/bucketLoggingV2:BucketLoggingV2",
	"aws:s3/bucketAclV2:BucketAclV2",
	"aws:s3/bucketCorsConfigurationV2:BucketCorsConfigurationV2",
	"aws:s3/bucketWebsiteConfigurationV2:BucketWebsiteConfigurationV2",
	"aws:s3/bucketObjectLockConfigurationV2:BucketObjectLockConfigurationV2",
	"aws:s3/bucketRequestPaymentConfigurationV2:BucketRequestPaymentConfigurationV2",
	"aws:s3/bucketAccelerateConfigurationV2:BucketAccelerateConfigurationV2",
	"aws:s3/bucketIntelligentTieringConfiguration:BucketIntelligentTieringConfiguration",
	"aws:s3/bucketMetric:BucketMetric",
	"aws:s3/bucketNotification:BucketNotification",
	"aws:s3/accountPublicAccessBlock:AccountPublicAccessBlock",
	"aws:ec2/route:Route",
	"aws:ec2/routeTableAssociation:RouteTableAssociation",
	"aws:ec2/mainRouteTableAssociation:MainRouteTableAssociation",
	"aws:ec2/volumeAttachment:VolumeAttachment",
	"aws:ec2/networkInterfaceAttachment:NetworkInterfaceAttachment",
	"aws:ec2/networkInterfaceSecurityGroupAttachment:NetworkInterfaceSecurityGroupAttachment",
	"aws:ec2/vpcEndpointPolicy:VpcEndpointPolicy",
	"aws:ec2/vpcEndpointRouteTableAssociation:VpcEndpointRouteTableAssociation",
	"aws:ec2/vpcEndpointSubnetAssociation:VpcEndpointSubnetAssociation",
	"aws:lambda/permission:Permission",
	"aws:lambda/functionUrl:FunctionUrl",
	"aws:backup/selection:Selection",
	"aws:iam/policyAttachment:PolicyAttachment",
	"aws:iam/userPolicyAttachment:UserPolicyAttachment",
	"aws:iam/groupPolicyAttachment:GroupPolicyAttachment",
	"aws:iam/userPolicy:UserPolicy",
	"aws:iam/groupPolicy:GroupPolicy",
	"aws:iam/userLoginProfile:UserLoginProfile",
	"aws:lb/targetGroupAttachment:TargetGroupAttachment",
	"aws:lb/listenerCertificate:ListenerCertificate",
	"aws:autoscaling/attachment:Attachment",
	"aws:autoscaling/notification:Notification",
	"aws:cloudwatch/logSubscriptionFilter:LogSubscriptionFilter",
	"aws:cloudwatch/logStream:LogStream",
	"aws:cloudwatch/eventTarget:EventTarget",
	"aws:cloudwatch/logDestinationPolicy:LogDestinationPolicy",
	"aws:cloudwatch/logResourcePolicy:LogResourcePolicy",
	"aws:kms/grant:Grant",
	"aws:kms/keyPolicy:KeyPolicy",
	"aws:eks/accessPolicyAssociation:AccessPolicyAssociation",
	"aws:sqs/queuePolicy:QueuePolicy",
	"aws:ecr/repositoryPolicy:RepositoryPolicy",
	"aws:ecr/lifecyclePolicy:LifecyclePolicy",
	"aws:apigateway/methodSettings:MethodSettings",
}

taggable(r) if {
	is_aws(r)
	object.get(r, "custom", true) == true
	not r.type in untaggable_aws
}

# IAM / resource policies arrive as JSON strings (or objects); statements as a list. A string that
# is not JSON (the preview's "[unknown]" placeholder) has no statements to check.
policy_statements(doc) := _statements(p) if {
	is_string(doc)
	json.is_valid(doc)
	p := json.unmarshal(doc)
	is_object(p)
}

policy_statements(doc) := _statements(doc) if is_object(doc)

_statements(p) := s if {
	s := p.Statement
	is_array(s)
} else := [p.Statement] if {
	is_object(p.Statement)
} else := []

# A resource policy document (bucket, key, queue, topic, domain policy) that is secret, whole or in
# part (its Statement; a statement's Effect or Principal): no preview shows it, so rules judge it as
# possibly admitting anyone. One unknown until apply stays judged as absent (README, Known limits).
secret_document(doc) if doc == "[secret]"

secret_document(doc) if json_object(doc).Statement == "[secret]"

secret_document(doc) if "[secret]" in policy_statements(doc)

secret_document(doc) if {
	some st in policy_statements(doc)
	is_object(st)
	object.get(st, "Effect", "Allow") in {"Allow", "[secret]"}
	_secret_or_star(st)
	not _narrowing_condition(st)
	_secret_part(st)
}

_secret_or_star(st) if principal_star(st)

_secret_or_star(st) if _secret_principal(object.get(st, "Principal", null))

_secret_part(st) if st.Effect == "[secret]"

_secret_part(st) if _secret_principal(object.get(st, "Principal", null))

_secret_principal(p) if p == "[secret]"

_secret_principal(p) if {
	is_object(p)
	some v in p
	"[secret]" in as_list(v)
}

# the message for such a document: NOUN is secret, so public access cannot be ruled out
secret_document_message(noun) := sprintf("%s is secret, so public access cannot be ruled out", [noun])

# the elements of a list or set (a set as a list); none of anything else, such as a preview's
# "[unknown]" placeholder where a list is unknown until apply (callers that must not pass such a
# value check for it themselves)
elements(v) := v if is_array(v)

elements(v) := [x | some x in v] if is_set(v)

elements(v) := [] if {
	not is_array(v)
	not is_set(v)
}

as_list(x) := x if is_array(x)

as_list(x) := [x] if not is_array(x)

principal_star(statement) if statement.Principal == "*"

principal_star(statement) if {
	is_object(statement.Principal)
	some p in as_list(object.get(statement.Principal, "AWS", []))
	p == "*"
}

# NotPrincipal: everyone except the principals it names
principal_star(statement) if "NotPrincipal" in object.keys(statement)

# Allow to everyone unless a condition narrows it to an account, the organisation or a VPC
# (endpoint). kms:ViaService is not one: it limits the AWS service a request comes through, not
# whose request it is, and principals of every account call through that service (the policies of
# AWS-managed keys pair it with kms:CallerAccount).
unconditioned_public_allow(statement) if {
	is_object(statement) # a statement that is a placeholder: secret_document
	object.get(statement, "Effect", "Allow") == "Allow"
	principal_star(statement)
	not _narrowing_condition(statement)
}

_narrowing_keys := {"aws:sourcevpce", "aws:sourcevpc", "aws:principalorgid", "aws:principalaccount", "aws:sourceaccount", "kms:calleraccount"}

_narrowing_condition(statement) if narrows(statement, _narrowing_keys)

# narrows(statement, keys): a condition on one of keys (lower case) that admits only the values it
# names: a positive operator (no Not..., ...IfExists or Null: those let the others in) and concrete
# values (no wildcards)
_positive_operators := {"stringequals", "stringequalsignorecase", "stringlike", "arnequals", "arnlike"}

narrows(statement, keys) if {
	some operator, clause in object.get(statement, "Condition", {})
	lower(operator) in _positive_operators
	is_object(clause)
	some key, values in clause
	lower(key) in keys
	names := as_list(values)
	count(names) > 0
	every v in names {
		is_string(v)
		v != ""
		not contains(v, "*")
		not contains(v, "?")
		not contains(v, "${") # a policy variable (${aws:PrincipalAccount}) matches whoever asks
	}
}
