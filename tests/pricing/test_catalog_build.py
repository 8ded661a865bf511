"""The shipped catalog is exactly what the builder makes from the shared data, and every price in
it can be traced to a row of that data."""

from __future__ import annotations

import csv
import functools
import json
import re
from pathlib import Path

from click.testing import CliRunner

from seedance.cli import app
from seedance.pricing.build import INPUTS, build_catalog, dumps_catalog
from seedance.pricing.catalog import BUNDLED_CATALOG

REF = re.compile(r"^(?P<file>[\w.\-]+)\[(?P<keys>[^\]]*)\]\.(?P<col>[\w.]+)$")


def test_shipped_catalog_equals_a_fresh_rebuild(shared_dir: Path) -> None:
    fresh = dumps_catalog(build_catalog(shared_dir))
    shipped = BUNDLED_CATALOG.read_text(encoding="utf-8")
    assert shipped == fresh, "seedance/data/price_catalog.json is stale: run `seedance prices build`"


def test_build_command_writes_the_same_file(shared_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "catalog.json"
    result = CliRunner().invoke(app, ["prices", "build", "--shared", str(shared_dir), "--out", str(out)], standalone_mode=False)
    assert result.return_value == 0, result.output
    assert "150 instance offers, 217 service prices, 7 regions" in result.output
    assert out.read_text(encoding="utf-8") == BUNDLED_CATALOG.read_text(encoding="utf-8")


def test_build_command_names_a_missing_shared_dir(tmp_path: Path) -> None:
    args = ["prices", "build", "--shared", str(tmp_path / "nope"), "--out", str(tmp_path / "c.json")]
    result = CliRunner().invoke(app, args, standalone_mode=False)
    assert result.return_value == 1
    assert "shared data directory not found" in result.output
    assert not (tmp_path / "c.json").exists()


def test_build_command_never_makes_up_the_out_directory(shared_dir: Path, tmp_path: Path) -> None:
    args = ["prices", "build", "--shared", str(shared_dir), "--out", str(tmp_path / "nodir" / "c.json")]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2 and "does not exist" in result.output
    assert not (tmp_path / "nodir").exists()


def test_header_records_the_inputs_and_their_hashes(shared_dir: Path) -> None:
    doc = json.loads(BUNDLED_CATALOG.read_text(encoding="utf-8"))
    assert doc["schema"] == "seedance.io/price-catalog" and doc["version"] == 1
    assert [b["file"] for b in doc["built_from"]] == list(INPUTS)
    assert all(re.fullmatch(r"[0-9a-f]{64}", b["sha256"]) for b in doc["built_from"])
    assert BUNDLED_CATALOG.stat().st_size < 1_000_000  # lean: well under 2 MB


@functools.lru_cache(maxsize=None)
def _csv(shared: Path, file: str) -> tuple[dict[str, str], ...]:
    matches = list(shared.rglob(file))
    assert len(matches) == 1, f"{file}: expected exactly one file in the shared data"
    with matches[0].open(newline="", encoding="utf-8") as fh:
        return tuple(csv.DictReader(fh))


def _find_row(shared: Path, file: str, keys: dict[str, str]) -> dict[str, str]:
    rows = [r for r in _csv(shared, file) if all(r[k] == v for k, v in keys.items())]
    assert len(rows) == 1, f"{file}{keys}: expected exactly one row, found {len(rows)}"
    return rows[0]


def _check_price(shared: Path, price: dict, where: str) -> None:
    m = REF.match(price["ref"])
    assert m, f"{where}: ref {price['ref']!r} is not file[key=value,...].column"
    keys = dict(kv.split("=", 1) for kv in m["keys"].split(","))
    row = _find_row(shared, m["file"], keys)
    assert float(row[m["col"]]) == price["value"], f"{where}: {price['value']} != {m['file']}{keys}.{m['col']}"
    assert price["source"] and price["date"]


def test_every_price_traces_to_a_csv_row(shared_dir: Path) -> None:
    doc = json.loads(BUNDLED_CATALOG.read_text(encoding="utf-8"))
    checked = 0
    for rec in doc["instances"]:
        where = f"{rec['region']}/{rec['instance_type']}"
        for key, value in rec["prices"].items():
            for price in value.values() if key in ("reserved", "convertible", "savings_plan") else [value]:
                _check_price(shared_dir, price, f"{where} {key}")
                checked += 1
        band = rec.get("interruption")
        if band:
            m = REF.match(band["ref"])
            keys = dict(kv.split("=", 1) for kv in m["keys"].split(","))
            assert _find_row(shared_dir, m["file"], keys)[m["col"]] == band["band"]
    for svc in doc["services"]:
        _check_price(shared_dir, svc, f"{svc['region']}/{svc['service']}/{svc['item']}")
        checked += 1
    assert checked > 1000
