"""Pulumi program of the seedance-gpu project: read config, load the cost policy, plan, create
the components, export. The same file runs under ``pulumi up`` and under ``seedance synth``."""

import sys
from pathlib import Path

import pulumi

PROJECT_DIR = Path(__file__).resolve().parent
if str(PROJECT_DIR.parent) not in sys.path:  # components/ and seedance/ when not pip-installed
    sys.path.insert(0, str(PROJECT_DIR.parent))

from components.platform import PlatformArgs, build_platform  # noqa: E402
from seedance.planner.endpoints import endpoint_prices  # noqa: E402
from seedance.synth.program import catalog, load_stack_policy, plan_for  # noqa: E402

config = pulumi.Config("seedance")
region = pulumi.Config("aws").get("region")
loaded = load_stack_policy(PROJECT_DIR, config.require("policy"), region)
prices = catalog()
plan = plan_for(loaded, prices)

platform = build_platform(
    PlatformArgs(
        policy=loaded.policy,
        plan=plan,
        stack=pulumi.get_stack(),
        endpoint_prices=endpoint_prices(prices, loaded.policy.cloud.region),
        route_table_ids=config.get_object("routeTableIds"),  # unset: every route table of the VPC
        eks_version=config.get("eksVersion") or "1.31",
        cluster_name=config.get("clusterName"),
    )
)
for key, value in platform.exports().items():
    pulumi.export(key, value)
pulumi.export("plan", plan.to_json())
