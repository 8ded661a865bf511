"""`seedance estimate --plan PLAN.json`: a plan of another policy, with impossible values or types that
cannot run the fleet is refused with a clear error (exit 1), never priced or an internal error."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from seedance.cli import main
from seedance.estimate.estimate import estimate_policy
from seedance.estimate.plan_json import plan_from_json
from seedance.planner.planner import plan_policy
from seedance.policy import load_policy
from seedance.pricing import load_catalog
from seedance.pricing.catalog import PricingError

REPO = Path(__file__).resolve().parents[2]
DEV = REPO / "stacks" / "policies" / "dev.yaml"


@pytest.fixture(scope="module")
def dev_plan() -> dict[str, Any]:
    """A fresh plan of the dev stack, as `seedance plan -f json` writes it."""
    return json.loads(json.dumps(plan_policy(load_policy(DEV), load_catalog(), held={}).to_json()))


def _fleet(doc: dict[str, Any], name: str) -> dict[str, Any]:
    return next(f for f in doc["fleets"] if f["name"] == name)


def _run(tmp_path: Path, capsys: pytest.CaptureFixture[str], doc: Any, *, raw: bytes | None = None) -> tuple[int, str, str]:
    path = tmp_path / "plan.json"
    path.write_bytes(raw if raw is not None else json.dumps(doc).encode())
    code = main(["estimate", "-f", "json", "--plan", str(path), str(DEV)])
    out, err = capsys.readouterr()
    return code, out, err


def _refused(tmp_path: Path, capsys: pytest.CaptureFixture[str], doc: Any, *messages: str,
             raw: bytes | None = None) -> str:
    code, out, err = _run(tmp_path, capsys, doc, raw=raw)
    assert code == 1, (out, err)
    assert out == ""  # no estimate printed
    assert "internal error" not in err and "Traceback" not in err
    for m in messages:
        assert m in err, err
    return err


def test_a_fresh_plan_is_accepted(tmp_path: Path, capsys: pytest.CaptureFixture[str], dev_plan: dict[str, Any]) -> None:
    code, out, err = _run(tmp_path, capsys, dev_plan)
    assert code == 0, err
    assert json.loads(out)["basis"] == "plan"


def test_plan_of_another_policy(tmp_path: Path, capsys: pytest.CaptureFixture[str], dev_plan: dict[str, Any]) -> None:
    doc = copy.deepcopy(dev_plan)
    doc["policy"] = "gpu-platform-eu"
    _refused(tmp_path, capsys, doc, "the plan is for policy 'gpu-platform-eu', this policy is 'gpu-platform-dev'")


def test_fleet_sets_differ_extra_and_missing(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                             dev_plan: dict[str, Any]) -> None:
    doc = copy.deepcopy(dev_plan)
    ghost = copy.deepcopy(_fleet(doc, "inference"))
    ghost["name"] = "ghost"
    doc["fleets"] = [f for f in doc["fleets"] if f["name"] != "batch-embed"] + [ghost]
    err = _refused(tmp_path, capsys, doc, "2 problems",
                   "the plan has no fleet 'batch-embed'",
                   "the plan has fleet(s) the policy does not: 'ghost' (policy fleets: finetune, inference, batch-embed)")
    assert err.count("\n  - ") == 2


def test_duplicate_fleet(tmp_path: Path, capsys: pytest.CaptureFixture[str], dev_plan: dict[str, Any]) -> None:
    doc = copy.deepcopy(dev_plan)
    doc["fleets"].append(copy.deepcopy(_fleet(doc, "finetune")))
    _refused(tmp_path, capsys, doc, "the plan lists fleet(s) more than once: 'finetune'")


def test_instance_type_that_cannot_run_the_fleet(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                 dev_plan: dict[str, Any]) -> None:
    doc = copy.deepcopy(dev_plan)
    _fleet(doc, "finetune")["instance_types"][0]["instance_type"] = "g4dn.xlarge"  # T4, the fleet needs A10G
    _refused(tmp_path, capsys, doc, "fleet 'finetune': instance_types[0] g4dn.xlarge: does not meet the fleet's "
             "requirement (1 x A10G with >= 24 GiB each per node): g4dn.xlarge has no A10G GPUs")


def test_instance_type_with_the_wrong_weight(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                             dev_plan: dict[str, Any]) -> None:
    doc = copy.deepcopy(dev_plan)
    _fleet(doc, "batch-embed")["instance_types"][0]["instance_type"] = "g4dn.12xlarge"  # 4 x T4
    _refused(tmp_path, capsys, doc, "fleet 'batch-embed': instance_types[0] g4dn.12xlarge: weight 1 in the plan, "
             "but g4dn.12xlarge holds 4 unit(s) of this fleet")


def test_unknown_instance_type(tmp_path: Path, capsys: pytest.CaptureFixture[str], dev_plan: dict[str, Any]) -> None:
    doc = copy.deepcopy(dev_plan)
    _fleet(doc, "inference")["instance_types"][0]["instance_type"] = "z9.huge"
    _refused(tmp_path, capsys, doc, "fleet 'inference': instance_types[0] z9.huge: no price for instance type 'z9.huge' in us-east-1")


def test_expected_nodes_beyond_the_fleet_maximum(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                 dev_plan: dict[str, Any]) -> None:
    doc = copy.deepcopy(dev_plan)
    _fleet(doc, "finetune")["expected_nodes"] = 1e6
    _refused(tmp_path, capsys, doc, "fleet 'finetune': expected_nodes 1e+06 is outside [0, 2] (capacity.max)")


def test_spot_share_above_the_policy_cap_and_base_above_max(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                            dev_plan: dict[str, Any]) -> None:
    doc = copy.deepcopy(dev_plan)
    inf = _fleet(doc, "inference")
    inf["spot_share_above_base"] = 0.9
    inf["on_demand_base"] = 7
    _refused(tmp_path, capsys, doc, "fleet 'inference': spot_share_above_base 0.9 is above the policy's spot.maxShare 0.5",
             "fleet 'inference': on_demand_base 7 is above capacity.max 3")


def test_stale_capacity(tmp_path: Path, capsys: pytest.CaptureFixture[str], dev_plan: dict[str, Any]) -> None:
    doc = copy.deepcopy(dev_plan)
    _fleet(doc, "batch-embed")["max_size"] = 12
    _refused(tmp_path, capsys, doc, "fleet 'batch-embed': planned for capacity min/desired/max 0/1/12, the policy's is 0/1/4",
             "run `seedance plan` again")


def test_purchases_of_another_term(tmp_path: Path, capsys: pytest.CaptureFixture[str], dev_plan: dict[str, Any]) -> None:
    doc = copy.deepcopy(dev_plan)
    inf = _fleet(doc, "inference")
    inf["new_purchases"] = [["3y", inf["reserved_units"] + 1]]
    _refused(tmp_path, capsys, doc, "fleet 'inference': new_purchases of term 3y, the policy's reserved.term is 1y",
             f"new_purchases total {inf['reserved_units'] + 1} units, more than reserved_units {inf['reserved_units']}")


@pytest.mark.parametrize(
    "field,value,message",
    [
        ("reserved_units", -5, "fleets[1].reserved_units: expected a whole number from 0 to 1,000,000, got -5 (fleet 'inference')"),
        ("reserved_units", 2.5, "fleets[1].reserved_units: expected a whole number from 0 to 1,000,000, got 2.5"),
        ("reserved_units", True, "fleets[1].reserved_units: expected a whole number from 0 to 1,000,000, got true"),
        ("reserved_units", "5", "fleets[1].reserved_units: expected a whole number from 0 to 1,000,000, got \"5\""),
        ("spot_share_above_base", 7, "fleets[1].spot_share_above_base: expected a finite number from 0 to 1, got 7"),
        ("expected_nodes", -100, "fleets[1].expected_nodes: expected a finite number from 0 to 1e+06 or null, got -100"),
        ("expected_nodes", "x", "fleets[1].expected_nodes: expected a finite number from 0 to 1e+06 or null, got \"x\""),
        ("on_demand_base", None, "fleets[1].on_demand_base: expected a whole number from 0 to 1,000,000, got null"),
        ("instance_types", {}, "fleets[1].instance_types: expected a list, got {}"),
        ("new_purchases", [["2y", 1]], "fleets[1].new_purchases[0]: expected [\"1y\" or \"3y\", units from 1 to 1,000,000], got [\"2y\", 1]"),
        ("surprise", 1, "fleets[1].surprise: unknown field (fleet 'inference')"),
    ],
)
def test_bad_values_name_the_field(tmp_path: Path, capsys: pytest.CaptureFixture[str], dev_plan: dict[str, Any],
                                   field: str, value: Any, message: str) -> None:
    doc = copy.deepcopy(dev_plan)
    assert doc["fleets"][1]["name"] == "inference"
    doc["fleets"][1][field] = value
    _refused(tmp_path, capsys, doc, f"{tmp_path / 'plan.json'}: {message}")


def test_non_finite_numbers(tmp_path: Path, capsys: pytest.CaptureFixture[str], dev_plan: dict[str, Any]) -> None:
    text = json.dumps(dev_plan).replace('"spot_share_above_base": 1.0', '"spot_share_above_base": NaN', 1)
    assert "NaN" in text
    _refused(tmp_path, capsys, None, "spot_share_above_base: expected a finite number from 0 to 1, got nan",
             raw=text.encode())


def test_every_problem_at_once(tmp_path: Path, capsys: pytest.CaptureFixture[str], dev_plan: dict[str, Any]) -> None:
    doc = copy.deepcopy(dev_plan)
    doc["fleets"][0]["reserved_units"] = -1
    doc["fleets"][2]["expected_nodes"] = "x"
    del doc["region"]
    _refused(tmp_path, capsys, doc, "3 problems", "missing field 'region'", "fleets[0].reserved_units",
             "fleets[2].expected_nodes")


@pytest.mark.parametrize(
    "raw,message",
    [
        (b"\xff\xfe", "plan.json:1: not UTF-8 text (byte 0xff at offset 0); expected the JSON of `seedance plan`"),
        (b'{"a": 1,\n "b": "\xe9"}', "plan.json:2: not UTF-8 text (byte 0xe9 at offset 16)"),
        (b'{"policy": ' + b"1" * 5000 + b"}", "plan.json: not a plan (Exceeds the limit"),
        (b"[" * 100_000 + b"]" * 100_000, "plan.json: not a plan ("),
        (b"null", "plan.json: expected a JSON object (the output of `seedance plan`)"),
    ],
)
def test_unreadable_files(tmp_path: Path, capsys: pytest.CaptureFixture[str], raw: bytes, message: str) -> None:
    _refused(tmp_path, capsys, None, message, raw=raw)


def test_the_library_refuses_too() -> None:
    loaded, catalog = load_policy(DEV), load_catalog()
    doc = plan_policy(loaded, catalog, held={}).to_json()
    doc["fleets"] = [f for f in doc["fleets"] if f["name"] != "inference"]
    doc["policy"] = "other"
    with pytest.raises(PricingError) as exc:
        estimate_policy(loaded, catalog, plan_from_json(json.loads(json.dumps(doc))))
    assert "the plan is for policy 'other'" in str(exc.value) and "the plan has no fleet 'inference'" in str(exc.value)


def test_a_plan_made_before_the_off_peak_windows_changed(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                         dev_plan: dict[str, Any]) -> None:
    # batch-embed has no demand history: its expected size comes from desired and the off-peak window,
    # so a plan made before the window changed prices the old size
    doc = copy.deepcopy(dev_plan)
    _fleet(doc, "batch-embed")["expected_nodes"] += 1
    _refused(tmp_path, capsys, doc, "fleet 'batch-embed': expected_nodes",
             "but the policy's desired size and off-peak windows give")


def test_purchases_the_policy_cannot_want(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                          dev_plan: dict[str, Any]) -> None:
    doc = copy.deepcopy(dev_plan)
    emb = _fleet(doc, "batch-embed")  # capacity.max 4
    emb["reserved_units"], emb["new_purchases"] = 9, [["1y", 9]]
    _refused(tmp_path, capsys, doc, "fleet 'batch-embed': new_purchases total 9 units, more than capacity.max 4 could run")
    policy = tmp_path / "no-ri.yaml"
    policy.write_text(f"apiVersion: seedance.io/v1\nkind: CostPolicy\nextends: {DEV}\nfleets:\n"
                      "  - name: batch-embed\n    reserved: {mode: none}\n")
    emb["reserved_units"], emb["new_purchases"] = 1, [["1y", 1]]
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(doc))
    assert main(["estimate", "--plan", str(path), str(policy)]) == 1
    assert "new_purchases of 1 unit(s), but the policy's reserved.mode is none" in capsys.readouterr().err


# ---------------------------------------------------------------- plans that do not fit the policy (red team)


def test_held_units_of_another_term_the_policy_does_not_hold(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                             dev_plan: dict[str, Any]) -> None:
    doc = copy.deepcopy(dev_plan)
    _fleet(doc, "inference")["held_other_terms"] = [["3y", 1000000]]  # lowered the bill, exit 0
    _refused(tmp_path, capsys, doc,
             f"fleet 'inference': held_other_terms lists 1000000 unit(s) of 3y, but the policy holds 0 of 3y through the "
             f"month a plan of {dev_plan['as_of']} prices (reserved.held)",
             f"fleet 'inference': held_other_terms total 1000000 units, more than reserved_units "
             f"{_fleet(dev_plan, 'inference')['reserved_units']}")


def test_a_fleet_without_instance_types(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                        dev_plan: dict[str, Any]) -> None:
    doc = copy.deepcopy(dev_plan)
    _fleet(doc, "inference")["instance_types"] = []  # `seedance plan` refuses to write this
    _refused(tmp_path, capsys, doc, "fleet 'inference': no instance_types: a fleet that runs nodes (capacity.max 3) "
                                    "needs at least one")


def test_an_instance_type_listed_twice(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                       dev_plan: dict[str, Any]) -> None:
    doc = copy.deepcopy(dev_plan)
    types = _fleet(doc, "inference")["instance_types"]
    types.append(copy.deepcopy(types[0]))
    _refused(tmp_path, capsys, doc, f"fleet 'inference': instance_types lists {types[0]['instance_type']} more than once")


def test_cost_components_must_be_components(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                            dev_plan: dict[str, Any]) -> None:
    doc = copy.deepcopy(dev_plan)
    i = next(i for i, f in enumerate(doc["fleets"]) if f["name"] == "inference")
    good = _fleet(doc, "inference")["cost_components"][0]
    _fleet(doc, "inference")["cost_components"] = [1, "x", None, {**good, "monthly_cost": -1.0}, {"name": "x"}]
    err = _refused(tmp_path, capsys, doc,
                   f"fleets[{i}].cost_components[0]: expected a cost component object",
                   f"fleets[{i}].cost_components[1]: expected a cost component object",
                   f"fleets[{i}].cost_components[2]: expected a cost component object",
                   f"fleets[{i}].cost_components[3].monthly_cost: expected a finite number from 0 or null, got -1.0",
                   f"fleets[{i}].cost_components[4]: missing field 'unit'")
    assert "6 problems" in err


HELD = """apiVersion: seedance.io/v1
kind: CostPolicy
metadata: {name: held, environment: dev, owner: dev@example.com}
cloud: {region: us-east-1, availabilityZones: [us-east-1a], vpcId: vpc-0123456789abcdef0,
        subnetIds: [subnet-0123456789abcdef0]}
budget: {monthlyAmount: 10000}
fleets:
  - name: web
    workload: api
    sla: silver
    cpu: {vcpu: 4, memoryGib: 16}
    capacity: {min: 1, desired: 2, max: 4}
    reserved: {mode: auto, term: 1y, held: [{units: 1, term: 3y, purchased: 2024-01-10}]}
"""


def test_held_units_of_another_term_are_checked_against_the_plan_date(tmp_path: Path) -> None:
    from seedance.estimate.plan_json import plan_problems

    (tmp_path / "p.yaml").write_text(HELD)
    loaded, catalog = load_policy(tmp_path / "p.yaml"), load_catalog()
    plan = plan_policy(loaded, catalog, as_of=__import__("datetime").date(2024, 5, 30))
    fp = plan.fleets[0]
    assert fp.held_other_terms == [("3y", 1)]
    assert plan_problems(plan, loaded.policy, catalog, "us-east-1") == []

    def problems(**changes: Any) -> list[str]:
        changed = type(plan)(**{**plan.__dict__, **{k: v for k, v in changes.items() if k == "as_of"},
                                "fleets": [type(fp)(**{**fp.__dict__, **{k: v for k, v in changes.items()
                                                                         if k != "as_of"}})]})
        return plan_problems(changed, loaded.policy, catalog, "us-east-1")

    assert problems(held_other_terms=[("3y", 2)]) == [
        "fleet 'web': held_other_terms lists 2 unit(s) of 3y, but the policy holds 1 of 3y through the month a plan of 2024-05-30 prices (reserved.held)",
        "fleet 'web': held_other_terms total 2 units, more than reserved_units 1"]
    assert problems(held_other_terms=[("1y", 1)]) == [
        "fleet 'web': held_other_terms lists 1 unit(s) of 1y, the fleet's own reserved.term (those are counted in "
        "reserved_units)"]
    # the same plan dated more than its month before the purchase: nothing of 3y was held yet (one
    # bought within the month a plan prices is a queued purchase, counted)
    assert problems(as_of="2023-12-01") == [
        "fleet 'web': reserved_units 1 is more than its new_purchases (0 unit(s)) and the units already held: the "
        "policy holds 0 unit(s) through the month a plan of 2023-12-01 prices (reserved.held)",
        "fleet 'web': held_other_terms lists 1 unit(s) of 3y, but the policy holds 0 of 3y through the month a plan of 2023-12-01 prices (reserved.held)"]
    assert problems(as_of="2024-01-09") == []
    assert problems(held_other_terms=[("3y", 1)], reserved_units=0, new_purchases=[]) == [
        "fleet 'web': held_other_terms total 1 units, more than reserved_units 0"]


def test_a_plan_with_a_byte_order_mark_is_read(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                               dev_plan: dict[str, Any]) -> None:
    code, out, err = _run(tmp_path, capsys, None, raw=b"\xef\xbb\xbf" + json.dumps(dev_plan).encode())
    assert code == 0, err
    assert json.loads(out)["basis"] == "plan"
