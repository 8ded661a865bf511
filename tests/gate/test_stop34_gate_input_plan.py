"""A whole gate input's plan is checked as ``seedance estimate --plan`` checks a plan file: a malformed
one is undecided (exit 2) with a message naming the input file and the field, never an engine error."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from seedance.cli import main
from seedance.gate.errors import InvalidInputError
from seedance.gate.inputs import derived_parts, from_json

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "tests" / "synth" / "samples" / "eu-prod.json"
POLICY = REPO / "stacks" / "policies" / "eu-prod.yaml"


@pytest.fixture(scope="module")
def gate_input() -> dict[str, Any]:
    _, policy, plan, estimate = derived_parts(POLICY, cluster=True)
    assert plan is not None and plan["fleets"] and plan["fleets"][0]["instance_types"]
    # as a file holds it (the plan's new_purchases are tuples in memory)
    return json.loads(json.dumps({"document": json.loads(SAMPLE.read_text()), "policy": policy, "plan": plan,
                                  "estimate": estimate}))


def _check(capsys, tmp_path: Path, obj: dict[str, Any]) -> tuple[int, str, str, Path]:
    path = tmp_path / "gi.json"
    path.write_text(json.dumps(obj))
    code = main(["check", str(path), "--as-of", "2026-06-01"])
    out = capsys.readouterr()
    return code, out.out, out.err, path


def test_a_well_formed_plan_is_accepted(gate_input: dict[str, Any]) -> None:
    assert from_json(copy.deepcopy(gate_input), source="gi.json").plan == gate_input["plan"]


def test_plan_weight_zero_is_undecided_naming_the_field(capsys, tmp_path: Path, gate_input: dict[str, Any]) -> None:
    bad = copy.deepcopy(gate_input)
    bad["plan"]["fleets"][0]["instance_types"][0]["weight"] = 0
    fleet = bad["plan"]["fleets"][0]["name"]
    code, out, err, path = _check(capsys, tmp_path, bad)
    assert code == 2
    assert "passed" not in out and "✓" not in out
    assert (f"{path}: plan: fleets[0].instance_types[0].weight: expected a whole number >= 1, got 0 "
            f"(fleet {fleet!r})") in err
    assert "EngineError" not in err and "divide by zero" not in err and "internal error" not in err


@pytest.mark.parametrize(("change", "message"), [
    (lambda p: p.pop("fleets"), "plan: missing field 'fleets'"),
    (lambda p: p.__setitem__("fleets", {"x": 1}), "plan: fleets: expected a list of fleets"),
    (lambda p: p["fleets"][0].__setitem__("reserved_units", -3), "plan: fleets[0].reserved_units: expected a whole number"),
    (lambda p: p["fleets"][0].__setitem__("spot_share_above_base", "half"), "plan: fleets[0].spot_share_above_base"),
    (lambda p: p.__setitem__("bogus", 1), "plan: bogus: unknown field"),
])
def test_malformed_plans_are_refused(gate_input: dict[str, Any], change, message: str) -> None:
    bad = copy.deepcopy(gate_input)
    change(bad["plan"])
    with pytest.raises(InvalidInputError) as info:
        from_json(bad, source="gi.json")
    assert f"gi.json: {message}" in str(info.value)


def test_no_plan_is_left_to_the_rules(gate_input: dict[str, Any]) -> None:
    none = {**copy.deepcopy(gate_input), "plan": None}
    assert from_json(none, source="gi.json").plan is None
