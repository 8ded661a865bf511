"""A budget-response overlay (recognised by its stamp) that no longer fits the policy it extends:
a fleet renamed or removed since is a clear load error at the overlay's line; a fleet added since,
which the response would have changed, is a warning whenever the overlay is loaded, and so are
thresholds (or a budget amount) changed since so that they no longer fire what the overlay applies."""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from seedance.budget.coverage import uncovered_fleets
from seedance.budget.response import FiredThresholds, OverlayStamp, fleets_changed_at
from seedance.cli import app
from seedance.policy import PolicyError, load_policy
from seedance.policy.loader import BUDGET_RESPONSE_FIRED, BUDGET_RESPONSE_STAMP
from seedance.policy.model import ThresholdAction

REPO = Path(__file__).resolve().parents[2]
SHARED = Path(os.environ["SEEDANCE_SHARED_DATA"]) if os.environ.get("SEEDANCE_SHARED_DATA") else REPO.parent / "shared" / "data"
NEW_FLEET = """  - name: scratch
    workload: inference
    sla: bronze
    dataClass: internal{core}
    gpu: {{model: A10G, count: 1, memoryGib: 24}}
    capacity: {{min: 0, desired: 2, max: 4}}
    reserved: {{mode: none}}
"""


def _alert(tmp_path: Path, amount: str) -> Path:
    """The real monthly-actual SNS notification, for eu-prod's budget (160,000) and ``amount`` spent."""
    doc = json.loads((SHARED / "fixtures" / "aws-sns-budgets" /
                      "sre-bot.sns-http-notification.budget-monthly-actual.json").read_text(encoding="utf-8"))
    doc["Message"] = (doc["Message"].replace("Test Budget", "seedance-eu-prod-monthly").replace("$0.20", "$160,000.00")
                      .replace("$0.59", f"${amount}").replace("AWS Account 017790921725", "AWS Account 111122223333"))
    path = tmp_path / f"alert-{amount}.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


@pytest.fixture
def stacks(tmp_path: Path) -> Path:
    """A copy of the example project (its policies edited by the tests)."""
    project = tmp_path / "stacks"
    shutil.copytree(REPO / "stacks", project, ignore=shutil.ignore_patterns("__pycache__"))
    return project


def _respond(project: Path, amount: str) -> Path:
    out = project / "policies" / "eu-prod.budget.yaml"
    result = CliRunner().invoke(app, ["budget", "respond", str(project / "policies" / "eu-prod.yaml"),
                                      str(_alert(project.parent, amount)), "--stack", "eu-prod", "--project-dir",
                                      str(project), "--out", str(out), "-f", "json"],
                                standalone_mode=False, catch_exceptions=False)
    assert result.return_value == 0, result.output
    return out


def _line_of(path: Path, text: str) -> int:
    return next(i for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if line == text)


@pytest.mark.parametrize("edit", ["rename", "remove"])
def test_an_overlay_naming_a_fleet_the_policy_no_longer_has_is_a_stale_response(stacks: Path, edit: str) -> None:
    overlay = _respond(stacks, "140,000.00")  # 87.5%: degrade disables eval, among others
    policy = stacks / "policies" / "eu-prod.yaml"
    text = policy.read_text(encoding="utf-8")
    assert "  - name: eval\n" in text
    if edit == "rename":
        policy.write_text(text.replace("  - name: eval\n", "  - name: evaluation\n"), encoding="utf-8")
    else:  # eval is eu-prod.yaml's only fleet of its own (the others come from base.yaml), and its last item
        assert text.count("  - name: ") == 1 and text.index("fleets:\n  - name: eval\n") > text.index("budget:")
        policy.write_text(text[:text.index("fleets:\n  - name: eval\n")], encoding="utf-8")
        assert "eval" not in [f.name for f in load_policy(policy).policy.fleets]
    with pytest.raises(PolicyError) as caught:
        load_policy(overlay)
    problems = caught.value.problems
    assert len(problems) == 1
    where = problems[0].location
    assert (where.file, where.line, where.column) == (str(overlay), _line_of(overlay, "- name: eval"), 3)
    assert str(problems[0]).endswith(
        "(fleet 'eval'): overlay names fleet 'eval', which the policy no longer has (eu-prod.yaml has no fleet of "
        "that name): a stale budget response; re-run `seedance budget respond`/`poll`, or delete the overlay")
    assert problems[0].path.startswith("fleets[") and "missing required field" not in str(caught.value)


def test_an_overlay_without_the_stamp_keeps_the_language_s_own_message(stacks: Path) -> None:
    # a hand-written overlay adding a fleet by a new name is not a budget response: its new fleet lacks fields
    overlay = stacks / "policies" / "mine.yaml"
    overlay.write_text("apiVersion: seedance.io/v1\nkind: CostPolicy\nextends: eu-prod.yaml\nfleets:\n"
                       "  - name: extra\n    capacity: {min: 0, desired: 0, max: 0}\n", encoding="utf-8")
    with pytest.raises(PolicyError, match=r"fleets\[\d+\]\.sla \(fleet 'extra'\): missing required field 'sla'") as caught:
        load_policy(overlay)
    assert "stale budget response" not in str(caught.value)


def test_a_fleet_added_since_the_response_is_named_when_the_overlay_loads(stacks: Path,
                                                                            caplog: pytest.LogCaptureFixture) -> None:
    overlay = _respond(stacks, "140,000.00")
    with caplog.at_level(logging.WARNING, logger="seedance.policy.loader"):
        load_policy(overlay)
    assert not [r for r in caplog.records if r.name == "seedance.policy.loader"]  # it covers every fleet it answered
    policy = stacks / "policies" / "eu-prod.yaml"
    policy.write_text(policy.read_text(encoding="utf-8") + NEW_FLEET.format(core=""), encoding="utf-8")
    loaded = load_policy(overlay)
    assert loaded.policy.fleet("scratch").capacity.max == 4  # it runs at full size under the degrade
    stamp = OverlayStamp.parse(overlay.read_text(encoding="utf-8"))
    assert stamp is not None and loaded.response is not None
    assert uncovered_fleets(loaded.policy, loaded.response.fleets, stamp) == ["scratch"]
    with caplog.at_level(logging.WARNING, logger="seedance.policy.loader"):
        result = CliRunner().invoke(app, ["estimate", str(overlay), "--format", "json"], standalone_mode=False,
                                    catch_exceptions=False)
    assert result.return_value == 0  # a warning, not an error
    warnings = [r.getMessage() for r in caplog.records if r.name == "seedance.policy.loader"]
    assert len(warnings) == 1 and "does not cover fleet(s) 'scratch' of the policy it extends" in warnings[0]
    assert "87.5% of budget" in warnings[0] and "re-run `seedance budget respond`" in warnings[0]
    # responding again covers it: no warning for the new overlay
    caplog.clear()
    overlay = _respond(stacks, "140,000.00")
    with caplog.at_level(logging.WARNING, logger="seedance.policy.loader"):
        assert load_policy(overlay).policy.fleet("scratch").capacity.max == 0
    assert not [r for r in caplog.records if r.name == "seedance.policy.loader"]


def test_a_fleet_the_response_would_leave_alone_is_not_reported(stacks: Path, caplog: pytest.LogCaptureFixture) -> None:
    overlay = _respond(stacks, "140,000.00")  # degrade: a core fleet without reservations or windows is untouched
    policy = stacks / "policies" / "eu-prod.yaml"
    policy.write_text(policy.read_text(encoding="utf-8") + NEW_FLEET.format(core="\n    core: true"), encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="seedance.policy.loader"):
        load_policy(overlay)
    assert not [r for r in caplog.records if r.name == "seedance.policy.loader"]


@pytest.mark.parametrize("command", ["plan", "check", "synth"])
def test_the_warning_reaches_stderr_of_the_commands_that_load_the_stack(stacks: Path, command: str) -> None:
    overlay = _respond(stacks, "140,000.00")
    policy = stacks / "policies" / "eu-prod.yaml"
    policy.write_text(policy.read_text(encoding="utf-8") + NEW_FLEET.format(core=""), encoding="utf-8")
    config = stacks / "Pulumi.eu-prod.yaml"
    config.write_text(config.read_text(encoding="utf-8").replace("policies/eu-prod.yaml", "policies/eu-prod.budget.yaml"),
                      encoding="utf-8")
    args = {"plan": [str(overlay)], "check": ["eu-prod", "--project-dir", str(stacks)],
            "synth": ["eu-prod", "--project-dir", str(stacks)]}[command]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    run = subprocess.run([sys.executable, "-m", "seedance", command, *args], capture_output=True, text=True, env=env,
                         cwd=stacks.parent, timeout=300)
    assert run.returncode == 0, run.stderr  # the gate's verdict is unchanged: the warning is not a finding
    named = [line for line in run.stderr.splitlines() if "does not cover fleet(s) 'scratch'" in line]
    assert len(named) == 1, run.stderr  # once, however often the command loads the policy
    assert named[0].startswith("WARNING ") and "re-run `seedance budget respond`" in named[0]


def test_the_stamp_records_the_thresholds_the_response_applied(stacks: Path) -> None:
    overlay = _respond(stacks, "140,000.00")  # 87.5%
    budget = load_policy(stacks / "policies" / "eu-prod.yaml").policy.budget
    expected = tuple((t.at, t.action) for t in budget.thresholds if t.at <= 140_000 / budget.monthly_amount)
    assert [a for _, a in expected] == [ThresholdAction.NOTIFY, ThresholdAction.DEGRADE]
    lines = overlay.read_text(encoding="utf-8").splitlines()
    assert lines[1].startswith(f"{BUDGET_RESPONSE_STAMP} fraction=0.875 type=ACTUAL month=")
    assert lines[2] == (f"{BUDGET_RESPONSE_FIRED} thresholds=" + ",".join(f"{at}:{a.value}" for at, a in expected)
                        + f" amount=140000.0 budget={float(budget.monthly_amount)}")
    stamp = OverlayStamp.parse("\n".join(lines))
    assert stamp is not None and stamp.fraction == 0.875
    assert stamp.fired == FiredThresholds(expected, 140_000.0, budget.monthly_amount)
    loaded = load_policy(overlay)
    assert loaded.response is not None and loaded.response.fired == lines[2]
    assert OverlayStamp.parse(loaded.response.stamp_text) == stamp


def test_the_thresholds_line_reads_back_exactly_and_an_older_stamp_has_none() -> None:
    fired = FiredThresholds(((0.8499999, ThresholdAction.DEGRADE), (1.0, ThresholdAction.NONPROD_SPOT_ONLY)),
                            135_999.99, 160_000.0)
    for stamp in (OverlayStamp(0.8499999, "FORECASTED", "2026-03", fired),
                  OverlayStamp(0.1, "ACTUAL", "2026-04", FiredThresholds((), 16_000.0, 160_000.0)),
                  OverlayStamp(1e-7, "ACTUAL", "2026-04", FiredThresholds((), 0.0, 1e-2))):
        text = "# Budget response to x\n" + stamp.comment() + "apiVersion: seedance.io/v1\n"
        assert OverlayStamp.parse(text) == stamp
        line = next(x for x in text.splitlines() if x.startswith(BUDGET_RESPONSE_FIRED))
        assert not re.search(r"[0-9][eE]", line)  # every figure positional, as the fraction
    assert " thresholds=- " in OverlayStamp(0.1, "ACTUAL", "2026-04", FiredThresholds((), 1.0, 10.0)).comment()
    # an older Seedance wrote the stamp line alone: it reads as before, with nothing recorded
    older = f"{BUDGET_RESPONSE_STAMP} fraction=0.875 type=ACTUAL month=2026-03\n"
    assert OverlayStamp.parse(older) == OverlayStamp(0.875, "ACTUAL", "2026-03", None)
    assert OverlayStamp(0.875, "ACTUAL", "2026-03").comment() == older
    # a thresholds line this version cannot read (an action it does not know) leaves the stamp itself readable
    unknown = older + f"{BUDGET_RESPONSE_FIRED} thresholds=0.85:shutdown amount=140000 budget=160000\n"
    assert OverlayStamp.parse(unknown) == OverlayStamp(0.875, "ACTUAL", "2026-03", None)
    # the stamp line is unchanged, so an older Seedance still reads the stamp of a newer overlay
    assert OverlayStamp(0.875, "ACTUAL", "2026-03", fired).comment().splitlines()[0] == older.rstrip("\n")


def test_the_fleets_a_response_covers_are_judged_by_the_actions_its_stamp_records(stacks: Path) -> None:
    overlay = _respond(stacks, "140,000.00")  # degrade, at 85%
    base = stacks / "policies" / "base.yaml"
    text = base.read_text(encoding="utf-8")
    assert text.count("    - at: 0.85\n      action: degrade\n") == 1
    base.write_text(text.replace("    - at: 0.85\n      action: degrade\n", "    - at: 0.85\n      action: freeze\n"),
                    encoding="utf-8")
    loaded = load_policy(overlay)
    stamp = OverlayStamp.parse(overlay.read_text(encoding="utf-8"))
    assert loaded.response is not None and stamp is not None and stamp.fired is not None
    # the degrade it applied covers every fleet degrade changes; what a freeze would change is not its to cover
    assert uncovered_fleets(loaded.policy, loaded.response.fleets, stamp) == []
    # an older stamp records no actions: those the thresholds fire now are the response's
    older = OverlayStamp(stamp.fraction, stamp.alert_type, stamp.month)
    frozen = fleets_changed_at(loaded.policy, stamp.fraction, cluster=True) & \
        fleets_changed_at(loaded.policy, stamp.fraction, cluster=False)
    expected = [f.name for f in loaded.policy.fleets if f.name in frozen and f.name not in loaded.response.fleets]
    assert expected and uncovered_fleets(loaded.policy, loaded.response.fleets, older) == expected
