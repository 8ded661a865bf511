"""``--stack`` of estimate, plan and diff: a stack that does not deploy the policy is warned about
(its cluster setting and tag are another policy's); an empty stack name is a usage error."""

from __future__ import annotations

import datetime as dt
import json
import logging
from pathlib import Path

import pytest

from seedance.cli import main
from seedance.planner.planner import plan_policy
from seedance.policy import load_policy
from seedance.pricing import load_catalog

REPO = Path(__file__).resolve().parents[2]
STACKS = REPO / "stacks"
POLICIES = STACKS / "policies"


def _warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING and "--stack" in r.getMessage()]


@pytest.mark.parametrize("command", [
    ["estimate", str(POLICIES / "dev.yaml")],
    ["plan", str(POLICIES / "dev.yaml"), "--as-of", "2024-05-30"],
    ["diff", "--no-plan", str(POLICIES / "dev.yaml"), str(POLICIES / "dev.yaml")],
])
def test_a_stack_that_deploys_another_policy_is_warned_about(command: list[str], caplog: pytest.LogCaptureFixture,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*command, "--stack", "eu-prod", "--project-dir", str(STACKS)]) == 0
    warned = _warnings(caplog)
    assert len(warned) == 1
    assert warned[0].startswith(f"--stack eu-prod deploys {STACKS / 'policies/eu-prod.yaml'} (seedance:policy in "
                                f"{STACKS / 'Pulumi.eu-prod.yaml'}), not {POLICIES / 'dev.yaml'}")


@pytest.mark.parametrize("command", [
    ["estimate", str(POLICIES / "dev.yaml")],
    ["plan", str(POLICIES / "dev.yaml"), "--as-of", "2024-05-30"],
    ["diff", "--no-plan", str(POLICIES / "eu-prod.yaml"), str(POLICIES / "dev.yaml")],  # the stack deploys BASE
])
def test_the_stack_of_the_policy_is_not_warned_about(command: list[str], caplog: pytest.LogCaptureFixture,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    stack = "eu-prod" if command[0] == "diff" else "dev"
    assert main([*command, "--stack", stack, "--project-dir", str(STACKS)]) == 0
    assert _warnings(caplog) == []


def test_a_relative_spelling_of_the_same_file_is_the_same_policy(caplog: pytest.LogCaptureFixture,
                                                                 capsys: pytest.CaptureFixture[str],
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    assert main(["estimate", "stacks/policies/../policies/dev.yaml", "--stack", "dev", "--project-dir", "stacks"]) == 0
    assert _warnings(caplog) == []


@pytest.mark.parametrize("command", [
    ["estimate", str(POLICIES / "dev.yaml")],
    ["plan", str(POLICIES / "dev.yaml")],
    ["diff", str(POLICIES / "dev.yaml"), str(POLICIES / "dev.yaml")],
])
@pytest.mark.parametrize("name", ["", " ", "a/b"])
def test_an_empty_stack_name_is_a_usage_error(command: list[str], name: str,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*command, "--stack", name]) == 2
    err = capsys.readouterr().err
    assert f"Invalid value for '--stack': expected a Pulumi stack name (letters, digits, '-', '_' or '.'), got {name!r}" in err


def test_a_plan_for_a_stack_without_a_cluster_is_priced_so(tmp_path: Path, caplog: pytest.LogCaptureFixture,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    """The plan records the kind of stack it was made for: without --stack it is priced as that stack
    deploys (no EKS, no StorageClass volumes or backups), with a warning; a stack's configuration decides."""
    policy = POLICIES / "eu-prod.yaml"
    plan = plan_policy(load_policy(policy), load_catalog(), as_of=dt.date(2024, 5, 30), cluster=False)
    path = tmp_path / "nc.plan.json"
    path.write_text(json.dumps(plan.to_json()))

    def kinds(*extra: str) -> set[str]:
        capsys.readouterr()
        assert main(["estimate", "-f", "json", str(policy), "--plan", str(path), *extra]) == 0
        return {r["kind"] for r in json.loads(capsys.readouterr().out)["resources"]}

    assert not kinds() & {"eks", "backup"}
    warned = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert warned == [f'{path} was planned for a stack without a cluster ("cluster": false): priced as that stack '
                      "deploys (groups at their desired size; no StorageClass volumes, backups or EKS); --stack NAME "
                      "prices it as that stack's configuration says"]
    caplog.clear()
    assert {"eks", "backup"} <= kinds("--stack", "eu-prod", "--project-dir", str(STACKS))  # it names its cluster
    assert any("planned for a stack without a cluster, but stack eu-prod joins one" in r.getMessage()
               for r in caplog.records)
    caplog.clear()
    capsys.readouterr()  # no stack file: a usage error, not priced as the plan records
    assert main(["estimate", "-f", "json", str(policy), "--plan", str(path), "--stack", "elsewhere",
                 "--project-dir", str(STACKS)]) == 2
    assert f"{STACKS / 'Pulumi.elsewhere.yaml'} does not exist" in capsys.readouterr().err


@pytest.mark.parametrize("command", [
    ["estimate", str(POLICIES / "dev.yaml")],
    ["plan", str(POLICIES / "dev.yaml")],
    ["diff", str(POLICIES / "dev.yaml"), str(POLICIES / "dev.yaml")],
])
def test_a_stack_file_that_cannot_be_read_is_bad_input(command: list[str], tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    # a broken Pulumi.STACK.yaml is bad input (exit 1, its file and line), not a malformed option (exit 2,
    # the usage banner), as for `budget respond`; a stack file that does not exist stays a usage error
    (tmp_path / "Pulumi.yaml").write_text((STACKS / "Pulumi.yaml").read_text())
    (tmp_path / "Pulumi.dev.yaml").write_text("config:\n  seedance:policy: [unclosed\n")
    assert main([*command, "--stack", "dev", "--project-dir", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert f"error --stack dev: {tmp_path / 'Pulumi.dev.yaml'}:3:1: expected ',' or ']'" in err and "Usage:" not in err
    assert main([*command, "--stack", "other", "--project-dir", str(tmp_path)]) == 2
    assert "Usage:" in capsys.readouterr().err
