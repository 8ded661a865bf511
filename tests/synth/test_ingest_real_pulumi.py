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
    assert len(from_preview(data, "p.json").resources) == 16


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


# ---------------------------------------------------------------------- the default providers' settings


POLICY = Path(__file__).resolve().parents[2] / "stacks" / "policies" / "eu-prod.yaml"
AWS_DEFAULT = "urn:pulumi:dev::sample::pulumi:providers:aws::default_6_63_0"
BUCKET = "urn:pulumi:dev::sample::aws:s3/bucket:Bucket::docs"
#: aws:defaultTags as `pulumi config set --path` keeps it and a preview's config shows it: JSON text
#: (PreviewDigest.Config is map[string]string); an export's default provider holds the same string.
PERSONAL_TAGS = json.dumps({"tags": {"data-class": "personal", "team": "ml", "cost-center": "cc1",
                                     "environment": "prod", "owner": "me"}})


def _findings(capsys, tmp_path: Path, doc: Any, name: str) -> tuple[int, list[tuple[str, str, str]]]:
    path = tmp_path / f"{name}.json"
    path.write_text(doc.dumps())
    capsys.readouterr()
    rc = main(["check", str(path), "--policy", str(POLICY), "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    return rc, sorted((f["controlId"], f["urn"], f["message"]) for f in report["findings"])


def _export_with_default_provider(**inputs: str) -> dict[str, Any]:
    data = _load(EXPORT)
    (provider,) = [r for r in data["deployment"]["resources"] if r["urn"] == AWS_DEFAULT]
    provider["inputs"].update(inputs)
    provider["outputs"].update(inputs)
    return data


def test_the_default_provider_of_a_preview_carries_its_config():
    data = _load(UPDATE)
    data["config"].update({"aws:defaultTags": PERSONAL_TAGS, "aws:region": "us-east-1", "kubernetes:namespace": "ml"})
    doc = from_preview(data, "p.json")
    (provider,) = doc.of_type("pulumi:providers:aws")
    assert provider.urn == AWS_DEFAULT and provider.id == "42a75fb0-5a64-436a-8a82-e3a2e388b650"  # its steps' reference
    assert provider.inputs == {"defaultTags": PERSONAL_TAGS, "region": "us-east-1"}  # aws: only, no pulumi:tags
    assert provider.region == "us-east-1"
    assert all(r.provider == AWS_DEFAULT for r in doc.resources if r.custom and r.type.startswith("aws:"))


def test_a_preview_and_an_export_of_the_same_stack_give_the_same_findings(capsys, tmp_path: Path):
    # the stack's default provider tags everything personal and sits in us-east-1: the preview shows
    # that only in its config, the export in its default provider resource
    preview = _load(UPDATE)
    preview["config"].update({"aws:defaultTags": PERSONAL_TAGS, "aws:region": "us-east-1"})
    export = _export_with_default_provider(defaultTags=PERSONAL_TAGS, region="us-east-1")
    from_p = from_preview(preview, "p.json")
    from_e = from_export(export, "e.json")
    assert from_p.of_type("pulumi:providers:aws")[0].inputs.items() <= from_e.of_type("pulumi:providers:aws")[0].inputs.items()
    rc_p, found_p = _findings(capsys, tmp_path, from_p, "preview")
    rc_e, found_e = _findings(capsys, tmp_path, from_e, "export")
    assert (rc_p, found_p) == (rc_e, found_e)
    # the bucket holds personal data by its provider's data-class, and the cost tags come from it too
    assert ("GDPR-32.1c-1", BUCKET, "personal-data bucket is not versioned (no recovery from overwrite or deletion)") in found_p
    assert not any(c == "BUDGET-TAGS-1" for c, _, _ in found_p)


def test_personal_data_a_preview_creates_outside_the_gdpr_regions_is_found(capsys, tmp_path: Path):
    # nothing the creates preview holds places the bucket but its default provider's region
    data = _load(CREATES)
    data["config"].update({"aws:defaultTags": PERSONAL_TAGS, "aws:region": "us-east-1"})
    rc, found = _findings(capsys, tmp_path, from_preview(data, "p.json"), "creates")
    assert rc == 1 and any(c == "GDPR-44-1" and u == BUCKET and "us-east-1" in m for c, u, m in found)


def _with_step(data: dict[str, Any], urn: str, typ: str, provider: str, inputs: dict[str, Any]) -> dict[str, Any]:
    """``data`` (a real preview) with one more create step, shaped as its own create steps are."""
    step = copy.deepcopy(next(s for s in data["steps"] if s["urn"].endswith("aws:s3/bucket:Bucket::docs")))
    step.update(op="create", urn=urn, provider=provider)
    step.pop("oldState", None)
    step["newState"] = {"urn": urn, "custom": True, "type": typ, "inputs": inputs,
                        "parent": "urn:pulumi:dev::sample::pulumi:pulumi:Stack::sample-dev", "provider": provider}
    data["steps"].append(step)
    data["changeSummary"]["create"] = data["changeSummary"].get("create", 0) + 1
    return data


NATIVE_BUCKET = "urn:pulumi:dev::sample::aws-native:s3:Bucket::nativeData"
NATIVE_PROVIDER = "urn:pulumi:dev::sample::pulumi:providers:aws-native::default_1_20_0"


def test_aws_native_resources_of_the_default_provider_are_placed_by_aws_native_region():
    # pulumi-aws-native's default provider reads the aws-native config namespace, not aws's
    data = _with_step(_load(UPDATE), NATIVE_BUCKET, "aws-native:s3:Bucket", NATIVE_PROVIDER + "::04da6b54-80e4-46f7-96ec-b56ff0331ba9",
                      {"bucketName": "native-data-123", "tags": [{"key": "data-class", "value": "personal"}]})
    data["config"].update({"aws:region": "eu-central-1", "aws-native:region": "us-east-1"})
    doc = from_preview(data, "p.json")
    assert doc.by_name("nativeData").region == "us-east-1"
    assert doc.by_name("default_1_20_0").inputs == {"region": "us-east-1"}
    # without aws-native:region the stack's aws:region says nothing of where it goes
    del data["config"]["aws-native:region"]
    assert from_preview(data, "p.json").by_name("nativeData").region is None


def test_kubernetes_objects_of_the_default_provider_are_in_its_namespace(capsys, tmp_path: Path):
    urn = "urn:pulumi:dev::sample::kubernetes:core/v1:ConfigMap::settings"
    data = _with_step(_load(UPDATE), urn, "kubernetes:core/v1:ConfigMap",
                      "urn:pulumi:dev::sample::pulumi:providers:kubernetes::default_4_18_0::04da6b54-80e4-46f7-96ec-b56ff0331ba9",
                      {"apiVersion": "v1", "kind": "ConfigMap", "data": {"a": "b"}, "metadata": {"name": "settings"}})
    data["config"]["kubernetes:namespace"] = "ml"
    doc = from_preview(data, "p.json")
    assert doc.by_name("default_4_18_0").inputs == {"namespace": "ml"}
    _, found = _findings(capsys, tmp_path, doc, "k8s")
    assert not [m for c, u, m in found if u == urn and "default namespace" in m]


def test_a_config_value_that_is_not_text_is_a_clear_error():
    data = _load(UPDATE)
    data["config"]["aws:defaultTags"] = {"tags": {"a": "b"}}
    with pytest.raises(IngestError, match=r"p.json: 'config.aws:defaultTags': expected a string"):
        from_preview(data, "p.json")


# ---------------------------------------------------------------------- replacements


US_PROVIDER = "urn:pulumi:dev::sample::pulumi:providers:aws::us"


def _replace_bucket(data: dict[str, Any], provider: str) -> dict[str, Any]:
    """The real update preview with its `same` step of the bucket turned into a `replace` onto
    ``provider`` (a PreviewStep of a replacement: oldState and newState, the new one without outputs)."""
    step = next(s for s in data["steps"] if s["urn"] == BUCKET)
    step.update(op="replace", provider=provider, replaceReasons=["provider"])
    step["newState"]["provider"] = provider
    data["changeSummary"]["same"] -= 1
    data["changeSummary"]["replace"] = 1
    return data


def test_a_replacement_onto_another_provider_is_placed_by_the_new_provider():
    data = _load(UPDATE)
    assert next(s for s in data["steps"] if s["urn"] == BUCKET)["oldState"]["outputs"]["region"] == "eu-west-1"
    # a program's own provider for us-east-1, created in this preview (its step lists its inputs)
    provider_step = copy.deepcopy(next(s for s in data["steps"] if s["urn"] == BUCKET))
    provider_step.update(op="create", urn=US_PROVIDER, provider=None)
    provider_step.pop("oldState")
    provider_step["newState"] = {"urn": US_PROVIDER, "custom": True, "type": "pulumi:providers:aws",
                                 "inputs": {"region": "us-east-1", "version": "6.63.0"}}
    data["steps"].insert(1, provider_step)
    data["changeSummary"]["create"] = 1
    doc = from_preview(_replace_bucket(data, f"{US_PROVIDER}::04da6b54-80e4-46f7-96ec-b56ff0331ba9"), "p.json")
    bucket = doc.by_name("docs")
    assert (bucket.provider, bucket.region, bucket.id) == (US_PROVIDER, "us-east-1", None)


def test_a_replacement_after_the_region_config_changed_is_placed_by_the_config():
    data = _replace_bucket(_load(UPDATE), next(s for s in _load(UPDATE)["steps"] if s["urn"] == BUCKET)["provider"])
    data["config"]["aws:region"] = "us-east-1"
    doc = from_preview(data, "p.json")
    assert doc.by_name("docs").region == "us-east-1"
    # a resource that stays keeps the outputs of its old state: the function's ARN places it
    assert next(r for r in doc.resources if r.type == "aws:lambda/function:Function").region == "eu-west-1"


# ---------------------------------------------------------------------- an export's pending operations


EXPORTS_BUCKET = "urn:pulumi:dev::sample::aws:s3/bucket:Bucket::exports"


def _pending(data: dict[str, Any], kind: str, state: dict[str, Any]) -> dict[str, Any]:
    """``data`` (the real export) with one pending operation, as an interrupted `pulumi up` leaves it
    (apitype.OperationV2: the resource's state, without the id and outputs it has not got yet, and
    the operation's type)."""
    data["deployment"]["pending_operations"] = [{"resource": state, "type": kind}]
    return data


def _bucket_state(data: dict[str, Any]) -> dict[str, Any]:
    return copy.deepcopy(next(r for r in data["deployment"]["resources"] if r["urn"] == BUCKET))


def test_a_resource_an_interrupted_create_may_have_made_is_judged(capsys, tmp_path: Path):
    data = _load(EXPORT)
    state = _bucket_state(data)
    for key in ("id", "outputs"):
        state.pop(key)
    state.update(urn=EXPORTS_BUCKET, inputs={"acl": "public-read", "bucket": "exports-123"})
    doc = from_export(_pending(data, "creating", state), "e.json")
    exports = doc.by_name("exports")
    assert (exports.inputs["acl"], exports.id, exports.region) == ("public-read", None, "eu-west-1")  # its provider's
    assert any("of interrupted operation(s) the stack does not record" in n for n in doc.notes)
    rc, found = _findings(capsys, tmp_path, doc, "pending")
    assert rc == 1 and ("GDPR-25.2-1", EXPORTS_BUCKET, "bucket ACL grants access to AllUsers or AuthenticatedUsers") in found


def test_an_interrupted_update_to_other_settings_is_undecided(capsys, tmp_path: Path):
    data = _load(EXPORT)
    state = _bucket_state(data)
    state["inputs"]["acl"] = "public-read"
    doc = from_export(_pending(data, "updating", state), "e.json")
    assert doc.by_name("docs").inputs["acl"] == "private"  # what the export records ...
    path = tmp_path / "doc.json"
    path.write_text(doc.dumps())
    capsys.readouterr()
    # ... but AWS may hold the update's settings: no decision on a document that cannot say which
    assert main(["check", str(path), "--policy", str(POLICY), "--format", "json"]) == 2
    assert "interrupted operation(s) (e.g. on docs) set inputs other than" in capsys.readouterr().err


def test_pending_operations_that_change_nothing_judged_decide_as_usual():
    data = _load(EXPORT)
    plain = from_export(_load(EXPORT), "e.json")
    for kind in ("updating", "deleting", "reading"):
        state = _bucket_state(data)
        if kind == "deleting":
            state["inputs"]["acl"] = "public-read"  # the state being deleted: the listed one is judged
        doc = from_export(_pending(copy.deepcopy(data), kind, state), "e.json")
        assert doc.resources == plain.resources and not any(n.startswith("partial:") for n in doc.notes), kind


@pytest.mark.parametrize(("operation", "message"), [
    ({"resource": {"urn": EXPORTS_BUCKET, "type": "aws:s3/bucket:Bucket"}, "type": "renaming"},
     r"pending_operations\[0\] \(urn:pulumi:dev::sample::aws:s3/bucket:Bucket::exports\): 'type': expected one of Pulumi's pending operation types"),
    ({"type": "creating"}, r"pending_operations\[0\]: 'resource': expected an object \(a resource state\), got null"),
    ("creating", r"pending_operations\[0\]: expected an object \(an operation\), got string"),
    ({"resource": {"urn": "x", "type": "aws:s3/bucket:Bucket"}, "type": "creating"},
     r"pending_operations\[0\]: 'resource.urn': expected a Pulumi URN string"),
])
def test_a_pending_operation_of_the_wrong_shape_is_a_clear_error(operation: Any, message: str):
    data = _load(EXPORT)
    data["deployment"]["pending_operations"] = [operation]
    with pytest.raises(IngestError, match=message):
        from_export(data, "e.json")


def test_a_preview_with_no_step_asks_for_show_sames(tmp_path) -> None:  # type: ignore[no-untyped-def]
    # Pulumi writes 'steps' with omitempty: an unchanged stack previewed without --show-sames gives a
    # file with a changeSummary and no steps (a verification found it refused as not a preview at all)
    from seedance.synth.ingest import IngestError, from_preview

    for steps in ({}, {"steps": []}):
        with pytest.raises(IngestError, match=r"p.json: the preview lists no step \(changeSummary \{\"same\": 16\}\): "
                           r"without --show-sames it shows only what changes; run `pulumi preview --json --show-sames`"):
            from_preview({"config": {"aws:region": "us-west-2"}, "changeSummary": {"same": 16}, **steps}, "p.json")
