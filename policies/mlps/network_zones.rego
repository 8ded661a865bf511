package mlps.network_zones

import data.lib.compute
import data.lib.findings
import data.lib.frameworks
import data.lib.resources
import data.lib.routing

# METADATA
# title: "Separate network zones"
# description: >-
#   Nothing lands in the default VPC: security groups name a VPC (not an adopted DefaultVpc),
#   autoscaling groups their subnets, instances, spot requests and spot fleet launch
#   specifications a subnet (theirs, a network interface's or their launch template's), no compute
#   runs in an adopted DefaultSubnet, and RDS, DocumentDB, Neptune, Redshift, ElastiCache, DMS and
#   MQ name a subnet group of their own; compute holding personal or internal data does not run in
#   a public subnet (one that maps public IPs on launch or routes to an internet gateway; EKS
#   managed node groups by their subnetIds) of the
#   stack or, when EC2 was read (seedance check --lookup), one the stack is given; and Kubernetes
#   objects do not live in the default namespace.
# related_resources:
#   - ref: https://openstd.samr.gov.cn/bzgk/gb/newGbInfo?hcno=BAFB47E8874764186BDB7865E8344DAF
# custom:
#   control_id: MLPS-L3-8.1.2.1c
#   clause: "8.1.2.1 c)"
#   framework: mlps-l3
#   severity: mandatory
#   remediation: >-
#     Give security groups a vpcId, autoscaling groups vpcZoneIdentifiers and instances a subnetId
#     of the stack's subnets (private ones for personal or internal data), and data stores a subnet
#     group of them; put Kubernetes objects in their fleet's namespace.
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

# a security group or subnet in the default VPC the program adopts (DefaultVpc)
_problems contains findings.problem(r, msg) if {
	some t, noun in _vpc_members
	some r in resources.of_type(input.document, t)
	v := routing.default_vpc_of(r)
	msg := sprintf("%s is in the default VPC (its vpcId names %s, the adopted default VPC): give it a VPC of the stack", [noun, v.name])
}

_vpc_members := {"aws:ec2/securityGroup:SecurityGroup": "security group", routing.subnet_type: "subnet"}

# an instance, spot instance request or spot fleet launch specification that names no subnet:
# EC2 launches it into a default subnet of the default VPC
_problems contains findings.problem(r, msg) if {
	some i, parts in routing.no_subnet
	r := input.document.resources[i]
	some part in parts
	msg := sprintf("%s: EC2 launches it into a default subnet of the default VPC; name a private subnet of the stack (subnetId)", [routing.no_subnet_phrase(r, part)])
}

# compute placed in a default subnet the program adopts (DefaultSubnet), or in a subnet of the
# adopted default VPC
_problems contains findings.problem(r, msg) if {
	some i, subnets in routing.default_subnets
	r := input.document.resources[i]
	some s in subnets
	msg := sprintf("%s runs in subnet %s, which is in the default VPC: name a subnet of a VPC of the stack", [_noun(r), input.document.resources[s].name])
}

# Data stores that AWS places in the default VPC without a subnet group (or subnet ids) of their
# own, or with the one named default (the default VPC's): type -> [what to call it, the input]. An
# RDS read replica in its source's region takes the source's group, an ElastiCache cluster in a
# replication group the group's.
_subnet_group_inputs := {
	"aws:rds/instance:Instance": ["database instance", "dbSubnetGroupName"],
	"aws:rds/cluster:Cluster": ["database cluster", "dbSubnetGroupName"],
	"aws:docdb/cluster:Cluster": ["DocumentDB cluster", "dbSubnetGroupName"],
	"aws:neptune/cluster:Cluster": ["Neptune cluster", "neptuneSubnetGroupName"],
	"aws:redshift/cluster:Cluster": ["Redshift cluster", "clusterSubnetGroupName"],
	"aws:elasticache/cluster:Cluster": ["ElastiCache cluster", "subnetGroupName"],
	"aws:elasticache/replicationGroup:ReplicationGroup": ["ElastiCache replication group", "subnetGroupName"],
	"aws:dms/replicationInstance:ReplicationInstance": ["DMS replication instance", "replicationSubnetGroupId"],
	"aws:mq/broker:Broker": ["message broker", "subnetIds"],
}

_inherits_placement := {"replicateSourceDb", "replicationGroupId"}

_problems contains findings.problem(r, msg) if {
	some t, [noun, field] in _subnet_group_inputs
	some r in resources.of_type(input.document, t)
	not _inherits(r)
	v := object.get(r.inputs, field, null)
	v in {null, "", [], "default"}
	msg := sprintf("%s %s: AWS places it in the default VPC; give it a subnet group of the stack's private subnets", [noun, _without(v, field)])
}

_inherits(r) if {
	some k in _inherits_placement
	not object.get(r.inputs, k, null) in {null, ""}
}

_without(v, field) := sprintf("uses the default subnet group (%s default), the default VPC's", [field]) if v == "default" else := sprintf("names no subnet group (%s)", [field])

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

# an EKS node group's subnet list (or a subnet of it) the document does not show, and that no
# property dependency ties to subnets of the document, may name a public subnet: sensitive compute
# cannot be shown to run in private ones
_problems contains findings.problem(r, msg) if {
	some type, field in routing.node_group_types
	some i in resources.indices(type) & resources.sensitive_indices
	r := input.document.resources[i]
	hidden := _hidden_subnets(object.get(r.inputs, field, []))
	count(object.get(r, ["property_dependencies", field], [])) == 0 # no dependency ties the hidden ones to subnets
	msg := sprintf("%s-data EKS node group subnets (%s) cannot be established (%v): it may run in a public subnet", [resources.class_at[i], field, hidden])
}

# what of a subnet list the document does not show: the whole list, else its hidden items
_hidden_subnets(subnets) := subnets if {
	not is_array(subnets)
	not is_set(subnets)
} else := concat(", ", hidden) if {
	hidden := [sprintf("%v", [s]) | some s in subnets; resources.hidden(s)]
	count(hidden) > 0
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

# what runs instances in subnets (lib.routing)
_placeable := routing.placeable

_asg_type := "aws:autoscaling/group:Group"

_ec2_fleet_type := "aws:ec2/fleet:Fleet"

_noun(r) := n if {
	n := _nouns[r.type]
} else := compute.noun(r)

_nouns := {
	_asg_type: "autoscaling group", _ec2_fleet_type: "EC2 Fleet", compute.spot_fleet: "spot fleet request",
	"aws:eks/nodeGroup:NodeGroup": "EKS node group", "aws-native:eks:Nodegroup": "EKS node group",
}

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
	# (lib.network), the Gateway API's classes, the AWS Load Balancer Controller's IngressClassParams
	# (gdpr.no_public_network reads their scheme), and the node provisioners and GPU operator a GPU
	# platform runs
	"gateway.networking.k8s.io/GatewayClass",
	"elbv2.k8s.aws/IngressClassParams",
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
