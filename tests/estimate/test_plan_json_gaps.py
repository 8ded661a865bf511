"""`estimate --plan` mismatch checks no other test pins down (test audit, finding 7)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from seedance.cli import main
from seedance.planner.planner import plan_policy
from seedance.policy import load_policy
from seedance.pricing import load_catalog
import test_plan_input
from test_plan_input import DEV, _fleet, _refused, _run

dev_plan = test_plan_input.dev_plan  # the fixture, shared with test_plan_input


def test_plan_of_another_environment(tmp_path: Path, capsys: pytest.CaptureFixture[str], dev_plan: dict[str, Any]) -> None:
    doc = copy.deepcopy(dev_plan)
    assert doc["environment"] == "dev"
    doc["environment"] = "prod"
    err = _refused(tmp_path, capsys, doc)
    assert err.strip().endswith(
        "the plan does not fit the policy: the plan is for environment 'prod', the policy's is 'dev'"), err


def test_plan_with_a_type_outside_instance_types_allowed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # the dev stack with inference restricted to g5.xlarge; the plan adds g5.2xlarge, which is priced
    # in us-east-1 and meets the fleet's requirement (one A10G, weight 1): only `allowed` refuses it
    policy = tmp_path / "dev-allowed.yaml"
    policy.write_text(f"apiVersion: seedance.io/v1\nkind: CostPolicy\nextends: {DEV}\n"
                      "fleets:\n  - name: inference\n    instanceTypes: {allowed: [g5.xlarge]}\n", encoding="utf-8")
    doc = json.loads(json.dumps(plan_policy(load_policy(policy), load_catalog(), held={}).to_json()))
    inference = _fleet(doc, "inference")
    assert [c["instance_type"] for c in inference["instance_types"]] == ["g5.xlarge"]
    extra = copy.deepcopy(next(c for c in _fleet(doc, "finetune")["instance_types"] if c["instance_type"] == "g5.2xlarge"))
    assert extra["weight"] == 1
    inference["instance_types"].append(extra)
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(doc))
    code = main(["estimate", "-f", "json", "--plan", str(path), str(policy)])
    out, err = capsys.readouterr()
    assert code == 1 and out == "" and "Traceback" not in err
    assert err.strip().endswith(
        "the plan does not fit the policy: fleet 'inference': instance_types[1] g5.2xlarge: "
        "not in the policy's instanceTypes.allowed ['g5.xlarge']"), err


@pytest.mark.parametrize("as_of", ["garbage", "2024-01-01T05:00:00", "20240101", "2024-02-30"])
def test_plan_date_not_a_date_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str], dev_plan: dict[str, Any],
                                         as_of: str) -> None:
    # the date decides which held reservations count: it was read with date.fromisoformat unchecked
    doc = copy.deepcopy(dev_plan)
    doc["as_of"] = as_of
    err = _refused(tmp_path, capsys, doc)
    assert f'as_of: expected the plan\'s date as YYYY-MM-DD (the planner writes it so), got "{as_of}"' in err
    assert "internal error" not in err


def test_held_units_are_priced_at_the_term_the_plan_priced_them(stacks, catalog) -> None:  # type: ignore[no-untyped-def]
    """The policy holds 5 units on a 3-year term while the fleet reserves on 1 year. Counted from the
    policy's list, they are priced at the 3-year rate; given with `plan --held` (no term) at the
    fleet's 1-year rate. `estimate --plan` must price each plan as the plan did, also after a JSON
    round trip (it once guessed from the counts, and priced --held units at the 3-year rate)."""
    import dataclasses
    import datetime as dt

    from seedance.estimate import estimate_policy
    from seedance.estimate.plan_json import plan_from_json
    from seedance.policy.model import Commitment

    dev = stacks["dev"].policy
    on = dt.date(2024, 5, 30)
    held = Commitment.model_validate({"units": 1, "term": "3y", "purchased": "2024-01-02"})
    fleets = [f.model_copy(update={"reserved": f.reserved.model_copy(update={"held": [held]})}) if f.name == "inference"
              else f for f in dev.fleets]
    policy = dev.model_copy(update={"fleets": fleets})
    loaded = dataclasses.replace(stacks["dev"], policy=policy)
    by_list = plan_policy(loaded, catalog, as_of=on)
    by_flag = plan_policy(loaded, catalog, as_of=on, held={"inference": 1})
    assert by_list.fleet("inference").held_other_terms == [("3y", 1)]
    assert by_flag.fleet("inference").held_other_terms == []
    costs = []
    for plan in (by_list, by_flag):
        again = plan_from_json(json.loads(json.dumps(plan.to_json())))
        est = estimate_policy(policy, catalog, again)
        assert est.by_fleet["inference"] == pytest.approx(plan.fleet("inference").monthly_cost, rel=1e-9)
        costs.append(est.by_fleet["inference"])
    assert costs[0] < costs[1]  # the 3-year rate is the lower one


def test_expected_nodes_below_the_group_minimum_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                           dev_plan: dict[str, Any]) -> None:
    # an edited plan priced a fleet below the minimum its group never goes under
    doc = copy.deepcopy(dev_plan)
    inference = _fleet(doc, "inference")
    assert inference["min_size"] >= 1
    inference["expected_nodes"] = 0
    err = _refused(tmp_path, capsys, doc)
    assert f"fleet 'inference': expected_nodes 0 is below capacity.min {inference['min_size']}" in err


def test_the_month_layers_must_nest(tmp_path: Path, capsys: pytest.CaptureFixture[str], dev_plan: dict[str, Any]) -> None:
    doc = copy.deepcopy(dev_plan)
    inference = _fleet(doc, "inference")
    assert inference["expected_within_reserved"] <= inference["expected_within_base"] <= inference["expected_nodes"]
    inference["expected_within_base"] = inference["expected_nodes"] + 5
    err = _refused(tmp_path, capsys, doc)
    assert "fleet 'inference': expected_within_reserved" in err and "does not hold" in err
    del inference["expected_within_base"]
    err = _refused(tmp_path, capsys, doc)
    assert "expected_within_reserved and expected_within_base come together, with expected_nodes" in err


@pytest.mark.parametrize("rate", [10_000, 1e300, 1.5])
def test_an_interruption_rate_above_one_an_hour_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                           dev_plan: dict[str, Any], rate: float) -> None:
    # 10,000 an hour overflowed the checkpoint maths (an internal error); 1 to 1,000 priced nonsense
    doc = copy.deepcopy(dev_plan)
    finetune = _fleet(doc, "finetune")
    i = doc["fleets"].index(finetune)
    finetune["interruption_rate_per_hour"] = rate
    err = _refused(tmp_path, capsys, doc)
    assert err.strip().endswith(f"fleets[{i}].interruption_rate_per_hour: expected a finite number from 0 to 1 or "
                                f"null, got {json.dumps(rate)} (fleet 'finetune')"), err


@pytest.mark.parametrize("rate", [0.5, 0.0])
def test_a_spot_fleet_runs_at_its_most_interrupted_pools_rate(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                              dev_plan: dict[str, Any], rate: float) -> None:
    # the rate the planner records is the Spot Advisor band's of the group's most interrupted type
    doc = copy.deepcopy(dev_plan)
    finetune = _fleet(doc, "finetune")
    assert finetune["spot_share_above_base"] > 0 and [c["instance_type"] for c in finetune["instance_types"]] == ["g5.2xlarge"]
    finetune["interruption_rate_per_hour"] = rate
    err = _refused(tmp_path, capsys, doc)
    assert err.strip().endswith(
        f"the plan does not fit the policy: fleet 'finetune': interruption_rate_per_hour {rate:g} with "
        "spot_share_above_base 1, but its most interrupted spot pool, g5.2xlarge (Spot Advisor band 15-20%), gives "
        "0.000340358 per hour, the rate `seedance plan` records (plan and estimate with the same prices)"), err


def test_a_fleet_off_spot_may_carry_any_rate_up_to_one(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                       dev_plan: dict[str, Any]) -> None:
    # inference runs no spot: its rate is recorded (of its pools) but prices nothing
    doc = copy.deepcopy(dev_plan)
    inference = _fleet(doc, "inference")
    assert inference["spot_share_above_base"] == 0
    inference["interruption_rate_per_hour"] = 1.0
    code, _, err = _run(tmp_path, capsys, doc)
    assert code == 0, err
