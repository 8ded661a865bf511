"""Fleet months: reserved hours always paid, on-demand base, spot share above the base."""

from __future__ import annotations

import datetime as dt

import pytest

from seedance.estimate import HOURS_PER_MONTH, FleetUsage, estimate_policy, fleet_components
from seedance.estimate.fleet import estimate_date, split_hours, usage_from_policy
from seedance.planner.planner import active_held_units
from seedance.policy.loader import LoadedPolicy
from seedance.policy.model import Fleet, PaymentOption, Reserved, Term
from seedance.pricing.catalog import Catalog


def _usage(**kw: object) -> FleetUsage:
    base = dict(fleet="f", instance_type="g5.xlarge", nodes=4, reserved_units=1, reserved_term=Term.ONE_YEAR,
                reserved_payment=PaymentOption.NO_UPFRONT, on_demand_base=1, spot_share_above_base=0.5)
    base.update(kw)
    return FleetUsage(**base)  # type: ignore[arg-type]


def test_four_g5_xlarge_one_reserved_half_spot_above_base(catalog: Catalog) -> None:
    offer = catalog.instance("us-east-1", "g5.xlarge")
    # the catalog rows the figure comes from (gpu_instance_prices_compact.csv, g5.xlarge, us-east-1)
    ri = offer.reserved[(Term.ONE_YEAR, PaymentOption.NO_UPFRONT)].value
    assert (ri, offer.spot_avg.value, offer.ondemand.value) == (0.63378, 0.39388, 1.006)
    comps = fleet_components(_usage(), offer)
    # 730 × (1 × 0.63378 + 3 × 0.5 × 0.39388 + 3 × 0.5 × 1.006) = 730 × 2.7336 = 1995.528
    assert round(sum(c.monthly_cost for c in comps), 2) == 1995.53
    assert [(c.name, c.monthly_quantity, c.unit_price, round(c.monthly_cost, 2)) for c in comps] == [
        ("Reserved instances (Linux, 1y no-upfront, g5.xlarge)", 730.0, 0.63378, 462.66),
        ("Instance usage (Linux, on-demand, g5.xlarge)", 1095.0, 1.006, 1101.57),
        ("Instance usage (Linux, spot, g5.xlarge)", 1095.0, 0.39388, 431.30),
    ]
    assert all(c.unit == "hours" and c.currency == "USD" and c.price_source for c in comps)
    assert comps[0].price_ref == "gpu_instance_prices_compact.csv[instance_type=g5.xlarge,region=us-east-1].ri_1y_std_no_upfront_hourly"


def test_spot_is_billed_for_the_hours_paid(catalog: Catalog) -> None:
    # a fifth of paid spot time lost to interruptions: the 1095 useful spot hours above are 1095 / 0.8
    # = 1368.75 paid hours, 1368.75 × 0.39388 = 539.12; reserved and on-demand hours do not change
    comps = fleet_components(_usage(spot_lost_fraction=0.2), catalog.instance("us-east-1", "g5.xlarge"))
    assert [(c.monthly_quantity, round(c.monthly_cost, 2)) for c in comps] == [
        (730.0, 462.66), (1095.0, 1101.57), (1368.75, 539.12)]
    with pytest.raises(ValueError, match=r"spot lost fraction must be in \[0, 1\), got 1.0"):
        split_hours(_usage(spot_lost_fraction=1.0))


def test_reserved_units_are_paid_when_idle() -> None:
    # 2 reserved, 0.5 nodes running: still 2 × 730 reserved hours, nothing else
    assert split_hours(_usage(nodes=0.5, reserved_units=2, on_demand_base=2)) == (1460.0, 0.0, 0.0)


def test_base_above_reserved_runs_on_demand() -> None:
    # 5 nodes, 1 reserved, base 3: 2 on-demand in the base, 2 above (1 spot, 1 on-demand)
    r, od, spot = split_hours(_usage(nodes=5, reserved_units=1, on_demand_base=3, spot_share_above_base=0.5))
    assert (r, od, spot) == (730.0, 3 * 730.0, 730.0)


def test_fractional_nodes_and_full_spot() -> None:
    r, od, spot = split_hours(_usage(nodes=2.5, reserved_units=0, on_demand_base=0, spot_share_above_base=1.0))
    assert (r, od, spot) == (0.0, 0.0, 2.5 * HOURS_PER_MONTH)


def test_bad_usage_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match=r"spot share in \[0, 1\]"):
        split_hours(_usage(spot_share_above_base=1.5))


def test_missing_ri_price_is_unpriced_not_zero(catalog: Catalog) -> None:
    offer = catalog.instance("us-east-1", "p5.48xlarge")  # the 2025 data has no p5 RI prices
    comps = fleet_components(_usage(instance_type="p5.48xlarge"), offer)
    ri = comps[0]
    assert ri.monthly_cost is None and ri.unit_price is None and ri.monthly_quantity == 730.0
    assert ri.unpriced_reason == "the price data has no 1y standard no-upfront reserved price for p5.48xlarge in us-east-1"
    assert comps[1].monthly_cost == pytest.approx(1095 * 55.04)


def test_china_spot_is_unpriced_and_cny(catalog: Catalog) -> None:
    offer = catalog.instance("cn-north-1", "g5.xlarge")
    comps = fleet_components(_usage(), offer)
    assert {c.currency for c in comps} == {"CNY"}
    spot = comps[-1]
    assert spot.name == "Instance usage (Linux, spot, g5.xlarge)" and spot.monthly_cost is None
    assert spot.unpriced_reason == "the price data has no spot price for g5.xlarge in cn-north-1"
    # 730 × 6.12219 + 1095 × 9.51389 = 4469.1987 + 10417.70955
    assert round(comps[0].monthly_cost + comps[1].monthly_cost, 2) == 14886.91


def test_offer_must_match_usage(catalog: Catalog) -> None:
    with pytest.raises(ValueError, match="offer is for g5.2xlarge, usage for g5.xlarge"):
        fleet_components(_usage(), catalog.instance("us-east-1", "g5.2xlarge"))


# ---------------------------------------------------------------- held reservations by date (no plan)


def _fleet_with_held(*held: tuple[int, str, str], mode: str = "auto", units: int | None = None) -> Fleet:
    reserved: dict[str, object] = {"mode": mode, "held": [{"units": u, "term": t, "purchased": d} for u, t, d in held]}
    if units is not None:
        reserved["units"] = units
    return Fleet.model_validate({
        "name": "web", "workload": "inference", "sla": "silver", "gpu": {"model": "T4"},
        "capacity": {"min": 1, "desired": 2, "max": 60}, "reserved": reserved,
    })


@pytest.mark.parametrize(
    ("held", "on", "units"),
    [
        ([(50, "1y", "2025-01-01")], "2026-12-01", 0),  # expired on 2026-01-01
        ([(50, "1y", "2025-01-01")], "2025-12-01", 50),  # runs through the month priced (to 2025-12-31)
        ([(50, "1y", "2025-01-01")], "2025-12-02", 0),  # ends within the month priced: replaced, not counted
        ([(5, "1y", "2099-01-01")], "2026-12-01", 0),  # not started
        ([(5, "1y", "2026-12-31")], "2026-12-01", 5),  # queued to start within the month priced
        ([(5, "3y", "2024-06-01"), (3, "1y", "2026-11-30"), (7, "1y", "2020-01-01")], "2026-12-01", 8),
        ([(2, "1y", "2024-02-29")], "2025-01-29", 0),  # a leap-day purchase ends on 28 February
        ([(2, "1y", "2024-02-29")], "2025-01-28", 2),
    ],
)
def test_usage_from_policy_counts_only_active_commitments(held: list[tuple[int, str, str]], on: str, units: int) -> None:
    day = dt.date.fromisoformat(on)
    fleet = _fleet_with_held(*held)
    usage = usage_from_policy(fleet, "g4dn.xlarge", day)
    assert usage.reserved_units == units == active_held_units(fleet, day)  # the planner's own count
    assert usage.on_demand_base == units


def test_fixed_mode_keeps_the_larger_of_units_and_active_held() -> None:
    fleet = _fleet_with_held((9, "1y", "2020-01-01"), (1, "1y", "2026-06-01"), mode="fixed", units=3)
    assert usage_from_policy(fleet, "g4dn.xlarge", dt.date(2026, 12, 1)).reserved_units == 3


def test_estimate_without_a_plan_bills_no_expired_or_future_reservation(stacks: dict[str, LoadedPolicy], catalog: Catalog) -> None:
    policy = stacks["dev"].policy
    held = Reserved.model_validate({"mode": "auto", "held": [
        {"units": 50, "term": "1y", "purchased": "2000-01-01"}, {"units": 50, "term": "3y", "purchased": "2099-01-01"}]})
    fleets = [f.model_copy(update={"reserved": held}) if f.name == "inference" else f for f in policy.fleets]
    est = estimate_policy(policy.model_copy(update={"fleets": fleets}), catalog)
    inference = next(r for r in est.resources if r.kind == "fleet" and r.name == "inference")
    assert not [c for c in inference.components if c.name.startswith("Reserved")]
    # desired 1, on-demand: dev's inference tolerates only the low interruption bands, and every A10G
    # type of us-east-1 is in a higher one, so the planner (and the estimate without a plan) runs no spot
    hours = {c.name.split(", ")[1]: c.monthly_quantity for c in inference.components if c.unit == "hours"}
    assert hours == pytest.approx({"on-demand": HOURS_PER_MONTH})
    assert any("0 of 100 held reserved unit(s) counted: those running through the month priced" in n for n in inference.notes)


def test_estimate_date_comes_from_the_context_when_it_has_one() -> None:
    class Ctx:
        plan = None
        as_of = dt.date(2025, 6, 1)

    assert estimate_date(Ctx()) == dt.date(2025, 6, 1)  # type: ignore[arg-type]
    Ctx.as_of = None  # type: ignore[assignment]
    assert estimate_date(Ctx()) == dt.datetime.now(dt.UTC).date()  # type: ignore[arg-type]


def test_a_dearer_spot_pool_the_group_lists_is_noted(catalog: Catalog) -> None:
    from seedance.estimate.fleet import dearer_spot_pool

    offer = catalog.instance("us-east-1", "g5.xlarge")
    usage = _usage(nodes=5, reserved_units=0, on_demand_base=1, spot_share_above_base=1.0)  # 4 × 730 spot hours
    dearer = catalog.instance("us-east-1", "g5.2xlarge")
    assert dearer.spot_avg.value > offer.spot_avg.value
    note = dearer_spot_pool(catalog, "us-east-1", [("g5.xlarge", 1), ("g5.2xlarge", 1)], usage)
    extra = 4 * 730 * (dearer.spot_avg.value - offer.spot_avg.value)
    assert note is not None and f"up to g5.2xlarge ({dearer.spot_avg.value:.4g} per unit)" in note
    assert f"would cost {extra:,.2f} USD more a month" in note
    # per unit of work: serving two units, g5.2xlarge (0.43682) is cheaper per unit than g5.xlarge (0.39388)
    assert (dearer.spot_avg.value, offer.spot_avg.value) == (0.43682, 0.39388)
    assert dearer_spot_pool(catalog, "us-east-1", [("g5.xlarge", 1), ("g5.2xlarge", 2)], usage) is None
    # no spot hours, or the priced type the dearest: nothing to say
    assert dearer_spot_pool(catalog, "us-east-1", [("g5.xlarge", 1), ("g5.2xlarge", 1)], _usage(spot_share_above_base=0.0)) is None
    assert dearer_spot_pool(catalog, "us-east-1", [("g5.xlarge", 1)], usage) is None


def test_the_estimate_notes_eu_prods_dearer_spot_pools_by_plan_and_by_policy(catalog: Catalog) -> None:
    from pathlib import Path

    from seedance.planner.planner import plan_policy
    from seedance.policy import load_policy

    loaded = load_policy(Path(__file__).resolve().parents[2] / "stacks" / "policies" / "eu-prod.yaml")
    # p4d.24xlarge lists at 14.87 USD an hour on spot against the priced p4de.24xlarge's 10.76 (both one unit)
    for est in (estimate_policy(loaded, catalog), estimate_policy(loaded, catalog, plan_policy(loaded, catalog))):
        fleet = next(r for r in est.resources if r.name == "llm-train")
        spot_hours = next(c.monthly_quantity for c in fleet.components if c.name == "Instance usage (Linux, spot, p4de.24xlarge)")
        notes = [n for n in fleet.notes if "dearer pools" in n]
        assert len(notes) == 1 and "up to p4d.24xlarge (14.87 per unit)" in notes[0]
        per_hour = [catalog.instance("eu-central-1", t).spot_avg.value for t in ("p4d.24xlarge", "p4de.24xlarge")]
        assert f"would cost {spot_hours * (per_hour[0] - per_hour[1]):,.2f} USD more a month" in notes[0]
    # batch-embed's plan lists g4dn.12xlarge (4 units) too, but a group the Cluster Autoscaler manages
    # lists only the 1-unit types: its dearest pool is g4dn.2xlarge; without a cluster the group lists
    # every type, g4dn.12xlarge (0.4805 per unit) included
    per_unit = {t: catalog.instance("eu-central-1", t).spot_avg.value / w
                for t, w in (("g4dn.xlarge", 1), ("g4dn.2xlarge", 1), ("g4dn.12xlarge", 4))}
    for cluster, dearest in ((True, "g4dn.2xlarge"), (False, "g4dn.12xlarge")):
        plan = plan_policy(loaded, catalog, cluster=cluster)
        assert "g4dn.12xlarge" in [c.instance_type for c in plan.fleet("batch-embed").instance_types]
        for est in (estimate_policy(loaded, catalog, cluster=cluster), estimate_policy(loaded, catalog, plan, cluster=cluster)):
            fleet = next(r for r in est.resources if r.name == "batch-embed")
            spot_hours = next(c.monthly_quantity for c in fleet.components if c.name == "Instance usage (Linux, spot, g4dn.xlarge)")
            notes = [n for n in fleet.notes if "dearer pools" in n]
            assert len(notes) == 1 and f"up to {dearest} ({per_unit[dearest]:.4g} per unit)" in notes[0]
            assert f"would cost {spot_hours * (per_unit[dearest] - per_unit['g4dn.xlarge']):,.2f} USD more" in notes[0]
