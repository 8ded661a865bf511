"""``seedance policy test --run`` with a pattern Python's ``re`` refuses by raising something other
than ``re.error`` (a repeat count past its limit, groups nested past its parser's recursion): the same
usage error as any invalid pattern (exit 2), never an internal error."""

from __future__ import annotations

from pathlib import Path

import pytest

from seedance.cli import main
from seedance.gate.errors import PolicyLoadError
from seedance.gate.testrunner import TestFilterError, run_tests

TOO_MANY = "a{99999999999}"
TOO_DEEP = "(" * 5000 + ")" * 5000


@pytest.mark.parametrize(("pattern", "why"), [
    (TOO_MANY, "the repetition number is too large"),
    (TOO_DEEP, "nested too deeply to compile"),
])
def test_run_filter_re_cannot_compile_is_a_usage_error(tmp_path: Path, pattern: str, why: str) -> None:
    with pytest.raises(TestFilterError) as info:
        run_tests(tmp_path / "not-even-loaded", match=pattern)
    assert isinstance(info.value, PolicyLoadError)
    (problem,) = info.value.problems
    assert problem.startswith("--run '") and f"': not a valid regular expression: {why}" in problem
    assert len(problem) < 300  # the pattern is shortened, not echoed whole


@pytest.mark.parametrize("pattern", [TOO_MANY, TOO_DEEP])
def test_run_filter_re_cannot_compile_on_the_command_line(capsys: pytest.CaptureFixture[str], pattern: str) -> None:
    code = main(["policy", "test", "--run", pattern])
    captured = capsys.readouterr()
    err = " ".join(captured.err.split())
    assert code == 2
    assert "not a valid regular expression" in err
    assert "internal error" not in err and "Traceback" not in err and "PASS" not in captured.out
