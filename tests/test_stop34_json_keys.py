"""A JSON object that gives a key twice is refused wherever Seedance reads JSON: Python's reader keeps
the last value, so a gate document, plan, facts file or budget alert would mean what its reader
happened to pick (an SNS envelope with two "Message" keys acted on the second)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from seedance.cli import main
from seedance.textfile import TextFileError, parse_json, read_json_file

REPO = Path(__file__).resolve().parents[1]


def test_parse_json_refuses_a_key_given_twice_at_any_depth() -> None:
    assert parse_json('{"a": {"b": 1, "c": [{"d": 2}]}}') == {"a": {"b": 1, "c": [{"d": 2}]}}
    for text in ('{"a": 1, "a": 2}', '{"x": [{"inputs": {"k": 1, "k": 1}}]}'):
        with pytest.raises(ValueError, match="gives the key '(a|k)' twice"):
            parse_json(text)
    # keys equal only once decoded are the same key
    with pytest.raises(ValueError, match="twice"):
        parse_json('{"a": 1, "\\u0061": 2}')


def test_a_file_names_itself_beside_the_fault(tmp_path: Path) -> None:
    path = tmp_path / "doc.json"
    path.write_text('{"resources": [], "resources": []}')
    with pytest.raises(TextFileError, match=r"doc\.json: not valid JSON for Seedance: an object gives the key 'resources' twice"):
        read_json_file(path)


def test_budget_respond_refuses_an_envelope_giving_message_twice(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    event = tmp_path / "event.json"
    event.write_text('{"Type": "Notification", "Message": "AWS Budget Notification", "Message": "other"}')
    out = tmp_path / "overlay.yaml"
    code = main(["budget", "respond", str(REPO / "stacks" / "policies" / "dev.yaml"), str(event), "--stack", "dev",
                 "--project-dir", str(REPO / "stacks"), "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 1 and "gives the key 'Message' twice" in err and "not JSON: not valid" not in err
    assert not out.exists()


def test_check_is_undecided_on_a_document_giving_a_key_twice(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sample = json.loads((REPO / "tests" / "synth" / "samples" / "eu-prod.json").read_text())
    text = json.dumps(sample)
    doc = tmp_path / "doc.json"
    doc.write_text(text.replace('"urn": ', '"urn": "urn:pulumi:x::y::z::w", "urn": ', 1))  # a resource given two URNs
    code = main(["check", str(doc), "--policy", str(REPO / "stacks" / "policies" / "eu-prod.yaml")])
    captured = capsys.readouterr()
    assert code == 2 and "gives the key 'urn' twice" in captured.out + captured.err


def test_plans_and_pulumi_output_refuse_a_key_given_twice(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    plan = tmp_path / "plan.json"
    plan.write_text('{"policy": "a", "policy": "b", "fleets": []}')
    assert main(["estimate", str(REPO / "stacks" / "policies" / "dev.yaml"), "--plan", str(plan)]) == 1
    assert "gives the key 'policy' twice" in capsys.readouterr().err
    preview = tmp_path / "preview.json"
    preview.write_text('{"steps": [], "steps": []}')
    assert main(["synth", "--from-preview", str(preview), "--out", str(tmp_path / "doc.json")]) == 1
    assert "gives the key 'steps' twice" in capsys.readouterr().err
    assert not (tmp_path / "doc.json").exists()
