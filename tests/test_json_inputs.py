"""JSON that Python's reader accepts but that means no one thing is refused wherever Seedance reads JSON:
an object giving a key twice (the reader keeps the last value, so a gate document, plan, facts file or
budget alert would mean what its reader happened to pick: an SNS envelope with two "Message" keys
acted on the second), and a string holding half a UTF-16 surrogate pair (no Unicode text: handed to
the Rego engine it crashed the gate with a segmentation fault and no report)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from seedance.cli import main
from seedance.textfile import TextFileError, lone_surrogate, parse_json, read_json_file

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


def test_lone_surrogates_are_found_and_placed() -> None:
    assert lone_surrogate('{"a": "\\ud83d\\ude00 ok"}') is None  # a pair is one character
    assert lone_surrogate('{"a": "\\\\ud800"}') is None  # an escaped backslash, then text
    assert lone_surrogate('{"a": "plain"}') is None
    assert lone_surrogate('{"a": "\\ud800"}') == (
        "1:8: \\ud800 is half of a UTF-16 surrogate pair, not a character: expected Unicode text")
    assert (lone_surrogate('{"a":\n "x\\udc00"}') or "").startswith("2:4: \\udc00")  # a low half alone
    assert (lone_surrogate('["\\ud83d", "\\ude00"]') or "").startswith("1:3: ")  # halves in two strings
    assert (lone_surrogate('["\\ud83d\\n\\ude00"]') or "").startswith("1:3: ")  # another escape between
    assert (lone_surrogate('["\\ud83d\\ude00", "\\udbff"]') or "").startswith("1:19: ")  # after a good pair
    with pytest.raises(ValueError, match="^1:8: .ud800 is half of a UTF-16 surrogate pair"):
        parse_json('{"a": "\\ud800"}')
    assert parse_json('{"a": "\\ud83d\\ude00"}') == {"a": "\U0001f600"}


def test_check_is_undecided_on_a_document_with_half_a_surrogate_pair(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    sample = json.loads((REPO / "tests" / "synth" / "samples" / "eu-prod.json").read_text())
    sample["resources"][1]["inputs"]["tags"] = {"team": "\ud800"}  # json.dumps writes it as an escape
    doc = tmp_path / "doc.json"
    doc.write_text(json.dumps(sample))
    for fmt in ("text", "sarif"):
        code = main(["check", str(doc), "--policy", str(REPO / "stacks" / "policies" / "eu-prod.yaml"), "--format", fmt])
        captured = capsys.readouterr()
        assert code == 2, fmt  # undecided, the process alive to say so
        assert "half of a UTF-16 surrogate pair" in captured.out + captured.err
        if fmt == "sarif":
            assert json.loads(captured.out)["runs"][0]["invocations"][0]["executionSuccessful"] is False


def test_plans_and_pulumi_output_refuse_half_a_surrogate_pair(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    plan = tmp_path / "plan.json"
    plan.write_text('{"policy": "\\udfff", "fleets": []}')
    assert main(["estimate", str(REPO / "stacks" / "policies" / "dev.yaml"), "--plan", str(plan)]) == 1
    assert "plan.json:1:13: \\udfff is half of a UTF-16 surrogate pair" in capsys.readouterr().err
    preview = tmp_path / "preview.json"
    preview.write_text('progress line\n{"steps": [{"urn": "\\ud800"}]}')  # the JSON after a line of progress
    assert main(["synth", "--from-preview", str(preview), "--out", str(tmp_path / "doc.json")]) == 1
    assert "preview.json:2:21: \\ud800 is half" in capsys.readouterr().err
    assert not (tmp_path / "doc.json").exists()
