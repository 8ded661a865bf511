"""The Rego unit tests (every test_ rule under policies/) run through pytest, one item per test."""

from __future__ import annotations

import pytest

from seedance.gate import load_bundle
from seedance.gate.testrunner import discover, run_tests

_BUNDLE = load_bundle()
_CASES = discover(_BUNDLE)
_REPORT = {r.case.query: r for r in run_tests(bundle=_BUNDLE).results}


@pytest.mark.parametrize("query", [c.query for c in _CASES])
def test_rego(query: str) -> None:
    result = _REPORT[query]
    assert result.status == "PASS", f"{result.case.file}:{result.case.line}: {query}: {result.status} {result.error or ''}"


def test_every_control_has_firing_and_passing_tests() -> None:
    by_file: dict[str, set[str]] = {}
    for c in _CASES:
        by_file.setdefault(c.file, set()).add(c.name)
    for control in _BUNDLE.controls:
        test_file = control.file.replace(".rego", "_test.rego")
        names = by_file.get(test_file, set())
        assert any(n.startswith("test_fail") for n in names), f"{control.control_id}: no test_fail_* in {test_file}"
        assert any(n.startswith("test_pass") for n in names), f"{control.control_id}: no test_pass_* in {test_file}"


def test_catalog_coverage() -> None:
    frameworks = [c.framework for c in _BUNDLE.controls]
    assert frameworks.count("gdpr") >= 12
    assert frameworks.count("mlps-l3") >= 18
    assert frameworks.count("budget") == 8
