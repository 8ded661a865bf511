"""Endpoints the VPC already has (network.existingEndpoints): present on the policy's word, and every
report says they were not checked."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from seedance.cli import main
from seedance.gate.decision import Given
from seedance.gate.facts import existing_endpoint_services

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "tests" / "synth" / "samples" / "eu-prod.json"  # eu-prod synthesised: no kms or logs endpoint
POLICY = REPO / "stacks" / "policies" / "eu-prod.yaml"
NOT_CHECKED = ("the VPC endpoints for kms, logs that the policy says vpc-0e1a2b3c4d5e6f701 already has "
               "(network.existingEndpoints), counted as present on the policy's word")


def _check(capsys, tmp_path: Path, fmt: str, existing: str | None) -> tuple[int, str]:  # noqa: ANN001
    policy = tmp_path / "policy.yaml"
    policy.write_text(f"apiVersion: seedance.io/v1\nkind: CostPolicy\nextends: {POLICY}\n"
                      + (f"network:\n  existingEndpoints: {existing}\n" if existing else ""))
    code = main(["check", str(SAMPLE), "--policy", str(policy), "--format", fmt])
    return code, capsys.readouterr().out


def _no_endpoint(report: dict) -> set[str]:
    return {f["message"] for f in report["findings"] if f["controlId"] == "GDPR-44-2" and f["message"].startswith("no VPC endpoint")}


def test_existing_endpoints_count_as_present_and_are_reported_unchecked(capsys, tmp_path: Path) -> None:  # noqa: ANN001
    _, out = _check(capsys, tmp_path, "json", None)
    before = json.loads(out)
    assert _no_endpoint(before) == {"no VPC endpoint for kms: its traffic leaves through NAT",
                                    "no VPC endpoint for logs: its traffic leaves through NAT"}
    assert "existingEndpoints" not in before["given"]
    code, out = _check(capsys, tmp_path, "json", "[kms, logs]")
    report = json.loads(out)
    assert _no_endpoint(report) == set()
    assert report["given"]["existingEndpoints"] == {"services": ["kms", "logs"], "vpc": "vpc-0e1a2b3c4d5e6f701",
                                                    "checked": False}
    # the other findings are the same, but for the budget share: kms's and logs' traffic (602 GB) is
    # no longer NAT processing the stack pays
    def others(r: dict) -> list[tuple[str, str]]:
        return [(f["controlId"], f["message"]) for f in r["findings"]
                if f["message"] not in _no_endpoint(before) and not f["controlId"].startswith("BUDGET-COST")]

    assert others(report) == others(before)
    share = [float(re.search(r"is ([0-9.]+)% of the budget", f["message"])[1])  # type: ignore[index]
             for r in (before, report) for f in r["findings"] if f["controlId"] == "BUDGET-COST-2"]
    assert len(share) == 2 and share[1] < share[0]
    assert code == 0


@pytest.mark.parametrize("fmt", ["text", "markdown", "pr-comment"])
def test_every_report_says_the_existing_endpoints_were_not_checked(capsys, tmp_path: Path, fmt: str) -> None:  # noqa: ANN001
    _, out = _check(capsys, tmp_path, fmt, "[logs, kms]")
    text = " ".join(out.split())
    assert "not checked" in text.lower() and NOT_CHECKED in text
    assert "no VPC endpoint for kms" not in text
    _, out = _check(capsys, tmp_path, fmt, None)
    assert "network.existingEndpoints)" not in " ".join(out.split())


def test_sarif_carries_them_in_the_runs_given(capsys, tmp_path: Path) -> None:  # noqa: ANN001
    _, out = _check(capsys, tmp_path, "sarif", "[kms]")
    given = json.loads(out)["runs"][0]["properties"]["given"]
    assert given["existingEndpoints"]["services"] == ["kms"] and given["existingEndpoints"]["checked"] is False


def test_one_existing_endpoint_reads_in_the_singular() -> None:
    g = Given([], [], False, endpoints=["kms"], vpc="vpc-1")
    assert g.unseen() == ("the VPC endpoint for kms that the policy says vpc-1 already has (network.existingEndpoints), "
                          "counted as present on the policy's word: whether it exists and is available, has private DNS "
                          "(interface) or is on the stack's route tables (gateway), and what its endpoint policy allows, "
                          "Seedance does not read")
    assert g.not_checked() == "" and g.summary() == ""  # no lookup reads them


@pytest.mark.parametrize(("policy", "services"), [
    ({"network": {"existingEndpoints": ["logs", "kms", "kms"]}}, ["kms", "logs"]),
    ({"network": {"existingEndpoints": "kms"}}, []),  # a hand-written gate input of another shape
    ({"network": None}, []),
    ({}, []),
])
def test_existing_endpoint_services(policy: dict, services: list[str]) -> None:
    assert existing_endpoint_services(policy) == services
