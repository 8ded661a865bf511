"""The live size of a stack's fleets: the desired capacity of their Auto Scaling groups right now.

Once a fleet's group joins a cluster its Cluster Autoscaler owns the live size, so the policy's
``capacity.desired`` says nothing about it. A ``freeze`` caps each fleet at what runs now: capping at
the policy's figure instead could shrink a group the autoscaler has grown. The groups are found by
the tags every fleet group carries (``seedance:stack``, ``seedance:fleet``).

:func:`sizes_from_groups` is pure (the DescribeAutoScalingGroups ``AutoScalingGroups`` list in, sizes
out); :func:`fetch_live_sizes` is the only call to AWS.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

STACK_TAG = "seedance:stack"
FLEET_TAG = "seedance:fleet"


class LiveSizeError(Exception):
    """The groups cannot be read, or their answer does not give one size per fleet."""


def _tags(group: Mapping[str, Any]) -> dict[str, str]:
    return {str(t.get("Key")): str(t.get("Value")) for t in group.get("Tags") or [] if isinstance(t, Mapping)}


def sizes_from_groups(groups: Iterable[Mapping[str, Any]], stack: str) -> dict[str, int]:
    """Desired capacity by fleet name of the groups tagged with ``stack`` (a fleet with two groups is an error)."""
    sizes: dict[str, int] = {}
    names: dict[str, str] = {}
    for group in groups:
        tags = _tags(group)
        if tags.get(STACK_TAG) != stack or FLEET_TAG not in tags:
            continue
        fleet, name = tags[FLEET_TAG], str(group.get("AutoScalingGroupName", "?"))
        desired = group.get("DesiredCapacity")
        if not isinstance(desired, int) or isinstance(desired, bool) or desired < 0:
            raise LiveSizeError(f"group {name} (fleet {fleet}): DesiredCapacity is not a count: {desired!r}")
        if fleet in sizes:
            raise LiveSizeError(f"fleet {fleet} of stack {stack} has two groups ({names[fleet]}, {name}): "
                                "cannot tell which one is live")
        sizes[fleet], names[fleet] = desired, name
    return sizes


def fetch_live_sizes(client: Any, stack: str) -> dict[str, int]:
    """Read the stack's fleet groups with ``client`` (a boto3 ``autoscaling`` client)."""
    groups: list[Mapping[str, Any]] = []
    paginator = client.get_paginator("describe_auto_scaling_groups")
    for page in paginator.paginate(Filters=[{"Name": f"tag:{STACK_TAG}", "Values": [stack]}]):
        groups.extend(page.get("AutoScalingGroups") or [])
    return sizes_from_groups(groups, stack)
