"""Reports: Markdown and PR comment against golden files; SARIF against the SARIF 2.1.0 schema.

Regenerate the golden files deliberately with ``SEEDANCE_UPDATE_GOLDEN=1 pytest tests/gate/test_reports.py``
and review the diff.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
from pathlib import Path

import jsonschema
import pytest

from seedance.gate import RegorusEngine
from seedance.gate.inputs import read_json
from seedance.gate.inputs import from_json
from seedance.gate.decision import Decision, Finding
from seedance.gate.report import FINGERPRINT_KEY, fingerprints, render_json, render_markdown, render_pr_comment, render_sarif
from seedance.templating import COMMENT_LIMIT
from seedance.gate.run import evaluate

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
SCHEMA = Path(__file__).with_name("sarif-schema-2.1.0.json")
CASES = sorted(p.name for p in GOLDEN.iterdir() if (p / "input.json").is_file())
AS_OF = dt.date(2026, 6, 1)
UPDATE = os.environ.get("SEEDANCE_UPDATE_GOLDEN") == "1"


#: Frameworks a case forces on beyond its policy's, as `seedance check --framework` does (a policy
#: may not declare MLPS outside China).
FORCED = {"eu-prod-both-frameworks": ["mlps-l3"]}


def _decision(case: str, bundle):
    gate_input = from_json(read_json(GOLDEN / case / "input.json"), source=case).with_frameworks(FORCED.get(case, []))
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
    prints = [r["partialFingerprints"][FINGERPRINT_KEY] for r in run["results"]]
    assert len(set(prints)) == len(prints)
    # waivers that did nothing are in SARIF too, as the text report lists them
    notes = [n["message"]["text"] for n in run["invocations"][0]["toolExecutionNotifications"]]
    assert len(notes) == len(decision.expired_waivers) + len(decision.unused_waivers)
    assert [w["control"] for w in run["properties"]["expiredWaivers"]] == [w.control for w in decision.expired_waivers]
    assert [w["control"] for w in run["properties"]["unusedWaivers"]] == [w.control for w in decision.unused_waivers]


def test_sarif_schema_rejects_a_broken_log() -> None:
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    broken = {"version": "2.1.0", "runs": [{"results": [{"message": {"text": "x"}}]}]}  # run without tool
    assert list(jsonschema.Draft4Validator(schema).iter_errors(broken))


def test_golden_cases_cover_fail_waived_and_expired(bundle) -> None:
    fail = _decision("eu-prod-both-frameworks", bundle)
    assert fail.outcome == "fail" and fail.expired_waivers and fail.counts()["waived"] == 3
    sarif = json.loads(render_sarif(fail, controls=list(bundle.controls)))["runs"][0]
    assert any(n["message"]["text"].startswith("expired waiver ignored: ") and n["level"] == "warning"
               for n in sarif["invocations"][0]["toolExecutionNotifications"])
    ok = _decision("eu-prod-waived", bundle)
    assert ok.outcome == "pass" and ok.counts() == {"mandatory": 0, "advisory": 2, "waived": 1}


def test_a_missing_report_template_leaves_the_gate_undecided(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from seedance.cli import main

    monkeypatch.setenv("SEEDANCE_TEMPLATES", str(tmp_path))
    for fmt in ("markdown", "pr-comment"):
        assert main(["check", "dev", "--project-dir", str(Path(__file__).resolve().parents[2] / "stacks"), "-f", fmt]) == 2


def _finding(i: int, *, severity: str = "mandatory", message: str = "security group admits the internet on tcp ports 22-22",
             name: str | None = None) -> Finding:
    name = name or f"open-sg-{i:04d}"
    return Finding("GDPR-25.2-2", severity, "gdpr", "Art. 25(2)", "No public network", f"urn:pulumi:dev::p::aws:ec2/securityGroup:SecurityGroup::{name}",
                   "aws:ec2/securityGroup:SecurityGroup", name, message, "Narrow the ingress " * 10, "data.gdpr.x.deny",
                   "gdpr/no_public_network.rego", 30)


def test_pr_comment_stays_under_the_github_comment_limit() -> None:
    # 1,000 findings render to ~280,000 characters; GitHub refuses a comment over 65,536
    findings = [_finding(i, severity="advisory") for i in range(400)] + [_finding(i) for i in range(600)]
    decision = Decision("dev", "2026-06-01", ["gdpr"], 48, findings)
    text = render_pr_comment(decision)
    assert len(text) <= COMMENT_LIMIT < 65_536
    # the header and the counts are whole; mandatory findings come first, the note says what is left out
    assert text.startswith("❌ **Seedance gate — dev: blocked** (600 mandatory, 400 advisory, 0 waived)\n")
    shown = text.count("\n- ")
    assert 100 < shown < 1000 and "Advisory and waived findings" not in text  # mandatory ones fill the budget
    assert f"… {1000 - shown:,} more finding(s) not shown" in text and "--format sarif" in text
    assert text.rstrip().endswith("`--format json`)._")
    # a decision that fits is rendered whole, without the note
    small = render_pr_comment(Decision("dev", "2026-06-01", ["gdpr"], 48, findings[:5]))
    assert "not shown" not in small and small.count("\n- ") == 5
    # a tight budget keeps the counts and says everything else was left out
    tight = render_pr_comment(decision, limit=400)
    assert len(tight) <= 400 and "(600 mandatory, 400 advisory, 0 waived)" in tight and "1,000 more finding(s)" in tight


def test_sarif_fingerprints_tell_findings_on_one_resource_apart(bundle) -> None:
    ssh, rdp = (_finding(0, message=f"security group admits the internet on tcp ports {p}") for p in ("22-22", "3389-3389"))
    prints = fingerprints([rdp, ssh])
    assert len(set(prints)) == 2
    assert prints == fingerprints([rdp, ssh]) and fingerprints([ssh, rdp]) == prints[::-1]  # order of findings: same keys
    # a figure that moves (a cost, a share) keeps the alert; identifiers keep their digits
    cost = "projected monthly cost 1,234.56 USD exceeds the budget of 1,000.00 USD (123%)"
    assert fingerprints([_finding(0, message=cost)]) == fingerprints([_finding(0, message=cost.replace("1,234.56", "1,299.10"))])
    dev = "EBS mapping /dev/sdb1 is not encrypted, so released blocks are readable"
    assert fingerprints([_finding(0, message=dev)]) != fingerprints([_finding(0, message=dev.replace("sdb1", "sdc1"))])
    sarif = json.loads(render_sarif(Decision("dev", "2026-06-01", ["gdpr"], 48, [ssh, rdp]), controls=list(bundle.controls)))
    results = sarif["runs"][0]["results"]
    assert len({r["partialFingerprints"][FINGERPRINT_KEY] for r in results}) == 2
    errors = list(jsonschema.Draft4Validator(json.loads(SCHEMA.read_text(encoding="utf-8"))).iter_errors(sarif))
    assert errors == []


def test_pr_comment_lists_waivers_that_matched_nothing() -> None:
    from seedance.gate.decision import Waiver

    stale = Waiver("GDPR-32.1a-1", "old-volume", "migration", "a@example.com", "2026-12-31")
    text = render_pr_comment(Decision("dev", "2026-06-01", ["gdpr"], 48, [], unused_waivers=[stale]))
    assert "Waivers that matched nothing: GDPR-32.1a-1 on `old-volume`" in text


def test_waiver_lists_never_crowd_out_findings() -> None:
    from seedance.gate.decision import Given, Waiver

    stale = [Waiver("GDPR-25.2-2", f"nomatch-{i}-" + "x" * 40, "matches nothing", "x@y.io", "2027-01-01") for i in range(1200)]
    old = [Waiver("GDPR-32.1a-1", f"old-{i}", "migration", "a@example.com", "2026-01-01") for i in range(300)]
    findings = [_finding(0), _finding(1, message="security group admits the internet on tcp ports 3389-3389"),
                *(_finding(i, severity="advisory") for i in range(2, 5))]
    given = Given(["subnet-1"], [], read=False, placeholders={"sg-x": "the cluster security group of EKS cluster c"})
    decision = Decision("eu-prod", "2026-12-01", ["gdpr"], 48, findings, expired_waivers=old, unused_waivers=stale,
                        given=given)
    text = render_pr_comment(decision)
    assert len(text) <= COMMENT_LIMIT
    # every finding is there, mandatory first, and what was not checked
    assert text.count("- **GDPR-25.2-2**") == 2 and text.count("\n- GDPR-25.2-2 `open-sg") == 3
    assert "Not checked: the 1 subnet" in text and "Not checked: the cluster security group of EKS cluster c" in text
    assert "more finding(s) not shown" not in text
    # the waiver lists are cut, and say how much of them is shown
    m = re.search(r"Waivers that matched nothing \(([0-9,]+) of 1,200; the JSON and SARIF outputs list them all\): ", text)
    assert m and 0 < int(m.group(1).replace(",", "")) < 1200
    assert "Expired waivers ignored: " in text and text.count("GDPR-32.1a-1 (2026-01-01)") == 300  # they come first
    # never cut inside a code span: every line holds whole ones
    assert all(line.count("`") % 2 == 0 for line in text.splitlines())
    # when nothing of a list fits, its count still does
    tight = render_pr_comment(decision, limit=3000)
    assert len(tight) <= 3000 and tight.count("- **GDPR-25.2-2**") == 2
    assert "1,200 waiver(s) matched nothing: not listed here" in tight or "of 1,200;" in tight
    assert all(line.count("`") % 2 == 0 for line in tight.splitlines())
