"""Planner decisions the 2026-12 planner audit found wrong (its findings 1-14).

Every expected value is worked out by hand in the comment next to it; the offers are the small
made-up ones of ``test_planner.py`` unless a test says otherwise.
"""

import datetime as dt
import logging
from pathlib import Path

import numpy as np
import pytest

from seedance.gpus import GpuModel
from seedance.planner import planner as planner_mod
from seedance.planner.instances import OfferView, Requirement, rank_instances
from seedance.planner.plan import FleetPlan, on_demand_percentage
from seedance.planner.planner import FleetInputs, plan_fleet, plan_policy
from seedance.planner.reserved import commit_now
from seedance.planner.spot import band_hourly_rate
from seedance.policy import load_policy
from seedance.policy.model import Fleet
from seedance.pricing.catalog import load_catalog

REPO = Path(__file__).resolve().parents[2]
HISTORY_POLICY = Path(__file__).resolve().parent / "policies" / "eu-history.yaml"

A10G, T4 = GpuModel.A10G, GpuModel.T4
OFFERS = [
    OfferView("g5.xlarge", 4, 16, 1, A10G, 24, 1.0, 0.4, 5.0),
    OfferView("g5.2xlarge", 8, 32, 1, A10G, 24, 1.2, 0.5, 5.0),
    OfferView("g5.12xlarge", 48, 192, 4, A10G, 96, 5.6, 1.6, 5.0),
]
RESERVED = {"g5.xlarge": 0.6, "g5.2xlarge": 0.75, "g5.12xlarge": 3.4}


def fleet(**over: object) -> Fleet:
    doc: dict[str, object] = {"name": "inference", "workload": "inference", "sla": "silver",
                              "gpu": {"model": "A10G", "count": 1, "memoryGib": 24},
                              "capacity": {"min": 1, "desired": 4, "max": 12}, "spot": {"maxShare": 0.5},
                              "reserved": {"mode": "auto", "term": "1y"}}
    doc.update(over)
    return Fleet.model_validate(doc)


def plan(f: Fleet, history: list[float] | None = None, held: int = 0, offers: list[OfferView] = OFFERS) -> FleetPlan:
    return plan_fleet(FleetInputs(f, offers, RESERVED, None if history is None else np.asarray(history, float),
                                  0, held, "eu-central-1")).plan


POLICY_HEAD = """apiVersion: seedance.io/v1
kind: CostPolicy
metadata: {name: audit, environment: prod, owner: a@example.com, tags: {team: t, cost-center: CC-1}}
cloud:
  region: us-east-1
  availabilityZones: [us-east-1a]
  vpcId: vpc-0e1a2b3c4d5e6f701
  subnetIds: [subnet-0a1b2c3d4e5f60001]
budget: {monthlyAmount: 100000}
fleets:
  - name: f
    workload: inference
    sla: silver
    gpu: {model: A10G, count: 1, memoryGib: 24}
    capacity: {min: 0, desired: 1, max: 40}
    demandHistory: d.csv
"""


def write_policy(tmp_path: Path, start: dt.datetime, values: list[float]) -> Path:
    rows = [f"{(start + dt.timedelta(hours=i)).strftime('%Y-%m-%dT%H:%M:%SZ')},{v}" for i, v in enumerate(values)]
    (tmp_path / "d.csv").write_text("hour,demand\n" + "\n".join(rows) + "\n")
    (tmp_path / "p.yaml").write_text(POLICY_HEAD)
    return tmp_path / "p.yaml"


@pytest.fixture(scope="module")
def catalog():  # type: ignore[no-untyped-def]
    return load_catalog()


# 1 -------------------------------------------------------------- capacity.min with a history


def test_reserves_the_minimum_the_group_always_runs_with_a_history():
    # demand 2 every hour, but the group never runs fewer than min 6: six units run every hour, and
    # reserved 0.6 < on-demand 1.0 (no spot), so each of the 6 layers pays for itself
    d = plan(fleet(spot=None, capacity={"min": 6, "desired": 6, "max": 10}), [2.0] * 336)
    assert d.reserved_units == 6 and d.new_purchases == [("1y", 6)]
    assert "raised to the fleet minimum 6" in d.rationale["demand"]


def test_the_minimum_floors_every_hour_of_the_expected_size_not_the_mean():
    # 12 h at 0 and 12 h at 8 every day, min 4: the group runs 4 in the quiet hours and 8 in the busy
    # ones, 6 on average; flooring the mean (4) instead would bill a third less than runs
    d = plan(fleet(spot=None, capacity={"min": 4, "desired": 4, "max": 10}, reserved={"mode": "none"}),
             ([0.0] * 12 + [8.0] * 12) * 14)
    assert d.expected_nodes == pytest.approx(6.0, abs=0.05)


# 2 -------------------------------------------------------------- default decision point


def test_without_as_of_history_after_today_is_not_read(tmp_path, catalog):
    # 1 unit until two days after today (real clock), 20 after: none of the 20s may be read
    today = dt.datetime.now(dt.UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    start = today - dt.timedelta(days=30)
    values = [1.0] * (32 * 24) + [20.0] * (30 * 24)
    p = plan_policy(load_policy(write_policy(tmp_path, start, values)), catalog)
    assert p.fleet("f").reserved_units == 1
    assert p.as_of == today.date().isoformat()  # the date used is always recorded


def test_the_clock_is_injectable_and_cuts_at_midnight_utc(tmp_path, catalog):
    start = dt.datetime(2026, 11, 1, tzinfo=dt.UTC)
    values = [1.0] * (30 * 24) + [20.0] * (5 * 24)  # 20 from 2026-12-01 00:00 UTC
    loaded = load_policy(write_policy(tmp_path, start, values))
    # 23:30 on 1 December in UTC-5 is 04:30 on 2 December UTC: the decision point is 2026-12-02
    # 00:00 UTC, so 1 November .. 1 December is read: 31 days = 744 h, the last 24 of them the 20s
    p = plan_policy(loaded, catalog, clock=lambda: dt.datetime(2026, 12, 1, 23, 30,
                                                                tzinfo=dt.timezone(dt.timedelta(hours=-5))))
    assert p.as_of == "2026-12-02"
    assert p.fleet("f").rationale["demand"].startswith("744 h of history from d.csv up to the decision point")
    # at 18:00 UTC on 1 December: 30 days = 720 h, all of them 1 unit
    p = plan_policy(loaded, catalog, clock=lambda: dt.datetime(2026, 12, 1, 18, 0, tzinfo=dt.UTC))
    assert p.as_of == "2026-12-01" and p.fleet("f").reserved_units == 1
    assert p.fleet("f").rationale["demand"].startswith("720 h of history from d.csv up to the decision point")


# 3 -------------------------------------------------------------- held units above capacity.max


def test_held_units_above_the_maximum_keep_the_plan_deployable():
    from components.fleet import SpotRiFleetArgs

    f = fleet(spot=None, capacity={"min": 0, "desired": 2, "max": 3})
    d = plan(f, held=5)
    # 5 held, the group runs at most 3: base 3, and the 2 above it bill idle
    assert (d.reserved_units, d.on_demand_base, d.new_purchases) == (5, 3, [])
    assert "the 2 above the maximum never run and bill idle" in d.rationale["on_demand_base"]
    SpotRiFleetArgs(fleet=f, plan=d, vpc_id="vpc-1", subnet_ids=["s"], availability_zones=["a"],
                    kms_key_arn="k").validate()


# 4 -------------------------------------------------------------- units vs instances


def _w4(**over: object) -> Fleet:
    return fleet(spot=None, instanceTypes={"allowed": ["g5.12xlarge"]}, capacity={"min": 0, "desired": 8, "max": 8},
                 **over)


def test_weighted_type_reports_units_and_buys_whole_instances():
    # 7 units every hour on g5.12xlarge (4 units): 1.75 instances. Reserved 3.4 vs on-demand 5.6 per
    # instance: a layer pays when busy > 61% of the hours; layer 1 is busy 100%, layer 2 75% -> 2
    # instances = 8 units
    d = plan(_w4(), [7.0] * 336)
    assert (d.reserved_units, d.new_purchases) == (8, [("1y", 8)])
    assert "2 g5.12xlarge instance(s) (4 units each)" in d.rationale["reserved"]
    assert "8 reserved in all" in d.rationale["reserved"]


def test_held_units_are_rounded_down_to_whole_instances():
    # 9 held = 2 whole instances (8 units) + 1: the 2 instances the demand wants are held, buy nothing
    d = plan(_w4(), [7.0] * 336, held=9)
    assert (d.reserved_units, d.new_purchases) == (9, [])
    assert "rounded down to 2 whole g5.12xlarge instance(s)" in d.rationale["reserved"]
    # 3 held fill no instance: buy the 2 instances (8 units), 11 reserved in all; never a part instance
    d = plan(_w4(), [7.0] * 336, held=3)
    assert (d.reserved_units, d.new_purchases) == (11, [("1y", 8)])


def test_fixed_units_are_bought_in_whole_instances():
    # fixed 5 units = 1.25 g5.12xlarge: one whole instance (4 units) is bought and billed
    d = plan(_w4(reserved={"mode": "fixed", "units": 5}))
    assert (d.reserved_units, d.new_purchases) == (4, [("1y", 4)])
    assert "1 whole instance(s) = 4 units" in d.rationale["reserved"]


# 5 -------------------------------------------------------------- training without checkpoints


def test_training_without_a_checkpoint_block_gets_no_spot(caplog):
    # without checkpoints an interruption loses the whole job so far: no spot, and the reason says so
    train = {"workload": "training", "sla": "bronze", "spot": {"maxShare": 1.0, "interruptionTolerance": "high"}}
    with caplog.at_level(logging.WARNING, logger="seedance.planner.planner"):
        d = plan(fleet(**train), [3.0] * 48)
    assert d.spot_share_above_base == 0 and d.checkpoint_interval_s is None
    assert "without a checkpoint block" in d.rationale["spot"] and "add checkpoint" in d.rationale["spot"]
    assert any("without a checkpoint block" in r.message for r in caplog.records)
    # the same fleet with a checkpoint block uses spot (band <5%: effective 0.4 / (1 - f) << 1.0)
    assert plan(fleet(**train, checkpoint={"writeSeconds": 60}), [3.0] * 48).spot_share_above_base == 1.0


# 6 -------------------------------------------------------------- deployed spot never above maxShare


def test_on_demand_percentage_rounds_up():
    assert on_demand_percentage(0.337) == 67  # 66.3 -> 67: 33 % spot <= 33.7 %
    assert on_demand_percentage(0.7) == 30 and on_demand_percentage(0.3) == 70  # float noise is not rounded up
    assert on_demand_percentage(0.0) == 100 and on_demand_percentage(1.0) == 0
    for k in range(1001):
        share = k / 1000
        assert 100 - on_demand_percentage(share) <= 100 * share + 1e-9, share


def test_spot_share_is_the_whole_percent_that_deploys():
    d = plan(fleet(spot={"maxShare": 0.337}), [3.0] * 48)
    assert d.spot_share_above_base == 0.33 and d.on_demand_percentage_above_base == 67
    assert "above it 33% spot (OnDemandPercentageAboveBaseCapacity 67)" in d.rationale["on_demand_base"]


# 7 -------------------------------------------------------------- stale history


def test_a_stale_history_is_stated_and_warned(catalog, caplog):
    # inference.csv's last hour is 2024-05-29T08:00Z, so it ends at 09:00; 2024-07-01 00:00 is
    # 32 days 15 h = 783 h later (32.6 days)
    with caplog.at_level(logging.WARNING, logger="seedance.planner.planner"):
        p = plan_policy(load_policy(HISTORY_POLICY), catalog, as_of=dt.date(2024, 7, 1))
    assert "ending 32.6 days before the decision point" in p.fleet("inference").rationale["demand"]
    assert any("inference (../../../stacks/demand/inference.csv: ends 2024-05-29, 32.6 days before)" in r.message
               for r in caplog.records)
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="seedance.planner.planner"):
        p = plan_policy(load_policy(HISTORY_POLICY), catalog, as_of=dt.date(2024, 5, 30))  # 15 h: current
    assert "up to the decision point" not in p.fleet("inference").rationale["demand"]
    assert "ending 15 h before the decision point" in p.fleet("inference").rationale["demand"]
    assert not caplog.records


# 8 -------------------------------------------------------------- what the reserved rule is


def test_readme_does_not_call_the_reserved_rule_an_exact_minimiser():
    text = (REPO / "README.md").read_text(encoding="utf-8")
    planning = text[text.index("## Planning"):text.index("## Estimates and prices")]
    assert "exact minimiser" not in planning and "receding-horizon" in planning


# 9 -------------------------------------------------------------- spot billed as paid


def test_spot_hours_are_billed_at_the_effective_rate(catalog):
    from seedance.estimate import estimate_policy

    loaded = load_policy(REPO / "stacks" / "policies" / "dev.yaml")
    p = plan_policy(loaded, catalog, as_of=dt.date(2026, 6, 1))
    f = p.fleet("batch-embed")
    # batch-embed: all spot on g4dn.xlarge (band >20%: 600 / 3066 = 0.195695/h), stateless: 300 s lost
    # per interruption, f = 0.195695 x 300 / 3600 = 0.0163079; 2 nodes on average (1, and 4 for 8 h a day)
    spot = next(c for c in f.cost_components if ", spot," in c["name"])
    assert spot["monthly_quantity"] == pytest.approx(2 * 730 / (1 - 0.0163079), rel=1e-6)
    assert spot["monthly_cost"] == pytest.approx(2 * 730 / (1 - 0.0163079) * 0.1766, rel=1e-6)
    # the estimate of the plan bills the same hours
    est = estimate_policy(loaded, catalog, p)
    assert est.by_fleet["batch-embed"] == pytest.approx(f.monthly_cost)


# 10 ------------------------------------------------------------- rationales that matched no number


def test_gold_without_history_reserves_its_first_node_and_says_so():
    # blended 0.4 / (1 - ~0) < reserved 0.6 < on-demand 1.0: only the gold fleet's first node pays
    d = plan(fleet(sla="gold", spot={"maxShare": 1.0}, capacity={"min": 4, "desired": 6, "max": 10}))
    assert d.reserved_units == 1
    assert "first node (1 of the minimum 4)" in d.rationale["reserved"]
    assert "reserve the fleet's minimum" not in d.rationale["reserved"]


def test_held_above_the_rule_names_what_it_would_reserve():
    # 5 units every hour, reserved 1 vs blended 3: the rule reserves 5; 8 are held and kept
    d = commit_now([5.0] * 10, 1, 3, held=8)
    assert d.units == 8
    assert d.rationale.startswith("8 unit(s) already held, never reduced; with none held the rule would reserve 5")


def test_a_disabled_gold_fleet_says_so():
    d = plan(fleet(sla="gold", spot={"maxShare": 1.0}, capacity={"min": 0, "desired": 0, "max": 0}))
    assert (d.on_demand_base, d.spot_share_above_base) == (0, 0.0)
    assert d.rationale["on_demand_base"] == "0: the fleet is disabled (capacity.max 0)"
    assert "disabled" in d.rationale["spot"]


def test_a_short_history_is_not_called_none():
    d = plan(fleet(), [3.0] * 10)
    assert d.rationale["demand"].startswith("only 10 h of demand history (under 24 h: treated as none)")


def test_allocation_strategy_without_spot_says_it_has_no_effect():
    d = plan(fleet(spot={"maxShare": 0}), [3.0] * 48)
    assert d.rationale["allocation_strategy"].endswith("no capacity is planned on spot, so it has no effect")


# 11 ------------------------------------------------------------- interruption tolerance


@pytest.mark.parametrize(("tolerance", "band", "share"), [
    ("low", 5.0, 0.5), ("low", 11.0, 0.5), ("low", 16.0, 0.0),
    ("medium", 22.0, 0.5), ("medium", 100.0, 0.0), ("high", 100.0, 0.5),
])
def test_interruption_tolerance_bounds_the_spot_bands(tolerance, band, share):
    offers = [OfferView("g5.xlarge", 4, 16, 1, A10G, 24, 1.0, 0.4, band)]
    d = plan(fleet(spot={"maxShare": 0.5, "interruptionTolerance": tolerance}), [3.0] * 48, offers=offers)
    assert d.spot_share_above_base == share
    if not share:
        assert f"above the fleet's interruptionTolerance {tolerance}" in d.rationale["spot"]


# 13 ------------------------------------------------------------- hour of week of the forecast


def test_the_forecast_gets_the_history_s_first_hour_of_week(tmp_path, catalog, monkeypatch):
    seen: list[FleetInputs] = []
    real = planner_mod.plan_fleet
    monkeypatch.setattr(planner_mod, "plan_fleet", lambda inp: seen.append(inp) or real(inp))
    # 2024-01-03 was a Wednesday: 2 x 24 + 5 = 53 hours into the week at 05:00 UTC
    plan_policy(load_policy(write_policy(tmp_path, dt.datetime(2024, 1, 3, 5, tzinfo=dt.UTC), [1.0] * 30)),
                catalog, as_of=dt.date(2024, 1, 5))
    assert [i.start_hour_of_week for i in seen] == [53]


# 14 ------------------------------------------------------------- spot pools


def test_spot_pools_count_only_types_spot_can_launch():
    offers = [OfferView("g4dn.xlarge", 4, 16, 1, T4, 16, 0.5, 0.2, 5.0),
              OfferView("g4dn.2xlarge", 8, 32, 1, T4, 16, 0.8, None, None),
              OfferView("g4dn.4xlarge", 16, 64, 1, T4, 16, 1.2, None, None)]
    r = rank_instances(offers, Requirement(T4, 1, max_units=4), max_spot_share=0.5,
                       lost_fraction=lambda rate: 0.0, tolerance="high")
    assert len(r.ranked) == 3
    assert "only 1 of them with a spot price and an interruption band" in r.rationale
    assert "fewer than the 3 spot pools wanted" in r.rationale


def test_the_open_band_rate_these_comments_use():
    assert band_hourly_rate(100.0) == pytest.approx(0.195695, rel=1e-5)  # 600 / 3066


def test_a_group_that_runs_spot_lists_no_type_the_fleet_may_not_run_on_spot():
    # g5.xlarge is in the >20% band, above the default tolerance (medium): on-demand only. The group's
    # spot share would apply to it too (AWS picks spot pools among every listed type), so it is left out
    offers = [OfferView("g5.xlarge", 4, 16, 1, A10G, 24, 1.0, 0.3, 25.0), *OFFERS[1:]]
    d = plan(fleet(reserved={"mode": "none"}), [4.0] * 336, offers=offers)
    assert d.spot_share_above_base == 0.5
    assert [t.instance_type for t in d.instance_types] == ["g5.2xlarge", "g5.12xlarge"]
    assert "left out of the group, which runs spot above its base: g5.xlarge" in d.rationale["instance_types"]
    # without spot in the plan, the on-demand-only type stays a choice (here the cheapest)
    d = plan(fleet(reserved={"mode": "none"}, spot=None), [4.0] * 336, offers=offers)
    assert [t.instance_type for t in d.instance_types][0] == "g5.xlarge"


def test_a_gold_fleet_reserves_the_node_its_group_runs_on_demand():
    # gold, 80% spot allowed, 10 units all the time. The group's on-demand base is max(reserved, 1), so
    # its first node runs on-demand (1.0/h) whatever the spot share; reserving it (0.6/h) pays. Each
    # layer above it runs 80% on spot, at a blend well under 0.6, and is not reserved.
    offers = [OFFERS[0]]
    d = plan(fleet(sla="gold", spot={"maxShare": 0.8}), [10.0] * 336, offers=offers)
    assert d.spot_share_above_base == 0.8
    assert d.reserved_units == 1 and d.on_demand_base == 1


def test_a_type_of_several_units_runs_and_reserves_whole_instances():
    # 10 units of 1 A10G on g5.12xlarge (4 units each): the group runs 3 instances every hour (12
    # units), not 2.5; all three are busy every hour, so all three are worth reserving (3.4 < the
    # instance's blend of spot and on-demand, 0.5 x 1.6/(1 - lost) + 0.5 x 5.6 >= 3.6)
    d = plan(fleet(instanceTypes={"allowed": ["g5.12xlarge"]}), [10.0] * 336)
    assert [t.instance_type for t in d.instance_types] == ["g5.12xlarge"]
    assert d.expected_nodes == pytest.approx(12.0)
    assert d.reserved_units == 12 and d.new_purchases == [("1y", 12)]
    assert "in whole g5.12xlarge instances of 4 units" in d.rationale["demand"]
    # without a history: desired 4 units is one instance, 6 would be two
    assert plan(fleet(instanceTypes={"allowed": ["g5.12xlarge"]}, capacity={"min": 1, "desired": 6, "max": 12})).expected_nodes == 8.0


def test_the_first_type_is_the_one_whose_month_is_cheapest_with_its_reservations():
    # g5.2xlarge ranks first on spot (g5.xlarge's band is above the tolerance: on-demand only), but a
    # flat demand of 10 is all reserved: 10 x 0.75 = 7.5 an hour on g5.2xlarge, 10 x 0.6 = 6.0 on
    # g5.xlarge. The plan puts g5.xlarge first and says why.
    offers = [OfferView("g5.xlarge", 4, 16, 1, A10G, 24, 1.0, 0.3, 25.0), *OFFERS[1:]]
    d = plan(fleet(), [10.0] * 336, offers=offers)
    assert [t.instance_type for t in d.instance_types][0] == "g5.xlarge"
    assert d.reserved_units == 10 and d.spot_share_above_base == 0.0
    assert "g5.xlarge first, not g5.2xlarge" in d.rationale["instance_types"]
    # recording the purchase does not move the fleet off the type it was bought for: the choice is
    # made as if nothing were held (it once fell back to g5.2xlarge, stranding the reservations)
    held = plan(fleet(), [10.0] * 336, held=10, offers=offers)
    assert held.instance_types[0].instance_type == "g5.xlarge" and held.reserved_units == 10 and held.new_purchases == []
    assert "both with nothing held" in held.rationale["instance_types"]
    # a preferred type comes first as the policy gives it
    preferred = fleet(instanceTypes={"preferred": ["g5.2xlarge"]})
    assert plan(preferred, [10.0] * 336, offers=offers).instance_types[0].instance_type == "g5.2xlarge"


def test_the_first_type_is_of_the_smallest_weight():
    # g5.12xlarge (4 units per instance) ranks first on spot, but a group the Cluster Autoscaler
    # manages lists only the 1-unit types: reservations and base on it would never run there
    offers = [*OFFERS[:2], OfferView("g5.12xlarge", 48, 192, 4, A10G, 96, 3.6, 1.0, 5.0)]
    d = plan(fleet(capacity={"min": 4, "desired": 8, "max": 12}), [8.0] * 336, offers=offers)
    assert [t.instance_type for t in d.instance_types][0] == "g5.xlarge"
    assert "g5.xlarge first, not g5.12xlarge, which holds 4 units per instance" in d.rationale["instance_types"]
    assert {t.instance_type for t in d.instance_types} == {"g5.xlarge", "g5.2xlarge", "g5.12xlarge"}  # spot pools stay

    # a preferred list none of whose types qualifies puts nothing first: the rule still holds
    d = plan(fleet(capacity={"min": 4, "desired": 8, "max": 12}, instanceTypes={"preferred": ["m5.xlarge"]}),
             [8.0] * 336, offers=offers)
    assert [t.instance_type for t in d.instance_types][0] == "g5.xlarge"


def test_a_heavier_preferred_type_goes_first_and_a_managed_group_runs_it():
    # the policy prefers g5.12xlarge (4 units): it goes first as asked, and the rationale says a
    # Cluster Autoscaler group lists only the types of its weight, so it runs what the plan reserves
    d = plan(fleet(capacity={"min": 4, "desired": 8, "max": 12}, instanceTypes={"preferred": ["g5.12xlarge"]}), [8.0] * 336)
    assert d.instance_types[0].instance_type == "g5.12xlarge"
    assert ("g5.12xlarge holds 4 units per instance: a group the Cluster Autoscaler manages lists only the types of its "
            "weight (g5.12xlarge), in whole instances of 4 units, not the 1-unit types") in d.rationale["instance_types"]
    assert d.node_weight == 4 and [c.instance_type for c in d.group_types(autoscaler_managed=True)] == ["g5.12xlarge"]
    assert len(d.group_types(autoscaler_managed=False)) == len(d.instance_types) > 1
