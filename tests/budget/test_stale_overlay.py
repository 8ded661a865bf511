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

from seedance.budget.coverage import threshold_drift, threshold_drift_warning, uncovered_fleets
from seedance.budget.response import FiredThresholds, OverlayStamp, fleets_changed_at
from seedance.cli import app
from seedance.policy import PolicyError, load_policy
from seedance.policy.loader import BUDGET_RESPONSE_FIRED, BUDGET_RESPONSE_STAMP
from seedance.policy.model import Environment, ThresholdAction

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


def _run_on_overlay(stacks: Path, command: str, overlay: Path) -> subprocess.CompletedProcess[str]:
    """``seedance COMMAND`` in a process of its own, on the overlay (``check``/``synth``: the stack deploying it)."""
    config = stacks / "Pulumi.eu-prod.yaml"
    config.write_text(config.read_text(encoding="utf-8").replace("policies/eu-prod.yaml", f"policies/{overlay.name}"),
                      encoding="utf-8")
    args = {"plan": [str(overlay)], "check": ["eu-prod", "--project-dir", str(stacks)],
            "synth": ["eu-prod", "--project-dir", str(stacks)]}[command]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, "-m", "seedance", command, *args], capture_output=True, text=True, env=env,
                          cwd=stacks.parent, timeout=300)


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
        "that name): a stale budget response; re-run `seedance budget respond`/`poll`, or point the stack's seedance:policy "
        "back to the policy, then delete the overlay")
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
    run = _run_on_overlay(stacks, command, overlay)
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
                        + f" amount=140000.0 budget={float(budget.monthly_amount)} env=prod")
    stamp = OverlayStamp.parse("\n".join(lines))
    assert stamp is not None and stamp.fraction == 0.875
    assert stamp.fired == FiredThresholds(expected, 140_000.0, budget.monthly_amount, Environment.PROD)
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


# --------------------------------------------------------------------------- thresholds changed since the response

THRESHOLDS = re.compile(r"  thresholds:\n(?:    - at: [0-9.]+\n      action: [a-z-]+\n)+")


def _set_thresholds(project: Path, thresholds: list[tuple[float, str]]) -> None:
    """Replace the thresholds of the example's base policy (eu-prod takes them from it)."""
    base = project / "policies" / "base.yaml"
    text = base.read_text(encoding="utf-8")
    assert len(THRESHOLDS.findall(text)) == 1
    block = "  thresholds:\n" + "".join(f"    - at: {at}\n      action: {action}\n" for at, action in thresholds)
    base.write_text(THRESHOLDS.sub(block, text), encoding="utf-8")


def _thresholds(project: Path) -> list[tuple[float, str]]:
    budget = load_policy(project / "policies" / "eu-prod.yaml").policy.budget
    return [(t.at, t.action.value) for t in budget.thresholds]


def _set_budget(project: Path, amount: int) -> None:
    policy = project / "policies" / "eu-prod.yaml"
    text = policy.read_text(encoding="utf-8")
    assert text.count("  monthlyAmount: ") == 1
    policy.write_text(re.sub(r"(?m)^  monthlyAmount: .*$", f"  monthlyAmount: {amount}", text), encoding="utf-8")


def _loader_warnings(caplog: pytest.LogCaptureFixture, overlay: Path) -> list[str]:
    """The warnings loading ``overlay`` logs (each load of it, in one run)."""
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="seedance.policy.loader"):
        load_policy(overlay)
        load_policy(overlay.parent / ".." / "policies" / overlay.name)  # another spelling of the same file
    return [r.getMessage() for r in caplog.records if r.name == "seedance.policy.loader"]


def _rerun_hint(overlay: Path) -> str:
    return (f"re-run `seedance budget respond` or `seedance budget poll` with --out {os.path.abspath(overlay)} to "
            "respond as the policy now says, or point the stack's seedance:policy back to the policy it extends, then "
            "delete the overlay, to lift the response")


def _delete_hint(overlay: Path) -> str:
    return (f"point the stack's seedance:policy back to the policy it extends, then delete the overlay, to lift "
            f"the response (`seedance budget respond` or `seedance budget poll` with --out "
            f"{os.path.abspath(overlay)} replaces it only with a response that changes fleets, or in a new budget "
            "month)")


def _edited(thresholds: list[tuple[float, str]], at: float, new: tuple[float, str] | None) -> list[tuple[float, str]]:
    """``thresholds`` with the one at ``at`` replaced by ``new`` (removed: None)."""
    assert at in [a for a, _ in thresholds]
    kept = [t for t in thresholds if t[0] != at]
    return sorted(kept + ([new] if new is not None else []))  # the language wants them ascending


@pytest.mark.parametrize("edit, now, why", [
    ("raised", "nothing", "(degrade at 90%: not reached)"),
    ("removed", "nothing", "(no degrade threshold)"),
    ("changed", "freeze (threshold 85%)", "(no degrade threshold)"),
    ("stronger", "degrade (threshold 85%), freeze (threshold 86%)", ""),
])
def test_thresholds_that_no_longer_fire_the_overlay_s_action_are_named_when_it_loads(
        stacks: Path, caplog: pytest.LogCaptureFixture, edit: str, now: str, why: str) -> None:
    overlay = _respond(stacks, "140,000.00")  # 87.5%: degrade (85%) fires, freeze (100%) does not
    assert _loader_warnings(caplog, overlay) == []
    before = _thresholds(stacks)
    assert (0.85, "degrade") in before and (1.0, "freeze") in before
    _set_thresholds(stacks, {"raised": _edited(before, 0.85, (0.9, "degrade")),
                             "removed": _edited(before, 0.85, None),
                             "changed": _edited(before, 0.85, (0.85, "freeze")),
                             "stronger": _edited(before, 1.0, (0.86, "freeze"))}[edit])
    warnings = _loader_warnings(caplog, overlay)
    assert len(warnings) == 1, warnings  # once, however often and by whatever path the overlay is loaded
    loaded = load_policy(overlay)
    stamp = OverlayStamp.parse(overlay.read_text(encoding="utf-8"))
    assert stamp is not None and stamp.fired is not None
    drift = threshold_drift(loaded.policy, stamp)
    assert drift is not None and drift.applied == ((0.85, ThresholdAction.DEGRADE),) and drift.budget is None
    assert warnings[0] == (
        f"{os.path.abspath(overlay)}: the budget response in this overlay (ACTUAL alert of {stamp.month}) applies "
        f"degrade (threshold 85%), but for that spend (87.5% of budget) the policy it extends now applies {now}"
        + (f" {why}" if why else "") + ": the overlay stays in force as it is; "
        + (_delete_hint(overlay) if now == "nothing" else _rerun_hint(overlay)))
    assert loaded.policy.fleet("eval").capacity.max == 0  # still degraded: a warning, the overlay is applied as before


@pytest.mark.parametrize("edit", ["unchanged", "lowered", "notify removed", "prod's nonprod-spot-only removed"])
def test_thresholds_that_still_fire_the_overlay_s_actions_are_not_reported(
        stacks: Path, caplog: pytest.LogCaptureFixture, edit: str) -> None:
    overlay = _respond(stacks, "155,200.00")  # 97%: degrade, and nonprod-spot-only (which changes no prod policy)
    before = _thresholds(stacks)
    assert load_policy(overlay).policy.metadata.environment.value == "prod" and (0.95, "nonprod-spot-only") in before
    after = {"unchanged": before, "lowered": _edited(before, 0.85, (0.8, "degrade")),
             "notify removed": _edited(before, 0.5, None),
             "prod's nonprod-spot-only removed": _edited(before, 0.95, None)}[edit]
    _set_thresholds(stacks, after)
    assert _thresholds(stacks) == after
    assert _loader_warnings(caplog, overlay) == []


def test_an_overlay_stamped_without_the_thresholds_loads_as_before(stacks: Path,
                                                                   caplog: pytest.LogCaptureFixture) -> None:
    overlay = _respond(stacks, "140,000.00")
    text = overlay.read_text(encoding="utf-8")
    older = "".join(line for line in text.splitlines(keepends=True) if not line.startswith(BUDGET_RESPONSE_FIRED))
    assert older != text and BUDGET_RESPONSE_STAMP in older
    overlay.write_text(older, encoding="utf-8")  # as an earlier Seedance wrote it
    _set_thresholds(stacks, _edited(_thresholds(stacks), 0.85, None))
    loaded = load_policy(overlay)
    assert loaded.response is not None and loaded.response.fired is None
    stamp = OverlayStamp.parse(loaded.response.stamp_text)
    assert stamp is not None and stamp.fired is None and threshold_drift(loaded.policy, stamp) is None
    assert _loader_warnings(caplog, overlay) == []


@pytest.mark.parametrize("amount, now, why", [
    (150_000, None, ""),  # 93.3%: still degrade alone
    (200_000, "nothing", " (degrade at 85%: not reached)"),  # 70%
    (140_000, "degrade (threshold 85%), freeze (threshold 100%)", ""),  # 100%: freeze too
])
def test_a_budget_amount_changed_since_counts_when_the_spend_crosses_other_thresholds(
        stacks: Path, caplog: pytest.LogCaptureFixture, amount: int, now: str | None, why: str) -> None:
    overlay = _respond(stacks, "140,000.00")  # 87.5% of 160,000
    _set_budget(stacks, amount)
    warnings = _loader_warnings(caplog, overlay)
    if now is None:
        assert warnings == []
        return
    stamp = OverlayStamp.parse(overlay.read_text(encoding="utf-8"))
    assert stamp is not None and len(warnings) == 1, warnings
    assert warnings[0] == (
        f"{os.path.abspath(overlay)}: the budget response in this overlay (ACTUAL alert of {stamp.month}) applies "
        f"degrade (threshold 85%), but for that spend (140,000.00: {140_000 / amount:.1%} of the budget now of "
        f"{amount:,.2f}, 87.5% of the 160,000.00 then) the policy it extends now applies {now}{why}: the overlay "
        "stays in force as it is; " + (_delete_hint(overlay) if now == "nothing" else _rerun_hint(overlay)))


def test_responding_again_answers_the_thresholds_as_they_are(stacks: Path, caplog: pytest.LogCaptureFixture) -> None:
    overlay = _respond(stacks, "140,000.00")
    _set_thresholds(stacks, _edited(_thresholds(stacks), 0.85, (0.85, "freeze")))
    assert len(_loader_warnings(caplog, overlay)) == 1
    overlay = _respond(stacks, "140,000.00")  # the same alert: now a freeze, which replaces the degrade
    assert _loader_warnings(caplog, overlay) == []
    stamp = OverlayStamp.parse(overlay.read_text(encoding="utf-8"))
    assert stamp is not None and stamp.fired is not None
    assert [a for _, a in stamp.fired.thresholds] == [ThresholdAction.NOTIFY, ThresholdAction.FREEZE]


@pytest.mark.parametrize("command", ["plan", "check", "synth"])
def test_the_thresholds_warning_reaches_stderr_once_a_run(stacks: Path, command: str) -> None:
    overlay = _respond(stacks, "140,000.00")
    _set_thresholds(stacks, _edited(_thresholds(stacks), 0.85, (0.9, "degrade")))
    run = _run_on_overlay(stacks, command, overlay)
    assert run.returncode == 0, run.stderr  # the gate's verdict is unchanged: the warning is not a finding
    named = [line for line in run.stderr.splitlines() if "applies degrade (threshold 85%), but for that spend" in line]
    assert len(named) == 1, run.stderr  # once, however often the command loads the policy
    assert named[0].startswith(f"WARNING seedance.policy.loader: {os.path.abspath(overlay)}: ")
    assert "(degrade at 90%: not reached)" in named[0] and named[0].endswith(_delete_hint(overlay))


def test_nonprod_spot_only_counts_in_a_non_prod_policy() -> None:
    policy = load_policy(REPO / "stacks" / "policies" / "dev.yaml").policy
    budget = policy.budget
    assert policy.metadata.environment.value != "prod"
    assert ThresholdAction.NONPROD_SPOT_ONLY in [t.action for t in budget.thresholds]
    spot_only = next(t.at for t in budget.thresholds if t.action is ThresholdAction.NONPROD_SPOT_ONLY)
    fraction = min(1.0, spot_only + 0.01)
    fired = tuple((t.at, t.action) for t in budget.thresholds if t.at <= fraction)
    stamp = OverlayStamp(fraction, "ACTUAL", "2026-03", FiredThresholds(fired, fraction * budget.monthly_amount,
                                                                         budget.monthly_amount))
    assert threshold_drift(policy, stamp) is None
    without = [t for t in budget.thresholds if t.action is not ThresholdAction.NONPROD_SPOT_ONLY]
    dropped = policy.model_copy(update={"budget": budget.model_copy(update={"thresholds": without})})
    drift = threshold_drift(dropped, stamp)
    assert drift is not None and drift.moved == ((ThresholdAction.NONPROD_SPOT_ONLY, ()),)
    assert (spot_only, ThresholdAction.NONPROD_SPOT_ONLY) in drift.applied
    assert (spot_only, ThresholdAction.NONPROD_SPOT_ONLY) not in drift.now
    text = threshold_drift_warning(Path("dev.budget.yaml"), stamp, drift)
    assert text.startswith(f"{os.path.abspath('dev.budget.yaml')}: the budget response in this overlay (ACTUAL alert "
                           "of 2026-03) applies ")
    assert f"nonprod-spot-only (threshold {spot_only * 100:g}%)" in text and "(no nonprod-spot-only threshold)" in text


def test_a_re_run_after_the_budget_rose_answers_the_spend_as_the_budget_now_is(stacks: Path, caplog: pytest.LogCaptureFixture) -> None:
    # review: the same-month check compared today's thresholds with the spend's fraction of the old
    # budget, so the re-run the warning advises kept the stronger overlay ("crossed more thresholds")
    _set_thresholds(stacks, _edited(_thresholds(stacks), 1.0, (0.98, "freeze")))
    overlay = _respond(stacks, "158,400.00")  # 99% of 160,000: degrade and freeze
    _set_budget(stacks, 170_000)  # 93.2%: degrade only
    (warning,) = _loader_warnings(caplog, overlay)
    assert "re-run `seedance budget respond`" in warning
    overlay = _respond(stacks, "158,400.00")
    assert _loader_warnings(caplog, overlay) == []
    stamp = OverlayStamp.parse(overlay.read_text(encoding="utf-8"))
    assert stamp is not None and stamp.fired is not None
    assert [a for _, a in stamp.fired.thresholds] == [ThresholdAction.NOTIFY, ThresholdAction.DEGRADE]


def test_a_non_prod_response_still_counts_after_the_policy_became_prod() -> None:
    # review: nonprod-spot-only was judged in the environment the policy has now, on both sides, so
    # a staging overlay that raised spot kept doing so in prod without a word
    policy = load_policy(REPO / "stacks" / "policies" / "dev.yaml").policy
    budget = policy.budget
    spot_only = next(t.at for t in budget.thresholds if t.action is ThresholdAction.NONPROD_SPOT_ONLY)
    fraction = min(1.0, spot_only + 0.01)
    fired = tuple((t.at, t.action) for t in budget.thresholds if t.at <= fraction)
    stamp = OverlayStamp(fraction, "ACTUAL", "2026-03", FiredThresholds(fired, fraction * budget.monthly_amount,
                                                                         budget.monthly_amount, policy.metadata.environment))
    assert threshold_drift(policy, stamp) is None
    prod = policy.model_copy(update={"metadata": policy.metadata.model_copy(update={"environment": Environment.PROD})})
    drift = threshold_drift(prod, stamp)
    assert drift is not None and (spot_only, ThresholdAction.NONPROD_SPOT_ONLY) in drift.applied
    assert ThresholdAction.NONPROD_SPOT_ONLY not in [a for _, a in drift.now]
    # a line from before the environment was recorded is judged as before
    older = OverlayStamp(fraction, "ACTUAL", "2026-03", FiredThresholds(fired, fraction * budget.monthly_amount,
                                                                         budget.monthly_amount))
    assert all(a is not ThresholdAction.NONPROD_SPOT_ONLY for _, a in (threshold_drift(prod, older) or drift).now)


@pytest.mark.parametrize("line", [
    "thresholds=0.85:degrade amount=140000 budget=0",
    "thresholds=0.85:degrade amount=-140000 budget=160000",
])
def test_a_hand_edited_thresholds_line_without_a_budget_is_not_compared(line: str) -> None:
    text = f"{BUDGET_RESPONSE_STAMP} fraction=0.875 type=ACTUAL month=2026-03\n{BUDGET_RESPONSE_FIRED} {line}\n"
    stamp = OverlayStamp.parse(text)
    assert stamp is not None and stamp.fired is None


def test_a_lower_alert_applies_the_stronger_response_again_to_a_fleet_added_since(stacks: Path,
                                                                                 caplog: pytest.LogCaptureFixture) -> None:
    # red team: a later, lower alert of the month kept the stronger overlay as it was, so a fleet added
    # since kept running at full size although the response in force (and this alert) disable it
    overlay = _respond(stacks, "170,000.00")  # 106%: every threshold
    first = OverlayStamp.parse(overlay.read_text(encoding="utf-8"))
    policy = stacks / "policies" / "eu-prod.yaml"
    policy.write_text(policy.read_text(encoding="utf-8") + NEW_FLEET.format(core=""), encoding="utf-8")
    assert len(_loader_warnings(caplog, overlay)) == 1
    out = stacks / "policies" / "eu-prod.budget.yaml"
    result = CliRunner().invoke(app, ["budget", "respond", str(policy), str(_alert(stacks.parent, "155,000.00")),
                                      "--stack", "eu-prod", "--project-dir", str(stacks), "--out", str(out), "-f", "json"],
                                standalone_mode=False, catch_exceptions=False)
    assert result.return_value == 0, result.output
    report = json.loads(result.output)
    assert any("does not cover fleet(s) scratch, so that response is applied again" in n for n in report["notes"])
    assert _loader_warnings(caplog, overlay) == []
    assert load_policy(overlay).policy.fleet("scratch").capacity.max == 0
    again = OverlayStamp.parse(overlay.read_text(encoding="utf-8"))
    assert again is not None and first is not None and (again.fraction, again.fired) == (first.fraction, first.fired)
    # once it covers the policy, a lower alert leaves it as it is
    text = overlay.read_text(encoding="utf-8")
    result = CliRunner().invoke(app, ["budget", "respond", str(policy), str(_alert(stacks.parent, "155,000.00")),
                                      "--stack", "eu-prod", "--project-dir", str(stacks), "--out", str(out), "-f", "json"],
                                standalone_mode=False, catch_exceptions=False)
    assert result.return_value == 0 and overlay.read_text(encoding="utf-8") == text
    assert any("crossed more thresholds, and a later, lower alert never undoes" in n for n in json.loads(result.output)["notes"])
