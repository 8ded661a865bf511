"""Held reservations' terms: when each ends, without date arithmetic past the last date."""

from __future__ import annotations

import datetime as dt

from seedance.planner.planner import active_held_by_term, held_by_term_on
from seedance.policy.model import Commitment, Fleet, Reserved, Term


def _fleet(*held: Commitment) -> Fleet:
    fleet = Fleet.model_validate({"name": "f", "workload": "api", "sla": "silver", "cpu": {"vcpu": 4, "memoryGib": 16},
                                  "capacity": {"min": 0, "desired": 1, "max": 4}})
    return fleet.model_copy(update={"reserved": Reserved.model_construct(held=list(held))})


def test_a_29_february_purchase_ends_on_28_february() -> None:
    fleet = _fleet(Commitment(units=2, term=Term.THREE_YEARS, purchased=dt.date(2024, 2, 29)))
    assert held_by_term_on(fleet, dt.date(2027, 2, 27)) == {Term.THREE_YEARS: 2}
    assert held_by_term_on(fleet, dt.date(2027, 2, 28)) == {}


def test_a_term_past_the_last_date_is_no_crash() -> None:
    # validation refuses it (its term cannot end); a model built without validation still plans
    late = Commitment.model_construct(units=1, term=Term.THREE_YEARS, purchased=dt.date(9999, 12, 31))
    feb = Commitment.model_construct(units=3, term=Term.ONE_YEAR, purchased=dt.date(9996, 2, 29))
    fleet = _fleet(late, feb)
    assert held_by_term_on(fleet, dt.date(2024, 5, 30)) == {}
    assert held_by_term_on(fleet, dt.date(9999, 12, 31)) == {Term.THREE_YEARS: 1}
    assert held_by_term_on(fleet, dt.date(9997, 2, 27)) == {Term.ONE_YEAR: 3}
    assert held_by_term_on(fleet, dt.date(9997, 2, 28)) == {}
    # a plan of the last dates: its month runs past the last date there is
    assert active_held_by_term(fleet, dt.date(9999, 12, 31)) == {Term.THREE_YEARS: 1}
    assert active_held_by_term(fleet, dt.date(9999, 12, 1)) == {Term.THREE_YEARS: 1}


def _expiring_policy(held: list[dict]) -> str:
    """A one-fleet policy whose 2 always-running units are held as the list gives."""
    import json

    doc = {"apiVersion": "seedance.io/v1", "kind": "CostPolicy",
           "metadata": {"name": "held", "environment": "dev", "owner": "dev@example.com"},
           "cloud": {"region": "us-east-1", "availabilityZones": ["us-east-1a"], "vpcId": "vpc-0123456789abcdef0",
                     "subnetIds": ["subnet-0123456789abcdef0"]},
           "budget": {"monthlyAmount": 10000},
           "fleets": [{"name": "web", "workload": "api", "sla": "silver", "cpu": {"vcpu": 4, "memoryGib": 16},
                       "capacity": {"min": 2, "desired": 2, "max": 4},
                       "reserved": {"mode": "auto", "term": "1y", "held": held}}]}
    return json.dumps(doc)  # JSON is YAML


EXPIRING = _expiring_policy([{"units": 2, "term": "1y", "purchased": "2023-06-01"}])


def test_a_reservation_ending_within_the_month_is_replaced_not_priced_as_running(tmp_path) -> None:
    # 2 units always run and are held until 2024-06-01. A plan of 2024-05-30 used to count them as
    # held for its whole month (and its year): nothing bought, the month priced as reserved. They end
    # in two days, so the plan buys their replacement and says to queue it for that day
    from seedance.planner.planner import plan_policy
    from seedance.policy import load_policy
    from seedance.pricing.catalog import load_catalog

    (tmp_path / "p.yaml").write_text(EXPIRING)
    loaded, catalog = load_policy(tmp_path / "p.yaml"), load_catalog()
    fp = plan_policy(loaded, catalog, as_of=dt.date(2024, 5, 30), cluster=False).fleets[0]
    assert fp.new_purchases == [("1y", 2)] and fp.reserved_units == 2
    assert "2 held unit(s) end within the month priced (2 on 2024-06-01): not counted as held; the purchase above " \
        "replaces them: queue it to start that day" in fp.rationale["reserved"]
    # nothing bought (reserved.mode none): nothing to queue
    (tmp_path / "n.yaml").write_text(EXPIRING.replace('"mode": "auto"', '"mode": "none"'))
    fn = plan_policy(load_policy(tmp_path / "n.yaml"), catalog, as_of=dt.date(2024, 5, 30), cluster=False).fleets[0]
    assert fn.new_purchases == [] and fn.rationale["reserved"].endswith("not counted as held; nothing replaces them")
    # a month earlier they run through the month: held, nothing bought, no note
    early = plan_policy(loaded, catalog, as_of=dt.date(2024, 4, 30), cluster=False).fleets[0]
    assert early.new_purchases == [] and early.reserved_units == 2
    assert "end within the month" not in early.rationale["reserved"]
    # the replacement recorded as queued for that day is held: nothing more to buy
    queued = _expiring_policy([{"units": 2, "term": "1y", "purchased": "2023-06-01"},
                               {"units": 2, "term": "1y", "purchased": "2024-06-01"}])
    (tmp_path / "q.yaml").write_text(queued)
    fq = plan_policy(load_policy(tmp_path / "q.yaml"), catalog, as_of=dt.date(2024, 5, 30), cluster=False).fleets[0]
    assert fq.new_purchases == [] and fq.reserved_units == 2


def test_held_units_that_cover_the_reservation_are_said_to(tmp_path) -> None:  # type: ignore[no-untyped-def]
    # the fleet's 2 always-running units, held: the rationale said "reserve the fleet's minimum (2 unit(s)…)"
    # with nothing to buy and no word of the held units (it did when they exceeded the recommendation)
    from seedance.planner.planner import plan_policy
    from seedance.policy import load_policy
    from seedance.pricing import load_catalog

    catalog = load_catalog()
    day = dt.date(2024, 5, 30)

    def reserved(commitments: list[dict], **kw) -> str:  # type: ignore[no-untyped-def]
        (tmp_path / "p.yaml").write_text(_expiring_policy(commitments))
        fp = plan_policy(load_policy(tmp_path / "p.yaml"), catalog, as_of=day, **kw).fleets[0]
        return fp.rationale["reserved"]

    both = [{"units": 1, "term": "1y", "purchased": "2024-01-15"}, {"units": 1, "term": "3y", "purchased": "2024-02-29"}]
    assert reserved(both).endswith("reserve the fleet's minimum (2 unit(s), always running); the 2 unit(s) already "
                                   "held (1 of 1y, 1 of 3y) cover it: nothing to buy")
    assert reserved(both[1:]).endswith("reserve the fleet's minimum (2 unit(s), always running); 1 of them already "
                                       "held (1 of 3y)")
    # --held gives units, not their terms
    assert reserved([], held={"web": 2}).endswith("; the 2 unit(s) already held cover it: nothing to buy")
    assert reserved([], held={"web": 3}).endswith("; 3 already held")
