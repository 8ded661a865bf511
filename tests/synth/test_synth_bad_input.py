"""`seedance synth` on bad input: a clear error naming the file, the place and what was expected,
exit 1, never "internal error", and nothing half-written."""

from __future__ import annotations

import errno
import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from seedance.cli import main
from seedance.synth import ingest
from seedance.synth.document import SIG_KEY, ResourceDocument

REPO = Path(__file__).resolve().parents[2]
STACKS = REPO / "stacks"

STACK_URN = "urn:pulumi:dev::proj::pulumi:pulumi:Stack::proj-dev"
PROVIDER_URN = "urn:pulumi:dev::proj::pulumi:providers:aws::default"
BUCKET_URN = "urn:pulumi:dev::proj::aws:s3/bucket:Bucket::docs"


def preview() -> dict[str, Any]:
    """A small, valid `pulumi preview --json` document: the stack, a provider and a bucket."""
    return {
        "config": {"aws:region": "eu-west-1"},
        "steps": [
            {"op": "create", "urn": STACK_URN, "newState": {"urn": STACK_URN, "type": "pulumi:pulumi:Stack", "custom": False}},
            {"op": "create", "urn": PROVIDER_URN,
             "newState": {"urn": PROVIDER_URN, "type": "pulumi:providers:aws", "custom": True, "parent": STACK_URN,
                          "inputs": {"region": "eu-west-1"}}},
            {"op": "create", "urn": BUCKET_URN, "provider": f"{PROVIDER_URN}::04da6b54-80e4-46f7-96ec-b56ff0331ba9",
             "newState": {"urn": BUCKET_URN, "type": "aws:s3/bucket:Bucket", "custom": True, "parent": STACK_URN,
                          "inputs": {"bucket": "docs", "acl": "private"}, "outputs": {}}},
        ],
        "changeSummary": {"create": 3},
    }


def export() -> dict[str, Any]:
    """A small, valid `pulumi stack export` document."""
    return {
        "version": 3,
        "deployment": {
            "manifest": {"version": "v3.136.1"},
            "resources": [
                {"urn": STACK_URN, "type": "pulumi:pulumi:Stack", "custom": False},
                {"urn": PROVIDER_URN, "type": "pulumi:providers:aws", "custom": True, "id": "p-1", "parent": STACK_URN,
                 "inputs": {"region": "eu-west-1"}, "outputs": {"region": "eu-west-1"}},
                {"urn": BUCKET_URN, "type": "aws:s3/bucket:Bucket", "custom": True, "id": "docs", "parent": STACK_URN,
                 "provider": f"{PROVIDER_URN}::p-1", "inputs": {"bucket": "docs"}, "outputs": {"arn": "arn:aws:s3:::docs"}},
            ],
        },
    }


def run_synth(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    rc = main(["synth", *args])
    return rc, capsys.readouterr().err


def assert_clear_error(rc: int, err: str, *expected: str) -> None:
    assert rc == 1, err
    assert "internal error" not in err and "Traceback" not in err, err
    for text in expected:
        assert text in err, f"{text!r} not in {err!r}"


# ---------------------------------------------------------------------- 1. wrong-typed fields


def _set(path: list[Any], value: Any) -> Callable[[dict[str, Any]], None]:
    def mutate(doc: dict[str, Any]) -> None:
        target = doc
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return mutate


BUCKET_AT = f"steps[2] ({BUCKET_URN})"

PREVIEW_CASES = [
    ("inputs-list", _set(["steps", 2, "newState", "inputs"], [1, 2]), [BUCKET_AT, "'newState.inputs'", "expected an object", "got array [1, 2]"]),
    ("outputs-string", _set(["steps", 2, "newState", "outputs"], "x"), [BUCKET_AT, "'newState.outputs'", "expected an object"]),
    ("parent-int", _set(["steps", 2, "newState", "parent"], 5), [BUCKET_AT, "'newState.parent'", "URN", "got number 5"]),
    ("state-provider-int", _set(["steps", 2, "newState", "provider"], 7), [BUCKET_AT, "'newState.provider'", "expected a provider reference string"]),
    ("step-provider-int", _set(["steps", 2, "provider"], 7), [BUCKET_AT, "'provider'", "expected a provider reference string", "got number 7"]),
    ("config-list", _set(["config"], [1]), ["'config'", "expected an object", "got array [1]"]),
    ("delete-urn-dict", lambda d: d["steps"][2].update(op="delete", urn={"a": 1}),
     ["steps[2]", "'urn'", "expected a Pulumi URN string", 'got object {"a": 1}']),
    ("signature-list", _set(["steps", 2, "newState", "inputs", "x"], {SIG_KEY: ["unhashable"]}),
     [BUCKET_AT, f"'newState.inputs.x.{SIG_KEY}'", "expected a string", "got array"]),
    ("urn-int", _set(["steps", 2, "newState", "urn"], 123), [BUCKET_AT, "'newState.urn'", "expected a Pulumi URN string", "got number 123"]),
    ("urn-garbage", _set(["steps", 2, "newState", "urn"], "urn:pulumi:x"), [BUCKET_AT, "'newState.urn'", "expected a Pulumi URN string"]),
    ("type-null", _set(["steps", 2, "newState", "type"], None), [BUCKET_AT, "'newState.type'", "expected a type token string", "got null"]),
    ("custom-string", _set(["steps", 2, "newState", "custom"], "no"), [BUCKET_AT, "'newState.custom'", "expected true or false"]),
    ("new-state-list", _set(["steps", 2, "newState"], [1]), [BUCKET_AT, "'newState'", "expected an object"]),
    ("old-outputs-string", lambda d: (d["steps"][2]["newState"].pop("outputs"), d["steps"][2].update(oldState={"outputs": "x"})),
     [BUCKET_AT, "'oldState.outputs'", "expected an object"]),
    ("summary-same-string", _set(["changeSummary", "same"], "5"), ["'changeSummary.same'", "expected a count", 'got string "5"']),
    ("summary-list", _set(["changeSummary"], [3]), ["'changeSummary'", "expected an object"]),
]


def test_the_small_preview_and_export_are_valid(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    for name, data, option in (("p.json", preview(), "--from-preview"), ("e.json", export(), "--from-export")):
        src = tmp_path / name
        src.write_text(json.dumps(data))
        rc, err = run_synth(capsys, option, str(src), "--out", str(tmp_path / f"out-{name}"))
        assert rc == 0, err
        doc = ResourceDocument.load(tmp_path / f"out-{name}")
        assert [r.name for r in doc.resources] == ["default", "docs"]
        assert doc.by_name("docs").region == "eu-west-1" and doc.by_name("docs").parent is None


@pytest.mark.parametrize(("mutate", "expected"), [c[1:] for c in PREVIEW_CASES], ids=[c[0] for c in PREVIEW_CASES])
def test_wrong_typed_preview_field_is_a_located_error(
    mutate: Callable[[dict[str, Any]], Any], expected: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    data = preview()
    mutate(data)
    src = tmp_path / "bad.preview.json"
    src.write_text(json.dumps(data))
    out = tmp_path / "doc.json"
    rc, err = run_synth(capsys, "--from-preview", str(src), "--out", str(out))
    assert_clear_error(rc, err, f"error: {src}: ", *expected)
    assert "a resource without 'urn' and 'type'" not in err
    assert not out.exists()


EXPORT_AT = f"deployment.resources[2] ({BUCKET_URN})"

EXPORT_CASES = [
    ("inputs-string", _set(["deployment", "resources", 2, "inputs"], "s"), [EXPORT_AT, "'inputs'", "expected an object", 'got string "s"']),
    ("outputs-list", _set(["deployment", "resources", 2, "outputs"], [1]), [EXPORT_AT, "'outputs'", "expected an object"]),
    ("parent-list", _set(["deployment", "resources", 2, "parent"], [1]), [EXPORT_AT, "'parent'", "URN", "got array [1]"]),
    ("provider-int", _set(["deployment", "resources", 2, "provider"], 7), [EXPORT_AT, "'provider'", "got number 7"]),
    ("urn-int", _set(["deployment", "resources", 2, "urn"], 123), ["deployment.resources[2]", "'urn'", "expected a Pulumi URN string", "got number 123"]),
    ("type-null", _set(["deployment", "resources", 0, "type"], None), [f"deployment.resources[0] ({STACK_URN})", "'type'", "got null"]),
    ("resource-not-object", _set(["deployment", "resources", 1], 1), ["deployment.resources[1]", "expected an object", "got number 1"]),
    ("delete-string", _set(["deployment", "resources", 2, "delete"], "false"), [EXPORT_AT, "'delete'", "expected true or false"]),
    ("pending-int", _set(["deployment", "pending_operations"], 5), ["'deployment.pending_operations'", "expected an array", "got number 5"]),
    ("signature-list", _set(["deployment", "resources", 2, "outputs", "x"], {SIG_KEY: [1]}), [EXPORT_AT, f"'outputs.x.{SIG_KEY}'"]),
    ("version-true", _set(["version"], True), ["unsupported stack export version True"]),
]


@pytest.mark.parametrize(("mutate", "expected"), [c[1:] for c in EXPORT_CASES], ids=[c[0] for c in EXPORT_CASES])
def test_wrong_typed_export_field_is_a_located_error(
    mutate: Callable[[dict[str, Any]], Any], expected: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    data = export()
    mutate(data)
    src = tmp_path / "bad.export.json"
    src.write_text(json.dumps(data))
    rc, err = run_synth(capsys, "--from-export", str(src))
    assert_clear_error(rc, err, f"error: {src}: ", *expected)


def test_every_resource_deleted_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    data = export()
    for r in data["deployment"]["resources"]:
        r["delete"] = True
    src = tmp_path / "gone.json"
    src.write_text(json.dumps(data))
    rc, err = run_synth(capsys, "--from-export", str(src))
    assert_clear_error(rc, err, str(src), "pending deletion")


def test_an_unforeseen_shape_error_is_still_located(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch):
    def broken(_inputs: Any) -> Any:
        raise TypeError("unhashable type: 'list'")

    monkeypatch.setattr(ingest, "normalise_inputs", broken)
    src = tmp_path / "p.json"
    src.write_text(json.dumps(preview()))
    rc, err = run_synth(capsys, "--from-preview", str(src))
    assert_clear_error(rc, err, str(src), f"steps[1] ({PROVIDER_URN})", "unexpected content", "TypeError")


# ---------------------------------------------------------------------- 2. encodings


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be", "utf-32", "utf-8-sig", "utf-8"])
def test_utf16_and_bom_files_are_read(encoding: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    text = "Loading policy packs...\r\n" + json.dumps(preview(), indent=4).replace("\n", "\r\n")
    raw = text.encode(encoding)
    if encoding == "utf-16-be":  # what `Out-File -Encoding BigEndianUnicode` writes: a BOM, then big-endian
        raw = "\ufeff".encode("utf-16-be") + raw
    src = tmp_path / "ps.preview.json"
    src.write_bytes(raw)
    out = tmp_path / "doc.json"
    rc, err = run_synth(capsys, "--from-preview", str(src), "--out", str(out))
    assert rc == 0, err
    assert [r.name for r in ResourceDocument.load(out).resources] == ["default", "docs"]


def test_undecodable_bytes_are_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    src = tmp_path / "latin1.json"
    src.write_bytes(b'{"steps": [], "config": {"x": "caf\xe9"}}')
    rc, err = run_synth(capsys, "--from-preview", str(src))
    assert_clear_error(rc, err, str(src), "cannot decode as UTF-8", "byte-order mark")


# ---------------------------------------------------------------------- 3. --out is written whole or not at all


class _FullDisk:
    """A text file that takes half of what it is given, then fails as a full disk or `ulimit -f` does."""

    def __init__(self, fh: Any) -> None:
        self._fh = fh

    def write(self, text: str) -> int:
        self._fh.write(text[: len(text) // 2])
        self._fh.flush()
        raise OSError(errno.EFBIG, "File too large")

    def __enter__(self) -> _FullDisk:
        return self

    def __exit__(self, *exc: Any) -> None:
        self._fh.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._fh, name)


def test_failed_write_keeps_the_old_file(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch):
    src = tmp_path / "p.json"
    src.write_text(json.dumps(preview()))
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    out = out_dir / "doc.json"
    out.write_text("the previous good document\n")
    real_open = io.open

    def failing_open(file: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        fh = real_open(file, mode, *args, **kwargs)
        return _FullDisk(fh) if "w" in mode else fh

    monkeypatch.setattr(io, "open", failing_open)  # under Path.write_text and os.fdopen alike
    rc = main(["synth", "--from-preview", str(src), "--out", str(out)])
    monkeypatch.undo()
    err = capsys.readouterr().err
    assert_clear_error(rc, err, f"error --out {out}: cannot write: File too large")
    assert out.read_text() == "the previous good document\n"
    assert [p.name for p in out_dir.iterdir()] == ["doc.json"]  # no temporary file left behind


def test_a_missing_out_directory_is_an_error_not_made(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    src = tmp_path / "p.json"
    src.write_text(json.dumps(preview()))
    out = tmp_path / "no" / "such" / "doc.json"
    rc, err = run_synth(capsys, "--from-preview", str(src), "--out", str(out))
    assert_clear_error(rc, err, f"error --out {out}: cannot write: no directory {out.parent}")
    assert not (tmp_path / "no").exists()


def test_out_dash_is_stdout(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch):
    src = tmp_path / "p.json"
    src.write_text(json.dumps(preview()))
    monkeypatch.chdir(tmp_path)
    rc = main(["synth", "--from-preview", str(src), "--out", "-"])
    out, err = capsys.readouterr()
    assert rc == 0, err
    assert json.loads(out)["resources"]
    assert not (tmp_path / "-").exists()
    assert "->" not in err


def test_unwritable_out_directory_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    src = tmp_path / "p.json"
    src.write_text(json.dumps(preview()))
    blocker = tmp_path / "file"
    blocker.write_text("")
    rc, err = run_synth(capsys, "--from-preview", str(src), "--out", str(blocker / "doc.json"))
    assert_clear_error(rc, err, f"error --out {blocker / 'doc.json'}: cannot write:")


# ---------------------------------------------------------------------- 4. stack config


def example_project(tmp_path: Path, stack_yaml: str) -> Path:
    """A copy of the example project (its program and policies) with one stack, ``x``."""
    project = tmp_path / "stacks"
    project.mkdir()
    (project / "Pulumi.yaml").write_text((STACKS / "Pulumi.yaml").read_text())
    (project / "__main__.py").write_text((STACKS / "__main__.py").read_text())
    (project / "policies").symlink_to(STACKS / "policies")
    (project / "Pulumi.x.yaml").write_text(stack_yaml)
    return project


def test_missing_policy_config_names_the_stack_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    project = example_project(tmp_path, "config:\n  aws:region: us-east-1\n")
    rc, err = run_synth(capsys, "x", "--project-dir", str(project))
    assert_clear_error(rc, err, f"{project}/Pulumi.x.yaml: no seedance:policy config naming the cost policy")


@pytest.mark.parametrize("value", ["notalist", "5", '"[1, 2]"', "{a: b}", "rtb-1"])
def test_route_table_ids_of_the_wrong_shape(value: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    project = example_project(
        tmp_path, f"config:\n  aws:region: us-east-1\n  seedance:policy: policies/dev.yaml\n  seedance:routeTableIds: {value}\n"
    )
    rc, err = run_synth(capsys, "x", "--project-dir", str(project))
    assert_clear_error(rc, err, f"{project}/Pulumi.x.yaml: config seedance:routeTableIds: expected a list of route table ids")


def tiny_project(tmp_path: Path, program: str, stack_yaml: str, project_yaml: str = "") -> Path:
    project = tmp_path / "tiny"
    project.mkdir()
    (project / "Pulumi.yaml").write_text("name: tiny\nruntime: python\n" + project_yaml)
    (project / "__main__.py").write_text("import pulumi\n" + program)
    (project / "Pulumi.x.yaml").write_text(stack_yaml)
    return project


def test_config_of_the_wrong_type_names_the_file_and_key(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    project = tiny_project(tmp_path, 'pulumi.Config("app").get_int("size")\n', "config:\n  app:size: big\n")
    rc, err = run_synth(capsys, "x", "--project-dir", str(project))
    assert_clear_error(rc, err, f"{project}/Pulumi.x.yaml: config app:size: expected a whole number, got 'big'")


def test_config_of_the_wrong_type_from_the_project_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    project = tiny_project(tmp_path, 'pulumi.Config("tiny").get_object("sizes")\n', "config: {}\n",
                           "config:\n  sizes:\n    default: not json\n")
    rc, err = run_synth(capsys, "x", "--project-dir", str(project))
    assert_clear_error(rc, err, f"{project}/Pulumi.yaml: config tiny:sizes: expected a list or mapping")


def test_missing_and_secure_config(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    project = tiny_project(tmp_path, 'pulumi.Config("app").require("token")\n', "config:\n  app:other: 1\n")
    rc, err = run_synth(capsys, "x", "--project-dir", str(project))
    assert_clear_error(rc, err, f"{project}/Pulumi.x.yaml: no app:token config")
    (project / "Pulumi.x.yaml").write_text("config:\n  app:token:\n    secure: AAABAxyz\n")
    rc, err = run_synth(capsys, "x", "--project-dir", str(project))
    assert_clear_error(rc, err, f"{project}/Pulumi.x.yaml: config app:token is a secure (encrypted) value")


@pytest.mark.parametrize(
    ("stack_yaml", "expected"),
    [
        ("config: [1]\n", "'config': expected a mapping of config keys to values, got a list"),
        ("- a\n- b\n", "expected a mapping (with a 'config' mapping), got a list"),
        ("config:\n  1: x\n", "config key 1 is not a name"),
    ],
    ids=["config-list", "document-list", "key-int"],
)
def test_stack_file_of_the_wrong_shape(stack_yaml: str, expected: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    project = tiny_project(tmp_path, "", stack_yaml)
    rc, err = run_synth(capsys, "x", "--project-dir", str(project))
    assert_clear_error(rc, err, f"{project}/Pulumi.x.yaml: ", expected)


def test_an_instance_type_the_catalog_does_not_price_stops_the_program_at_its_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    # `validate` and `plan` refuse it; the planner leaves such a type out, so the program (synth, check,
    # pulumi up) went on without it until it ran the same checks
    project = example_project(tmp_path, "config:\n  aws:region: us-east-1\n  seedance:policy: x.yaml\n")
    (project / "x.yaml").write_text(
        "apiVersion: seedance.io/v1\nkind: CostPolicy\nextends: policies/dev.yaml\nfleets:\n"
        "  - name: batch-embed\n    instanceTypes: {allowed: [g4dn.xlarge, g4dn.4xlarge]}\n")
    rc, err = run_synth(capsys, "x", "--project-dir", str(project))
    assert_clear_error(rc, err, f"{project}/x.yaml:6:44: fleets[2].instanceTypes.allowed[1] (fleet 'batch-embed'): no "
                                "price for instance type 'g4dn.4xlarge' in us-east-1")
