"""`seedance plan` in-process (click's runner)."""

import json
import re
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
    assert inf["reserved_units"] == 26  # see test_history_policy_and_held_commitments


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


# --- --held: fleets the policy has, once each, ASCII digits, bounded -------------------------------


@pytest.mark.parametrize(
    "values,message",
    [
        (["nope=3"], "the policy has no fleet 'nope'; its fleets: finetune, inference, batch-embed"),
        (["inferance=20"], "the policy has no fleet 'inferance' (did you mean 'inference'?); its fleets: finetune, inference, batch-embed"),
        (["=3"], "expected FLEET=UNITS (e.g. inference=4), got '=3': no fleet name before '='"),
        (["inference=3", "inference=5"], "fleet 'inference' is given twice ('inference=3' and 'inference=5'); give each fleet once"),
        (["inference=\u00b2"], "got 'inference=\u00b2': UNITS is a whole number written in the digits 0-9"),
        (["inference=\u0663"], "got 'inference=\u0663': UNITS is a whole number written in the digits 0-9"),
        (["inference=-1"], "got 'inference=-1': UNITS is a whole number written in the digits 0-9"),
        (["inference=99999999999999999999"], "'inference=99999999999999999999': at most 100,000 units per fleet"),
        (["inference=100001"], "'inference=100001': at most 100,000 units per fleet"),
        (["inference=" + "1" * 5000], "at most 100,000 units per fleet"),
    ],
)
def test_bad_held_values_are_usage_errors(values, message, tmp_path, capsys):
    target = tmp_path / "plan.json"
    args = ["plan", str(STACKS / "dev.yaml"), "-o", str(target)]
    for v in values:
        args += ["--held", v]
    assert main(args) == 2
    out, err = capsys.readouterr()
    assert message in err and "--held" in err
    assert "internal error" not in err and out == ""
    assert not target.exists()


def test_held_at_the_bound_and_with_leading_zeros():
    code, out = _invoke("plan", str(STACKS / "dev.yaml"), "-f", "json", "--held", "inference=007", "--held", "finetune=100000")
    assert code == 0
    doc = json.loads(out)
    fleets = {f["name"]: f for f in doc["fleets"]}
    assert fleets["inference"]["reserved_units"] == 7 and fleets["inference"]["new_purchases"] == []
    assert fleets["finetune"]["reserved_units"] == 100_000 and fleets["finetune"]["new_purchases"] == []


# --- demand history files that cannot be used: file:line errors, exit 1 -----------------------------


def _policy_with_history(tmp_path, data: bytes):
    (tmp_path / "d.csv").write_bytes(data)
    pol = tmp_path / "p.yaml"
    pol.write_text(f"extends: {STACKS / 'dev.yaml'}\n" + "\n".join([
        "apiVersion: seedance.io/v1", "kind: CostPolicy",
        "metadata: {name: p, environment: dev, owner: a@example.com}",
        "fleets:", "  - name: inference", "    demandHistory: d.csv", ""]))
    return pol


@pytest.mark.parametrize(
    "data,message",
    [
        (b"hour,demand\n2024-01-01T00:00:00Z,1\n\xff\xfe\n", "d.csv:3: not UTF-8 text (byte 0xff at offset 35)"),
        (b"hour,demand\n" + b"".join(b"2024-01-%02dT%02d:00:00Z,1e308\n" % (1 + h // 24, h % 24) for h in range(48)),
         "d.csv:2: demand: expected a number of nodes from 0 to 1,000,000, got '1e308'"),
    ],
)
def test_unusable_demand_history_is_a_clean_error(tmp_path, capsys, data, message):
    pol = _policy_with_history(tmp_path, data)
    assert main(["plan", str(pol)]) == 1
    err = capsys.readouterr().err
    assert f"{tmp_path / message}" in err
    assert "internal error" not in err and "Traceback" not in err


# --- --out: whole or not at all; '-' is stdout ------------------------------------------------------


def test_out_is_written_atomically(tmp_path, capsys, monkeypatch):
    target = tmp_path / "plan.json"
    target.write_text("previous plan\n", encoding="utf-8")

    def no_space(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("seedance.atomic.os.replace", no_space)
    assert main(["plan", str(STACKS / "dev.yaml"), "-o", str(target)]) == 1
    assert f"cannot write {target}: No space left on device" in capsys.readouterr().err
    assert target.read_text(encoding="utf-8") == "previous plan\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["plan.json"]  # no temporary file left behind


def test_out_never_replaces_a_policy_file_of_the_plan(tmp_path, capsys):
    # the policy itself, or a base it extends (through a symbolic link): a usage error, nothing written
    base = tmp_path / "base.yaml"
    base.write_text((STACKS / "base.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    top = tmp_path / "dev.yaml"
    top.write_text((STACKS / "dev.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "link.yaml").symlink_to(base)
    before = {p.name: p.read_bytes() for p in (base, top)}
    for out in (top, tmp_path / "link.yaml"):
        assert main(["plan", str(top), "-o", str(out)]) == 2
        assert "Invalid value for --out" in capsys.readouterr().err
    assert {p.name: p.read_bytes() for p in (base, top)} == before
    # the policy's demand history is an input too
    csv = STACKS.parent / "demand" / "training.csv"
    assert main(["plan", str(STACKS / "eu-prod.yaml"), "-o", str(csv)]) == 2
    assert "Invalid value for --out" in capsys.readouterr().err


def test_out_dash_is_stdout(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["plan", str(STACKS / "dev.yaml"), "-f", "json", "-o", "-"]) == 0
    out = capsys.readouterr().out
    assert json.loads(out)["policy"] == "gpu-platform-dev"  # printed once: one JSON document
    assert main(["plan", str(STACKS / "dev.yaml"), "-o", "-"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["policy"] == "gpu-platform-dev"
    assert "Fleet compute" in err and "Fleet compute" not in out  # the table goes to stderr
    assert list(tmp_path.iterdir()) == []  # no file named '-'


# --- a fleet no instance type can run --------------------------------------------------------------


def test_fleet_without_a_qualifying_type_cannot_be_planned(tmp_path, capsys):
    pol = tmp_path / "t4.yaml"
    pol.write_text("\n".join([
        "apiVersion: seedance.io/v1", "kind: CostPolicy",
        "metadata: {name: mini, environment: dev, owner: a@example.com}",
        "cloud: {region: us-east-1, availabilityZones: [us-east-1a], vpcId: vpc-0123456789abcdef0, subnetIds: [subnet-0123456789abcdef0]}",
        "budget: {monthlyAmount: 5000}",
        "fleets:",
        "  - {name: web, workload: inference, sla: silver, gpu: {model: T4, count: 3}, capacity: {min: 1, desired: 2, max: 4}}",
        "  - {name: ok, workload: inference, sla: silver, gpu: {model: T4, count: 1}, capacity: {min: 1, desired: 2, max: 4}}",
        ""]), encoding="utf-8")
    target = tmp_path / "plan.json"
    assert main(["plan", str(pol), "-o", str(target)]) == 1
    out, err = capsys.readouterr()
    # reported where the requirement is written, as `validate` reports it (it used to say "valid")
    assert (f"{pol}:7:56: fleets[0].gpu (fleet 'web'): no instance type of the price catalog in us-east-1 holds "
            "3 x T4 per unit, so the fleet cannot run: g4dn.12xlarge: 4 GPUs is not a multiple of 3") in err
    assert "'ok'" not in err and out == "" and "saved" not in out
    assert not target.exists()
    assert main(["validate", str(pol)]) == 1
    assert "fleets[0].gpu (fleet 'web'): no instance type of the price catalog" in capsys.readouterr().out


# --- held reservations beyond use: the plan costs more than all on-demand, said plainly --------------


def test_unused_held_reservations_are_not_negative_savings():
    code, out = _invoke("plan", str(STACKS / "dev.yaml"), "--held", "inference=40")
    assert code == 0
    summary = next(line for line in out.splitlines() if line.startswith("Fleet compute"))
    assert "saved" not in summary and not re.search(r"-[0-9]", summary)  # no negative amount or share
    assert re.search(r"costs [0-9,]+ USD \([0-9,]+%\) more than all on-demand", summary)
    assert "more than all on-demand because reserved units are billed whether or not they run: inference holds 40 for ~" in summary


def test_missing_cache_dir_is_a_usage_error(tmp_path, capsys, monkeypatch):
    # a mistyped --cache-dir must not quietly plan on the bundled prices: exit 2, as for other bad options
    assert main(["plan", str(STACKS / "dev.yaml"), "--cache-dir", str(tmp_path / "nope")]) == 2
    assert f"price cache directory {tmp_path / 'nope'} does not exist" in capsys.readouterr().err
    monkeypatch.setenv("SEEDANCE_PRICE_CACHE", str(tmp_path / "gone"))
    assert main(["plan", str(STACKS / "dev.yaml")]) == 2
    assert f"{tmp_path / 'gone'} (from $SEEDANCE_PRICE_CACHE) does not exist" in capsys.readouterr().err
    monkeypatch.delenv("SEEDANCE_PRICE_CACHE")
    assert main(["plan", str(STACKS / "dev.yaml"), "--cache-dir", str(tmp_path), "-f", "json"]) == 0  # empty: bundled


def test_load_catalog_refuses_a_missing_cache_dir(tmp_path):
    from seedance.pricing.catalog import PricingError, load_catalog

    with pytest.raises(PricingError, match="price cache directory .* does not exist"):
        load_catalog(cache_dir=tmp_path / "nope")


def test_out_in_a_directory_that_does_not_exist_is_a_usage_error(tmp_path, capsys):
    # it planned first and then failed to write, exit 1; a bad option is exit 2, before any work
    out = tmp_path / "missing" / "plan.json"
    assert main(["plan", str(STACKS / "dev.yaml"), "--out", str(out)]) == 2
    assert "the directory" in capsys.readouterr().err and not out.parent.exists()
