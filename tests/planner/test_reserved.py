import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from seedance.planner.reserved import Uncovered, commit_now, excess, optimal_reserved, reserved_cost


def brute_force(demand, r, b, held=0):
    top = max(held, int(np.ceil(max(demand, default=0)))) + 2
    costs = [reserved_cost(k, demand, r, b) for k in range(held, top + 1)]
    return held + int(np.argmin(costs)), min(costs)


def test_hand_case_ties_go_to_fewer_units():
    # cost(0)=12, cost(1)=4+2*3=10, cost(2)=8+2*1=10, cost(3)=12: layer 2 is busy exactly r/b = 50%
    d = [0, 1, 2, 3]
    assert [reserved_cost(k, d, 1, 2) for k in range(4)] == [12, 10, 10, 12]
    dec = optimal_reserved(d, 1, 2)
    assert (dec.units, dec.cost, dec.ratio) == (1, 10, 0.5)


def test_quantile_reading():
    # 100 hours: 60 at 10 units, 40 at 20 units; r/b = 0.5 -> layers 11..20 busy 40% < 50%: reserve 10
    d = [10] * 60 + [20] * 40
    assert optimal_reserved(d, 0.5, 1.0).units == 10
    # r/b = 0.3 -> those layers (busy 40%) now pay: reserve 20
    assert optimal_reserved(d, 0.3, 1.0).units == 20


def test_held_never_reduced_and_cap():
    d = [1, 1, 1, 1]
    dec = optimal_reserved(d, 0.5, 1.0, held=3)
    assert dec.units == 3 and dec.new_units == 0 and "already held" in dec.rationale
    assert optimal_reserved([9] * 10, 0.1, 1.0, max_units=4).units == 4


def test_no_history_keeps_held():
    assert optimal_reserved([], 1, 2, held=2).units == 2


def test_excess():
    assert list(excess([0, 1, 2, 3], [0, 1.5, 5])) == [6, 2, 0]


def test_bad_prices():
    with pytest.raises(ValueError, match="reserved hourly price must be positive"):
        optimal_reserved([1], 0, 1)
    with pytest.raises(ValueError, match="non-negative"):
        optimal_reserved([-1], 1, 2)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.integers(0, 30), min_size=1, max_size=200),
    st.integers(1, 10),
    st.integers(1, 20),
    st.integers(0, 12),
)
def test_property_equals_brute_force_integer(demand, r, b, held):
    # integer data: every sum is exact in floating point, so the k themselves must agree
    dec = optimal_reserved(demand, r, b, held=held)
    k, c = brute_force(demand, r, b, held)
    assert dec.units == k
    assert dec.cost == c


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.floats(0, 50, allow_nan=False, allow_infinity=False), min_size=1, max_size=300),
    st.floats(0.05, 5), st.floats(0.05, 10),
)
def test_property_cost_equals_brute_force_float(demand, r, b):
    dec = optimal_reserved(demand, r, b)
    _, c = brute_force(demand, r, b)
    assert dec.cost == pytest.approx(c, rel=1e-9, abs=1e-9)


def test_commit_now_waits_for_later_demand():
    f = [0] * 4 + [5] * 4
    # bought now, layer 1 is idle for the first 4 h: buying at the next step (h 4) is cheaper
    assert commit_now(f, 1, 3, step_hours=4).units == 0
    # the static optimum over the whole window would buy now
    assert optimal_reserved(f, 1, 3).units == 5


def test_commit_now_buys_demand_that_pays_by_every_step():
    f = [5] * 4 + [0] * 4
    # layer busy 4 of 8 h; by h 4: 3*4 = 12 > 1*4; by h 8: 12 > 8 -> buy all 5 now
    assert commit_now(f, 1, 3, step_hours=4).units == 5
    assert commit_now(f, 1, 1.9, step_hours=4).units == 0  # 1.9*4 = 7.6 < 8 by the end


def test_commit_now_respects_held():
    d = commit_now([1] * 10, 1, 3, held=4)
    assert d.units == 4 and d.new_units == 0


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(0, 20), min_size=1, max_size=120), st.integers(1, 10), st.integers(1, 20),
       st.integers(0, 5))
def test_property_commit_now_single_step_is_static_optimum(demand, r, b, held):
    assert commit_now(demand, r, b, held=held, step_hours=len(demand)).units == optimal_reserved(
        demand, r, b, held=held).units


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, 8), min_size=2, max_size=40), st.integers(1, 5), st.integers(1, 9))
def test_property_commit_now_hourly_is_offline_optimum_first_step(demand, r, b):
    """With a perfect forecast and hourly steps, buying what commit_now says now is part of an
    optimal plan: compare against brute force over every non-decreasing purchase schedule's
    first value, via the per-layer decomposition (each layer's best purchase hour)."""
    H = len(demand)
    k = commit_now(demand, r, b, step_hours=1).units
    expected = 0
    for j in range(1, max(demand) + 1):
        use = [min(max(x - (j - 1), 0), 1) for x in demand]
        # cost of buying layer j at hour t (t = H: never)
        costs = [r * (H - t) + b * sum(use[:t]) for t in range(H + 1)]
        if costs[0] < min(costs[1:]):
            expected += 1
        else:
            break
    assert k == expected


def test_uncovered_cost_follows_the_billing_rule():
    # on-demand 1.0, effective spot 0.5, share 0.5, gold floor 1: blend 0.75
    u = Uncovered(1.0, 0.5, 0.5, 1.0)
    assert u.blended_hourly == 0.75
    # as the group deploys it: on-demand base max(k, 1), half the capacity above the base on spot
    # d=3, k=0: base 1 on-demand, 2 above it, 1 of them spot: 2*1.0 + 1*0.5 = 2.5
    # d=1, k=0: the base is the only node, on-demand: 1.0; d=1.5: 0.5 above the base, 0.25 spot -> 1.25 + 0.125
    assert list(u.cost([3, 1, 1.5, 0], 0)) == [2.5, 1.0, 1.375, 0.0]
    # with one unit committed the floor is met: 0.75 per uncovered unit
    assert list(u.cost([3, 1, 1.5], 1)) == [1.5, 0.0, 0.375]


def test_commit_now_values_the_gold_floor_at_the_billed_rate():
    # one node all the time, reserved 0.8: against the blend (0.75) reserving never pays, but the node
    # must run on-demand (1.0) anyway, so the billed rule reserves it: 4 h x 1.0 > 4 h x 0.8
    f = [1.0] * 4
    assert commit_now(f, 0.8, 0.75, step_hours=4).units == 0
    dec = commit_now(f, 0.8, Uncovered(1.0, 0.5, 0.5, 1.0), step_hours=4)
    assert (dec.units, dec.cost) == (1, 3.2)
    assert "valued at the billed rate" in dec.rationale
    # at 3 nodes the first node is still the group's on-demand base: reserving it saves 1.0 > 0.8 an
    # hour, while the layers above it save the blend 0.75 < 0.8
    assert commit_now([3.0] * 4, 0.8, Uncovered(1.0, 0.5, 0.5, 1.0), step_hours=4).units == 1
    # no floor: identical to the plain blended rate
    assert commit_now([1.0] * 4, 0.8, Uncovered(1.0, 0.5, 0.5), step_hours=4).units == 0


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, 20), min_size=1, max_size=120), st.integers(1, 10), st.integers(1, 20),
       st.integers(0, 5))
def test_property_uncovered_without_floor_equals_blended(demand, r, b, held):
    # on-demand b with no spot: the billing rule is the plain rate b, so the decisions agree
    assert commit_now(demand, r, Uncovered(float(b)), held=held, step_hours=24).units == commit_now(
        demand, r, b, held=held, step_hours=24).units


def test_the_rationale_never_asks_for_more_than_all_the_hours() -> None:
    # reserved 0.63 above the blend 0.40: no layer billed at the blend pays; a gold fleet's first unit,
    # billed on-demand (1.0), does. The rule used to read "reserve when busy > 158% of the hours"
    billing = Uncovered(1.0, 0.2, 0.75, 1.0)
    dec = commit_now(np.full(168, 2.0), 0.63, billing, step_hours=168)
    assert dec.units == 1
    assert "busy >" not in dec.rationale and "no layer billed at the blend pays" in dec.rationale
    assert "busy > 63% of the hours" in commit_now(np.full(168, 2.0), 0.63, 1.0).rationale
    assert "busy more than" not in optimal_reserved(np.full(24, 2.0), 0.63, 0.40).rationale
