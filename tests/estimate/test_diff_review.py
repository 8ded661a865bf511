"""`seedance diff` as a reviewer reads it: what the totals leave out (reservations still billed, a
different demand history), where the prices came from, the decision date, a policy the change adds."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from seedance.cli import main
from seedance.templating import md_text

REPO = Path(__file__).resolve().parents[2]
DEV = REPO / "stacks" / "policies" / "dev.yaml"


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["diff", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_the_report_records_its_decision_date(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, str(DEV), str(DEV), "--no-plan", "--as-of", "2024-05-29", "-f", "json")
    assert code == 0 and json.loads(out)["as_of"] == "2024-05-29"
    code, out, _ = _run(capsys, str(DEV), str(DEV), "--no-plan", "--as-of", "2024-05-29", "-f", "markdown")
    assert code == 0 and "decision date 2024-05-29" in out.splitlines()[-1]
    code, out, _ = _run(capsys, str(DEV), str(DEV), "--no-plan", "--as-of", "2024-05-29")
    assert code == 0 and "decision date (--as-of): 2024-05-29" in out


def test_without_as_of_the_report_records_today(capsys: pytest.CaptureFixture[str]) -> None:
    from seedance.clock import utc_today

    code, out, _ = _run(capsys, str(DEV), str(DEV), "--no-plan", "-f", "json")
    assert code == 0 and json.loads(out)["as_of"] == utc_today().isoformat()


def _cache(tmp_path: Path, region: str) -> Path:
    cache = tmp_path / f"cache-{region}"
    cache.mkdir()
    ondemand = {"value": 0.1632, "unit": "hour", "source": "AWS Price List API", "date": "2026-01-01", "ref": "x"}
    (cache / f"prices-{region}.json").write_text(json.dumps({
        "schema": "seedance.io/price-cache", "version": 1, "region": region, "refreshed_at": "2026-01-01T00:00:00Z",
        "instances": [{"instance_type": "m7g.xlarge", "region": region, "currency": "USD", "vcpu": 4,
                       "memory_gib": 16.0, "gpus": 0, "gpu_model": None, "gpu_memory_gib_total": 0.0, "facts_ref": "x",
                       "prices": {"ondemand": ondemand}}]}))
    return cache


def test_the_comment_says_which_prices_it_used(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    # red team: the footer said "from the bundled price catalog" when a price cache supplied prices
    args = (str(DEV), str(DEV), "--no-plan", "--as-of", "2024-05-29")
    code, md, _ = _run(capsys, *args, "-f", "markdown", "--cache-dir", str(_cache(tmp_path, "us-east-1")))
    footer = md.splitlines()[-1]
    assert code == 0 and ("Offline estimate from the bundled price catalog with a price cache's refreshed instance "
                          "prices for us-east-1 (policy basis") in footer
    monkeypatch.setenv("SEEDANCE_PRICE_CACHE", str(tmp_path / "cache-us-east-1"))  # the cache the environment names
    code, js, _ = _run(capsys, *args, "-f", "json")
    assert json.loads(js)["price_cache_regions"] == ["us-east-1"]
    code, text, _ = _run(capsys, *args)
    assert "prices: the bundled price catalog with a price cache's refreshed instance prices for us-east-1" in text
    # a cache of other regions only: the bundled prices, as said
    monkeypatch.delenv("SEEDANCE_PRICE_CACHE")
    code, md, _ = _run(capsys, *args, "-f", "markdown", "--cache-dir", str(_cache(tmp_path, "eu-west-1")))
    assert "Offline estimate from the bundled price catalog (policy basis" in md.splitlines()[-1]
    code, js, _ = _run(capsys, *args, "-f", "json")
    assert json.loads(js)["price_cache_regions"] == []


def test_a_missing_base_says_so_and_how_to_diff_a_new_policy(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # red team: "error BASE:1:1: (document): cannot read file", as for a broken policy
    gone = tmp_path / "base" / "new.yaml"
    code, out, err = _run(capsys, str(gone), str(DEV), "--as-of", "2024-05-29")
    assert code == 1 and out == ""
    assert f"error: {gone}: BASE does not exist (no such file); if the change adds this policy, give --base-absent" in err
    assert "cannot read file" not in err and "Traceback" not in err
    code, _, err = _run(capsys, str(DEV), str(tmp_path / "head.yaml"), "--as-of", "2024-05-29")
    assert code == 1 and f"error: {tmp_path / 'head.yaml'}: HEAD does not exist (no such file)" in err


def test_base_absent_compares_the_head_with_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gone = str(tmp_path / "new.yaml")
    code, out, err = _run(capsys, gone, str(DEV), "--base-absent", "--as-of", "2024-05-29", "-f", "json")
    assert code == 0, err
    doc = json.loads(out)
    total = doc["monthly_total"]
    assert total["before"] == 0 and total["after"] > 0 and total["delta"] == total["after"]
    assert doc["budget"]["before"] is None and doc["budget"]["share_after"] > 0
    lines = doc["fleets"] + doc["services"] + doc["resources"]
    assert lines and {c["status"] for c in lines} == {"added"} and all(c["before"] is None for c in lines)
    assert {(d["decision"], d["before"]) for d in doc["decisions"]} == {("fleet", None)}
    assert {d["fleet"] for d in doc["decisions"]} == {c["key"] for c in doc["fleets"]}  # every fleet is new
    note = "there is no base policy (--base-absent: the change adds this policy): every line is an addition"
    assert [n for n in doc["notes"] if n.startswith(note)] == doc["notes"] and f"note: {note}" in err
    code, md, _ = _run(capsys, gone, str(DEV), "--base-absent", "--as-of", "2024-05-29", "-f", "markdown")
    assert code == 0 and f"> ⚠️ {note}" in md and "| Monthly total | 0.00 USD |" in md


def test_base_absent_refuses_a_base_that_exists(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(capsys, str(DEV), str(DEV), "--base-absent")
    assert code == 2 and f"--base-absent: {DEV} exists" in err


def _side(root: Path, demand: list[float]) -> Path:
    """A copy of dev whose inference fleet plans from demand.csv beside the policy."""
    root.mkdir()
    rows = "".join(f"2024-03-01T{h % 24:02d}:00:00Z,{v}\n".replace("-01T", f"-{1 + h // 24:02d}T") for h, v in enumerate(demand))
    (root / "demand.csv").write_text("hour,demand\n" + rows)
    policy = root / "dev.yaml"
    policy.write_text(f"apiVersion: seedance.io/v1\nkind: CostPolicy\nextends: {DEV}\nfleets:\n"
                      "  - name: inference\n    demandHistory: demand.csv\n")
    return policy


def test_the_help_says_each_side_reads_its_own_demand_history(capsys: pytest.CaptureFixture[str]) -> None:
    # red team: it said "both always read the same demand history"
    assert main(["diff", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "same demand history" not in text
    assert "Each side reads the demand histories its own policy names, relative to its file" in text


def test_a_fleet_planned_from_other_demand_data_is_noted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # red team: the same policy beside a doubled demand history showed a cost change as if the policy made it
    week = [1.0 + (h % 24 > 8) for h in range(24 * 14)]
    base, head = _side(tmp_path / "base", week), _side(tmp_path / "head", [2 * v for v in week])
    code, out, err = _run(capsys, str(base), str(head), "--as-of", "2024-03-20", "-f", "json")
    assert code == 0, err
    note = (f"fleet inference is planned from other demand data in the head: the base reads {tmp_path / 'base' / 'demand.csv'}, "
            f"the head {tmp_path / 'head' / 'demand.csv'}, and their demand before 2024-03-20 differs, so its cost change "
            "comes from the data as well as the policy")
    assert json.loads(out)["notes"] == [note] and f"note: {note}" in err
    code, md, _ = _run(capsys, str(base), str(head), "--as-of", "2024-03-20", "-f", "markdown")
    assert f"> ⚠️ {md_text(note)}" in md
    # the same demand in another file, or a difference only after the decision date (never read): no note
    same = _side(tmp_path / "same", week)
    later = _side(tmp_path / "later", week[:-24] + [5.0] * 24)
    for other in (same, later):
        code, out, _ = _run(capsys, str(base), str(other), "--as-of", "2024-03-14", "-f", "json")
        assert code == 0 and json.loads(out)["notes"] == []
