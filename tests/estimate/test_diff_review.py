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


# ---------------------------------------------------------------- held reservations

HELD = "    reserved: {mode: auto, term: 1y, held: [{units: 2, term: 1y, purchased: 2026-01-10}]}\n"
#: dev's finetune fleet, whole (as base.yaml and dev.yaml make it), to be renamed
FINETUNE = ("    workload: finetune\n    sla: silver\n    dataClass: personal\n    gpu: {model: A10G, count: 1, memoryGib: 24}\n"
            "    capacity: {min: 0, desired: 1, max: 2}\n    spot: {maxShare: 1.0, interruptionTolerance: medium}\n"
            "    checkpoint: {writeSeconds: 60, restartSeconds: 240, interval: auto}\n")


def _policy(path: Path, extends: Path, body: str) -> Path:
    path.write_text(f"apiVersion: seedance.io/v1\nkind: CostPolicy\nextends: {extends}\n{body}")
    return path


def _held_base(tmp_path: Path) -> Path:
    return _policy(tmp_path / "base.yaml", DEV, "fleets:\n  - name: finetune\n" + HELD)


def _notes(capsys: pytest.CaptureFixture[str], base: Path, head: Path, *more: str) -> list[str]:
    code, out, err = _run(capsys, str(base), str(head), "--as-of", "2026-06-01", "-f", "json", *more)
    assert code == 0, err
    return [n for n in json.loads(out)["notes"] if "held reserved" in n]


def test_held_reservations_of_a_fleet_moved_to_another_region_stay_billed(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # red team: held.yaml -> held-west.yaml showed a saving; the reservations bought in the base's region stay billed
    base = _held_base(tmp_path)
    head = _policy(tmp_path / "west.yaml", base, "cloud:\n  region: us-west-2\n  availabilityZones: [us-west-2a, us-west-2b]\n")
    for more in ((), ("--no-plan",)):
        (note,) = _notes(capsys, base, head, *more)
        assert note.startswith("fleet finetune: its 2 held reserved unit(s) (2 of 1y bought 2026-01-10, term ends "
                               "2027-01-10) were bought for g5.2xlarge in us-east-1, but the change runs it on "), note
        assert ("in us-west-2: they stay billed until their term ends, and the head's total does not count them "
                "(it prices them as reservations of ") in note
    code, md, _ = _run(capsys, str(base), str(head), "--as-of", "2026-06-01", "-f", "markdown")
    assert "> ⚠️ fleet finetune: its 2 held reserved unit(s)" in md
    code, text, _ = _run(capsys, str(base), str(head), "--as-of", "2026-06-01")
    assert "note: fleet finetune: its 2 held reserved unit(s)" in " ".join(text.split())


def test_held_reservations_of_another_instance_type_stay_billed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # red team: held.yaml -> held-l4.yaml (A10G to L4: g5 to g6) showed a saving
    base = _held_base(tmp_path)
    head = _policy(tmp_path / "l4.yaml", base, "fleets:\n  - name: finetune\n    gpu: {model: L4, count: 1, memoryGib: 24}\n")
    (note,) = _notes(capsys, base, head)
    assert "were bought for g5.2xlarge in us-east-1, but the change runs it on g6.xlarge in us-east-1" in note
    assert "(it prices them as reservations of g6.xlarge in us-east-1, which they are not)" in note
    # the same type and region: nothing to say
    same = _policy(tmp_path / "same.yaml", base, "fleets:\n  - name: finetune\n    capacity: {min: 0, desired: 2, max: 2}\n")
    assert _notes(capsys, base, same) == []


def test_held_units_the_head_drops_stay_billed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = _held_base(tmp_path)
    fewer = _policy(tmp_path / "fewer.yaml", base, "fleets:\n  - name: finetune\n"
                    "    reserved: {mode: auto, held: [{units: 1, term: 1y, purchased: 2026-01-10}]}\n")
    assert _notes(capsys, base, fewer) == [
        "fleet finetune: the change drops 1 held reserved unit(s) from its reserved.held (1 of 1y bought 2026-01-10, "
        "term ends 2027-01-10; bought for g5.2xlarge in us-east-1), but they stay billed until their term ends: the "
        "head's total does not count them"]
    none = _policy(tmp_path / "none.yaml", base, "fleets:\n  - name: finetune\n    reserved: {mode: auto, held: []}\n")
    (note,) = _notes(capsys, base, none)
    assert note.startswith("fleet finetune: the change drops 2 held reserved unit(s)")
    # once the term has ended, nothing is billed any more
    assert _notes(capsys, base, none, "--as-of", "2027-02-01") == []


def test_a_renamed_fleet_that_keeps_its_reservations_loses_none(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # the head holds the same reservations under the new name and prices them there: nothing is lost
    base = _held_base(tmp_path)
    renamed = _policy(tmp_path / "renamed.yaml", base,
                      "fleets:\n  - name: finetune\n    $remove: true\n  - name: tuning\n" + FINETUNE + HELD)
    assert _notes(capsys, base, renamed) == []
    # renamed without them: the removed fleet's note, as before
    bare = _policy(tmp_path / "bare.yaml", base, "fleets:\n  - name: finetune\n    $remove: true\n  - name: tuning\n" + FINETUNE)
    (note,) = _notes(capsys, base, bare)
    assert note.startswith("fleet finetune is removed, but its 2 held reserved unit(s) stay billed until their term "
                           "ends (2 of 1y bought 2026-01-10, term ends 2027-01-10; bought for g5.2xlarge in us-east-1)")
    # renamed onto another instance type: they went with it, and do not cover its nodes
    moved = _policy(tmp_path / "moved.yaml", base, "fleets:\n  - name: finetune\n    $remove: true\n  - name: tuning\n"
                    + FINETUNE.replace("A10G", "L4") + HELD)
    (note,) = _notes(capsys, base, moved)
    assert ("fleet finetune: its 2 held reserved unit(s) (2 of 1y bought 2026-01-10, term ends 2027-01-10) were bought "
            "for g5.2xlarge in us-east-1, but the change runs fleet tuning, which holds them now, on g6.xlarge") in note


def test_demand_files_under_the_working_directory_are_named_relatively(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    # a PR comment names the checkout's files, not the machine's paths to them
    week = [1.0 + (h % 24 > 8) for h in range(24 * 14)]
    base, head = _side(tmp_path / "base", week), _side(tmp_path / "head", [2 * v for v in week])
    monkeypatch.chdir(tmp_path)
    code, out, _ = _run(capsys, str(base), str(head), "--as-of", "2024-03-20", "-f", "json")
    (note,) = json.loads(out)["notes"]
    assert code == 0 and "the base reads base/demand.csv, the head head/demand.csv," in note and str(tmp_path) not in note
