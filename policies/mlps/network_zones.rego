package mlps.network_zones

import data.lib.compute
import data.lib.findings
import data.lib.frameworks
import data.lib.resources
import data.lib.routing

# METADATA
# title: "Separate network zones"
# description: >-
#   Nothing lands in the default VPC (security groups name their VPC, autoscaling groups their
#   subnets), compute holding personal or internal data does not run in a public subnet (one that
#   maps public IPs on launch or routes to an internet gateway) of the stack or, when EC2 was read
#   (seedance check --lookup), one the stack is given; and Kubernetes objects do not live in the
#   default namespace.
# related_resources:
#   - ref: https://openstd.samr.gov.cn/bzgk/gb/newGbInfo?hcno=BAFB47E8874764186BDB7865E8344DAF
# custom:
#   control_id: MLPS-L3-8.1.2.1c
#   clause: "8.1.2.1 c)"
#   framework: mlps-l3
#   severity: mandatory
#   remediation: >-
#     Give security groups a vpcId and autoscaling groups vpcZoneIdentifiers of the stack's
#     subnets, private ones for personal or internal data; put Kubernetes objects in their
#     fleet's namespace.
violation contains findings.finding("MLPS-L3-8.1.2.1c", p.resource, p.message) if {
	frameworks.applies(input.policy, "mlps-l3")
	some p in _problems
}

_problems contains findings.problem(sg, "security group has no vpcId: it lands in the default VPC") if {
	some sg in resources.of_type(input.document, "aws:ec2/securityGroup:SecurityGroup")
	object.get(sg.inputs, "vpcId", "") == ""
}

# a secret vpcId may name the default VPC (one unknown until apply is the stack's own VPC's output
# on a first deploy, and is left: the next preview shows it)
_problems contains findings.problem(sg, "security group vpcId is secret, so that it avoids the default VPC cannot be established") if {
	some sg in resources.of_type(input.document, "aws:ec2/securityGroup:SecurityGroup")
	object.get(sg.inputs, "vpcId", "") == "[secret]"
}

_problems contains findings.problem(asg, "autoscaling group has no vpcZoneIdentifiers: it launches into the default VPC") if {
	some asg in resources.of_type(input.document, "aws:autoscaling/group:Group")
	object.get(asg.inputs, "vpcZoneIdentifiers", []) in {[], set()}
}

# a subnet list that is not a list (the preview's "[unknown]") cannot be shown to avoid the default VPC
_problems contains findings.problem(asg, msg) if {
	some asg in resources.of_type(input.document, "aws:autoscaling/group:Group")
	subnets := object.get(asg.inputs, "vpcZoneIdentifiers", [])
	not is_array(subnets)
	not is_set(subnets)
	msg := sprintf("autoscaling group subnets cannot be established (%v): it may launch into the default VPC", [subnets])
}

# the data tier apart from the public one: sensitive compute in a public subnet of the document
_problems contains findings.problem(r, msg) if {
	some i in _placeable & resources.sensitive_indices
	r := input.document.resources[i]
	some s in routing.placed_in(r)
	reasons := routing.public_subnets[s]
	msg := sprintf("%s-data %s runs in subnet %s, which is or may be public (%s): sensitive data needs private subnets", [
		resources.class_at[i], _noun(r), input.document.resources[s].name, concat("; ", sort(reasons)),
	])
}

# the same for the subnets the stack is given, when EC2 was read (seedance check --lookup)
_problems contains findings.problem(r, msg) if {
	count(routing.given_subnets) > 0
	some i in _placeable & resources.sensitive_indices
	r := input.document.resources[i]
	some id in routing.placed_in_given(r)
	reasons := routing.given_public[id]
	msg := sprintf("%s-data %s runs in subnet %s, which EC2 describes as public (%s): sensitive data needs private subnets", [
		resources.class_at[i], _noun(r), id, concat("; ", sort(reasons)),
	])
}

# what runs instances in subnets: launch templates, instances, spot requests, launch
# configurations, spot fleets (by their launch specifications or launch template overrides), EC2
# Fleets (by their overrides) and autoscaling groups
_placeable := ((compute.indices | resources.indices(_asg_type)) | resources.indices(compute.spot_fleet)) | resources.indices(_ec2_fleet_type)

_asg_type := "aws:autoscaling/group:Group"

_ec2_fleet_type := "aws:ec2/fleet:Fleet"

_noun(r) := n if {
	n := _nouns[r.type]
} else := compute.noun(r)

_nouns := {_asg_type: "autoscaling group", _ec2_fleet_type: "EC2 Fleet", compute.spot_fleet: "spot fleet request"}

_problems contains findings.problem(r, "Kubernetes object in the default namespace") if {
	some type in resources.k8s_types(input.document)
	not _cluster_scoped(type)
	some i in resources.indices(type)
	r := input.document.resources[i]
	resources.namespace(r) == "default"
}

# a secret namespace may be default (one unknown until apply is a Namespace's output on a first
# deploy, and is left: the next preview shows it)
_problems contains findings.problem(r, "Kubernetes object's namespace is secret, so it may be the default namespace") if {
	some type in resources.k8s_types(input.document)
	not _cluster_scoped(type)
	some i in resources.indices(type)
	r := input.document.resources[i]
	resources.namespace(r) == "[secret]"
}

# Kubernetes kinds that live outside namespaces (their metadata.namespace is ignored), whatever
# the API version: group/Kind as in the Pulumi type token kubernetes:GROUP/VERSION:KIND
_cluster_scoped(type) if type == "pulumi:providers:kubernetes"

_cluster_scoped(type) if {
	parts := split(type, ":")
	count(parts) == 3
	group := regex.replace(parts[1], `/[^/]*$`, "")
	concat("/", [group, trim_suffix(parts[2], "Patch")]) in _cluster_scoped_kinds
}

_cluster_scoped_kinds := {
	"trainer.kubeflow.org/ClusterTrainingRuntime",
	"serving.kserve.io/ClusterServingRuntime",
	"argoproj.io/ClusterAnalysisTemplate",
	"apps.kruise.io/SidecarSet",
	"core/Namespace",
	"core/Node",
	"core/PersistentVolume",
	"core/ComponentStatus",
	"storage.k8s.io/StorageClass",
	"storage.k8s.io/CSIDriver",
	"storage.k8s.io/CSINode",
	"storage.k8s.io/VolumeAttachment",
	"storage.k8s.io/VolumeAttributesClass",
	"scheduling.k8s.io/PriorityClass",
	"rbac.authorization.k8s.io/ClusterRole",
	"rbac.authorization.k8s.io/ClusterRoleBinding",
	"apiextensions.k8s.io/CustomResourceDefinition",
	"apiregistration.k8s.io/APIService",
	"admissionregistration.k8s.io/MutatingWebhookConfiguration",
	"admissionregistration.k8s.io/ValidatingWebhookConfiguration",
	"admissionregistration.k8s.io/ValidatingAdmissionPolicy",
	"admissionregistration.k8s.io/ValidatingAdmissionPolicyBinding",
	"admissionregistration.k8s.io/MutatingAdmissionPolicy",
	"admissionregistration.k8s.io/MutatingAdmissionPolicyBinding",
	"networking.k8s.io/IngressClass",
	"networking.k8s.io/IPAddress",
	"networking.k8s.io/ServiceCIDR",
	"node.k8s.io/RuntimeClass",
	"certificates.k8s.io/CertificateSigningRequest",
	"certificates.k8s.io/ClusterTrustBundle",
	"flowcontrol.apiserver.k8s.io/FlowSchema",
	"flowcontrol.apiserver.k8s.io/PriorityLevelConfiguration",
	"policy/PodSecurityPolicy",
	"snapshot.storage.k8s.io/VolumeSnapshotClass",
	"snapshot.storage.k8s.io/VolumeSnapshotContent",
	"resource.k8s.io/DeviceClass",
	"resource.k8s.io/ResourceSlice",
	"internal.apiserver.k8s.io/StorageVersion",
	"authentication.k8s.io/TokenReview",
	"authentication.k8s.io/SelfSubjectReview",
	"authorization.k8s.io/SubjectAccessReview",
	"authorization.k8s.io/SelfSubjectAccessReview",
	"authorization.k8s.io/SelfSubjectRulesReview",
	# custom resources of add-ons that are cluster-scoped: network policies of other engines
	# (lib.network), the Gateway API's classes, and the node provisioners and GPU operator a GPU
	# platform runs
	"gateway.networking.k8s.io/GatewayClass",
	"policy.networking.k8s.io/AdminNetworkPolicy",
	"policy.networking.k8s.io/BaselineAdminNetworkPolicy",
	"cilium.io/CiliumClusterwideNetworkPolicy",
	"crd.projectcalico.org/GlobalNetworkPolicy",
	"projectcalico.org/GlobalNetworkPolicy",
	"projectcalico.org/StagedGlobalNetworkPolicy",
	"crd.antrea.io/ClusterNetworkPolicy",
	"karpenter.sh/NodePool",
	"karpenter.k8s.aws/EC2NodeClass",
	"nvidia.com/ClusterPolicy",
}
