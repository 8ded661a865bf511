"""Safety net: where a rule still meets a preview placeholder ("[secret]", "[unknown]") in place of a
list or an object and the embedded engine stops, the gate ends undecided (exit 2) with a message that
says the document could not be evaluated, why, and which resource property holds the placeholder,
rather than the engine's raw type error alone."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from seedance.cli import main
from seedance.gate.engine import RegorusEngine, _placeholder_hint
from seedance.gate.errors import EngineError

_PROVIDER = "urn:pulumi:cn-prod::seedance-gpu::pulumi:providers:aws::aws"


def _config_map(data: object) -> dict:
    type_ = "kubernetes:core/v1:ConfigMap"
    return {"custom": True, "id": "cm-id", "inputs": {"metadata": {"name": "cm", "namespace": "team-a"}, "data": data},
            "name": "cm", "parent": None, "provider": None, "region": None, "type": type_,
            "urn": f"urn:pulumi:cn-prod::seedance-gpu::{type_}::cm"}


@pytest.mark.parametrize("placeholder, why", [("[secret]", "secret"), ("[unknown]", "known only after apply")])
def test_engine_error_on_a_placeholder_names_the_property(bundle, stack_input, placeholder: str, why: str) -> None:
    gi = stack_input("cn-prod").to_json()
    gi = {**gi, "document": {**gi["document"], "resources": [*gi["document"]["resources"], _config_map(placeholder)]}}
    with pytest.raises(EngineError) as err:
        RegorusEngine().evaluate(bundle, gi)
    msg = str(err.value)
    assert "the gate could not evaluate the document" in msg
    assert f"placeholder {placeholder} for a value {why}" in msg
    assert "resource 'cm' (kubernetes:core/v1:ConfigMap) inputs.data" in msg
    assert "cannot be decided" in msg


def test_hint_only_for_placeholders() -> None:
    assert _placeholder_hint("lib/x.rego:1:1: some other error", {"document": {"resources": []}}) == ""
    hint = _placeholder_hint('`object.get` expects object argument. Got `"[secret]"` instead', None)
    assert "the gate could not evaluate the document" in hint and "secret" in hint


def test_check_exits_2_with_the_clear_message(capsys, tmp_path: Path) -> None:
    doc_path = tmp_path / "cn-prod.json"
    assert main(["synth", "cn-prod", "--out", str(doc_path)]) == 0
    capsys.readouterr()
    doc = json.loads(doc_path.read_text())
    doc["resources"].append(_config_map("[secret]"))
    doc_path.write_text(json.dumps(doc))
    assert main(["check", str(doc_path)]) == 2
    out = capsys.readouterr()
    text = out.out + out.err
    assert "the gate could not evaluate the document" in text
    assert "resource 'cm' (kubernetes:core/v1:ConfigMap) inputs.data" in text


def test_the_likeliest_culprit_is_named_first() -> None:
    # a NetworkPolicy rule's port is unknown (rules read it as an object) among six log groups whose
    # retention is unknown too (a number, as the document's other log groups show): the port was buried
    # under "and 2 more" when every property whose name ends in s ranked first
    def res(type_: str, name: str, inputs: dict) -> dict:
        return {"type": type_, "name": name, "inputs": inputs}

    logs = [res("aws:cloudwatch/logGroup:LogGroup", f"lg{i}", {"retentionInDays": "[unknown]"}) for i in range(6)]
    known = res("aws:cloudwatch/logGroup:LogGroup", "kept", {"retentionInDays": 365})
    np = res("kubernetes:networking.k8s.io/v1:NetworkPolicy", "np",
             {"spec": {"ingress": [{"ports": ["[unknown]"]}]}})
    gate_input = {"document": {"resources": [*logs, known, np]}}
    hint = _placeholder_hint('`object.get` expects object argument. Got `"[unknown]"` instead', gate_input)
    named = hint.split("(held by ")[1]
    assert named.startswith("resource 'np' (kubernetes:networking.k8s.io/v1:NetworkPolicy) inputs.spec.ingress.0.ports.0")
    # where other resources of the type hold an object there, that comes first of all
    other = res("kubernetes:networking.k8s.io/v1:NetworkPolicy", "np2", {"spec": {"egress": [{"to": []}]}})
    spec = res("kubernetes:networking.k8s.io/v1:NetworkPolicy", "np3", {"spec": "[unknown]"})
    hint = _placeholder_hint('`object.get` expects object argument. Got `"[unknown]"` instead',
                             {"document": {"resources": [*logs, np, other, spec]}})
    assert hint.split("(held by ")[1].startswith("resource 'np3' (kubernetes:networking.k8s.io/v1:NetworkPolicy) inputs.spec")
