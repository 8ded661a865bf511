"""Held reservations' terms: when each ends, without date arithmetic past the last date."""

from __future__ import annotations

import datetime as dt

from seedance.planner.planner import active_held_by_term
from seedance.policy.model import Commitment, Fleet, Reserved, Term


def _fleet(*held: Commitment) -> Fleet:
    fleet = Fleet.model_validate({"name": "f", "workload": "api", "sla": "silver", "cpu": {"vcpu": 4, "memoryGib": 16},
                                  "capacity": {"min": 0, "desired": 1, "max": 4}})
    return fleet.model_copy(update={"reserved": Reserved.model_construct(held=list(held))})


def test_a_29_february_purchase_ends_on_28_february() -> None:
    fleet = _fleet(Commitment(units=2, term=Term.THREE_YEARS, purchased=dt.date(2024, 2, 29)))
    assert active_held_by_term(fleet, dt.date(2027, 2, 27)) == {Term.THREE_YEARS: 2}
    assert active_held_by_term(fleet, dt.date(2027, 2, 28)) == {}


def test_a_term_past_the_last_date_is_no_crash() -> None:
    # validation refuses it (its term cannot end); a model built without validation still plans
    late = Commitment.model_construct(units=1, term=Term.THREE_YEARS, purchased=dt.date(9999, 12, 31))
    feb = Commitment.model_construct(units=3, term=Term.ONE_YEAR, purchased=dt.date(9996, 2, 29))
    fleet = _fleet(late, feb)
    assert active_held_by_term(fleet, dt.date(2024, 5, 30)) == {}
    assert active_held_by_term(fleet, dt.date(9999, 12, 31)) == {Term.THREE_YEARS: 1}
    assert active_held_by_term(fleet, dt.date(9997, 2, 27)) == {Term.ONE_YEAR: 3}
    assert active_held_by_term(fleet, dt.date(9997, 2, 28)) == {}
