"""The estimate prices what the stack deploys: a stack without a cluster, off-peak floors on
autoscaled groups, node root volumes, gateway endpoints whatever the endpoint list says."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from seedance.cli import app
from seedance.estimate import estimate_policy
from seedance.estimate.fleet import HOURS_PER_MONTH, ROOT_VOLUME_GIB
from seedance.planner.planner import off_peak_floor, plan_policy
from seedance.policy import load_policy
from seedance.policy.cron import hourly_sizes, parse_window_cron, Window
from seedance.policy.loader import LoadedPolicy
from seedance.policy.model import EndpointService, Fleet
from seedance.pricing.catalog import Catalog

REPO = Path(__file__).resolve().parents[2]


def test_a_stack_without_a_cluster_runs_its_desired_size_and_has_no_kubernetes_storage(
        stacks: dict[str, LoadedPolicy], catalog: Catalog) -> None:
    loaded = stacks["eu-prod"]  # fleets with demand histories, StorageClasses, backups
    plan = plan_policy(loaded, catalog, as_of=dt.date(2024, 5, 30))
    joined = estimate_policy(loaded, catalog, plan)
    alone = estimate_policy(loaded, catalog, plan, cluster=False)
    assert {r.kind for r in joined.resources} >= {"ebs", "backup", "eks"}
    assert not {r.kind for r in alone.resources} & {"backup", "eks"}
    # the storage classes are named, with nothing to pay, and why
    ebs = [r for r in alone.resources if r.kind == "ebs"]
    assert [r.name for r in ebs] == [sc.name for sc in loaded.policy.storage.classes]
    assert all(not r.components and "the stack names no cluster" in r.notes[0] for r in ebs)
    for fleet in loaded.policy.fleets:
        fp = plan.fleet(fleet.name)
        line = next(r for r in alone.resources if r.kind == "fleet" and r.name == fleet.name)
        if not fleet.off_peak and fp.instance_types and fp.instance_types[0].weight == 1:
            # no autoscaler: the group's desired size every hour, not the plan's expected demand
            hours = sum(c.monthly_quantity for c in line.components if c.unit == "hours"
                        and not c.name.startswith("Reserved"))
            reserved_running = min(fp.desired, fp.reserved_units) * HOURS_PER_MONTH
            assert hours + reserved_running >= fp.desired * HOURS_PER_MONTH - 1e-6, fleet.name
        assert any("names no cluster" in n for n in line.notes), line.notes
    # inference's history expects more than its desired 6 units here; training's far fewer
    assert plan.fleet("llm-train").expected_nodes < plan.fleet("llm-train").desired
    assert alone.by_fleet["llm-train"] > joined.by_fleet["llm-train"]


def test_estimate_reads_whether_the_stack_joins_a_cluster(tmp_path: Path) -> None:
    project = tmp_path / "project"
    import shutil

    shutil.copytree(REPO / "stacks", project)
    policy = project / "policies" / "eu-prod.yaml"

    def kinds(*extra: str) -> set[str]:
        result = CliRunner().invoke(app, ["estimate", "-f", "json", str(policy), *extra], catch_exceptions=False)
        assert result.exit_code == 0, result.output
        return {r["kind"] for r in json.loads(result.output)["resources"]}

    # eu-prod names its cluster; a copy that names none is priced without one
    assert "eks" in kinds("--stack", "eu-prod", "--project-dir", str(project))
    text = (project / "Pulumi.eu-prod.yaml").read_text()
    (project / "Pulumi.solo.yaml").write_text("\n".join(ln for ln in text.splitlines() if "clusterName" not in ln) + "\n")
    assert "eks" not in kinds("--stack", "solo", "--project-dir", str(project))
    # no stack file: a usage error naming the file looked for (not the policy alone, priced as joining a cluster)
    result = CliRunner().invoke(app, ["estimate", "-f", "json", str(policy), "--stack", "elsewhere", "--project-dir",
                                      str(project)], catch_exceptions=False)
    assert result.exit_code == 2 and f"{project / 'Pulumi.elsewhere.yaml'} does not exist" in result.output


def test_hourly_sizes_follow_the_scheduled_actions() -> None:
    saturday = Window(parse_window_cron("30 0 * * 6"), 48, 4)
    week = hourly_sizes(1, [saturday])
    assert len(week) == 168 and sum(week) / 168 == pytest.approx(1 + 3 * 48 / 168)
    assert week[6 * 24] == pytest.approx(1 + 3 * 0.5)  # Saturday 00:30: half the hour at 4
    assert week[6 * 24 + 1] == 4 and week[0] == 4 and week[23] == 4  # Saturday and Sunday
    assert week[24] == pytest.approx(1 + 3 * 0.5) and week[25] == 1  # it ends Monday 00:30
    assert week[3 * 24] == 1


def _fleet(windows: list[dict[str, object]]) -> Fleet:
    return Fleet.model_validate({"name": "t", "workload": "training", "sla": "bronze", "gpu": {"model": "A10G"},
                                 "capacity": {"min": 1, "desired": 2, "max": 8}, "offPeak": windows})


def test_off_peak_floor_is_the_group_minimum_hour_by_hour() -> None:
    fleet = _fleet([{"cron": "0 0 * * 6", "hours": 48, "desired": 4}])
    # from Monday 00:00 (hour 0 of the planner's week): Saturday is hours 120-143, Sunday 144-167
    floor = off_peak_floor(fleet, 1, 0, 336)
    assert floor is not None and floor.shape == (336,)
    assert np.all(floor[:120] == 1) and np.all(floor[120:168] == 4) and np.all(floor[168:288] == 1)
    # from Saturday 12:00
    assert np.all(off_peak_floor(fleet, 1, 132, 36)[:36] == 4)
    assert off_peak_floor(_fleet([]), 1, 0, 24) is None


def test_off_peak_windows_raise_the_planned_demand_of_an_autoscaled_fleet(tmp_path: Path, catalog: Catalog) -> None:
    base = load_policy(REPO / "stacks" / "policies" / "eu-prod.yaml")
    train = next(f for f in base.policy.fleets if f.name == "llm-train")
    assert not train.off_peak and train.demand_history
    # the same policy, with a weekend window holding llm-train at its maximum
    path = tmp_path / "eu-prod.yaml"
    path.write_text(f"extends: {REPO / 'stacks' / 'policies' / 'eu-prod.yaml'}\nfleets:\n  - name: llm-train\n"
                    f"    offPeak: [{{cron: \"0 0 * * 6\", hours: 48, desired: {train.capacity.max}}}]\n")
    with_window = load_policy(path)
    day = dt.date(2024, 5, 30)
    before = plan_policy(base, catalog, as_of=day).fleet("llm-train")
    after = plan_policy(with_window, catalog, as_of=day).fleet("llm-train")
    # at least the window's share of the week at the maximum
    assert after.expected_nodes >= train.capacity.max * 48 / 168 - 1e-9
    assert after.expected_nodes > before.expected_nodes
    assert "off-peak windows' sizes" in after.rationale["demand"]
    est = estimate_policy(with_window, catalog, plan_policy(with_window, catalog, as_of=day))
    assert est.by_fleet["llm-train"] > estimate_policy(base, catalog, plan_policy(base, catalog, as_of=day)).by_fleet["llm-train"]


def test_gateway_endpoints_carry_their_traffic_whatever_the_list(stacks: dict[str, LoadedPolicy], catalog: Catalog) -> None:
    policy = stacks["dev"].policy
    network = policy.network.model_copy(update={"endpoints": [EndpointService("ecr.dkr")]})
    est = estimate_policy(policy.model_copy(update={"network": network}), catalog)
    vpc = next(r for r in est.resources if r.kind == "network")
    assert any(n.startswith("s3: gateway") for n in vpc.notes)
    assert not any("s3" in c.name for c in vpc.components if c.name.startswith("NAT data processed"))


def test_every_node_has_its_root_volume_priced(stacks: dict[str, LoadedPolicy], catalog: Catalog) -> None:
    est = estimate_policy(stacks["dev"], catalog)
    for r in est.resources:
        if r.kind != "fleet":
            continue
        (root,) = [c for c in r.components if c.name.startswith("Node root volumes")]
        instance_hours = sum(c.monthly_quantity for c in r.components if c.unit == "hours" and not c.name.startswith("Reserved"))
        assert root.monthly_quantity == pytest.approx(instance_hours / HOURS_PER_MONTH * ROOT_VOLUME_GIB)
        assert root.unit_price == 0.08  # us-east-1 gp3 per GB-month


def test_without_a_cluster_the_planner_plans_what_the_groups_run(stacks: dict[str, LoadedPolicy], catalog: Catalog) -> None:
    from seedance.estimate.fleet import average_nodes

    loaded = stacks["eu-prod"]  # fleets with demand histories far from their desired sizes
    day = dt.date(2024, 5, 30)
    joined = plan_policy(loaded, catalog, as_of=day)
    alone = plan_policy(loaded, catalog, as_of=day, cluster=False)
    assert joined.cluster and not alone.cluster
    est = estimate_policy(loaded, catalog, alone, cluster=False)
    for fleet in loaded.policy.fleets:
        fp = alone.fleet(fleet.name)
        w = fp.instance_types[0].weight
        # the desired size and off-peak windows, not the history's forecast
        assert fp.expected_nodes == pytest.approx(average_nodes(fleet, fleet.capacity.desired, w)[0]), fleet.name
        assert "names no cluster" in fp.rationale["demand"]
        if fleet.demand_history:
            assert "is not read" in fp.rationale["demand"]
        # the plan's month is the estimate's, as the stack deploys it
        assert est.by_fleet[fleet.name] == pytest.approx(fp.monthly_cost), fleet.name
    # llm-train's history expects far fewer nodes than the 2 its group runs all month: reserving
    # them pays on what runs (on the history, nothing was worth reserving)
    train = alone.fleet("llm-train")
    assert joined.fleet("llm-train").reserved_units == 0 and joined.fleet("llm-train").expected_nodes < 1
    assert train.reserved_units == train.desired == 2 and "own weekly schedule" in train.rationale["reserved"]
    assert est.by_fleet["llm-train"] < estimate_policy(loaded, catalog, joined, cluster=False).by_fleet["llm-train"]


def test_plan_and_diff_read_whether_the_stack_joins_a_cluster(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    import shutil

    project = tmp_path / "project"
    shutil.copytree(REPO / "stacks", project)
    policy = project / "policies" / "eu-prod.yaml"
    text = (project / "Pulumi.eu-prod.yaml").read_text()
    (project / "Pulumi.solo.yaml").write_text("\n".join(ln for ln in text.splitlines() if "clusterName" not in ln) + "\n")
    args = ["--as-of", "2024-05-30", "--project-dir", str(project)]

    def plan(stack: str) -> dict:
        result = CliRunner().invoke(app, ["plan", "-f", "json", str(policy), "--stack", stack, *args],
                                    catch_exceptions=False)
        assert result.exit_code == 0, result.output
        return json.loads(result.output)

    joined, alone = plan("eu-prod"), plan("solo")
    assert joined["cluster"] is True and alone["cluster"] is False
    train = {f["name"]: f for f in alone["fleets"]}["llm-train"]
    assert train["expected_nodes"] == train["desired"] and "names no cluster" in train["rationale"]["demand"]
    # a plan for the other kind of stack is priced, with a warning
    saved = tmp_path / "plan.json"
    saved.write_text(json.dumps(joined))
    result = CliRunner().invoke(app, ["estimate", str(policy), "--plan", str(saved), "--stack", "solo",
                                      "--project-dir", str(project)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "re-plan with `seedance plan --stack solo`" in caplog.text
    # diff plans and prices both sides for the stack: no EKS, the groups at their desired sizes
    result = CliRunner().invoke(app, ["diff", "-f", "json", str(policy), str(policy), "--stack", "solo", *args],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["monthly_total"]["before"] == report["monthly_total"]["after"]
    alone_est = CliRunner().invoke(app, ["estimate", "-f", "json", str(policy), "--stack", "solo", "--project-dir",
                                         str(project), "--plan", str(_write(tmp_path / "alone.json", alone))],
                                   catch_exceptions=False)
    assert json.loads(alone_est.output)["monthly_total"] == pytest.approx(report["monthly_total"]["before"], abs=0.01)


def _write(path: Path, data: dict) -> Path:
    path.write_text(json.dumps(data))
    return path
