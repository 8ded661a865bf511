"""Every JSON the CLI writes is strict JSON: a NaN or infinity is an error naming where it is, never
``Infinity``/``NaN`` on stdout or in an --out file (which no JSON reader accepts)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from seedance import jsonout
from seedance.cli import main
from seedance.estimate.estimate import Estimate
from seedance.planner.plan import Plan

POLICIES = Path(__file__).resolve().parents[2] / "stacks" / "policies"


@pytest.mark.parametrize(("value", "where"), [
    ({"a": [1.0, {"b": math.inf}]}, "$.a[1].b is inf"),
    ([0.5, math.nan], "$[1] is nan"),
    ({"t": (1, -math.inf)}, "$.t[1] is -inf"),
])
def test_non_finite_numbers_are_refused_with_their_place(value: object, where: str) -> None:
    with pytest.raises(jsonout.NonFiniteNumberError) as exc:
        jsonout.dumps(value, indent=2)
    assert str(exc.value).startswith(f"cannot write JSON: {where}, not a finite number")


def test_finite_documents_are_written_as_json_would() -> None:
    value = {"a": [1, 2.5, None, "x"], "b": {"c": True}}
    assert jsonout.dumps(value, indent=2, sort_keys=True) == json.dumps(value, indent=2, sort_keys=True)


def _to_json_with(original, key: str):  # type: ignore[no-untyped-def]
    def to_json(self):  # type: ignore[no-untyped-def]
        return {**original(self), key: math.inf}
    return to_json


def test_estimate_json_with_an_infinite_total_is_an_error(monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(Estimate, "to_json", _to_json_with(Estimate.to_json, "monthly_total"))
    code = main(["estimate", "--format", "json", str(POLICIES / "dev.yaml")])
    out, err = capsys.readouterr()
    assert code == 1
    assert "Infinity" not in out
    assert "error: cannot write JSON: $.monthly_total is inf, not a finite number" in err
    assert "internal error" not in err


def test_plan_out_with_a_nan_writes_nothing(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(Plan, "to_json", _to_json_with(Plan.to_json, "savings"))
    out_file = tmp_path / "plan.json"
    code = main(["plan", str(POLICIES / "dev.yaml"), "--as-of", "2024-05-30", "--out", str(out_file)])
    _, err = capsys.readouterr()
    assert code == 1
    assert "error: cannot write JSON: $.savings is inf" in err
    assert not out_file.exists()
