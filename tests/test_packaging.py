"""Seedance works from a wheel, not only from a checkout.

The wheel (and the sdist) must carry the gate's Rego policies and the report templates; an installed
copy must find them inside the package, and the gate must run from a Pulumi project outside the
repository.  Also the lookup order of :mod:`seedance.resources` and the policy pack's project dir.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from seedance import resources
from seedance.gate import load_bundle
from seedance.gate.bundle import default_policy_dir
from seedance.gate.errors import PolicyLoadError
from seedance.gate.pack import default_project_dir
from seedance.templating import environment

REPO = Path(__file__).resolve().parents[1]
BUNDLED = "seedance/_bundled"

# Runs CLI commands one after another in one process of the installed copy (importing the Pulumi SDKs
# costs most of a run, so the installed-copy tests share one process): argv[1] is a JSON list of
# {"cwd", "args"}; each run's exit code, output and where things came from go to argv[2].
RUN_INSTALLED = """
import contextlib, io, json, os, sys
results = []
for run in json.load(open(sys.argv[1])):
    os.chdir(run["cwd"])
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        from seedance.cli import main
        code = main(run["args"])
    import seedance, components
    from seedance import resources
    results.append({"code": code, "stdout": out.getvalue(), "stderr": err.getvalue(),
                    "seedance": seedance.__file__, "components": components.__file__,
                    "policies": str(resources.policies_dir()), "templates": str(resources.templates_dir())})
    with open(sys.argv[2], "w") as fh:
        json.dump(results, fh)
"""


def _checkout_files(name: str, pattern: str) -> set[str]:
    root = REPO / name
    return {
        p.relative_to(REPO).as_posix()
        for p in root.glob(pattern)
        if p.is_file() and "__pycache__" not in p.parts and p.suffix not in (".pyc", ".pyo")
    }


def _bundled(names: list[str], prefix: str, suffix: str = "") -> set[str]:
    return {n.removeprefix(prefix) for n in names if n.startswith(prefix) and n.endswith(suffix) and not n.endswith("/")}


def _clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SEEDANCE_") and k != "PYTHONPATH"}
    env.update(extra)
    return env


# -- the built artefacts -----------------------------------------------------------------------------


#: What a build must not see or write into: the build runs on a copy, so nothing lands in the checkout.
_NOT_SOURCE = shutil.ignore_patterns(".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".hypothesis",
                                     ".pytest_cache", "out")


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the checkout to build from (setuptools writes build/ and *.egg-info beside the sources)."""
    copy = tmp_path_factory.mktemp("source") / "seedance"
    shutil.copytree(REPO, copy, ignore=_NOT_SOURCE)
    return copy


@pytest.fixture(scope="module")
def wheel(source: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-cache-dir", "-q", "-w", str(out), str(source)],
        capture_output=True, text=True, timeout=300, env=_clean_env(),
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (whl,) = out.glob("seedance-*.whl")
    return whl


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(site dir with the installed wheel, a copy of the example Pulumi project outside the repo)."""
    base = tmp_path_factory.mktemp("installed")
    site = base / "site"
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "--no-compile", "-q", "--target", str(site), str(wheel)],
        capture_output=True, text=True, timeout=300, env=_clean_env(),
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    project = base / "infra" / "stacks"
    shutil.copytree(REPO / "stacks", project, ignore=shutil.ignore_patterns("__pycache__"))
    assert (project / "policies").is_dir() and (project / "demand").is_dir()
    return site, project


@pytest.fixture(scope="module")
def runs(installed: tuple[Path, Path]) -> dict[str, dict]:
    """The installed copy's CLI runs, by name, from one process started outside the repository."""
    site, project = installed
    new = project.parent / "new-platform"
    batch = {
        "check eu-prod": (project, ["check", "eu-prod", "--project-dir", "."]),
        "check dev markdown": (project, ["check", "dev", "--project-dir", ".", "-f", "markdown"]),
        "init": (project, ["init", str(new), "--region", "us-east-1", "--cost-center", "CC-7"]),
        "check new project": (new, ["check", "dev", "--project-dir", "."]),
    }
    spec, report = project.parent / "runs.json", project.parent / "results.json"
    spec.write_text(json.dumps([{"cwd": str(cwd), "args": args} for cwd, args in batch.values()]))
    proc = subprocess.run(
        [sys.executable, "-c", RUN_INSTALLED, str(spec), str(report)],
        cwd=project, capture_output=True, text=True, timeout=600, env=_clean_env(PYTHONPATH=str(site)),
    )
    assert proc.returncode == 0 and report.is_file(), proc.stdout + proc.stderr
    results = json.loads(report.read_text())
    assert len(results) == len(batch), proc.stdout + proc.stderr
    return dict(zip(batch, results))


def test_wheel_carries_every_policy_and_template(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    rego = _checkout_files("policies", "**/*.rego")
    templates = _checkout_files("templates", "**/*.j2")
    assert len(rego) > 50 and any(n.endswith("_test.rego") for n in rego) and any(n.startswith("policies/lib/") for n in rego)
    assert len(templates) >= 3
    assert {f"policies/{n}" for n in _bundled(names, f"{BUNDLED}/policies/", ".rego")} == rego
    assert {f"templates/{n}" for n in _bundled(names, f"{BUNDLED}/templates/", ".j2")} == templates
    # the rest of policies/ too: the Pulumi policy pack
    assert {f"policies/{n}" for n in _bundled(names, f"{BUNDLED}/policies/")} == _checkout_files("policies", "**/*")
    assert f"{BUNDLED}/policies/pack/PulumiPolicy.yaml" in names


def test_sdist_carries_policies_and_templates(source: Path, tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-c", "import sys; from setuptools import build_meta as b; print(b.build_sdist(sys.argv[1]))", str(tmp_path)],
        cwd=source, capture_output=True, text=True, timeout=300, env=_clean_env(),
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (sdist,) = tmp_path.glob("seedance-*.tar.gz")
    with tarfile.open(sdist) as tar:
        top = tar.getnames()[0].split("/")[0]
        names = [n.removeprefix(f"{top}/") for n in tar.getnames()]
    assert {"setup.py", "MANIFEST.in", "pyproject.toml"} <= set(names)
    assert _checkout_files("policies", "**/*") <= set(names)
    assert _checkout_files("templates", "**/*.j2") <= set(names)


def test_installed_wheel_gates_a_project_outside_the_repo(installed: tuple[Path, Path], runs: dict[str, dict]) -> None:
    site, _ = installed
    run = runs["check eu-prod"]
    assert run["code"] == 0, run["stdout"] + run["stderr"]
    for key in ("seedance", "components", "policies", "templates"):
        path = Path(run[key])
        assert path.is_relative_to(site), f"{key} from {path}, not the installed copy"
        assert not path.is_relative_to(REPO), f"{key} from the checkout: {path}"
    assert Path(run["policies"]) == site / BUNDLED / "policies"
    assert Path(run["templates"]) == site / BUNDLED / "templates"
    # the gate really ran: every control that applies to eu-prod (the budget's and GDPR's) evaluated,
    # findings named by control id
    controls = [c for c in load_bundle().controls if c.framework in ("budget", "gdpr")]
    assert f"{len(controls)} controls" in run["stdout"], run["stdout"]
    assert "passed eu-prod" in run["stdout"]
    assert "GDPR-" in run["stdout"]


def test_installed_wheel_renders_markdown(runs: dict[str, dict]) -> None:
    run = runs["check dev markdown"]
    assert run["code"] == 0, run["stdout"] + run["stderr"]
    assert run["stdout"].startswith("# Seedance gate: dev — passed"), run["stdout"]
    assert "| mandatory | 0 |" in run["stdout"]


def test_installed_wheel_starts_a_project_that_passes_the_gate(installed: tuple[Path, Path], runs: dict[str, dict]) -> None:
    site, _ = installed
    init, check = runs["init"], runs["check new project"]
    assert init["code"] == 0, init["stdout"] + init["stderr"]
    assert Path(init["templates"]) == site / BUNDLED / "templates"  # the init templates came from the wheel
    assert check["code"] == 0, check["stdout"] + check["stderr"]
    assert "passed dev" in check["stdout"] and Path(check["components"]).is_relative_to(site)


def test_installed_wheel_fails_closed_on_a_wrong_override(installed: tuple[Path, Path]) -> None:
    site, project = installed
    missing = project.parent / "no-such-policies"
    proc = subprocess.run(
        [sys.executable, "-c", "import sys; from seedance.cli import main; sys.exit(main(sys.argv[1:]))",
         "check", "dev", "--project-dir", "."],
        cwd=project, capture_output=True, text=True, timeout=300,
        env=_clean_env(PYTHONPATH=str(site), SEEDANCE_POLICIES=str(missing)),
    )
    assert proc.returncode == 2, proc.stdout + proc.stderr
    err = proc.stderr.replace("\n", "")
    assert "Rego policies not found" in err and f"$SEEDANCE_POLICIES={missing} (not a directory)" in err, err
    assert "passed" not in proc.stdout and "Traceback" not in err


# -- the lookup order -----------------------------------------------------------------------------------


@pytest.fixture
def layout(tmp_path: Path) -> dict[str, Path]:
    dirs = {
        "env": tmp_path / "override" / "policies",
        "bundled": tmp_path / "site" / "seedance" / "_bundled",
        "checkout": tmp_path / "repo",
    }
    return dirs


def _locate(layout: dict[str, Path], environ: dict[str, str]) -> resources.Located:
    return resources.locate("policies", resources.POLICIES_ENV, what="Rego policies", environ=environ,
                            bundled_dir=layout["bundled"], checkout_dir=layout["checkout"])


def test_resolver_order_env_then_bundled_then_checkout(layout: dict[str, Path]) -> None:
    env = {resources.POLICIES_ENV: str(layout["env"])}
    with pytest.raises(resources.ResourceNotFoundError) as exc:
        _locate(layout, {})
    message = str(exc.value)
    assert "$SEEDANCE_POLICIES (unset)" in message
    assert str(layout["bundled"] / "policies") in message and str(layout["checkout"] / "policies") in message

    (layout["checkout"] / "policies").mkdir(parents=True)
    assert _locate(layout, {}) == resources.Located(layout["checkout"] / "policies", "checkout")

    (layout["bundled"] / "policies").mkdir(parents=True)
    assert _locate(layout, {}) == resources.Located(layout["bundled"] / "policies", "bundled")

    layout["env"].mkdir(parents=True)
    assert _locate(layout, env) == resources.Located(layout["env"].resolve(), "env")
    assert _locate(layout, {resources.POLICIES_ENV: "  "}).source == "bundled"  # blank: unset


def test_resolver_override_that_does_not_exist_is_an_error(layout: dict[str, Path]) -> None:
    (layout["bundled"] / "policies").mkdir(parents=True)
    with pytest.raises(resources.ResourceNotFoundError, match=r"\$SEEDANCE_POLICIES=.*not a directory"):
        _locate(layout, {resources.POLICIES_ENV: str(layout["env"])})


def test_env_overrides_reach_the_gate_and_the_reports(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    policies = tmp_path / "policies"
    shutil.copytree(REPO / "policies", policies, ignore=shutil.ignore_patterns("pack", "__pycache__"))
    templates = tmp_path / "templates"
    templates.mkdir()
    (templates / "gate_report.md.j2").write_text("custom {{ decision }}\n")
    monkeypatch.setenv(resources.POLICIES_ENV, str(policies))
    monkeypatch.setenv(resources.TEMPLATES_ENV, str(templates))
    assert default_policy_dir() == policies.resolve()
    assert load_bundle().root == policies.resolve()
    assert environment().get_template("gate_report.md.j2").render(decision="x") == "custom x\n"
    import seedance.templating

    assert seedance.templating.TEMPLATES == templates.resolve()


def test_checkout_is_the_default_in_a_checkout(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(resources.POLICIES_ENV, raising=False)
    monkeypatch.delenv(resources.TEMPLATES_ENV, raising=False)
    if resources.BUNDLED_DIR.is_dir():
        pytest.skip("running from an installed copy")
    assert resources.policies_dir() == REPO / "policies"
    assert resources.templates_dir() == REPO / "templates"


def test_no_policies_anywhere_is_a_policy_load_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv(resources.POLICIES_ENV, raising=False)
    monkeypatch.setattr(resources, "BUNDLED_DIR", tmp_path / "bundled")
    monkeypatch.setattr(resources, "CHECKOUT_DIR", tmp_path / "checkout")
    with pytest.raises(PolicyLoadError) as exc:
        load_bundle()
    (problem,) = exc.value.problems
    assert "Rego policies not found" in problem
    assert str(tmp_path / "bundled" / "policies") in problem and str(tmp_path / "checkout" / "policies") in problem


# -- the policy pack's project ------------------------------------------------------------------------


def test_pack_project_dir_env_then_cwd_then_checkout(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("SEEDANCE_PROJECT_DIR", raising=False)
    assert default_project_dir(tmp_path) == resources.CHECKOUT_DIR / "stacks"
    (tmp_path / "Pulumi.yaml").write_text("name: infra\nruntime: python\n")
    assert default_project_dir(tmp_path) == tmp_path
    monkeypatch.chdir(tmp_path)
    assert default_project_dir() == tmp_path
    monkeypatch.setenv("SEEDANCE_PROJECT_DIR", str(tmp_path / "elsewhere"))
    assert default_project_dir(tmp_path) == tmp_path / "elsewhere"
