"""``seedance prices build`` on corrupt shared data: an error naming FILE:LINE and the column, exit 1, and no
catalog written -- never a traceback, a made-up/negative/non-finite price or a silently smaller catalog."""

from __future__ import annotations

import csv
import json
import math
import re
import shutil
from pathlib import Path

import pytest

from seedance.cli import main
from seedance.pricing.build import ADVISOR, COMPACT, INPUTS, KARPENTER, OLD_2017, SERVICES, build_catalog, dumps_catalog
from seedance.pricing.catalog import BUNDLED_CATALOG, PriceDataError


@pytest.fixture()
def shared_copy(shared_dir: Path, tmp_path: Path) -> Path:
    """A scratch copy of the build's inputs (the shared data itself is never touched)."""
    root = tmp_path / "shared"
    for rel in INPUTS:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(shared_dir / rel, root / rel)
    return root


def _edit_cell(path: Path, line: int, column: str, value: str) -> None:
    """Set one cell (``line`` is the 1-based file line; the files have no quoted commas in these columns)."""
    lines = path.read_text(encoding="utf-8").split("\n")
    header = lines[0].split(",")
    cells = lines[line - 1].split(",")
    assert len(cells) == len(header), "test helper: the row has quoted commas"
    cells[header.index(column)] = value
    lines[line - 1] = ",".join(cells)
    path.write_text("\n".join(lines), encoding="utf-8")


def _line_with(path: Path, **patterns: str) -> int:
    """The file line of the first data row whose cells match ``patterns`` (column -> regex)."""
    with path.open(newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        for row in reader:
            if all(re.search(pattern, row[column]) for column, pattern in patterns.items()):
                return reader.line_num
    raise AssertionError(f"no row of {path} matches {patterns}")


def _build(capsys: pytest.CaptureFixture[str], shared: Path, out: Path) -> tuple[int, str]:
    code = main(["prices", "build", "--shared", str(shared), "--out", str(out)])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


@pytest.mark.parametrize(("value", "shown"), [("abc", "'abc'"), ("-3.06", "'-3.06'"), ("0", "'0'"), ("nan", "'nan'"),
                                              ("1e400", "'1e400'"), ("inf", "'inf'")])
def test_a_bad_on_demand_price_names_file_line_and_column(value: str, shown: str, shared_copy: Path, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    path = shared_copy / COMPACT
    _edit_cell(path, 2, "ondemand_hourly", value)
    out = tmp_path / "catalog.json"
    code, text = _build(capsys, shared_copy, out)
    assert code == 1, text
    assert f"{path}:2: column ondemand_hourly: expected a positive finite price" in text and f"got {shown}" in text
    assert "internal error" not in text and "Traceback" not in text
    assert not out.exists()


@pytest.mark.parametrize(("rel", "column", "value", "expected"), [
    (COMPACT, "spot_avg_hourly", "-0.3", "a positive finite price"),
    (COMPACT, "ri_1y_std_no_upfront_hourly", "1e400", "a positive finite price"),
    (COMPACT, "vcpu", "8.5", "a whole number >= 1"),
    (COMPACT, "gpus", "-1", "a whole number >= 0"),
    (COMPACT, "memory_gib", "NaN", "a finite number > 0"),
    (COMPACT, "gpu_memory_gib_total", "x", "a finite number >= 0"),
    (COMPACT, "spot_interrupt_band", "sometimes", "a Spot Advisor band"),
    (COMPACT, "snapshot_date", "yesterday", "an ISO date"),
    (COMPACT, "region", "", "a value"),
    (COMPACT, "gpu_model", "NVIDIA Z9", "unknown GPU model"),
    (OLD_2017, "ondemand_hourly", "", "a positive finite price"),
    (OLD_2017, "ondemand_hourly", "-0.17", "a positive finite price"),
    (OLD_2017, "ri_3y_conv_no_upfront_hourly", "infinity", "a positive finite price"),
    (KARPENTER, "ondemand_hourly", "free", "a positive finite price"),
    (KARPENTER, "generated_at_utc", "now", "an ISO date"),
    (SERVICES, "price", "-0.08", "a finite price >= 0"),
    (SERVICES, "price", "nan", "a finite price >= 0"),
])
def test_a_bad_cell_names_file_line_and_column(rel: str, column: str, value: str, expected: str, shared_copy: Path,
                                               tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = shared_copy / rel
    line = _line_with(path, **{column: "."})  # a row where the cell is read: it has a value
    _edit_cell(path, line, column, value)
    out = tmp_path / "catalog.json"
    code, text = _build(capsys, shared_copy, out)
    assert code == 1, text
    assert f"{path}:{line}: column {column}: " in text and expected in text, text
    assert "internal error" not in text
    assert not out.exists()


def test_a_bad_advisor_cell_that_is_used_is_an_error(shared_copy: Path) -> None:
    path = shared_copy / ADVISOR
    # m5.xlarge is priced by the karpenter file only: its vCPU and memory are read from this row
    line = _line_with(path, region="^us-east-1$", os="^Linux$", instance_type=r"^m5\.xlarge$")
    _edit_cell(path, line, "ram_gb", "-16")
    with pytest.raises(PriceDataError, match=rf"^{re.escape(str(path))}:{line}: column ram_gb: expected a finite number > 0"):
        build_catalog(shared_copy)


def test_a_renamed_column_is_named_with_the_file(shared_copy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = shared_copy / COMPACT
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("ondemand_hourly", "od_hourly", 1), encoding="utf-8")
    code, out = _build(capsys, shared_copy, tmp_path / "c.json")
    assert code == 1 and f"{path}:1: missing column(s) ondemand_hourly in the header" in out


def test_a_short_row_is_named_with_file_and_line(shared_copy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = shared_copy / COMPACT
    lines = path.read_text(encoding="utf-8").split("\n")
    lines[4] = lines[4].rsplit(",", 3)[0]  # line 5 loses its last three fields
    path.write_text("\n".join(lines), encoding="utf-8")
    code, out = _build(capsys, shared_copy, tmp_path / "c.json")
    assert code == 1 and f"{path}:5: row too short: 21 field(s), the header has 24" in out
    assert not (tmp_path / "c.json").exists()


def test_a_long_row_is_named_with_file_and_line(shared_copy: Path) -> None:
    path = shared_copy / KARPENTER
    lines = path.read_text(encoding="utf-8").split("\n")
    lines[2] += ",extra"
    path.write_text("\n".join(lines), encoding="utf-8")
    with pytest.raises(PriceDataError, match=rf"^{re.escape(str(path))}:3: row too long: 7 field\(s\), the header has 6"):
        build_catalog(shared_copy)


@pytest.mark.parametrize("rel", INPUTS)
def test_a_source_file_without_data_rows_is_an_error(rel: str, shared_copy: Path, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    path = shared_copy / rel
    header = path.read_text(encoding="utf-8").split("\n")[0]
    path.write_text(header + "\n", encoding="utf-8")
    code, out = _build(capsys, shared_copy, tmp_path / "c.json")
    assert code == 1 and f"{path}: no data rows" in out
    path.write_text("", encoding="utf-8")
    code, out = _build(capsys, shared_copy, tmp_path / "c.json")
    assert code == 1 and f"{path}: empty file" in out
    assert not (tmp_path / "c.json").exists()


def test_non_utf8_data_is_named_with_file_and_line(shared_copy: Path) -> None:
    path = shared_copy / SERVICES
    data = path.read_bytes()
    second = data.index(b"\n") + 1
    path.write_bytes(data[:second] + b"\xff" + data[second:])
    with pytest.raises(PriceDataError, match=rf"^{re.escape(str(path))}:2: not UTF-8 text \(byte 0xff"):
        build_catalog(shared_copy)


def test_a_failed_build_leaves_the_previous_catalog(shared_copy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "catalog.json"
    assert _build(capsys, shared_copy, out)[0] == 0
    before = out.read_bytes()
    _edit_cell(shared_copy / COMPACT, 2, "ondemand_hourly", "nan")
    assert _build(capsys, shared_copy, out)[0] == 1
    assert out.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["catalog.json", "shared"]  # no temporary file left


def test_the_scratch_copy_builds_the_bundled_catalog(shared_copy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "catalog.json"
    code, text = _build(capsys, shared_copy, out)
    assert code == 0, text
    assert out.read_bytes() == BUNDLED_CATALOG.read_bytes()


def test_dumps_catalog_never_writes_nan_or_infinity(shared_copy: Path) -> None:
    doc = build_catalog(shared_copy)
    json.loads(dumps_catalog(doc), parse_constant=lambda c: pytest.fail(f"non-JSON constant {c}"))
    doc["instances"][0]["prices"]["ondemand"]["value"] = math.inf
    with pytest.raises(PriceDataError, match="not finite"):
        dumps_catalog(doc)
