"""Decisions a second planner red team found wrong: the spot pools a group lists, the all-on-demand
baseline, the share rounding, the default restart time and the month billed hour by hour.

Offers are made up (``OfferView``: type, vCPU, GiB, GPUs, model, GPU GiB, on-demand, spot, Spot
Advisor band upper bound %)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from seedance.estimate.fleet import HOURS_PER_MONTH, FleetUsage, profile_layers, split_hours
from seedance.gpus import GpuModel
from seedance.planner.instances import OfferView
from seedance.planner.planner import FleetInputs, lost_fraction_fn, plan_fleet
from seedance.planner.spot import DEFAULT_REPLACEMENT_S, band_hourly_rate, whole_percent_share
from seedance.policy.model import Fleet, PaymentOption, Term

A100 = GpuModel.A100


def _training(**over: object) -> Fleet:
    doc: dict[str, object] = {"name": "train", "workload": "training", "sla": "bronze",
                              "gpu": {"model": "A100", "count": 8}, "capacity": {"min": 0, "desired": 2, "max": 8},
                              "spot": {"maxShare": 0.7, "interruptionTolerance": "high"}, "reserved": {"mode": "none"},
                              "checkpoint": {"writeSeconds": 180, "restartSeconds": 600}}
    doc.update(over)
    return Fleet.model_validate(doc)


def _decide(fleet: Fleet, offers: list[OfferView], history: list[float] | None = None):  # noqa: ANN202
    return plan_fleet(FleetInputs(fleet, offers, {}, None if history is None else np.asarray(history, float), 0, 0,
                                  "us-west-2"))


def test_interruptions_are_priced_at_the_most_interrupted_pool_the_group_lists() -> None:
    # p4d in the 15-20% band is first (cheaper); p4de, in the open >20% band, is a spot pool too
    offers = [OfferView("p4d.24xlarge", 96, 1152, 8, A100, 320, 21.96, 5.0, 22.0),
              OfferView("p4de.24xlarge", 96, 1152, 8, A100, 640, 27.45, 6.5, 100.0)]
    fp = _decide(_training(), offers).plan
    assert [c.instance_type for c in fp.instance_types] == ["p4d.24xlarge", "p4de.24xlarge"]
    assert fp.spot_share_above_base == 0.7
    worst = band_hourly_rate(100.0)
    assert fp.interruption_rate_per_hour == pytest.approx(worst)
    # the interval holds on p4de: Young/Daly at its mean time between interruptions (5.1 h), not
    # p4d's (122 days), and the overhead is p4de's
    mtbi_s = 3600 / worst
    assert fp.checkpoint_interval_s < mtbi_s / 2
    assert fp.checkpoint_overhead == pytest.approx(lost_fraction_fn(_training())(worst))
    assert "most interrupted spot pool, p4de.24xlarge (band >20%)" in fp.rationale["spot"]
    # alone in its band, p4d keeps its own rate
    alone = _decide(_training(), offers[:1]).plan
    assert alone.interruption_rate_per_hour == pytest.approx(band_hourly_rate(22.0))
    assert alone.checkpoint_interval_s > fp.checkpoint_interval_s


def test_a_type_no_cheaper_on_spot_is_left_out_of_a_spot_group() -> None:
    fleet = _training(workload="inference", checkpoint=None, spot={"maxShare": 1.0, "interruptionTolerance": "high"})
    offers = [OfferView("p4d.24xlarge", 96, 1152, 8, A100, 320, 21.96, 5.0, 5.0),
              OfferView("p4de.24xlarge", 96, 1152, 8, A100, 640, 27.45, 27.45, 5.0)]  # spot = on-demand
    fp = _decide(fleet, offers).plan
    assert fp.spot_share_above_base == 1.0
    assert [c.instance_type for c in fp.instance_types] == ["p4d.24xlarge"]
    assert "p4de.24xlarge (no spot price or interruption band, a band above the tolerance, or spot no cheaper" \
        in fp.rationale["instance_types"]


def test_all_on_demand_runs_the_smallest_of_equally_priced_types() -> None:
    fleet = _training(gpu={"model": "V100", "count": 1}, workload="inference", checkpoint=None,
                      capacity={"min": 0, "desired": 1, "max": 8}, spot={"maxShare": 0.5})
    v100 = GpuModel.V100
    offers = [OfferView("p3.8xlarge", 32, 244, 4, v100, 64, 12.24, 1.6, 5.0),  # ranks first on spot
              OfferView("p3.2xlarge", 8, 61, 1, v100, 16, 3.06, 0.9, 5.0),
              OfferView("p3.16xlarge", 64, 488, 8, v100, 128, 24.48, 5.0, 5.0)]
    dec = _decide(fleet, offers)
    assert dec.ondemand_type == ("p3.2xlarge", 1)


def _cpu(**over: object) -> Fleet:
    doc: dict[str, object] = {"name": "web", "workload": "inference", "sla": "silver", "cpu": {"vcpu": 2, "memoryGib": 8},
                              "capacity": {"min": 5, "desired": 5, "max": 9}, "reserved": {"mode": "auto", "term": "1y"}}
    doc.update(over)
    return Fleet.model_validate(doc)


def test_all_on_demand_runs_a_type_the_plans_group_lists() -> None:
    # m5.xlarge holds 2 units of 2 vCPU / 8 GiB: 0.192 / 2 = 0.096 per unit, cheaper than c5.xlarge's
    # 0.17, but a group the Cluster Autoscaler manages lists only the 1-unit types (c5.xlarge), so
    # all on-demand is that group run on-demand: c5.xlarge, not m5.xlarge
    offers = [OfferView("c5.xlarge", 4, 8, 0, None, 0, 0.17), OfferView("m5.xlarge", 4, 16, 0, None, 0, 0.192)]
    dec = plan_fleet(FleetInputs(_cpu(), offers, {"c5.xlarge": 0.107}, None, 0, 0, "us-east-1"))
    assert [(c.instance_type, c.weight) for c in dec.plan.instance_types] == [("c5.xlarge", 1), ("m5.xlarge", 2)]
    assert dec.ondemand_type == ("c5.xlarge", 1)


def test_all_on_demand_runs_the_groups_type_cheapest_on_demand() -> None:
    # two 1-unit types: b is cheaper on-demand (0.9 against 1.0) but has no reserved price; with the
    # minimum of 4 reserved, a's month is 4 x 730 x 0.5 = 1,460 against b's 4 x 730 x 0.9 = 2,628, so a
    # goes first; all on-demand still runs b, the cheapest the same group runs without reservations
    offers = [OfferView("a.xlarge", 4, 8, 0, None, 0, 1.0), OfferView("b.xlarge", 4, 8, 0, None, 0, 0.9)]
    fleet = _cpu(capacity={"min": 4, "desired": 4, "max": 8})
    dec = plan_fleet(FleetInputs(fleet, offers, {"a.xlarge": 0.5}, None, 0, 0, "us-east-1"))
    assert dec.plan.instance_types[0].instance_type == "a.xlarge" and dec.plan.reserved_units == 4
    assert dec.ondemand_type == ("b.xlarge", 1)


@given(st.floats(min_value=0.0, max_value=1.0, allow_nan=False))
def test_the_whole_percent_share_never_exceeds_the_cap(share: float) -> None:
    got = whole_percent_share(share)
    assert got <= share and share - got < 0.01 + 1e-12
    assert round(got * 100) == pytest.approx(got * 100)


def test_whole_percent_share_of_caps_just_below_a_percent() -> None:
    assert [whole_percent_share(x) for x in (0.0099999999995, 0.339999999999, 0.29, 0.7, 1.0)] == [0.0, 0.33, 0.29, 0.7, 1.0]


def test_a_checkpoint_block_without_restart_seconds_keeps_the_default_restart() -> None:
    with_default = _training(checkpoint={"writeSeconds": 60})
    assert with_default.checkpoint.restart_seconds == DEFAULT_REPLACEMENT_S == 300
    inference = _training(workload="inference", checkpoint={"writeSeconds": 60})
    bare = _training(workload="inference", checkpoint=None)
    rate = band_hourly_rate(100.0)
    # a service with a checkpoint block loses what one without does: the replacement time
    assert lost_fraction_fn(inference)(rate) == pytest.approx(lost_fraction_fn(bare)(rate))
    assert lost_fraction_fn(bare)(rate) > 0


def test_the_month_is_billed_hour_by_hour_not_at_its_average() -> None:
    # 20 units for 10 h, 10 for 10 h, none for 4 h, every day: 10 reserved
    day = [20.0] * 10 + [10.0] * 10 + [0.0] * 4
    profile = day * 7
    assert profile_layers(profile, 10, 10) == pytest.approx((sum(min(x, 10) for x in profile) / 168,) * 2)
    within_r, within_b = profile_layers(profile, 10, 10)
    mean = sum(profile) / len(profile)
    usage = FleetUsage("f", "g5.xlarge", mean, 10, Term.ONE_YEAR, PaymentOption.NO_UPFRONT, 10, 0.0,
                       within_reserved=within_r, within_base=within_b)
    reserved, ondemand, spot = split_hours(usage)
    # reserved billed every hour; on-demand for the 10 units above the base 10 h a day
    assert reserved == 10 * HOURS_PER_MONTH
    assert ondemand == pytest.approx(HOURS_PER_MONTH * 10 * 10 / 24) and spot == 0
    # the average alone (12.5 units) would bill only 2.5 units above the base
    flat = FleetUsage("f", "g5.xlarge", mean, 10, Term.ONE_YEAR, PaymentOption.NO_UPFRONT, 10, 0.0)
    assert split_hours(flat)[1] == pytest.approx(HOURS_PER_MONTH * (mean - 10))
    assert split_hours(flat)[1] < ondemand


def test_the_plan_prices_its_own_month_hour_by_hour() -> None:
    fleet = Fleet.model_validate({"name": "f", "workload": "inference", "sla": "silver",
                                  "gpu": {"model": "A10G", "count": 1, "memoryGib": 24},
                                  "capacity": {"min": 0, "desired": 1, "max": 40}, "reserved": {"mode": "auto"}})
    offers = [OfferView("g5.xlarge", 4, 16, 1, GpuModel.A10G, 24, 1.006, None, None)]
    day = [20.0] * 10 + [10.0] * 10 + [0.0] * 4
    dec = plan_fleet(FleetInputs(fleet, offers, {"g5.xlarge": 0.6338}, np.asarray(day * 7 * 8, float), 0, 0, "us-east-1"))
    fp, month = dec.plan, dec.month_units
    assert month is not None and fp.reserved_units > 0
    assert fp.expected_within_reserved == pytest.approx(float(np.minimum(month, fp.reserved_units).mean()))
    assert fp.expected_within_base == pytest.approx(float(np.minimum(month, max(fp.on_demand_base, fp.reserved_units)).mean()))
    from seedance.planner.planner import decision_usage

    _, ondemand, _ = split_hours(decision_usage(dec, fleet))
    base = max(fp.on_demand_base, fp.reserved_units)
    assert ondemand == pytest.approx(HOURS_PER_MONTH * float(np.maximum(month - base, 0).mean())
                                     + HOURS_PER_MONTH * float((np.minimum(month, base) - np.minimum(month, fp.reserved_units)).mean()))


def test_a_preferred_type_that_cannot_serve_is_named_not_used() -> None:
    fleet = _training(workload="inference", checkpoint=None, instanceTypes={"preferred": ["g4dn.12xlarge", "p4de.24xlarge"]})
    offers = [OfferView("p4d.24xlarge", 96, 1152, 8, A100, 320, 21.96, 5.0, 5.0),
              OfferView("p4de.24xlarge", 96, 1152, 8, A100, 640, 27.45, 6.5, 5.0),
              OfferView("g4dn.12xlarge", 48, 192, 4, GpuModel.T4, 64, 3.9, 1.2, 5.0)]
    why = _decide(fleet, offers).plan.rationale["instance_types"]
    assert "(the policy's preferred types first)" in why
    assert "preferred type(s) not used: g4dn.12xlarge (has no A100 GPUs)" in why
    only_unfit = _training(workload="inference", checkpoint=None, instanceTypes={"preferred": ["g4dn.12xlarge"]})
    why = _decide(only_unfit, offers).plan.rationale["instance_types"]
    assert "(the policy's preferred types first)" not in why and "g4dn.12xlarge (has no A100 GPUs)" in why


def test_a_pool_whose_interruptions_would_take_the_fleet_off_spot_is_left_out_instead() -> None:
    # eu-west-1 T4 rows: g4dn.xlarge (10-15%) pays on spot at its own band and at 15-20%; g4dn.2xlarge
    # pays alone at >20% (0.7724 < 0.838) but at its rate the fleet's spot (0.3303 / (1 - 0.468) on
    # g4dn.xlarge) no longer beats 0.587: listing it would take the whole fleet off spot
    t4 = GpuModel.T4
    fleet = _training(gpu={"model": "T4", "count": 1}, capacity={"min": 0, "desired": 4, "max": 4},
                      spot={"maxShare": 1.0, "interruptionTolerance": "high"},
                      checkpoint={"writeSeconds": 3000, "restartSeconds": 0})
    offers = [OfferView("g4dn.xlarge", 4, 16, 1, t4, 16, 0.587, 0.330333, 16.0),
              OfferView("g4dn.2xlarge", 8, 32, 1, t4, 16, 0.838, 0.410933, 100.0),
              OfferView("g4dn.12xlarge", 48, 192, 4, t4, 64, 4.362, 1.985033, 22.0)]
    lost = lost_fraction_fn(fleet)
    assert 0.330333 / (1 - lost(band_hourly_rate(100.0))) > 0.587 > 0.410933 / (1 - lost(band_hourly_rate(100.0))) * 0.587 / 0.838
    assert 0.410933 / (1 - lost(band_hourly_rate(100.0))) < 0.838  # g4dn.2xlarge pays on its own
    fp = _decide(fleet, offers).plan
    assert fp.spot_share_above_base == 1.0
    assert [c.instance_type for c in fp.instance_types] == ["g4dn.xlarge", "g4dn.12xlarge"]
    assert fp.interruption_rate_per_hour == pytest.approx(band_hourly_rate(22.0))
    assert "g4dn.2xlarge would be cheaper on spot alone" in fp.rationale["instance_types"]
    # a more tolerant fleet is never planned dearer than a less tolerant one on the same offers
    medium = _training(**{**fleet.model_dump(by_alias=True, exclude_none=True),
                          "spot": {"maxShare": 1.0, "interruptionTolerance": "medium"}})
    assert _decide(fleet, offers).plan.rationale["spot"] == _decide(medium, offers).plan.rationale["spot"]


def test_pools_of_a_lower_band_than_the_first_type_must_pay_at_its_rate() -> None:
    # the first type is in the top band; a pool of a lower band is billed at the first type's rate
    # when the group runs it, so it is listed only if spot still pays on it there
    fleet = _training(workload="inference", checkpoint=None, gpu={"model": "T4", "count": 1},
                      capacity={"min": 0, "desired": 4, "max": 4},
                      spot={"maxShare": 1.0, "interruptionTolerance": "high"})
    t4 = GpuModel.T4
    lost = lost_fraction_fn(fleet)(band_hourly_rate(100.0))
    offers = [OfferView("g4dn.xlarge", 4, 16, 1, t4, 16, 1.0, 0.1, 100.0),
              # alone (5% band) it pays, at the top band's loss it does not
              OfferView("g4dn.2xlarge", 8, 32, 1, t4, 16, 1.0, 1.01 * (1 - lost), 5.0)]
    assert 0.1 / (1 - lost) < 1.0 and 1.01 * (1 - lost) / (1 - lost_fraction_fn(fleet)(band_hourly_rate(5.0))) < 1.0
    fp = _decide(fleet, offers).plan
    assert fp.spot_share_above_base == 1.0
    assert [c.instance_type for c in fp.instance_types] == ["g4dn.xlarge"]
