"""`--from-preview` / `--from-export` read real Pulumi output as the whole stack or not at all: built
from the real fixtures (shared data, pulumi-preview/ and pulumi-stack-export/), with only the fields
Pulumi writes changed. The formats: pulumi/pulumi sdk/go/common/display/json.go (PreviewDigest,
PreviewStep, PreviewDiagnostic) and apitype.DeploymentV3 (resources, pending_operations)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from seedance.cli import main
from seedance.synth.ingest import IngestError, from_export, from_preview
from tests.synth.test_synth_ingest import fixtures_dir

PREVIEWS = fixtures_dir() / "pulumi-preview"
CREATES = PREVIEWS / "stratify-aws-creates.preview.json"
UPDATE = PREVIEWS / "stratify-aws-update-show-sames.preview.json"
EXPORT = fixtures_dir() / "pulumi-stack-export" / "stratify-aws.stack-export.json"


def _load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text())


# ---------------------------------------------------------------------- a preview that did not finish


#: What Pulumi's JSON display records of a program that fails (PreviewDiagnostic: urn, prefix,
#: message, severity): the language host's error on the stack resource, after the program's stderr
#: (severity "info#err", seen in pulumi/pulumi#18851).
FAILED_DIAGNOSTICS = [
    {"message": "Error: Cannot find module 'missing'\n", "severity": "info#err"},
    {"urn": "urn:pulumi:dev::sample::pulumi:pulumi:Stack::sample-dev", "prefix": "error: ",
     "message": "an unhandled error occurred: Program exited with non-zero exit code: 1\n", "severity": "error"},
]


def test_every_real_preview_ran_to_its_end():
    # the rule below refuses a preview without a summary: every real one has it, the 2019 one
    # without a duration too
    for path in sorted(PREVIEWS.glob("*.json")):
        data = _load(path)
        assert data["changeSummary"], path.name
        assert from_preview(data, path.name).resources


def test_a_failed_preview_is_refused():
    data = _load(CREATES)
    data["diagnostics"] = copy.deepcopy(FAILED_DIAGNOSTICS)
    with pytest.raises(IngestError, match=r"the preview failed \(1 error diagnostic\(s\); first on "
                                          r"urn:pulumi:dev::sample::pulumi:pulumi:Stack::sample-dev: an unhandled error "
                                          r"occurred: Program exited with non-zero exit code: 1\)"):
        from_preview(data, "p.json")


def test_warnings_and_program_output_do_not_fail_a_preview():
    data = _load(CREATES)
    data["diagnostics"] = [FAILED_DIAGNOSTICS[0], {"message": "deprecated\n", "severity": "warning", "prefix": "warning: "}]
    assert len(from_preview(data, "p.json").resources) == 15


def test_a_cancelled_preview_is_refused():
    # a run cancelled before its end emits no summary event: no changeSummary, no duration
    data = _load(CREATES)
    del data["changeSummary"], data["duration"]
    data["steps"] = data["steps"][:3]
    with pytest.raises(IngestError, match=r"no 'changeSummary': the preview did not run to its end"):
        from_preview(data, "p.json")


def test_a_preview_that_may_be_corrupt_is_refused():
    data = _load(CREATES)
    data["maybeCorrupt"] = True
    with pytest.raises(IngestError, match=r"'maybeCorrupt': true"):
        from_preview(data, "p.json")
    data["maybeCorrupt"] = "yes"
    with pytest.raises(IngestError, match=r"'maybeCorrupt': expected true or false"):
        from_preview(data, "p.json")


def test_diagnostics_of_the_wrong_shape_are_a_clear_error():
    data = _load(CREATES)
    with pytest.raises(IngestError, match=r"p.json: 'diagnostics': expected an array of diagnostics, got object"):
        from_preview({**data, "diagnostics": {"severity": "error"}}, "p.json")
    with pytest.raises(IngestError, match=r"p.json: diagnostics\[0\]: expected an object \(a diagnostic\), got string"):
        from_preview({**data, "diagnostics": ["error"]}, "p.json")


def test_synth_and_check_of_a_failed_preview_decide_nothing(capsys, tmp_path: Path):
    data = _load(CREATES)
    data["diagnostics"] = copy.deepcopy(FAILED_DIAGNOSTICS)
    src = tmp_path / "failed.json"
    src.write_text(json.dumps(data))
    out = tmp_path / "doc.json"
    assert main(["synth", "--from-preview", str(src), "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert "the preview failed" in err and "Traceback" not in err
    assert not out.exists()
    policy = Path(__file__).resolve().parents[2] / "stacks" / "policies" / "eu-prod.yaml"
    assert main(["check", str(src), "--policy", str(policy), "--format", "json"]) == 2
