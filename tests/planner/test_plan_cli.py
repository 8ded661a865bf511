"""`seedance plan` in-process (click's runner)."""

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from seedance.cli import app, main

REPO = Path(__file__).resolve().parents[2]
STACKS = REPO / "stacks" / "policies"
HISTORY = Path(__file__).resolve().parent / "policies" / "eu-history.yaml"


def _invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args), standalone_mode=False, catch_exceptions=False)
    return result.return_value, result.output


@pytest.mark.parametrize("stack", ["eu-prod", "cn-prod", "dev"])
def test_text_table(stack):
    code, out = _invoke("plan", str(STACKS / f"{stack}.yaml"))
    assert code == 0
    assert out.startswith("Plan: gpu-platform-")
    for fleet in ("inference", "batch-embed", "finetune"):
        assert fleet in out
    assert "Fleet compute" in out and "all on-demand" in out


def test_json_and_out_file(tmp_path):
    target = tmp_path / "plan.json"
    code, out = _invoke("plan", str(STACKS / "dev.yaml"), "--format", "json", "--out", str(target))
    assert code == 0
    doc = json.loads(out)
    assert doc == json.loads(target.read_text())
    assert doc["region"] == "us-east-1" and doc["currency"] == "USD"
    inf = next(f for f in doc["fleets"] if f["name"] == "inference")
    assert inf["reserved_units"] == 1 and inf["new_purchases"] == [["1y", 1]]
    assert inf["instance_types"][0]["instance_type"] == "g5.xlarge"


def test_as_of_and_held():
    code, out = _invoke("plan", str(HISTORY), "-f", "json", "--as-of", "2024-05-20", "--held", "inference=0")
    assert code == 0
    doc = json.loads(out)
    assert doc["as_of"] == "2024-05-20"
    inf = next(f for f in doc["fleets"] if f["name"] == "inference")
    assert inf["reserved_units"] == 24  # see test_history_policy_and_held_commitments


def test_estimate_reads_the_plan(tmp_path):
    target = tmp_path / "plan.json"
    assert _invoke("plan", str(STACKS / "eu-prod.yaml"), "-f", "json", "-o", str(target))[0] == 0
    code, out = _invoke("estimate", str(STACKS / "eu-prod.yaml"), "--plan", str(target), "-f", "json")
    assert code == 0 and json.loads(out)["basis"] == "plan"


def test_bad_held_is_a_usage_error(capsys):
    assert main(["plan", str(STACKS / "dev.yaml"), "--held", "inference"]) == 2
    assert "expected FLEET=UNITS (e.g. inference=4), got 'inference'" in capsys.readouterr().err


def test_bad_demand_file_is_a_clear_error(tmp_path, capsys):
    (tmp_path / "d.csv").write_text("hour,demand\n2024-01-01T00:00:00Z,lots\n")
    pol = tmp_path / "p.yaml"
    pol.write_text(f"extends: {STACKS / 'dev.yaml'}\n" + "\n".join([
        "apiVersion: seedance.io/v1", "kind: CostPolicy",
        "metadata: {name: p, environment: dev, owner: a@example.com}",
        "fleets:", "  - name: inference", "    demandHistory: d.csv", ""]))
    assert main(["plan", str(pol)]) == 1
    err = capsys.readouterr().err
    assert f"{tmp_path / 'd.csv'}:2: demand: expected a number of nodes, got 'lots'" in err
    assert "Traceback" not in err


def test_missing_policy(capsys):
    assert main(["plan", str(STACKS / "nope.yaml")]) == 1
    assert "cannot read file" in capsys.readouterr().err
