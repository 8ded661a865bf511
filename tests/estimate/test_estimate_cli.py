"""`seedance estimate` on every example stack, in-process (CliRunner) and as a subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from seedance.cli import app, main

REPO = Path(__file__).resolve().parents[2]
POLICIES = REPO / "stacks" / "policies"
STACKS = ("eu-prod", "cn-prod", "dev")
CURRENCY = {"eu-prod": "USD", "cn-prod": "CNY", "dev": "USD"}


def _invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args), standalone_mode=False, catch_exceptions=False)
    return result.return_value, result.output


@pytest.mark.parametrize("stack", STACKS)
def test_text_table_on_every_stack(stack: str) -> None:
    code, out = _invoke("estimate", "--no-plan", str(POLICIES / f"{stack}.yaml"))
    assert code == 0, out
    assert f"monthly, {CURRENCY[stack]}" in out and "Totals" in out and "per month" in out
    assert "basis: the policy's own values, without a plan" in out  # the plan's purchases are not in it
    assert "Instance usage (Linux" in out
    if stack == "cn-prod":
        assert "Total (partial: some components have no sourced price)" in out
        assert "unpriced (see below)" in out
        assert "  - fast-ckpt: Storage (io2): the shared price data has no service prices for cn-north-1 (CNY)" in out
        assert "Instance usage (Linux, spot" not in out  # no spot data in China: no spot, as the planner decides
        assert "USD" not in out
    else:
        assert "partial" not in out


@pytest.mark.parametrize("stack", STACKS)
def test_json_on_every_stack(stack: str) -> None:
    code, out = _invoke("estimate", "--format", "json", str(POLICIES / f"{stack}.yaml"))
    assert code == 0
    doc = json.loads(out)
    assert doc["kind"] == "Estimate" and doc["currency"] == CURRENCY[stack]
    assert doc["partial"] is (stack == "cn-prod")
    assert abs(doc["monthly_total"] - sum(doc["by_service"].values())) < 0.05  # per-service figures are rounded
    assert {c["currency"] for r in doc["resources"] for c in r["components"]} == {CURRENCY[stack]}


def test_dev_json_total_to_the_cent() -> None:
    _, out = _invoke("estimate", "-f", "json", "--no-plan", str(POLICIES / "dev.yaml"))
    doc = json.loads(out)
    # without a plan each fleet runs on the planner's first type, with spot where the planner puts it;
    # spot hours are billed as paid: useful hours / (1 - f), f the share lost to interruptions.
    # finetune (spot 1.0, tolerance medium): g5.xlarge's >20% band is above it, g5.2xlarge's 15-20%
    # (upper bound 22% a month) is not: 0.43682 spot against 1.212 on-demand. Interruptions
    # -ln(1 - 0.22) / 730 = 3.4036e-4 per hour, M = 3600 / 3.4036e-4 = 1.0577e7 s; checkpoints (60 s
    # writes, 240 s restarts): tau ≈ sqrt(2 × 60 × M) = 35,627 s, f ≈ 60/tau + tau/(2M) + 240/M =
    # 0.00339 (Daly's exact form: 0.003387): 730 × 0.43682 / (1 - 0.003387) = 319.96.
    # inference (silver, spot 0.5, tolerance low): every A10G type's band is above low, so on-demand
    # g5.xlarge: 730 × 1.006 = 734.38.
    # batch-embed (tolerance high; g4dn.xlarge in the >20% band, 600 / 3066 = 0.195695 interruptions
    # per hour, 300 s lost each: f = 0.0163079; 1 node + 3 more for 8 h a day = 2 on average, all
    # spot): 1460 × 0.1766 / (1 - 0.0163079) = 262.11.
    # Each instance also has its 200 GiB gp3 root volume (0.08 USD/GB-month) while it exists, spot
    # instances for their paid hours: finetune 200 × 0.08 / (1 - 0.003387) = 16.05, inference
    # 200 × 0.08 = 16, batch-embed 2 × 200 × 0.08 / (1 - 0.0163079) = 32.53
    assert doc["by_fleet"] == {"finetune": 336.02, "inference": 750.38, "batch-embed": 294.64}
    # EBS gp3 800 × 0.08 + 12000 × 0.005 + 500 × 0.04 = 144; EKS 73; KMS 1
    assert (doc["by_service"]["EBS"], doc["by_service"]["EKS"], doc["by_service"]["KMS"]) == (144.0, 73.0, 1.0)


def _dev_plan() -> dict:
    """A hand-made plan of the dev stack (capacity as the policy states it)."""
    return {
        "policy": "gpu-platform-dev", "environment": "dev", "region": "us-east-1", "currency": "USD",
        "monthly_cost": 0, "monthly_cost_all_ondemand": 0, "savings": 0,
        "fleets": [
            {"name": n, "instance_types": [{"instance_type": t, "weight": 1, "hourly_ondemand": 0, "hourly_spot": None, "rationale": ""}],
             # the policy holds nothing: reserved units are bought now, as the planner writes them
             "reserved_units": r, "new_purchases": [["1y", r]] if r else [], "on_demand_base": b, "spot_share_above_base": s,
             "allocation_strategy": "price-capacity-optimized", "checkpoint_interval_s": None, "checkpoint_overhead": None,
             "min_size": lo, "max_size": hi, "desired": d, "expected_nodes": e, "rationale": {}}
            for n, t, r, b, s, lo, d, hi, e in (("finetune", "g5.xlarge", 0, 0, 1.0, 0, 1, 2, None),
                                                ("inference", "g5.xlarge", 1, 1, 0.5, 1, 3, 3, 3),
                                                ("batch-embed", "g4dn.xlarge", 0, 0, 1.0, 0, 1, 4, None))
        ],
    }


def _dev_with_three(tmp_path: Path) -> Path:
    """dev with its inference fleet at desired 3, so the hand-made plan's 3 expected nodes are current."""
    policy = tmp_path / "dev3.yaml"
    policy.write_text(f"apiVersion: seedance.io/v1\nkind: CostPolicy\nextends: {POLICIES / 'dev.yaml'}\nfleets:\n"
                      "  - name: inference\n    capacity: {min: 1, desired: 3, max: 3}\n", encoding="utf-8")
    return policy


def test_plan_option(tmp_path: Path) -> None:
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(_dev_plan()), encoding="utf-8")
    code, out = _invoke("estimate", "-f", "json", "--plan", str(path), str(_dev_with_three(tmp_path)))
    assert code == 0, out
    doc = json.loads(out)
    # inference: 3 nodes expected, 1 reserved (0.63378/h), 2 above the base half on spot; the plan gives
    # no interruption rate, so spot is priced at g5.xlarge's band (>20%: 0.19569/h, a 300 s restart each,
    # f = 0.016308 of spot hours lost): 730 × (0.63378 + 1.006 + 0.39388 / (1 − f)) = 1489.34, and root
    # volumes of 200 GiB gp3 on 2 + 1 / (1 − f) paid instances: 48.27
    assert doc["basis"] == "plan" and doc["by_fleet"]["inference"] == 1537.60
    notes = next(r["notes"] for r in doc["resources"] if r["kind"] == "fleet" and r["name"] == "inference")
    assert any("no interruption_rate_per_hour: spot priced at 0.195695 per hour" in n for n in notes), notes
    # the same plan with the rate `seedance plan` records prices the same
    with_rate = _dev_plan()
    for f in with_rate["fleets"]:
        if f["name"] == "inference":
            f["interruption_rate_per_hour"] = 600 / 3066
    path.write_text(json.dumps(with_rate), encoding="utf-8")
    code, out = _invoke("estimate", "-f", "json", "--plan", str(path), str(_dev_with_three(tmp_path)))
    assert code == 0, out
    assert json.loads(out)["by_fleet"] == doc["by_fleet"]


def test_bad_plan_file_is_a_clean_error(tmp_path: Path) -> None:
    path = tmp_path / "plan.json"
    path.write_text("{oops", encoding="utf-8")
    code, out = _invoke("estimate", "--plan", str(path), str(POLICIES / "dev.yaml"))
    assert code == 1 and f"{path}:1:2: not JSON" in out


def test_unknown_instance_type_is_a_clean_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    policy = tmp_path / "p.yaml"
    policy.write_text(
        "\n".join([
            "apiVersion: seedance.io/v1", "kind: CostPolicy",
            "metadata: {name: t, environment: dev, owner: dev@example.com}",
            "cloud: {region: us-east-1, availabilityZones: [us-east-1a], vpcId: vpc-0123456789abcdef0, subnetIds: [subnet-0123456789abcdef0]}",
            "budget: {monthlyAmount: 1000}",
            "fleets:",
            "  - {name: web, workload: api, sla: silver, cpu: {vcpu: 4, memoryGib: 16}, instanceTypes: {preferred: [m5.xlarg]},",
            "     capacity: {min: 1, desired: 2, max: 4}}",
        ]) + "\n",
        encoding="utf-8",
    )
    # reported where it is written (file:line:column: field), by estimate, plan, diff and validate alike
    for args in (["estimate", str(policy)], ["plan", str(policy)], ["diff", str(policy), str(policy)],
                 ["validate", str(policy)]):
        code = main(args)
        err = capsys.readouterr()
        text = err.out + err.err
        assert code == 1, args
        assert (f"error {policy}:7:104: fleets[0].instanceTypes.preferred[0] (fleet 'web'): no price for instance type "
                f"'m5.xlarg' in us-east-1; closest known: m5.xlarge") in text, args
        assert "Traceback" not in text


def test_invalid_policy_goes_through_the_error_boundary(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("apiVersion: seedance.io/v1\nkind: CostPolicy\n", encoding="utf-8")
    assert main(["estimate", str(bad)]) == 1


@pytest.mark.parametrize("stack", STACKS)
def test_subprocess(stack: str) -> None:
    proc = subprocess.run([sys.executable, "-m", "seedance.cli", "estimate", "--format", "json", str(POLICIES / f"{stack}.yaml")],
                          cwd=REPO, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["currency"] == CURRENCY[stack] and doc["partial"] is (stack == "cn-prod")
    text = subprocess.run([sys.executable, "-m", "seedance.cli", "estimate", str(POLICIES / f"{stack}.yaml")],
                          cwd=REPO, capture_output=True, text=True, timeout=120)
    assert text.returncode == 0 and "Totals" in text.stdout


def test_as_of_counts_the_held_reservations_active_that_day(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import json as _json
    from pathlib import Path as _Path

    from seedance.cli import main as _main

    dev = _Path(__file__).resolve().parents[2] / "stacks" / "policies" / "dev.yaml"
    policy = tmp_path / "held.yaml"
    policy.write_text(f"apiVersion: seedance.io/v1\nkind: CostPolicy\nextends: {dev}\nfleets:\n"
                      "  - name: inference\n    reserved: {mode: auto, held: [{units: 2, term: 1y, purchased: 2026-01-15}]}\n")

    def reserved_hours(day: str) -> float:
        import contextlib
        import io

        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            assert _main(["estimate", str(policy), "--format", "json", "--no-plan", "--as-of", day]) == 0
        doc = _json.loads(buf.getvalue())
        fleet = next(r for r in doc["resources"] if r.get("fleet") == "inference")
        return sum(c["monthly_quantity"] or 0 for c in fleet["components"] if "eserved" in c["name"])

    assert reserved_hours("2026-06-01") > 0  # within the term
    assert reserved_hours("2027-02-01") == 0  # the term ended 2027-01-15
    assert reserved_hours("2025-12-01") == 0  # not bought yet


def test_estimate_plans_the_policy_as_check_does(tmp_path: Path) -> None:
    # without --plan the estimate is the planned one, the figure the gate holds against the budget (it
    # used to price the policy's own values: the planner's reservations were missing, and a budget the
    # gate blocked read as "84% used")
    from seedance.cli import main as _main

    policy = POLICIES / "eu-prod.yaml"
    plan = tmp_path / "plan.json"
    assert _main(["plan", str(policy), "--as-of", "2024-05-30", "-o", str(plan)]) == 0
    _, planned = _invoke("estimate", "-f", "json", "--as-of", "2024-05-30", str(policy))
    _, given = _invoke("estimate", "-f", "json", "--plan", str(plan), str(policy))
    _, own = _invoke("estimate", "-f", "json", "--no-plan", "--as-of", "2024-05-30", str(policy))
    assert json.loads(planned)["monthly_total"] == json.loads(given)["monthly_total"]
    assert json.loads(planned)["monthly_total"] != json.loads(own)["monthly_total"]
    assert _main(["estimate", "--no-plan", "--plan", str(plan), str(policy)]) == 2  # a usage error


def test_as_of_beside_a_plan_is_said_to_be_unused(tmp_path, caplog) -> None:  # type: ignore[no-untyped-def]
    # red team: --as-of was silently ignored with --plan (the plan carries its own decision date)
    import logging

    from seedance.cli import main as _main

    policy = POLICIES / "eu-prod.yaml"
    plan = tmp_path / "plan.json"
    assert _main(["plan", str(policy), "--as-of", "2024-05-30", "-o", str(plan)]) == 0
    with caplog.at_level(logging.WARNING):
        _invoke("estimate", "-f", "json", "--plan", str(plan), "--as-of", "2024-05-30", str(policy))
        assert not [r for r in caplog.records if "--as-of" in r.getMessage()]  # the plan's own date
        _invoke("estimate", "-f", "json", "--plan", str(plan), "--as-of", "2024-07-01", str(policy))
    (warning,) = [r.getMessage() for r in caplog.records if "--as-of" in r.getMessage()]
    assert warning == f"--as-of 2024-07-01 is not used with --plan: {plan} carries its own decision date (2024-05-30)"
