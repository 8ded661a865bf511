"""Loading a policy directory fails closed when a whole framework is missing, when the directory is empty
and when a Rego file is not UTF-8 text: a located PolicyLoadError (undecided, exit 2), never a pass, an
engine error on an empty query or an internal error."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from seedance.cli import main
from seedance.gate import PolicyLoadError, load_bundle

REPO = Path(__file__).resolve().parents[2]


def _copy_policies(tmp_path: Path) -> Path:
    dest = tmp_path / "policies"
    shutil.copytree(REPO / "policies", dest, ignore=shutil.ignore_patterns("pack", "__pycache__"))
    return dest


def _load_problems(root: Path) -> list[str]:
    with pytest.raises(PolicyLoadError) as info:
        load_bundle(root)
    return info.value.problems


def _check(capsys: pytest.CaptureFixture[str], root: Path, tmp_path: Path) -> tuple[int, str, str]:
    """``seedance check`` with these policies; the bundle loads before the document is read."""
    code = main(["check", str(tmp_path / "doc.json"), "--policies", str(root)])
    captured = capsys.readouterr()
    return code, captured.out, " ".join(captured.err.split())


@pytest.mark.parametrize("framework", ["gdpr", "mlps", "budget"])
def test_a_missing_framework_folder_does_not_load(tmp_path: Path, framework: str) -> None:
    root = _copy_policies(tmp_path)
    shutil.rmtree(root / framework)
    (problem,) = _load_problems(root)
    assert problem.startswith(f"{root.resolve() / framework}: folder missing; expected the ")
    assert "control rules here" in problem and "gdpr/, mlps/, budget/, lib/" in problem


def test_a_missing_framework_is_undecided_not_passed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _copy_policies(tmp_path)
    shutil.rmtree(root / "gdpr")
    code, out, err = _check(capsys, root, tmp_path)
    assert code == 2
    assert "passed" not in out and "✓" not in out
    assert "undecided" in err and "gdpr: folder missing" in err and "GDPR control rules" in err


def test_a_framework_folder_without_control_rules_does_not_load(tmp_path: Path) -> None:
    root = _copy_policies(tmp_path)
    for path in (root / "budget").glob("*.rego"):
        if not path.name.endswith("_test.rego"):
            path.unlink()  # only the tests are left
    (problem,) = _load_problems(root)
    assert problem.startswith(f"{root.resolve() / 'budget'}: no control rule found; expected the budget control rules here")


def test_leaving_out_one_control_file_stays_allowed(tmp_path: Path) -> None:
    root = _copy_policies(tmp_path)
    full = load_bundle(root)
    (root / "gdpr" / "backup.rego").unlink()
    (root / "gdpr" / "backup_test.rego").unlink()
    fewer = load_bundle(root)
    assert len(fewer.controls) == len(full.controls) - 1
    assert {c.framework for c in fewer.controls} == {"gdpr", "mlps-l3", "budget"}


def test_an_empty_policy_directory_is_a_clear_load_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "empty"
    root.mkdir()
    assert _load_problems(root) == [f"{root.resolve()}: no control rules found (expected gdpr/, mlps/, budget/, lib/)"]
    code, out, err = _check(capsys, root, tmp_path)
    assert code == 2 and "passed" not in out
    assert "no control rules found" in err
    assert "EngineError" not in err and "query.rego" not in err and "internal error" not in err


def test_only_helpers_is_a_clear_load_error(tmp_path: Path) -> None:
    root = _copy_policies(tmp_path)
    for framework in ("gdpr", "mlps", "budget"):
        shutil.rmtree(root / framework)
    assert _load_problems(root) == [f"{root.resolve()}: no control rules found (expected gdpr/, mlps/, budget/, lib/)"]


def test_a_rego_file_that_is_not_utf8_is_located(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _copy_policies(tmp_path)
    path = root / "gdpr" / "backup.rego"
    lines = path.read_bytes().split(b"\n")
    lines[4] = b"# caf\xe9 " + lines[4]  # Latin-1 é: column 6 of line 5
    path.write_bytes(b"\n".join(lines))
    (problem,) = _load_problems(root)
    assert problem == "gdpr/backup.rego:5:6: not UTF-8 text (byte 0xe9); Rego files must be UTF-8"
    code, out, err = _check(capsys, root, tmp_path)
    assert code == 2 and "passed" not in out
    assert "gdpr/backup.rego:5:6: not UTF-8 text" in err
    assert "internal error" not in err and "UnicodeDecodeError" not in err


def test_a_test_file_that_is_not_utf8_stops_policy_test(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _copy_policies(tmp_path)
    path = root / "mlps" / "local_backup_test.rego"
    path.write_bytes(path.read_bytes() + b"\n# \xff\n")
    code = main(["policy", "test", str(root)])
    err = " ".join(capsys.readouterr().err.split())
    assert code == 2
    assert "mlps/local_backup_test.rego:" in err and "not UTF-8 text (byte 0xff)" in err
    assert "internal error" not in err


def test_an_unreadable_rego_path_is_a_load_problem(tmp_path: Path) -> None:
    root = _copy_policies(tmp_path)
    (root / "gdpr" / "folder.rego").mkdir()  # a directory named like a Rego file
    problems = _load_problems(root)
    assert len(problems) == 1 and problems[0].startswith("gdpr/folder.rego: cannot read: ")


def test_a_byte_order_mark_is_accepted(tmp_path: Path) -> None:
    root = tmp_path / "policies"
    shutil.copytree(Path(__file__).resolve().parents[2] / "policies", root, ignore=shutil.ignore_patterns("pack"))
    path = root / "budget" / "monthly_budget.rego"
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    bundle = load_bundle(root)
    assert any(c.control_id == "BUDGET-COST-1" for c in bundle.controls)


def test_a_control_id_defined_twice_does_not_load(tmp_path: Path) -> None:
    """Both engines key results by control id: a second rule reusing one would silently replace the
    first rule's findings, so the bundle refuses to load (the gate is undecided, exit 2)."""
    root = tmp_path / "policies"
    shutil.copytree(Path(__file__).resolve().parents[2] / "policies", root, ignore=shutil.ignore_patterns("pack", "__pycache__"))
    original = root / "mlps" / "local_backup.rego"
    copy = root / "mlps" / "local_backup_again.rego"
    copy.write_text(original.read_text(encoding="utf-8").replace("package mlps.local_backup", "package mlps.local_backup_again"),
                    encoding="utf-8")
    with pytest.raises(PolicyLoadError) as info:
        load_bundle(root)
    clash = [p for p in info.value.problems if "is also defined in" in p]
    assert len(clash) == 1 and clash[0].endswith("is also defined in mlps/local_backup.rego")
    assert clash[0].startswith("mlps/local_backup_again.rego:")


def test_a_severity_override_to_an_unknown_level_does_not_load() -> None:
    bundle = load_bundle()
    cid = bundle.controls[0].control_id
    with pytest.raises(PolicyLoadError) as info:
        load_bundle(severity_overrides={cid: "bogus"})
    assert info.value.problems == [f"severity override {cid}: expected one of mandatory, advisory, got 'bogus'"]
