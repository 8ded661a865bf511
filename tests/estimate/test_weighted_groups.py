"""Plan and estimate agree on a fleet whose only type holds several units and whose capacity is not a
multiple of them, on the bundled us-east-1 prices of g4dn.12xlarge (4 units of 1 T4 each):
on-demand 3.912/h, 1y no-upfront reserved 2.465/h, gp3 0.08 per GB-month (200 GiB root volumes)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from components.fleet import group_shape
from seedance.estimate import estimate_policy
from seedance.estimate.fleet import usage_from_policy
from seedance.planner.planner import plan_policy
from seedance.policy import load_policy
from seedance.policy.loader import LoadedPolicy
from seedance.pricing.catalog import Catalog

DAY = dt.date(2024, 5, 30)
HEAD = """apiVersion: seedance.io/v1
kind: CostPolicy
metadata:
  name: odtest
  environment: dev
  owner: a@example.com
  tags: {team: t, cost-center: CC-1}
cloud:
  region: us-east-1
  availabilityZones: [us-east-1a]
  vpcId: vpc-0d1a2b3c4d5e6f703
  subnetIds: [subnet-0d1b2c3d4e5f60001]
budget:
  monthlyAmount: 10000
  currency: USD
network:
  endpoints: []
  existingEndpoints: [ecr.api, ecr.dkr, sts, ec2]  # no NAT: the nodes reach these through the VPC's
  natGateways: 0
fleets:
  - name: web
    workload: inference
    sla: silver
    gpu: {model: T4, count: 1}
    instanceTypes: {allowed: [g4dn.12xlarge]}
"""
MIN_MAX_10 = """    capacity: {min: 10, desired: 10, max: 10}
    reserved: {mode: auto, term: 1y}
"""
FIXED_6 = """    capacity: {min: 0, desired: 10, max: 12}
    spot: {maxShare: 0.5, interruptionTolerance: high}
    reserved: {mode: fixed, units: 6}
"""
RI, OD, GP3 = 2.465, 3.912, 0.08
RESERVED = "Reserved instances (Linux, 1y no-upfront, g4dn.12xlarge)"
ON_DEMAND = "Instance usage (Linux, on-demand, g4dn.12xlarge)"
ROOTS = "Node root volumes (gp3, 200 GiB each)"


def load(tmp_path: Path, fleet: str) -> LoadedPolicy:
    path = tmp_path / "p.yaml"
    path.write_text(HEAD + fleet)
    return load_policy(path)


def lines(est: object) -> dict[str, tuple[float, float]]:
    (fleet,) = [r for r in est.resources if r.kind == "fleet"]  # type: ignore[attr-defined]
    return {c.name: (c.monthly_quantity, c.monthly_cost) for c in fleet.components}


def test_a_stack_without_a_cluster_reserves_and_bills_the_three_instances_it_runs(tmp_path: Path, catalog: Catalog) -> None:
    # min = max = 10 units: the weighted group runs 3 instances every hour. All 3 are reserved, and the
    # estimate bills 3 x 730 reserved hours and no on-demand (the defect: 2 reserved + 1 on-demand,
    # 6,502.66 USD)
    loaded = load(tmp_path, MIN_MAX_10)
    plan = plan_policy(loaded, catalog, as_of=DAY, cluster=False)
    fp = plan.fleet("web")
    assert (fp.reserved_units, fp.new_purchases, fp.expected_nodes) == (12, [("1y", 12)], 12.0)
    est = estimate_policy(loaded, catalog, plan, cluster=False)
    assert lines(est) == {
        RESERVED: (pytest.approx(3 * 730), pytest.approx(3 * 730 * RI)),
        ROOTS: (pytest.approx(3 * 200), pytest.approx(3 * 200 * GP3)),
    }
    assert est.by_fleet["web"] == pytest.approx(5398.35 + 48.0) == pytest.approx(fp.monthly_cost)


def test_a_managed_group_reserves_and_bills_only_the_instances_it_can_start(tmp_path: Path, catalog: Catalog) -> None:
    # in a cluster the group counts instances: floor(10 / 4) = 2 at most. Two are reserved and billed,
    # no third instance (on-demand or reserved) that the group could never start
    loaded = load(tmp_path, MIN_MAX_10)
    plan = plan_policy(loaded, catalog, as_of=DAY, cluster=True)
    fp = plan.fleet("web")
    assert group_shape(fp, autoscaler_managed=True).max_size == 2
    assert (fp.reserved_units, fp.expected_nodes) == (8, 8.0)
    est = estimate_policy(loaded, catalog, plan, cluster=True)
    assert lines(est) == {RESERVED: (pytest.approx(2 * 730), pytest.approx(2 * 730 * RI)),
                          ROOTS: (pytest.approx(2 * 200), pytest.approx(2 * 200 * GP3))}
    assert est.by_fleet["web"] == pytest.approx(2 * 730 * RI + 2 * 200 * GP3) == pytest.approx(fp.monthly_cost)
    # without a plan the estimate counts the same instances
    assert estimate_policy(loaded, catalog, as_of=DAY, cluster=True).by_fleet["web"] == pytest.approx(
        2 * 730 * OD + 2 * 200 * GP3)  # nothing fixed or held: no reservation without a plan


def test_without_a_plan_the_on_demand_base_is_the_reserved_whole_instances(tmp_path: Path, catalog: Catalog) -> None:
    # fixed 6 units = 1.5 instances: 1 whole instance reserved (4 units), and the base is that
    # instance, as the plan deploys it, not ceil(6 / 4) = 2 instances
    loaded = load(tmp_path, FIXED_6)
    fleet = loaded.policy.fleets[0]
    usage = usage_from_policy(fleet, "g4dn.12xlarge", DAY, 4, managed=True)
    assert (usage.reserved_units, usage.on_demand_base) == (4, 4)
    per = usage.per_instance(4)
    assert (per.reserved_units, per.on_demand_base, per.nodes) == (1, 1, 3.0)
    plan = plan_policy(loaded, catalog, as_of=DAY)
    assert (plan.fleet("web").reserved_units, plan.fleet("web").on_demand_base) == (4, 4)
    with_plan = lines(estimate_policy(loaded, catalog, plan))
    without = lines(estimate_policy(loaded, catalog, as_of=DAY))
    assert without == with_plan
    # 3 instances run (10 units); the base is the 1 reserved instance, and the 2 above it run half on
    # spot: 1 on-demand instance all month (the defect: a second base instance on-demand, 1.5 in all)
    assert without[RESERVED][0] == pytest.approx(730)
    assert without[ON_DEMAND][0] == pytest.approx(730)
