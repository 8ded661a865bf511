"""Loading policies: METADATA blocks, package paths, located parse errors."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from seedance.gate import PolicyLoadError, load_bundle
from seedance.gate.engine import RegorusEngine, located_message
from seedance.gate.metadata import read_blocks
from seedance.gate.testrunner import run_tests

REPO = Path(__file__).resolve().parents[2]

_RULE = """package gdpr.example

# METADATA
# title: Example
# description: An example control.
# related_resources:
#   - ref: https://example.com
# custom:
#   control_id: GDPR-99-1
#   clause: Art. 99
#   framework: gdpr
#   severity: {severity}
#   remediation: Do the thing.
violation contains x if {{
	some x in input.things
}}
"""


def test_metadata_block_is_read_and_joined_to_its_rule() -> None:
    controls, problems = read_blocks(_RULE.format(severity="advisory"), "gdpr/example.rego")
    assert problems == []
    (c,) = controls
    assert (c.control_id, c.severity, c.clause, c.framework, c.rule, c.package, c.line) == (
        "GDPR-99-1", "advisory", "Art. 99", "gdpr", "violation", "gdpr.example", 14,
    )
    assert c.query == "data.gdpr.example.violation"
    assert c.related_resources == ("https://example.com",)


def test_bad_severity_is_reported_with_location() -> None:
    _, problems = read_blocks(_RULE.format(severity="blocking"), "gdpr/example.rego")
    assert problems == ["gdpr/example.rego:3:1: METADATA custom.severity: expected one of mandatory, advisory, got 'blocking'"]


def test_missing_fields_are_listed() -> None:
    text = _RULE.format(severity="mandatory").replace("#   remediation: Do the thing.\n", "").replace("# title: Example\n", "")
    _, problems = read_blocks(text, "gdpr/example.rego")
    assert problems == ["gdpr/example.rego:3:1: METADATA of rule 'violation' lacks title, custom.remediation"]


def test_every_shipped_control_has_complete_metadata(bundle) -> None:
    ids = [c.control_id for c in bundle.controls]
    assert len(ids) == len(set(ids))
    for c in bundle.controls:
        assert c.file == c.package.replace(".", "/") + ".rego"
        assert c.rule == "violation"


def _copy_policies(tmp_path: Path) -> Path:
    dest = tmp_path / "policies"
    shutil.copytree(REPO / "policies", dest, ignore=shutil.ignore_patterns("pack"))
    return dest


def test_parse_error_reports_file_line_and_column(tmp_path: Path) -> None:
    root = _copy_policies(tmp_path)
    path = root / "gdpr" / "backup.rego"
    path.write_text(path.read_text().replace("some p in checks.unversioned_buckets", "some p in := checks.unversioned_buckets", 1))
    with pytest.raises(PolicyLoadError) as info:
        RegorusEngine().prepare(load_bundle(root))
    (problem,) = info.value.problems
    assert problem == "gdpr/backup.rego:43:15: expecting expression"
    assert "Stack backtrace" not in problem and "<unknown>" not in problem


def test_policy_test_reports_parse_error_location(tmp_path: Path) -> None:
    root = _copy_policies(tmp_path)
    path = root / "mlps" / "local_backup_test.rego"
    path.write_text(path.read_text() + "\ntest_broken if {\n\tx := \n}\n")
    with pytest.raises(PolicyLoadError) as info:
        run_tests(root)
    assert info.value.problems[0].startswith("mlps/local_backup_test.rego:")


def test_package_must_follow_path(tmp_path: Path) -> None:
    root = _copy_policies(tmp_path)
    path = root / "gdpr" / "backup.rego"
    path.write_text(path.read_text().replace("package gdpr.backup", "package gdpr.backups", 1))
    with pytest.raises(PolicyLoadError) as info:
        load_bundle(root)
    assert "gdpr/backup.rego:1:1: package 'gdpr.backups' does not follow the path (expected 'gdpr.backup')" in info.value.problems


def test_located_message_drops_the_rust_backtrace() -> None:
    raw = "\n--> a.rego:4:5\n  |\n4 |   x := \n  |     ^\nerror: expecting `}` while parsing set\n\nStack backtrace:\n   0: <unknown>\n"
    assert located_message(raw) == "a.rego:4:5: expecting `}` while parsing set"


def test_failing_rego_test_is_reported_as_fail(tmp_path: Path) -> None:
    root = _copy_policies(tmp_path)
    path = root / "mlps" / "local_backup_test.rego"
    path.write_text(path.read_text() + "\ntest_wrong if {\n\t1 == 2\n}\n")
    report = run_tests(root, match="local_backup")
    statuses = {r.case.name: r.status for r in report.results}
    assert statuses == {"test_pass_versioned": "PASS", "test_fail_unversioned_internal_data": "PASS", "test_wrong": "FAIL"}
    assert not report.ok
