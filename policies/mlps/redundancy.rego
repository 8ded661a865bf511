package mlps.redundancy

import data.lib.findings
import data.lib.fleets
import data.lib.frameworks
import data.lib.resources
import data.lib.routing

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
	zones := _zones(asg)
	is_array(zones)
	n := count(zones)
	n < 2
	msg := sprintf("autoscaling group spans %d subnet(s); at least 2 availability zones required", [n])
}

# a subnet list that is not a list (the preview's "[unknown]") cannot be shown to span two zones
_problems contains findings.problem(asg, msg) if {
	some asg in _asgs
	zones := _zones(asg)
	not is_array(zones)
	msg := sprintf("autoscaling group subnets cannot be established (%v); at least 2 availability zones required", [zones])
}

_zones(asg) := object.get(asg.inputs, "vpcZoneIdentifiers", object.get(asg.inputs, "availabilityZones", []))

# subnets of the document that all sit in one availability zone: two subnets are not two zones
_problems contains findings.problem(asg, msg) if {
	some asg in _asgs
	subnets := object.get(asg.inputs, "vpcZoneIdentifiers", null)
	is_array(subnets)
	count(subnets) >= 2
	zones := _zones_of(subnets)
	count(zones) < 2
	msg := sprintf("autoscaling group's %d subnets are all in availability zone %s; at least 2 availability zones required", [count(subnets), concat(", ", zones)])
}

# the zones of a group's subnets; when neither the document's subnets nor EC2 (--lookup) give a
# zone, each subnet is its own (most synthesised stacks: their subnets are the policy's, given, and
# this skips a lookup per subnet that could find nothing)
_zones_of(subnets) := {_zone_of(s) | some s in subnets} if {
	_zones_known
} else := {sprintf("%v", [s]) | some s in subnets}

_zones_known if count(_zone_by_key) > 0

_zones_known if count(routing.given_subnets) > 0

# a subnet's zone when it is a subnet of the document with a known zone, or a subnet the stack is
# given and EC2 was read (seedance check --lookup); else the reference itself (a given subnet without
# the lookup: its zone is in no input, so it counts as its own)
_zone_of(ref) := zone if {
	some key in resources.lookup_forms(ref)
	some zone in object.get(_zone_by_key, [key], set())
} else := zone if {
	zone := routing.given_subnets[ref].availability_zone
	is_string(zone)
} else := sprintf("%v", [ref])

# the zones of the document's subnets by every way a group may name a subnet: its recorded id, its
# URN, its logical name (which a mock id, NAME-xxxxxxxx, carries); an index built once, so that
# groups are not matched against every subnet
_zone_by_key[key] contains zone if {
	some sn in resources.of_type(input.document, "aws:ec2/subnet:Subnet")
	zone := object.get(sn.inputs, "availabilityZone", object.get(sn.inputs, "availabilityZoneId", null))
	is_string(zone)
	resources.shown(zone)
	some key in resources.reference_keys(sn)
}

_problems contains findings.problem(asg, msg) if {
	some asg in _asgs
	fleets.may_use_spot(asg)
	n := count(fleets.instance_types(asg))
	n < 2
	msg := sprintf("spot autoscaling group has %d instance type(s); at least 2 needed to survive a spot pool running dry", [n])
}

_problems contains findings.problem(asg, "gold-tier autoscaling group has no on-demand base capacity") if {
	some i in fleets.asg_indices(input.document)
	fleets.sla(i) == "gold"
	asg := input.document.resources[i]
	not fleets.has_on_demand_base(asg) # none, or one unknown until apply
}

_deployments := resources.of_type(input.document, "kubernetes:apps/v1:Deployment")

# A Deployment scaled by a HorizontalPodAutoscaler runs at least the HPA's minReplicas (default
# 1); leaving spec.replicas unset is the recommended pattern for an HPA target.
_problems contains findings.problem(d, msg) if {
	some d in _deployments
	replicas := _replicas(d)
	is_number(replicas)
	replicas < 2
	msg := sprintf("Deployment runs %v replica(s); at least 2 required", [replicas])
}

_problems contains findings.problem(d, msg) if {
	some d in _deployments
	replicas := _replicas(d)
	not is_number(replicas)
	msg := sprintf("Deployment replica count cannot be established (%v); at least 2 required", [replicas])
}

_replicas(d) := min([m | some m in _hpa_minimums(d)]) if {
	count(_hpa_minimums(d)) > 0
	every m in _hpa_minimums(d) {
		is_number(m)
	}
} else := "[unknown]" if {
	count(_hpa_minimums(d)) > 0
} else := object.get(d.inputs, ["spec", "replicas"], 1)

_hpas := [h |
	some t in _hpa_types
	some h in resources.of_type(input.document, t)
]

_hpa_types := [
	"kubernetes:autoscaling/v2:HorizontalPodAutoscaler",
	"kubernetes:autoscaling/v2beta2:HorizontalPodAutoscaler",
	"kubernetes:autoscaling/v1:HorizontalPodAutoscaler",
]

# the minReplicas of the HPAs that target the Deployment (same namespace, kind and name)
_hpa_minimums(d) := [object.get(h.inputs, ["spec", "minReplicas"], 1) |
	some h in _hpas
	resources.namespace(h) == resources.namespace(d)
	ref := object.get(h.inputs, ["spec", "scaleTargetRef"], {})
	object.get(ref, "kind", "") == "Deployment"
	object.get(ref, "name", "") == resources.name_of(d)
]

_problems contains findings.problem(d, "Deployment has no PodDisruptionBudget") if {
	some d in _deployments
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
