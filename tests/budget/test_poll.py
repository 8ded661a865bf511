"""`seedance budget poll`: the stack's AWS Budget read over HTTP from a real moto server."""

from __future__ import annotations

import datetime as dt
import json
import os
from dataclasses import replace
from pathlib import Path

import boto3
import pytest
import yaml
from click.testing import CliRunner

from seedance.budget.events import parse_budget_event
from seedance.budget.response import respond
from seedance.budget.status import BudgetStatusError, alert_from_budget, budget_name, budgets_region, fetch_budget
from seedance.cli import app
from seedance.policy import load_policy

REPO = Path(__file__).resolve().parents[2]
DEV = REPO / "stacks" / "policies" / "dev.yaml"
ACCOUNT = "777788889999"  # dev.yaml's cloud.accountId
SHARED = Path(os.environ["SEEDANCE_SHARED_DATA"]) if os.environ.get("SEEDANCE_SHARED_DATA") else REPO.parent / "shared" / "data"
NOW = dt.datetime(2026, 11, 20, 8, 0, tzinfo=dt.UTC)


def _budget(name: str, limit: str, actual: str, forecast: str, unit: str = "USD", time_unit: str = "MONTHLY") -> dict:
    return {"BudgetName": name, "BudgetLimit": {"Amount": limit, "Unit": unit}, "TimeUnit": time_unit, "BudgetType": "COST",
            "CalculatedSpend": {"ActualSpend": {"Amount": actual, "Unit": unit}, "ForecastedSpend": {"Amount": forecast, "Unit": unit}}}


@pytest.fixture
def budgets(moto_endpoint: str, aws_env: None, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """A budgets client on the moto server; the CLI reaches the same server through AWS_ENDPOINT_URL_BUDGETS."""
    monkeypatch.setenv("AWS_ENDPOINT_URL_BUDGETS", moto_endpoint)
    client = boto3.client("budgets", region_name="us-east-1")
    yield client
    for account in (ACCOUNT, "111122223333"):  # dev's and eu-prod's accounts: the server outlives the test
        for b in client.describe_budgets(AccountId=account).get("Budgets", []):
            client.delete_budget(AccountId=account, BudgetName=b["BudgetName"])


def test_alert_from_budget_is_what_a_notification_would_say() -> None:
    a = alert_from_budget(_budget("seedance-dev-monthly", "6000.0", "5220.5", "6300"), now=NOW, account=ACCOUNT)
    assert (a.budget_name, a.alert_type, a.period, a.budgeted_amount, a.amount, a.currency) == (
        "seedance-dev-monthly", "ACTUAL", "month", 6000.0, 5220.5, "USD")
    assert a.timestamp == "2026-11-20T08:00:00Z" and a.account == ACCOUNT
    f = alert_from_budget(_budget("b", "6000", "1", "6300"), alert_type="FORECASTED")
    assert f.alert_type == "FORECASTED" and f.amount == 6300.0



@pytest.mark.parametrize(("change", "message"), [
    ({"TimeUnit": "DAILY"}, "the budget's TimeUnit is 'DAILY', not MONTHLY, so its spend is not the month's"),
    ({"TimeUnit": "QUARTERLY"}, "TimeUnit is 'QUARTERLY', not MONTHLY"),
    ({"TimePeriod": {"Start": dt.datetime(2026, 12, 1, tzinfo=dt.UTC)}},
     "the budget starts at 2026-12-01T00:00:00Z, after now \\(2026-11-20T08:00:00Z\\): it holds no spend for this month"),
    ({"TimePeriod": {"Start": dt.datetime(2026, 1, 1, tzinfo=dt.UTC), "End": dt.datetime(2026, 11, 1, tzinfo=dt.UTC)}},
     "the budget ended at 2026-11-01T00:00:00Z \\(it is 2026-11-20T08:00:00Z\\)"),
    ({"TimePeriod": {"End": 1793491200}}, "ended at 2026-11-01T00:00:00Z"),  # epoch seconds, as in the JSON
    ({"TimePeriod": {"Start": "soon"}}, "TimePeriod.Start is not a time: 'soon'"),
    ({"TimePeriod": ["2026-11-01"]}, "TimePeriod is not a mapping of Start and End"),
    ({"HealthStatus": {"Status": "UNHEALTHY", "StatusReason": "FILTER_INVALID"}},
     "AWS reports the budget UNHEALTHY \\('FILTER_INVALID'\\): its spend is not being updated"),
])
def test_alert_from_budget_refuses_a_spend_that_is_not_this_months(change: dict, message: str) -> None:
    with pytest.raises(BudgetStatusError, match=message):
        alert_from_budget(_budget("b", "6000", "5900", "6000") | change, now=NOW)


def test_alert_from_budget_reads_the_budget_month_it_is_in() -> None:
    # the month the stack created it in until AWS's default end; naive datetimes are UTC
    current = {"TimePeriod": {"Start": dt.datetime(2026, 11, 1), "End": dt.datetime(2087, 6, 15, tzinfo=dt.UTC)},
               "HealthStatus": {"Status": "HEALTHY"}}
    assert alert_from_budget(_budget("b", "6000", "5900", "6000") | current, now=NOW).amount == 5900.0
    started = {"TimePeriod": {"Start": 1793491200.0}}  # 2026-11-01 in epoch seconds
    assert alert_from_budget(_budget("b", "6000", "1", "6000") | started, now=NOW).period == "month"


@pytest.mark.parametrize(("budget", "message"), [
    ({"BudgetLimit": {"Amount": "1", "Unit": "USD"}}, "no BudgetName"),
    ({**_budget("b", "1", "1", "1"), "CalculatedSpend": {}}, "no CalculatedSpend.ActualSpend"),
    ({**_budget("b", "1", "1", "1"), "CalculatedSpend": ["1"]}, "CalculatedSpend is not a mapping of ActualSpend and ForecastedSpend"),
    ({**_budget("b", "1", "1", "1"), "CalculatedSpend": {"ActualSpend": {"Amount": "1", "Unit": "USD"}}, "forecasted": True},
     "the budget holds no forecast yet \\(CalculatedSpend.ForecastedSpend: AWS gives one only once it has enough usage "
     "history\\); poll the actual spend \\(without --forecasted\\)"),
    ({**_budget("b", "x", "1", "1")}, "BudgetLimit.Amount is not a number"),
    (_budget("b", "1", "1", "1") | {"BudgetLimit": {"Amount": "1", "Unit": "CNY"}}, "ActualSpend is in USD but the budget limit in CNY"),
])
def test_alert_from_budget_rejects_incomplete_answers(budget: dict, message: str) -> None:
    kind = "FORECASTED" if budget.pop("forecasted", False) else "ACTUAL"
    with pytest.raises(BudgetStatusError, match=message):
        alert_from_budget(budget, alert_type=kind)


def test_budget_region_per_partition() -> None:
    assert budgets_region("eu-central-1") == "us-east-1" and budgets_region("cn-north-1") == "cn-northwest-1"


def test_poll_responds_like_the_real_sns_alert(budgets, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # a real captured AWS Budgets notification (shared fixtures) and a budget with the same numbers
    # read back from the server must lead to the same response
    sns = parse_budget_event((SHARED / "fixtures" / "aws-sns-budgets" / "sre-bot.sns-http-notification.budget-monthly-actual.json").read_bytes())
    assert sns is not None and sns.alert_type == "ACTUAL"
    policy = tmp_path / "tiny.yaml"
    policy.write_text(f"apiVersion: seedance.io/v1\nkind: CostPolicy\nextends: {DEV}\nbudget:\n  monthlyAmount: {sns.budgeted_amount}\n")
    loaded = load_policy(policy)
    budgets.create_budget(AccountId=ACCOUNT, Budget=_budget(sns.budget_name, f"{sns.budgeted_amount}", f"{sns.amount}", "0"))
    # the server starts the budget at the current month, as AWS does: read it now
    polled = alert_from_budget(fetch_budget(budgets, ACCOUNT, sns.budget_name), account=ACCOUNT)
    assert (polled.budget_name, polled.budgeted_amount, polled.amount, polled.currency, polled.period) == (
        sns.budget_name, sns.budgeted_amount, sns.amount, sns.currency, sns.period)
    # as the stack's own budget: an alert of another budget or account is ignored
    own = {"budget_name": "seedance-dev-monthly", "account": loaded.policy.cloud.account_id}
    by_poll = respond(loaded.policy, replace(polled, **own), policy_ref="tiny.yaml", stack="dev")
    by_sns = respond(loaded.policy, replace(sns, **own), policy_ref="tiny.yaml", stack="dev")
    assert by_poll.fraction == pytest.approx(sns.amount / sns.budgeted_amount)
    assert [t.action.value for t in by_poll.fired] == ["notify", "degrade", "nonprod-spot-only", "freeze"]
    assert by_poll.changes and by_poll.changes == by_sns.changes and by_poll.overlay == by_sns.overlay


def test_poll_command_writes_the_overlay(budgets, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    budgets.create_budget(AccountId=ACCOUNT, Budget=_budget(budget_name("dev"), "6000", "5220", "6100"))
    out = tmp_path / "dev-budget.yaml"
    result = CliRunner().invoke(app, ["budget", "poll", str(DEV), "--stack", "dev", "--out", str(out), "-f", "json"],
                                standalone_mode=False, catch_exceptions=False)
    assert result.return_value == 0, result.output
    doc = json.loads(result.output)
    assert doc["alert"]["budgetName"] == "seedance-dev-monthly" and doc["actions"] == ["notify", "degrade"]
    assert doc["fraction"] == pytest.approx(5220 / 6000)
    overlay = yaml.safe_load(out.read_text())
    assert overlay["extends"].endswith("dev.yaml") and overlay["fleets"]
    assert load_policy(out).policy.budget.monthly_amount == 6000  # the overlay loads back


def test_poll_with_a_broken_stack_file_is_bad_input(budgets, tmp_path: Path,  # type: ignore[no-untyped-def]
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """A Pulumi.STACK.yaml that does not parse is bad input (exit 1, FILE:LINE), not a malformed option
    (exit 2, a usage banner); nothing is written."""
    import shutil

    from seedance.cli import main

    budgets.create_budget(AccountId=ACCOUNT, Budget=_budget(budget_name("dev"), "6000", "5220", "6100"))
    proj = tmp_path / "proj"
    shutil.copytree(REPO / "stacks", proj, ignore=shutil.ignore_patterns("__pycache__"))
    (proj / "Pulumi.dev.yaml").write_text("config:\n  seedance:policy: [unclosed\n", encoding="utf-8")
    out = tmp_path / "dev-budget.yaml"
    code = main(["budget", "poll", str(DEV), "--stack", "dev", "--project-dir", str(proj), "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 1 and f"error {proj}/Pulumi.dev.yaml:3:1: expected ',' or ']'" in err
    assert "Usage:" not in err and not out.exists()


def test_poll_forecasted_spend(budgets) -> None:  # type: ignore[no-untyped-def]
    budgets.create_budget(AccountId=ACCOUNT, Budget=_budget(budget_name("dev"), "6000", "100", "5800"))
    result = CliRunner().invoke(app, ["budget", "poll", str(DEV), "--stack", "dev", "--forecasted", "-f", "json"],
                                standalone_mode=False, catch_exceptions=False)
    doc = json.loads(result.output)
    assert doc["alert"]["alertType"] == "FORECASTED" and "nonprod-spot-only" in doc["actions"]


def test_poll_refuses_a_budget_that_has_not_started(budgets, capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    # the server returns the TimePeriod as AWS does (epoch seconds, read by boto3 as datetimes)
    from seedance.cli import main

    later = dt.datetime.now(dt.UTC).replace(microsecond=0) + dt.timedelta(days=40)
    budgets.create_budget(AccountId=ACCOUNT, Budget=_budget(budget_name("dev"), "6000", "5900", "6100")
                          | {"TimePeriod": {"Start": later, "End": later + dt.timedelta(days=365)}})
    assert main(["budget", "poll", str(DEV), "--stack", "dev"]) == 1
    err = capsys.readouterr().err
    assert "error seedance-dev-monthly: the budget starts at" in err and "it holds no spend for this month" in err
    assert "Traceback" not in err


def test_poll_missing_budget_is_a_clean_error(budgets, capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    from seedance.cli import main

    assert main(["budget", "poll", str(DEV), "--stack", "nosuch"]) == 1
    err = capsys.readouterr().err
    assert "no budget named 'seedance-nosuch-monthly' in account 777788889999" in err and "Traceback" not in err


EU_PROD = REPO / "stacks" / "policies" / "eu-prod.yaml"  # account 111122223333, eu-central-1, budget 160,000


@pytest.fixture
def groups(moto_endpoint: str, aws_env: None, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """An autoscaling client on the moto server (eu-central-1); the CLI reaches it through AWS_ENDPOINT_URL_AUTO_SCALING."""
    monkeypatch.setenv("AWS_ENDPOINT_URL_AUTO_SCALING", moto_endpoint)
    ec2 = boto3.client("ec2", region_name="eu-central-1", endpoint_url=moto_endpoint)
    client = boto3.client("autoscaling", region_name="eu-central-1")
    lt = ec2.create_launch_template(LaunchTemplateName="seedance-live-test",
                                    LaunchTemplateData={"ImageId": "ami-12c6146b", "InstanceType": "g5.xlarge"})
    lt_id = lt["LaunchTemplate"]["LaunchTemplateId"]
    made: list[str] = []

    def make(name: str, desired: int, tags: dict[str, str]) -> None:
        client.create_auto_scaling_group(
            AutoScalingGroupName=name, MinSize=0, MaxSize=max(desired, 1) * 2, DesiredCapacity=desired,
            LaunchTemplate={"LaunchTemplateId": lt_id, "Version": "$Latest"}, AvailabilityZones=["eu-central-1a"],
            Tags=[{"Key": k, "Value": v, "PropagateAtLaunch": False} for k, v in tags.items()])
        made.append(name)

    yield client, make
    for name in made:
        client.delete_auto_scaling_group(AutoScalingGroupName=name, ForceDelete=True)
    ec2.delete_launch_template(LaunchTemplateId=lt_id)


def test_live_sizes_are_read_by_the_stack_and_fleet_tags(groups) -> None:  # type: ignore[no-untyped-def]
    from seedance.budget.live import LiveSizeError, fetch_live_sizes

    client, make = groups
    make("inference-asg-0a1b2c3", 3, {"seedance:stack": "eu-prod", "seedance:fleet": "inference"})
    make("finetune-asg-4d5e6f7", 0, {"seedance:stack": "eu-prod", "seedance:fleet": "finetune"})
    make("inference-asg-8a9b0c1", 5, {"seedance:stack": "dev", "seedance:fleet": "inference"})  # another stack
    make("web-asg", 2, {"seedance:stack": "eu-prod"})  # no fleet tag: not a fleet group
    assert fetch_live_sizes(client, "eu-prod") == {"inference": 3, "finetune": 0}
    assert fetch_live_sizes(client, "nosuch") == {}
    make("inference-asg-dup", 1, {"seedance:stack": "eu-prod", "seedance:fleet": "inference"})
    with pytest.raises(LiveSizeError, match="fleet inference of stack eu-prod has two groups"):
        fetch_live_sizes(client, "eu-prod")


def test_poll_freezes_fleets_at_their_live_size(budgets, groups, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    _, make = groups
    make("inference-asg-0a1b2c3", 3, {"seedance:stack": "eu-prod", "seedance:fleet": "inference"})
    account = "111122223333"
    budgets.create_budget(AccountId=account, Budget=_budget(budget_name("eu-prod"), "160000", "161000", "170000"))
    out = tmp_path / "eu-prod-budget.yaml"
    args = ["budget", "poll", str(EU_PROD), "--stack", "eu-prod", "--out", str(out), "-f", "json"]
    result = CliRunner().invoke(app, [*args, "--live-sizes"], standalone_mode=False, catch_exceptions=False)
    assert result.return_value == 0, result.output
    doc = json.loads(result.stdout)
    assert "freeze" in doc["actions"]
    overlay = {f["name"]: f for f in yaml.safe_load(out.read_text())["fleets"]}
    assert overlay["inference"]["capacity"] == {"min": 4, "desired": 4, "max": 4}  # live 3, never below min 4
    assert load_policy(out).policy.fleet("inference").capacity.max == 4
    # a later run of the same budget month keeps the caps the overlay in place set, even without --live-sizes
    CliRunner().invoke(app, args, standalone_mode=False, catch_exceptions=False)
    assert load_policy(out).policy.fleet("inference").capacity.max == 4
    # without --live-sizes (and no earlier freeze) no maximum is lowered, and the report says why
    out.unlink()
    result = CliRunner().invoke(app, args, standalone_mode=False, catch_exceptions=False)
    doc = json.loads(result.stdout)
    overlay = {f["name"]: f for f in yaml.safe_load(out.read_text())["fleets"]}
    assert "capacity" not in overlay["inference"] and overlay["inference"]["reserved"]["mode"] == "fixed"
    assert any(n.startswith("freeze: live group sizes were not read") for n in doc["notes"])


def test_live_sizes_need_the_stack(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from seedance.cli import main

    event = tmp_path / "alert.json"
    event.write_text((SHARED / "fixtures" / "aws-sns-budgets" / "sre-bot.sns-http-notification.budget-monthly-actual.json").read_text())
    assert main(["budget", "respond", str(DEV), str(event), "--live-sizes"]) == 2  # a malformed command line
    err = capsys.readouterr().err
    assert "--live-sizes needs --stack" in err and "Usage: seedance budget respond" in err


def test_the_response_applied_as_pulumi_up_would_empties_degraded_groups_and_keeps_frozen_ones(groups) -> None:  # type: ignore[no-untyped-def]
    """The update a `pulumi up` sends for a cluster-joined group carries min and max but not the desired
    size (ignoreChanges): AWS (here moto, which follows the documented UpdateAutoScalingGroup rules)
    must then empty a degraded group and leave a group frozen at its live size running."""
    client, make = groups
    policy = load_policy(EU_PROD).policy
    live = {"inference": 9, "batch-embed": 7}  # what the Cluster Autoscaler runs now
    for fleet, size in live.items():
        make(f"{fleet}-asg", size, {"seedance:stack": "eu-prod", "seedance:fleet": fleet})
    alert = alert_from_budget(_budget(budget_name("eu-prod"), "160000", "161000", "0"), now=NOW)
    effective = respond(policy, alert, policy_ref="eu-prod.yaml", stack="eu-prod", live_sizes=live).effective
    for fleet in live:
        cap = effective.fleet(fleet).capacity
        client.update_auto_scaling_group(AutoScalingGroupName=f"{fleet}-asg", MinSize=cap.min, MaxSize=cap.max)
    now = {g["AutoScalingGroupName"]: g["DesiredCapacity"] for g in client.describe_auto_scaling_groups()["AutoScalingGroups"]}
    assert now == {"inference-asg": 9, "batch-embed-asg": 0}  # core: frozen where it runs; non-core: degraded


def test_sizes_from_groups_reads_only_the_stacks_fleet_groups() -> None:
    from seedance.budget.live import LiveSizeError, sizes_from_groups

    def group(name: str, desired: object, **tags: str) -> dict:
        return {"AutoScalingGroupName": name, "DesiredCapacity": desired,
                "Tags": [{"Key": k.replace("_", ":"), "Value": v} for k, v in tags.items()]}

    groups = [group("a", 3, seedance_stack="eu-prod", seedance_fleet="inference"),
              group("b", 4, seedance_stack="dev", seedance_fleet="inference"),
              group("c", 5, seedance_stack="eu-prod"),
              {"AutoScalingGroupName": "d", "DesiredCapacity": 1}]
    assert sizes_from_groups(groups, "eu-prod") == {"inference": 3}
    for bad in (None, -1, True, "3"):
        with pytest.raises(LiveSizeError, match=r"group x \(fleet f\): DesiredCapacity is not a count"):
            sizes_from_groups([group("x", bad, seedance_stack="s", seedance_fleet="f")], "s")


@pytest.mark.parametrize(("account", "message"), [
    ("abc", "Invalid value for --account-id: 'abc': expected a 12-digit AWS account id"),
    ("12345678901", "expected a 12-digit AWS account id"),
    ("１２３４５６７８９０１２", "expected a 12-digit AWS account id"),  # digits, but not 0-9
    ("", "expected a 12-digit AWS account id"),
    ("999999999999", "Invalid value for --account-id: 999999999999: the policy's cloud.accountId is 777788889999"),
])
def test_poll_checks_the_account_before_asking_aws(account: str, message: str,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    from seedance.cli import main

    # a malformed option: exit 2, as for every command (no AWS client is even made: none is mocked here)
    assert main(["budget", "poll", str(DEV), "--stack", "dev", "--account-id", account]) == 2
    err = capsys.readouterr().err
    assert message in err and "Usage: seedance budget poll" in err and "Traceback" not in err


@pytest.mark.parametrize("amount", ["NaN", "nan", "inf", "-Infinity", "1e400", "-5"])
@pytest.mark.parametrize("key", ["ActualSpend", "ForecastedSpend"])
def test_poll_refuses_a_spend_that_is_no_finite_amount(budgets, amount: str, key: str,  # type: ignore[no-untyped-def]
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """float() reads 'NaN', 'inf' and '1e400' (infinity): such a spend is an unreadable budget (exit 1, as
    `respond` refuses the same amounts in a notification), never an internal error."""
    from seedance.cli import main

    spend = {"ActualSpend": "100", "ForecastedSpend": "100", key: amount}
    budgets.create_budget(AccountId=ACCOUNT, Budget=_budget(budget_name("dev"), "6000", spend["ActualSpend"],
                                                            spend["ForecastedSpend"]))
    read_back = fetch_budget(budgets, ACCOUNT, budget_name("dev"))["CalculatedSpend"][key]["Amount"]
    assert read_back == amount  # the server holds and returns it as given
    args = ["budget", "poll", str(DEV), "--stack", "dev"] + (["--forecasted"] if key == "ForecastedSpend" else [])
    assert main(args) == 1
    err = capsys.readouterr().err
    assert f"error seedance-dev-monthly: CalculatedSpend.{key}.Amount is not a finite amount >= 0: '{amount}'" in err
    assert "internal error" not in err and "Traceback" not in err


def _a10x2_policy(tmp_path: Path, gpu: str = "{model: A10G, count: 2, memoryGib: 24}", cap: str = "{min: 0, desired: 4, max: 16}") -> Path:
    """eu-prod with one more core fleet, whose unit needs more GPUs than the smallest type holds once."""
    p = tmp_path / "eu-w.yaml"
    p.write_text(f"apiVersion: seedance.io/v1\nkind: CostPolicy\nextends: {EU_PROD}\nfleets:\n  - name: wide\n"
                 f"    workload: inference\n    sla: silver\n    dataClass: internal\n    core: true\n    gpu: {gpu}\n"
                 f"    capacity: {cap}\n    reserved: {{mode: none}}\n", encoding="utf-8")
    return p


@pytest.mark.parametrize(("gpu", "cap", "weighted", "desired", "units"), [
    ("{model: A10G, count: 2, memoryGib: 24}", "{min: 0, desired: 4, max: 16}", False, 3, 6),  # g5.12xlarge: 2 units
    ("{model: A100, count: 1, memoryGib: 40}", "{min: 0, desired: 8, max: 32}", False, 3, 24),  # p4d: 8 units
    ("{model: A10G, count: 2, memoryGib: 24}", "{min: 0, desired: 4, max: 16}", True, 6, 6),  # weighted: units already
])
def test_freeze_reads_a_group_that_counts_instances_in_units(budgets, groups, moto_endpoint: str,  # type: ignore[no-untyped-def]
                                                             tmp_path: Path, gpu: str, cap: str,
                                                             weighted: bool, desired: int, units: int) -> None:
    """A group the Cluster Autoscaler manages counts instances of the plan's first type's weight; the freeze
    must cap the fleet at the units they hold, so the redeployed group keeps every running instance."""
    import sys

    sys.path.insert(0, str(REPO))
    from components.fleet import group_shape
    from seedance.gate.inputs import plan_and_estimate

    client, _ = groups
    policy = _a10x2_policy(tmp_path, gpu, cap)
    plan, _ = plan_and_estimate(load_policy(policy))
    fp = next(f for f in plan.fleets if f.name == "wide")
    w = fp.node_weight
    assert weighted or desired * w == units  # g5.12xlarge holds 2 units, p4d 8
    lt = boto3.client("ec2", region_name="eu-central-1", endpoint_url=moto_endpoint).describe_launch_templates(
        LaunchTemplateNames=["seedance-live-test"])["LaunchTemplates"][0]["LaunchTemplateId"]
    overrides = [{"InstanceType": c.instance_type, **({"WeightedCapacity": str(c.weight)} if weighted else {})}
                 for c in (fp.instance_types if weighted else [c for c in fp.instance_types if c.weight == w])]
    client.create_auto_scaling_group(
        AutoScalingGroupName="eu-w-wide-asg", MinSize=0, MaxSize=64, DesiredCapacity=desired,
        MixedInstancesPolicy={"LaunchTemplate": {"LaunchTemplateSpecification": {"LaunchTemplateId": lt, "Version": "$Latest"},
                                                 "Overrides": overrides}},
        AvailabilityZones=["eu-central-1a"],
        Tags=[{"Key": "seedance:stack", "Value": "eu-w", "PropagateAtLaunch": False},
              {"Key": "seedance:fleet", "Value": "wide", "PropagateAtLaunch": False}])
    try:
        budgets.create_budget(AccountId="111122223333", Budget=_budget(budget_name("eu-w"), "160000", "161000", "0"))
        out = tmp_path / "eu-w.budget.yaml"
        result = CliRunner().invoke(app, ["budget", "poll", str(policy), "--stack", "eu-w", "--live-sizes", "--out", str(out),
                                          "-f", "json"], standalone_mode=False, catch_exceptions=False)
        assert result.return_value == 0, result.output
        frozen = load_policy(out)
        assert frozen.policy.fleet("wide").capacity.max == units
        after, _ = plan_and_estimate(frozen)
        wide = next(f for f in after.fleets if f.name == "wide")
        assert wide.instance_types  # a plan the stack can deploy
        running = desired if not weighted else units
        assert group_shape(wide, autoscaler_managed=not weighted).max_size >= running  # no running node terminated
    finally:
        client.delete_auto_scaling_group(AutoScalingGroupName="eu-w-wide-asg", ForceDelete=True)
        budgets.delete_budget(AccountId="111122223333", BudgetName=budget_name("eu-w"))


def test_a_later_freeze_of_the_month_never_raises_the_cap_the_first_set(budgets, groups, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """103% of budget, polled three times in one month while the group's live size moves: 30 sets the cap,
    5 (a scale-in) does not lower it and 40 (growth since) does not raise it: a freeze stops growth from
    the moment it first fired, and the report names the group running above the cap."""
    client, make = groups
    make("inference-asg-0a1b2c3", 30, {"seedance:stack": "eu-prod", "seedance:fleet": "inference"})
    budgets.create_budget(AccountId="111122223333", Budget=_budget(budget_name("eu-prod"), "160000", "164800", "170000"))
    out = tmp_path / "eu-prod-budget.yaml"
    args = ["budget", "poll", str(EU_PROD), "--stack", "eu-prod", "--out", str(out), "--live-sizes", "-f", "json"]

    def poll_at(size: int) -> tuple[int, list[str]]:
        client.update_auto_scaling_group(AutoScalingGroupName="inference-asg-0a1b2c3", MaxSize=max(size, 1) * 2,
                                         DesiredCapacity=size)
        result = CliRunner().invoke(app, args, standalone_mode=False, catch_exceptions=False)
        assert result.return_value == 0, result.output
        doc = json.loads(result.stdout)
        assert "freeze" in doc["actions"]
        return load_policy(out).policy.fleet("inference").capacity.max, doc["notes"]

    cap, notes = poll_at(30)
    assert cap == 30 and not any("above the cap" in n for n in notes)
    cap, notes = poll_at(5)
    assert cap == 30 and not any("above the cap" in n for n in notes)
    cap, notes = poll_at(40)
    assert cap == 30
    assert any(n.startswith("freeze: fleet inference's group runs 40 unit(s), above the cap of 30 the first freeze "
                            "of this month set; the cap is kept") for n in notes)


def test_live_sizes_are_printed_with_their_unit() -> None:
    # red team: "inference 3" did not say whether 3 units or 3 instances
    from seedance.budget.live import LiveGroup
    from seedance.commands.budget import sizes_text

    groups = {"b": LiveGroup("b-asg", 3, False, ("g5.12xlarge",)), "a": LiveGroup("a-asg", 5, True),
              "c": LiveGroup("c-asg", 2, False)}
    assert sizes_text(groups, {"b": 12, "c": None}) == "a 5 unit(s), b 3 instance(s) = 12 unit(s), c 2 instance(s)"
    assert sizes_text(groups, None) == "a 5 unit(s), b 3 instance(s), c 2 instance(s)"
    assert sizes_text({}, None) == "no group found"
