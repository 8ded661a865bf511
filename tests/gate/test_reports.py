"""Reports: Markdown and PR comment against golden files; SARIF against the SARIF 2.1.0 schema.

Regenerate the golden files deliberately with ``SEEDANCE_UPDATE_GOLDEN=1 pytest tests/gate/test_reports.py``
and review the diff.
"""

from __future__ import annotations

import datetime as dt
import json
import os
from pathlib import Path

import jsonschema
import pytest

from seedance.gate import RegorusEngine
from seedance.gate.inputs import read_json
from seedance.gate.inputs import from_json
from seedance.gate.report import render_json, render_markdown, render_pr_comment, render_sarif
from seedance.gate.run import evaluate

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
SCHEMA = Path(__file__).with_name("sarif-schema-2.1.0.json")
CASES = sorted(p.name for p in GOLDEN.iterdir() if (p / "input.json").is_file())
AS_OF = dt.date(2026, 6, 1)
UPDATE = os.environ.get("SEEDANCE_UPDATE_GOLDEN") == "1"


def _decision(case: str, bundle):
    gate_input = from_json(read_json(GOLDEN / case / "input.json"), source=case)
    return evaluate(gate_input, bundle, RegorusEngine(), as_of=AS_OF)


def _check_golden(path: Path, text: str) -> None:
    if UPDATE:
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"{path} missing: run with SEEDANCE_UPDATE_GOLDEN=1 to create it"
    assert text == path.read_text(encoding="utf-8"), f"{path} differs: review, then SEEDANCE_UPDATE_GOLDEN=1"


@pytest.mark.parametrize("case", CASES)
def test_markdown_report_matches_golden(case: str, bundle) -> None:
    _check_golden(GOLDEN / case / "report.md", render_markdown(_decision(case, bundle)))


@pytest.mark.parametrize("case", CASES)
def test_pr_comment_matches_golden(case: str, bundle) -> None:
    _check_golden(GOLDEN / case / "pr-comment.md", render_pr_comment(_decision(case, bundle)))


@pytest.mark.parametrize("case", CASES)
def test_decision_json_matches_golden(case: str, bundle) -> None:
    _check_golden(GOLDEN / case / "decision.json", render_json(_decision(case, bundle)))


@pytest.mark.parametrize("case", CASES)
def test_sarif_validates_against_sarif_2_1_0_schema(case: str, bundle) -> None:
    decision = _decision(case, bundle)
    sarif = json.loads(render_sarif(decision, controls=list(bundle.controls)))
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    jsonschema.Draft4Validator.check_schema(schema)
    errors = sorted(jsonschema.Draft4Validator(schema).iter_errors(sarif), key=lambda e: list(e.path))
    assert errors == [], [f"{list(e.path)}: {e.message}" for e in errors[:5]]
    run = sarif["runs"][0]
    assert len(run["results"]) == len(decision.findings)
    assert len(run["tool"]["driver"]["rules"]) == len(bundle.controls)
    waived = [r for r in run["results"] if "suppressions" in r]
    assert len(waived) == decision.counts()["waived"]
    for r in run["results"]:
        assert run["tool"]["driver"]["rules"][r["ruleIndex"]]["id"] == r["ruleId"]
    # fingerprints tell findings apart, but not by the figures in their messages (a cost that moves
    # must not turn one alert into a new one)
    prints = [r["partialFingerprints"]["seedanceFinding/v2"] for r in run["results"]]
    assert len(set(prints)) == len(prints) and not any(ch.isdigit() for p in prints for ch in p.rsplit("|", 1)[1])


def test_sarif_schema_rejects_a_broken_log() -> None:
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    broken = {"version": "2.1.0", "runs": [{"results": [{"message": {"text": "x"}}]}]}  # run without tool
    assert list(jsonschema.Draft4Validator(schema).iter_errors(broken))


def test_golden_cases_cover_fail_waived_and_expired(bundle) -> None:
    fail = _decision("eu-prod-both-frameworks", bundle)
    assert fail.outcome == "fail" and fail.expired_waivers and fail.counts()["waived"] == 3
    ok = _decision("eu-prod-waived", bundle)
    assert ok.outcome == "pass" and ok.counts() == {"mandatory": 0, "advisory": 2, "waived": 1}


def test_a_missing_report_template_leaves_the_gate_undecided(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from seedance.cli import main

    monkeypatch.setenv("SEEDANCE_TEMPLATES", str(tmp_path))
    for fmt in ("markdown", "pr-comment"):
        assert main(["check", "dev", "--project-dir", str(Path(__file__).resolve().parents[2] / "stacks"), "-f", fmt]) == 2
