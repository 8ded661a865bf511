"""What the stack program needs besides the components: policy, catalog, plan, region check.

Kept here so ``stacks/__main__.py`` stays a handful of lines and tests can call the same code.
"""

from __future__ import annotations

import logging
from pathlib import Path

from seedance.planner.plan import Plan
from seedance.planner.planner import plan_policy
from seedance.policy.loader import LoadedPolicy, load_policy
from seedance.pricing.catalog import Catalog, env_cache_dir, load_catalog

log = logging.getLogger(__name__)


class StackConfigError(ValueError):
    """The stack's configuration does not fit its policy."""


def load_stack_policy(project_dir: Path, policy_path: str, region: str | None) -> LoadedPolicy:
    """Load the policy named by ``seedance:policy`` (relative to the project) and check that the
    stack's ``aws:region`` agrees with the policy's ``cloud.region``."""
    loaded = load_policy(project_dir / policy_path)
    want = loaded.policy.cloud.region
    if region and region != want:
        raise StackConfigError(f"aws:region is {region} but {policy_path} sets cloud.region {want}; make them agree")
    return loaded


def plan_for(loaded: LoadedPolicy, catalog: Catalog, *, cluster: bool = True) -> Plan:
    """The planner's plan for the policy (``cluster``: whether the stack names one, ``seedance:clusterName``:
    without it the groups run their desired size, which is planned on)."""
    return plan_policy(loaded, catalog, cluster=cluster)


def catalog() -> Catalog:
    """The bundled prices, overlaid by ``$SEEDANCE_PRICE_CACHE`` when set (as ``seedance plan`` reads them)."""
    return load_catalog(cache_dir=env_cache_dir())
