"""``seedance policy test`` finds tests the way ``opa test`` does: every rule named ``test_...`` in any
Rego v1 form, each definition of it one test (``test_x``, ``test_x#01``, ...), and an invalid ``--run``
filter is a usage error, not an internal one."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from seedance.cli import main
from seedance.gate import PolicyLoadError, load_bundle
from seedance.gate.testrunner import TestFilterError, discover, run_tests

REPO = Path(__file__).resolve().parents[2]

# every form appended to a shipped test file (package mlps.local_backup_test); the non-ASCII comment
# checks that renaming works on byte offsets
_FORMS = """
# ünïcödé ✓ — the forms opa test runs
test_with_value := true if { false }
test_unify_value = true if { false }
test_value_pass := true if { true }
test_constant_true := true
test_constant_one := 1
test_set contains 1 if { true }
test_else if { false } else := true
test_else_false if { false } else := false
default test_default := true
test_twice if { false }
test_twice if { true }
test_chained if { true } { false }
test_undefined if { input.nothing == 1 }
nested.test_inner if { true }
test_fn(x) if { x }
test_cases[name] := true if { some name in ["a", "b"] }
todo_test_later if { false }
"""

_EXPECTED = {
    "test_with_value": "FAIL",
    "test_unify_value": "FAIL",
    "test_value_pass": "PASS",
    "test_constant_true": "PASS",
    "test_constant_one": "FAIL",
    "test_set": "FAIL",
    "test_else": "PASS",
    "test_else_false": "FAIL",
    "test_default": "PASS",
    "test_twice": "FAIL",
    "test_twice#01": "PASS",
    "test_chained": "PASS",
    "test_chained#01": "FAIL",
    "test_undefined": "FAIL",
    "nested.test_inner": "PASS",
    "test_fn": "ERROR",
    "test_cases": "ERROR",
}


def _copy_policies(tmp_path: Path) -> Path:
    dest = tmp_path / "policies"
    shutil.copytree(REPO / "policies", dest, ignore=shutil.ignore_patterns("pack", "__pycache__"))
    return dest


def _with_forms(tmp_path: Path) -> tuple[Path, Path, str]:
    root = _copy_policies(tmp_path)
    path = root / "mlps" / "local_backup_test.rego"
    text = path.read_text(encoding="utf-8") + _FORMS
    path.write_text(text, encoding="utf-8")
    return root, path, text


def test_every_rego_v1_test_form_is_run_as_opa_would(tmp_path: Path) -> None:
    root, path, text = _with_forms(tmp_path)
    report = run_tests(root, match=r"^data\.mlps\.local_backup_test\.")  # matched as opa test --run does
    statuses = {r.case.name: r.status for r in report.results}
    shipped = {"test_pass_versioned": "PASS", "test_fail_unversioned_internal_data": "PASS"}
    assert statuses == {**shipped, **_EXPECTED}
    assert not report.ok
    assert path.read_text(encoding="utf-8") == text  # later definitions are renamed in memory only


def test_test_cases_carry_opa_names_and_their_own_lines(tmp_path: Path) -> None:
    root, _, text = _with_forms(tmp_path)
    lines = text.splitlines()
    cases = {c.name: c for c in discover(load_bundle(root)) if c.package == "mlps.local_backup_test"}
    assert cases["test_twice#01"].query == "data.mlps.local_backup_test.test_twice#01"
    assert lines[cases["test_twice"].line - 1] == "test_twice if { false }"
    assert lines[cases["test_twice#01"].line - 1] == "test_twice if { true }"
    assert lines[cases["test_with_value"].line - 1] == "test_with_value := true if { false }"
    assert lines[cases["nested.test_inner"].line - 1] == "nested.test_inner if { true }"
    assert "todo_test_later" not in cases  # skipped, as opa test skips todo_test_ rules
    names = [c.name for c in discover(load_bundle(root))]
    assert len(names) == len(set(names))


def test_unsupported_forms_are_errors_that_name_the_rule(tmp_path: Path) -> None:
    root, _, _ = _with_forms(tmp_path)
    errors = {r.case.name: r.error for r in run_tests(root, match=r"test_(fn|cases)$").results}
    assert set(errors) == {"test_fn", "test_cases"}
    assert re.match(r"mlps/local_backup_test\.rego:\d+: test_fn is a function", errors["test_fn"])
    assert re.match(r"mlps/local_backup_test\.rego:\d+: test_cases: a test rule with a reference after its name",
                    errors["test_cases"])


def test_a_failing_incremental_definition_fails_the_run(tmp_path: Path) -> None:
    root = _copy_policies(tmp_path)
    path = root / "mlps" / "local_backup_test.rego"
    path.write_text(path.read_text(encoding="utf-8") + "\ntest_pass_versioned if { 1 == 2 }\n", encoding="utf-8")
    report = run_tests(root, match="local_backup")
    statuses = {r.case.name: r.status for r in report.results}
    # the shipped test_pass_versioned still passes; its second definition fails on its own, as in opa test
    assert statuses == {"test_pass_versioned": "PASS", "test_fail_unversioned_internal_data": "PASS",
                        "test_pass_versioned#01": "FAIL"}
    assert not report.ok


def _error_and_its_line(tmp_path: Path, extra: str, match: str, failing_line: str) -> tuple[Any, int]:
    """Run the one test ``match`` names after appending ``extra`` to a shipped test file: its result,
    and the line ``failing_line`` is on."""
    root = _copy_policies(tmp_path)
    path = root / "mlps" / "local_backup_test.rego"
    text = path.read_text(encoding="utf-8") + extra
    path.write_text(text, encoding="utf-8")
    (result,) = [r for r in run_tests(root, match=match).results]
    return result, text.splitlines().index(failing_line) + 1


def test_an_error_in_a_renamed_definition_keeps_its_location(tmp_path: Path) -> None:
    extra = "\ntest_err if { true }\n\ntest_err if {\n\tx := \"a\"\n\tto_number(x) == 1\n}\n"
    result, line = _error_and_its_line(tmp_path, extra, r"test_err#01$", "\tto_number(x) == 1")
    assert result.status == "ERROR"
    assert result.error.startswith(f"mlps/local_backup_test.rego:{line}:"), result.error


def test_a_test_defined_in_two_files_under_one_path_runs_twice(tmp_path: Path) -> None:
    # OPA counts definitions by their full data path: the same test reached through a nested rule
    # in one file and a sub-package in another is two tests, and the failing one fails the run
    root = _copy_policies(tmp_path)
    outer = root / "mlps" / "local_backup_test.rego"
    outer.write_text(outer.read_text(encoding="utf-8") + "\nsub_test.test_shared if { 1 == 2 }\n", encoding="utf-8")
    inner = root / "mlps" / "local_backup_test" / "sub_test.rego"
    inner.parent.mkdir()
    inner.write_text("package mlps.local_backup_test.sub_test\n\ntest_shared if { true }\n", encoding="utf-8")
    report = run_tests(root, match="test_shared")
    assert sorted(r.status for r in report.results) == ["FAIL", "PASS"] and not report.ok


def test_an_error_under_a_head_that_spans_lines_keeps_its_line(tmp_path: Path) -> None:
    extra = '\ntest_m :=\n\ttrue if {\n\ttrue\n} {\n\tto_number("a") == 1\n}\n'
    result, line = _error_and_its_line(tmp_path, extra, r"test_m#01$", '\tto_number("a") == 1')
    assert result.status == "ERROR" and result.error.startswith(f"mlps/local_backup_test.rego:{line}:"), result.error


def test_shipped_tests_are_all_found(bundle) -> None:
    """Discovery from the AST finds at least every test the old text pattern found, nothing twice."""
    cases = discover(bundle)
    by_text = {(f.package, m.group(1)) for f in bundle.files if f.is_test
               for m in re.finditer(r"^(test_\w+)\s+if\b", f.text, re.M)}
    assert by_text <= {(c.package, c.name) for c in cases}
    assert len({c.query for c in cases}) == len(cases) >= 125


def test_invalid_run_filter_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(TestFilterError) as info:
        run_tests(tmp_path / "not-even-loaded", match="(")
    assert isinstance(info.value, PolicyLoadError)  # what `seedance policy test` reports (exit 2)
    (problem,) = info.value.problems
    assert problem.startswith("--run '(': not a valid regular expression: missing )")


def test_invalid_run_filter_on_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["policy", "test", "--run", "("])
    captured = capsys.readouterr()
    err = " ".join(captured.err.split())
    assert code == 2
    assert "--run '(': not a valid regular expression" in err
    assert "internal error" not in err and "Traceback" not in err and "PASS" not in captured.out


@pytest.mark.parametrize(
    ("appended", "run", "status"),
    [
        ("test_seedance_fails if { false }\n", r"test_seedance_fails$", "FAIL"),
        ("test_seedance_errors(x) if { x }\n", r"test_seedance_errors$", "ERROR"),
        ("", r"test_no_such_test_anywhere$", None),  # nothing matched: not a pass
    ],
)
def test_policy_test_exits_1_unless_every_test_passes(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                      appended: str, run: str, status: str | None) -> None:
    root = _copy_policies(tmp_path)
    path = root / "mlps" / "local_backup_test.rego"
    path.write_text(path.read_text(encoding="utf-8") + appended, encoding="utf-8")
    code = main(["policy", "test", str(root), "--run", run])
    out, err = capsys.readouterr()
    if status is None:  # nothing ran: like a bad --run, exit 2 (1 is for failing tests)
        assert code == 2
        assert f"no tests found matching --run {run!r}" in err
    else:
        assert code == 1
        assert f"{status}: 1/1" in out


def test_policy_test_exits_0_when_every_test_passes(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["policy", "test", "--run", r"^data\.mlps\.local_backup_test\."]) == 0
    assert "PASS: " in capsys.readouterr().out
