"""End to end: a trail whose selectors skip most events does not pass the gate (red team, trail selectors).

An advanced selector with a filter the rules cannot follow (eventSource, eventName...) counts for
nothing, and a data resource with an object prefix does not cover the whole bucket."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from seedance.cli import main

REPO = Path(__file__).resolve().parents[2]
BUCKET = "storage-finetune-datasets-7813148"
SOURCES = ["iam.amazonaws.com", "sts.amazonaws.com", "ec2.amazonaws.com", "eks.amazonaws.com", "kms.amazonaws.com",
           "s3.amazonaws.com"]


def _check(capsys, tmp_path: Path, document: dict, stack: str, change) -> tuple[int, list[dict]]:  # noqa: ANN001
    doc = json.loads(json.dumps(document))
    trail = next(r for r in doc["resources"] if r["type"] == "aws:cloudtrail/trail:Trail")
    change(trail["inputs"])
    path = tmp_path / "doc.json"
    path.write_text(json.dumps(doc))
    capsys.readouterr()
    code = main(["check", str(path), "--policy", str(REPO / "stacks" / "policies" / f"{stack}.yaml"), "--format", "json"])
    return code, json.loads(capsys.readouterr().out)["findings"]


def _advanced(partition: str, mgmt_extra: list[dict], data_extra: list[dict]):  # noqa: ANN202
    def change(inputs: dict) -> None:
        inputs.pop("eventSelectors")
        inputs["advancedEventSelectors"] = [
            {"name": "mgmt", "fieldSelectors": [{"field": "eventCategory", "equals": ["Management"]}, *mgmt_extra]},
            {"name": "data", "fieldSelectors": [
                {"field": "eventCategory", "equals": ["Data"]}, {"field": "resources.type", "equals": ["AWS::S3::Object"]},
                {"field": "resources.ARN", "startsWith": [f"arn:{partition}:s3:::{BUCKET}/"]}, *data_extra]},
        ]
    return change


def _prefix(partition: str):  # noqa: ANN202
    def change(inputs: dict) -> None:
        inputs["eventSelectors"][0]["dataResources"][0]["values"] = [f"arn:{partition}:s3:::{BUCKET}/tmp/"]
    return change


def _messages(findings: list[dict], control: str) -> list[str]:
    return [f["message"] for f in findings if f["controlId"] == control]


def test_whole_bucket_advanced_selectors_pass(capsys, tmp_path: Path, documents) -> None:
    code, findings = _check(capsys, tmp_path, documents["eu-prod"], "eu-prod", _advanced("aws", [], []))
    assert code == 0, findings


@pytest.mark.parametrize(("stack", "partition", "control"), [("eu-prod", "aws", "GDPR-33-1"), ("cn-prod", "aws-cn", "MLPS-L3-8.1.4.3a")])
def test_filtered_management_selector_fails(capsys, tmp_path: Path, documents, stack: str, partition: str, control: str) -> None:
    change = _advanced(partition, [{"field": "eventSource", "notEquals": SOURCES}], [])
    code, findings = _check(capsys, tmp_path, documents[stack], stack, change)
    assert code == 1
    assert any("management events" in m and "its selector 'mgmt' filters on eventSource" in m for m in _messages(findings, control))


@pytest.mark.parametrize("extra", [
    {"field": "eventName", "equals": ["GetObject"]},
    {"field": "eventName", "notStartsWith": ["Put", "Delete", "Copy"]},
    {"field": "eventSource", "equals": ["nothing.amazonaws.com"]},
])
def test_filtered_data_selector_fails(capsys, tmp_path: Path, documents, extra: dict) -> None:
    code, findings = _check(capsys, tmp_path, documents["eu-prod"], "eu-prod", _advanced("aws", [], [extra]))
    assert code == 1
    assert any(f"its selector 'data' filters on {extra['field']}" in m for m in _messages(findings, "GDPR-33-1"))


def test_prefix_data_resource_fails(capsys, tmp_path: Path, documents) -> None:
    code, findings = _check(capsys, tmp_path, documents["eu-prod"], "eu-prod", _prefix("aws"))
    assert code == 1
    assert any(f"covers only the object prefix arn:aws:s3:::{BUCKET}/tmp/" in m for m in _messages(findings, "GDPR-33-1"))
