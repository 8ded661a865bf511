"""`seedance diff` as a reviewer reads it: what the totals leave out (reservations still billed, a
different demand history), where the prices came from, the decision date, a policy the change adds."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from seedance.cli import main

REPO = Path(__file__).resolve().parents[2]
DEV = REPO / "stacks" / "policies" / "dev.yaml"


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["diff", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_the_report_records_its_decision_date(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, str(DEV), str(DEV), "--no-plan", "--as-of", "2024-05-29", "-f", "json")
    assert code == 0 and json.loads(out)["as_of"] == "2024-05-29"
    code, out, _ = _run(capsys, str(DEV), str(DEV), "--no-plan", "--as-of", "2024-05-29", "-f", "markdown")
    assert code == 0 and "decision date 2024-05-29" in out.splitlines()[-1]
    code, out, _ = _run(capsys, str(DEV), str(DEV), "--no-plan", "--as-of", "2024-05-29")
    assert code == 0 and "decision date (--as-of): 2024-05-29" in out


def test_without_as_of_the_report_records_today(capsys: pytest.CaptureFixture[str]) -> None:
    from seedance.clock import utc_today

    code, out, _ = _run(capsys, str(DEV), str(DEV), "--no-plan", "-f", "json")
    assert code == 0 and json.loads(out)["as_of"] == utc_today().isoformat()
