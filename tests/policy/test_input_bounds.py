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
    (dt.date(2020, 2, 29), Term.THREE_YEARS, dt.date(2023, 2, 28)),
    (dt.date(2021, 2, 28), Term.THREE_YEARS, dt.date(2024, 2, 28)),
    (dt.date(9996, 2, 29), Term.THREE_YEARS, dt.date(9999, 2, 28)),
    (dt.date(9998, 2, 28), Term.THREE_YEARS, None),
    (dt.date(9999, 12, 31), Term.ONE_YEAR, None),
])
def test_term_end(purchased: dt.date, term: Term, ends: dt.date | None) -> None:
    assert term_end(purchased, term) == ends


# ---------------------------------------------------------------- paths that cannot be looked up

LONG = "a" * 5000


@pytest.mark.parametrize(("written", "reason", "got"), [
    (r'"a\0b"', "it holds a NUL character", r"'a\x00b'"),
    (LONG, "it is longer than the system takes (file name too long)", "'" + "a" * 56 + "...'"),
])
def test_an_extends_path_that_cannot_be_looked_up_is_a_field_error(tmp_path: Path, written: str, reason: str,
                                                                   got: str) -> None:
    (tmp_path / "p.yaml").write_text(f"extends: {written}\n" + MINIMAL)
    with pytest.raises(PolicyError) as exc:
        load_policy(tmp_path / "p.yaml")
    assert [str(p) for p in exc.value.problems] == [
        f"{tmp_path / 'p.yaml'}:1:10: extends: expected a path to a base policy, but {reason}; got {got}"
    ]


@pytest.mark.parametrize(("written", "message"), [
    (r'"a\0b"', r"expected a path to a CSV file of hourly demand, but it holds a NUL character; got 'a\x00b'"),
    (LONG, "expected a path to a CSV file of hourly demand, but it is longer than the system takes (file name too "
           "long); got '" + "a" * 56 + "...'"),
    ('""', "expected a path to a CSV file of hourly demand, got ''"),
    ('"  "', "expected a path to a CSV file of hourly demand, got '  '"),
])
def test_a_demand_history_path_that_cannot_be_looked_up_is_a_field_error(tmp_path: Path, written: str,
                                                                         message: str) -> None:
    (tmp_path / "p.yaml").write_text(MINIMAL + f"    demandHistory: {written}\n")
    with pytest.raises(PolicyError) as exc:
        load_policy(tmp_path / "p.yaml")
    assert [str(p) for p in exc.value.problems] == [
        f"{tmp_path / 'p.yaml'}:20:20: fleets[0].demandHistory (fleet 'web'): {message}"
    ]


def test_validate_reports_every_file_when_one_names_an_unusable_path(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    from seedance.cli import main

    (tmp_path / "nul.yaml").write_text('extends: "a\\0b"\n' + MINIMAL)
    (tmp_path / "long.yaml").write_text(MINIMAL + f"    demandHistory: {LONG}\n")
    (tmp_path / "ok.yaml").write_text(MINIMAL)
    code = main(["validate", *(str(tmp_path / n) for n in ("nul.yaml", "long.yaml", "ok.yaml"))])
    out, err = capsys.readouterr()
    assert code == 1
    assert "internal error" not in out + err
    assert f"✗ {tmp_path / 'nul.yaml'}: 1 error(s)" in out
    assert f"✗ {tmp_path / 'long.yaml'}: 1 error(s)" in out
    assert f"✓ {tmp_path / 'ok.yaml'}: valid" in out


def test_a_policy_path_with_a_nul_character_is_a_policy_error() -> None:
    with pytest.raises(PolicyError) as exc:
        load_policy("a\0b.yaml")
    assert str(exc.value).endswith(":1:1: (document): cannot read file: the path holds a NUL character")


# ---------------------------------------------------------------- \\u escapes that are half a character


def test_a_lone_surrogate_escape_is_an_error_at_its_field() -> None:
    text = MINIMAL.replace("owner: dev@example.com", 'owner: "a\\ud800@example.com"')
    with pytest.raises(PolicyError) as exc:
        load_policy_text(text, file="p.yaml")
    assert [str(p) for p in exc.value.problems] == [
        "p.yaml:6:10: metadata.owner: invalid escape \\ud800: a lone UTF-16 surrogate is no character; write the "
        "character itself, its \\U escape (\\U0001F600) or both halves of its pair"
    ]


@pytest.mark.parametrize("written", ['"\\ud83d\\ude00"', '"\\U0001F600"', "😀"])
def test_a_surrogate_pair_escape_is_its_character(written: str) -> None:
    text = MINIMAL.replace("monthlyAmount: 1000", "monthlyAmount: 1000\n  notify: {emails: []}")
    text = text.replace("  environment: dev\n", f"  environment: dev\n  tags: {{team: {written}}}\n")
    with pytest.raises(PolicyError) as exc:  # the tag value pattern refuses the emoji: the message shows it whole
        load_policy_text(text, file="p.yaml")
    assert "metadata.tags.team: " in str(exc.value) and "'😀'" in str(exc.value)
