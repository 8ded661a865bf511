"""Data stores of types no rule checks for encryption at rest, through the whole gate (every control in
one query, both engines): personal data is reported by GDPR and MLPS, internal data by MLPS only."""

from __future__ import annotations

import json
from pathlib import Path

from seedance.cli import main

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "tests" / "synth" / "samples" / "eu-prod.json"
POLICY = REPO / "stacks" / "policies" / "eu-prod.yaml"


def _resource(kind: str, name: str, tags: object) -> dict:
    return {"urn": f"urn:pulumi:eu-prod::seedance-gpu::{kind}::{name}", "type": kind, "name": name, "parent": None,
            "custom": True, "region": "eu-central-1", "inputs": {"tags": tags}}


def test_unchecked_stores_are_reported_by_each_framework(capsys, tmp_path: Path) -> None:
    doc = json.loads(SAMPLE.read_text())
    doc["resources"] += [
        _resource("aws:dynamodb/table:Table", "events", {"data-class": "personal"}),
        _resource("aws:dynamodb/table:Table", "features", {"data-class": "internal"}),
        _resource("aws-native:s3:Bucket", "native", [{"key": "data-class", "value": "personal"}]),
        _resource("aws:dynamodb/table:Table", "catalog", {"data-class": "public"}),
    ]
    path = tmp_path / "doc.json"
    path.write_text(json.dumps(doc))
    code = main(["check", str(path), "--policy", str(POLICY), "--format", "json", "--framework", "gdpr",
                 "--framework", "mlps-l3"])
    out = json.loads(capsys.readouterr().out)
    assert code == 1
    found = {(f["controlId"], f["resourceName"]) for f in out["findings"] if "no rule here checks" in f["message"]}
    assert found == {
        ("GDPR-32.1a-1", "events"), ("GDPR-32.1a-1", "native"),
        ("MLPS-L3-8.1.4.8b", "events"), ("MLPS-L3-8.1.4.8b", "features"), ("MLPS-L3-8.1.4.8b", "native"),
    }
