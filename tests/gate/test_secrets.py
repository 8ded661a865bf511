"""Red team: the gate fails closed on secrets. Pulumi's secret marker ("[secret]" in a converted
preview) hides a value from the gate exactly like "[unknown]", so it is judged as the worst value
it could hold: a cn-prod document that passes, with secret values added, must be blocked."""

from __future__ import annotations

import json
from pathlib import Path

from seedance.cli import main

_PROVIDER = "urn:pulumi:cn-prod::seedance-gpu::pulumi:providers:aws::aws"


def _res(type_: str, name: str, inputs: dict) -> dict:
    return {"custom": True, "id": f"{name}-id", "inputs": inputs, "name": name, "parent": None,
            "provider": _PROVIDER, "region": "cn-north-1", "type": type_,
            "urn": f"urn:pulumi:cn-prod::seedance-gpu::{type_}::{name}"}


def _check(capsys, path: Path) -> tuple[int, dict]:
    code = main(["check", str(path), "-f", "json"])
    return code, json.loads(capsys.readouterr().out)


def test_secret_values_are_blocked_like_unknown_ones(capsys, tmp_path: Path) -> None:
    doc_path = tmp_path / "cn-prod.json"
    assert main(["synth", "cn-prod", "--out", str(doc_path)]) == 0
    capsys.readouterr()
    code, report = _check(capsys, doc_path)
    assert code == 0, report["findings"]

    doc = json.loads(doc_path.read_text())
    sg = next(r["id"] for r in doc["resources"] if r["type"] == "aws:ec2/securityGroup:SecurityGroup")
    lt = next(r for r in doc["resources"] if r["type"] == "aws:ec2/launchTemplate:LaunchTemplate")
    lt["inputs"]["networkInterfaces"][0]["associatePublicIpAddress"] = "[secret]"
    doc["resources"] += [
        _res("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule", "ssh-secret",
             {"securityGroupId": sg, "ipProtocol": "tcp", "fromPort": 22, "toPort": 22, "cidrIpv4": "[secret]"}),
        _res("aws:lambda/function:Function", "fn-secret",
             {"role": "arn:aws-cn:iam::444455556666:role/x", "runtime": "python3.12", "handler": "h",
              "environment": {"variables": "[secret]"}}),
        _res("aws:iam/policy:Policy", "policy-secret", {"policy": "[secret]"}),
    ]
    secret_path = tmp_path / "secret.json"
    secret_path.write_text(json.dumps(doc))
    code, report = _check(capsys, secret_path)
    assert code == 1
    found = {(f["controlId"], f["resourceName"]) for f in report["findings"] if f["severity"] == "mandatory"}
    assert {
        ("MLPS-L3-8.1.3.2a", "ssh-secret"),
        ("MLPS-L3-8.1.4.1", "ssh-secret"),
        ("MLPS-L3-8.1.4.4ab", "ssh-secret"),
        ("MLPS-L3-8.1.3.1a", lt["name"]),
        ("MLPS-L3-8.1.4.8b", "fn-secret"),
        ("MLPS-L3-8.1.4.2d", "policy-secret"),
    } <= found
    messages = {f["message"] for f in report["findings"] if f["resourceName"] == "ssh-secret"}
    assert any("a CIDR the document does not show (secret)" in m for m in messages)


def test_secret_documents_arns_acls_protocols_and_switches_are_blocked(capsys, tmp_path: Path) -> None:
    """Red team, second round: secret resource-policy documents, managed-policy ARNs, bucket ACLs,
    an instance's public-IP flag, a rule protocol and a trail switch read as the worst they could
    hold, through `seedance check` (exit 1), each with a message that says secret."""
    doc_path = tmp_path / "cn-prod.json"
    assert main(["synth", "cn-prod", "--out", str(doc_path)]) == 0
    capsys.readouterr()
    doc = json.loads(doc_path.read_text())
    bucket = next(r for r in doc["resources"] if r["type"] == "aws:s3/bucket:Bucket"
                  and r["inputs"].get("tags", {}).get("data-class") == "personal")
    sg = next(r["id"] for r in doc["resources"] if r["type"] == "aws:ec2/securityGroup:SecurityGroup")
    trail = next(r for r in doc["resources"] if r["type"] == "aws:cloudtrail/trail:Trail")
    trail["inputs"]["enableLogging"] = "[secret]"
    tags = dict(bucket["inputs"]["tags"])
    doc["resources"] += [
        _res("aws:s3/bucketPolicy:BucketPolicy", "policy-secret", {"bucket": bucket["id"], "policy": "[secret]"}),
        _res("aws:s3/bucketAcl:BucketAcl", "acl-secret", {"bucket": bucket["id"], "acl": "[secret]"}),
        _res("aws:iam/rolePolicyAttachment:RolePolicyAttachment", "attach-secret", {"policyArn": "[secret]", "role": "ops"}),
        _res("aws:ec2/instance:Instance", "vm-secret",
             {"ami": "ami-0123456789abcdef0", "instanceType": "m5.large", "associatePublicIpAddress": "[secret]",
              "metadataOptions": {"httpTokens": "required"}, "tags": tags}),
        _res("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule", "https-secret",
             {"securityGroupId": sg, "ipProtocol": "[secret]", "fromPort": 443, "toPort": 443, "cidrIpv4": "0.0.0.0/0"}),
    ]
    secret_path = tmp_path / "secret.json"
    secret_path.write_text(json.dumps(doc))
    code, report = _check(capsys, secret_path)
    assert code == 1
    mandatory = [f for f in report["findings"] if f["severity"] == "mandatory"]
    found = {(f["controlId"], f["resourceName"]) for f in mandatory}
    assert {
        ("MLPS-L3-8.1.4.11", bucket["name"]),
        ("MLPS-L3-8.1.4.2d", "attach-secret"),
        ("MLPS-L3-8.1.3.1a", "vm-secret"),
        ("MLPS-L3-8.1.3.2a", "https-secret"),
        ("MLPS-L3-8.1.4.4ab", "https-secret"),
    } <= found, sorted(found)
    assert "MLPS-L3-8.1.4.3a" in {c for c, _ in found}
    messages = {f["message"] for f in mandatory}
    assert "bucket policy is secret, so public access cannot be ruled out" in messages
    assert "bucket ACL is secret, so public access cannot be ruled out" in messages
    assert any("whose ARN is secret" in m for m in messages)
    assert any("its protocol is secret" in m for m in messages)
    assert any("its enableLogging is secret" in m for m in messages)
