package mlps.redundancy_test

import data.mlps.redundancy
import data.lib.fixtures

_f(type, name, msg) := fixtures.finding("MLPS-L3-8.1.2.1e", "mandatory", type, name, msg)

_asg(name, sla, subnets, types, base, pct) := fixtures.resource("aws:autoscaling/group:Group", name, {
	"vpcZoneIdentifiers": subnets,
	"mixedInstancesPolicy": {
		"instancesDistribution": {"onDemandBaseCapacity": base, "onDemandPercentageAboveBaseCapacity": pct},
		"launchTemplate": {"overrides": [{"instanceType": t} | some t in types]},
	},
	"tags": [{"key": "seedance:sla", "value": sla, "propagateAtLaunch": true}],
})

_deploy(name, replicas) := fixtures.resource("kubernetes:apps/v1:Deployment", name, {
	"metadata": {"name": name, "namespace": "inference"},
	"spec": {"replicas": replicas, "template": {"metadata": {"labels": {"app": name}}, "spec": {"containers": []}}},
})

_pdb(app) := fixtures.resource("kubernetes:policy/v1:PodDisruptionBudget", sprintf("%s-pdb", [app]), {
	"metadata": {"namespace": "inference"},
	"spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": app}}},
})

pass_resources := [
	_asg("inference", "gold", ["subnet-1", "subnet-2"], ["g5.xlarge", "g6.xlarge"], 1, 70),
	_asg("eval", "silver", ["subnet-1", "subnet-2"], ["p4d.24xlarge"], 0, 100),
	_deploy("api", 2),
	_pdb("api"),
]

fail_resources := [
	_asg("inference", "gold", ["subnet-1"], ["g5.xlarge"], 0, 70),
	_deploy("api", 1),
]

test_pass_redundant if {
	v := redundancy.violation with input as fixtures.gate_input(fixtures.mlps_policy, pass_resources)
	v == set()
}

test_fail_single_points if {
	v := redundancy.violation with input as fixtures.gate_input(fixtures.mlps_policy, fail_resources)
	v == {
		_f("aws:autoscaling/group:Group", "inference", "autoscaling group spans 1 subnet(s); at least 2 availability zones required"),
		_f("aws:autoscaling/group:Group", "inference", "spot autoscaling group has 1 instance type(s); at least 2 needed to survive a spot pool running dry"),
		_f("aws:autoscaling/group:Group", "inference", "gold-tier autoscaling group has no on-demand base capacity"),
		_f("kubernetes:apps/v1:Deployment", "api", "Deployment runs 1 replica(s); at least 2 required"),
		_f("kubernetes:apps/v1:Deployment", "api", "Deployment has no PodDisruptionBudget"),
	}
}

# audit A14: a subnet list unknown until apply cannot be shown to span two zones
test_fail_unknown_subnets if {
	asg := fixtures.resource("aws:autoscaling/group:Group", "asg", {"vpcZoneIdentifiers": "[unknown]"})
	v := redundancy.violation with input as fixtures.gate_input(fixtures.mlps_policy, [asg])
	v == {_f("aws:autoscaling/group:Group", "asg", "autoscaling group subnets cannot be established ([unknown]); at least 2 availability zones required")}
}

_hpa(target, min_replicas) := fixtures.resource("kubernetes:autoscaling/v2:HorizontalPodAutoscaler", sprintf("%s-hpa", [target]), {
	"metadata": {"name": target, "namespace": "inference"},
	"spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": target}, "minReplicas": min_replicas, "maxReplicas": 10},
})

_hpa_target(name) := json.remove(_deploy(name, 1), ["inputs/spec/replicas"])

# audit B4: an HPA target runs at least the HPA's minReplicas
test_pass_hpa_scaled_deployment if {
	v := redundancy.violation with input as fixtures.gate_input(fixtures.mlps_policy, [_hpa_target("api"), _hpa("api", 3), _pdb("api")])
	v == set()
}

test_fail_hpa_with_one_minimum_replica if {
	v := redundancy.violation with input as fixtures.gate_input(fixtures.mlps_policy, [_hpa_target("api"), _hpa("api", 1), _pdb("api")])
	v == {_f("kubernetes:apps/v1:Deployment", "api", "Deployment runs 1 replica(s); at least 2 required")}
}

test_base_and_share_as_text_or_unknown if {
	asgs := [
		_asg("text", "gold", ["subnet-1", "subnet-2"], ["g5.xlarge"], "1", "100"),
		_asg("unknown", "gold", ["subnet-1", "subnet-2"], ["g5.xlarge"], "[unknown]", "[unknown]"),
	]
	v := redundancy.violation with input as fixtures.gate_input(fixtures.mlps_policy, asgs)
	v == {
		_f("aws:autoscaling/group:Group", "unknown", "spot autoscaling group has 1 instance type(s); at least 2 needed to survive a spot pool running dry"),
		_f("aws:autoscaling/group:Group", "unknown", "gold-tier autoscaling group has no on-demand base capacity"),
	}
}

_subnet(name, zone) := fixtures.resource("aws:ec2/subnet:Subnet", name, {"vpcId": "vpc-0123456789abcdef0", "availabilityZone": zone})

test_fail_two_subnets_in_one_zone if {
	resources := [
		_subnet("a1", "eu-central-1a"), _subnet("a2", "eu-central-1a"), _subnet("b1", "eu-central-1b"),
		_asg("one-zone", "silver", ["a1-1a2b3c4d", "a2-5e6f7a8b"], ["g5.xlarge", "g6.xlarge"], 1, 100),
		_asg("two-zones", "silver", ["a1-1a2b3c4d", "b1-9c0d1e2f"], ["g5.xlarge", "g6.xlarge"], 1, 100),
		_asg("given", "silver", ["subnet-0aaaaaaaaaaaaaaaa", "a1-1a2b3c4d"], ["g5.xlarge", "g6.xlarge"], 1, 100),
	]
	v := redundancy.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == {_f("aws:autoscaling/group:Group", "one-zone", "autoscaling group's 2 subnets are all in availability zone eu-central-1a; at least 2 availability zones required")}
}

_given_subnet(zone) := {"vpc_id": "vpc-0123456789abcdef0", "map_public_ip_on_launch": false, "route_table_id": "rtb-0123456789abcdef0", "main_route_table": true, "routes": [], "availability_zone": zone}

# red team: subnets the stack is given count by the zones EC2 describes when it was read
# (seedance check --lookup); without it each counts as a zone of its own
test_fail_given_subnets_in_one_zone_with_facts if {
	resources := [
		_subnet("b1", "eu-central-1b"),
		_asg("given-one-zone", "silver", ["subnet-0aaaaaaaaaaaaaaaa", "subnet-0bbbbbbbbbbbbbbbb"], ["g5.xlarge", "g6.xlarge"], 1, 100),
		_asg("given-two-zones", "silver", ["subnet-0aaaaaaaaaaaaaaaa", "subnet-0cccccccccccccccc"], ["g5.xlarge", "g6.xlarge"], 1, 100),
		_asg("mixed", "silver", ["subnet-0aaaaaaaaaaaaaaaa", "b1-9c0d1e2f"], ["g5.xlarge", "g6.xlarge"], 1, 100),
	]
	facts := {"region": "eu-central-1", "subnets": {
		"subnet-0aaaaaaaaaaaaaaaa": _given_subnet("eu-central-1a"),
		"subnet-0bbbbbbbbbbbbbbbb": _given_subnet("eu-central-1a"),
		"subnet-0cccccccccccccccc": _given_subnet("eu-central-1c"),
	}}
	with_facts := redundancy.violation with input as object.union(fixtures.gate_input(fixtures.mlps_policy, resources), {"facts": facts})
	with_facts == {_f("aws:autoscaling/group:Group", "given-one-zone", "autoscaling group's 2 subnets are all in availability zone eu-central-1a; at least 2 availability zones required")}
	without := redundancy.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	without == set()
}
