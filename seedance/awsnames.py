"""AWS name limits the stack's auto-named resources must fit, shared by the policy's validation,
the components and the offline synthesis (which fails on a name AWS would refuse, as a preview does).

Pulumi names a resource that names none ``LOGICAL-xxxxxxx`` (7 random hex digits); the AWS
provider refuses the resource when that is longer than the type allows. A ``namePrefix`` gets 26
characters from the provider instead."""

from __future__ import annotations

import re

#: what Pulumi's auto-naming adds to the logical name: '-' and 7 hex digits
AUTO_NAME_SUFFIX = 8
#: S3 bucket names (S3 user guide, bucket naming rules)
S3_BUCKET_NAME_MAX = 63
#: IAM role names (IAM API, CreateRole RoleName)
IAM_ROLE_NAME_MAX = 64
#: the longest ``name_prefix`` of an IAM role: the provider adds a 26-character unique suffix
IAM_ROLE_PREFIX_MAX = IAM_ROLE_NAME_MAX - 26
#: the logical name of the component holding the checkpoint buckets (``storage-NAME`` each)
CHECKPOINT_BUCKETS = "storage"
#: what an off-site copy adds to a bucket's logical name
REPLICA_SUFFIX = "-replica"


def checkpoint_bucket_name_max(replicated: bool) -> int:
    """The longest checkpoint bucket name (the policy's ``name``) whose S3 bucket, and off-site copy
    when ``replicated``, Pulumi can auto-name within S3's limit."""
    used = len(CHECKPOINT_BUCKETS) + 1 + AUTO_NAME_SUFFIX + (len(REPLICA_SUFFIX) if replicated else 0)
    return S3_BUCKET_NAME_MAX - used


def partition(region: str) -> str:
    """The partition of ``region`` as ARNs name it (mainland China ``aws-cn``, GovCloud ``aws-us-gov``)."""
    if region.startswith("cn-"):
        return "aws-cn"
    if region.startswith("us-gov-"):
        return "aws-us-gov"
    return "aws"


#: CloudTrail trail names (CreateTrail's Name): letters, digits, '.', '_', '-', starting and ending with
#: a letter or digit, no two of '.', '_', '-' side by side (and not an IP address, see ``IP_ADDRESS``)
#: Offline there is no EC2 to say which zone a subnet is in: the mock runtime answers a lookup of a
#: subnet it was told nothing of with a made-up zone of its own, REGION-zone-of-SUBNET.
OFFLINE_ZONE_INFIX = "-zone-of-"


def offline_zone(region: str, subnet_id: str) -> str:
    """The made-up zone offline synthesis gives a subnet whose zone it does not know."""
    return f"{region}{OFFLINE_ZONE_INFIX}{subnet_id}"


def is_offline_zone(zone: str) -> bool:
    """Whether a looked-up zone is offline synthesis's made-up one (no real zone name holds the infix)."""
    return OFFLINE_ZONE_INFIX in zone


def budget_threshold_percent(at: float) -> float:
    """The percentage a budget notification is created with for a threshold at this fraction of the
    budget: four decimals (thresholds closer than that would be one notification twice)."""
    return round(at * 100, 4)


TRAIL_NAME = re.compile(r"[A-Za-z0-9]+(?:[._-][A-Za-z0-9]+)*")
IP_ADDRESS = re.compile(r"[0-9]{1,3}(?:\.[0-9]{1,3}){3}")


#: an instance type's family: a prefix (``m``, ``hpc``), a generation and its attribute letters (``gd``, ``gn``)
_FAMILY = re.compile(r"^([a-z]+)(\d+)([a-z-]*)\.")


def arm64_instance_type(instance_type: str) -> bool:
    """Whether ``instance_type`` runs an arm64 (AWS Graviton) processor: the ``a1`` family and every
    family whose attribute letters hold ``g`` (``m7g``, ``c6gn``, ``x2gd``, ``im4gn``, ``is4gen``,
    ``g5g``; EC2's instance type naming). x86_64 families never carry ``g`` there (``g4dn``'s ``g``
    is its prefix)."""
    m = _FAMILY.match(instance_type)
    if m is None:
        return False
    prefix, generation, attributes = m.groups()
    return (prefix, generation) == ("a", "1") or "g" in attributes
