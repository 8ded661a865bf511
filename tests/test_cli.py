"""The CLI, in-process (click's runner) and as a subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from seedance import __version__
from seedance.cli import app, main

POLICIES = Path(__file__).resolve().parents[1] / "stacks" / "policies"


def _invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args), standalone_mode=False, catch_exceptions=False)
    return result.return_value, result.output


def test_validate_every_example_stack(example_stack: str) -> None:
    code, out = _invoke("validate", str(POLICIES / f"{example_stack}.yaml"))
    assert code == 0
    assert out.startswith(f"✓ {POLICIES / example_stack}.yaml: valid (gpu-platform-")


def test_validate_json_format() -> None:
    code, out = _invoke("validate", "--format", "json", str(POLICIES / "dev.yaml"), str(POLICIES / "missing.yaml"))
    assert code == 1
    doc = json.loads(out)
    assert [d["valid"] for d in doc] == [True, False]
    assert doc[0]["summary"]["region"] == "us-east-1"
    assert doc[1]["errors"] == [f"{POLICIES / 'missing.yaml'}:1:1: (document): cannot read file: No such file or directory"]


def test_summary_lists_fleets() -> None:
    code, out = _invoke("summary", str(POLICIES / "cn-prod.yaml"))
    assert code == 0
    assert "cn-north-1" in out and "8x V100" in out and "900,000 CNY/month" in out


def test_schema_is_json() -> None:
    code, out = _invoke("schema")
    assert code == 0
    assert json.loads(out)["title"] == "Seedance CostPolicy (seedance.io/v1)"


def test_main_maps_usage_errors_to_exit_2(capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["validate"]) == 2
    assert main(["no-such-command"]) == 2
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip().endswith(f"seedance {__version__}")


def test_subprocess_round_trip(tmp_path: Path) -> None:
    ok = subprocess.run(
        [sys.executable, "-m", "seedance", "validate", *(str(POLICIES / f"{s}.yaml") for s in ("eu-prod", "cn-prod", "dev"))],
        capture_output=True,
        text=True,
    )
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert ok.stdout.count("✓") == 3
    bad = tmp_path / "bad.yaml"
    bad.write_text("apiVersion: seedance.io/v1\nkind: CostPolicy\nmetadata: {name: x}\n")
    proc = subprocess.run([sys.executable, "-m", "seedance", "validate", str(bad)], capture_output=True, text=True)
    assert proc.returncode == 1
    assert f"{bad}:3:11: metadata.environment: missing required field 'environment'" in proc.stdout
    assert "Traceback" not in proc.stdout + proc.stderr


@pytest.mark.parametrize("command", [["estimate"], ["plan"], ["diff", "BASE"]])
def test_price_cache_comes_from_the_environment(command: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import seedance.pricing.catalog as catalog

    seen: list[object] = []
    real = catalog.load_catalog

    def spy(*args: object, **kwargs: object):  # type: ignore[no-untyped-def]
        seen.append(kwargs.get("cache_dir"))
        return real()

    monkeypatch.setattr(catalog, "load_catalog", spy)
    monkeypatch.setenv("SEEDANCE_PRICE_CACHE", str(tmp_path))
    dev = str(POLICIES / "dev.yaml")
    args = [dev if a == "BASE" else a for a in command] + [dev]
    assert main(args) == 0
    assert seen and all(Path(str(s)) == tmp_path for s in seen)


class _ClosedPipe:
    """stdout whose reader has gone away (`seedance ... | head`): every write fails with EPIPE."""

    def __init__(self, path) -> None:  # noqa: ANN001
        self._file = open(path, "w")  # noqa: SIM115 - a real descriptor for the final dup2

    def write(self, _text: str) -> int:
        raise BrokenPipeError(32, "Broken pipe")

    def flush(self) -> None:
        pass

    def fileno(self) -> int:
        return self._file.fileno()

    def isatty(self) -> bool:
        return False


@pytest.mark.parametrize("args", [["schema"], ["summary", str(POLICIES / "dev.yaml")]])
def test_a_closed_output_pipe_exits_141_not_a_decision(tmp_path, monkeypatch, args) -> None:  # noqa: ANN001
    """Exit 1 means "invalid" or "blocked": a reader that stops early (`| head`) must not look like
    either. rich's console exited 1 on a broken pipe and click.echo raised; both now exit 141."""
    import sys

    from seedance.cli import EXIT_OUTPUT_CLOSED, main

    monkeypatch.setattr(sys, "stdout", _ClosedPipe(tmp_path / "out"))
    assert main(args) == EXIT_OUTPUT_CLOSED == 141


def test_validate_reads_demand_histories_as_the_planner_does(tmp_path: Path) -> None:
    # plan refused the file with its line; validate used to say valid and synth "internal error"
    (tmp_path / "bad.csv").write_text("hour,demand\n2024-05-01T00:00:00Z,1\n2024-05-01T02:00:00Z,2\n")
    policy = tmp_path / "p.yaml"
    policy.write_text(f"apiVersion: seedance.io/v1\nkind: CostPolicy\nextends: {POLICIES / 'dev.yaml'}\n"
                      "fleets:\n  - name: inference\n    demandHistory: bad.csv\n")
    code, out = _invoke("validate", str(policy))
    assert code == 1
    assert f"{policy}:6:20: fleets[1].demandHistory (fleet 'inference'): {tmp_path / 'bad.csv'}:3: hour: expected " \
           "2024-05-01T01:00:00Z (consecutive hours), got 2024-05-01T02:00:00Z" in out.replace("\n", "")
    (tmp_path / "bad.csv").write_text("hour,demand\n2024-05-01T00:00:00Z,1\n2024-05-01T01:00:00Z,2\n")
    assert _invoke("validate", str(policy))[0] == 0


def test_synth_reports_a_bad_demand_history_as_an_error_not_an_internal_one(tmp_path: Path) -> None:
    import shutil

    project = tmp_path / "project"
    shutil.copytree(POLICIES.parent, project, ignore=shutil.ignore_patterns("__pycache__"))
    (project / "demand" / "inference.csv").write_text("hour,demand\n2024-05-01T00:00:00Z,-1\n")
    result = CliRunner().invoke(app, ["synth", "eu-prod", "--project-dir", str(project)],
                                   standalone_mode=False, catch_exceptions=False)
    assert result.return_value == 1 and "internal error" not in result.stderr
    assert "inference.csv:2: demand: expected a number of nodes from 0" in result.stderr


def test_diff_says_a_warning_both_sides_share_once(caplog: pytest.LogCaptureFixture) -> None:
    # base and head plan from the same stale histories: the warning is one, not one per side
    import logging

    policy = str(POLICIES / "eu-prod.yaml")
    with caplog.at_level(logging.WARNING):
        assert _invoke("diff", policy, policy, "--as-of", "2026-12-01")[0] == 0
    stale = [r for r in caplog.records if "demand history ends more than 7 days before" in r.getMessage()]
    assert len(stale) == 1
    assert not logging.getLogger().handlers or all(not h.filters for h in logging.getLogger().handlers)


def test_validate_refuses_a_price_cache_that_is_not_there(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # red team: validate passed every policy (instance types unchecked) when --cache-dir named nothing,
    # where plan refuses the option; a catalog that cannot be read fails validation too
    result = CliRunner().invoke(app, ["validate", str(POLICIES / "dev.yaml"), "--cache-dir", str(tmp_path / "missing")])
    assert result.exit_code == 2 and "price cache directory" in result.output and "does not exist" in result.output
    monkeypatch.setenv("SEEDANCE_PRICE_CACHE", str(tmp_path / "missing"))
    assert CliRunner().invoke(app, ["validate", str(POLICIES / "dev.yaml")]).exit_code == 2
    monkeypatch.delenv("SEEDANCE_PRICE_CACHE")
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache" / "prices-us-east-1.json").write_text("{not json")
    result = CliRunner().invoke(app, ["validate", str(POLICIES / "dev.yaml"), "--cache-dir", str(tmp_path / "cache")])
    assert result.exit_code == 1 and "prices-us-east-1.json:1:2: not valid JSON" in result.output
    assert "the instance types the policies name cannot be checked" in result.output and ": valid (" not in result.output


def test_out_never_replaces_seedance_s_code_the_program_or_the_price_cache(tmp_path: Path,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    # red team: `synth dev --out components/stack.py` and `--out seedance/data/price_catalog.json`
    # replaced what every later run reads
    import shutil

    import components
    import seedance

    project = tmp_path / "stacks"
    shutil.copytree(POLICIES.parent, project, ignore=shutil.ignore_patterns("__pycache__"))
    (project / "helpers.py").write_text("# a module of the program\n")
    catalog = Path(seedance.__file__).parent / "data" / "price_catalog.json"
    before = catalog.read_bytes()
    for out in (Path(components.__file__).parent / "stack.py", catalog, project / "helpers.py"):
        result = CliRunner().invoke(app, ["synth", "dev", "--project-dir", str(project), "--out", str(out)])
        assert result.exit_code == 2 and "must not replace" in result.output, (out, result.output)
    assert catalog.read_bytes() == before and (project / "helpers.py").read_text() == "# a module of the program\n"
    # plan: the bundled catalog, and a price file of the cache it reads (--cache-dir or the environment)
    cache = tmp_path / "cache"
    cache.mkdir()
    policy = str(project / "policies" / "dev.yaml")
    for args in (["--out", str(catalog)], ["--cache-dir", str(cache), "--out", str(cache / "prices-us-east-1.json")]):
        result = CliRunner().invoke(app, ["plan", policy, *args])
        assert result.exit_code == 2 and "must not replace" in result.output, (args, result.output)
    monkeypatch.setenv("SEEDANCE_PRICE_CACHE", str(cache))
    assert CliRunner().invoke(app, ["plan", policy, "--out", str(cache / "prices-eu.json")]).exit_code == 2
    assert CliRunner().invoke(app, ["plan", policy, "--out", str(cache / "plan.json")]).exit_code == 0  # not a price file
    assert not (cache / "prices-eu.json").exists() and (cache / "plan.json").is_file()


@pytest.mark.parametrize("unbuffered", ["1", None])
def test_a_reader_that_stops_early_is_a_closed_pipe_even_with_unbuffered_output(unbuffered: str | None) -> None:
    # red team: with PYTHONUNBUFFERED=1 (common in CI and containers) the text layer dropped what a
    # short write to the pipe left, so output larger than the pipe's buffer was cut with exit 0
    import os

    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"} | ({"PYTHONUNBUFFERED": unbuffered} if unbuffered else {})
    env["PYTHONPATH"] = os.pathsep.join([str(POLICIES.parents[1]), env.get("PYTHONPATH", "")])
    args = [sys.executable, "-m", "seedance", "synth", "dev", "--project-dir", str(POLICIES.parent)]
    big = subprocess.run(args, capture_output=True, env=env, check=True).stdout
    assert len(big) > 70_000  # more than a pipe holds
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    assert proc.stdout is not None
    assert proc.stdout.read(1) == big[:1]
    proc.stdout.close()  # the reader goes away with the rest unread
    assert proc.wait(timeout=60) == 141
