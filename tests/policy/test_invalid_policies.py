"""Every invalid policy is rejected with exit code 1 and file:line:column: field: message."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from seedance.cli import app
from seedance.policy import PolicyError, PolicySyntaxError, load_policy

HERE = Path(__file__).parent
INVALID = sorted((HERE / "invalid").glob("*.yaml"))
EXPECTED: dict[str, list[str]] = json.loads((HERE / "invalid" / "expected.json").read_text())
LINE = re.compile(r"^.+\.yaml:\d+:\d+: \S.*: .+$")


def test_there_are_enough_invalid_cases() -> None:
    assert len(INVALID) >= 25
    assert set(EXPECTED) == {p.stem for p in INVALID}


@pytest.mark.parametrize("path", INVALID, ids=lambda p: p.stem)
def test_invalid_policy_rejected_with_located_message(path: Path) -> None:
    result = CliRunner().invoke(app, ["validate", str(path)], standalone_mode=False, catch_exceptions=False)
    assert result.return_value == 1
    errors = [ln[len("error ") :] for ln in result.output.splitlines() if ln.startswith("error ")]
    assert errors == [e.replace("{file}", str(path)) for e in EXPECTED[path.stem]]
    for line in errors:
        assert LINE.match(line), line
    assert "Traceback" not in result.output


def test_messages_read_as_breadcrumbs() -> None:
    path = HERE / "invalid" / "share_out_of_range.yaml"
    with pytest.raises(PolicyError) as exc:
        load_policy(path)
    assert str(exc.value) == (
        f"{path}:20:22: fleets[0].spot.maxShare (fleet 'web'): expected a number in [0, 1], got 1.5"
    )


def test_unknown_key_suggests_the_closest_field() -> None:
    path = HERE / "invalid" / "unknown_key_top.yaml"
    with pytest.raises(PolicyError) as exc:
        load_policy(path)
    assert exc.value.problems[0].message == "unknown field 'fleet'; did you mean 'fleets'?"


def test_all_errors_of_a_document_at_once(tmp_path: Path) -> None:
    text = (HERE / "valid" / "minimal.yaml").read_text()
    text = text.replace("desired: 2", "desired: two").replace("sla: silver", "sla: platinum").replace(
        "monthlyAmount: 1000", "monthlyAmount: -5"
    )
    bad = tmp_path / "many.yaml"
    bad.write_text(text)
    with pytest.raises(PolicyError) as exc:
        load_policy(bad)
    paths = [p.path for p in exc.value.problems]
    assert paths == ["budget.monthlyAmount", "fleets[0].sla", "fleets[0].capacity.desired"]


# ---------------------------------------------------------------- hostile files made at test time


def _run_cli(path: Path) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["validate", str(path)], standalone_mode=False, catch_exceptions=False)
    return result.return_value, result.output


def test_empty_file(tmp_path: Path) -> None:
    p = tmp_path / "empty.yaml"
    p.write_bytes(b"")
    code, out = _run_cli(p)
    assert code == 1
    assert f"{p}:1:1: (document): empty document: expected a CostPolicy mapping" in out


def test_binary_garbage(tmp_path: Path) -> None:
    p = tmp_path / "garbage.yaml"
    p.write_bytes(bytes(range(256)) * 64)
    code, out = _run_cli(p)
    assert code == 1
    assert f"{p}:1:1: (document): binary data: expected a UTF-8 YAML text" in out


def test_not_utf8(tmp_path: Path) -> None:
    p = tmp_path / "latin1.yaml"
    p.write_bytes("metadata:\n  owner: jos\xe9\n".encode("latin-1"))
    code, out = _run_cli(p)
    assert code == 1
    assert f"{p}:2:1: (document): not UTF-8 text (byte 0xe9 at offset 22)" in out


def test_fifty_megabyte_file(tmp_path: Path) -> None:
    p = tmp_path / "huge.yaml"
    with open(p, "wb") as fh:
        line = b"# " + b"x" * 1021 + b"\n"
        for _ in range(50 * 1024):
            fh.write(line)
    code, out = _run_cli(p)
    assert code == 1
    assert f"{p}:1:1: (document): file is 52,428,800 bytes; a policy may be at most 1,048,576 bytes" in out


def test_alias_bomb(tmp_path: Path) -> None:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 10):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i-1}"] * 9) + "]")
    p = tmp_path / "bomb.yaml"
    p.write_text("\n".join(lines) + "\n")
    with pytest.raises(PolicySyntaxError) as exc:
        load_policy(p)
    assert "document expands to more than 100,000 nodes (alias bomb?)" in str(exc.value)


@pytest.mark.parametrize("levels", [65, 200, 600, 5000])
def test_deep_nesting(tmp_path: Path, levels: int) -> None:
    # from about 600 levels PyYAML's composer (one Python call per level) would exhaust the stack
    p = tmp_path / "deep.yaml"
    p.write_text("a: " + "[" * levels + "]" * levels + "\n")
    with pytest.raises(PolicySyntaxError) as exc:
        load_policy(p)
    assert f"{p}:1:68: (document): document nests deeper than 64 levels" in str(exc.value)


def test_nesting_at_the_limit_is_read(tmp_path: Path) -> None:
    p = tmp_path / "deep.yaml"
    p.write_text("a: " + "[" * 64 + "]" * 64 + "\n")
    with pytest.raises(PolicyError) as exc:  # read, then refused for its content
        load_policy(p)
    assert "nests deeper" not in str(exc.value) and "unknown field 'a'" in str(exc.value)


def test_directory_is_an_error(tmp_path: Path) -> None:
    code, out = _run_cli(tmp_path)
    assert code == 1
    assert f"{tmp_path}:1:1: (document): cannot read file" in out


def test_cli_subprocess_rejects_without_traceback(tmp_path: Path) -> None:
    p = tmp_path / "garbage.yaml"
    p.write_bytes(b"\xff\xfe\x00garbage")
    proc = subprocess.run([sys.executable, "-m", "seedance", "validate", str(p)], capture_output=True, text=True)
    assert proc.returncode == 1
    assert "Traceback" not in proc.stdout + proc.stderr
    assert f"{p}:1:1" in proc.stdout


def test_regions_are_those_of_the_aws_partitions() -> None:
    from seedance.policy.semantics import aws_regions

    regions = aws_regions()
    # every partition Seedance prices, GovCloud, and the newest regions botocore lists
    assert {"us-east-1", "eu-central-1", "cn-north-1", "cn-northwest-1", "us-gov-west-1", "ap-southeast-5"} <= regions
    assert not any(r.endswith("-global") for r in regions)
    assert "us-east-9" not in regions


def test_every_service_the_nodes_reach_says_why() -> None:
    # the natGateways 0 message names why each node service is needed (EC2: the VPC CNI plugin)
    from seedance.policy.model import NODE_SERVICES, EndpointService
    from seedance.policy.semantics import NODE_NEEDS

    assert set(NODE_NEEDS) == set(NODE_SERVICES)
    assert EndpointService.EC2 in NODE_SERVICES and EndpointService.AUTOSCALING not in NODE_SERVICES
