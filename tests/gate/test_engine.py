"""The embedded engine's own bookkeeping: the order of raw findings, the input hand-over and the
Rust backtrace setting."""

from __future__ import annotations

import os

import pytest

from seedance.gate import RegorusEngine, load_bundle
from seedance.gate.engine import _sort_findings, compile_modules
from seedance.gate.errors import EngineError


def _finding(message: str, name: str = "b") -> dict:
    return {
        "control_id": "GDPR-44-1",
        "severity": "mandatory",
        "urn": f"urn:pulumi:test::p::aws:s3/bucket:Bucket::{name}",
        "resource_type": "aws:s3/bucket:Bucket",
        "resource_name": name,
        "message": message,
    }


def test_findings_sort_like_their_json_text_not_like_python_strings() -> None:
    # JSON text order: "ab\u00e9" < "abc def" < "abc" < "abc\"" (the escape and the closing quote
    # decide), where plain string order would be "abc", "abc def", 'abc"', "abé"
    findings = [_finding("abc"), _finding('abc"'), _finding("abé"), _finding("abc def")]
    assert [f["message"] for f in _sort_findings(findings)] == ["abé", "abc def", "abc", 'abc"']


def test_findings_with_equal_messages_sort_by_the_next_field() -> None:
    findings = [_finding("m", "z"), _finding("m", "a")]
    assert [f["resource_name"] for f in _sort_findings(findings)] == ["a", "z"]


def test_findings_of_another_shape_sort_by_their_json_text() -> None:
    findings = [{"message": "b", "extra": 1}, {"message": "a", "extra": 2}]
    assert _sort_findings(findings) == [{"message": "b", "extra": 1}, {"message": "a", "extra": 2}]


def test_input_that_is_not_json_is_an_engine_error() -> None:
    bundle = load_bundle()
    with pytest.raises(EngineError, match="input is not JSON-serialisable"):
        RegorusEngine().evaluate(bundle.only({"GDPR-44-1"}), {"document": {"resources": [object()]}})


def test_loading_the_rules_turns_off_rust_library_backtraces_unless_the_user_chose(monkeypatch) -> None:
    bundle = load_bundle()
    monkeypatch.setenv("RUST_BACKTRACE", "1")
    monkeypatch.delenv("RUST_LIB_BACKTRACE", raising=False)
    compile_modules(bundle)
    assert os.environ["RUST_LIB_BACKTRACE"] == "0"
    monkeypatch.setenv("RUST_LIB_BACKTRACE", "1")
    compile_modules(bundle)
    assert os.environ["RUST_LIB_BACKTRACE"] == "1"
