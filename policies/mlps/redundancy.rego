package mlps.redundancy

import data.lib.findings
import data.lib.fleets
import data.lib.frameworks
import data.lib.resources

# METADATA
# title: "Redundancy"
# description: >-
#   Autoscaling groups span at least two subnets (availability zones); groups that run spot use
#   at least two instance types; gold-tier groups keep an on-demand base of at least one;
#   Deployments run at least two replicas covered by a PodDisruptionBudget.
# related_resources:
#   - ref: https://openstd.samr.gov.cn/bzgk/gb/newGbInfo?hcno=BAFB47E8874764186BDB7865E8344DAF
# custom:
#   control_id: MLPS-L3-8.1.2.1e
#   clause: "8.1.2.1 e) / 8.1.4.9 c)"
#   framework: mlps-l3
#   severity: mandatory
#   remediation: >-
#     List subnets in two or more AZs, add instance-type overrides, set onDemandBaseCapacity >= 1
#     on gold fleets, and run Deployments with replicas >= 2 and a PodDisruptionBudget.
violation contains findings.finding("MLPS-L3-8.1.2.1e", p.resource, p.message) if {
	frameworks.applies(input.policy, "mlps-l3")
	some p in _problems
}

_asgs := resources.of_type(input.document, "aws:autoscaling/group:Group")

_problems contains findings.problem(asg, msg) if {
	some asg in _asgs
	n := count(object.get(asg.inputs, "vpcZoneIdentifiers", object.get(asg.inputs, "availabilityZones", [])))
	n < 2
	msg := sprintf("autoscaling group spans %d subnet(s); at least 2 availability zones required", [n])
}

_problems contains findings.problem(asg, msg) if {
	some asg in _asgs
	fleets.spot_share(asg) > 0
	n := count(fleets.instance_types(asg))
	n < 2
	msg := sprintf("spot autoscaling group has %d instance type(s); at least 2 needed to survive a spot pool running dry", [n])
}

_problems contains findings.problem(asg, "gold-tier autoscaling group has no on-demand base capacity") if {
	some i in fleets.asg_indices(input.document)
	fleets.sla(i) == "gold"
	asg := input.document.resources[i]
	fleets.on_demand_base(asg) < 1
}

_problems contains findings.problem(d, msg) if {
	some d in resources.of_type(input.document, "kubernetes:apps/v1:Deployment")
	replicas := object.get(d.inputs, ["spec", "replicas"], 1)
	replicas < 2
	msg := sprintf("Deployment runs %v replica(s); at least 2 required", [replicas])
}

_problems contains findings.problem(d, "Deployment has no PodDisruptionBudget") if {
	some d in resources.of_type(input.document, "kubernetes:apps/v1:Deployment")
	not _pdb_covers(d)
}

_pdb_covers(d) if {
	some pdb in resources.of_type(input.document, "kubernetes:policy/v1:PodDisruptionBudget")
	resources.namespace(pdb) == resources.namespace(d)
	selector := object.get(pdb.inputs, ["spec", "selector", "matchLabels"], {})
	labels := object.get(d.inputs, ["spec", "template", "metadata", "labels"], {})
	every k, v in selector {
		labels[k] == v
	}
}
