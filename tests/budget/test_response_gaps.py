"""Budget-response rules no other test pins down (test audit, finding 5)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from seedance.budget.events import parse_budget_event
from seedance.budget.response import Change, respond
from seedance.policy import load_policy
from seedance.policy.model import Capacity
from test_budget import POLICIES, _fixture, _monthly_alert

REPO = Path(__file__).resolve().parents[2]

DAILY = "killswitch.lambda-sns-event.budget-daily-actual.json"
DAILY_IGNORED = "a per-day budget alert: thresholds apply to the monthly budget, so nothing fires"


def _eu_prod_alert(amount: str, budgeted: str = "160,000.00"):  # type: ignore[no-untyped-def]
    alert = parse_budget_event(_monthly_alert("seedance-eu-prod-monthly", budgeted, amount))
    assert alert is not None
    return alert


def test_freeze_drops_the_off_peak_windows_of_a_core_fleet() -> None:
    # degrade (85%) leaves a core fleet alone, so only freeze can clear its windows
    policy = load_policy(POLICIES / "eu-prod.yaml").policy
    batch = policy.fleet("batch-embed")
    assert batch.off_peak and not batch.core
    core_batch = batch.model_copy(update={"core": True})
    policy = policy.model_copy(update={"fleets": [core_batch if f.name == "batch-embed" else f for f in policy.fleets]})
    r = respond(policy, _eu_prod_alert("161,000.00"), policy_ref="eu-prod.yaml", stack="eu-prod")  # 100.6%
    assert [a.value for a in r.actions] == ["notify", "degrade", "nonprod-spot-only", "freeze"]
    eff = r.effective.fleet("batch-embed")
    assert eff.off_peak == []
    assert eff.capacity == batch.capacity  # core: not degraded; live sizes not read: max unchanged
    assert Change("fleets[batch-embed].offPeak", [w.cron for w in batch.off_peak], [],
                  "freeze: no growth: no off-peak scale-up (100.6% of budget)") in r.changes
    assert r.overlay["fleets"][[f["name"] for f in r.overlay["fleets"]].index("batch-embed")]["offPeak"] == []


def test_an_alert_at_exactly_a_threshold_fires_it() -> None:
    policy = load_policy(POLICIES / "eu-prod.yaml").policy  # thresholds .5 notify, .85 degrade, .95, 1
    r = respond(policy, _eu_prod_alert("136,000.00"), policy_ref="eu-prod.yaml", stack="eu-prod")
    assert r.fraction == 0.85
    assert [t.at for t in r.fired] == [0.5, 0.85]
    assert [a.value for a in r.actions] == ["notify", "degrade"]
    assert r.effective.fleet("llm-train").capacity == Capacity(min=0, desired=0, max=0)
    # a cent below it does not
    r = respond(policy, _eu_prod_alert("135,999.99"), policy_ref="eu-prod.yaml", stack="eu-prod")
    assert [a.value for a in r.actions] == ["notify"]


def test_freeze_keeps_at_least_one_node_when_the_live_size_is_zero() -> None:
    policy = load_policy(POLICIES / "eu-prod.yaml").policy
    inference = policy.fleet("inference").model_copy(update={"capacity": Capacity(min=0, desired=6, max=48)})
    core_only = policy.model_copy(update={"fleets": [inference]})
    r = respond(core_only, _eu_prod_alert("161,000.00"), policy_ref="eu-prod.yaml", live_sizes={"inference": 0})
    assert r.effective.fleet("inference").capacity == Capacity(min=0, desired=1, max=1)
    assert Change("fleets[inference].capacity.max", 48, 1,
                  "freeze: no growth beyond the 0 unit(s) running and the fleet's minimum of 1 unit(s) (100.6% of budget)") in r.changes
    assert Change("fleets[inference].capacity.desired", 6, 1,
                  "freeze: no growth: at most the new maximum (100.6% of budget)") in r.changes


def test_the_daily_fixture_is_ignored() -> None:
    policy = load_policy(POLICIES / "dev.yaml").policy
    alert = parse_budget_event(_fixture(DAILY))
    assert alert is not None and alert.period == "day"
    r = respond(policy, alert, policy_ref="dev.yaml")
    assert r.ignored == DAILY_IGNORED and r.notes == [DAILY_IGNORED]
    assert (r.fired, r.actions, r.changes, r.overlay, r.effective) == ([], [], [], {}, policy)


def test_a_daily_alert_is_ignored_even_when_it_names_the_stack_and_is_far_over_budget() -> None:
    # the daily fixture, made to pass every other check: only the period keeps it from firing
    policy = load_policy(POLICIES / "dev.yaml").policy  # budget 6,000 USD
    doc = json.loads(_fixture(DAILY))
    sns = doc["Records"][0]["Sns"]
    sns["Message"] = (sns["Message"].replace("killswitch", "seedance-dev-monthly")
                      .replace("AWS Account 265627204426", f"AWS Account {policy.cloud.account_id}")
                      .replace("$5.00", "$6,000.00").replace("$1.70", "$9,000.00"))
    alert = parse_budget_event(json.dumps(doc).encode())
    assert alert is not None
    assert (alert.period, alert.budget_name, alert.amount, alert.budgeted_amount) == ("day", "seedance-dev-monthly", 9000.0, 6000.0)
    assert alert.account == policy.cloud.account_id
    r = respond(policy, alert, policy_ref="dev.yaml", stack="dev")
    assert r.ignored == DAILY_IGNORED and r.notes == [DAILY_IGNORED]
    assert (r.fired, r.actions, r.changes, r.effective) == ([], [], [], policy)


@pytest.mark.parametrize(("budgeted", "note"), [
    ("150,000.00", "AWS budget is 150,000.00 but the policy says 160,000.00: fractions use the policy"),
    ("160,000.00", None),
])
def test_a_note_says_when_the_aws_budget_differs_from_the_policy(budgeted: str, note: str | None) -> None:
    policy = load_policy(POLICIES / "eu-prod.yaml").policy
    r = respond(policy, _eu_prod_alert("139,200.00", budgeted), policy_ref="eu-prod.yaml", stack="eu-prod")
    assert r.fraction == pytest.approx(0.87)  # of the policy's 160,000, whatever AWS says
    assert [a.value for a in r.actions] == ["notify", "degrade"]
    assert [n for n in r.notes if n.startswith("AWS budget is")] == ([note] if note else [])


def test_an_alert_naming_no_period_is_ignored_and_says_why() -> None:
    # the monthly notification with its period phrase gone: neither monthly nor daily
    doc = json.loads(_monthly_alert("seedance-eu-prod-monthly", "160,000.00", "170,000.00"))
    assert "for the current month" in doc["Message"]
    doc["Message"] = doc["Message"].replace("for the current month", "")
    alert = parse_budget_event(json.dumps(doc).encode())
    assert alert is not None and alert.period == "other"
    r = respond(load_policy(POLICIES / "eu-prod.yaml").policy, alert, policy_ref="eu-prod.yaml")
    assert r.ignored == ("a budget alert that names no period (its message says neither 'for the current month' nor "
                         "'per day'): thresholds apply to the monthly budget, so nothing fires")
    assert r.fired == [] and r.changes == []


def _dev_alert(amount: str):  # type: ignore[no-untyped-def]
    alert = parse_budget_event(_monthly_alert("seedance-dev-monthly", "6,000.00", amount))
    assert alert is not None
    return alert


def test_nonprod_spot_only_gives_a_fleet_without_spot_its_tier_cap() -> None:
    """The kill-switch must work on a fleet with no spot block (it once raised building one)."""
    from seedance.policy.model import SLA_SPOT_CAP, ReservedMode, Tolerance

    dev = load_policy(POLICIES / "dev.yaml").policy
    no_spot = [f.model_copy(update={"spot": None}) for f in dev.fleets]
    policy = dev.model_copy(update={"fleets": no_spot})
    r = respond(policy, _dev_alert("5,760.00"), policy_ref="dev.yaml", stack="dev")  # 96%
    assert "nonprod-spot-only" in [a.value for a in r.actions]
    for f in r.effective.fleets:
        assert f.spot is not None and f.spot.max_share == SLA_SPOT_CAP[f.sla]
        assert f.spot.interruption_tolerance is Tolerance.HIGH
        assert f.reserved.mode is not ReservedMode.AUTO
    patches = {p["name"]: p for p in r.overlay["fleets"]}
    assert all(patches[f.name]["spot"]["maxShare"] == SLA_SPOT_CAP[f.sla] for f in policy.fleets)


def test_stopping_purchases_keeps_a_fixed_reservation_count() -> None:
    """A fixed count names reservations already bought: freeze, degrade and nonprod-spot-only stop
    new purchases (auto -> none) but leave it, or the estimate would price those units on-demand."""
    from seedance.policy.model import Reserved, ReservedMode

    dev = load_policy(POLICIES / "dev.yaml").policy
    fixed = Reserved.model_validate({"mode": "fixed", "units": 2})
    first, *rest = dev.fleets
    # a core fleet: degrade leaves it running, so its maximum stays above the count
    policy = dev.model_copy(update={"fleets": [first.model_copy(update={"reserved": fixed, "core": True}), *rest]})
    r = respond(policy, _dev_alert("6,600.00"), policy_ref="dev.yaml", stack="dev")  # 110%: every action
    assert {"degrade", "nonprod-spot-only", "freeze"} <= {a.value for a in r.actions}
    assert r.effective.fleet(first.name).reserved == fixed
    assert not [c for c in r.changes if c.path == f"fleets[{first.name}].reserved.mode"]
    assert "reserved" not in next((p for p in r.overlay["fleets"] if p["name"] == first.name), {})
    for f in rest:
        if f.reserved.mode is ReservedMode.AUTO:
            assert r.effective.fleet(f.name).reserved.mode is ReservedMode.NONE


def test_degrade_of_a_fleet_with_a_fixed_count_gives_an_overlay_that_loads(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Degrade sets capacity.max to 0, below the fixed count the language allows at most max: the
    count becomes mode none (its units stay billed, the change says so), so the overlay loads."""
    import yaml

    from seedance.policy.model import Reserved, ReservedMode

    dev = load_policy(POLICIES / "dev.yaml").policy
    fixed = Reserved.model_validate({"mode": "fixed", "units": 2})
    first, *rest = dev.fleets
    policy = dev.model_copy(update={"fleets": [first.model_copy(update={"reserved": fixed, "core": False}), *rest]})
    r = respond(policy, _dev_alert("6,600.00"), policy_ref=str(POLICIES / "dev.yaml"), stack="dev")
    eff = r.effective.fleet(first.name)
    assert eff.capacity.max == 0 and eff.reserved.mode is ReservedMode.NONE
    change = next(c for c in r.changes if c.path == f"fleets[{first.name}].reserved.mode")
    assert "the 2 fixed unit(s) bought stay billed until their term ends" in change.reason
    # the overlay the CLI would write loads (here over dev.yaml, which names no fixed count)
    out = tmp_path / "overlay.yaml"
    out.write_text(yaml.safe_dump(r.overlay, sort_keys=False))
    assert load_policy(out).policy.fleet(first.name).capacity.max == 0


@pytest.mark.parametrize("stack", ["eu-prod", "dev", "cn-prod"])
def test_a_freeze_never_raises_the_projected_cost_unreported(tmp_path: Path, stack: str) -> None:
    """The example stacks at 100% of a budget whose only action is freeze: the overlay's projected cost
    (the gate's estimate) is never above the policy's; with every action of the policy, any rise is reported."""
    import json

    from click.testing import CliRunner

    from seedance.cli import app

    base = load_policy(POLICIES / f"{stack}.yaml").policy
    amount = 90000 if stack != "dev" else 6000
    currency = base.budget.currency.value
    policy = tmp_path / f"{stack}-freeze.yaml"
    policy.write_text(f"apiVersion: seedance.io/v1\nkind: CostPolicy\nextends: {POLICIES / (stack + '.yaml')}\nbudget:\n"
                      f"  monthlyAmount: {amount}\n  currency: {currency}\n  thresholds:\n"
                      "    - {at: 0.9, action: notify}\n    - {at: 1.0, action: freeze}\n", encoding="utf-8")
    event = tmp_path / "alert.json"
    sym = "$" if currency == "USD" else "¥"
    doc = json.loads(_fixture("sre-bot.sns-http-notification.budget-monthly-actual.json"))
    doc["Message"] = (doc["Message"].replace("Test Budget", f"seedance-{stack}-monthly").replace("$0.20", f"{sym}{amount}")
                      .replace("$0.59", f"{sym}{amount}").replace("AWS Account 017790921725",
                                                                  f"AWS Account {base.cloud.account_id}"))
    event.write_text(json.dumps(doc))
    out = tmp_path / "overlay.yaml"
    run = CliRunner().invoke(app, ["budget", "respond", str(policy), str(event), "--stack", stack, "--project-dir",
                                   str(REPO / "stacks"), "--out", str(out), "-f", "json"],
                             standalone_mode=False, catch_exceptions=False)
    assert run.return_value == 0, run.output
    report = json.loads(run.stdout)
    assert report["actions"] == ["notify", "freeze"] and report["changes"]
    p = report["projection"]
    assert p["overlay"] <= p["policy"] and not p["abovePolicy"]
    # the figure is the gate's: derived_parts on the overlay written
    from seedance.gate.inputs import derived_parts, stack_setup

    cluster = stack_setup(REPO / "stacks", stack).cluster
    assert derived_parts(out, cluster=cluster)[3]["monthly_total"] == pytest.approx(p["overlay"], abs=0.01)
    assert derived_parts(policy, cluster=cluster)[3]["monthly_total"] == pytest.approx(p["policy"], abs=0.01)
    # with all the example policy's actions (nonprod-spot-only, degrade too) a rise is named before any redeploy
    full = CliRunner().invoke(app, ["budget", "respond", str(POLICIES / f"{stack}.yaml"), str(event), "--stack", stack,
                                    "--project-dir", str(REPO / "stacks"), "-f", "json"],
                              standalone_mode=False, catch_exceptions=False)
    r = json.loads(full.stdout)
    if r["projection"] and r["projection"]["abovePolicy"]:
        assert any("is above the policy's" in n for n in r["notes"])
    if r["projection"] and r["projection"]["aboveBudget"]:
        assert any("seedance check will block it" in n for n in r["notes"])


def test_a_later_freeze_of_the_month_never_lowers_an_earlier_cap() -> None:
    policy = load_policy(POLICIES / "eu-prod.yaml").policy  # inference: min 4, max 48
    alert = _eu_prod_alert("161,000.00")
    first = respond(policy, alert, policy_ref="eu-prod.yaml", live_sizes={"inference": 27})
    assert first.effective.fleet("inference").capacity.max == 27
    # the autoscaler scaled in to 9 for a moment: the re-applied freeze keeps 27
    again = respond(policy, alert, policy_ref="eu-prod.yaml", live_sizes={"inference": 9}, earlier_caps={"inference": 27})
    assert again.effective.fleet("inference").capacity.max == 27
    # more running than the earlier cap (grown before the cap was deployed): the freeze stops growth from
    # the moment it first fired, so the cap is kept, and a note names the group above it
    more = respond(policy, alert, policy_ref="eu-prod.yaml", live_sizes={"inference": 30}, earlier_caps={"inference": 27})
    assert more.effective.fleet("inference").capacity.max == 27
    assert any(n.startswith("freeze: fleet inference's group runs 30 unit(s), above the cap of 27") for n in more.notes)
    assert not any("runs 9 unit(s)" in n for n in again.notes)  # below the cap: nothing to say
    # a policy whose minimum has since risen above the earlier cap lifts it to that minimum, no further
    lifted = respond(policy, alert, policy_ref="eu-prod.yaml", live_sizes={"inference": 30}, earlier_caps={"inference": 2})
    assert lifted.effective.fleet("inference").capacity.max == 4
    # in whole instances when one holds several units (instances of 3 units: 4 -> 6)
    weighted = respond(policy, alert, policy_ref="eu-prod.yaml", live_sizes={"inference": 30},
                       earlier_caps={"inference": 2}, weights={"inference": 3})
    assert weighted.effective.fleet("inference").capacity.max == 6
    assert any("the fleet's minimum of 4 unit(s) in whole instances of 3 units (the first freeze of this month set 2)"
               in c.reason for c in weighted.changes), weighted.changes
    # not read this time: the earlier cap stays
    kept = respond(policy, alert, policy_ref="eu-prod.yaml", earlier_caps={"inference": 27})
    assert kept.effective.fleet("inference").capacity.max == 27


def test_a_freeze_capped_below_the_planned_reservations_says_what_it_leaves_out() -> None:
    """red team: with --live-sizes a freeze's cap (the units running) can fall below the units the plan
    reserves; the fixed count stops at the cap and the change says how many units it leaves out of the
    projection, instead of calling the cap what the plan holds."""
    from seedance.budget.response import keep_purchases
    from seedance.policy.model import Reserved, ReservedMode

    notes: list[tuple[str, object, object, str]] = []
    auto = Reserved.model_validate({"mode": "auto", "term": "1y"})
    kept = keep_purchases(auto, lambda *a: notes.append(a), "freeze: no growth", 10, 24)
    assert (kept.mode, kept.units) == (ReservedMode.FIXED, 10)
    assert "no reservation beyond 10 of the 24 unit(s) the policy's plan reserves (the new maximum)" in notes[0][3]
    assert notes[1][3].endswith("the other 14, if bought, stay billed idle until their term ends and are not in this "
                                "projection (list them under reserved.held to count them)")
    notes.clear()
    kept = keep_purchases(auto, lambda *a: notes.append(a), "freeze: no growth", 30, 24)
    assert kept.units == 24 and "beyond the 24 unit(s) the policy's plan reserves," in notes[0][3]
    assert notes[1][3] == "freeze: no growth: the policy's plan reserves 24 unit(s)"
