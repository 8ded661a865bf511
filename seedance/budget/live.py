"""The live size of a stack's fleets: the desired capacity of their Auto Scaling groups right now.

Once a fleet's group joins a cluster its Cluster Autoscaler owns the live size, so the policy's
``capacity.desired`` says nothing about it. A ``freeze`` caps each fleet at what runs now: capping at
the policy's figure instead could shrink a group the autoscaler has grown. The groups are found by
the tags every fleet group carries (``seedance:stack``, ``seedance:fleet``).

A group's desired capacity counts the fleet's units only when its instance types carry weights
(``WeightedCapacity``: a group nobody else scales). A group the Cluster Autoscaler manages lists the
plan's types of its first type's weight without weights, so its desired capacity counts instances, each
holding :attr:`~seedance.planner.plan.FleetPlan.node_weight` units (a fleet of 2x A10G per unit
on g5.12xlarge: 2; 1x A100 on p4d: 8). :func:`live_units` turns both into the units the policy's
``capacity`` counts.

:func:`sizes_from_groups`, :func:`live_groups` and :func:`live_units` are pure (the
DescribeAutoScalingGroups ``AutoScalingGroups`` list in, sizes out); :func:`fetch_live_groups` is the
only call to AWS.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from seedance.planner.plan import Plan

STACK_TAG = "seedance:stack"
FLEET_TAG = "seedance:fleet"


class LiveSizeError(Exception):
    """The groups cannot be read, or their answer does not give one size per fleet."""


def _tags(group: Mapping[str, Any]) -> dict[str, str]:
    return {str(t.get("Key")): str(t.get("Value")) for t in group.get("Tags") or [] if isinstance(t, Mapping)}


@dataclass(frozen=True)
class LiveGroup:
    """A fleet's Auto Scaling group as AWS runs it now."""

    name: str
    desired: int  # DesiredCapacity: units when ``weighted``, else instances
    weighted: bool  # its instance types carry WeightedCapacity
    instance_types: tuple[str, ...] = ()  # the types its mixed instances policy lists (empty: none listed)


def _overrides(group: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    policy = group.get("MixedInstancesPolicy")
    template = policy.get("LaunchTemplate") if isinstance(policy, Mapping) else None
    overrides = template.get("Overrides") if isinstance(template, Mapping) else None
    return [o for o in overrides or [] if isinstance(o, Mapping)]


def _weighted(group: Mapping[str, Any]) -> bool:
    return any(o.get("WeightedCapacity") not in (None, "") for o in _overrides(group))


def sizes_from_groups(groups: Iterable[Mapping[str, Any]], stack: str) -> dict[str, int]:
    """Desired capacity by fleet name of the groups tagged with ``stack`` (a fleet with two groups is an error)."""
    return {fleet: g.desired for fleet, g in live_groups(groups, stack).items()}


def live_groups(groups: Iterable[Mapping[str, Any]], stack: str) -> dict[str, LiveGroup]:
    """The group of each fleet of ``stack`` (a fleet with two groups is an error)."""
    found: dict[str, LiveGroup] = {}
    for group in groups:
        tags = _tags(group)
        if tags.get(STACK_TAG) != stack or FLEET_TAG not in tags:
            continue
        fleet, name = tags[FLEET_TAG], str(group.get("AutoScalingGroupName", "?"))
        desired = group.get("DesiredCapacity")
        if not isinstance(desired, int) or isinstance(desired, bool) or desired < 0:
            raise LiveSizeError(f"group {name} (fleet {fleet}): DesiredCapacity is not a count: {desired!r}")
        if fleet in found:
            raise LiveSizeError(f"fleet {fleet} of stack {stack} has two groups ({found[fleet].name}, {name}): "
                                "cannot tell which one is live")
        types = tuple(str(o["InstanceType"]) for o in _overrides(group) if isinstance(o.get("InstanceType"), str))
        found[fleet] = LiveGroup(name, desired, _weighted(group), types)
    return found


def live_units(groups: Mapping[str, LiveGroup], plan: Plan) -> dict[str, int | None]:
    """Each fleet's live size in the policy's units: a weighted group's desired capacity as it is, an
    instance-counting group's times the units each of its instances holds, by the weights ``plan``
    gives its own instance types (the plan of the policy the stack runs). A group running types the
    plan does not list, or types of different weights, cannot be counted: None (a plan made since
    the deploy may weigh other types). Groups of fleets the plan does not have are left out."""
    fleets = {f.name: f for f in plan.fleets}
    out: dict[str, int | None] = {}
    for name, g in groups.items():
        if name not in fleets:
            continue
        if g.weighted:
            out[name] = g.desired
            continue
        weights = {c.instance_type: c.weight for c in fleets[name].instance_types}
        if not g.instance_types:  # no types listed: those of the plan's first type's weight, which the group was given
            out[name] = g.desired * fleets[name].node_weight
            continue
        seen = {weights.get(t) for t in g.instance_types}
        out[name] = g.desired * seen.pop() if len(seen) == 1 and None not in seen else None
    return out


def fetch_live_groups(client: Any, stack: str) -> dict[str, LiveGroup]:
    """Read the stack's fleet groups with ``client`` (a boto3 ``autoscaling`` client)."""
    from seedance.awsclient import unreadable_answer_errors

    groups: list[Mapping[str, Any]] = []
    paginator = client.get_paginator("describe_auto_scaling_groups")
    try:
        for page in paginator.paginate(Filters=[{"Name": f"tag:{STACK_TAG}", "Values": [stack]}]):
            found = (page.get("AutoScalingGroups") if isinstance(page, Mapping) else None) or []
            groups.extend(g for g in found if isinstance(g, Mapping))
    except unreadable_answer_errors() as exc:
        raise LiveSizeError(f"DescribeAutoScalingGroups: the answer is not an Auto Scaling response "
                            f"({type(exc).__name__}: {exc}); check the endpoint (AWS_ENDPOINT_URL_AUTO_SCALING, "
                            "a proxy)") from None
    return live_groups(groups, stack)


def fetch_live_sizes(client: Any, stack: str) -> dict[str, int]:
    """The desired capacity of each fleet's group, as AWS counts it (see :func:`fetch_live_groups`)."""
    return {fleet: g.desired for fleet, g in fetch_live_groups(client, stack).items()}
