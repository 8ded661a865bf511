"""Red team: public access the gate used to pass. A synthesised stack that passes, with one resource
added, must be blocked: a role anyone may assume, a publicly accessible personal-data database, an
internet-facing load balancer in front of personal data, a KMS key policy open to everyone (MLPS).
Seedance's own roles (service principals, aws:SourceAccount conditions) are not reported."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from seedance.cli import main

_OIDC = "arn:aws:iam::111122223333:oidc-provider/oidc.eks.eu-central-1.amazonaws.com/id/ABCDEF0123456789"


def _res(stack: str, region: str, type_: str, name: str, inputs: dict) -> dict:
    return {"custom": True, "id": f"{name}-id", "inputs": inputs, "name": name, "parent": None,
            "provider": f"urn:pulumi:{stack}::seedance-gpu::pulumi:providers:aws::aws", "region": region,
            "type": type_, "urn": f"urn:pulumi:{stack}::seedance-gpu::{type_}::{name}"}


def _trust(statement: dict) -> str:
    return json.dumps({"Version": "2012-10-17", "Statement": [statement]})


def _personal_tags(doc: dict) -> dict:
    """The tags of the stack's personal-data bucket (data-class personal, purpose, controller...)."""
    bucket = next(r for r in doc["resources"] if r["type"] == "aws:s3/bucket:Bucket"
                  and r["inputs"].get("tags", {}).get("data-class") == "personal")
    return dict(bucket["inputs"]["tags"])


def _eu(doc: dict, name: str) -> list[dict]:
    r = lambda *a: _res("eu-prod", "eu-central-1", *a)  # noqa: E731
    tags = _personal_tags(doc)
    if name == "open-role":
        return [r("aws:iam/role:Role", name, {"assumeRolePolicy": _trust(
            {"Effect": "Allow", "Principal": {"AWS": "*"}, "Action": "sts:AssumeRole"})})]
    if name == "irsa-any":
        return [r("aws:iam/role:Role", name, {"assumeRolePolicy": _trust(
            {"Effect": "Allow", "Principal": {"Federated": _OIDC}, "Action": "sts:AssumeRoleWithWebIdentity"})})]
    if name == "users-db":
        return [r("aws:rds/instance:Instance", name, {
            "engine": "postgres", "instanceClass": "db.t4g.medium", "allocatedStorage": 20,
            "storageEncrypted": True, "kmsKeyId": "arn:aws:kms:eu-central-1:111122223333:key/k",
            "backupRetentionPeriod": 7, "publiclyAccessible": True, "tags": tags})]
    if name == "api-lb":
        return [r("aws:lb/loadBalancer:LoadBalancer", name, {
            "internal": False, "loadBalancerType": "application", "tags": tags,
            "subnets": ["subnet-0a1b2c3d4e5f60001", "subnet-0a1b2c3d4e5f60002"]})]
    raise AssertionError(name)


@pytest.fixture(scope="module")
def synthesised(tmp_path_factory) -> dict[str, dict]:
    out = tmp_path_factory.mktemp("stacks")
    docs = {}
    for stack in ("eu-prod", "cn-prod"):
        path = out / f"{stack}.json"
        assert main(["synth", stack, "--out", str(path)]) == 0
        docs[stack] = json.loads(path.read_text())
    return docs


def _check(capsys, path: Path, doc: dict) -> tuple[int, set[tuple[str, str]]]:
    capsys.readouterr()
    path.write_text(json.dumps(doc))
    code = main(["check", str(path), "-f", "json"])
    report = json.loads(capsys.readouterr().out)
    return code, {(f["controlId"], f["resourceName"]) for f in report["findings"] if f["severity"] == "mandatory"}


def test_the_synthesised_stacks_pass(capsys, tmp_path: Path, synthesised) -> None:
    for stack, doc in synthesised.items():
        code, found = _check(capsys, tmp_path / f"{stack}.json", doc)
        assert (code, found) == (0, set()), stack


@pytest.mark.parametrize(("name", "controls"), [
    ("open-role", {"GDPR-32.1b-1"}),
    ("irsa-any", {"GDPR-32.1b-1"}),
    ("users-db", {"GDPR-25.2-2"}),
    ("api-lb", {"GDPR-25.2-2"}),
])
def test_public_access_blocks_eu_prod(capsys, tmp_path: Path, synthesised, name: str, controls: set[str]) -> None:
    doc = json.loads(json.dumps(synthesised["eu-prod"]))
    doc["resources"] += _eu(doc, name)
    code, found = _check(capsys, tmp_path / "doc.json", doc)
    assert code == 1
    assert {(c, name) for c in controls} <= found
    assert {r for _, r in found} == {name}  # nothing else of the stack is reported


def test_public_access_blocks_cn_prod(capsys, tmp_path: Path, synthesised) -> None:
    doc = json.loads(json.dumps(synthesised["cn-prod"]))
    r = lambda *a: _res("cn-prod", "cn-north-1", *a)  # noqa: E731
    doc["resources"] += [
        r("aws:kms/key:Key", "open-key", {"enableKeyRotation": True, "deletionWindowInDays": 30, "policy": json.dumps(
            {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": "*", "Action": "kms:*", "Resource": "*"}]})}),
        r("aws:iam/role:Role", "open-role", {"assumeRolePolicy": _trust(
            {"Effect": "Allow", "Principal": "*", "Action": "sts:AssumeRole"})}),
        r("aws:rds/instance:Instance", "orders-db", {
            "engine": "mysql", "instanceClass": "db.t4g.medium", "publiclyAccessible": True,
            "storageEncrypted": True, "backupRetentionPeriod": 7}),
    ]
    code, found = _check(capsys, tmp_path / "doc.json", doc)
    assert code == 1
    assert {("MLPS-L3-8.1.4.2d", "open-key"), ("MLPS-L3-8.1.4.2d", "open-role"),
            ("MLPS-L3-8.1.3.1a", "orders-db")} <= found
