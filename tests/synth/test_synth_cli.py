"""`seedance synth` on every example stack, and its error messages."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from seedance.cli import main
from seedance.synth.document import ResourceDocument

REPO = Path(__file__).resolve().parents[2]
STACKS = REPO / "stacks"


@pytest.mark.parametrize("stack", ["eu-prod", "cn-prod", "dev"])
def test_synth_every_example_stack(stack: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    out = tmp_path / f"{stack}.json"
    assert main(["synth", stack, "--out", str(out), "--project-dir", str(STACKS)]) == 0
    doc = ResourceDocument.load(out)
    assert (doc.stack, doc.project, doc.source) == (stack, "seedance-gpu", "synth")
    counts = doc.type_counts()
    assert counts["pulumi:providers:aws"] == 1
    assert counts["seedance:audit:AuditBaseline"] == counts["seedance:budget:BudgetGuard"] == 1
    fleets = json.loads(out.read_text())["resources"]
    assert all(not isinstance(v, float) or not v.is_integer() for r in fleets for v in _numbers(r["inputs"]))
    home = {"eu-prod": "eu-central-1", "cn-prod": "cn-north-1", "dev": "us-east-1"}[stack]
    elsewhere = {r.name: r.region for r in doc.resources if r.type.startswith("aws:") and r.region != home}
    if stack == "cn-prod":  # MLPS off-site copies: the replica buckets, their key and the backups' copy vault,
        # pinned by their region input
        assert elsewhere and set(elsewhere.values()) == {"cn-northwest-1"}
        assert all("replica" in name for name in elsewhere if name != "backup-copy-vault")
        assert "backup-copy-vault" in elsewhere
    else:
        assert elsewhere == {}
    assert f"stack {stack}" in capsys.readouterr().err


def _numbers(value):
    if isinstance(value, dict):
        for v in value.values():
            yield from _numbers(v)
    elif isinstance(value, list):
        for v in value:
            yield from _numbers(v)
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        yield value


def test_synth_is_deterministic(tmp_path: Path):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    assert main(["synth", "dev", "--out", str(a), "--project-dir", str(STACKS)]) == 0
    assert main(["synth", "dev", "--out", str(b), "--project-dir", str(STACKS)]) == 0
    assert a.read_text() == b.read_text()


def test_dependency_lists_do_not_depend_on_registration_order(tmp_path: Path):
    # Pulumi hands a property's dependencies over in the order its program's sets iterate, which
    # changes from process to process (cn-prod's replication role policy did): they are sorted
    out = tmp_path / "d.json"
    assert main(["synth", "cn-prod", "--out", str(out), "--project-dir", str(STACKS)]) == 0
    lists = [urns for r in json.loads(out.read_text())["resources"] for urns in r.get("property_dependencies", {}).values()]
    assert any(len(urns) > 1 for urns in lists)
    assert all(urns == sorted(set(urns)) for urns in lists)


def test_committed_sample_is_the_current_eu_prod_document(tmp_path: Path):
    sample = REPO / "tests" / "synth" / "samples" / "eu-prod.json"
    doc = ResourceDocument.load(sample)
    assert (doc.stack, doc.source) == ("eu-prod", "synth")
    assert doc.by_name("llm-train-lt").type == "aws:ec2/launchTemplate:LaunchTemplate"
    fresh = tmp_path / "eu-prod.json"
    assert main(["synth", "eu-prod", "--out", str(fresh), "--project-dir", str(STACKS)]) == 0
    assert json.loads(fresh.read_text()) == json.loads(sample.read_text()), (
        "the gate tests read this sample: seedance synth eu-prod --out tests/synth/samples/eu-prod.json"
    )


def test_synth_errors(capsys: pytest.CaptureFixture[str], tmp_path: Path):
    assert main(["synth", "nope", "--project-dir", str(STACKS)]) == 1
    err = capsys.readouterr().err
    assert "unknown stack 'nope'" in err and "(stacks: cn-prod, dev, eu-prod)" in err
    assert main(["synth"]) == 2
    assert main(["synth", "dev", "--from-export", "x.json"]) == 2
    assert main(["synth", "dev", "--project-dir", str(tmp_path)]) == 1
    assert "no Pulumi project here" in capsys.readouterr().err


def test_region_mismatch_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    project = tmp_path / "stacks"
    project.mkdir()
    (project / "Pulumi.yaml").write_text((STACKS / "Pulumi.yaml").read_text())
    (project / "__main__.py").write_text((STACKS / "__main__.py").read_text())
    (project / "policies").symlink_to(STACKS / "policies")
    (project / "Pulumi.x.yaml").write_text("config:\n  aws:region: us-west-2\n  seedance:policy: policies/dev.yaml\n")
    assert main(["synth", "x", "--project-dir", str(project)]) == 1
    assert "aws:region is us-west-2 but policies/dev.yaml sets cloud.region us-east-1" in capsys.readouterr().err


@pytest.mark.parametrize(("content", "expected"), [
    # Pulumi's own reader refuses a key given twice; PyYAML alone would keep the last region
    (b"config:\n  aws:region: us-east-1\n  seedance:policy: policies/dev.yaml\n  aws:region: us-west-2\n",
     "Pulumi.x.yaml:4:3: key 'aws:region' is given twice (first on line 2); give each key once"),
    (b"config:\n  seedance:policy: policies/\xffdev.yaml\n", "Pulumi.x.yaml:2: not UTF-8 text (byte 0xff at offset 36)"),
    (b"config: " + b"[" * 5000 + b"]" * 5000 + b"\n", "Pulumi.x.yaml: nested too deeply to read"),
    (b"config:\n  a: [\n", "Pulumi.x.yaml:3:1: expected the node content, but found '<stream end>'"),
])
def test_unreadable_stack_config_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes,
                                             expected: str) -> None:
    project = tmp_path / "stacks"
    project.mkdir()
    (project / "Pulumi.yaml").write_text((STACKS / "Pulumi.yaml").read_text())
    (project / "Pulumi.x.yaml").write_bytes(content)
    assert main(["synth", "x", "--project-dir", str(project)]) == 1
    err = capsys.readouterr().err
    assert f"{project / expected}" in err.replace("\n", "")
    assert "internal error" not in err


def test_yaml_merge_keys_may_override_in_stack_config(tmp_path: Path) -> None:
    from seedance.synth.project import _read_yaml

    path = tmp_path / "c.yaml"
    path.write_text("base: &b {a: 1, b: 2}\nconfig:\n  <<: *b\n  a: 3\n")
    assert _read_yaml(path)["config"] == {"a": 3, "b": 2}


def test_preview_and_export_through_the_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    import os

    base = Path(os.environ.get("SEEDANCE_SHARED_DATA", REPO.parent / "shared" / "data")) / "fixtures"
    out = tmp_path / "p.json"
    assert main(["synth", "--from-preview", str(base / "pulumi-preview" / "stratify-aws-creates.preview.json"), "--out", str(out)]) == 0
    assert ResourceDocument.load(out).source == "preview"
    assert main(["synth", "--from-export", str(base / "pulumi-stack-export" / "stratify-aws.stack-export.json"), "--out", str(out)]) == 0
    assert ResourceDocument.load(out).source == "export"


def test_out_never_replaces_an_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The stack's policy, a base it extends, a demand history, the Pulumi files, or the preview being
    read: a usage error, nothing written (the document once replaced the stack's policy)."""
    import shutil

    project = tmp_path / "stacks"
    shutil.copytree(STACKS, project)
    before = {p: p.read_bytes() for p in project.rglob("*") if p.is_file()}
    targets = [("dev", project / "policies" / "dev.yaml"), ("dev", project / "policies" / "base.yaml"),
               ("dev", project / "Pulumi.dev.yaml"), ("eu-prod", project / "demand" / "training.csv")]
    for stack, target in targets:
        assert main(["synth", stack, "--project-dir", str(project), "--out", str(target)]) == 2, target
        assert "Invalid value for --out" in capsys.readouterr().err
    assert {p: p.read_bytes() for p in project.rglob("*") if p.is_file()} == before


def test_a_stack_name_with_a_dot_gives_names_aws_takes(tmp_path: Path):
    # Pulumi stack names may hold '.', KMS alias names may not
    import shutil

    project = tmp_path / "project"
    shutil.copytree(STACKS, project)
    (project / "Pulumi.dev.us-east.yaml").write_text((STACKS / "Pulumi.dev.yaml").read_text())
    out = tmp_path / "d.json"
    assert main(["synth", "dev.us-east", "--out", str(out), "--project-dir", str(project)]) == 0
    aliases = [r["inputs"]["name"] for r in json.loads(out.read_text())["resources"] if r["type"] == "aws:kms/alias:Alias"]
    assert aliases and all(re.fullmatch(r"alias/seedance-dev-us-east-[0-9a-f]{8}(-replica)?", a) for a in aliases), aliases
    # the stack dev-us-east (a valid name too, possibly in the same account) gets other aliases
    (project / "Pulumi.dev-us-east.yaml").write_text((STACKS / "Pulumi.dev.yaml").read_text())
    assert main(["synth", "dev-us-east", "--out", str(out), "--project-dir", str(project)]) == 0
    dashed = [r["inputs"]["name"] for r in json.loads(out.read_text())["resources"] if r["type"] == "aws:kms/alias:Alias"]
    assert dashed and not set(dashed) & set(aliases), (dashed, aliases)


def test_a_group_over_aws_s_tag_limit_stops_the_program_before_any_resource(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    # the policy's tags fit AWS's 50 on their own; on a cluster-joined fleet's group the Cluster
    # Autoscaler's come on top, and finding that at the fleet's group left the stack half made
    import shutil

    project = tmp_path / "project"
    shutil.copytree(STACKS, project)
    policy = project / "policies" / "eu-prod.yaml"
    extra = "".join(f"    t{i}: v\n" for i in range(35))  # with base.yaml's 3: the 38 validation allows
    policy.write_text(policy.read_text().replace("  owner: ml-platform@example.com\n", "  owner: ml-platform@example.com\n  tags:\n" + extra, 1))
    assert main(["validate", str(policy)]) == 0  # valid for a stack without a cluster, with a warning for one with
    out = " ".join(capsys.readouterr().out.split())
    assert f"warning {policy}:" in out and ": metadata.tags: a stack of this policy that joins a cluster" in out
    assert "fleets[llm-train]: its Auto Scaling group would carry" in out
    assert main(["synth", "eu-prod", "--out", str(tmp_path / "d.json"), "--project-dir", str(project)]) == 1
    err = capsys.readouterr().err
    assert "fleets[llm-train]: its Auto Scaling group would carry" in err and "drop " in err and "of metadata.tags" in err
    assert not (tmp_path / "d.json").exists()


def test_a_cluster_autoscaler_tag_key_too_long_stops_the_program_before_any_resource(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    # a taint key the policy takes (a 63-character name under a long prefix) makes a group tag key
    # longer than AWS's 128 characters once the autoscaler's prefix is put before it
    import shutil

    project = tmp_path / "project"
    shutil.copytree(STACKS, project)
    policy = project / "policies" / "eu-prod.yaml"
    key = "a" * 40 + ".example.com/" + "k" * 63
    text = policy.read_text()
    assert "\n  - name: eval\n" in text
    policy.write_text(text.replace("\n  - name: eval\n", f"\n  - name: eval\n    taints: [{{key: {key}, value: x}}]\n", 1))
    assert main(["validate", str(policy)]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "(fleet 'eval'): a stack of this policy that joins a cluster" in out and "is longer than AWS takes" in out
    assert main(["synth", "eu-prod", "--out", str(tmp_path / "d.json"), "--project-dir", str(project)]) == 1
    err = capsys.readouterr().err
    assert "fleets[eval]: the Cluster Autoscaler tag" in err and "is longer than AWS takes" in err


def test_a_second_stack_of_the_project_in_the_same_cluster_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    # the Kubernetes objects are named per cluster: a second stack's would collide with the first's
    import shutil

    project = tmp_path / "project"
    shutil.copytree(STACKS, project)
    staging = project / "Pulumi.eu-staging.yaml"
    staging.write_text((STACKS / "Pulumi.eu-prod.yaml").read_text())
    for stack, other in (("eu-prod", "eu-staging"), ("eu-staging", "eu-prod")):
        assert main(["synth", stack, "--out", str(tmp_path / "d.json"), "--project-dir", str(project)]) == 1
        err = " ".join(capsys.readouterr().err.split())
        assert f"stacks {other} and {stack} of this project both join cluster gpu-eu-prod in eu-central-1" in err
    # another cluster, or none, is fine; so is the same cluster name in another region
    for changed in ("seedance:clusterName: gpu-eu-staging", "# no cluster"):
        staging.write_text(re.sub(r"seedance:clusterName: \S+", changed, (STACKS / "Pulumi.eu-prod.yaml").read_text()))
        assert main(["synth", "eu-prod", "--out", str(tmp_path / "d.json"), "--project-dir", str(project)]) == 0
    staging.write_text((STACKS / "Pulumi.eu-prod.yaml").read_text().replace("aws:region: eu-central-1",
                                                                            "aws:region: eu-west-1"))
    assert main(["synth", "eu-prod", "--out", str(tmp_path / "d.json"), "--project-dir", str(project)]) == 0
