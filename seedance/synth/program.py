"""What the stack program needs besides the components: policy, catalog, plan, region check.

Kept here so ``stacks/__main__.py`` stays a handful of lines and tests can call the same code.
"""

from __future__ import annotations

import logging
from pathlib import Path

from seedance.planner.plan import Plan
from seedance.planner.planner import plan_policy
from seedance.planner.type_checks import check_instance_types
from seedance.policy.loader import LoadedPolicy, load_policy
from seedance.pricing.catalog import Catalog, env_cache_dir, load_catalog

log = logging.getLogger(__name__)


class StackConfigError(ValueError):
    """The stack's configuration does not fit its policy."""


def load_stack_policy(project_dir: Path, policy_path: str, region: str | None) -> LoadedPolicy:
    """Load the policy named by ``seedance:policy`` (relative to the program's directory) and check that the
    stack's ``aws:region`` agrees with the policy's ``cloud.region``."""
    loaded = load_policy(project_dir / policy_path)
    want = loaded.policy.cloud.region
    if region and region != want:
        raise StackConfigError(f"aws:region is {region} but {policy_path} sets cloud.region {want}; make them agree")
    return loaded


def check_one_stack_per_cluster(project_dir: Path, stack: str, cluster: str | None, region: str | None) -> None:
    """Refuse a second stack of the project joining the same cluster (StackConfigError).

    Seedance's Kubernetes objects are named per cluster, not per stack: the tiers' PriorityClasses
    (``seedance-gold`` ...), the scheduler and descheduler ConfigMaps in ``kube-system``, the GPU
    operator's configs and a namespace per fleet name. A second stack in the cluster would fail on
    them, or take them over and delete them when either stack is destroyed. Only the project's own
    stack files can be seen; stacks of other projects cannot."""
    from seedance.synth.project import available_stacks, project_dir_of, read_stack_config
    from seedance.synth.runtime import SynthError

    if not cluster:
        return
    project_dir = project_dir_of(project_dir)  # the program's folder is main's, under Pulumi.yaml's folder
    for other in available_stacks(project_dir):
        if other == stack:
            continue
        try:
            config = read_stack_config(project_dir, other).config
        except SynthError:
            continue  # that stack's own runs report its file
        if config.get("seedance:clusterName") == cluster and (config.get("aws:region") or region) == region:
            raise StackConfigError(
                f"stacks {other} and {stack} of this project both join cluster {cluster}"
                + (f" in {region}" if region else "") + ": Seedance's Kubernetes objects (the tiers' PriorityClasses, "
                "the scheduler and descheduler ConfigMaps, the GPU operator's configs, a namespace per fleet) are named "
                "per cluster, so one stack's would collide with the other's; give each stack its own cluster, or "
                f"remove seedance:clusterName from Pulumi.{other}.yaml if that stack is gone")


def plan_for(loaded: LoadedPolicy, catalog: Catalog, *, cluster: bool = True) -> Plan:
    """The planner's plan for the policy (``cluster``: whether the stack names one, ``seedance:clusterName``:
    without it the groups run their desired size, which is planned on), after the checks ``seedance plan``
    and ``validate`` run on the instance types it names
    (:func:`~seedance.planner.type_checks.check_instance_types`, raising
    :class:`~seedance.policy.errors.PolicyValidationError`): the planner leaves out a type the catalog
    does not price, so without them the stack would deploy without it."""
    check_instance_types(loaded, catalog)
    return plan_policy(loaded, catalog, cluster=cluster)


def catalog() -> Catalog:
    """The bundled prices, overlaid by ``$SEEDANCE_PRICE_CACHE`` when set (as ``seedance plan`` reads them)."""
    return load_catalog(cache_dir=env_cache_dir())
