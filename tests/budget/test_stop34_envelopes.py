"""`seedance budget respond` on events of no known shape: exit 1 saying what was expected, not exit 0
"nothing to do". A well-formed SNS message that is simply not a budget notification still ends 0."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from seedance.budget.events import BudgetEventError, parse_budget_event
from seedance.cli import main
from seedance.policy import load_policy
from tests.budget.test_budget import FIXTURES, POLICIES, REPO, _fixture, _monthly_alert

DEV = POLICIES / "dev.yaml"
MONTHLY = "sre-bot.sns-http-notification.budget-monthly-actual.json"


def _sns(**changes: Any) -> dict[str, Any]:
    doc = json.loads(_monthly_alert("seedance-dev-monthly", "6,000.00", "5,900.00"))
    doc.update(changes)
    return doc


def _lambda(sns: Any) -> dict[str, Any]:
    return {"Records": [{"EventSource": "aws:sns", "EventVersion": "1.0", "Sns": sns}]}


def _without(doc: dict[str, Any], key: str) -> dict[str, Any]:
    return {k: v for k, v in doc.items() if k != key}


def _respond(capsys: pytest.CaptureFixture[str], tmp_path: Path, event: Any) -> tuple[int, str, str]:
    path = tmp_path / "event.json"
    path.write_text(event if isinstance(event, str) else json.dumps(event))
    out = tmp_path / "overlay.yaml"
    code = main(["budget", "respond", str(DEV), str(path), "--stack", "dev", "--out", str(out)])
    captured = capsys.readouterr()
    assert code != 0 or "nothing to do" in captured.err or captured.out  # exit 0 only with an answer
    if code == 1:
        assert not out.exists()
    return code, captured.out, captured.err


@pytest.mark.parametrize(("event", "message"), [
    (_sns(Message=None), "'Message': expected the message text (a string), got null"),
    (_sns(Message=5), "'Message': expected the message text (a string), got number 5"),
    (_sns(Message={"a": 1}), "'Message': expected the message text (a string), got object"),
    (_sns(Message=["AWS Budget Notification"]), "'Message': expected the message text (a string), got array"),
    (_sns(Type=None), "'Type': expected the SNS message type (a string such as \"Notification\"), got null"),
    (_sns(Type=1), "'Type': expected the SNS message type (a string such as \"Notification\"), got number 1"),
    (_without(_sns(), "Message"), "'Message': missing"),
    ({}, "not an SNS message: expected an SNS message (an object with 'Type' and 'Message')"),
    ({"hello": "world"}, "got an object with keys 'hello'"),
    ({"Records": 5}, "'Records': expected a list holding one SNS record (a Lambda SNS event), got number 5"),
    ({"Records": {"Sns": {}}}, "'Records': expected a list holding one SNS record"),
    (_lambda(_sns(Message=None)), "'Records[0].Sns.Message': expected the message text (a string), got null"),
    (_lambda({}), "Records[0].Sns: not an SNS message"),
])
def test_malformed_envelopes_exit_1_saying_what_was_expected(capsys, tmp_path: Path, event: Any, message: str) -> None:
    code, _, err = _respond(capsys, tmp_path, event)
    assert code == 1, err
    assert message in err
    assert "nothing to do" not in err and "Traceback" not in err and "internal error" not in err
    with pytest.raises(BudgetEventError):
        parse_budget_event(json.dumps(event))


@pytest.mark.parametrize("name", [
    "aws-lambda-go.lambda-sns-event.generic.json",
    "awsdocs.sns-http-post.notification.txt",
    "awsdocs.sns-http-post.subscription-confirmation.txt",
    "sre-bot.sns-http-notification.cloudwatch-alarm.json",
])
def test_well_formed_messages_that_are_not_budget_alerts_still_do_nothing(capsys, tmp_path: Path, name: str) -> None:
    code, _, err = _respond(capsys, tmp_path, (FIXTURES / name).read_text())
    assert code == 0 and "not an AWS Budgets notification: nothing to do" in err


def test_a_message_without_a_type_is_still_read() -> None:
    """SNS always writes Type; a hand-made message without it keeps being read as a notification."""
    alert = parse_budget_event(json.dumps(_without(_sns(), "Type")))
    assert alert is not None and alert.budget_name == "seedance-dev-monthly"


@pytest.mark.parametrize(("label", "extra"), [
    ("Budget Name", "Budget Name: other"),
    ("Budgeted Amount", "Budgeted Amount: $9,000.00"),
    ("Alert Type", "Alert Type: FORECASTED"),
    ("ACTUAL Amount", "ACTUAL Amount: $1.00"),
])
def test_a_labelled_line_given_twice_is_ambiguous(capsys, tmp_path: Path, label: str, extra: str) -> None:
    doc = _sns()
    assert doc["Message"].count(f"\n{label}:") == 1
    for message in (doc["Message"] + f"\n{extra}\n", doc["Message"].replace(f"\n{label}:", f"\n{extra}\n{label}:", 1)):
        code, _, err = _respond(capsys, tmp_path, {**doc, "Message": message})
        assert code == 1, err
        assert f"budget notification with 2 '{label}' lines" in err and "ambiguous" in err


def test_the_real_notifications_are_still_read() -> None:
    alert = parse_budget_event(_fixture(MONTHLY))
    assert alert is not None and alert.budget_name == "Test Budget"



def test_an_alert_of_a_month_that_has_ended_changes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """An alert sent in a budget month that has ended (delayed, retried or replayed) answers a budget
    that has started over: it is reported as ignored and writes no overlay; one of this month acts."""
    import seedance.commands.budget as budget_command

    event = tmp_path / "event.json"
    event.write_text(json.dumps(_sns(Timestamp="2026-11-30T23:58:00.000Z")))  # 98% of dev's budget
    out = tmp_path / "dev.budget.yaml"
    args = ["budget", "respond", str(DEV), str(event), "--stack", "dev", "--out", str(out), "-f", "json"]
    monkeypatch.setattr(budget_command, "budget_month_now", lambda: "2026-12")
    assert main(args) == 0
    doc = json.loads(capsys.readouterr().out)
    assert "budget month 2026-11, which has ended (it is 2026-12 now)" in doc["ignored"]
    assert not out.exists()
    monkeypatch.setattr(budget_command, "budget_month_now", lambda: "2026-11")
    assert main(args) == 0
    assert json.loads(capsys.readouterr().out)["ignored"] is None and out.exists()


def test_an_overlay_of_another_policy_at_out_is_left_alone(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--out names another policy's overlay (two stacks sharing one file by mistake): its stamp is that
    policy's alert, so the run refuses it instead of deciding against it or replacing it."""
    out = tmp_path / "shared.budget.yaml"
    event = tmp_path / "event.json"
    event.write_text(json.dumps(_sns()))  # 98% of dev's budget: degrade and more
    assert main(["budget", "respond", str(DEV), str(event), "--stack", "dev", "--out", str(out)]) == 0
    written = out.read_text()
    capsys.readouterr()
    other = tmp_path / "other.yaml"  # another policy, the same budget and stack name
    other.write_text(f"apiVersion: seedance.io/v1\nkind: CostPolicy\nextends: {DEV}\nmetadata:\n  owner: someone-else@example.com\n")
    code = main(["budget", "respond", str(other), str(event), "--stack", "dev", "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 1 and "is the budget overlay of another policy" in err
    assert out.read_text() == written
    # the policy it answers goes on deciding against it
    assert main(["budget", "respond", str(DEV), str(event), "--stack", "dev", "--out", str(out)]) == 0


def test_an_overlay_of_another_stack_at_out_is_left_alone(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Two stacks (dev, dev2) deploy the same policy and name the same --out: dev's overlay answers
    seedance-dev-monthly, so dev2's alert is neither decided against it (dev's stronger response kept,
    dev's freeze caps) nor written over it; the run refuses it, naming both budgets."""
    proj = tmp_path / "proj"
    shutil.copytree(REPO / "stacks", proj, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(proj / "Pulumi.dev.yaml", proj / "Pulumi.dev2.yaml")  # seedance:policy: policies/dev.yaml
    policy, out = proj / "policies" / "dev.yaml", proj / "policies" / "dev.budget.yaml"
    event = tmp_path / "dev.json"
    event.write_text(json.dumps(_sns()))  # 98% of dev's budget: degrade, freeze and more

    def run(alert: Path, *args: str) -> int:
        return main(["budget", "respond", str(policy), str(alert), *args, "--project-dir", str(proj), "--out", str(out)])

    assert run(event, "--stack", "dev") == 0
    written = out.read_text()
    assert written.startswith("# Budget response to seedance-dev-monthly (")
    capsys.readouterr()
    account = load_policy(policy).policy.cloud.account_id
    for spend in ("3,000.00", "5,990.00"):  # a lower alert of dev2 (dev's overlay would be kept), a higher one
        dev2 = tmp_path / f"dev2-{spend}.json"
        dev2.write_bytes(_monthly_alert("seedance-dev2-monthly", "6,000.00", spend, account=account))
        for stack in (["--stack", "dev2"], []):  # without --stack the alert's own Seedance budget is the one answered
            code = run(dev2, *stack, "-f", "json")
            captured = capsys.readouterr()
            assert code == 1 and captured.out == ""
            assert (f"error --out {out.resolve()}: is the budget overlay of another budget (it answers "
                    "seedance-dev-monthly), not of seedance-dev2-monthly; not overwriting it: give each stack its own "
                    "--out") in captured.err
            assert out.read_text() == written
    # the stack it answers goes on deciding against it; dev2 is refused whatever the alert
    assert run(event, "--stack", "dev") == 0
    assert run(event, "--stack", "dev2") == 1
    assert "is the budget overlay of another budget" in capsys.readouterr().err
    # without --stack, an alert of no Seedance budget answers no budget: ignored as before
    foreign = tmp_path / "foreign.json"
    foreign.write_bytes(_monthly_alert("Test Budget", "6,000.00", "5,990.00", account=account))
    assert run(foreign, "-f", "json") == 0
    assert "not a Seedance budget" in json.loads(capsys.readouterr().out)["ignored"]
    assert out.read_text() == written
