"""Where a stack's off-site copies go (MLPS 2.0 level 3, 8.1.4.9 b: off-site backup).

The partner region of the stack's region, in the same jurisdiction. The components create the copies
there (a second stack key, replicas of the personal-data buckets and of the audit logs) and the
estimate prices them there; both read this module.
"""

from __future__ import annotations

from seedance.policy.model import CostPolicy, Framework

#: Where an off-site copy goes: the other region of the same jurisdiction.
PARTNER_REGIONS: dict[str, str] = {
    "cn-north-1": "cn-northwest-1",
    "cn-northwest-1": "cn-north-1",
    "eu-central-1": "eu-west-1",
    "eu-west-1": "eu-central-1",
    "us-east-1": "us-west-2",
    "us-west-2": "us-east-1",
    "ap-northeast-1": "ap-northeast-3",
}


def off_site_region(policy: CostPolicy) -> str | None:
    """The partner region of the stack's region when a framework requires off-site copies (MLPS 2.0
    level 3), else None; None too for a region without a known partner (the components refuse it)."""
    if Framework.MLPS_L3 not in policy.compliance.frameworks:
        return None
    return PARTNER_REGIONS.get(policy.cloud.region)
