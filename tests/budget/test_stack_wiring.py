"""Which file a stack deploys, as `seedance budget respond` reports it (red-team findings on the wiring):
each case is a copy of the example project in tmp_path, with the stack config the finding needs."""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from seedance.cli import app, main
from seedance.gate.inputs import stack_setup
from seedance.synth.project import read_stack_config
from test_budget import _monthly_alert

REPO = Path(__file__).resolve().parents[2]
OUT = "proj/policies/dev.budget.yaml"


@pytest.fixture
def proj(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the example project as ``proj`` in the current directory, with a 90% alert (degrade)
    as ``dev90.json`` and a 45% one as ``dev45.json`` of the same month."""
    shutil.copytree(REPO / "stacks", tmp_path / "proj", ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "dev90.json").write_bytes(_monthly_alert("seedance-dev-monthly", "6,000.00", "5,400.00"))
    (tmp_path / "dev45.json").write_bytes(_monthly_alert("seedance-dev-monthly", "6,000.00", "2,700.00"))
    monkeypatch.chdir(tmp_path)
    return tmp_path / "proj"


def _stack(proj: Path, policy: str, extra: str = "", name: str = "Pulumi.dev.yaml") -> None:
    (proj / name).write_text(f"config:\n  aws:region: us-east-1\n  seedance:policy: {policy}\n{extra}", encoding="utf-8")


def _run(*args: str) -> Any:
    return CliRunner().invoke(app, ["budget", "respond", *args], standalone_mode=False, catch_exceptions=False)


def _respond(*extra: str, policy: str = "proj/policies/dev.yaml", event: str = "dev90.json",
             out: str | None = OUT) -> tuple[int, str]:
    args = [policy, event, "--stack", "dev", "--project-dir", "proj", *(["--out", out] if out else []), *extra]
    result = _run(*args)
    return result.return_value, result.stdout


def _json(*extra: str, **kw: Any) -> dict[str, Any]:
    code, out = _respond("-f", "json", *extra, **kw)
    assert code == 0, out
    return json.loads(out)


def _set(value: str, flags: str = "--stack dev --cwd proj") -> str:
    return f"pulumi config set seedance:policy {value} {flags}"


def test_a_stack_deploying_another_file_is_warned_and_points_back_to_that_file(proj: Path) -> None:
    # finding 1: the stack deploys a hand-made overlay of the policy, not the policy given
    (proj / "policies" / "dev.manual.yaml").write_text("apiVersion: seedance.io/v1\nkind: CostPolicy\nextends: dev.yaml\n")
    _stack(proj, "policies/dev.manual.yaml")
    doc = _json()
    stack = doc["stack"]
    assert stack["deploys"] == "other" and stack["seedancePolicy"] == "policies/dev.manual.yaml"
    # a pipeline acting on pointAtOverlay must not silently drop the manual file: only the explicit command
    assert stack["pointAtOverlay"] is None
    assert stack["pointAtOverlayReplacing"] == _set("policies/dev.budget.yaml")
    # lifting the response goes back to what the stack deployed, never to a policy it did not deploy
    assert stack["pointBack"] == _set("policies/dev.manual.yaml")
    assert any("not the policy this response was computed from" in n and "drop what it sets" in n for n in doc["notes"])
    code, text = _respond()
    assert "dropping the settings of policies/dev.manual.yaml" in text
    assert f"point it back to what it deployed: {_set('policies/dev.manual.yaml')}" in text
    assert "seedance:policy policies/dev.yaml" not in text


def test_the_policy_is_relative_to_the_program_directory_main(proj: Path) -> None:
    # finding 2: Pulumi runs the program in `main`'s directory, and the program loads seedance:policy from there
    app_dir = proj / "app"
    app_dir.mkdir()
    for name in ("policies", "demand"):
        (proj / name).rename(app_dir / name)
    main = (proj / "__main__.py").read_text().replace("PROJECT_DIR.parent", "PROJECT_DIR.parent.parent")
    (app_dir / "__main__.py").write_text(main)
    (proj / "__main__.py").unlink()
    (proj / "Pulumi.yaml").write_text((proj / "Pulumi.yaml").read_text() + "main: app/\n")
    _stack(proj, "policies/dev.budget.yaml")
    assert stack_setup(proj, "dev").policy_path == app_dir / "policies" / "dev.budget.yaml"
    doc = _json(policy="proj/app/policies/dev.yaml", out="proj/app/policies/dev.budget.yaml")
    assert doc["stack"]["deploys"] == "overlay" and doc["stack"]["pointAtOverlay"] is None
    assert doc["stack"]["pointBack"] == _set("policies/dev.yaml")
    # the project's stacks are found from the program's folder (one stack per cluster)
    from seedance.synth.project import project_dir_of

    assert project_dir_of(app_dir) == proj


def test_no_point_at_overlay_command_when_no_overlay_was_written(proj: Path) -> None:
    # finding 3: a lower alert of the same month keeps the stronger overlay and writes nothing
    _stack(proj, "policies/dev.yaml")
    assert _json()["stack"]["pointAtOverlay"] == _set("policies/dev.budget.yaml")
    doc = _json(event="dev45.json")
    assert doc["overlay"] is None and doc["changes"] == []
    assert doc["stack"]["pointAtOverlay"] is None and doc["stack"]["deploys"] == "policy"
    # the kept overlay's note does not tell to point back a stack that never pointed at it
    assert any("stack dev does not deploy it, so it is not in force" in n for n in doc["notes"])
    assert not any("back to the policy" in n for n in doc["notes"])
    code, text = _respond(event="dev45.json")
    assert "does not deploy the overlay, so nothing is in force" in text and "pulumi config set" not in text


def test_a_stack_naming_the_overlay_through_a_symlinked_folder_deploys_it(proj: Path) -> None:
    # findings 4 and 5: policies/ is a symlink; comparisons follow it, printed values keep the user's spelling
    shared = proj.parent / "shared-policies"
    (proj / "policies").rename(shared)
    (proj / "policies").symlink_to(Path("..") / "shared-policies")
    _stack(proj, "policies/dev.budget.yaml")
    doc = _json()  # the overlay does not exist before this run
    assert doc["stack"]["deploys"] == "overlay" and doc["stack"]["pointAtOverlay"] is None
    assert doc["stack"]["pointBack"] == _set("policies/dev.yaml")
    (proj / "Pulumi.dev.yaml").unlink()
    (shared / "dev.budget.yaml").unlink()
    _stack(proj, "policies/dev.yaml")
    doc = _json()
    assert doc["stack"]["deploys"] == "policy"
    assert doc["stack"]["pointAtOverlay"] == _set("policies/dev.budget.yaml")
    assert doc["stack"]["pointBack"] == _set("policies/dev.yaml")


def test_a_secret_policy_setting_still_gets_a_response(proj: Path) -> None:
    # finding 6: the key is set but encrypted
    _stack(proj, "\n    secure: AAABAGVuY3J5cHRlZA==", "  seedance:clusterName: gpu-dev\n")
    code, out = _respond("-f", "json")
    assert code == 0 and (proj / "policies" / "dev.budget.yaml").is_file()
    stack = json.loads(out)["stack"]
    assert stack["deploys"] == "unknown" and stack["seedancePolicy"] is None and "secret" in stack["problem"]
    assert stack["pointAtOverlay"] == _set("policies/dev.budget.yaml") and stack["pointBack"] is None
    code, text = _respond()
    assert "is a secret (secure: encrypted), which cannot be read offline" in text
    assert "pulumi config get seedance:policy --stack dev" in text


def test_without_the_stack_s_config_paths_say_what_they_are_relative_to(proj: Path) -> None:
    # finding 7: no --stack: the policy is named relative to the program directory, which is said
    result = _run("proj/policies/dev.yaml", "dev90.json", "--project-dir", "proj", "--out", OUT)
    base = os.path.abspath("proj")
    assert f"back to the policy, policies/dev.yaml (relative to {base}, where the Pulumi program runs)" in result.stdout
    assert "seedance check STACK --project-dir proj" in result.stdout
    # no project there: the absolute path, without claiming it is relative to anything
    result = _run(os.path.abspath("proj/policies/dev.yaml"), "dev90.json", "--project-dir", "nowhere", "--out", OUT)
    assert f"back to the policy, {os.path.abspath('proj/policies/dev.yaml')} (seedance:policy names it relative" \
        in result.stdout


def test_stack_config_dir_is_honoured(proj: Path, caplog: pytest.LogCaptureFixture) -> None:
    # finding 8: Pulumi.yaml's stackConfigDir holds the stack files
    (proj / "config").mkdir()
    for f in proj.glob("Pulumi.*.yaml"):
        f.rename(proj / "config" / f.name)
    (proj / "Pulumi.yaml").write_text((proj / "Pulumi.yaml").read_text() + "stackConfigDir: config\n")
    _stack(proj, "policies/dev.yaml", "  seedance:clusterName: gpu-dev\n", name="config/Pulumi.dev.yaml")
    assert read_stack_config(proj, "dev").stack_file == proj / "config" / "Pulumi.dev.yaml"
    assert stack_setup(proj, "dev").cluster
    doc = _json()
    assert doc["stack"]["file"] == str(proj / "config" / "Pulumi.dev.yaml") and doc["stack"]["deploys"] == "policy"
    assert "holds no Pulumi.dev.yaml" not in caplog.text and "does not exist" not in caplog.text


def test_a_stack_naming_a_missing_overlay_is_warned_loudly(proj: Path) -> None:
    # finding 9: pre-wired to the overlay, but this alert writes none
    _stack(proj, "policies/dev.budget.yaml")
    doc = _json(event="dev45.json")
    assert doc["overlay"] is None and doc["stack"]["deploys"] == "overlay" and doc["stack"]["deployedExists"] is False
    assert any("does not exist" in n and "pulumi up fail" in n and _set("policies/dev.yaml") in n for n in doc["notes"])
    code, text = _respond(event="dev45.json")
    assert "names the overlay policies/dev.budget.yaml, which does not exist" in text
    # once written it exists: no warning
    doc = _json()
    assert doc["stack"]["deployedExists"] is True and not any("does not exist" in n for n in doc["notes"])


def test_a_stack_with_an_org_prefix_is_refused() -> None:
    result = CliRunner().invoke(app, ["budget", "respond", "p.yaml", "e.json", "--stack", "acme/proj/dev"])
    assert result.exit_code == 2 and "expected a Pulumi stack name" in result.output


def test_steps_name_the_full_check_command_and_say_when_nothing_was_written(proj: Path) -> None:
    _stack(proj, "policies/dev.yaml")
    code, text = _respond()
    assert "run seedance check dev --project-dir proj, then pulumi up --stack dev --cwd proj" in text
    code, text = _respond(out=None)
    assert "no overlay written (pass --out FILE to write one): nothing was written" in text


def test_an_ignored_alert_still_reports_the_stack(proj: Path) -> None:
    _stack(proj, "policies/dev.yaml")
    (proj.parent / "other.json").write_bytes(_monthly_alert("seedance-prod-monthly", "6,000.00", "5,400.00",
                                                            account="777788889999"))
    doc = _json(event="other.json")
    assert doc["ignored"] and doc["stack"]["deploys"] == "policy" and doc["overlay"] is None


def test_a_setting_from_pulumi_yaml_names_its_real_origin(proj: Path) -> None:
    (proj / "Pulumi.dev.yaml").write_text("config:\n  aws:region: us-east-1\n")
    (proj / "Pulumi.yaml").write_text((proj / "Pulumi.yaml").read_text() + "config:\n  seedance:policy: policies/dev.yaml\n")
    doc = _json()
    assert doc["stack"]["origin"] == str(proj / "Pulumi.yaml") and doc["stack"]["deploys"] == "policy"


def test_a_value_that_is_not_a_path_is_named_as_such(proj: Path) -> None:
    _stack(proj, "{a: 1}")
    doc = _json()
    assert doc["stack"]["deploys"] == "unknown" and "is a mapping, not a path" in doc["stack"]["problem"]
    assert not any("{\"a\"" in n for n in doc["notes"])


def test_a_value_starting_with_a_dash_is_passed_after_double_dash(proj: Path) -> None:
    (proj / "policies" / "-dev.yaml").write_text((proj / "policies" / "dev.yaml").read_text())
    _stack(proj, "policies/dev.yaml")
    doc = _json(out="proj/-dev.budget.yaml")
    assert doc["stack"]["pointAtOverlay"] == "pulumi config set seedance:policy --stack dev --cwd proj -- -dev.budget.yaml"


def test_a_stack_starting_with_a_dash_is_checked_after_double_dash(proj: Path) -> None:
    # red team: `seedance check ./-x` reads ./-x as a document file, not the stack -x
    from seedance.budget.wiring import check_command

    assert check_command("-x", Path("proj")) == "seedance check --project-dir proj -- -x"
    assert check_command("dev", Path("stacks")) == "seedance check dev --project-dir stacks"  # the default, said too
    assert check_command(None, None) == "seedance check STACK --project-dir PROJECT_DIR"
    (proj / "Pulumi.-x.yaml").write_text("config:\n  aws:region: us-east-1\n  seedance:policy: policies/dev.yaml\n")
    result = CliRunner().invoke(app, ["check", "-f", "json", "--project-dir", str(proj), "--", "-x"])
    assert json.loads(result.output)["stack"] == "-x", result.output


def test_a_backtick_in_a_path_keeps_the_markdown_code_span_exact(proj: Path) -> None:
    _stack(proj, "policies/dev.yaml")
    code, md = _respond("-f", "markdown", out="proj/policies/dev`x.budget.yaml")
    assert code == 0 and "``pulumi config set seedance:policy 'policies/dev`x.budget.yaml' --stack dev --cwd proj``" in md


def test_an_alias_bomb_in_the_stack_file_is_refused_quickly(proj: Path, capsys: pytest.CaptureFixture[str]) -> None:
    levels = ["a: &a [x,x,x,x,x,x,x,x,x]"] + [f"{c}: &{c} [{','.join([f'*{p}'] * 9)}]"
                                               for p, c in zip("abcdefg", "bcdefgh")]
    (proj / "Pulumi.dev.yaml").write_text("\n".join(levels) + "\nconfig:\n  seedance:policy: policies/dev.yaml\n"
                                          "  seedance:k: *h\n")
    start = time.monotonic()
    code = main(["budget", "respond", "proj/policies/dev.yaml", "dev90.json", "--stack", "dev", "--project-dir", "proj"])
    assert time.monotonic() - start < 5
    assert code == 1 and "Pulumi.dev.yaml:11: config seedance:k: the value holds more than" in capsys.readouterr().err


@pytest.mark.parametrize(("name", "text", "message"), [
    ("Pulumi.dev.yaml", "config:\n  seedance:policy: [unclosed\n", "error proj/Pulumi.dev.yaml:3:1: expected ',' or ']'"),
    ("Pulumi.yaml", "name: seedance-gpu\nruntime: python\nmain: 5\n",
     "error proj/Pulumi.yaml: 'main': expected the program's path relative to the project, got int 5"),
])
def test_a_broken_project_file_is_bad_input_not_a_malformed_option(proj: Path, name: str, text: str, message: str,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """The README's exit 2 is for a malformed option; a project file that cannot be read is bad input:
    exit 1 with its FILE:LINE message, no usage banner, nothing written."""
    (proj / name).write_text(text, encoding="utf-8")
    code = main(["budget", "respond", "proj/policies/dev.yaml", "dev90.json", "--stack", "dev", "--project-dir", "proj",
                 "--out", OUT, "-f", "json"])
    captured = capsys.readouterr()
    assert code == 1 and message in captured.err and "; nothing was written" in captured.err
    assert "Usage:" not in captured.err and "Traceback" not in captured.err
    assert captured.out == "" and not Path(OUT).exists()


def test_without_out_the_stacks_own_budget_overlay_is_named_as_such(proj: Path) -> None:
    """The stack deploys the overlay an earlier response wrote for this policy, and this run has no
    --out: the warning says to respond with --out that overlay (not to respond *for* it, which the
    command refuses: it extends the policy)."""
    assert _respond()[0] == 0  # writes proj/policies/dev.budget.yaml
    _stack(proj, "policies/dev.budget.yaml")
    doc = _json(out=None)
    notes = " ".join(doc["notes"])
    assert "the overlay an earlier budget response wrote for this policy" in notes
    assert "respond with --out proj/policies/dev.budget.yaml" in notes
    assert "respond for the file the stack deploys" not in notes
