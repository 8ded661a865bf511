"""`seedance synth --from-preview/--from-export` refuses files whose desired state it cannot tell, at
conversion (exit 1, naming the file, the step or resource and the field), rather than writing a
document `seedance check` then refuses or, worse, judges wrongly."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from seedance.synth import ingest
from seedance.synth.document import SIG_KEY, SIG_SECRET
from tests.synth.test_synth_bad_input import (
    BUCKET_URN,
    PROVIDER_URN,
    assert_clear_error,
    export,
    preview,
    run_synth,
)

OTHER_URN = "urn:pulumi:other::x::aws:s3/bucket:Bucket::zz"


def _write(tmp_path: Path, name: str, doc: Any) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return path


# ---------------------------------------------------------------------- duplicate URNs in an export


def test_export_listing_a_urn_twice_is_refused_naming_urn_and_indexes(capsys, tmp_path: Path) -> None:
    doc = export()
    doc["deployment"]["resources"].append(copy.deepcopy(doc["deployment"]["resources"][2]))
    path = _write(tmp_path, "dup.json", doc)
    out = tmp_path / "doc.json"
    rc, err = run_synth(capsys, "--from-export", str(path), "--out", str(out))
    assert_clear_error(rc, err, f"{path}: resource URN {BUCKET_URN} is listed more than once",
                       "deployment.resources[2], deployment.resources[3]")
    assert not out.exists()


def test_export_old_copy_pending_deletion_may_share_the_urn(tmp_path: Path) -> None:
    doc = export()
    old = copy.deepcopy(doc["deployment"]["resources"][2])
    old.update({"id": "docs-old", "delete": True})
    doc["deployment"]["resources"].insert(2, old)
    converted = ingest.from_export(doc, "x.json")
    assert [r.id for r in converted.resources if r.urn == BUCKET_URN] == ["docs"]


# ---------------------------------------------------------------------- preview steps


def test_preview_new_state_of_another_urn_is_refused_naming_the_step(capsys, tmp_path: Path) -> None:
    doc = preview()
    doc["steps"][2]["newState"]["urn"] = OTHER_URN
    path = _write(tmp_path, "mismatch.json", doc)
    rc, err = run_synth(capsys, "--from-preview", str(path))
    assert_clear_error(rc, err, f"{path}: steps[2] ({BUCKET_URN}): 'newState.urn' is string \"{OTHER_URN}\", "
                                "not the step's URN")


def test_preview_states_of_many_steps_under_one_urn_are_not_merged(tmp_path: Path) -> None:
    """The auditor's case: every step's newState naming one URN collapsed the stack into one resource."""
    doc = preview()
    for step in doc["steps"]:
        step["newState"]["urn"] = OTHER_URN
    with pytest.raises(ingest.IngestError, match=r"steps\[0\] \(urn:pulumi:dev::proj::pulumi:pulumi:Stack::proj-dev\): "
                                                 r"'newState.urn'"):
        ingest.from_preview(doc, "p.json")


@pytest.mark.parametrize("op", ["explode", "Create", "read-discard", ""])
def test_preview_unknown_step_op_is_refused(capsys, tmp_path: Path, op: str) -> None:
    doc = preview()
    doc["steps"][2]["op"] = op
    path = _write(tmp_path, "op.json", doc)
    rc, err = run_synth(capsys, "--from-preview", str(path))
    assert_clear_error(rc, err, f"{path}: steps[2] ({BUCKET_URN}): 'op': expected one of Pulumi's step operations",
                       f"got string {json.dumps(op)}")
    assert "partial" not in err


@pytest.mark.parametrize("op", ingest.STEP_OPS)
def test_every_pulumi_step_op_is_accepted(op: str) -> None:
    doc = preview()
    doc["steps"][2]["op"] = op
    doc["steps"][2]["oldState"] = copy.deepcopy(doc["steps"][2]["newState"])
    converted = ingest.from_preview(doc, "p.json")
    urns = {r.urn for r in converted.resources}
    assert PROVIDER_URN in urns
    # removed (delete, discard), only read, or an old copy retired (its replacement's own steps record
    # it; there are none here): not desired by this step; every other op's new state is
    desired = op not in ingest.REMOVING_OPS | ingest.READ_OPS | ingest.RETIRING_OPS
    assert (BUCKET_URN in urns) is desired


# ---------------------------------------------------------------------- export: where the error is


@pytest.mark.parametrize(("mutate", "expected"), [
    (lambda d: d["deployment"]["resources"][2].__setitem__("inputs", []),
     f"deployment.resources[2] ({BUCKET_URN}): 'inputs': expected an object of property values, got array []"),
    (lambda d: d["deployment"]["resources"][2].__setitem__("inputs", {SIG_KEY: SIG_SECRET, "ciphertext": "v1:abc"}),
     f"deployment.resources[2] ({BUCKET_URN}): 'inputs': expected an object of property values, got a special value"),
    (lambda d: d["deployment"]["resources"][2].__setitem__("delete", "yes"),
     f"deployment.resources[2] ({BUCKET_URN}): 'delete': expected true or false, got string \"yes\""),
    (lambda d: d["deployment"].__setitem__("resources", {"a": 1}),
     "'deployment.resources': expected an array of resource states, got object"),
    (lambda d: d.__setitem__("deployment", None),
     "not `pulumi stack export` output: expected {'version', 'deployment': {'resources': [...]}}; 'deployment' is null"),
])
def test_export_errors_say_where(capsys, tmp_path: Path, mutate, expected: str) -> None:
    doc = export()
    mutate(doc)
    path = _write(tmp_path, "bad.json", doc)
    rc, err = run_synth(capsys, "--from-export", str(path))
    assert_clear_error(rc, err, f"{path}: {expected}")


def test_export_that_is_not_an_object_says_what_it_got(capsys, tmp_path: Path) -> None:
    path = _write(tmp_path, "list.json", [None, None])
    rc, err = run_synth(capsys, "--from-export", str(path))
    assert_clear_error(rc, err, f"{path}: not `pulumi stack export` output", "got array [null, null]")


def test_preview_whole_inputs_secret_is_refused(capsys, tmp_path: Path) -> None:
    doc = preview()
    doc["steps"][2]["newState"]["inputs"] = {SIG_KEY: SIG_SECRET, "ciphertext": "v1:abc"}
    path = _write(tmp_path, "secret.json", doc)
    rc, err = run_synth(capsys, "--from-preview", str(path))
    assert_clear_error(rc, err, f"{path}: steps[2] ({BUCKET_URN}): 'newState.inputs': expected an object of property values")
