"""A fleet whose first type holds several units (weight w > 1) and whose capacity is not a multiple of
w: the plan reserves the whole instances its group really runs, and never one the group cannot start.

The offers are hand-made so every figure can be checked by hand: g5.12xlarge holds 4 units of 1 A10G,
on-demand 5.6/h, reserved 3.4/h, no spot in these fleets (a reserved instance pays when it is busy
more than 3.4 / 5.6 = 61% of the hours).
"""

from __future__ import annotations

import numpy as np
import pytest

from components.fleet import group_shape
from seedance.gpus import GpuModel
from seedance.planner.instances import OfferView
from seedance.planner.plan import FleetPlan
from seedance.planner.planner import (
    FleetInputs,
    fixed_reserved_units,
    group_units,
    max_instances,
    on_demand_base_units,
    plan_fleet,
)
from seedance.policy.model import Fleet

W4 = [OfferView("g5.12xlarge", 48, 192, 4, GpuModel.A10G, 96, 5.6, 1.6, 5.0)]
RESERVED = {"g5.12xlarge": 3.4}


def fleet(lo: int, desired: int, hi: int, **over: object) -> Fleet:
    doc: dict[str, object] = {"name": "web", "workload": "inference", "sla": "silver",
                              "gpu": {"model": "A10G", "count": 1}, "instanceTypes": {"allowed": ["g5.12xlarge"]},
                              "capacity": {"min": lo, "desired": desired, "max": hi},
                              "reserved": {"mode": "auto", "term": "1y"}}
    doc.update(over)
    return Fleet.model_validate(doc)


def plan(f: Fleet, *, cluster: bool, history: list[float] | None = None, held: int = 0) -> FleetPlan:
    return plan_fleet(FleetInputs(f, W4, RESERVED, None if history is None else np.asarray(history, float), 0, held,
                                  "eu-central-1", sized_to_demand=cluster)).plan


@pytest.mark.parametrize(("cap", "w", "managed", "most"), [
    (10, 4, False, 3),  # a weighted group exceeds its maximum by less than one instance: 12 units
    (10, 4, True, 2),  # a managed group counts instances, never more than 10 units
    (12, 4, False, 3), (12, 4, True, 3),
    (3, 4, False, 1), (3, 4, True, 0),
    (0, 4, False, 0), (0, 4, True, 0),
    (10, 1, False, 10), (10, 1, True, 10),
])
def test_the_most_instances_a_group_runs(cap: int, w: int, managed: bool, most: int) -> None:
    assert max_instances(cap, w, managed) == most


def test_bad_group_sizes_are_refused() -> None:
    with pytest.raises(ValueError, match="weight >= 1"):
        max_instances(10, 0, False)
    with pytest.raises(ValueError, match="maximum >= 0"):
        max_instances(-1, 4, True)
    with pytest.raises(ValueError, match="fixed >= 0"):
        fixed_reserved_units(-1, 0, 4)


def test_group_units_round_up_to_whole_instances_within_the_group_s_maximum() -> None:
    hours = np.array([0.0, 1.0, 4.0, 5.0, 9.0, 10.0])
    assert group_units(hours, 4, 10, managed=False).tolist() == [0.0, 4.0, 4.0, 8.0, 12.0, 12.0]
    assert group_units(hours, 4, 10, managed=True).tolist() == [0.0, 4.0, 4.0, 8.0, 8.0, 8.0]
    assert group_units(10.0, 4, 10, managed=False) == 12.0


def test_a_self_sized_group_reserves_all_three_instances_it_runs_every_hour() -> None:
    # min = desired = max = 10 units of 4-unit instances, no cluster: the weighted group runs 3
    # instances (12 units) every hour; each is busy 100% of the hours > 61%, so all 3 are reserved
    # (the defect reserved floor(10 / 4) = 2 and billed the third on-demand all month)
    d = plan(fleet(10, 10, 10), cluster=False)
    assert d.expected_nodes == pytest.approx(12.0)
    assert (d.reserved_units, d.new_purchases) == (12, [("1y", 12)])
    assert "3 g5.12xlarge instance(s)" in d.rationale["reserved"]
    # the base is the maximum in units, which the weighted group launches as 3 on-demand instances
    assert d.on_demand_base == 10
    assert "all 3 reserved whole instance(s) run" in d.rationale["on_demand_base"]
    assert "idle" not in d.rationale["on_demand_base"]


def test_a_managed_group_never_reserves_an_instance_it_cannot_start() -> None:
    # the same fleet in a cluster: the Cluster Autoscaler's group lists g5.12xlarge without weights
    # and at most floor(10 / 4) = 2 instances. Rounding the 10 always-running units up would reserve
    # a third instance no node could ever use
    f = fleet(10, 10, 10)
    for history in (None, [10.0] * 336):
        d = plan(f, cluster=True, history=history)
        shape = group_shape(d, autoscaler_managed=True)
        assert (shape.min_size, shape.max_size) == (2, 2)
        assert d.reserved_units == 8 == shape.max_size * 4, history is None
        assert d.expected_nodes == pytest.approx(8.0)  # what the group runs, not 12
        assert shape.on_demand_base == 2
    assert "the most the group can run" in plan(f, cluster=True).rationale["reserved"]


def test_without_a_history_the_minimum_is_counted_in_the_instances_always_running() -> None:
    # min 9 units of 4-unit instances: the group always runs ceil(9 / 4) = 3 instances (12 units,
    # within max 12), all busy every hour: 3 are reserved, not floor(9 / 4) = 2
    d = plan(fleet(9, 9, 12), cluster=True)
    assert d.expected_nodes == pytest.approx(12.0)
    assert (d.reserved_units, d.new_purchases) == (12, [("1y", 12)])
    assert "the instances the group always runs for them" in d.rationale["reserved"]
    # min 1 unit: one instance always runs (4 units) and is reserved
    assert plan(fleet(1, 1, 12), cluster=True).reserved_units == 4


def test_fixed_mode_stays_rounded_down() -> None:
    # reserved.mode fixed 10 units: 2 whole instances (8 units), never more than the policy fixes,
    # although the group runs 3
    d = plan(fleet(10, 10, 10, reserved={"mode": "fixed", "units": 10}), cluster=False)
    assert (d.reserved_units, d.new_purchases) == (8, [("1y", 8)])


@pytest.mark.parametrize("fixed", [0, 3, 4, 5, 6, 8, 9])
@pytest.mark.parametrize("held", [0, 2, 4, 6, 9])
def test_the_plan_less_rule_for_fixed_units_is_the_planner_s(fixed: int, held: int) -> None:
    d = plan(fleet(0, 10, 12, reserved={"mode": "fixed", "units": fixed}), cluster=True, held=held)
    assert d.reserved_units == fixed_reserved_units(fixed, held, 4)
    assert d.on_demand_base == on_demand_base_units(d.reserved_units, 12, gold=False)
