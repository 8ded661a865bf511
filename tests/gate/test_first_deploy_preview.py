"""Red team: the stack previewed before its first deploy. A bucket's id is unknown until apply, so
every S3 configuration resource (public access block, encryption, versioning, lifecycle, policy,
logging, ...) holds ``"bucket": "[unknown]"``, tied to its bucket only by the input's property
dependencies (``pulumi preview --json`` of creates records them; the components pass
``bucket=bucket.id``). The gate matched configurations to buckets by value only, so every S3 control
failed on a stack whose synthesis passes.

The test builds that preview from the stack's synthesised document: each bucket's mock id goes, and
every input that held it or the bucket's ARN (exactly: a replication destination) holds "[unknown]"
instead, property dependencies kept. It must report no finding on S3 resources that synthesis does
not report; without the dependencies the buckets are reported as lacking their configuration (fail
closed). (A trail's data-event value ``ARN/`` is left shown: unknown, it could name an object prefix,
and the gate does not count it for the whole bucket.)"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from seedance.cli import main

REPO = Path(__file__).resolve().parents[2]
BUCKET_TYPES = {"aws:s3/bucket:Bucket", "aws:s3/bucketV2:BucketV2"}


def _hide(value, ids: set[str]):  # noqa: ANN001, ANN202
    if isinstance(value, str):
        return "[unknown]" if value in ids else value
    if isinstance(value, list):
        return [_hide(v, ids) for v in value]
    if isinstance(value, dict):
        return {k: _hide(v, ids) for k, v in value.items()}
    return value


def first_deploy(document: dict, keep_dependencies: bool = True) -> tuple[dict, int]:
    """The document as a first deploy's preview shows it, and how many inputs it hid."""
    doc = json.loads(json.dumps(document))
    ids = {r["id"] for r in doc["resources"] if r["type"] in BUCKET_TYPES and isinstance(r.get("id"), str)}
    ids |= {f"arn:{partition}:s3:::{i}" for i in ids for partition in ("aws", "aws-cn")}
    hidden = 0
    for r in doc["resources"]:
        if r["type"] in BUCKET_TYPES:
            r["id"] = None
            continue
        for key, value in list(r.get("inputs", {}).items()):
            new = _hide(value, ids)
            if new != value:
                hidden += 1
                r["inputs"][key] = new
                if not keep_dependencies:
                    (r.get("property_dependencies") or {}).pop(key, None)
    return doc, hidden


def _check(capsys, tmp_path: Path, document: dict, stack: str) -> list[dict]:  # noqa: ANN001
    path = tmp_path / "doc.json"
    path.write_text(json.dumps(document))
    capsys.readouterr()
    main(["check", str(path), "--policy", str(REPO / "stacks" / "policies" / f"{stack}.yaml"), "--format", "json"])
    return json.loads(capsys.readouterr().out)["findings"]


def _s3(findings: list[dict]) -> set[tuple[str, str, str]]:
    return {(f["controlId"], f["resourceName"], f["message"]) for f in findings if f["resourceType"].startswith("aws:s3")}


@pytest.mark.parametrize("stack", ["eu-prod", "cn-prod"])
def test_first_deploy_preview_reports_no_s3_finding_synthesis_does_not(capsys, tmp_path: Path, documents, stack: str) -> None:
    doc, hidden = first_deploy(documents[stack])
    assert hidden >= 10, "the stack's S3 configuration resources name their buckets by id"
    synthesised = _s3(_check(capsys, tmp_path, documents[stack], stack))
    previewed = _s3(_check(capsys, tmp_path, doc, stack))
    assert previewed - synthesised == set()


@pytest.mark.parametrize("stack", ["eu-prod", "cn-prod"])
def test_first_deploy_preview_without_dependencies_fails_closed(capsys, tmp_path: Path, documents, stack: str) -> None:
    doc, _ = first_deploy(documents[stack], keep_dependencies=False)
    findings = _check(capsys, tmp_path, doc, stack)
    untied = _s3(findings) - _s3(_check(capsys, tmp_path, documents[stack], stack))
    assert any(msg == "bucket has no public access block" for _, _, msg in untied), \
        "a configuration whose bucket is unknown and untied configures no bucket"
