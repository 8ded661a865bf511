"""Waivers in `seedance validate`: a control the gate's policies do not define is an error at its
line (with the nearest id), an expired waiver a warning; a policy directory of one's own
(`--policies`, `$SEEDANCE_POLICIES`) adds its controls."""

from __future__ import annotations

import datetime as dt
import json
import shutil
from pathlib import Path

import pytest

from seedance.cli import main
from seedance.policy.controls import control_ids
from seedance.policy.model import Waiver
from seedance.policy.semantics import waiver_issues
from seedance.resources import policies_dir

MINIMAL = (Path(__file__).parent / "valid" / "minimal.yaml").read_text()
CONTROLS = frozenset({"GDPR-33-1", "GDPR-44-1", "GDPR-44-2", "MLPS-L3-8.1.4.1", "BUDGET-COST-1"})


def _waiver(control: str, expires: str = "2030-01-01") -> Waiver:
    return Waiver.model_validate({"control": control, "resource": "*", "reason": "vendor migration",
                                  "approver": "a@example.com", "expires": expires}, strict=False)


def test_the_control_ids_are_those_the_gate_loads() -> None:
    from seedance.gate.bundle import load_bundle  # the gate's own reading of the METADATA blocks

    assert control_ids(policies_dir()) == {c.control_id for c in load_bundle().controls}


def test_an_unknown_control_is_an_error_with_the_nearest_id() -> None:
    errors, warnings = waiver_issues([_waiver("GDPR-33-2"), _waiver("GDPR-DOES-NOT-EXIST"), _waiver("MLPS-X")],
                                     CONTROLS, dt.date(2026, 1, 1))
    assert warnings == []
    assert errors == [
        (("waivers", 0, "control"), "expected a control of the gate's policies, got 'GDPR-33-2'; did you mean 'GDPR-33-1'?"),
        (("waivers", 1, "control"), "expected a control of the gate's policies, got 'GDPR-DOES-NOT-EXIST' "
                                    "(GDPR-33-1, GDPR-44-1, GDPR-44-2)"),
        (("waivers", 2, "control"), "expected a control of the gate's policies, got 'MLPS-X' (MLPS-L3-8.1.4.1)"),
    ]


def test_an_expired_waiver_is_a_warning_from_the_day_after_it_expires() -> None:
    waivers = [_waiver("GDPR-44-1", "2025-12-31")]
    assert waiver_issues(waivers, CONTROLS, dt.date(2025, 12, 31)) == ([], [])  # its last day: the gate applies it
    assert waiver_issues(waivers, CONTROLS, dt.date(2026, 1, 1)) == ([], [
        (("waivers", 0, "expires"), "expired on 2025-12-31 (before 2026-01-01): the gate ignores it; renew or remove it")])


def test_unknown_controls_are_not_checked_without_policies() -> None:
    assert waiver_issues([_waiver("GDPR-NOPE")], None, dt.date(2026, 1, 1)) == ([], [])


def _policy(tmp_path: Path, control: str, expires: str = "2030-01-01") -> Path:
    path = tmp_path / "p.yaml"
    path.write_text(MINIMAL + f"waivers:\n  - {{control: {control}, resource: '*', reason: vendor migration, "
                              f"approver: a@example.com, expires: {expires}}}\n")
    return path


def test_validate_refuses_an_unknown_control_at_its_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _policy(tmp_path, "GDPR-33-2")
    line = len(MINIMAL.splitlines()) + 2
    assert main(["validate", str(path)]) == 1
    out = capsys.readouterr().out
    assert (f"error {path}:{line}:15: waivers[0].control: expected a control of the gate's policies, got 'GDPR-33-2'; "
            "did you mean 'GDPR-33-1'?") in out, out


def test_summary_validates_waivers_as_validate_does(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # red team: summary passed a waiver of a control the gate does not define, which validate refuses
    path = _policy(tmp_path, "GDPR-NOPE")
    assert main(["summary", str(path)]) == 1
    assert "waivers[0].control: expected a control of the gate's policies, got 'GDPR-NOPE'" in capsys.readouterr().out
    assert main(["summary", str(_policy(tmp_path, "GDPR-33-1"))]) == 0


def test_validate_warns_of_an_expired_waiver(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _policy(tmp_path, "GDPR-33-1", "2024-05-01")
    assert main(["validate", "-f", "json", str(path), "--as-of", "2024-06-01"]) == 0
    (result,) = json.loads(capsys.readouterr().out)
    assert result["valid"] and len(result["warnings"]) == 1
    assert result["warnings"][0].endswith("waivers[0].expires: expired on 2024-05-01 (before 2024-06-01): the gate "
                                          "ignores it; renew or remove it")
    assert main(["validate", "-f", "json", str(path), "--as-of", "2024-05-01"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["warnings"] == []


def test_a_policy_directory_of_ones_own_adds_its_controls(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    own = tmp_path / "policies"
    shutil.copytree(policies_dir(), own)
    rule = (own / "gdpr" / "breach_detection.rego").read_text()
    (own / "gdpr" / "house_rule.rego").write_text(
        rule.replace("package gdpr.breach_detection", "package gdpr.house_rule").replace("GDPR-33-1", "GDPR-HOUSE-1"))
    path = _policy(tmp_path, "GDPR-HOUSE-1")
    assert main(["validate", str(path)]) == 1
    assert main(["validate", str(path), "--policies", str(own)]) == 0
    monkeypatch.setenv("SEEDANCE_POLICIES", str(own))
    assert main(["validate", str(path)]) == 0
    capsys.readouterr()
    # red team: a directory named with --policies that holds no control left waivers unchecked, exit 0
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["validate", str(path), "--policies", str(empty)]) == 2
    assert "holds no control rule" in capsys.readouterr().err
