"""SpotRiFleet: launch template and mixed-instances ASG inputs against the plan, per example stack."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from components.common import ComponentArgsError
from components.fleet import SpotRiFleetArgs, ami_parameter, checkpoint_heartbeat_s, window_crons, window_end_cron
from seedance.policy.model import SlaTier

ASG = "aws:autoscaling/group:Group"
LT = "aws:ec2/launchTemplate:LaunchTemplate"


def test_one_launch_template_and_asg_per_fleet(stack):
    fleets = {f.name for f in stack.policy.fleets}
    assert {r.name for r in stack.of_type(ASG)} == {f"{n}-asg" for n in fleets}
    assert {r.name for r in stack.of_type(LT)} == {f"{n}-lt" for n in fleets}
    for r in stack.of_type(ASG) + stack.of_type(LT):
        assert r.parent == f"urn:pulumi:{stack.stack}::seedance-gpu::seedance:fleet:SpotRiFleet::{r.name.rsplit('-', 1)[0]}"


def test_asg_mixed_instances_policy_follows_the_plan(stack):
    for fp in stack.plan.fleets:
        inputs = stack.one(f"{fp.name}-asg").inputs
        dist = inputs["mixedInstancesPolicy"]["instancesDistribution"]
        w = 1 if stack.stack == "dev" else fp.instance_types[0].weight
        assert dist["onDemandBaseCapacity"] == -(-fp.on_demand_base // w)
        assert dist["onDemandBaseCapacity"] * w >= fp.reserved_units
        assert dist["onDemandPercentageAboveBaseCapacity"] == round(100 * (1 - fp.spot_share_above_base))
        assert dist["spotAllocationStrategy"] == fp.allocation_strategy
        overrides = inputs["mixedInstancesPolicy"]["launchTemplate"]["overrides"]
        if stack.stack == "dev":  # nothing else scales the group: weighted capacity, sizes in units
            assert [(o["instanceType"], o["weightedCapacity"]) for o in overrides] == [
                (c.instance_type, str(c.weight)) for c in fp.instance_types
            ]
            assert (inputs["minSize"], inputs["desiredCapacity"], inputs["maxSize"]) == (fp.min_size, fp.desired, fp.max_size)
        else:  # the Cluster Autoscaler counts nodes: only the types of the first's weight, unweighted
            w = fp.instance_types[0].weight
            assert [o["instanceType"] for o in overrides] == [c.instance_type for c in fp.instance_types if c.weight == w]
            assert not [o for o in overrides if "weightedCapacity" in o]
            if w == 1:
                assert (inputs["minSize"], inputs["desiredCapacity"], inputs["maxSize"]) == (fp.min_size, fp.desired, fp.max_size)
        assert inputs["capacityRebalance"] is (fp.spot_share_above_base > 0)
        assert inputs["vpcZoneIdentifiers"] == list(stack.policy.cloud.subnet_ids)
        spec = inputs["mixedInstancesPolicy"]["launchTemplate"]["launchTemplateSpecification"]
        assert spec["launchTemplateId"].startswith("lt-") and spec["version"] == "1"


def test_pulumi_up_leaves_the_live_size_to_the_cluster_autoscaler(stack):
    # eu-prod and cn-prod join a cluster (seedance:clusterName) whose autoscaler owns each group's
    # live size: after creation `pulumi up` must not set it back to the plan's desired size.
    # dev joins no cluster, so nothing else moves its groups and Seedance keeps the desired size.
    joined = stack.stack in ("eu-prod", "cn-prod")
    for r in stack.of_type(ASG):
        assert r.ignore_changes == (["desiredCapacity"] if joined else [])
        tags = {t["key"] for t in r.inputs["tags"]}
        assert ("k8s.io/cluster-autoscaler/enabled" in tags) is joined
    assert not [r.name for r in stack.doc.resources if r.ignore_changes and r.type != ASG]


def test_eu_prod_numbers_by_hand(eu):
    # batch-embed: no reservation, maxShare 1.0 -> base 0 and 0 % on-demand above it
    dist = eu.one("batch-embed-asg").inputs["mixedInstancesPolicy"]["instancesDistribution"]
    assert dist["onDemandBaseCapacity"] == 0
    assert dist["onDemandPercentageAboveBaseCapacity"] == 0
    # eval: no spot block -> all on-demand above the base
    dist = eu.one("eval-asg").inputs["mixedInstancesPolicy"]["instancesDistribution"]
    assert dist["onDemandPercentageAboveBaseCapacity"] == 100
    assert eu.one("eval-asg").inputs["capacityRebalance"] is False
    # inference is gold: an on-demand base of at least one node
    assert eu.one("inference-asg").inputs["mixedInstancesPolicy"]["instancesDistribution"]["onDemandBaseCapacity"] >= 1


def test_launch_template_is_locked_down(stack):
    key = stack.kms_key_arn()
    for fleet in stack.policy.fleets:
        lt = stack.one(f"{fleet.name}-lt").inputs
        assert lt["metadataOptions"]["httpTokens"] == "required"
        assert lt["metadataOptions"]["httpPutResponseHopLimit"] == 1
        assert lt["blockDeviceMappings"], "at least the root volume"
        for bdm in lt["blockDeviceMappings"]:
            assert bdm["ebs"]["encrypted"] == "true"
            assert bdm["ebs"]["deleteOnTermination"] == "true"
            assert bdm["ebs"]["kmsKeyId"] == key
        assert [n["associatePublicIpAddress"] for n in lt["networkInterfaces"]] == ["false"]
        assert "instanceMarketOptions" not in lt  # rejected by a mixed-instances ASG; ASG spot terminates
        assert lt["tags"]["seedance:spot-interruption"] == "terminate"
        assert lt["imageId"] == f"resolve:ssm:{ami_parameter(fleet, '1.31')}"
        assert {t["resourceType"] for t in lt["tagSpecifications"]} == {"instance", "volume", "network-interface"}


def test_dev_key_is_the_stack_key(dev):
    # dev names no kmsKeyArn: the stack creates one in its own account and every volume uses it
    assert dev.kms_key_arn().startswith("arn:aws:kms:us-east-1:777788889999:key/")
    assert dev.one("kms-key").inputs["enableKeyRotation"] is True


def test_fleet_security_group_admits_only_itself(eu):
    sg = eu.one("llm-train-sg").inputs
    assert [(r["protocol"], r.get("self"), r.get("cidrBlocks")) for r in sg["ingress"]] == [("-1", True, None)]


def test_checkpoint_lifecycle_hooks(eu):
    hooks = {r.name: r.inputs for r in eu.of_type("aws:autoscaling/lifecycleHook:LifecycleHook")}
    # checkpointed fleets only: llm-train (write 180 s) and finetune (write 60 s)
    assert set(hooks) == {"llm-train-checkpoint", "finetune-checkpoint"}
    assert hooks["llm-train-checkpoint"]["heartbeatTimeout"] == 300  # ceil(1.5 x 180) + 30
    assert hooks["finetune-checkpoint"]["heartbeatTimeout"] == 120  # ceil(1.5 x 60) + 30
    for h in hooks.values():
        assert h["lifecycleTransition"] == "autoscaling:EC2_INSTANCE_TERMINATING"
        assert h["defaultResult"] == "CONTINUE"
        assert h["autoscalingGroupName"].startswith(h["notificationMetadata"].split('"fleet":"')[1].split('"')[0])


def test_off_peak_schedules(eu, dev):
    # eu-prod's groups belong to a Cluster Autoscaler: the window holds its nodes through the group's
    # minimum (the autoscaler never scales below it) and its end leaves the desired size to the
    # autoscaler (-1). dev's groups have no autoscaler: the end sets the plan's desired size back.
    for s, up_desired, down_desired in ((eu, 10, -1), (dev, 4, None)):
        plan = s.plan.fleet("batch-embed")
        up = s.one("batch-embed-offpeak-0-up").inputs
        down = s.one("batch-embed-offpeak-0-down").inputs
        assert (up["recurrence"], up["desiredCapacity"], up["timeZone"]) == ("0 22 * * *", up_desired, "Etc/UTC")
        assert (up["minSize"], up["maxSize"]) == (max(plan.min_size, up_desired), max(plan.max_size, up_desired))
        assert up["minSize"] == up_desired > plan.min_size
        assert (down["recurrence"], down["minSize"], down["maxSize"]) == ("0 6 * * *", plan.min_size, plan.max_size)
        assert down["desiredCapacity"] == (plan.desired if down_desired is None else down_desired)
    assert len(eu.of_type("aws:autoscaling/schedule:Schedule")) == 2


def test_capacity_reservations_only_for_gold_gpu_fleets(stack):
    odcrs = stack.of_type("aws:ec2/capacityReservation:CapacityReservation")
    gold = [f for f in stack.policy.fleets if f.sla is SlaTier.GOLD and f.gpu is not None]
    if not gold:
        assert odcrs == []
        return
    for f in gold:
        fp = stack.plan.fleet(f.name)
        mine = [r.inputs for r in odcrs if r.name.startswith(f"{f.name}-odcr-")]
        first = fp.instance_types[0]
        assert sum(r["instanceCount"] for r in mine) == math.ceil(fp.on_demand_base / first.weight)
        assert {r["instanceType"] for r in mine} == {first.instance_type}
        assert {r["availabilityZone"] for r in mine} <= set(stack.policy.cloud.availability_zones)
        assert all(r["instanceMatchCriteria"] == "open" and r["endDateType"] == "unlimited" for r in mine)


def test_window_end_cron():
    assert window_end_cron("0 22 * * *", 8) == "0 6 * * *"
    assert window_end_cron("15 1 * * *", 3) == "15 4 * * *"
    assert window_end_cron("0 22 * * 1-5", 8) == "0 6 * * 2-6"
    assert window_end_cron("30 20 * * 5,6", 6) == "30 2 * * 0,6"
    assert window_end_cron("0 20 * * 3-6", 6) == "0 2 * * 0,4-6"
    assert window_end_cron("0 21 * * 2-5", 5) == "0 2 * * 3-6"
    assert window_end_cron("0 21 * * 4-6", 5) == "0 2 * * 0,5-6"
    assert window_end_cron("0 18 * * 5", 60) == "0 6 * * 1"  # Friday 18:00 to Monday 06:00
    # every day, written with both Sundays: the end runs every day too, not on Monday only
    assert window_crons("0 22 * * 0-7", 4) == ("0 22 * * *", "0 2 * * *")
    assert window_crons("0 22 * * 7", 4) == ("0 22 * * 0", "0 2 * * 1")
    with pytest.raises(ComponentArgsError, match=r"offPeak.cron: day-of-week: range '5-1' runs backwards"):
        window_end_cron("0 21 * * 5-1", 5)
    with pytest.raises(ComponentArgsError, match=r"offPeak.cron: .*day-of-month: expected '\*'"):
        window_end_cron("0 22 1 * *", 8)
    with pytest.raises(ComponentArgsError, match=r"offPeak.cron: .*hour"):
        window_end_cron("0 */2 * * *", 1)


def test_deployed_schedules_match_the_estimate_minute_by_minute():
    # replay the start and end recurrences as AWS would fire them over a week and compare the average
    # size with the estimate's (same parser, so day fields like 0-7 cannot drift apart again)
    from seedance.policy.cron import Window, average_size, parse_window_cron

    def fires(cron: str) -> set[int]:
        minute, hour, _, _, dow = cron.split()
        days = range(7) if dow == "*" else {int(d) % 7 for part in dow.split(",")
                                             for d in (range(int(part.split("-")[0]), int(part.split("-")[-1]) + 1))}
        return {d * 1440 + int(hour) * 60 + int(minute) for d in days}

    for cron, hours in (("0 22 * * 0-7", 4), ("30 20 * * 5,6", 6), ("0 18 * * 5", 60), ("0 1 * * 1-5", 9)):
        start, end = window_crons(cron, hours)
        ups, downs = fires(start), fires(end)
        size, total = 2.0, 0.0
        for _ in range(2):  # a second week starts from the state the first one ended in
            total = 0.0
            for m in range(7 * 1440):
                size = 10.0 if m in ups else 2.0 if m in downs else size
                total += size
        replayed = total / (7 * 1440)
        estimated = average_size(2.0, [Window(parse_window_cron(cron), hours, 10)])
        assert replayed == pytest.approx(estimated, abs=1e-6), cron


def test_checkpoint_heartbeat_limits():
    assert checkpoint_heartbeat_s(1) == 32
    assert checkpoint_heartbeat_s(0.1) == 31
    assert checkpoint_heartbeat_s(5000) == 7200


def test_args_validation_names_the_field(eu):
    fleet = eu.policy.fleet("llm-train")
    other = eu.plan.fleet("finetune")
    args = SpotRiFleetArgs(fleet=fleet, plan=other, vpc_id="vpc-1", subnet_ids=["subnet-1"], availability_zones=["a"], kms_key_arn="k")
    with pytest.raises(ComponentArgsError, match=r"^SpotRiFleetArgs.plan.name: expected the plan of fleet 'llm-train', got 'finetune'$"):
        args.validate()
    args = SpotRiFleetArgs(fleet=fleet, plan=eu.plan.fleet("llm-train"), vpc_id="vpc-1", subnet_ids=[], availability_zones=["a"], kms_key_arn="k")
    with pytest.raises(ComponentArgsError, match=r"^SpotRiFleetArgs.subnet_ids: expected at least one subnet$"):
        args.validate()
    args = SpotRiFleetArgs(fleet=fleet, plan=eu.plan.fleet("llm-train"), vpc_id="vpc-1", subnet_ids=["s"], availability_zones=["a"],
                           kms_key_arn="k", imds_hop_limit=0)
    with pytest.raises(ComponentArgsError, match=r"^SpotRiFleetArgs.imds_hop_limit: expected 1..64, got 0$"):
        args.validate()


def test_fleets_that_join_no_cluster_are_warned_about(caplog) -> None:  # type: ignore[no-untyped-def]
    import logging

    from seedance.synth.project import synthesize_stack

    with caplog.at_level(logging.WARNING, logger="seedance.synth.pulumi"):
        synthesize_stack("dev", Path(__file__).resolve().parents[2] / "stacks")
    warned = [r.getMessage() for r in caplog.records if "join" in r.getMessage()]
    assert "fleet inference: no seedance:clusterName, so its 1 node(s) start, and bill, without joining a cluster" in warned
    assert len(warned) == 3  # dev's three fleets; eu-prod and cn-prod name their cluster


def test_the_platform_deploys_only_a_plan_made_for_its_kind_of_stack(eu, dev) -> None:  # type: ignore[no-untyped-def]
    from dataclasses import replace

    from components.platform import PlatformArgs

    # the stack program plans for the stack it runs: dev names no cluster, eu-prod one
    assert eu.plan.cluster and not dev.plan.cluster
    args = PlatformArgs(policy=dev.policy, plan=dev.plan, stack="dev", endpoint_prices=None)
    args.validate()
    with pytest.raises(ComponentArgsError, match=r"^plan.cluster: expected a plan for a stack that joins a cluster "):
        replace(args, cluster_name="gpu").validate()
    with pytest.raises(ComponentArgsError, match=r"^plan.cluster: expected a plan for a stack without a cluster "):
        replace(args, plan=replace(dev.plan, cluster=True)).validate()


def test_a_fleet_named_sg_gets_a_group_name_ec2_takes(tmp_path) -> None:  # type: ignore[no-untyped-def]
    # EC2 refuses a security group name starting with "sg-"; the auto-name starts with the fleet's
    import shutil

    from seedance.synth.project import synthesize_stack

    project = tmp_path / "stacks"
    shutil.copytree(Path(__file__).resolve().parents[2] / "stacks", project, ignore=shutil.ignore_patterns("__pycache__"))
    for f in (project / "policies").glob("*.yaml"):
        f.write_text(f.read_text().replace("batch-embed", "sg-embed"))
    groups = {r.name: r.inputs for r in synthesize_stack("dev", project).document.of_type("aws:ec2/securityGroup:SecurityGroup")}
    assert groups["sg-embed-sg"]["namePrefix"] == "seedance-sg-embed-sg-"
    assert "namePrefix" not in groups["inference-sg"] and "name" not in groups["inference-sg"]


def test_a_managed_group_runs_the_heavier_type_the_policy_prefers(tmp_path) -> None:  # type: ignore[no-untyped-def]
    # eu-prod's inference fleet (1 A10G per unit, gold, min 4 / max 48 units) preferring g5.12xlarge
    # (4 units): the plan reserves and runs its base on it, so the group the Cluster Autoscaler manages
    # lists the 4-unit types only, sized in instances of 4 units, and its capacity reservation is one
    import shutil

    from seedance.synth.project import synthesize_stack

    project = tmp_path / "stacks"
    shutil.copytree(Path(__file__).resolve().parents[2] / "stacks", project, ignore=shutil.ignore_patterns("__pycache__"))
    base = project / "policies" / "base.yaml"
    base.write_text(base.read_text().replace(
        "    autoscaling: {metric: inference_requests_per_second, target: 40}\n",
        "    autoscaling: {metric: inference_requests_per_second, target: 40}\n    instanceTypes: {preferred: [g5.12xlarge]}\n", 1))
    from seedance.synth.program import catalog, load_stack_policy, plan_for

    synth = synthesize_stack("eu-prod", project)
    fp = plan_for(load_stack_policy(project, "policies/eu-prod.yaml", "eu-central-1"), catalog(), cluster=True).fleet("inference")
    assert (fp.instance_types[0].instance_type, fp.node_weight) == ("g5.12xlarge", 4)
    assert any(c.weight == 1 for c in fp.instance_types)  # the plan still ranks the 1-unit types
    asg = synth.document.by_name("inference-asg").inputs
    overrides = asg["mixedInstancesPolicy"]["launchTemplate"]["overrides"]
    assert [o["instanceType"] for o in overrides] == [c.instance_type for c in fp.instance_types if c.weight == 4]
    assert (asg["minSize"], asg["maxSize"]) == (1, 12)
    assert asg["mixedInstancesPolicy"]["instancesDistribution"]["onDemandBaseCapacity"] == -(-fp.on_demand_base // 4)
    odcrs = [r.inputs for r in synth.document.of_type("aws:ec2/capacityReservation:CapacityReservation")
             if r.name.startswith("inference-odcr-")]
    assert odcrs and {r["instanceType"] for r in odcrs} == {"g5.12xlarge"}


# --- capacity reservations sit where the group launches ------------------------------------------
# an audit: three listed zones and one subnet put a reservation in each zone, two of which the group
# could never use (billed at the on-demand rate). The zones of the group's subnets are looked up (the
# mock runtime answers from subnet_zones, as `seedance check --lookup` gives them).

EU_SUBNETS = ("subnet-0a1b2c3d4e5f60001", "subnet-0a1b2c3d4e5f60002", "subnet-0a1b2c3d4e5f60003")


def test_reservation_zone_is_one_of_the_subnets_zones() -> None:
    from components.fleet import reservation_zone

    assert reservation_zone("inference", "eu-central-1b", {"s1": "eu-central-1a", "s2": "eu-central-1b"}) == "eu-central-1b"
    with pytest.raises(ComponentArgsError, match=r"^SpotRiFleetArgs.availability_zones: fleet inference: a capacity "
                       r"reservation for its on-demand base would be in eu-central-1c \(cloud.availabilityZones\), where "
                       r"none of the group's subnets is \(s1 in eu-central-1a, s2 in eu-central-1b\): it would bill at "
                       r"the on-demand rate and never be used"):
        reservation_zone("inference", "eu-central-1c", {"s1": "eu-central-1a", "s2": "eu-central-1b"})
    # offline, a subnet synthesis was told nothing of may be in any zone: nothing is refused
    assert reservation_zone("inference", "eu-central-1c", {"s1": "eu-central-1-zone-of-s1"}) == "eu-central-1c"


def test_reservations_in_a_zone_without_a_subnet_of_the_group_fail_synthesis() -> None:
    from seedance.synth.project import synthesize_stack

    stacks = Path(__file__).resolve().parents[2] / "stacks"
    ok = dict(zip(EU_SUBNETS, ("eu-central-1a", "eu-central-1b", "eu-central-1c"), strict=True))
    doc = synthesize_stack("eu-prod", stacks, subnet_zones=ok).document
    zones = {r.inputs["availabilityZone"] for r in doc.of_type("aws:ec2/capacityReservation:CapacityReservation")}
    assert zones == {"eu-central-1a", "eu-central-1b", "eu-central-1c"}
    with pytest.raises(ComponentArgsError, match=r"fleet inference: a capacity reservation for its on-demand base would be in "
                       r"eu-central-1c \(cloud.availabilityZones\), where none of the group's subnets is"):
        synthesize_stack("eu-prod", stacks, subnet_zones={s: "eu-central-1a" if s != EU_SUBNETS[1] else "eu-central-1b"
                                                          for s in EU_SUBNETS})
