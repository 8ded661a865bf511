"""Budget-triggered redeploys: real SNS envelopes in, threshold actions and an overlay out."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from seedance.budget.events import BudgetEventError, parse_budget_event
from seedance.budget.report import render_markdown, spend_label, threshold_label, value_label
from seedance.budget.response import BudgetResponseError, OverlayStamp, fraction_down, percent, respond, weaker_than
from seedance.cli import app
from seedance.policy import load_policy
from seedance.policy.model import SLA_SPOT_CAP, SlaTier, ThresholdAction

REPO = Path(__file__).resolve().parents[2]
FIXTURES = Path(os.environ.get("SEEDANCE_SHARED_DATA") or REPO.parent / "shared" / "data") / "fixtures" / "aws-sns-budgets"
POLICIES = REPO / "stacks" / "policies"


def _fixture(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


def _monthly_alert(budget_name: str, budgeted: str, amount: str, alert_type: str = "ACTUAL",
                   account: str | None = None) -> bytes:
    """The real monthly-actual SNS notification with its budget name, amounts and account replaced.

    The account defaults to the example stack's ``cloud.accountId`` when the name is a stack's budget.
    """
    doc = json.loads(_fixture("sre-bot.sns-http-notification.budget-monthly-actual.json"))
    stack = budget_name.removeprefix("seedance-").removesuffix("-monthly")
    if account is None and (POLICIES / f"{stack}.yaml").is_file():
        account = load_policy(POLICIES / f"{stack}.yaml").policy.cloud.account_id
    msg = doc["Message"].replace("Test Budget", budget_name).replace("$0.20", f"${budgeted}")
    msg = msg.replace("$0.59", f"${amount}").replace("ACTUAL", alert_type)
    if account:
        msg = msg.replace("AWS Account 017790921725", f"AWS Account {account}")
    doc["Message"] = msg
    return json.dumps(doc).encode()


def test_monthly_actual_notification() -> None:
    alert = parse_budget_event(_fixture("sre-bot.sns-http-notification.budget-monthly-actual.json"))
    assert alert is not None
    assert (alert.budget_name, alert.alert_type, alert.period) == ("Test Budget", "ACTUAL", "month")
    assert (alert.budgeted_amount, alert.threshold_amount, alert.amount, alert.currency) == (0.20, 0.16, 0.59, "USD")
    assert alert.account == "017790921725" and alert.timestamp == "2022-09-26T19:20:37.147Z"
    assert alert.fraction == pytest.approx(2.95)


def test_monthly_forecasted_raw_body() -> None:
    alert = parse_budget_event(_fixture("superluminar.sns-http-body.budget-monthly-forecasted.raw.json"))
    assert alert is not None
    assert (alert.alert_type, alert.amount, alert.budgeted_amount, alert.threshold_amount) == ("FORECASTED", 0.95, 0.02, 0.0)


def test_daily_lambda_event() -> None:
    alert = parse_budget_event(_fixture("killswitch.lambda-sns-event.budget-daily-actual.json"))
    assert alert is not None
    assert (alert.budget_name, alert.period, alert.amount, alert.budgeted_amount) == ("killswitch", "day", 1.70, 5.00)


@pytest.mark.parametrize(
    "name",
    [
        "aws-lambda-go.lambda-sns-event.generic.json",
        "awsdocs.sns-http-post.notification.txt",
        "awsdocs.sns-http-post.subscription-confirmation.txt",
        "sre-bot.sns-http-notification.cloudwatch-alarm.json",
    ],
)
def test_other_notifications_are_not_alerts(name: str) -> None:
    assert parse_budget_event(_fixture(name)) is None


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (b"{nope", "not JSON: line 1 column 2"),
        (b"[1, 2]", "expected a JSON object"),
        (b'{"Records": []}', "Lambda event without an SNS record"),
        (b"\xff\xfe", "event is not UTF-8 text"),
        (b"x" * (300 * 1024), "SNS messages are at most 262,144"),
    ],
)
def test_bad_envelopes(raw: bytes, message: str) -> None:
    with pytest.raises(BudgetEventError, match=message):
        parse_budget_event(raw)


def test_budget_notification_missing_a_field() -> None:
    doc = json.loads(_fixture("sre-bot.sns-http-notification.budget-monthly-actual.json"))
    doc["Message"] = doc["Message"].replace("Budgeted Amount: $0.20\n", "")
    with pytest.raises(BudgetEventError, match="budget notification without Budgeted Amount"):
        parse_budget_event(json.dumps(doc))


def test_eighty_seven_percent_degrades_non_core_fleets() -> None:
    policy = load_policy(POLICIES / "eu-prod.yaml").policy  # budget 160,000 USD; thresholds .5 .85 .95 1
    alert = parse_budget_event(_monthly_alert("seedance-eu-prod-monthly", "160,000.00", "139,200.00"))
    assert alert is not None
    r = respond(policy, alert, policy_ref="eu-prod.yaml", stack="eu-prod")
    assert r.fraction == pytest.approx(0.87)
    assert [a.value for a in r.actions] == ["notify", "degrade"]
    eff = {f.name: f for f in r.effective.fleets}
    assert eff["inference"] == policy.fleet("inference")  # the core fleet is untouched
    for name in ("llm-train", "finetune", "batch-embed", "eval"):
        assert (eff[name].capacity.min, eff[name].capacity.desired, eff[name].capacity.max) == (0, 0, 0)
        assert eff[name].off_peak == [] and eff[name].demand_history is None
        assert eff[name].reserved.mode.value == "none"
    paths = {c.path for c in r.changes}
    assert {"fleets[llm-train].capacity.desired", "fleets[llm-train].capacity.max"} <= paths


def test_ninety_six_percent_on_dev_moves_everything_to_spot() -> None:
    policy = load_policy(POLICIES / "dev.yaml").policy  # budget 6,000 USD, environment dev
    alert = parse_budget_event(_monthly_alert("seedance-dev-monthly", "6,000.00", "5,760.00", "FORECASTED"))
    assert alert is not None
    r = respond(policy, alert, policy_ref="dev.yaml", stack="dev")
    assert [a.value for a in r.actions] == ["notify", "degrade", "nonprod-spot-only"]
    for f in r.effective.fleets:
        assert f.spot is not None and f.spot.max_share == 1.0
        assert f.reserved.mode.value == "none"


def test_prod_ignores_nonprod_spot_only_and_freeze_caps_growth() -> None:
    policy = load_policy(POLICIES / "eu-prod.yaml").policy
    alert = parse_budget_event(_monthly_alert("seedance-eu-prod-monthly", "160,000.00", "161,000.00"))
    assert alert is not None
    r = respond(policy, alert, policy_ref="eu-prod.yaml")
    assert "nonprod-spot-only fired, but this is a prod policy: its fleets are unchanged" in r.notes
    inference = r.effective.fleet("inference")
    assert inference.spot == policy.fleet("inference").spot
    # live sizes not read: no maximum is lowered (the policy's desired 6 is not what an autoscaler runs)
    assert inference.capacity == policy.fleet("inference").capacity
    assert any(n.startswith("freeze: live group sizes were not read") for n in r.notes)
    assert r.effective.fleet("batch-embed").off_peak == []  # the rest of freeze applies


def test_freeze_caps_each_fleet_at_its_live_size() -> None:
    policy = load_policy(POLICIES / "eu-prod.yaml").policy  # inference: min 4, desired 6, max 48
    alert = parse_budget_event(_monthly_alert("seedance-eu-prod-monthly", "160,000.00", "161,000.00"))
    assert alert is not None
    live = {"inference": 27, "llm-train": 0, "finetune": 5}  # batch-embed and eval: no group
    r = respond(policy, alert, policy_ref="eu-prod.yaml", live_sizes=live)
    eff = {f.name: f.capacity for f in r.effective.fleets}
    assert (eff["inference"].min, eff["inference"].desired, eff["inference"].max) == (4, 6, 27)
    # llm-train and finetune were disabled by degrade (85%) first: max 0 stays 0
    assert eff["llm-train"].max == 0 and eff["finetune"].max == 0
    assert "freeze: no growth beyond the 27 unit(s) running" in {c.reason.split(" (")[0] for c in r.changes}
    assert not [n for n in r.notes if "has no live group" in n]  # batch-embed and eval: degraded to max 0
    core_only = policy.model_copy(update={"fleets": [policy.fleet("inference")]})
    r = respond(core_only, alert, policy_ref="eu-prod.yaml", live_sizes={"inference": 2})
    assert r.effective.fleet("inference").capacity.max == 4  # never below min
    r = respond(core_only, alert, policy_ref="eu-prod.yaml", live_sizes={})
    assert r.effective.fleet("inference").capacity.max == 48
    assert "freeze: fleet inference has no live group, so its capacity.max is unchanged" in r.notes


def test_below_every_threshold_changes_nothing() -> None:
    policy = load_policy(POLICIES / "eu-prod.yaml").policy
    alert = parse_budget_event(_monthly_alert("seedance-eu-prod-monthly", "160,000.00", "40,000.00"))
    assert alert is not None
    r = respond(policy, alert, policy_ref="eu-prod.yaml")
    assert (r.fired, r.changes, r.effective) == ([], [], policy)


def test_alert_for_another_budget_or_currency() -> None:
    policy = load_policy(POLICIES / "cn-prod.yaml").policy
    alert = parse_budget_event(_monthly_alert("seedance-cn-prod-monthly", "900,000.00", "880,000.00"))
    assert alert is not None
    with pytest.raises(BudgetResponseError, match="the alert is in USD but the policy's budget is in CNY"):
        respond(policy, alert, policy_ref="cn-prod.yaml")
    eu = load_policy(POLICIES / "eu-prod.yaml").policy
    other = parse_budget_event(_monthly_alert("someone-else", "160,000.00", "159,000.00"))
    assert other is not None
    r = respond(eu, other, policy_ref="eu-prod.yaml", stack="eu-prod")
    assert r.changes == [] and r.ignored == r.notes[0] and "not this stack's seedance-eu-prod-monthly" in r.ignored


def test_an_alert_the_stack_ignores_is_ignored_whatever_its_currency(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """Only an alert that is the stack's own and in another currency is an error: one of another
    budget, account or period (the real "Test Budget" alert, in USD, against cn-prod's CNY budget) is
    ignored as any alert of another budget is."""
    from seedance.cli import main

    cn = load_policy(POLICIES / "cn-prod.yaml").policy
    test_budget = parse_budget_event(_fixture("sre-bot.sns-http-notification.budget-monthly-actual.json"))
    daily = parse_budget_event(_fixture("killswitch.lambda-sns-event.budget-daily-actual.json"))
    assert test_budget is not None and daily is not None and test_budget.currency == daily.currency == "USD"
    r = respond(cn, test_budget, policy_ref="cn-prod.yaml", stack="cn-prod")
    assert r.ignored is not None and "alert for budget 'Test Budget', not this stack's seedance-cn-prod-monthly" in r.ignored
    r = respond(cn, test_budget, policy_ref="cn-prod.yaml")  # without --stack: not a Seedance budget
    assert r.ignored is not None and "which is not a Seedance budget" in r.ignored
    r = respond(cn, daily, policy_ref="cn-prod.yaml", stack="cn-prod")
    assert r.ignored is not None and r.ignored.startswith("a per-day budget alert")
    own_elsewhere = parse_budget_event(_monthly_alert("seedance-cn-prod-monthly", "900,000.00", "880,000.00",
                                                      account="111122223333"))
    assert own_elsewhere is not None
    r = respond(cn, own_elsewhere, policy_ref="cn-prod.yaml", stack="cn-prod")
    assert r.ignored is not None and "not the policy's cloud.accountId 444455556666" in r.ignored
    out = tmp_path / "cn-prod.budget.yaml"
    code = main(["budget", "respond", str(POLICIES / "cn-prod.yaml"),
                 str(FIXTURES / "sre-bot.sns-http-notification.budget-monthly-actual.json"), "--stack", "cn-prod",
                 "--out", str(out), "-f", "json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    doc = json.loads(captured.out)
    assert "alert for budget 'Test Budget', not this stack's seedance-cn-prod-monthly" in doc["ignored"]
    assert doc["overlay"] is None and not out.exists()


def test_cli_writes_an_overlay_that_loads_to_the_effective_policy(tmp_path: Path) -> None:
    event = tmp_path / "alert.json"
    event.write_bytes(_monthly_alert("seedance-eu-prod-monthly", "160,000.00", "139,200.00"))
    out = tmp_path / "eu-prod.budget.yaml"
    result = CliRunner().invoke(
        app,
        ["budget", "respond", str(POLICIES / "eu-prod.yaml"), str(event), "--stack", "eu-prod", "--out", str(out), "-f", "json"],
        standalone_mode=False,
        catch_exceptions=False,
    )
    assert result.return_value == 0
    doc = json.loads(result.output)
    assert doc["actions"] == ["notify", "degrade"] and doc["overlay"] == str(out)
    applied = load_policy(out).policy
    expected = respond(
        load_policy(POLICIES / "eu-prod.yaml").policy, parse_budget_event(event.read_bytes()), policy_ref="x"  # type: ignore[arg-type]
    ).effective
    strip = [f.model_copy(update={"demand_history": None}) for f in applied.fleets]
    assert strip == [f.model_copy(update={"demand_history": None}) for f in expected.fleets]
    # a path declared in the base stays pointed at the same file from the overlay's folder
    assert (out.parent / applied.fleet("inference").demand_history).resolve() == REPO / "stacks" / "demand" / "inference.csv"


def test_markdown_incident_report(tmp_path: Path) -> None:
    event = tmp_path / "alert.json"
    event.write_bytes(_monthly_alert("seedance-dev-monthly", "6,000.00", "5,760.00"))
    result = CliRunner().invoke(
        app, ["budget", "respond", str(POLICIES / "dev.yaml"), str(event), "-f", "markdown"], standalone_mode=False
    )
    assert result.return_value == 0
    text = result.output
    assert text.startswith("## 🔴 Cost incident: gpu-platform-dev at 96.0% of its monthly budget (2022-09)")
    assert "| 95% | `nonprod-spot-only` |" in text
    assert "| `fleets[finetune].reserved.mode` | auto | none |" in text


def test_cli_bad_event_exits_1(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{oops")
    result = CliRunner().invoke(app, ["budget", "respond", str(POLICIES / "dev.yaml"), str(bad)], standalone_mode=False)
    assert result.return_value == 1


def test_out_never_overwrites_the_policy_and_bad_paths_are_clean_errors(tmp_path: Path,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    import shutil

    from seedance.cli import main

    policies = tmp_path / "policies"
    shutil.copytree(POLICIES, policies)
    (tmp_path / "demand").symlink_to(REPO / "stacks" / "demand")
    event = tmp_path / "alert.json"
    event.write_bytes(_monthly_alert("seedance-eu-prod-monthly", "160,000.00", "139,200.00"))
    policy = policies / "eu-prod.yaml"
    before = {p.name: p.read_bytes() for p in policies.iterdir()}
    for target in (policy, policies / "base.yaml"):  # the policy itself, or a file it extends: a malformed option
        assert main(["budget", "respond", str(policy), str(event), "--out", str(target)]) == 2
        err = capsys.readouterr().err
        assert "--out" in err and "the overlay must be a new file" in err
    assert main(["budget", "respond", str(policy), str(event), "--out", str(tmp_path)]) == 2  # as plan's and synth's
    err = capsys.readouterr().err
    assert "'--out'" in err and "is a directory" in err
    assert main(["budget", "respond", str(policy), str(event), "--out", str(tmp_path / "no" / "such" / "x.yaml")]) == 1
    err = capsys.readouterr().err
    assert "cannot write" in err and "Traceback" not in err
    assert {p.name: p.read_bytes() for p in policies.iterdir()} == before  # nothing touched
    # any other existing file (here the event itself) is not replaced either, unless it is an earlier overlay
    assert main(["budget", "respond", str(policy), str(event), "--out", str(event)]) == 1
    assert "is not an overlay written by seedance budget" in capsys.readouterr().err
    overlay = tmp_path / "overlay.yaml"
    for _ in range(2):  # a second response replaces the first overlay
        assert main(["budget", "respond", str(policy), str(event), "--out", str(overlay)]) == 0
    # through a symlink: the overlay lands where the link points and its `extends` resolves from there
    (tmp_path / "deep" / "er").mkdir(parents=True)
    link = tmp_path / "link.yaml"
    link.symlink_to(tmp_path / "deep" / "er" / "real.yaml")
    capsys.readouterr()
    assert main(["budget", "respond", str(policy), str(event), "--out", str(link)]) == 0
    assert main(["validate", str(tmp_path / "deep" / "er" / "real.yaml")]) == 0


def test_a_missing_report_template_writes_no_overlay(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    from seedance.cli import main

    monkeypatch.setenv("SEEDANCE_TEMPLATES", str(tmp_path))  # no templates there
    event = tmp_path / "alert.json"
    event.write_bytes(_monthly_alert("seedance-eu-prod-monthly", "160,000.00", "139,200.00"))
    out = tmp_path / "overlay.yaml"
    assert main(["budget", "respond", str(POLICIES / "eu-prod.yaml"), str(event), "--out", str(out), "-f", "markdown"]) == 1
    assert "template cost_incident.md.j2 not found" in capsys.readouterr().err
    assert not out.exists()


def test_a_degraded_stack_synthesises_disabled_groups_and_passes_the_gate(tmp_path: Path) -> None:
    """The redeploy path end to end: alert -> overlay -> the stack pointed at it -> synth and gate."""
    import shutil

    from seedance.synth.project import synthesize_stack

    project = tmp_path / "stacks"
    shutil.copytree(REPO / "stacks", project, ignore=shutil.ignore_patterns("__pycache__"))
    event = tmp_path / "alert.json"
    event.write_bytes(_monthly_alert("seedance-eu-prod-monthly", "160,000.00", "139,200.00"))
    overlay = project / "policies" / "eu-prod.budget.yaml"
    run = CliRunner().invoke(app, ["budget", "respond", str(project / "policies" / "eu-prod.yaml"), str(event),
                                   "--stack", "eu-prod", "--out", str(overlay), "-f", "json"],
                             standalone_mode=False, catch_exceptions=False)
    assert run.return_value == 0 and overlay.is_file()
    cfg = project / "Pulumi.eu-prod.yaml"
    cfg.write_text(cfg.read_text().replace("policies/eu-prod.yaml", "policies/eu-prod.budget.yaml"))

    doc = synthesize_stack("eu-prod", project).document
    policy = load_policy(POLICIES / "eu-prod.yaml").policy
    for fleet in policy.fleets:
        asg = doc.by_name(f"{fleet.name}-asg")
        sizes = (asg.inputs["minSize"], asg.inputs["desiredCapacity"], asg.inputs["maxSize"])
        if fleet.core:
            assert sizes == (fleet.capacity.min, fleet.capacity.desired, fleet.capacity.max)
        else:  # max 0: AWS lowers the live size to it and the Cluster Autoscaler cannot raise it
            assert sizes == (0, 0, 0)
            assert asg.inputs["mixedInstancesPolicy"]["instancesDistribution"]["onDemandBaseCapacity"] == 0
            assert not [r for r in doc.resources if r.name.startswith(f"{fleet.name}-offpeak-")]
        assert asg.ignore_changes == ["desiredCapacity"]  # the group joins gpu-eu-prod

    document = tmp_path / "eu-prod.json"
    document.write_text(doc.dumps())
    gate = CliRunner().invoke(app, ["check", str(document), "--policy", str(overlay), "-f", "json"],
                              standalone_mode=False, catch_exceptions=False)
    decision = json.loads(gate.output)
    assert (gate.return_value, decision["decision"]) == (0, "pass")


def test_an_alert_acts_only_on_the_stacks_own_budget_and_account() -> None:
    eu = load_policy(POLICIES / "eu-prod.yaml").policy  # cloud.accountId 111122223333
    # without --stack, a budget that is not a Seedance budget is ignored (its $0.20 would read as 87%)
    team = parse_budget_event(_monthly_alert("Team X sandbox", "0.20", "139,200.00", account="111122223333"))
    assert team is not None
    r = respond(eu, team, policy_ref="eu-prod.yaml")
    assert r.ignored and "not a Seedance budget" in r.ignored and r.changes == [] and r.fired == []
    # the stack's budget name, but sent from another AWS account
    foreign = parse_budget_event(_monthly_alert("seedance-eu-prod-monthly", "160,000.00", "139,200.00",
                                                account="999999999999"))
    assert foreign is not None
    r = respond(eu, foreign, policy_ref="eu-prod.yaml", stack="eu-prod")
    assert r.ignored == "alert from AWS account 999999999999, not the policy's cloud.accountId 111122223333"
    assert r.changes == []
    # the same alert from the policy's own account acts
    own = parse_budget_event(_monthly_alert("seedance-eu-prod-monthly", "160,000.00", "139,200.00"))
    assert own is not None and respond(eu, own, policy_ref="eu-prod.yaml").changes


def test_ignored_alert_reports_say_ignored(tmp_path: Path) -> None:
    event = tmp_path / "alert.json"
    event.write_bytes(_monthly_alert("seedance-dev-monthly", "6,000.00", "9,000.00", account="999999999999"))
    md = CliRunner().invoke(app, ["budget", "respond", str(POLICIES / "dev.yaml"), str(event), "-f", "markdown"],
                            standalone_mode=False)
    assert md.return_value == 0
    assert md.output.startswith("## ⚪ Budget alert ignored: gpu-platform-dev") and "at 0%" not in md.output
    js = CliRunner().invoke(app, ["budget", "respond", str(POLICIES / "dev.yaml"), str(event), "-f", "json"],
                            standalone_mode=False)
    assert "999999999999" in json.loads(js.output)["ignored"]


def test_nonprod_spot_only_stays_within_the_sla_tier_cap() -> None:
    # a gold fleet in a non-prod policy: the gate caps gold at 50% spot above the base, so the
    # overlay must not ask for 100% (it would be blocked at the very redeploy it exists for)
    dev = load_policy(POLICIES / "dev.yaml").policy
    inference = dev.fleet("inference")
    assert inference.spot is not None
    gold = inference.model_copy(update={"sla": SlaTier.GOLD, "spot": inference.spot.model_copy(update={"max_share": 0.2})})
    policy = dev.model_copy(update={"fleets": [gold if f.name == "inference" else f for f in dev.fleets]})
    alert = parse_budget_event(_monthly_alert("seedance-dev-monthly", "6,000.00", "5,760.00"))
    assert alert is not None
    r = respond(policy, alert, policy_ref="dev.yaml", stack="dev")
    shares = {f.name: f.spot.max_share for f in r.effective.fleets if f.spot}
    assert shares["inference"] == 0.5 and all(v == 1.0 for k, v in shares.items() if k != "inference")
    patch = next(p for p in r.overlay["fleets"] if p["name"] == "inference")
    assert patch["spot"] == {"maxShare": 0.5}


def test_sla_spot_caps_match_the_gates_default_setting() -> None:
    import regorus

    engine = regorus.Engine()
    engine.add_policy_from_file(str(REPO / "policies" / "lib" / "frameworks.rego"))
    caps = engine.eval_rule("data.lib.frameworks.default_settings")["sla_spot_cap"]
    assert {SlaTier(k): float(v) for k, v in caps.items()} == SLA_SPOT_CAP


def test_percentages_round_down_so_they_never_claim_a_threshold() -> None:
    assert (percent(0.9499), percent(0.95), percent(0.849, 0), percent(1.5)) == ("94.9%", "95.0%", "84%", "150.0%")
    policy = load_policy(POLICIES / "dev.yaml").policy
    alert = parse_budget_event(_monthly_alert("seedance-dev-monthly", "6,000.00", "5,699.40"))  # 94.99%
    assert alert is not None
    r = respond(policy, alert, policy_ref="dev.yaml", stack="dev")
    assert ThresholdAction.NONPROD_SPOT_ONLY not in r.actions
    assert all("(94.9% of budget)" in c.reason for c in r.changes)


def test_budget_name_cannot_inject_markdown(tmp_path: Path) -> None:
    policy = load_policy(POLICIES / "dev.yaml").policy
    alert = parse_budget_event(_monthly_alert("x` <img src=y> [z](http://e)", "6,000.00", "5,760.00",
                                              account=policy.cloud.account_id))
    assert alert is not None
    md = render_markdown(respond(policy, alert, policy_ref="dev.yaml"))
    # in the code span the backtick that would close it early is gone (the rest renders literally) ...
    assert "budget `x' <img src=y> [z](http://e)`" in md
    # ... and in the text every character Markdown or HTML acts on is escaped
    assert "\\<img src=y\\> \\[z\\](http:&#8203;//e)" in md


def _stamped_run(tmp_path: Path, event: Path, out: Path) -> Any:
    return CliRunner().invoke(app, ["budget", "respond", str(POLICIES / "dev.yaml"), str(event), "--stack", "dev",
                                    "--out", str(out), "-f", "json"], standalone_mode=False, catch_exceptions=False)


def test_a_later_weaker_alert_of_the_same_month_keeps_the_stronger_overlay(tmp_path: Path) -> None:
    # AWS sends ACTUAL and FORECASTED alerts for every threshold, and SNS retries late: the order
    # they arrive in must not weaken the response in place
    out = tmp_path / "dev.budget.yaml"
    strong, weak, next_month = (tmp_path / n for n in ("strong.json", "weak.json", "next.json"))
    strong.write_bytes(_monthly_alert("seedance-dev-monthly", "6,000.00", "9,000.00", "FORECASTED"))  # 150%
    weak.write_bytes(_monthly_alert("seedance-dev-monthly", "6,000.00", "5,160.00"))  # 86%
    doc = json.loads(_monthly_alert("seedance-dev-monthly", "6,000.00", "5,160.00"))
    doc["Timestamp"] = "2022-10-03T08:00:00.000Z"  # the fixture was sent in September 2022
    next_month.write_text(json.dumps(doc))

    assert _stamped_run(tmp_path, strong, out).return_value == 0
    first = out.read_text()
    assert "FORECASTED, 150.0% of budget" in first and "maxShare: 1.0" in first
    kept = _stamped_run(tmp_path, weak, out)
    assert kept.return_value == 0 and out.read_text() == first
    report = json.loads(kept.output)
    assert report["overlay"] is None and any(n.startswith(f"kept {out}") for n in report["notes"])
    assert report["changes"] == []  # nothing for a pipeline to act on
    # a new budget month starts over: its alert replaces last month's overlay
    assert _stamped_run(tmp_path, next_month, out).return_value == 0
    assert "ACTUAL, 86.0% of budget" in out.read_text() and "maxShare: 1.0" not in out.read_text()
    # an alert below every threshold leaves the overlay and says so
    low = tmp_path / "low.json"
    doc["Message"] = doc["Message"].replace("$5,160.00", "$600.00")
    low.write_text(json.dumps(doc))
    before = out.read_text()
    quiet = _stamped_run(tmp_path, low, out)
    assert any(n.startswith(f"kept {out}") for n in json.loads(quiet.output)["notes"]) and out.read_text() == before
    # the next month's budget starts over: its first alert, though it fires nothing, lifts the response
    doc["Timestamp"] = "2022-11-02T08:00:00.000Z"
    low.write_text(json.dumps(doc))
    later = _stamped_run(tmp_path, low, out)
    assert any(n.startswith("a new budget month (2022-11): the response of 2022-10 is lifted")
               for n in json.loads(later.output)["notes"])
    lifted = load_policy(out).policy
    assert lifted.fleets == load_policy(POLICIES / "dev.yaml").policy.fleets and "fleets:" not in out.read_text()


@pytest.mark.parametrize(("raw", "message"), [
    (b"", "event is empty"),
    (b"  \n", "event is empty"),
    (json.dumps({"Records": [{"Sns": {"Message": "a"}}, {"Sns": {"Message": "b"}}]}).encode(),
     "Lambda event with 2 records; SNS delivers one message per invocation"),
])
def test_more_bad_envelopes(raw: bytes, message: str) -> None:
    with pytest.raises(BudgetEventError, match=message):
        parse_budget_event(raw)


def test_an_amount_in_an_unknown_currency_is_named() -> None:
    doc = json.loads(_fixture("sre-bot.sns-http-notification.budget-monthly-actual.json"))
    doc["Message"] = doc["Message"].replace("Budgeted Amount: $0.20", "Budgeted Amount: €6,000.00")
    with pytest.raises(BudgetEventError, match="cannot read the amount '€6,000.00' in 'Budgeted Amount'"):
        parse_budget_event(json.dumps(doc))


def test_event_from_stdin_and_json_for_a_non_budget_event(tmp_path: Path) -> None:
    raw = _fixture("sre-bot.sns-http-notification.cloudwatch-alarm.json")
    result = CliRunner().invoke(app, ["budget", "respond", str(POLICIES / "dev.yaml"), "-", "-f", "json"],
                                input=raw, standalone_mode=False)
    assert result.return_value == 0
    doc = json.loads(result.stdout)
    assert doc["budgetAlert"] is False and doc["actions"] == [] and doc["changes"] == [] and doc["overlay"] is None
    # every JSON answer has the same keys (null or empty where they do not apply)
    event = tmp_path / "alert.json"
    event.write_bytes(_monthly_alert("seedance-dev-monthly", "6,000.00", "5,760.00"))
    alert_doc = json.loads(_respond(str(POLICIES / "dev.yaml"), str(event), "-f", "json")[1])
    assert set(doc) == set(alert_doc) and alert_doc["budgetAlert"] is True and doc["stack"] is None


def test_a_hand_edited_stamp_is_read_as_none() -> None:
    from seedance.budget.response import OverlayStamp

    good = OverlayStamp(1.5, "ACTUAL", "2026-12")
    assert OverlayStamp.parse(good.comment()) == good
    assert "fraction=1.5 " in good.comment()
    assert OverlayStamp.parse(good.comment().replace("fraction=1.5 ", "fraction=1.0.1 ")) is None
    assert OverlayStamp.parse("# Budget response to x\nfleets: []\n") is None


def test_a_late_alert_of_an_earlier_month_changes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "dev.budget.yaml"
    october = json.loads(_monthly_alert("seedance-dev-monthly", "6,000.00", "9,000.00"))
    october["Timestamp"] = "2022-10-02T08:00:00.000Z"
    september = json.loads(_monthly_alert("seedance-dev-monthly", "6,000.00", "600.00"))
    september["Timestamp"] = "2022-09-29T23:00:00.000Z"  # retried by SNS, delivered after October's
    first, late = tmp_path / "oct.json", tmp_path / "sep.json"
    first.write_text(json.dumps(october))
    late.write_text(json.dumps(september))
    assert _stamped_run(tmp_path, first, out).return_value == 0
    before = out.read_text()
    result = _stamped_run(tmp_path, late, out)
    assert out.read_text() == before
    assert any("a later month than this alert's (2022-09)" in n for n in json.loads(result.output)["notes"])
    september["Message"] = september["Message"].replace("$600.00", "$5,900.00")  # even one that fires actions
    late.write_text(json.dumps(september))
    _stamped_run(tmp_path, late, out)
    assert out.read_text() == before


# ---------------------------------------------------------------- the cost-incident report


def _respond(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["budget", "respond", *args], standalone_mode=False, catch_exceptions=False)
    return result.return_value, result.output


def _policy_with_thresholds(tmp_path: Path, thresholds: str) -> Path:
    p = tmp_path / "dev-th.yaml"
    p.write_text(f"apiVersion: seedance.io/v1\nkind: CostPolicy\nextends: {POLICIES / 'dev.yaml'}\n"
                 f"budget:\n  monthlyAmount: 6000\n  currency: USD\n  thresholds: {thresholds}\n", encoding="utf-8")
    return p


def test_thresholds_never_read_above_the_spend_that_crossed_them(tmp_path: Path) -> None:
    assert (threshold_label(0.995), threshold_label(0.85), threshold_label(1.0), threshold_label(0.9953)) == \
        ("99.5%", "85%", "100%", "99.53%")
    policy = _policy_with_thresholds(tmp_path, "[{at: 0.5, action: notify}, {at: 0.995, action: degrade}]")
    event = tmp_path / "alert.json"
    event.write_bytes(_monthly_alert("seedance-dev-monthly", "6,000.00", "5,972.00"))  # 99.53%
    code, md = _respond(str(policy), str(event), "-f", "markdown")
    assert code == 0 and "at 99.5% of its monthly budget" in md and "| 99.5% | `degrade` |" in md and "| 100% |" not in md
    code, text = _respond(str(policy), str(event))
    assert "= 99.5% of the monthly budget" in text and "threshold 99.5% crossed: degrade" in text
    # a threshold with two decimals gets a headline with two
    precise = _policy_with_thresholds(tmp_path, "[{at: 0.5, action: notify}, {at: 0.9953, action: degrade}]")
    r = respond(load_policy(precise).policy, parse_budget_event(event.read_bytes()), policy_ref="x")  # type: ignore[arg-type]
    assert spend_label(r) == "99.53%" and "| 99.53% | `degrade` |" in render_markdown(r)


def test_the_report_says_how_to_revert_and_which_month_it_answers(tmp_path: Path) -> None:
    event = tmp_path / "alert.json"
    event.write_bytes(_monthly_alert("seedance-dev-monthly", "6,000.00", "5,760.00"))
    out = tmp_path / "dev.budget.yaml"
    policy = POLICIES / "dev.yaml"
    code, md = _respond(str(policy), str(event), "--stack", "dev", "--out", str(out), "-f", "markdown")
    assert code == 0 and out.is_file() and "month=2022-09" in out.read_text()
    assert md.startswith("## 🔴 Cost incident: gpu-platform-dev at 96.0% of its monthly budget (2022-09)")
    assert f"Redeploy from the overlay `{out}` (budget month 2022-09)" in md
    # stacks/Pulumi.dev.yaml deploys the policy, not the overlay: the report says how to point it there
    stack_file = REPO / "stacks" / "Pulumi.dev.yaml"  # paths in reports are absolute (symlinks kept)
    assert f"stack dev still deploys `policies/dev.yaml` (`seedance:policy` in `{stack_file}`)" in md
    here = os.path.relpath(out, REPO / "stacks")
    assert f"`pulumi config set seedance:policy {here} --stack dev --cwd stacks`; commit both" in md
    assert f"**To revert:** stack dev does not deploy the overlay, so nothing is in force; delete `{out}`" in md
    # JSON carries the month and the stack's wiring; text says both too
    code, js = _respond(str(policy), str(event), "--stack", "dev", "--out", str(out), "-f", "json")
    doc = json.loads(js)
    assert doc["month"] == "2022-09" and doc["stack"]["deploys"] == "policy"
    assert doc["stack"]["seedancePolicy"] == "policies/dev.yaml" and doc["stack"]["file"] == str(stack_file)
    assert doc["stack"]["pointAtOverlay"] == f"pulumi config set seedance:policy {here} --stack dev --cwd stacks"
    assert doc["stack"]["pointBack"] == "pulumi config set seedance:policy policies/dev.yaml --stack dev --cwd stacks"
    code, text = _respond(str(policy), str(event), "--stack", "dev", "--out", str(out))
    assert "budget month 2022-09" in text and "so pulumi up does not apply the overlay until it names it" in text
    # a weaker alert keeps the overlay: still how to revert it
    weak = tmp_path / "weak.json"
    weak.write_bytes(_monthly_alert("seedance-dev-monthly", "6,000.00", "3,100.00"))
    code, md = _respond(str(policy), str(weak), "--stack", "dev", "--out", str(out), "-f", "markdown")
    assert "Redeploy from" not in md and f"delete `{out}` to drop the response" in md
    # without --stack the stack is unknown: point it at the overlay, and back before deleting it
    code, text = _respond(str(policy), str(event), "--out", str(out))
    assert "point the stack's seedance:policy at it" in text and "once no stack names it" in text
    assert json.loads(_respond(str(policy), str(event), "--out", str(out), "-f", "json")[1])["stack"] is None
    # without --out nothing is written, and the report says so
    code, md = _respond(str(policy), str(event), "--stack", "dev", "-f", "markdown")
    assert "No overlay was written" in md and "To revert" not in md

def _march_and_april(folder: Path, march_spend: str) -> None:
    """march.json (an alert at ``march_spend`` of 160,000 on 14 March 2026) and april.json (1,000 on 2
    April: a new budget month) in ``folder``."""
    for name, spend, stamp in (("march", march_spend, "2026-03-14"), ("april", "1,000.00", "2026-04-02")):
        alert = json.loads(_monthly_alert("seedance-eu-prod-monthly", "160,000.00", spend))
        alert["Timestamp"] = f"{stamp}T10:00:00.000Z"
        (folder / f"{name}.json").write_text(json.dumps(alert))


def test_a_new_month_lists_what_lifting_the_response_restores(tmp_path: Path) -> None:
    project = tmp_path / "policies"
    shutil.copytree(POLICIES, project)
    (tmp_path / "demand").symlink_to(POLICIES.parent / "demand")
    policy, out = project / "eu-prod.yaml", tmp_path / "eu-prod.budget.yaml"
    _march_and_april(tmp_path, "150,000.00")
    code, _ = _respond(str(policy), str(tmp_path / "march.json"), "--stack", "eu-prod", "--out", str(out))
    assert code == 0 and "fleets:" in out.read_text()
    degraded = out.read_text()
    code, md = _respond(str(policy), str(tmp_path / "april.json"), "--stack", "eu-prod", "--out", str(out), "-f", "markdown")
    assert code == 0 and "fleets:" not in out.read_text()
    assert "No fleet changes" not in md and "### Restored: a new budget month lifts the earlier response" in md
    assert "| `fleets[llm-train].capacity.max` | 0 | 6 |" in md
    assert f"Redeploy from the overlay `{out}` (budget month 2026-04)" in md  # the overlay was rewritten
    assert "demandHistory` | — | ../demand/inference.csv" not in md  # a path rebased to the overlay's folder is the same file
    out.write_text(degraded)
    code, js = _respond(str(policy), str(tmp_path / "april.json"), "--stack", "eu-prod", "--out", str(out), "-f", "json")
    doc = json.loads(js)
    assert doc["changes"] == [] and doc["overlay"] == str(out) and doc["month"] == "2026-04"
    assert {"path": "fleets[llm-train].capacity.max", "before": 0, "after": 6} in \
        [{k: c[k] for k in ("path", "before", "after")} for c in doc["restored"]]


def test_alert_type_is_checked_and_escaped(tmp_path: Path) -> None:
    raw = _monthly_alert("seedance-dev-monthly", "6,000.00", "5,760.00").decode()
    evil = raw.replace("Alert Type: ACTUAL", "Alert Type: [click](https://evil.example)<img src=x>")
    with pytest.raises(BudgetEventError, match="unknown Alert Type '\\[click\\].*': expected ACTUAL or FORECASTED"):
        parse_budget_event(evil)
    event = tmp_path / "evil.json"
    event.write_text(evil)
    result = CliRunner().invoke(app, ["budget", "respond", str(POLICIES / "dev.yaml"), str(event), "-f", "markdown"],
                                standalone_mode=False)
    assert result.return_value == 1 and "](https://" not in result.stdout
    # even an alert made some other way cannot inject: the template escapes the type
    from dataclasses import replace

    alert = parse_budget_event(raw)
    assert alert is not None
    policy = load_policy(POLICIES / "dev.yaml").policy
    md = render_markdown(respond(policy, replace(alert, alert_type="[x](http://e)<b>"), policy_ref="dev.yaml"))
    assert "\\[x\\](http:&#8203;//e)\\<b\\>" in md and "[x](http" not in md


def test_values_read_as_in_the_policy_and_notes_are_paragraphs(tmp_path: Path) -> None:
    assert (value_label(None), value_label(["0 22 * * *"]), value_label([]), value_label(2), value_label(True)) == \
        ("—", '["0 22 * * *"]', "[]", "2", "true")
    event = tmp_path / "alert.json"
    event.write_bytes(_monthly_alert("seedance-eu-prod-monthly", "160,000.00", "170,000.00"))
    code, md = _respond(str(POLICIES / "eu-prod.yaml"), str(event), "-f", "markdown")
    assert code == 0 and "| None |" not in md and "['" not in md
    assert "| `fleets[llm-train].demandHistory` | ../demand/training.csv | — |" in md
    notes = [line for line in md.splitlines() if line.startswith("> ")]
    assert len(notes) >= 2 and "\n\n".join(notes) in md  # a blank line between notes: one paragraph each


def test_markdown_for_a_message_that_is_not_a_budget_alert() -> None:
    raw = _fixture("sre-bot.sns-http-notification.cloudwatch-alarm.json")
    result = CliRunner().invoke(app, ["budget", "respond", str(POLICIES / "dev.yaml"), "-", "-f", "markdown"],
                                input=raw, standalone_mode=False)
    assert result.return_value == 0
    assert result.stdout.startswith("## ⚪ Not a budget alert") and "nothing to do" in result.stdout
    assert FIXTURES.is_dir()


def test_cli_writes_no_overlay_that_would_not_load(tmp_path: Path) -> None:
    """A policy at the end of an extends chain of the longest length: the overlay extending it would
    make the chain one file too long, so the pipeline could not load it. Nothing is written."""
    from seedance.policy.overlay import MAX_CHAIN

    base = load_policy(POLICIES / "eu-prod.yaml")
    wrappers = MAX_CHAIN - len(base.chain)
    (tmp_path / "c1.yaml").write_text(f"extends: {POLICIES / 'eu-prod.yaml'}\n")
    for i in range(2, wrappers + 1):
        (tmp_path / f"c{i}.yaml").write_text(f"extends: c{i - 1}.yaml\n")
    top = tmp_path / f"c{wrappers}.yaml"
    assert len(load_policy(top).chain) == MAX_CHAIN  # the chain itself loads
    event = tmp_path / "alert.json"
    event.write_bytes(_monthly_alert("seedance-eu-prod-monthly", "160,000.00", "139,200.00"))
    out = tmp_path / "eu-prod.budget.yaml"
    result = CliRunner().invoke(app, ["budget", "respond", str(top), str(event), "--stack", "eu-prod", "--out", str(out)],
                                standalone_mode=False, catch_exceptions=False)
    assert result.return_value == 1
    assert "the overlay would not load, so nothing was written" in result.output
    assert "more than" in result.output and "extends chain" in result.output
    assert not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([*(f"c{i}.yaml" for i in range(1, wrappers + 1)), "alert.json"])


def test_a_notify_only_response_says_it_wrote_no_overlay(tmp_path: Path) -> None:
    event = tmp_path / "alert.json"
    event.write_bytes(_monthly_alert("seedance-eu-prod-monthly", "160,000.00", "81,000.00"))  # 50.6%: notify only
    out = tmp_path / "eu-prod.budget.yaml"
    result = CliRunner().invoke(app, ["budget", "respond", str(POLICIES / "eu-prod.yaml"), str(event), "--stack", "eu-prod",
                                      "--out", str(out)], standalone_mode=False, catch_exceptions=False)
    assert result.return_value == 0
    assert "no overlay written: no threshold action changes the policy" in result.output and not out.exists()


def test_the_fraction_never_reads_at_a_threshold_that_did_not_fire(tmp_path: Path) -> None:
    # 135,999.95 of 160,000 is 0.84999969: 0.85 (degrade) has not fired, so no figure may read 0.85
    event = tmp_path / "alert.json"
    event.write_bytes(_monthly_alert("seedance-eu-prod-monthly", "160,000.00", "135,999.95"))
    code, raw = _respond(str(POLICIES / "eu-prod.yaml"), str(event), "--stack", "eu-prod", "-f", "json")
    doc = json.loads(raw)
    assert code == 0 and [f["at"] for f in doc["fired"]] == [0.5] and doc["fraction"] == 0.849999
    code, md = _respond(str(POLICIES / "eu-prod.yaml"), str(event), "--stack", "eu-prod", "-f", "markdown")
    assert code == 0 and "84.9%" in md and "85.0%" not in md
    # a threshold that fired is never shown above the figure: 136,000 / 160,000 divides to 0.85
    event.write_bytes(_monthly_alert("seedance-eu-prod-monthly", "160,000.00", "136,000.00"))
    doc = json.loads(_respond(str(POLICIES / "eu-prod.yaml"), str(event), "--stack", "eu-prod", "-f", "json")[1])
    assert [f["at"] for f in doc["fired"]] == [0.5, 0.85] and doc["fraction"] == 0.85
    assert (fraction_down(0.8499999999999999), fraction_down(0.8499996), fraction_down(1.5), fraction_down(2.0000004)) == \
        (0.85, 0.849999, 1.5, 2.0)


def test_the_overlay_stamp_reads_back_the_thresholds_that_fired(tmp_path: Path) -> None:
    # a stamp that rounds 0.8499999 up to 0.850000 reads back as a degrade that never fired: a later
    # alert that crossed the same thresholds would be called weaker ("an earlier alert crossed more")
    for fraction in (0.8499999, 0.84999996, 0.8499999999999999, 0.85, 1e-7, 12345.678):
        stamp = OverlayStamp(fraction, "ACTUAL", "2022-09")
        back = OverlayStamp.parse("# x\n" + stamp.comment())
        assert back == stamp and "e" not in stamp.comment().split("fraction=")[1].split()[0]
    policy = load_policy(POLICIES / "eu-prod.yaml").policy
    below = OverlayStamp.parse(OverlayStamp(0.8499999, "ACTUAL", "2022-09").comment())
    assert below is not None
    alert = parse_budget_event(_monthly_alert("seedance-eu-prod-monthly", "160,000.00", "134,400.00"))
    assert alert is not None
    same = respond(policy, alert, policy_ref="eu-prod.yaml", stack="eu-prod")  # 84%: fires 0.5, as 84.99999% did
    assert not weaker_than(below, same, "2022-09", policy)


def test_a_demand_history_written_relative_to_another_folder_is_not_restored(tmp_path: Path,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    # the policy given relative to the working directory, the overlay in another folder: the same
    # demand file reads ../demand/inference.csv in one and ../../…/demand/inference.csv in the other
    project = tmp_path / "repo" / "stacks"
    shutil.copytree(POLICIES, project / "policies")
    (project / "demand").symlink_to(POLICIES.parent / "demand")
    monkeypatch.chdir(project.parent)
    out = tmp_path / "elsewhere" / "x" / "eu-prod.budget.yaml"
    out.parent.mkdir(parents=True)
    _march_and_april(tmp_path, "152,000.00")
    policy = "stacks/policies/eu-prod.yaml"
    code, _ = _respond(policy, str(tmp_path / "march.json"), "--stack", "eu-prod", "--out", str(out))
    assert code == 0
    # the inherited path is rebased to the overlay's folder: another text for the same file
    rebased = {f.name: f.demand_history for f in load_policy(out).policy.fleets}["inference"]
    assert rebased != "../demand/inference.csv" and rebased.endswith("demand/inference.csv")
    code, js = _respond(policy, str(tmp_path / "april.json"), "--stack", "eu-prod", "--out", str(out), "-f", "json")
    restored = {c["path"]: c for c in json.loads(js)["restored"]}
    assert "fleets[llm-train].capacity.max" in restored  # the response is lifted ...
    # ... but a fleet whose demand file the overlay only re-states gives nothing back
    kept = [p for p, c in restored.items() if p.endswith(".demandHistory") and c["before"] and c["after"]]
    assert kept == []


# ---------------------------------------------------------------- freeze with live sizes, planned


def _freeze_project(tmp_path: Path, fleets: str, *, cluster: bool) -> tuple[Path, Path]:
    """A project whose stack ``frz`` deploys dev.yaml with ``fleets`` and a freeze at 100%, with or
    without a cluster; and a 101% alert for it."""
    project = tmp_path / "project"
    project.mkdir()
    policy = project / "frz.yaml"
    policy.write_text(f"extends: {POLICIES / 'dev.yaml'}\nmetadata: {{name: frz}}\n"
                      f"budget:\n  thresholds: [{{at: 1.0, action: freeze}}]\nfleets:\n{fleets}", encoding="utf-8")
    (project / "Pulumi.yaml").write_text("name: frz\nruntime: python\n", encoding="utf-8")
    (project / "__main__.py").write_text("", encoding="utf-8")
    (project / "Pulumi.frz.yaml").write_text("config:\n  aws:region: us-east-1\n  seedance:policy: frz.yaml\n"
                                             + ("  seedance:clusterName: gpu\n" if cluster else ""), encoding="utf-8")
    alert = tmp_path / "alert.json"
    alert.write_bytes(_monthly_alert("seedance-frz-monthly", "6,000.00", "6,060.00", account="777788889999"))
    return project, alert


def _freeze(monkeypatch: pytest.MonkeyPatch, project: Path, alert: Path, groups: dict[str, Any]) -> tuple[int, dict]:
    import seedance.commands.budget as command

    monkeypatch.setattr(command, "_live_groups", lambda loaded, stack: groups)  # the groups AWS would describe
    code, raw = _respond(str(project / "frz.yaml"), str(alert), "--stack", "frz", "--project-dir", str(project),
                         "--live-sizes", "-f", "json")
    return code, json.loads(raw[raw.index("{"):])  # after the live sizes line (stderr, mixed in by the runner)


def _caps(doc: dict) -> dict[str, Any]:
    return {c["path"]: c["after"] for c in doc["changes"] if c["path"].endswith(".capacity.max")}


def test_a_freeze_caps_at_live_sizes_when_nothing_else_changes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from seedance.budget.live import LiveGroup

    # no reservations to keep, no windows to drop: the live sizes are the freeze's only change
    fleets = ("  - {name: finetune, reserved: {mode: none}}\n  - {name: inference, reserved: {mode: none}}\n"
              "  - {name: batch-embed, offPeak: []}\n")
    project, alert = _freeze_project(tmp_path, fleets, cluster=True)
    groups = {n: LiveGroup(f"{n}-asg", 1, False) for n in ("finetune", "inference", "batch-embed")}
    code, doc = _freeze(monkeypatch, project, alert, groups)
    assert code == 0 and _caps(doc) == {"fleets[finetune].capacity.max": 1, "fleets[inference].capacity.max": 1,
                                        "fleets[batch-embed].capacity.max": 1}


def test_a_freeze_caps_in_whole_instances(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from seedance.budget.live import LiveGroup

    # 2 x A10G per unit: g5.12xlarge holds 2 units; a group scaled to nothing keeps room for one instance
    fleets = "  - name: finetune\n    gpu: {model: A10G, count: 2, memoryGib: 24}\n    capacity: {min: 0, desired: 3, max: 8}\n"
    project, alert = _freeze_project(tmp_path, fleets, cluster=True)
    groups = {"finetune": LiveGroup("finetune-asg", 0, False, ("g5.12xlarge",)),
              "inference": LiveGroup("inference-asg", 1, False), "batch-embed": LiveGroup("batch-embed-asg", 1, False)}
    code, doc = _freeze(monkeypatch, project, alert, groups)
    assert code == 0 and _caps(doc)["fleets[finetune].capacity.max"] == 2
    # the overlay plans (the fleet keeps an instance type), so its projection is given
    assert doc["projection"] is not None and not any("could not be planned" in n for n in doc["notes"])


def test_a_freeze_without_a_cluster_never_caps_below_the_desired_size(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from seedance.budget.live import LiveGroup

    # read inside a nightly window that lowers batch-embed from 4 to 1: the group runs 4 by day
    fleets = ("  - name: batch-embed\n    capacity: {min: 0, desired: 4, max: 4}\n"
              "    offPeak: [{cron: \"0 22 * * *\", hours: 8, desired: 1}]\n")
    project, alert = _freeze_project(tmp_path, fleets, cluster=False)
    groups = {n: LiveGroup(f"{n}-asg", 1, True) for n in ("finetune", "inference", "batch-embed")}
    code, doc = _freeze(monkeypatch, project, alert, groups)
    assert code == 0 and "fleets[batch-embed].capacity.max" not in _caps(doc)
    assert not [c for c in doc["changes"] if c["path"] == "fleets[batch-embed].offPeak"]  # the lowering window stays


def test_live_sizes_count_units_by_the_group_s_own_types() -> None:
    from seedance.budget.live import LiveGroup, live_units
    from seedance.planner.plan import FleetPlan, InstanceChoice, Plan

    def fleet(name: str, *types: tuple[str, int]) -> FleetPlan:
        return FleetPlan(name, [InstanceChoice(t, w, 1.0, None, "") for t, w in types], 0, [], 0, 0.0,
                         "price-capacity-optimized", None, None, 0, 8, 1, {})

    plan = Plan("p", "dev", "us-east-1", "USD", [fleet("a", ("g5.12xlarge", 2), ("g5.48xlarge", 4)),
                                                  fleet("b", ("g5.xlarge", 1)), fleet("c", ("g5.xlarge", 1))], 0, 0, 0)
    groups = {"a": LiveGroup("a", 3, False, ("g5.12xlarge",)), "b": LiveGroup("b", 3, False, ("g5.12xlarge",)),
              "c": LiveGroup("c", 3, True, ("g5.xlarge",))}
    # a's own type holds 2 units; b runs a type its plan no longer lists: not countable; c is weighted
    assert live_units(groups, plan) == {"a": 6, "b": None, "c": 3}


def test_a_response_does_not_wait_on_the_planner(tmp_path: Path) -> None:
    # finetune needs 2 x A10G per unit but may run 1: no type fits, the policy cannot be planned;
    # degrade and freeze still apply, and the report says why no projection is given
    policy = tmp_path / "stuck.yaml"
    policy.write_text(f"extends: {POLICIES / 'dev.yaml'}\nbudget:\n  thresholds: [{{at: 0.85, action: degrade}}]\n"
                      "fleets:\n  - name: finetune\n    gpu: {model: A10G, count: 2, memoryGib: 24}\n"
                      "    capacity: {min: 0, desired: 1, max: 1}\n", encoding="utf-8")
    event = tmp_path / "alert.json"
    event.write_bytes(_monthly_alert("seedance-dev-monthly", "6,000.00", "5,400.00"))
    code, raw = _respond(str(policy), str(event), "--stack", "dev", "-f", "json")
    doc = json.loads(raw)
    assert code == 0 and any(c["path"].endswith(".capacity.max") for c in doc["changes"])
    assert any("could not be planned" in n for n in doc["notes"]) and doc.get("projection") is None


def test_a_group_that_cannot_be_counted_keeps_the_cap_an_earlier_freeze_set() -> None:
    # what runs is unknown, so no cap is made from it; but a cap the month's first freeze set is kept:
    # dropping it would let the fleet grow again within the month
    policy = load_policy(POLICIES / "dev.yaml").policy
    frozen = policy.model_copy(update={"budget": policy.budget.model_copy(update={"thresholds": [
        t.model_copy(update={"at": 1.0, "action": ThresholdAction.FREEZE}) for t in policy.budget.thresholds[:1]]})})
    alert = parse_budget_event(_monthly_alert("seedance-dev-monthly", "6,000.00", "6,060.00"))
    assert alert is not None
    r = respond(frozen, alert, policy_ref="dev.yaml", stack="dev", live_sizes={"inference": None, "finetune": 1},
                earlier_caps={"inference": 1, "finetune": 1})
    caps = {c.path: c.after for c in r.changes if c.path.endswith(".capacity.max")}
    assert caps["fleets[inference].capacity.max"] == 1 and caps["fleets[finetune].capacity.max"] == 1
    assert any("fleet inference's group cannot be counted" in n and
               n.endswith("so its capacity.max is unchanged but for the cap an earlier freeze of this month set")
               for n in r.notes)
    # without an earlier cap a group that cannot be counted keeps its maximum
    r = respond(frozen, alert, policy_ref="dev.yaml", stack="dev", live_sizes={"inference": None})
    assert not any(c.path == "fleets[inference].capacity.max" for c in r.changes)
    assert any(n.endswith("fleet inference's group cannot be counted in the policy's units (it runs instance types the "
                          "plan does not list, or types of different weights, or the policy could not be planned), so "
                          "its capacity.max is unchanged") for n in r.notes)
    # without live sizes an earlier cap is kept, and the note says so
    r = respond(frozen, alert, policy_ref="dev.yaml", stack="dev", earlier_caps={"inference": 1})
    assert {c.path: c.after for c in r.changes}["fleets[inference].capacity.max"] == 1
    assert any("no capacity.max was lowered but to the caps an earlier freeze of this month set" in n for n in r.notes)


def test_without_a_plan_groups_that_count_instances_are_not_capped(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    from seedance.budget.live import LiveGroup

    # finetune needs 2 x A10G per unit but may run 1: the policy cannot be planned
    fleets = "  - name: finetune\n    gpu: {model: A10G, count: 2, memoryGib: 24}\n    capacity: {min: 0, desired: 1, max: 1}\n"
    project, alert = _freeze_project(tmp_path, fleets, cluster=True)
    groups = {n: LiveGroup(f"{n}-asg", 1, False) for n in ("finetune", "inference", "batch-embed")}
    code, doc = _freeze(monkeypatch, project, alert, groups)
    assert code == 0 and _caps(doc) == {}
    assert any("could not be planned" in n for n in doc["notes"])
    assert any("fleet inference's group cannot be counted" in n for n in doc["notes"])


def test_the_steps_follow_what_the_stack_deploys(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the steady state of a pipeline: the stack deploys the overlay, which each alert rewrites
    project, alert = _freeze_project(tmp_path, "  - {name: finetune, reserved: {mode: none}}\n", cluster=False)
    stack_file = project / "Pulumi.frz.yaml"
    stack_file.write_text(stack_file.read_text().replace("seedance:policy: frz.yaml", "seedance:policy: frz.budget.yaml"))
    monkeypatch.chdir(project)
    args = ("frz.yaml", str(alert), "--stack", "frz", "--project-dir", ".", "--out", "frz.budget.yaml")
    code, text = _respond(*args)
    assert code == 0 and (project / "frz.budget.yaml").is_file()
    assert (f"stack frz deploys it (seedance:policy in {stack_file}): commit it, run seedance check frz "
            "--project-dir ., then pulumi up") in text
    # deleting the overlay first would leave the stack naming a missing file: point back, then delete
    assert ("to revert: point the stack back to the policy: pulumi config set seedance:policy frz.yaml --stack frz, "
            "run seedance check frz --project-dir ., then pulumi up --stack frz; delete") in text \
        and "only after that (the stack reads it)" in text
    doc = json.loads(_respond(*args, "-f", "json")[1])
    assert doc["stack"]["deploys"] == "overlay" and doc["stack"]["pointAtOverlay"] is None
    md = _respond(*args, "-f", "markdown")[1]
    assert f"it extends the policy; stack frz deploys it (`seedance:policy` in `{stack_file}`)" in md
    # a stack that deploys some other file: named, and how to point it at the overlay
    stack_file.write_text(stack_file.read_text().replace("frz.budget.yaml", "other.yaml"))
    code, text = _respond(*args)
    assert f"stack frz deploys other.yaml (seedance:policy in {stack_file}), neither the policy nor this overlay" in text
    assert "pulumi config set seedance:policy frz.budget.yaml --stack frz; commit both" in text
