package mlps.network_zones

import data.lib.findings
import data.lib.frameworks
import data.lib.resources

# METADATA
# title: "Separate network zones"
# description: >-
#   Nothing lands in the default VPC (security groups name their VPC, autoscaling groups their
#   subnets) and Kubernetes objects do not live in the default namespace.
# related_resources:
#   - ref: https://openstd.samr.gov.cn/bzgk/gb/newGbInfo?hcno=BAFB47E8874764186BDB7865E8344DAF
# custom:
#   control_id: MLPS-L3-8.1.2.1c
#   clause: "8.1.2.1 c)"
#   framework: mlps-l3
#   severity: mandatory
#   remediation: >-
#     Give security groups a vpcId and autoscaling groups vpcZoneIdentifiers of the stack's
#     subnets; put Kubernetes objects in their fleet's namespace.
violation contains findings.finding("MLPS-L3-8.1.2.1c", p.resource, p.message) if {
	frameworks.applies(input.policy, "mlps-l3")
	some p in _problems
}

_problems contains findings.problem(sg, "security group has no vpcId: it lands in the default VPC") if {
	some sg in resources.of_type(input.document, "aws:ec2/securityGroup:SecurityGroup")
	object.get(sg.inputs, "vpcId", "") == ""
}

_problems contains findings.problem(asg, "autoscaling group has no vpcZoneIdentifiers: it launches into the default VPC") if {
	some asg in resources.of_type(input.document, "aws:autoscaling/group:Group")
	count(object.get(asg.inputs, "vpcZoneIdentifiers", [])) == 0
}

_problems contains findings.problem(r, "Kubernetes object in the default namespace") if {
	some type in resources.k8s_types(input.document)
	not type in _cluster_scoped
	some i in resources.indices(type)
	r := input.document.resources[i]
	resources.namespace(r) == "default"
}

_cluster_scoped := {
	"kubernetes:core/v1:Namespace",
	"kubernetes:storage.k8s.io/v1:StorageClass",
	"kubernetes:scheduling.k8s.io/v1:PriorityClass",
	"kubernetes:core/v1:PersistentVolume",
	"kubernetes:rbac.authorization.k8s.io/v1:ClusterRole",
	"kubernetes:rbac.authorization.k8s.io/v1:ClusterRoleBinding",
	"kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinition",
	"pulumi:providers:kubernetes",
}
