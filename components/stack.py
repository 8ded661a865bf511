"""The Pulumi program of a Seedance project: read the stack config, load the cost policy, plan,
create the components, export.

A project's ``__main__.py`` only calls :func:`run` with its own directory, so the example stacks in
this repository and projects written by ``seedance init`` run the same code, under ``pulumi up`` and
under ``seedance synth`` alike.  Stack config (namespace ``seedance``): ``policy`` (required, the cost
policy relative to the program's directory, ``main`` of Pulumi.yaml), ``clusterName``, ``routeTableIds``, ``eksVersion``.
"""

from __future__ import annotations

from pathlib import Path

import pulumi

from components.common import ComponentArgsError
from components.platform import PlatformArgs, build_platform
from seedance.planner.endpoints import endpoint_prices
from seedance.synth.program import catalog, check_one_stack_per_cluster, load_stack_policy, plan_for


def run(project_dir: Path) -> None:
    config = pulumi.Config("seedance")
    region = pulumi.Config("aws").get("region")
    loaded = load_stack_policy(project_dir, config.require("policy"), region)
    prices = catalog()
    cluster_name = config.get("clusterName")
    check_one_stack_per_cluster(project_dir, pulumi.get_stack(), cluster_name, region)
    plan = plan_for(loaded, prices, cluster=bool(cluster_name))
    platform = build_platform(
        PlatformArgs(
            policy=loaded.policy,
            plan=plan,
            stack=pulumi.get_stack(),
            endpoint_prices=endpoint_prices(prices, loaded.policy.cloud.region),
            route_table_ids=_route_table_ids(config),  # unset: every route table of the VPC
            eks_version=config.get("eksVersion"),  # unset: the joined cluster's version (1.31 without one)
            cluster_name=cluster_name,
        )
    )
    for key, value in platform.exports().items():
        pulumi.export(key, value)
    pulumi.export("plan", plan.to_json())


def _route_table_ids(config: pulumi.Config) -> list[str] | None:
    """``seedance:routeTableIds``: a list of route table ids, or None when unset (a string is not a list of ids)."""
    value = config.get_object("routeTableIds")
    if value is not None and (not isinstance(value, list) or not all(isinstance(v, str) and v for v in value)):
        raise ComponentArgsError("seedance:routeTableIds", "expected a list of route table ids "
                                 f"(e.g. [rtb-0123456789abcdef0], or [] for none), got {value!r}")
    return value
