"""Files handed to ``seedance check`` that cannot be read as what they should hold: the run is
undecided (exit 2) with a message naming the file and where, never an internal error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from seedance.cli import main
from seedance.textfile import MAX_JSON_DEPTH, TextFileError, read_json_file, too_deep

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "tests" / "synth" / "samples" / "eu-prod.json"
POLICY = REPO / "stacks" / "policies" / "eu-prod.yaml"


def _nested(levels: int) -> object:
    v: object = 1
    for _ in range(levels):
        v = [v]
    return v


def _check(capsys, path: Path, *extra: str) -> tuple[int, str]:
    code = main(["check", str(path), "--policy", str(POLICY), *extra])
    out = capsys.readouterr()
    assert "passed" not in out.out and "✓" not in out.out
    return code, out.err


@pytest.mark.parametrize(("content", "expected"), [
    (b'{"kind": "\xff"}', "x.json:1: not UTF-8 text (byte 0xff at offset 10)"),
    ('{"kind": "ResourceDocument"}'.encode("utf-16"), "x.json:1: not UTF-8 text (byte 0xff at offset 0)"),
    (b'{\n"kind": ,}', "x.json:2:9: not valid JSON"),
    (b"[" * 100_000 + b"]" * 100_000, "x.json:1: JSON nested too deeply to read"),
])
def test_unreadable_document_is_undecided_naming_the_file(capsys, tmp_path: Path, content: bytes, expected: str) -> None:
    path = tmp_path / "x.json"
    path.write_bytes(content)
    code, err = _check(capsys, path)
    assert code == 2
    assert expected in err
    assert "internal error" not in err


def test_document_nested_too_deep_to_check_is_undecided(capsys, tmp_path: Path) -> None:
    doc = json.loads(SAMPLE.read_text())
    doc["resources"][3]["inputs"]["deep"] = _nested(900)  # parses, but nothing downstream should walk it
    path = tmp_path / "deep.json"
    path.write_text(json.dumps(doc))
    code, err = _check(capsys, path)
    assert code == 2
    assert f"deep.json: resources[3].inputs.deep[0][0][0][0]…: nested more than {MAX_JSON_DEPTH} levels" in err
    assert "internal error" not in err


def test_whole_gate_input_nested_too_deep_is_undecided(capsys, tmp_path: Path) -> None:
    path = tmp_path / "gi.json"
    path.write_text(json.dumps({"document": json.loads(SAMPLE.read_text()), "policy": {}, "plan": {"x": _nested(500)}}))
    code = main(["check", str(path)])
    err = capsys.readouterr().err
    assert code == 2
    assert "gi.json: plan.x[0][0][0][0][0][0]…: nested more than" in err


def test_unreadable_facts_file_is_undecided(capsys, tmp_path: Path) -> None:
    doc = tmp_path / "doc.json"
    doc.write_text(SAMPLE.read_text())
    facts = tmp_path / "facts.json"
    facts.write_bytes(b'{"region": "eu-west-1", "subnets": {"\xfe": 1}}')
    code, err = _check(capsys, doc, "--facts", str(facts))
    assert code == 2
    assert "facts.json:1: not UTF-8 text (byte 0xfe" in err


def test_a_directory_is_not_a_document(capsys, tmp_path: Path) -> None:
    with pytest.raises(TextFileError, match="is a directory, expected a JSON file"):
        read_json_file(tmp_path)


def test_too_deep_counts_levels_exactly() -> None:
    assert too_deep(_nested(MAX_JSON_DEPTH)) is None
    assert too_deep(_nested(MAX_JSON_DEPTH + 1)) is not None
    assert too_deep({"a": [{"b": _nested(3)}]}, limit=5) == "a[0].b[0][0]"
    assert too_deep({"a": [{"b": _nested(3)}]}, limit=6) is None
