"""SpotRiFleet: one GPU (or CPU) node fleet as a launch template + mixed-instances Auto Scaling group.

The plan decides the purchase mix: ``OnDemandBaseCapacity`` is the plan's on-demand base (which
covers the reserved units, so reservations are always used, up to ``capacity.max``: held units above
it bill idle), ``OnDemandPercentageAboveBaseCapacity`` is ``ceil(100 x (1 - spot share))`` (never
more spot than ``maxShare``), the spot allocation strategy and the ranked instance types (with
weights; see :func:`group_shape` for groups a Cluster Autoscaler manages) come from the plan.

Spot interruption behaviour: instances that an Auto Scaling group launches on spot are always
*terminated* on interruption (and a launch template with ``instanceMarketOptions`` is rejected by
a group with a mixed instances policy), so the launch template carries no market options; the
``terminate`` behaviour is recorded in the ``seedance:spot-interruption`` tag instead.
"""

from __future__ import annotations

import json
import logging
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

import pulumi
import pulumi_aws as aws

from components.common import ComponentArgsError, child, require
from seedance.awsnames import is_offline_zone
from seedance.estimate.fleet import ROOT_VOLUME_GIB
from seedance.gpus import NEURON_MODELS
from seedance.planner.plan import FleetPlan, InstanceChoice
from seedance.planner.planner import max_instances
from seedance.policy.model import AllocationStrategy, Fleet, OffPeakWindow, SlaTier

log = logging.getLogger(__name__)

ALLOCATION_STRATEGIES = frozenset(s.value for s in AllocationStrategy)
#: Heartbeat of the checkpoint lifecycle hook: AWS allows 30 s .. 7200 s.
HOOK_MIN_S, HOOK_MAX_S = 30, 7200
ASG_MAX_TAGS = 50  # tags per Auto Scaling group
ASG_TAG_KEY_MAX, ASG_TAG_VALUE_MAX = 128, 256  # characters of a group tag's key and value


def group_tag_count(tags: Mapping[str, str], group_tags: Mapping[str, str]) -> int:
    """The tags a fleet's Auto Scaling group carries: the fleet's, Seedance's
    ``seedance:spot-interruption`` and the group's own (the Cluster Autoscaler's)."""
    return len(tags) + 1 + len(group_tags)


def oversized_tags(tags: Mapping[str, str]) -> list[str]:
    """The keys of tags whose key or value is longer than a group tag may be."""
    return [k for k, v in tags.items() if len(k) > ASG_TAG_KEY_MAX or len(v) > ASG_TAG_VALUE_MAX]
ASG_AUTOSCALER_OWNED = ["desiredCapacity"]  # what `pulumi up` leaves to the Cluster Autoscaler
SCHEDULE_UNCHANGED = -1  # a scheduled action's "leave this size as it is" (omitted, desired capacity means 0)


#: The node AMIs' Kubernetes version when the stack joins no cluster and seedance:eksVersion is unset
DEFAULT_EKS_VERSION = "1.31"


def check_eks_version(version: str, field: str = "SpotRiFleetArgs.eks_version") -> str:
    """``version`` when it is a Kubernetes minor version such as 1.31, else :class:`ComponentArgsError`
    naming ``field``."""
    # no leading zeros: the SSM parameter path holds the version as EKS writes it (1.31, never 1.031)
    require(bool(re.fullmatch(r"[1-9]\d*\.(?:0|[1-9]\d*)", version)), field, f"expected e.g. '1.31', got {version!r}")
    return version


def ami_parameter(fleet: Fleet, eks_version: str) -> str:
    """The SSM parameter of the EKS-optimised AL2023 AMI for the fleet's accelerator."""
    if fleet.gpu is None:
        flavour = "standard"
    elif fleet.gpu.model in NEURON_MODELS:
        flavour = "neuron"
    else:
        flavour = "nvidia"
    return f"/aws/service/eks/optimized-ami/{eks_version}/amazon-linux-2023/x86_64/{flavour}/recommended/image_id"


def checkpoint_heartbeat_s(write_seconds: float) -> int:
    """Lifecycle-hook heartbeat: 1.5 x the checkpoint write time plus 30 s, within AWS's limits."""
    return max(HOOK_MIN_S, min(HOOK_MAX_S, math.ceil(write_seconds * 1.5) + 30))


def window_crons(cron: str, hours: int) -> tuple[str, str]:
    """The start and end recurrences of an off-peak window (UTC, five fields), read by the same parser
    validation and the estimate use (:func:`seedance.policy.cron.deployed_crons`): the day-of-week in
    its shortest numeric form, moved to the following day(s) when the window crosses midnight."""
    from seedance.policy.cron import CronError, deployed_crons

    try:
        return deployed_crons(cron, hours)
    except CronError as exc:
        raise ComponentArgsError("offPeak.cron", f"{exc} (in {cron!r})") from None


def window_end_cron(cron: str, hours: int) -> str:
    """The cron expression ``hours`` after ``cron`` starts (see :func:`window_crons`)."""
    return window_crons(cron, hours)[1]


@dataclass
class SpotRiFleetArgs:
    fleet: Fleet
    plan: FleetPlan
    vpc_id: str
    subnet_ids: list[str]
    availability_zones: list[str]
    kms_key_arn: pulumi.Input[str]
    tags: dict[str, str] = field(default_factory=dict)
    # the EC2 Auto Scaling service-linked role the group uses (None: the account's default,
    # AWSServiceRoleForAutoScaling), which the key policy of ``kms_key_arn`` must admit
    service_linked_role_arn: pulumi.Input[str] | None = None
    # the Kubernetes version of the node AMI (an Output: the joined cluster's version, looked up)
    eks_version: pulumi.Input[str] = DEFAULT_EKS_VERSION
    image_id: str | None = None  # default: resolve:ssm: EKS-optimised AMI for the accelerator
    root_volume_gib: int = ROOT_VOLUME_GIB  # the estimate prices this size
    imds_hop_limit: int = 1  # secure default: pods cannot reach the node's instance metadata
    reserve_capacity: bool | None = None  # None: on-demand capacity reservation for gold GPU fleets
    instance_profile_arn: pulumi.Input[str] | None = None
    user_data: pulumi.Input[str] | None = None  # base64, e.g. nodeadm config joining the EKS cluster
    extra_security_group_ids: list[pulumi.Input[str]] = field(default_factory=list)  # e.g. the cluster's
    group_tags: dict[str, str] = field(default_factory=dict)  # on the Auto Scaling group only, e.g. Cluster Autoscaler's
    # a Cluster Autoscaler owns the group's live size: after creation `pulumi up` leaves desiredCapacity
    # alone (min and max still apply; AWS moves the live size into them)
    autoscaler_managed: bool = False

    def validate(self) -> None:
        p, f = self.plan, self.fleet
        require(p.name == f.name, "SpotRiFleetArgs.plan.name", f"expected the plan of fleet {f.name!r}, got {p.name!r}")
        require(bool(p.instance_types), "SpotRiFleetArgs.plan.instance_types", "expected at least one instance type")
        for i, choice in enumerate(p.instance_types):
            require(choice.weight >= 1, f"SpotRiFleetArgs.plan.instance_types[{i}].weight", f"expected >= 1, got {choice.weight}")
        require(0 <= p.min_size <= p.desired <= p.max_size, "SpotRiFleetArgs.plan.min_size/desired/max_size",
                f"expected 0 <= min <= desired <= max; got {p.min_size}/{p.desired}/{p.max_size}")
        # reserved units above max_size (held after a scale-down) are billed idle, never deployed
        require(p.reserved_units >= 0 and min(p.reserved_units, p.max_size) <= p.on_demand_base,
                "SpotRiFleetArgs.plan.on_demand_base",
                f"expected >= min(reserved_units, max_size) ({min(p.reserved_units, p.max_size)}), "
                f"got {p.on_demand_base}")
        require(p.on_demand_base <= p.max_size, "SpotRiFleetArgs.plan.on_demand_base",
                f"expected <= max_size ({p.max_size}), got {p.on_demand_base}")
        require(0.0 <= p.spot_share_above_base <= 1.0, "SpotRiFleetArgs.plan.spot_share_above_base",
                f"expected a fraction in [0, 1], got {p.spot_share_above_base}")
        require(p.allocation_strategy in ALLOCATION_STRATEGIES, "SpotRiFleetArgs.plan.allocation_strategy",
                f"expected one of {sorted(ALLOCATION_STRATEGIES)}, got {p.allocation_strategy!r}")
        require(bool(self.subnet_ids), "SpotRiFleetArgs.subnet_ids", "expected at least one subnet")
        require(bool(self.availability_zones), "SpotRiFleetArgs.availability_zones", "expected at least one AZ")
        require(1 <= self.imds_hop_limit <= 64, "SpotRiFleetArgs.imds_hop_limit", f"expected 1..64, got {self.imds_hop_limit}")
        require(8 <= self.root_volume_gib <= 16384, "SpotRiFleetArgs.root_volume_gib", f"expected 8..16384, got {self.root_volume_gib}")
        if isinstance(self.eks_version, str):
            check_eks_version(self.eks_version)
        clash = sorted(set(self.group_tags) & set(self.tags))
        require(not clash, "SpotRiFleetArgs.group_tags", f"expected keys not already in tags, got {clash}")
        count = group_tag_count(self.tags, self.group_tags)
        require(count <= ASG_MAX_TAGS, "SpotRiFleetArgs.group_tags",
                f"an Auto Scaling group takes at most {ASG_MAX_TAGS} tags; this fleet's group would have {count}")
        long = oversized_tags(self.group_tags)
        require(not long, f"SpotRiFleetArgs.group_tags[{long[0] if long else ''}]",
                f"expected a key of at most {ASG_TAG_KEY_MAX} and a value of at most {ASG_TAG_VALUE_MAX} characters")

    @property
    def wants_capacity_reservation(self) -> bool:
        if self.reserve_capacity is not None:
            return self.reserve_capacity and self.plan.on_demand_base > 0
        return self.fleet.sla is SlaTier.GOLD and self.fleet.gpu is not None and self.plan.on_demand_base > 0


@dataclass(frozen=True)
class GroupShape:
    """What the Auto Scaling group is given: its instance types and sizes.

    A group nobody else scales uses weighted capacity: sizes count the fleet's units and each type
    weighs the units one instance holds. The Cluster Autoscaler (AWS) cannot work with that: it
    counts the desired capacity in nodes and builds its node template from the first type only
    (kubernetes/autoscaler#4851). So a group it manages keeps only the types of the plan's first
    type's weight (the type the plan reserves and runs its base on), without weights, and its sizes
    count instances of that weight."""

    instance_types: list[InstanceChoice]
    weighted: bool
    units_per_instance: int
    min_size: int
    desired: int
    max_size: int
    on_demand_base: int

    def instances(self, units: int) -> int:
        """Group size for ``units`` of the fleet: instances enough to hold them, within max_size."""
        return units if self.weighted else _instances(units, self.units_per_instance, self.max_size)


def _instances(units: int, per_instance: int, max_size: int) -> int:
    return min(-(-units // per_instance), max_size)


def group_shape(plan: FleetPlan, autoscaler_managed: bool) -> GroupShape:
    if not autoscaler_managed:
        return GroupShape(list(plan.instance_types), True, 1, plan.min_size, plan.desired, plan.max_size, plan.on_demand_base)
    w = plan.node_weight
    types = plan.group_types(autoscaler_managed=True)
    dropped = [c.instance_type for c in plan.instance_types if c.weight != w]
    if dropped:
        log.info("fleet %s: the Cluster Autoscaler manages its group, which therefore lists only its %d-unit types "
                 "(%s), not %s", plan.name, w, ", ".join(c.instance_type for c in types), ", ".join(dropped))
    max_size = max_instances(plan.max_size, w, managed=True)  # never more units than capacity.max, as the plan counts
    require(max_size >= 1 or plan.max_size == 0, f"fleets[{plan.name}].capacity.max",
            f"expected at least one instance of the first type ({types[0].instance_type}, {w} units), "
            f"got a maximum of {plan.max_size} units")
    return GroupShape(types, False, w, _instances(plan.min_size, w, max_size), _instances(plan.desired, w, max_size),
                      max_size, _instances(plan.on_demand_base, w, max_size))


def reservation_zone(fleet: str, zone: str, subnet_zones: Mapping[str, str]) -> str:
    """``zone`` when the group can launch there (one of its subnets is in it, as EC2 says): a capacity
    reservation in a zone none of them is in would bill at the on-demand rate and never be used, so
    that is an error naming the subnets' zones. Offline, a subnet whose zone synthesis was not told
    (``seedance check`` without ``--lookup``) may be anywhere: nothing is refused."""
    if zone in subnet_zones.values() or any(is_offline_zone(z) for z in subnet_zones.values()):
        return zone
    where = ", ".join(f"{s} in {z}" for s, z in subnet_zones.items())
    raise ComponentArgsError(
        "SpotRiFleetArgs.availability_zones",
        f"fleet {fleet}: a capacity reservation for its on-demand base would be in {zone} (cloud.availabilityZones), where none "
        f"of the group's subnets is ({where}): it would bill at the on-demand rate and never be used; list in "
        "cloud.availabilityZones the zones of cloud.subnetIds",
    )


class SpotRiFleet(pulumi.ComponentResource):
    """Launch template, Auto Scaling group, security group, checkpoint lifecycle hook, off-peak
    schedules and (gold GPU fleets) on-demand capacity reservations for one fleet."""

    asg_name: pulumi.Output[str]
    launch_template_id: pulumi.Output[str]
    security_group_id: pulumi.Output[str]
    capacity_reservation_ids: pulumi.Output[list[str]]

    def __init__(self, name: str, args: SpotRiFleetArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("seedance:fleet:SpotRiFleet", name, None, opts)
        args.validate()
        fleet, plan = args.fleet, args.plan
        tags = dict(args.tags)
        tags["seedance:spot-interruption"] = "terminate"

        sg = aws.ec2.SecurityGroup(
            f"{name}-sg",
            # its auto-name starts with the fleet's name, and EC2 refuses a group name starting with
            # "sg-" (CreateSecurityGroup GroupName): such a fleet's group is named from a prefix
            name_prefix=f"seedance-{name}-sg-" if name.lower().startswith("sg-") else None,
            description=f"Seedance fleet {fleet.name}: node-to-node only; egress for image pulls and APIs",
            vpc_id=args.vpc_id,
            ingress=[aws.ec2.SecurityGroupIngressArgs(protocol="-1", from_port=0, to_port=0, self=True, description="node to node (NCCL, kubelet)")],
            egress=[aws.ec2.SecurityGroupEgressArgs(protocol="-1", from_port=0, to_port=0, cidr_blocks=["0.0.0.0/0"], description="egress via NAT / endpoints")],
            revoke_rules_on_delete=True,
            tags=tags,
            opts=child(self),
        )

        ebs = aws.ec2.LaunchTemplateBlockDeviceMappingEbsArgs(
            volume_type="gp3",
            volume_size=args.root_volume_gib,
            iops=3000,
            throughput=125,
            encrypted="true",
            kms_key_id=args.kms_key_arn,
            delete_on_termination="true",
        )
        reserve = args.wants_capacity_reservation
        lt = aws.ec2.LaunchTemplate(
            f"{name}-lt",
            description=f"Seedance fleet {fleet.name}",
            image_id=args.image_id or pulumi.Output.from_input(args.eks_version).apply(
                lambda v: f"resolve:ssm:{ami_parameter(fleet, check_eks_version(v))}"),
            ebs_optimized="true",
            update_default_version=True,
            block_device_mappings=[aws.ec2.LaunchTemplateBlockDeviceMappingArgs(device_name="/dev/xvda", ebs=ebs)],
            metadata_options=aws.ec2.LaunchTemplateMetadataOptionsArgs(
                http_endpoint="enabled",
                http_tokens="required",
                http_put_response_hop_limit=args.imds_hop_limit,
                instance_metadata_tags="disabled",
            ),
            network_interfaces=[
                aws.ec2.LaunchTemplateNetworkInterfaceArgs(
                    device_index=0,
                    associate_public_ip_address="false",
                    delete_on_termination="true",
                    security_groups=[sg.id, *args.extra_security_group_ids],
                )
            ],
            iam_instance_profile=(
                aws.ec2.LaunchTemplateIamInstanceProfileArgs(arn=args.instance_profile_arn) if args.instance_profile_arn else None
            ),
            user_data=args.user_data,
            capacity_reservation_specification=(
                aws.ec2.LaunchTemplateCapacityReservationSpecificationArgs(capacity_reservation_preference="open") if reserve else None
            ),
            tag_specifications=[
                aws.ec2.LaunchTemplateTagSpecificationArgs(resource_type=kind, tags=tags)
                for kind in ("instance", "volume", "network-interface")
            ],
            tags=tags,
            opts=child(self),
        )

        shape = group_shape(plan, args.autoscaler_managed)
        reservations = self._capacity_reservations(name, args, shape, tags) if reserve else []

        spot = plan.spot_share_above_base > 0
        asg = aws.autoscaling.Group(
            f"{name}-asg",
            min_size=shape.min_size,
            max_size=shape.max_size,
            desired_capacity=shape.desired,
            vpc_zone_identifiers=list(args.subnet_ids),
            capacity_rebalance=spot,
            health_check_type="EC2",
            wait_for_capacity_timeout="0",
            service_linked_role_arn=args.service_linked_role_arn,
            mixed_instances_policy=aws.autoscaling.GroupMixedInstancesPolicyArgs(
                instances_distribution=aws.autoscaling.GroupMixedInstancesPolicyInstancesDistributionArgs(
                    on_demand_base_capacity=shape.on_demand_base,
                    on_demand_percentage_above_base_capacity=plan.on_demand_percentage_above_base,
                    on_demand_allocation_strategy="prioritized",
                    spot_allocation_strategy=plan.allocation_strategy,
                ),
                launch_template=aws.autoscaling.GroupMixedInstancesPolicyLaunchTemplateArgs(
                    launch_template_specification=aws.autoscaling.GroupMixedInstancesPolicyLaunchTemplateLaunchTemplateSpecificationArgs(
                        launch_template_id=lt.id,
                        version=lt.latest_version.apply(str),
                    ),
                    overrides=[
                        aws.autoscaling.GroupMixedInstancesPolicyLaunchTemplateOverrideArgs(
                            instance_type=c.instance_type, weighted_capacity=str(c.weight) if shape.weighted else None
                        )
                        for c in shape.instance_types
                    ],
                ),
            ),
            tags=[aws.autoscaling.GroupTagArgs(key=k, value=v, propagate_at_launch=True) for k, v in tags.items()]
            + [aws.autoscaling.GroupTagArgs(key=k, value=v, propagate_at_launch=False) for k, v in args.group_tags.items()],
            opts=child(self, depends_on=reservations, ignore_changes=ASG_AUTOSCALER_OWNED if args.autoscaler_managed else None),
        )

        if fleet.checkpoint is not None:
            heartbeat = checkpoint_heartbeat_s(fleet.checkpoint.write_seconds)
            aws.autoscaling.LifecycleHook(
                f"{name}-checkpoint",
                autoscaling_group_name=asg.name,
                lifecycle_transition="autoscaling:EC2_INSTANCE_TERMINATING",
                heartbeat_timeout=heartbeat,
                default_result="CONTINUE",
                notification_metadata=json.dumps(
                    {"fleet": fleet.name, "action": "checkpoint", "checkpointWriteSeconds": fleet.checkpoint.write_seconds},
                    separators=(",", ":"),
                ),
                opts=child(self),
            )
            if spot and fleet.checkpoint.write_seconds > 120:
                log.info("fleet %s: checkpoint write (%ss) exceeds the 2-minute spot notice; rebalance recommendations give the earlier signal",
                         fleet.name, fleet.checkpoint.write_seconds)

        for i, window in enumerate(fleet.off_peak):
            self._schedule(name, i, window, shape, asg, args.autoscaler_managed)

        self.asg_name = asg.name
        self.launch_template_id = lt.id
        self.security_group_id = sg.id
        self.capacity_reservation_ids = pulumi.Output.all(*[r.id for r in reservations]) if reservations else pulumi.Output.from_input([])
        self.register_outputs(
            {
                "asg_name": self.asg_name,
                "launch_template_id": self.launch_template_id,
                "security_group_id": self.security_group_id,
                "capacity_reservation_ids": self.capacity_reservation_ids,
            }
        )

    def _capacity_reservations(self, name: str, args: SpotRiFleetArgs, shape: GroupShape,
                               tags: dict[str, str]) -> list[aws.ec2.CapacityReservation]:
        """On-demand capacity reservations for the base, spread round-robin over the AZs, each held to a
        zone where the group launches (its subnets' zones, looked up: see :func:`reservation_zone`)."""
        first = shape.instance_types[0]
        instances = math.ceil(args.plan.on_demand_base / first.weight)
        per_az = [0] * len(args.availability_zones)
        for i in range(instances):
            per_az[i % len(per_az)] += 1
        subnets = list(dict.fromkeys(args.subnet_ids))
        lookup = pulumi.InvokeOutputOptions(parent=self)
        subnet_zones = pulumi.Output.all(*[aws.ec2.get_subnet_output(id=s, opts=lookup).availability_zone for s in subnets])
        out = []
        for az, count in zip(args.availability_zones, per_az, strict=True):
            if count == 0:
                continue
            out.append(
                aws.ec2.CapacityReservation(
                    f"{name}-odcr-{az}",
                    instance_type=first.instance_type,
                    instance_platform="Linux/UNIX",
                    availability_zone=subnet_zones.apply(
                        lambda zones, az=az: reservation_zone(args.fleet.name, az, dict(zip(subnets, zones, strict=True)))
                    ),
                    instance_count=count,
                    instance_match_criteria="open",
                    end_date_type="unlimited",
                    ebs_optimized=True,
                    tenancy="default",
                    tags=tags,
                    opts=child(self),
                )
            )
        return out

    def _schedule(self, name: str, i: int, window: OffPeakWindow, shape: GroupShape, asg: aws.autoscaling.Group,
                  autoscaled: bool) -> None:
        """Scheduled actions for an off-peak window.

        The window raises the group's minimum to its size, not only the desired capacity: a Cluster
        Autoscaler removes nodes it finds idle, but never below the group's minimum. At the window's
        end the bounds go back to the plan's; the desired capacity too, unless an autoscaler owns it
        (then -1, "unchanged", and the autoscaler scales in what is idle).
        """
        aws.autoscaling.Schedule(
            f"{name}-offpeak-{i}-up",
            scheduled_action_name=f"{name}-offpeak-{i}-up",
            autoscaling_group_name=asg.name,
            recurrence=window_crons(window.cron.strip(), window.hours)[0],
            time_zone="Etc/UTC",
            min_size=max(shape.min_size, shape.instances(window.desired)),
            max_size=max(shape.max_size, shape.instances(window.desired)),
            desired_capacity=shape.instances(window.desired),
            opts=child(self),
        )
        aws.autoscaling.Schedule(
            f"{name}-offpeak-{i}-down",
            scheduled_action_name=f"{name}-offpeak-{i}-down",
            autoscaling_group_name=asg.name,
            recurrence=window_end_cron(window.cron.strip(), window.hours),
            time_zone="Etc/UTC",
            min_size=shape.min_size,
            max_size=shape.max_size,
            desired_capacity=SCHEDULE_UNCHANGED if autoscaled else shape.desired,
            opts=child(self),
        )
