package budget.fleet_capacity

import data.lib.budget
import data.lib.findings
import data.lib.fleets
import data.lib.resources
import data.lib.routing

# METADATA
# title: "Deployed fleets are the planned fleets"
# description: >-
#   The budget rules judge the plan's estimate, so the autoscaling groups that deploy must be the
#   ones that were planned: each runs a fleet the policy declares (and the plan, when given, plans),
#   the maxSize of a fleet's groups together, and of every scheduled action on them, stays within
#   that fleet's capacity.max, in units of the plan's weights; their minSize, desired capacity (unless
#   a Cluster Autoscaler owns it), on-demand base and on-demand share stay within the plan's, and a
#   scheduled action's within capacity.desired or an off-peak window's; their instance types are
#   among those the plan priced for the fleet, weighted no lower; and a fleet's capacity
#   reservations hold no more than the plan reserves or its on-demand base, in whole instances of the
#   type the base runs on, in a zone where one of its groups launches (the zones of their subnets,
#   when seedance check --lookup reads them from EC2). Anything
#   else — a size or type that cannot be read, a warm pool, a schedule on a group it cannot name,
#   reservations of no planned fleet, EKS managed node groups, EC2 Fleets, Spot Fleet requests,
#   instances and spot requests of their own, AWS Batch compute environments, aws-native groups,
#   EMR clusters and EMR Serverless applications, SageMaker endpoints, notebooks, Studio apps and
#   HyperPod clusters, GameLift and AppStream fleets, Elastic Beanstalk environments, Karpenter
#   NodePools, EKS Auto Mode — is capacity no estimate covers.
# related_resources:
#   - ref: https://docs.aws.amazon.com/autoscaling/ec2/userguide/ec2-auto-scaling-mixed-instances-groups.html
# custom:
#   control_id: BUDGET-FLEET-1
#   clause: "Seedance cost policy"
#   framework: budget
#   severity: mandatory
#   remediation: >-
#     Deploy the groups from the plan (the Seedance stack program), or declare the capacity in the
#     policy (a fleet, its capacity.max, its GPU or CPU requirement) and re-plan, so the estimate the
#     budget rules check covers what runs.
violation contains findings.finding("BUDGET-FLEET-1", p.resource, p.message) if {
	some p in _problems
}

_planned := {fp.name: fp | some fp in object.get(input, ["plan", "fleets"], [])}

_has_plan if is_array(object.get(input, ["plan", "fleets"], null))

# the instance types the plan priced, per fleet
_planned_types[name] := {t.instance_type | some t in object.get(fp, "instance_types", [])} if {
	some name, fp in _planned
}

# the policy's fleets by name, and each autoscaling group's fleet: worked out once
_policy_fleets[f.name] := f if some f in object.get(input.policy, "fleets", [])

_asg_fleet[i] := fleets.fleet(i) if some i in fleets.asg_indices(input.document)

# the fleet of each component that holds a group (its schedules and launch templates sit beside it)
_fleets_of_parent[parent] contains name if {
	some i, name in _asg_fleet
	parent := object.get(input.document.resources[i], "parent", "")
	parent != ""
}

_problems contains findings.problem(input.document.resources[i], msg) if {
	some i, name in _asg_fleet
	not _policy_fleets[name]
	msg := sprintf("group runs fleet %s, which the policy does not declare: no estimate covers it", [name])
}

_problems contains findings.problem(input.document.resources[i], msg) if {
	_has_plan
	some i, name in _asg_fleet
	_policy_fleets[name]
	not _planned[name]
	msg := sprintf("group runs fleet %s, which the plan does not plan: no estimate covers it", [name])
}

# every group's maxSize must be a number the rules can add up
_problems contains findings.problem(asg, msg) if {
	some i, name in _asg_fleet
	asg := input.document.resources[i]
	size := object.get(asg.inputs, "maxSize", null)
	not is_number(size)
	msg := sprintf("fleet %s: group maxSize %v cannot be read, so its capacity cannot be checked against the estimate", [name, size])
}

# A group's sizes count units of the weight it gives each type (weightedCapacity, 1 without); an
# instance holds the plan's weight of its type. The fleet units one unit of the group's sizes may run:
# the largest ratio of the two over the types it lists (1 for Seedance's own groups, weighted as the
# plan; a Cluster Autoscaler group, which counts instances, runs its types' weight per instance).
_ratio[i] := max(ratios) if {
	some i, entries in _overrides
	weights := object.get(_plan_weights, _asg_fleet[i], {})
	ratios := [ratio |
		some [t, d, _, _] in entries
		d != null
		w := weights[t]
		ratio := w / d
	]
	count(ratios) > 0
}

# each group's listed types, read once: [type, the weight it gives it (null when that cannot be read
# as a positive number), whether it gives one, the weight as written]
_overrides[i] := [[t, _weight_or_null(o), _gives_weight(o), object.get(o, "weightedCapacity", null)] |
	some o in overrides
	is_object(o)
	t := object.get(o, "instanceType", "?")
] if {
	some i, _ in _asg_fleet
	overrides := object.get(input.document.resources[i].inputs, ["mixedInstancesPolicy", "launchTemplate", "overrides"], [])
	is_array(overrides)
}

_weight_or_null(o) := d if {
	d := resources.number(_weight_as_written(o))
	d > 0
} else := null

# an override gives a weight unless it leaves weightedCapacity out, or empty (what the outputs of
# an existing group show for one it leaves out)
_gives_weight(o) := false if {
	object.get(o, "weightedCapacity", "") == ""
} else := true

_weight_as_written(o) := 1 if {
	object.get(o, "weightedCapacity", "") == ""
} else := object.get(o, "weightedCapacity", 1)

_plan_weights[name] := {t.instance_type: _weight(t) | some t in object.get(fp, "instance_types", [])} if some name, fp in _planned

_ratio_at(i) := object.get(_ratio, i, 1)

# the groups of each fleet, once
_groups_of[name] contains i if some i, name in _asg_fleet

# the fleet units the first `size` units of a group's sizes may run: `size` instances of the largest
# ratio need at least (size - 1) x ratio + 1 units to be started, so a group rounded up to whole
# instances is not blamed for the rounding
_units(size, ratio) := ((size - 1) * ratio) + 1 if size >= 1

_units(size, _) := 0 if size < 1

_max_total[name] := sum([units |
	some i in object.get(_groups_of, name, set())
	size := input.document.resources[i].inputs.maxSize
	is_number(size)
	units := size * _ratio_at(i)
]) if some name, _ in _policy_fleets

# a weight the group gives a listed type that cannot be read (unknown until apply) or is not positive:
# how many instances its sizes start cannot be established
_problems contains findings.problem(input.document.resources[i], msg) if {
	some i, entries in _overrides
	some [t, null, _, written] in entries
	msg := sprintf("fleet %s: the group's weight for %v is %v, which cannot be read as a positive number, so how many instances its sizes start cannot be established", [_asg_fleet[i], t, written])
}

# a weight below the plan's: each instance holds more units than the group counts, so its sizes run
# more capacity than the plan priced (24 x g5.48xlarge counted as 1 unit each hold 192)
_problems contains findings.problem(input.document.resources[i], msg) if {
	some i, entries in _overrides
	name := _asg_fleet[i]
	weights := _plan_weights[name]
	some [t, d, true, _] in entries
	d != null
	w := weights[t]
	d < w
	msg := sprintf("fleet %s: the group counts %v as %v unit(s), the plan as %v: its sizes start %vx the capacity the plan priced", [name, t, d, w, w / d])
}

# The group's lower sizes (minSize, desiredCapacity) and its on-demand base, in fleet units, stay
# within the plan's (capacity.min, capacity.desired and the on-demand base, the policy's without a
# plan); above them the group runs capacity, or on-demand capacity, the estimate did not price
_size_limits := {"minSize": ["min_size", ["capacity", "min"]], "desiredCapacity": ["desired", ["capacity", "desired"]]}

_limit(name, plan_key, policy_path) := v if {
	v := object.get(_planned, [name, plan_key], null)
	is_number(v)
} else := v if {
	not _has_plan
	v := object.get(_policy_fleets, array.concat([name], policy_path), null)
	is_number(v)
}

_problems contains findings.problem(input.document.resources[i], msg) if {
	some name, _ in _policy_fleets
	some key, [plan_key, policy_path] in _size_limits
	limit := _limit(name, plan_key, policy_path)
	groups := {j | some j in object.get(_groups_of, name, set()); not _sized_by_autoscaler(j, key)}
	total := sum([u |
		some j in groups
		size := object.get(input.document.resources[j].inputs, key, 0)
		is_number(size)
		u := _units(size, _ratio_at(j))
	])
	total > limit
	some i in groups
	msg := sprintf("fleet %s: its groups' %s runs %v units, above the plan's %v: capacity the estimate did not price runs all the time", [name, key, total, limit])
}

# a Cluster Autoscaler owns the desired capacity of a group it discovers: the program leaves it alone
# once the group exists (ignoreChanges), and a preview after a refresh shows the live size
_sized_by_autoscaler(i, "desiredCapacity") if i in _autoscaled

# the groups the Cluster Autoscaler discovers (its enabled tag), found once
_autoscaled contains i if {
	some i, _ in _asg_fleet
	some tag in resources.list_at(input.document.resources[i].inputs, "tags")
	is_object(tag)
	tag.key == "k8s.io/cluster-autoscaler/enabled"
}

_problems contains findings.problem(asg, msg) if {
	some i, name in _asg_fleet
	asg := input.document.resources[i]
	some key, _ in _size_limits
	not _sized_by_autoscaler(i, key)
	size := object.get(asg.inputs, key, 0)
	not is_number(size)
	msg := sprintf("fleet %s: group %s %v cannot be read, so the capacity it keeps running cannot be checked against the estimate", [name, key, size])
}

_problems contains findings.problem(asg, msg) if {
	some i, name in _asg_fleet
	fp := _planned[name]
	planned := _number_or_zero(object.get(fp, "on_demand_base", 0))
	asg := input.document.resources[i]
	base := fleets.on_demand_base(asg)
	_units(base, _ratio_at(i)) > planned
	msg := sprintf("fleet %s: the group's on-demand base runs %v units on-demand, above the plan's %v: on-demand capacity the estimate priced at spot or reserved rates", [name, _units(base, _ratio_at(i)), planned])
}

# an on-demand base or share the group gives in no numeric form (secret, unknown until apply) may
# run more on-demand than the plan priced
_problems contains findings.problem(asg, msg) if {
	some i, name in _asg_fleet
	_planned[name]
	asg := input.document.resources[i]
	object.get(asg.inputs, "mixedInstancesPolicy", null) != null
	some key in ["onDemandBaseCapacity", "onDemandPercentageAboveBaseCapacity"]
	written := object.get(fleets.distribution(asg), key, 0)
	not resources.number(written)
	msg := sprintf("fleet %s: the group's %s %v cannot be read, so the on-demand capacity it runs cannot be checked against the estimate", [name, key, written])
}

# above the base, a larger on-demand share than the plan's: the estimate priced that part at spot
_problems contains findings.problem(asg, msg) if {
	some i, name in _asg_fleet
	fp := _planned[name]
	share := object.get(fp, "spot_share_above_base", null)
	is_number(share)
	asg := input.document.resources[i]
	object.get(asg.inputs, "mixedInstancesPolicy", null) != null
	pct := resources.number(object.get(fleets.distribution(asg), "onDemandPercentageAboveBaseCapacity", 100))
	allowed := ceil((100 * (1 - share)) - 0.000000001)
	pct > allowed
	msg := sprintf("fleet %s: the group runs %v%% on-demand above its base, the plan %v%%: the estimate priced the rest at spot", [name, pct, allowed])
}

_problems contains findings.problem(input.document.resources[i], msg) if {
	some name, total in _max_total
	limit := object.get(_policy_fleets, [name, "capacity", "max"], null)
	is_number(limit)
	total > limit
	some i in _groups_of[name]
	msg := sprintf("fleet %s: its groups' maxSize adds up to %v, above the policy's capacity.max %v", [name, total, limit])
}

_problems contains findings.problem(sched, msg) if {
	some j, names in _sched_fleets
	sched := input.document.resources[j]
	some name in names
	limit := object.get(_policy_fleets, [name, "capacity", "max"], null)
	is_number(limit)
	size := object.get(sched.inputs, "maxSize", null)
	is_number(size)
	units := size * object.get(_fleet_ratios, name, 1)
	units > limit
	msg := sprintf("fleet %s: scheduled action raises maxSize to %v units, above the policy's capacity.max %v", [name, units, limit])
}

_problems contains findings.problem(sched, msg) if {
	some j, names in _sched_fleets
	sched := input.document.resources[j]
	some name in names
	some key in ["maxSize", "minSize", "desiredCapacity"]
	size := object.get(sched.inputs, key, null)
	size != null
	not is_number(size)
	msg := sprintf("fleet %s: scheduled action %s %v cannot be read, so its capacity cannot be checked against the estimate", [name, key, size])
}

# a scheduled action may hold the group at most at the largest size the policy runs it at: its
# desired capacity, or an off-peak window's (which the estimate prices); -1 leaves a size unchanged
_problems contains findings.problem(sched, msg) if {
	some j, names in _sched_fleets
	sched := input.document.resources[j]
	some name in names
	some key in ["minSize", "desiredCapacity"]
	size := object.get(sched.inputs, key, null)
	is_number(size)
	units := _units(size, object.get(_fleet_ratios, name, 1))
	limit := _scheduled_limits[name]
	units > limit
	msg := sprintf("fleet %s: scheduled action sets %s to %v units, above the %v the policy runs it at (capacity.desired or an off-peak window's desired): capacity the estimate did not price", [name, key, units, limit])
}

# per fleet, worked out once: the largest ratio of its groups, and the largest size the policy runs it at
_fleet_ratios[name] := max({r | some i in groups; r := _ratio_at(i)}) if some name, groups in _groups_of

_scheduled_limits[name] := max(array.concat(
	[v | some v in [object.get(f, ["capacity", "desired"], null), object.get(_planned, [name, "desired"], null)]; is_number(v)],
	[w.desired | some w in object.get(f, "offPeak", []); is_number(w.desired)],
)) if some name, f in _policy_fleets

# each scheduled action's fleets, worked out once
_sched_fleets[j] := _schedule_fleets(input.document.resources[j]) if some j in resources.indices("aws:autoscaling/schedule:Schedule")

# a scheduled action naming, by a value known now, a group the document does not hold, with no
# parent fleet: the capacity it sets is on no fleet the rules can check
_problems contains findings.problem(sched, msg) if {
	some j, names in _sched_fleets
	count(names) == 0
	sched := input.document.resources[j]
	group := object.get(sched.inputs, "autoscalingGroupName", null)
	_known_value(group)
	sizes := [v | some key in ["maxSize", "minSize", "desiredCapacity"]; v := object.get(sched.inputs, key, null); v != null]
	count(sizes) > 0
	msg := sprintf("scheduled action resizes group %v, which is not in the document: capacity on no fleet the estimate covers", [group])
}

_problems contains findings.problem(asg, msg) if {
	some i, name in _asg_fleet
	planned := _planned_types[name]
	asg := input.document.resources[i]
	# a value a preview does not know yet is not a type the plan missed
	extra := {t | some t in fleets.instance_types(asg); is_string(t); not t in budget.missing_values} - planned
	count(extra) > 0
	msg := sprintf("fleet %s runs instance types the plan did not price: %s", [name, concat(", ", sort(extra))])
}

# a type a preview does not know yet may be any type, priced by the plan or not
_problems contains findings.problem(asg, msg) if {
	some i, name in _asg_fleet
	_planned_types[name]
	asg := input.document.resources[i]
	some t in fleets.instance_types(asg)
	not _known_value(t)
	msg := sprintf("fleet %s: an instance type of the group is unknown until apply (%v), so whether the plan priced it cannot be established", [name, t])
}

_known_value(t) if {
	is_string(t)
	not t in budget.missing_values
}

# a scheduled action that names no group of the document by a value known now, and has no parent
# fleet: the group it resizes, and so the capacity it must respect (capacity.max, and the desired
# size the estimate prices), cannot be told. A size of -1 leaves the group's as it is; 0 exceeds
# no capacity (a scale-to-zero window).
_problems contains findings.problem(sched, msg) if {
	some j, names in _sched_fleets
	count(names) == 0
	sched := input.document.resources[j]
	group := object.get(sched.inputs, "autoscalingGroupName", null)
	not _known_value(group)
	sizes := [sprintf("%s %v", [k, v]) |
		some k in ["maxSize", "desiredCapacity", "minSize"]
		v := object.get(sched.inputs, k, null)
		not v in {null, -1, "-1", 0, "0"}
	]
	count(sizes) > 0
	msg := sprintf("scheduled action sets %s on a group named by a value unknown until apply (%v), so which fleet's capacity it must respect cannot be established", [concat(", ", sizes), group])
}

# a group whose types are not listed (no mixed-instances overrides, or overrides that choose by
# attributes) runs whatever it is given: the plan's prices do not cover it
_problems contains findings.problem(asg, msg) if {
	some i, name in _asg_fleet
	_planned_types[name]
	asg := input.document.resources[i]
	overrides := object.get(asg.inputs, ["mixedInstancesPolicy", "launchTemplate", "overrides"], [])
	_unlisted_types(overrides)
	msg := sprintf("fleet %s: the group does not list its instance types (mixed-instances overrides with instanceType), so the plan's prices may not apply", [name])
}

_unlisted_types(overrides) if not is_array(overrides)

_unlisted_types(overrides) if count(overrides) == 0

_unlisted_types(overrides) if {
	some o in overrides
	not is_string(object.get(o, "instanceType", null))
}

# the fleets a scheduled action sizes: those of its parent component, and the fleet of the group its
# autoscalingGroupName names (a schedule created elsewhere in the program)
_schedule_fleets(sched) := object.get(_fleets_of_parent, object.get(sched, "parent", ""), set()) | {name |
	group := object.get(sched.inputs, "autoscalingGroupName", null)
	is_string(group)
	some key in resources.lookup_forms(group)
	some name in object.get(_fleets_by_group_key, key, set())
}

# the fleets of the groups by every way a schedule may name a group: its recorded id, its URN, its
# name input, its logical name (which a mock id, NAME-xxxxxxxx, carries); an index, built once, so
# that schedules are not matched against every group
_fleets_by_group_key[key] contains name if {
	some i, name in _asg_fleet
	asg := input.document.resources[i]
	some key in resources.reference_keys(asg) | {n | n := asg.inputs.name; is_string(n)}
}

# a warm pool keeps instances (running, or stopped with their volumes) beyond the group's size
_problems contains findings.problem(asg, msg) if {
	some i, name in _asg_fleet
	asg := input.document.resources[i]
	object.get(asg.inputs, "warmPool", null) != null
	msg := sprintf("fleet %s: the group's warm pool keeps instances beyond the capacity the plan priced", [name])
}

# compute that launches instances outside the fleets' autoscaling groups: no plan or estimate covers it
_unplanned_capacity := {
	"aws:eks/nodeGroup:NodeGroup": "EKS managed node group",
	"aws:ec2/fleet:Fleet": "EC2 Fleet",
	"aws:ec2/spotFleetRequest:SpotFleetRequest": "Spot Fleet request",
	"aws:ec2/instance:Instance": "EC2 instance (an instance of its own)",
	"aws:ec2/spotInstanceRequest:SpotInstanceRequest": "spot instance request (an instance of its own)",
	"aws:batch/computeEnvironment:ComputeEnvironment": "AWS Batch compute environment",
	"aws-native:autoscaling:AutoScalingGroup": "Auto Scaling group (aws-native)",
	"aws-native:ec2:Instance": "EC2 instance (aws-native, an instance of its own)",
	"aws-native:ec2:SpotFleet": "Spot Fleet (aws-native)",
	"aws-native:ec2:Ec2Fleet": "EC2 Fleet (aws-native)",
	"aws-native:eks:Nodegroup": "EKS managed node group (aws-native)",
	"aws-native:autoscaling:WarmPool": "warm pool (aws-native), which keeps instances beyond a group's size,",
	"aws-native:autoscaling:ScheduledAction": "scheduled action (aws-native), which resizes a group,",
	"aws-native:ec2:CapacityReservation": "capacity reservation (aws-native), billed used or not,",
	"aws-native:ec2:CapacityReservationFleet": "capacity reservation fleet (aws-native), billed used or not,",
	"aws:ec2/capacityBlockReservation:CapacityBlockReservation": "capacity block reservation",
	"aws:ec2/dedicatedHost:DedicatedHost": "dedicated host",
	"aws-native:ec2:Host": "dedicated host (aws-native)",
	"aws-native:batch:ComputeEnvironment": "AWS Batch compute environment (aws-native)",
	"aws:emr/cluster:Cluster": "EMR cluster",
	"aws:emr/instanceFleet:InstanceFleet": "EMR instance fleet",
	"aws:emr/instanceGroup:InstanceGroup": "EMR instance group",
	"aws-native:emr:Cluster": "EMR cluster (aws-native)",
	"aws:sagemaker/endpointConfiguration:EndpointConfiguration": "SageMaker endpoint configuration",
	"aws:sagemaker/notebookInstance:NotebookInstance": "SageMaker notebook instance",
	"aws-native:sagemaker:EndpointConfig": "SageMaker endpoint configuration (aws-native)",
	"aws-native:sagemaker:NotebookInstance": "SageMaker notebook instance (aws-native)",
	"aws:sagemaker/app:App": "SageMaker Studio app, which runs on an instance of its resourceSpec,",
	"aws-native:sagemaker:App": "SageMaker Studio app (aws-native), which runs on an instance of its resourceSpec,",
	"aws-native:sagemaker:Cluster": "SageMaker HyperPod cluster (aws-native)",
	"aws:emrserverless/application:Application": "EMR Serverless application, whose workers run up to its maximumCapacity,",
	"aws-native:emrserverless:Application": "EMR Serverless application (aws-native), whose workers run up to its maximumCapacity,",
	"aws:gamelift/fleet:Fleet": "GameLift fleet",
	"aws-native:gamelift:Fleet": "GameLift fleet (aws-native)",
	"aws-native:gamelift:ContainerFleet": "GameLift container fleet (aws-native)",
	"aws:appstream/fleet:Fleet": "AppStream 2.0 fleet",
	"aws-native:appstream:Fleet": "AppStream 2.0 fleet (aws-native)",
	"aws:elasticbeanstalk/environment:Environment": "Elastic Beanstalk environment, whose Auto Scaling group the gate does not see,",
	"aws-native:elasticbeanstalk:Environment": "Elastic Beanstalk environment (aws-native), whose Auto Scaling group the gate does not see,",
	"aws:cloudformation/stack:Stack": "CloudFormation stack, whose template the gate does not read,",
	"aws-native:cloudformation:Stack": "CloudFormation stack (aws-native), whose template the gate does not read,",
}

_problems contains findings.problem(r, msg) if {
	some type, noun in _unplanned_capacity
	some r in resources.of_type(input.document, type)
	msg := sprintf("%s launches instances that no fleet of the policy plans, so the estimate the budget rules check does not cover them", [noun])
}

# A SageMaker endpoint runs the instances of its endpoint configuration: one of the document is
# reported above; one the document does not hold (made by hand or by an SDK, or a name unknown until
# apply with no recorded dependency) is reported on the endpoint
_endpoint_types := ["aws:sagemaker/endpoint:Endpoint", "aws-native:sagemaker:Endpoint"]

_endpoint_config_types := ["aws:sagemaker/endpointConfiguration:EndpointConfiguration", "aws-native:sagemaker:EndpointConfig"]

_problems contains findings.problem(r, msg) if {
	some r in resources.of_types(input.document, _endpoint_types)
	not _endpoint_config_in_document(r)
	msg := sprintf("SageMaker endpoint runs the instances of endpoint configuration %v, which the document does not hold, so no fleet of the policy plans them and the estimate the budget rules check does not cover them", [object.get(r.inputs, "endpointConfigName", "(none given)")])
}

_endpoint_config_in_document(r) if {
	some c in resources.of_types(input.document, _endpoint_config_types)
	routing.refers(r, "endpointConfigName", c)
}

_endpoint_config_in_document(r) if {
	name := object.get(r.inputs, "endpointConfigName", null)
	is_string(name)
	resources.shown(name)
	some c in resources.of_types(input.document, _endpoint_config_types)
	some key in ["name", "endpointConfigName"]
	object.get(c.inputs, key, null) == name
}

# Karpenter's NodePools (karpenter.sh, every version) start nodes of their own, and an EKS cluster
# with Auto Mode's compute (computeConfig.enabled) creates and deletes instances itself
# (and their older Provisioners, and the NodeClaims and Machines that are their nodes), AWS
# Controllers for Kubernetes' EC2 instances, and an EKS cluster with Auto Mode's compute
# (computeConfig.enabled) creates and deletes instances itself
_k8s_capacity := {
	"karpenter.sh": {"NodePool", "Provisioner", "NodeClaim", "Machine"},
	"ec2.services.k8s.aws": {"Instance"},
}

_problems contains findings.problem(r, msg) if {
	some t in resources.k8s_types(input.document)
	kind := resources.kind(t)
	kind in object.get(_k8s_capacity, resources.api_group(t), set())
	some r in resources.of_type(input.document, t)
	msg := sprintf("%s %s launches nodes that no fleet of the policy plans, so the estimate the budget rules check does not cover them", [resources.api_group(t), kind])
}

_problems contains findings.problem(r, "EKS Auto Mode (computeConfig.enabled) launches instances that no fleet of the policy plans, so the estimate the budget rules check does not cover them") if {
	some r in resources.of_types(input.document, ["aws:eks/cluster:Cluster", "aws-native:eks:Cluster"])
	config := object.get(r.inputs, "computeConfig", {})
	is_object(config)
	object.get(config, "enabled", false) != false
}

# On-demand capacity reservations bill at the on-demand rate whether or not instances use them. A
# fleet's reservations (its seedance:fleet tag) may hold at most the units the plan reserves for it,
# or its on-demand base, in whole instances of the type the fleet's group runs its base on: the
# plan's first type (a group that counts instances, a Cluster Autoscaler's, lists the types of its
# weight); a reservation of no planned fleet, of another type, tenancy or platform, or of a count
# unknown until apply, is capacity the estimate does not cover.
_odcr_type := "aws:ec2/capacityReservation:CapacityReservation"

_odcr_fleet(i) := object.get(object.get(resources.tags_at, i, {}), "seedance:fleet", null)

# the type a fleet's on-demand base runs on, with its weight: the plan's first
_base_types[name] := {types[0].instance_type: _weight(types[0])} if {
	some name, fp in _planned
	types := object.get(fp, "instance_types", [])
	count(types) > 0
}

_weight(t) := _number_or_zero(object.get(t, "weight", 1))

_odcr_units[name] contains [i, units, w] if {
	some i in resources.indices(_odcr_type)
	name := _odcr_fleet(i)
	types := _base_types[name]
	r := input.document.resources[i]
	count_ := r.inputs.instanceCount
	is_number(count_)
	w := types[r.inputs.instanceType]
	# at the rates the plan priced: shared tenancy, Linux
	object.get(r.inputs, "tenancy", "default") == "default"
	object.get(r.inputs, "instancePlatform", "Linux/UNIX") == "Linux/UNIX"
	units := count_ * w
}

# A fleet's reservations may hold the units the plan reserves, or the on-demand base its groups run
# (a gold fleet's on-demand node), whichever is more, rounded up to whole instances
_problems contains findings.problem(findings.stack(input.document), msg) if {
	some name, held in _odcr_units
	total := sum([u | some [_, u, _] in held])
	fp := _planned[name]
	units := max([_number_or_zero(object.get(fp, "reserved_units", 0)), _number_or_zero(object.get(fp, "on_demand_base", 0))])
	w := max([x | some [_, _, x] in held])
	allowed := ceil(units / w) * w
	total > allowed
	msg := sprintf("fleet %s: its capacity reservations hold %v units, more than the %v the plan reserves or runs on-demand (in whole instances); the rest bill at the on-demand rate, used or not, outside the estimate", [name, total, allowed])
}

_number_or_zero(x) := x if is_number(x)

_number_or_zero(x) := 0 if not is_number(x)

_problems contains findings.problem(r, msg) if {
	_has_plan
	some i in resources.indices(_odcr_type)
	r := input.document.resources[i]
	not i in _counted_odcrs
	msg := sprintf("capacity reservation of %v x %v (tenancy %v, %v) is not one the plan reserves (its seedance:fleet tag %v names no planned fleet, it is not of the type the fleet's on-demand base runs on, on shared Linux instances, or its count is unknown until apply); it bills at the on-demand rate, used or not, outside the estimate", [
		object.get(r.inputs, "instanceCount", "?"), object.get(r.inputs, "instanceType", "?"),
		object.get(r.inputs, "tenancy", "default"), object.get(r.inputs, "instancePlatform", "?"), _odcr_fleet(i),
	])
}

_counted_odcrs := {j | some _, held in _odcr_units; some [j, _, _] in held}

# A fleet's capacity reservation is used only by instances launched in its zone: one in a zone where
# none of the fleet's groups launches (the zones of their vpcZoneIdentifiers, as EC2 says:
# input.facts.subnets, read by seedance check --lookup) bills at the on-demand rate and is never
# used. Judged only when every subnet of the fleet's groups has a zone in the facts.
_problems contains findings.problem(r, msg) if {
	count(_fact_zones) > 0 # without --lookup (or --facts) no zone is known: cheap way out
	some i in resources.indices(_odcr_type)
	name := _odcr_fleet(i)
	subnets := _fleet_subnets[name]
	count(subnets) > 0
	every s in subnets {
		_fact_zones[s]
	}
	zones := {_fact_zones[s] | some s in subnets}
	r := input.document.resources[i]
	zone := object.get(r.inputs, "availabilityZone", null)
	is_string(zone)
	not zone in zones
	msg := sprintf("capacity reservation of fleet %s is in %s, where none of its groups launches (their subnets: %s, as EC2 describes them): no instance of the fleet uses it, and it bills at the on-demand rate; list in cloud.availabilityZones the zones of cloud.subnetIds", [
		name, zone, concat(", ", sort([sprintf("%s in %s", [s, _fact_zones[s]]) | some s in subnets])),
	])
}

# subnet id -> its zone, as EC2 describes it (lib.routing.given_subnets: input.facts.subnets)
_fact_zones := {s: z |
	some s, fact in routing.given_subnets
	z := object.get(fact, "availability_zone", null)
	is_string(z)
}

# fleet -> the subnets its groups launch in (vpcZoneIdentifiers), once per fleet
_fleet_subnets[name] := {s |
	some g in groups
	some s in resources.elements(object.get(input.document.resources[g].inputs, "vpcZoneIdentifiers", []))
} if {
	count(_fact_zones) > 0
	some name, groups in _groups_of
}
