"""Command lines of `plan`, `estimate` and `diff` that name something that is not there or would
destroy an input: each is a usage error (exit 2) naming the option and what was expected, and nothing
is written."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from seedance.cli import main

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    """A copy of the example project (the stacks and their policies and demand histories)."""
    dest = tmp_path / "stacks"
    shutil.copytree(REPO / "stacks", dest, ignore=shutil.ignore_patterns("__pycache__"))
    return dest


def _snapshot(project: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in project.rglob("*") if p.is_file()}


@pytest.mark.parametrize("name", ["Pulumi.dev.yaml", "Pulumi.yaml"])
def test_out_never_replaces_the_stacks_pulumi_files(project: Path, name: str,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    before = _snapshot(project)
    out = project / name
    assert main(["plan", str(project / "policies" / "dev.yaml"), "--as-of", "2024-05-30", "--stack", "dev",
                 "--project-dir", str(project), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"Invalid value for --out: {out} is one of this command's inputs" in err and "must not replace" in err
    assert _snapshot(project) == before


def test_out_never_replaces_a_demand_history_a_base_names(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # dev.yaml removes base.yaml's llm-train, whose history eu-prod (extending base.yaml) plans from
    dev = project / "policies" / "dev.yaml"
    assert "llm-train" in (project / "policies" / "base.yaml").read_text() and "$remove" in dev.read_text()
    before = _snapshot(project)
    out = project / "demand" / "training.csv"
    assert main(["plan", str(dev), "--as-of", "2024-05-30", "--out", str(out)]) == 2
    assert f"{out} is one of this command's inputs" in capsys.readouterr().err
    assert _snapshot(project) == before
    # a file no policy names is written
    free = project / "demand" / "plan.json"
    assert main(["plan", str(dev), "--as-of", "2024-05-30", "--out", str(free)]) == 0 and free.is_file()


@pytest.mark.parametrize("command", [
    ["estimate", "stacks/policies/eu-prod.yaml"],
    ["diff", "stacks/policies/eu-prod.yaml", "stacks/policies/eu-prod.yaml"],
    ["plan", "stacks/policies/eu-prod.yaml"],
])
def test_a_missing_cache_dir_is_a_usage_error(command: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    missing = tmp_path / "nonexist"
    assert main([*command, "--cache-dir", str(missing)]) == 2
    err = capsys.readouterr().err
    assert f"Invalid value for --cache-dir: price cache directory {missing} does not exist" in err
    monkeypatch.setenv("SEEDANCE_PRICE_CACHE", str(missing))
    assert main(command) == 2
    assert f"{missing} (from $SEEDANCE_PRICE_CACHE) does not exist" in capsys.readouterr().err


@pytest.mark.parametrize(("command", "option", "what"), [
    (["plan", "stacks/policies/dev.yaml", "--out", ""], "'-o' / '--out'", "a file path"),
    (["plan", "stacks/policies/dev.yaml", "--cache-dir", ""], "'--cache-dir'", "a directory path"),
    (["plan", "stacks/policies/dev.yaml", "--project-dir", ""], "'--project-dir'", "a directory path"),
    (["estimate", "stacks/policies/dev.yaml", "--plan", ""], "'--plan'", "a file path"),
    (["estimate", "stacks/policies/dev.yaml", "--cache-dir", ""], "'--cache-dir'", "a directory path"),
    (["diff", "stacks/policies/dev.yaml", "stacks/policies/dev.yaml", "--cache-dir", ""], "'--cache-dir'",
     "a directory path"),
])
def test_an_empty_path_is_a_usage_error(command: list[str], option: str, what: str,
                                        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    # click reads '' as '.': `--out ''` tried to replace the current directory ("Device or resource
    # busy", exit 1) and `--cache-dir ''` read it as a price cache
    monkeypatch.chdir(REPO)
    assert main(command) == 2
    assert f"Invalid value for {option}: expected {what}, got ''" in capsys.readouterr().err


@pytest.mark.parametrize("command", [
    ["plan", "{p}/policies/dev.yaml", "--as-of", "2024-05-30"],
    ["estimate", "{p}/policies/dev.yaml", "--as-of", "2024-05-30"],
    ["diff", "{p}/policies/dev.yaml", "{p}/policies/dev.yaml", "--as-of", "2024-05-30"],
])
def test_a_stack_without_its_pulumi_file_is_a_usage_error(command: list[str], project: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    args = [a.format(p=project) for a in command]
    assert main([*args, "--stack", "nope", "--project-dir", str(project)]) == 2
    out, err = capsys.readouterr()
    assert out == ""  # nothing planned or priced for a stack that is not there
    assert (f"--stack nope: unknown stack 'nope': {project / 'Pulumi.nope.yaml'} does not exist "
            "(stacks: cn-prod, dev, eu-prod)") in err
    # the same for a project directory that is no Pulumi project
    assert main([*args, "--stack", "dev", "--project-dir", str(project / "demand")]) == 2
    assert f"{project / 'demand' / 'Pulumi.yaml'}: no Pulumi project here" in capsys.readouterr().err
    # a stack that is there is read
    assert main([*args, "--stack", "dev", "--project-dir", str(project)]) == 0
