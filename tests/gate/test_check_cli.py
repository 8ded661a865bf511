"""``seedance check``: exit codes, and failing closed on injected faults (nothing reports as passing)."""

from __future__ import annotations

import json
import logging
import shutil
import socket
from pathlib import Path

import pytest

from seedance.cli import main
from seedance.gate.engine import RegorusEngine

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "tests" / "synth" / "samples" / "eu-prod.json"
POLICY = REPO / "stacks" / "policies" / "eu-prod.yaml"


def _run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(["check", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def _assert_undecided(code: int, out: str, err: str) -> None:
    assert code == 2
    assert "passed" not in out and "✓" not in out and '"decision": "pass"' not in out
    assert "undecided" in err


@pytest.fixture()
def sample_doc(tmp_path: Path) -> Path:
    dest = tmp_path / "eu-prod.json"
    shutil.copy(SAMPLE, dest)
    return dest


def test_mandatory_finding_exits_1(capsys, sample_doc: Path) -> None:
    code, out, _ = _run(capsys, str(sample_doc), "--policy", str(POLICY), "--format", "json", "--framework", "gdpr", "--framework", "mlps-l3")
    doc = json.loads(out)
    assert code == 1 and doc["decision"] == "fail"
    assert "MLPS-L3-8.2.4-DIC-a" in {f["controlId"] for f in doc["findings"] if f["severity"] == "mandatory"}


def test_engine_exception_is_undecided(capsys, sample_doc: Path, monkeypatch) -> None:
    def boom(self, bundle, gate_input):
        raise RuntimeError("injected engine failure")

    monkeypatch.setattr(RegorusEngine, "evaluate", boom)
    for fmt in ("text", "json", "sarif", "markdown"):
        code, out, err = _run(capsys, str(sample_doc), "--policy", str(POLICY), "--format", fmt)
        _assert_undecided(code, out, err)
        assert "injected engine failure" in err
        # every format prints its report on stdout (red team: text printed nothing there)
        assert "injected engine failure" in out, fmt
    text = _run(capsys, str(sample_doc), "--policy", str(POLICY))[1]
    last = text.splitlines()[-1]
    assert last.startswith("✗ undecided ") and last.endswith(": the gate could not decide, so the deploy is blocked")


def test_engine_runtime_error_inside_a_rule_is_undecided(capsys, sample_doc: Path, tmp_path: Path) -> None:
    root = tmp_path / "policies"
    shutil.copytree(REPO / "policies", root, ignore=shutil.ignore_patterns("pack"))
    path = root / "budget" / "monthly_budget.rego"
    # a division by zero at evaluation time (parses fine, fails while running)
    text = path.read_text()
    assert "_amount := input.policy.budget.monthlyAmount\n" in text
    path.write_text(text.replace("_amount := input.policy.budget.monthlyAmount\n", "_amount := input.policy.budget.monthlyAmount / 0\n", 1))
    code, out, err = _run(capsys, str(sample_doc), "--policy", str(POLICY), "--policies", str(root), "--format", "json")
    _assert_undecided(code, out, err)
    assert json.loads(out)["decision"] == "undecided"
    assert "budget/monthly_budget.rego" in err and "divide by zero" in err and "Stack backtrace" not in err


def test_malformed_policy_is_undecided(capsys, sample_doc: Path, tmp_path: Path) -> None:
    root = tmp_path / "policies"
    shutil.copytree(REPO / "policies", root, ignore=shutil.ignore_patterns("pack"))
    (root / "gdpr" / "erasure.rego").write_text("package gdpr.erasure\n\nviolation contains x if {\n\tx := \n}\n")
    code, out, err = _run(capsys, str(sample_doc), "--policy", str(POLICY), "--policies", str(root))
    _assert_undecided(code, out, err)
    assert "gdpr/erasure.rego:1:1: no control rule" in err


def test_unparsable_policy_is_undecided_with_location(capsys, sample_doc: Path, tmp_path: Path) -> None:
    root = tmp_path / "policies"
    shutil.copytree(REPO / "policies", root, ignore=shutil.ignore_patterns("pack"))
    path = root / "gdpr" / "erasure.rego"
    path.write_text(path.read_text() + "\n_broken if {\n\tx := \n}\n")
    code, out, err = _run(capsys, str(sample_doc), "--policy", str(POLICY), "--policies", str(root))
    _assert_undecided(code, out, err)
    assert "gdpr/erasure.rego:" in err and "Stack backtrace" not in err


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_unreachable_opa_is_undecided(capsys, sample_doc: Path) -> None:
    url = f"http://127.0.0.1:{_closed_port()}"
    code, out, err = _run(capsys, str(sample_doc), "--policy", str(POLICY), "--opa-url", url, "--format", "json")
    _assert_undecided(code, out, err)
    assert f"OpaUnreachableError: OPA server at {url} is unreachable" in err


def test_bad_opa_url_is_undecided(capsys, sample_doc: Path) -> None:
    code, out, err = _run(capsys, str(sample_doc), "--policy", str(POLICY), "--opa-url", "opa:8181")
    _assert_undecided(code, out, err)


def test_invalid_document_is_undecided(capsys, tmp_path: Path) -> None:
    doc = json.loads(SAMPLE.read_text())
    del doc["resources"][3]["urn"]
    doc["resources"][4]["inputs"] = "not an object"
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(doc))
    code, out, err = _run(capsys, str(path), "--policy", str(POLICY))
    _assert_undecided(code, out, err)
    assert "resources.3.urn: Field required" in err
    assert "resources.4.inputs: Input should be a valid dictionary" in err


def test_not_json_is_undecided(capsys, tmp_path: Path) -> None:
    path = tmp_path / "doc.json"
    path.write_text('{"apiVersion": "seedance.io/v1",\n  oops}')
    code, out, err = _run(capsys, str(path), "--policy", str(POLICY))
    _assert_undecided(code, out, err)
    assert f"{path}:2:3: not valid JSON" in err


def test_gate_input_file_with_forced_frameworks(capsys, tmp_path: Path) -> None:
    from seedance.policy import load_policy

    gate = {
        "document": json.loads(SAMPLE.read_text()),
        "policy": load_policy(POLICY).policy.model_dump(mode="json", by_alias=True),
        "plan": None,
        "estimate": {"monthly_total": 1000, "currency": "USD"},
        "budget_state": None,
    }
    path = tmp_path / "gate.json"
    path.write_text(json.dumps(gate))
    code, out, _ = _run(capsys, str(path), "--format", "json", "--as-of", "2026-06-01")
    doc = json.loads(out)
    assert doc["asOf"] == "2026-06-01" and doc["frameworks"] == ["gdpr"]
    assert {f["controlId"] for f in doc["findings"] if f["controlId"].startswith("MLPS")} == set()


def test_severity_override_from_the_command_line(capsys, sample_doc: Path) -> None:
    args = [str(sample_doc), "--policy", str(POLICY), "--format", "json", "--as-of", "2026-06-01"]
    code, out, _ = _run(capsys, *args)
    advisory = [f for f in json.loads(out)["findings"] if f["controlId"] == "GDPR-44-2"]
    assert advisory and all(f["severity"] == "advisory" for f in advisory)
    code, out, _ = _run(capsys, *args, "--severity", "GDPR-44-2=mandatory")
    raised = [f for f in json.loads(out)["findings"] if f["controlId"] == "GDPR-44-2"]
    assert code == 1 and len(raised) == len(advisory) and all(f["severity"] == "mandatory" for f in raised)


def test_unknown_severity_override_is_undecided(capsys, sample_doc: Path) -> None:
    code, out, err = _run(capsys, str(sample_doc), "--policy", str(POLICY), "--severity", "GDPR-99-9=mandatory")
    _assert_undecided(code, out, err)
    assert "severity override: unknown control 'GDPR-99-9'" in err


@pytest.mark.parametrize("second", ["GDPR-44-2=mandatory", " GDPR-44-2 = advisory", "GDPR-44-2=advisory"])
def test_a_control_given_twice_to_severity_is_refused(capsys, sample_doc: Path, second: str) -> None:
    """Never silently the last one: like `plan --held` with a fleet given twice (exit 2, undecided here)."""
    args = [str(sample_doc), "--policy", str(POLICY), "--severity", "GDPR-44-2=advisory", "--severity", second]
    code, out, err = _run(capsys, *args)
    _assert_undecided(code, out, err)
    assert (f"--severity: control 'GDPR-44-2' is given twice ('GDPR-44-2=advisory' and {second!r}); "
            "give each control once") in err
    code, out, err = _run(capsys, *args, "--format", "json")  # in the requested format, as every undecided run
    _assert_undecided(code, out, err)
    doc = json.loads(out)
    assert doc["decision"] == "undecided" and "is given twice" in doc["errors"][0]


@pytest.mark.parametrize(("value", "message"), [
    ("GDPR-44-2", "--severity 'GDPR-44-2': expected CONTROL=mandatory or CONTROL=advisory"),
    ("=advisory", "--severity '=advisory': expected CONTROL=mandatory or CONTROL=advisory: no control id before '='"),
    ("GDPR-44-2=high", "severity override GDPR-44-2: expected one of mandatory, advisory, got 'high'"),
    ("GDPR-44-2=", "severity override GDPR-44-2: expected one of mandatory, advisory, got ''"),
    ("GDPR-99-9=mandatory", "severity override: unknown control 'GDPR-99-9'"),
])
def test_malformed_severity_overrides_are_refused(capsys, sample_doc: Path, value: str, message: str) -> None:
    code, out, err = _run(capsys, str(sample_doc), "--policy", str(POLICY), "--severity", value)
    _assert_undecided(code, out, err)
    assert message in err and "internal error" not in err


def test_different_controls_each_once_are_accepted(capsys, sample_doc: Path) -> None:
    code, out, _ = _run(capsys, str(sample_doc), "--policy", str(POLICY), "--format", "json", "--as-of", "2026-06-01",
                        "--severity", "GDPR-44-2=mandatory", "--severity", "GDPR-33-1=advisory")
    assert code in (0, 1)
    assert json.loads(out)["severityOverrides"] == {"GDPR-33-1": "advisory", "GDPR-44-2": "mandatory"}


def test_forced_frameworks_add_to_the_policys_own(capsys, sample_doc: Path) -> None:
    # the help says "force these frameworks on": eu-prod's own GDPR must stay on
    code, out, _ = _run(capsys, str(sample_doc), "--policy", str(POLICY), "--format", "json",
                        "--framework", "mlps-l3", "--framework", "mlps-l3")
    doc = json.loads(out)
    assert doc["frameworks"] == ["gdpr", "mlps-l3"]
    assert "GDPR-44-2" in {f["controlId"] for f in doc["findings"]}


def test_policy_option_with_a_stack_target_is_refused(capsys) -> None:
    code, out, err = _run(capsys, "eu-prod", "--project-dir", str(REPO / "stacks"), "--policy", str(POLICY))
    _assert_undecided(code, out, err)
    assert "applies to a DOCUMENT.json" in err


def test_undecided_sarif_is_still_sarif(capsys, sample_doc: Path) -> None:
    import jsonschema

    code, out, err = _run(capsys, str(sample_doc), "--policy", str(POLICY), "--format", "sarif", "--severity", "foo")
    _assert_undecided(code, out, err)
    sarif = json.loads(out)
    jsonschema.validate(sarif, json.loads((Path(__file__).parent / "sarif-schema-2.1.0.json").read_text()))
    (run,) = sarif["runs"]
    assert run["invocations"][0]["executionSuccessful"] is False
    assert "expected CONTROL=mandatory" in run["invocations"][0]["toolExecutionNotifications"][0]["message"]["text"]
    # not an empty run: code scanning reads one as "nothing found", so the run says the gate did not decide
    (result,) = run["results"]
    assert result["level"] == "error" and result["ruleId"] == run["tool"]["driver"]["rules"][result["ruleIndex"]]["id"]
    assert "could not decide" in result["message"]["text"] and "expected CONTROL=mandatory" in result["message"]["text"]
    assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == sample_doc.as_uri()
    code, out, err = _run(capsys, "no-such-stack", "--project-dir", "stacks", "--format", "sarif")
    _assert_undecided(code, out, err)
    (result,) = json.loads(out)["runs"][0]["results"]
    assert result["locations"][0]["physicalLocation"]["artifactLocation"] == {"uri": "stacks/Pulumi.no-such-stack.yaml",
                                                                               "uriBaseId": "%SRCROOT%"}
    # a relative path is a URI reference: a space, '#' or '%' in it is percent-encoded
    code, out, err = _run(capsys, "no such#1 100%", "--project-dir", "stacks", "--format", "sarif")
    _assert_undecided(code, out, err)
    (result,) = json.loads(out)["runs"][0]["results"]
    assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == \
        "stacks/Pulumi.no%20such%231%20100%25.yaml"


@pytest.mark.parametrize(("option", "message"), [
    (["--framework", "hipaa"], "--framework 'hipaa': expected one of gdpr, mlps-l3"),
    (["--as-of", "2026-13-01"], "--as-of '2026-13-01': expected a date YYYY-MM-DD"),
    (["--as-of", "2026-6-1"], "--as-of '2026-6-1': expected a date YYYY-MM-DD"),
])
def test_a_bad_framework_or_date_is_undecided_in_the_requested_format(capsys, sample_doc: Path, option: list[str], message: str) -> None:
    # not click's usage text on stderr with nothing on stdout: a SARIF upload step still gets SARIF
    code, out, err = _run(capsys, str(sample_doc), "--policy", str(POLICY), "--format", "sarif", *option)
    _assert_undecided(code, out, err)
    (run,) = json.loads(out)["runs"]
    assert run["invocations"][0]["toolExecutionNotifications"][0]["message"]["text"] == message
    code, out, err = _run(capsys, str(sample_doc), "--policy", str(POLICY), "--format", "json", *option)
    assert code == 2 and json.loads(out)["errors"] == [message]


def test_severity_overrides_are_recorded_in_every_report(capsys, sample_doc: Path) -> None:
    args = [str(sample_doc), "--policy", str(POLICY), "--as-of", "2026-06-01", "--severity", "GDPR-44-2=mandatory"]
    _, out, _ = _run(capsys, *args, "--format", "json")
    assert json.loads(out)["severityOverrides"] == {"GDPR-44-2": "mandatory"}
    _, out, _ = _run(capsys, *args, "--format", "sarif")
    assert json.loads(out)["runs"][0]["properties"]["severityOverrides"] == {"GDPR-44-2": "mandatory"}
    _, out, _ = _run(capsys, *args, "--format", "markdown")
    assert "## Severity overrides for this run" in out and "GDPR-44-2 reported as **mandatory**" in out
    _, out, _ = _run(capsys, *args, "--format", "pr-comment")
    assert "Severity overrides for this run (`--severity`): GDPR-44-2 → mandatory" in out
    _, out, _ = _run(capsys, *args)
    assert "severity override: GDPR-44-2 is mandatory for this run" in out
    _, out, _ = _run(capsys, str(sample_doc), "--policy", str(POLICY), "--format", "json")
    assert "severityOverrides" not in json.loads(out)


def test_machine_formats_are_byte_exact(capsys, sample_doc: Path, tmp_path: Path) -> None:
    # a waiver reason with emoji codes and markup-like text comes back exactly as written
    reason = "Approved in FIN-1 :ok: see :x: and [bold]x[/bold] :warning:"
    policy = tmp_path / "waived.yaml"
    policy.write_text(f"apiVersion: seedance.io/v1\nkind: CostPolicy\nextends: {POLICY}\nwaivers:\n"
                      "  - control: GDPR-44-2\n    resource: '*'\n"
                      f"    reason: {json.dumps(reason)}\n    approver: dpo@example.com\n    expires: 2099-01-01\n")
    for fmt in ("json", "sarif"):
        _, out, _ = _run(capsys, str(sample_doc), "--policy", str(policy), "--format", fmt, "--as-of", "2026-06-01")
        assert reason in out and "🆗" not in out and "❌" not in out


def test_a_partial_document_is_undecided(capsys, sample_doc: Path, tmp_path: Path) -> None:
    doc = json.loads(sample_doc.read_text())
    doc["notes"] = ["partial: the change summary counts 3 unchanged resource(s) but only 0 'same' step(s) are listed"]
    partial = tmp_path / "eu-prod.json"
    partial.write_text(json.dumps(doc))
    code, out, err = _run(capsys, str(partial), "--policy", str(POLICY))
    _assert_undecided(code, out, err)
    assert "does not show the whole stack as it is" in err


def test_resource_names_cannot_break_out_of_the_markdown(capsys, sample_doc: Path) -> None:
    doc = json.loads(sample_doc.read_text())
    evil = "x`|y <details><summary>z"
    for r in doc["resources"]:
        if r["type"] == "aws:s3/bucketV2:BucketV2" or r["type"] == "aws:s3/bucket:Bucket":
            r["urn"] = r["urn"].rsplit("::", 1)[0] + "::" + evil
            r["name"] = evil
            break
    else:
        pytest.fail("no bucket in the sample")
    sample_doc.write_text(json.dumps(doc))
    import re

    for fmt in ("markdown", "pr-comment"):
        _, out, _ = _run(capsys, str(sample_doc), "--policy", str(POLICY), "--format", fmt,
                         "--framework", "mlps-l3", "--as-of", "2026-06-01")
        assert "x'" in out  # the name is reported ...
        outside_code = re.sub(r"`[^`\n]*`", "", out)
        assert "<summary>z" not in outside_code and "x'" not in outside_code  # ... only inside code spans
        assert "x`" not in out  # whose backtick would have closed the span early


def test_groups_larger_than_planned_are_blocked(capsys, sample_doc: Path) -> None:
    # a document whose groups deploy far more than the plan (and its estimate) covers
    code, out, _ = _run(capsys, str(sample_doc), "--policy", str(POLICY), "--format", "json")
    assert code == 0 and not [f for f in json.loads(out)["findings"] if f["controlId"] == "BUDGET-FLEET-1"]
    doc = json.loads(sample_doc.read_text())
    for r in doc["resources"]:
        if r["type"] == "aws:autoscaling/group:Group":
            r["inputs"]["maxSize"] = r["inputs"]["minSize"] = r["inputs"]["desiredCapacity"] = 1000
    sample_doc.write_text(json.dumps(doc))
    code, out, _ = _run(capsys, str(sample_doc), "--policy", str(POLICY), "--format", "json")
    blocked = [f["message"] for f in json.loads(out)["findings"] if f["controlId"] == "BUDGET-FLEET-1"]
    assert code == 1 and "fleet inference: its groups' maxSize adds up to 1000, above the policy's capacity.max 48" in blocked
    # each of the five fleets: maxSize above capacity.max, minSize above the plan's; the desired
    # capacity of these groups is the Cluster Autoscaler's (they join a cluster)
    assert len(blocked) == 10 and sum("minSize runs 1000 units" in m for m in blocked) == 5
    assert not [m for m in blocked if "desiredCapacity" in m]



@pytest.mark.parametrize(("fixture", "hint"), [
    ("pulumi-preview/stratify-aws-creates.preview.json", "seedance synth --from-preview"),
    ("pulumi-stack-export/stratify-aws.stack-export.json", "seedance synth --from-export"),
])
def test_raw_pulumi_output_gets_a_hint(capsys, tmp_path: Path, fixture: str, hint: str) -> None:
    import os

    source = Path(os.environ.get("SEEDANCE_SHARED_DATA") or REPO.parent / "shared" / "data") / "fixtures" / fixture
    raw = tmp_path / "raw.json"
    shutil.copy(source, raw)
    code, out, err = _run(capsys, str(raw), "--policy", str(POLICY))
    _assert_undecided(code, out, err)
    assert hint in err


def test_a_directory_target_is_named(capsys, tmp_path: Path) -> None:
    code, out, err = _run(capsys, str(tmp_path))
    _assert_undecided(code, out, err)
    assert "is a directory; expected a STACK name" in err


def test_document_fields_are_not_coerced(capsys, sample_doc: Path) -> None:
    doc = json.loads(sample_doc.read_text())
    doc["resources"][0]["custom"] = "no"  # bool("no") would be True
    sample_doc.write_text(json.dumps(doc))
    code, out, err = _run(capsys, str(sample_doc), "--policy", str(POLICY))
    _assert_undecided(code, out, err)
    assert "resources.0.custom" in err


def test_policy_option_with_a_whole_gate_input_is_refused(capsys, tmp_path: Path) -> None:
    from seedance.policy import load_policy

    gate = {"document": json.loads(SAMPLE.read_text()),
            "policy": load_policy(POLICY).policy.model_dump(mode="json", by_alias=True)}
    path = tmp_path / "gate.json"
    path.write_text(json.dumps(gate))
    code, out, err = _run(capsys, str(path), "--policy", "/nonexistent.yaml")
    _assert_undecided(code, out, err)
    assert "is a whole gate input with its own policy" in err


def test_a_document_listing_a_resource_twice_is_undecided(capsys, sample_doc: Path) -> None:
    doc = json.loads(sample_doc.read_text())
    doc["resources"].append(doc["resources"][3])
    sample_doc.write_text(json.dumps(doc))
    code, out, err = _run(capsys, str(sample_doc), "--policy", str(POLICY))
    _assert_undecided(code, out, err)
    assert "listed more than once" in err


@pytest.mark.parametrize("total", [-5, float("inf"), "1000", True])
def test_a_gate_input_with_an_impossible_estimate_is_undecided(capsys, tmp_path: Path, total) -> None:  # type: ignore[no-untyped-def]
    from seedance.policy import load_policy

    gate = {"document": json.loads(SAMPLE.read_text()),
            "policy": load_policy(POLICY).policy.model_dump(mode="json", by_alias=True),
            "estimate": {"monthly_total": total, "currency": "USD"}}
    path = tmp_path / "gate.json"
    path.write_text(json.dumps(gate))
    code, out, err = _run(capsys, str(path))
    _assert_undecided(code, out, err)
    assert "'estimate.monthly_total' must be a finite amount >= 0" in err


def test_the_policy_adds_trusted_amis(capsys, sample_doc: Path, tmp_path: Path) -> None:
    """compliance.trusted reaches the rules: an AMI id is reported (MLPS-L3-8.1.4.5-6) until the policy lists it."""
    doc = json.loads(sample_doc.read_text())
    templates = [r for r in doc["resources"] if r["type"] == "aws:ec2/launchTemplate:LaunchTemplate" and r["inputs"].get("imageId")]
    templates[0]["inputs"]["imageId"] = "ami-0123456789abcdef0"
    sample_doc.write_text(json.dumps(doc))

    def ami_findings(policy: Path) -> list[str]:
        code, out, _ = _run(capsys, str(sample_doc), "--policy", str(policy), "--format", "json", "--framework", "mlps-l3")
        return [f["resourceName"] for f in json.loads(out)["findings"] if f["controlId"] == "MLPS-L3-8.1.4.5-6"]

    assert ami_findings(POLICY) == [templates[0]["name"]]
    trusting = tmp_path / "trusting.yaml"
    trusting.write_text(f"apiVersion: seedance.io/v1\nkind: CostPolicy\nextends: {POLICY}\n"
                        "compliance:\n  trusted:\n    amis: [ami-0123456789abcdef0]\n")
    assert ami_findings(trusting) == []


def test_check_of_a_stack_logs_each_planner_warning_once(capsys, caplog) -> None:
    # the gate plans the policy, then the stack's program plans it again under the mock runtime
    caplog.set_level("WARNING", logger="seedance.planner")
    before = logging.getLogger("seedance.planner").level
    code = main(["check", "eu-prod", "--project-dir", str(REPO / "stacks"), "--as-of", "2026-06-01"])
    capsys.readouterr()
    assert code == 0
    stale = [r for r in caplog.records if r.name.startswith("seedance.planner") and "demand history ends" in r.getMessage()]
    assert len(stale) == 1
    assert logging.getLogger("seedance.planner").level == before  # restored


@pytest.mark.parametrize("change, message", [
    (lambda g: g["policy"]["budget"].update(monthlyAmount="100000"), "policy: budget.monthlyAmount: Input should be a valid number"),
    (lambda g: g["policy"]["fleets"][0]["capacity"].update(min=5, desired=1), "policy: fleets.0.capacity"),
    (lambda g: g["estimate"].update(policy="other"), "'estimate.policy' is 'other', the policy's is 'gpu-platform-eu'"),
    (lambda g: g["estimate"].update(region="us-east-1"), "'estimate.region' is 'us-east-1', the policy's is 'eu-central-1'"),
])
def test_a_whole_gate_input_is_checked_as_strictly_as_a_policy_file(capsys, tmp_path: Path, change, message) -> None:
    from seedance.policy import load_policy

    gate = {
        "document": json.loads(SAMPLE.read_text()),
        "policy": load_policy(POLICY).policy.model_dump(mode="json", by_alias=True),
        "estimate": {"policy": "gpu-platform-eu", "region": "eu-central-1", "monthly_total": 1000, "currency": "USD"},
    }
    path = tmp_path / "gate.json"
    path.write_text(json.dumps(gate))
    code, _, _ = _run(capsys, str(path), "--as-of", "2026-06-01")
    assert code in (0, 1)  # decided as given
    change(gate)
    path.write_text(json.dumps(gate))
    code, out, err = _run(capsys, str(path), "--as-of", "2026-06-01")
    _assert_undecided(code, out, err)
    assert message in err, err


def test_a_very_long_stack_name_keeps_the_verdict_in_the_pr_comment(capsys, sample_doc: Path) -> None:
    # the comment's heading is one line: a 61,000-character stack name made it longer than the comment
    # limit, and the cut left only the note that it was cut (no verdict, no counts)
    doc = json.loads(sample_doc.read_text())
    doc["stack"] = "s" * 61_000
    sample_doc.write_text(json.dumps(doc))
    for fmt in ("pr-comment", "markdown"):
        code, out, _ = _run(capsys, str(sample_doc), "--policy", str(POLICY), "--format", fmt, "--as-of", "2026-06-01")
        heading = out.lstrip().splitlines()[0]
        assert "Seedance gate" in heading and "s" * 199 + "…" in heading and "s" * 201 not in heading, fmt
        assert ("mandatory" in heading) if fmt == "pr-comment" else True
    code, out, _ = _run(capsys, str(sample_doc), "--policy", str(POLICY), "--format", "json", "--as-of", "2026-06-01")
    assert json.loads(out)["stack"] == "s" * 61_000  # the machine-readable report keeps it whole
