"""Bounds a red team found missing: monthly data volumes, held reservations' purchase dates, paths
that cannot be looked up (NUL bytes, overlong names) and escapes YAML decodes to lone surrogates."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from seedance.policy import PolicyError, load_policy, load_policy_text
from seedance.policy.model import MAX_MONTHLY_GB, Term, term_end

MINIMAL = (Path(__file__).parent / "valid" / "minimal.yaml").read_text()


def _problems(text: str) -> list[str]:
    with pytest.raises(PolicyError) as exc:
        load_policy_text(text, file="p.yaml")
    return [str(p) for p in exc.value.problems]


@pytest.mark.parametrize("value", ["1.0e+308", "1.0e+300", "2.0e+9"])
def test_monthly_volumes_have_an_upper_bound(value: str) -> None:
    text = MINIMAL + (f"network:\n  monthlyTrafficGb: {{s3: {value}}}\n"
                      f"storage:\n  checkpointBuckets:\n    - {{name: b, monthlyIngestGb: {value}}}\n")
    got = {"1.0e+308": "1e+308", "1.0e+300": "1e+300", "2.0e+9": "2e+09"}[value]
    assert _problems(text) == [
        f"p.yaml:21:26: network.monthlyTrafficGb.s3: expected a number in [0, 1e+09], got {got}",
        f"p.yaml:24:34: storage.checkpointBuckets[0].monthlyIngestGb (bucket 'b'): expected a number in [0, 1e+09], "
        f"got {got}",
    ]


def test_monthly_volumes_up_to_the_bound_are_valid() -> None:
    text = MINIMAL + (f"network:\n  monthlyTrafficGb: {{s3: {MAX_MONTHLY_GB}}}\n"
                      f"storage:\n  checkpointBuckets:\n    - {{name: b, monthlyIngestGb: {MAX_MONTHLY_GB}}}\n")
    policy = load_policy_text(text)
    assert policy.storage.checkpoint_buckets[0].monthly_ingest_gb == MAX_MONTHLY_GB


def _held(purchased: str, term: str = "3y") -> str:
    return MINIMAL + f"    reserved: {{held: [{{units: 1, term: {term}, purchased: {purchased}}}]}}\n"


@pytest.mark.parametrize(("purchased", "term", "latest"), [
    ("9999-12-31", "3y", "9996-12-31"), ("9997-01-01", "3y", "9996-12-31"), ("9999-01-01", "1y", "9998-12-31"),
])
def test_a_held_reservation_must_end_by_the_last_date(purchased: str, term: str, latest: str) -> None:
    assert _problems(_held(purchased, term)) == [
        f"p.yaml:20:55: fleets[0].reserved.held[0].purchased (fleet 'web'): expected a date whose {term} term ends by "
        f"9999-12-31 (on or before {latest}), got {purchased}"
    ]


def test_a_held_reservation_ending_on_the_last_date_is_valid() -> None:
    policy = load_policy_text(_held("9996-12-31"))
    assert policy.fleets[0].reserved.held[0].ends() == dt.date(9999, 12, 31)


@pytest.mark.parametrize(("purchased", "term", "ends"), [
    (dt.date(2024, 2, 29), Term.ONE_YEAR, dt.date(2025, 2, 28)),
    (dt.date(2024, 2, 29), Term.THREE_YEARS, dt.date(2027, 2, 28)),
    (dt.date(2020, 2, 29), Term.ONE_YEAR.THREE_YEARS, dt.date(2023, 2, 28)),
    (dt.date(2021, 2, 28), Term.THREE_YEARS, dt.date(2024, 2, 28)),
    (dt.date(9996, 2, 29), Term.THREE_YEARS, dt.date(9999, 2, 28)),
    (dt.date(9998, 2, 28), Term.THREE_YEARS, None),
    (dt.date(9999, 12, 31), Term.ONE_YEAR, None),
])
def test_term_end(purchased: dt.date, term: Term, ends: dt.date | None) -> None:
    assert term_end(purchased, term) == ends
