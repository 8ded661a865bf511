"""--from-preview / --from-export on every real sample in the shared fixtures folder."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from seedance.synth.document import SECRET, UNKNOWN, ResourceDocument
from seedance.synth.ingest import IngestError, from_export, from_preview, load_export, load_preview



def fixtures_dir() -> Path:
    env = os.environ.get("SEEDANCE_SHARED_DATA")
    base = Path(env) if env else Path(__file__).resolve().parents[2].parent / "shared" / "data"
    return base / "fixtures"


PREVIEWS = sorted((fixtures_dir() / "pulumi-preview").glob("*.json"))
EXPORTS = sorted((fixtures_dir() / "pulumi-stack-export").glob("*.json"))


def test_the_fixture_folder_is_there():
    assert len(PREVIEWS) == 4 and len(EXPORTS) == 1


def preview_of(steps: list[dict], **fields: object) -> dict:
    """A preview that ran to its end: Pulumi's JSON display sets ``changeSummary`` (counts by op) from
    the engine's summary event, as every real preview of the shared fixtures has it."""
    counts: dict[str, int] = {}
    for step in steps:
        counts[step["op"]] = counts.get(step["op"], 0) + 1
    return {"steps": steps, "changeSummary": counts, **fields}


def check_shape(doc: ResourceDocument, source: str) -> None:
    again = ResourceDocument.model_validate_json(doc.dumps())  # round-trips through JSON
    assert again == doc
    assert doc.source == source and doc.api_version == "seedance.io/v1" and doc.kind == "ResourceDocument"
    urns = {r.urn for r in doc.resources}
    assert len(urns) == len(doc.resources)
    for r in doc.resources:
        assert r.type != "pulumi:pulumi:Stack"
        assert r.urn.startswith(f"urn:pulumi:{doc.stack}::{doc.project}::") and r.urn.endswith(f"::{r.name}")
        assert r.parent is None or r.parent.startswith("urn:pulumi:")
        assert "__defaults" not in json.dumps(r.inputs)
        assert "4dabf18193072939515e22adb298388d" not in json.dumps(r.inputs)


@pytest.mark.parametrize("path", PREVIEWS, ids=lambda p: p.name)
def test_every_preview_sample(path: Path):
    check_shape(load_preview(path), "preview")


@pytest.mark.parametrize("path", EXPORTS, ids=lambda p: p.name)
def test_every_export_sample(path: Path):
    check_shape(load_export(path), "export")


def by_name(doc: ResourceDocument) -> dict:
    return {r.name if r.type != "aws:iam/rolePolicyAttachment:RolePolicyAttachment" else r.urn: r for r in doc.resources}


def test_creates_preview():
    doc = load_preview(fixtures_dir() / "pulumi-preview" / "stratify-aws-creates.preview.json")
    # 16 create steps, one of them the stack itself, and the default provider they name (no step of its
    # own in a preview), as the export of the same stack lists it
    assert (doc.stack, doc.project, len(doc.resources)) == ("dev", "sample", 16)
    (provider,) = [r for r in doc.resources if r.type == "pulumi:providers:aws"]
    assert (provider.name, provider.inputs, provider.id) == ("default_6_63_0", {}, None)  # no aws: config; created
    bucket = doc.by_name("docs")
    assert bucket.inputs == {"acl": "private", "bucket": "docs-32c8f2c", "forceDestroy": False}
    assert bucket.parent is None
    assert bucket.provider == "urn:pulumi:dev::sample::pulumi:providers:aws::default_6_63_0"
    sub = [r for r in doc.resources if r.type == "aws:s3:BucketEventSubscription"]
    assert len(sub) == 1 and sub[0].custom is False and sub[0].parent == bucket.urn
    fn = next(r for r in doc.resources if r.type == "aws:lambda/function:Function")
    assert fn.inputs["code"]["$kind"] == "archive"
    assert fn.inputs["code"]["assets"]["__index.js"]["$kind"] == "asset"
    # values only known after apply (the role's ARN) are the unknown marker
    assert fn.inputs["role"] == UNKNOWN
    assert fn.region is None  # nothing in a create-only preview names the region
    assert all(r.id is None for r in doc.resources)  # nothing exists yet: no ids


def test_update_preview_with_sames():
    doc = load_preview(fixtures_dir() / "pulumi-preview" / "stratify-aws-update-show-sames.preview.json")
    # complete, and every resource placed (the provider's region is the one its resources' ARNs name)
    assert len(doc.resources) == 16 and doc.notes == []
    fn = next(r for r in doc.resources if r.type == "aws:lambda/function:Function")
    assert "console.log" in fn.inputs["code"]["assets"]["__index.js"]["text"]  # the new code, not the old
    assert fn.region == "eu-west-1"  # from the old state's ARN
    # a resource that exists keeps its id, which the new state of a preview step leaves out
    assert doc.by_name("docs").id == "docs-4936161"  # same
    assert fn.id == "docsHandler-c29f9fc"  # update
    assert ResourceDocument.model_validate_json(doc.dumps()).by_name("docs").id == "docs-4936161"


def test_deletes_preview_keeps_only_the_survivors():
    doc = load_preview(fixtures_dir() / "pulumi-preview" / "stratify-aws-deletes-show-sames.preview.json")
    # 14 deletes and 2 sames (one is the stack): one resource remains desired, and its default provider
    assert sorted(r.type for r in doc.resources) == ["aws:s3/bucket:Bucket", "pulumi:providers:aws"]


def test_2019_preview():
    doc = load_preview(fixtures_dir() / "pulumi-preview" / "pitfall-aws-s3-update-2019.preview.json")
    bucket, = doc.of_type("aws:s3/bucket:Bucket")
    # the default provider the update names, with its package's config (aws:region)
    (provider,) = [r for r in doc.resources if r.type == "pulumi:providers:aws"]
    assert (provider.name, provider.inputs, provider.region) == ("default_1_2_1", {"region": "us-west-2"}, "us-west-2")
    assert bucket.inputs["tags"]["Customer"] == SECRET
    assert bucket.inputs["tags"]["BillingProject"] == "testing"  # the new value
    assert "__defaults" not in bucket.inputs["tags"]
    assert bucket.region == "us-west-2"  # the preview's aws:region config


def test_export():
    doc = load_export(fixtures_dir() / "pulumi-stack-export" / "stratify-aws.stack-export.json")
    assert (doc.stack, doc.project, len(doc.resources)) == ("dev", "sample", 16)
    (provider,) = [r for r in doc.resources if r.type == "pulumi:providers:aws"]
    assert provider.inputs == {"skipCredentialsValidation": "false", "skipRegionValidation": "true", "version": "6.63.0"}
    assert provider.region == "eu-west-1"  # the one region its resources report
    bucket = doc.by_name("docs")
    assert bucket.parent is None and bucket.region == "eu-west-1"
    assert bucket.id == "docs-4936161"
    role = next(r for r in doc.resources if r.type == "aws:iam/role:Role")
    assert role.inputs["maxSessionDuration"] == 3600 and isinstance(role.inputs["maxSessionDuration"], int)


def test_noise_before_the_json(tmp_path: Path):
    src = fixtures_dir() / "pulumi-preview" / "pitfall-aws-s3-update-2019.preview.json"
    noisy = tmp_path / "noisy.json"
    noisy.write_text("Loading policy packs...\nPolicy pack 'x' passed\n" + src.read_text())
    assert len(load_preview(noisy).of_type("aws:s3/bucket:Bucket")) == 1


def test_wrong_inputs_say_what_was_expected(tmp_path: Path):
    with pytest.raises(IngestError, match="use --from-export"):
        from_preview({"version": 3, "deployment": {"resources": []}}, "f.json")
    with pytest.raises(IngestError, match="use --from-preview"):
        from_export({"steps": []}, "f.json")
    with pytest.raises(IngestError, match=r"unsupported stack export version 9"):
        from_export({"version": 9, "deployment": {"resources": []}}, "f.json")
    with pytest.raises(IngestError, match=r"steps\[0\]: expected an object with an 'op'"):
        from_preview({"steps": [{"urn": "x"}]}, "f.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(IngestError, match=r"bad.json: not valid JSON .*; expected `pulumi preview --json` output"):
        load_preview(bad)


def test_partial_preview_is_noted():
    steps = [{"op": "create", "urn": "urn:pulumi:s::p::aws:s3/bucket:Bucket::b",
              "newState": {"urn": "urn:pulumi:s::p::aws:s3/bucket:Bucket::b", "type": "aws:s3/bucket:Bucket", "custom": True, "inputs": {}}}]
    doc = from_preview({"steps": steps, "changeSummary": {"create": 1, "same": 3}})
    assert doc.notes and doc.notes[0].startswith("partial: the change summary counts 3 unchanged")


def _replacement_steps(order: str) -> list[dict]:
    urn = "urn:pulumi:s::p::aws:ebs/volume:Volume::data"
    old = {"urn": urn, "type": "aws:ebs/volume:Volume", "custom": True, "id": "vol-1", "inputs": {"encrypted": True}}
    new = {"urn": urn, "type": "aws:ebs/volume:Volume", "custom": True, "inputs": {"encrypted": False}}
    create = {"op": "create-replacement", "urn": urn, "oldState": old, "newState": new}
    replace = {"op": "replace", "urn": urn, "oldState": old, "newState": new}
    retire = {"op": "delete-replaced", "urn": urn, "oldState": old}
    other = {"op": "same", "urn": "urn:pulumi:s::p::aws:s3/bucket:Bucket::b",
             "newState": {"urn": "urn:pulumi:s::p::aws:s3/bucket:Bucket::b", "type": "aws:s3/bucket:Bucket", "custom": True, "inputs": {}}}
    steps = {"create-before-delete": [create, replace, retire], "delete-before-replace": [retire, replace, create]}[order]
    return [other, *steps]


@pytest.mark.parametrize("order", ["create-before-delete", "delete-before-replace"])
def test_a_replaced_resource_stays_desired_whatever_the_order_of_its_steps(order: str):
    # `pulumi preview --json --show-replacement-steps`: the step that deletes the old copy carries the
    # replacement's URN; the replacement (with its new inputs) is what will exist
    doc = from_preview(preview_of(_replacement_steps(order)))
    volume = doc.by_name("data")
    assert volume.inputs == {"encrypted": False} and volume.id is None
    assert len(doc.resources) == 2
    for retiring in ("discard-replaced", "remove-pending-replace"):
        steps = [dict(s, op=retiring) if s["op"] == "delete-replaced" else s for s in _replacement_steps(order)]
        assert from_preview(preview_of(steps)).by_name("data").inputs == {"encrypted": False}


def test_a_deleted_resource_is_not_desired():
    steps = _replacement_steps("create-before-delete")
    steps.append({"op": "delete", "urn": steps[1]["urn"], "oldState": steps[1]["oldState"]})
    assert [r.name for r in from_preview(preview_of(steps)).resources] == ["b"]


def _volume_on(provider: dict | None, config: dict | None = None, own: dict | None = None) -> ResourceDocument:
    steps = []
    ref = None
    if provider is not None:
        purn = "urn:pulumi:s::p::pulumi:providers:aws::" + provider.pop("name", "us")
        steps.append({"op": "same", "urn": purn, "newState": {"urn": purn, "type": "pulumi:providers:aws", "custom": True,
                                                             "id": "1", "inputs": provider}})
        ref = f"{purn}::1"
    vurn = "urn:pulumi:s::p::aws:ebs/volume:Volume::data"
    steps.append({"op": "create", "urn": vurn, "provider": ref,
                  "newState": {"urn": vurn, "type": "aws:ebs/volume:Volume", "custom": True, "inputs": own or {}}})
    return from_preview(preview_of(steps, config=config or {}))


SECRET_VALUE = {"4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", "ciphertext": "v1:abc"}


def test_a_region_the_file_does_not_show_is_not_replaced_by_another():
    # the provider's own region wins over the stack's aws:region config
    assert _volume_on({"region": "us-east-1"}, {"aws:region": "eu-central-1"}).by_name("data").region == "us-east-1"
    # a secret or unknown provider region is not the config's: where the volume goes is not shown
    assert _volume_on({"region": SECRET_VALUE}, {"aws:region": "eu-central-1"}).by_name("data").region == SECRET
    unknown = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"
    assert _volume_on({"region": unknown}, {"aws:region": "eu-central-1"}).by_name("data").region == UNKNOWN
    # an explicit provider without a region takes it from its environment, not from aws:region
    assert _volume_on({}, {"aws:region": "eu-central-1"}).by_name("data").region == UNKNOWN
    # a provider of the user's named like the default one is still explicit
    assert _volume_on({"name": "default-eu"}, {"aws:region": "eu-central-1"}).by_name("data").region == UNKNOWN
    # the default provider does take aws:region, and a secret one is not shown either
    assert _volume_on({"name": "default_6_63_0"}, {"aws:region": "eu-central-1"}).by_name("data").region == "eu-central-1"
    assert _volume_on(None, {"aws:region": "[secret]"}).by_name("data").region == SECRET
    # the resource's own region, even a secret one, comes first
    assert _volume_on({"region": "eu-west-1"}, own={"region": SECRET_VALUE}).by_name("data").region == SECRET


def test_resources_without_any_region_are_noted():
    doc = _volume_on(None)
    assert doc.by_name("data").region is None
    assert len(doc.notes) == 1 and doc.notes[0].startswith("1 AWS resource(s) (e.g. data) name no region")
    assert _volume_on(None, {"aws:region": "eu-west-1"}).notes == []


def test_resources_the_program_only_reads_are_left_out():
    # Resource.get: a 'read' step in a preview, an 'external' resource in an export; their inputs are
    # only get()'s arguments, so no rule can judge them, and they are not the stack's
    lt = "urn:pulumi:s::p::aws:ec2/launchTemplate:LaunchTemplate::shared-lt"
    asg = "urn:pulumi:s::p::aws:autoscaling/group:Group::nodes"
    read = {"urn": lt, "type": "aws:ec2/launchTemplate:LaunchTemplate", "custom": True, "id": "lt-0fedcba9876543210",
            "external": True, "inputs": {}}
    group = {"urn": asg, "type": "aws:autoscaling/group:Group", "custom": True, "inputs": {"launchTemplate": {"id": "lt-0fedcba9876543210"}}}
    preview = from_preview(preview_of([{"op": "read", "urn": lt, "newState": read},
                                        {"op": "create", "urn": asg, "newState": group}]))
    assert [r.name for r in preview.resources] == ["nodes"]
    assert any("only reads (e.g. shared-lt" in n for n in preview.notes)
    export = from_export({"version": 3, "deployment": {"resources": [read, group]}})
    assert [r.name for r in export.resources] == ["nodes"]


def test_a_launch_template_named_by_its_provider_keeps_the_name_its_outputs_show():
    # namePrefix: the AWS name is only in the outputs, and groups name the template by it
    lt = "urn:pulumi:s::p::aws:ec2/launchTemplate:LaunchTemplate::gpu-nodes"
    state = {"urn": lt, "type": "aws:ec2/launchTemplate:LaunchTemplate", "custom": True, "id": "lt-1",
             "inputs": {"namePrefix": "gpu-nodes-"}, "outputs": {"name": "gpu-nodes-20261130100000000000000001"}}
    doc = from_export({"version": 3, "deployment": {"resources": [state]}})
    assert doc.by_name("gpu-nodes").inputs["name"] == "gpu-nodes-20261130100000000000000001"


def test_aws_native_resources_are_placed_like_aws_ones():
    purn = "urn:pulumi:s::p::pulumi:providers:aws-native::us"
    burn = "urn:pulumi:s::p::aws-native:s3:Bucket::pd"
    steps = [{"op": "same", "urn": purn, "newState": {"urn": purn, "type": "pulumi:providers:aws-native", "custom": True,
                                                     "id": "1", "inputs": {"region": "us-east-1"}}},
             {"op": "create", "urn": burn, "provider": f"{purn}::1",
              "newState": {"urn": burn, "type": "aws-native:s3:Bucket", "custom": True, "inputs": {}}}]
    assert from_preview(preview_of(steps)).by_name("pd").region == "us-east-1"
