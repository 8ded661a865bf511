"""`seedance diff`: a note (a policy, region or environment that changes) is shown once in the
text report, which a terminal shows with stderr; with JSON or markdown it is in the report and on stderr."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from seedance.cli import main

DEV = Path(__file__).resolve().parents[2] / "stacks" / "policies" / "dev.yaml"


def _renamed(tmp_path: Path) -> Path:
    head = tmp_path / "head.yaml"
    head.write_text(f"apiVersion: seedance.io/v1\nkind: CostPolicy\nextends: {DEV}\nmetadata:\n  name: web-stack\n")
    return head


def test_the_text_report_shows_a_note_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["diff", str(DEV), str(_renamed(tmp_path)), "--as-of", "2024-05-30"]) == 0
    out, err = capsys.readouterr()
    note = "the policy changes from gpu-platform-dev to web-stack"
    assert (out + err).count(note) == 1, (out, err)
    assert f"note: {note}" in out


@pytest.mark.parametrize("fmt", ["json", "markdown"])
def test_other_formats_keep_the_note_on_stderr(tmp_path: Path, capsys: pytest.CaptureFixture[str], fmt: str) -> None:
    assert main(["diff", str(DEV), str(_renamed(tmp_path)), "--as-of", "2024-05-30", "-f", fmt]) == 0
    out, err = capsys.readouterr()
    note = "the policy changes from gpu-platform-dev to web-stack"
    assert err.count(f"note: {note}") == 1
    if fmt == "json":
        assert json.loads(out)["notes"] == [note]
    else:
        assert out.count(note) == 1
