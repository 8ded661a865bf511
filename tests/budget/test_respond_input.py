"""``seedance budget respond``: malformed options are usage errors (exit 2); malformed events are the
command's one clean "bad event" error (exit 1); neither is ever a traceback or an internal error."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from seedance.budget.events import BudgetEventError, read_envelope
from seedance.cli import main

REPO = Path(__file__).resolve().parents[2]
FIXTURES = Path(os.environ.get("SEEDANCE_SHARED_DATA") or REPO.parent / "shared" / "data") / "fixtures" / "aws-sns-budgets"
POLICY = REPO / "stacks" / "policies" / "eu-prod.yaml"
EVENT = FIXTURES / "sre-bot.sns-http-notification.budget-monthly-actual.json"
DEEP = "[" * 100_000 + "]" * 100_000  # 200,000 bytes: under SNS's 256 KiB, far deeper than Python's JSON reader goes


def _respond(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(["budget", "respond", str(POLICY), *args])
    err = capsys.readouterr().err
    assert "Traceback" not in err and "internal error" not in err
    return code, err


@pytest.mark.parametrize("hours", ["inf", "-inf", "nan", "NaN", "1e12", "8785", "0", "-1"])
def test_max_age_out_of_range_is_a_usage_error(capsys: pytest.CaptureFixture[str], hours: str) -> None:
    code, err = _respond(capsys, str(EVENT), "--verify-signature", "--topic-arn", "arn:aws:sns:eu-central-1:1:t",
                         "--max-age", hours)
    assert code == 2
    assert "Invalid value for '--max-age'" in err and "Usage: seedance budget respond" in err
    assert "0<x<=8784" in err or "at most 8,784" in err


def test_max_age_up_to_a_year_is_accepted_and_documented(capsys: pytest.CaptureFixture[str]) -> None:
    # a year (366 days) is the largest age; unsigned events are read without --verify-signature
    code, _ = _respond(capsys, str(EVENT), "--max-age", "8784")
    assert code == 0
    assert main(["budget", "respond", "--help"]) == 0
    assert "at most 8,784: a year" in " ".join(capsys.readouterr().out.split())


def test_live_sizes_without_stack_is_a_usage_error_before_anything_is_read(capsys: pytest.CaptureFixture[str]) -> None:
    code, err = _respond(capsys, "/no/such/event.json", "--live-sizes")
    assert code == 2 and "--live-sizes needs --stack" in err and "/no/such/event.json" not in err


@pytest.mark.parametrize("envelope", [
    lambda body: body,
    lambda body: "POST / HTTP/1.1\r\nx-amz-sns-message-type: Notification\r\n\r\n" + body,  # the whole HTTP POST
])
def test_json_nested_too_deeply_is_a_bad_event(tmp_path: Path, capsys: pytest.CaptureFixture[str], envelope) -> None:
    event = tmp_path / "deep.json"
    event.write_text(envelope(DEEP))
    code, err = _respond(capsys, str(event))
    assert code == 1  # the same exit as any other malformed event
    assert f"error {event}: not JSON: line " in err and "nested too deeply" in err
    with pytest.raises(BudgetEventError, match="not JSON: line 1: JSON nested too deeply"):
        read_envelope(DEEP.encode())


def test_deep_json_on_stdin_is_a_bad_event(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    import io
    import sys

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(DEEP.encode())))
    code, err = _respond(capsys, "-")
    assert code == 1 and "error -: not JSON: line 1: JSON nested too deeply" in err


def test_other_malformed_events_are_clean_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "latin1.json"
    bad.write_bytes(b'{"Type": "Notification",\n"Message": "caf\xe9"}')
    code, err = _respond(capsys, str(bad))
    assert code == 1 and f"error {bad}: event is not UTF-8 text: line 2: byte 0xe9 at offset 40" in err
    code, err = _respond(capsys, str(tmp_path))
    assert code == 1 and f"error {tmp_path}: is a directory; expected an event file" in err
    code, err = _respond(capsys, str(tmp_path / "missing.json"))
    assert code == 1 and "missing.json: cannot read: No such file or directory" in err
    truncated = tmp_path / "truncated.json"
    truncated.write_text('{"Type": "Notification",\n')
    code, err = _respond(capsys, str(truncated))
    assert code == 1 and f"error {truncated}: not JSON: line 2 column 1: " in err
    post = tmp_path / "post.txt"  # a JSON error in an HTTP POST's body names the line of the file
    post.write_text("POST / HTTP/1.1\r\nHost: example.com\r\n\r\n{\n  oops\n}\n")
    code, err = _respond(capsys, str(post))
    assert code == 1 and f"error {post}: not JSON: line 5 column 3: " in err
    huge = tmp_path / "huge.json"  # read no further than an SNS message can be
    huge.write_bytes(b" " * (1 << 20) + b"{}")
    code, err = _respond(capsys, str(huge))
    assert code == 1 and "SNS messages are at most 262,144 bytes" in err


def test_a_lone_surrogate_or_an_endless_amount_is_a_bad_event(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    doc = json.loads(EVENT.read_text())
    event = tmp_path / "surrogate.json"
    event.write_text(json.dumps({**doc, "Message": doc["Message"].replace("Test Budget", "Test \ud800Budget")}))
    for fmt in ("text", "json", "markdown"):
        code, err = _respond(capsys, str(event), "-f", fmt)
        assert code == 1 and "\\ud800 is half of a UTF-16 surrogate pair" in err and "line 1 column" in err
    event = tmp_path / "endless.json"
    event.write_text(json.dumps({**doc, "Message": doc["Message"].replace("ACTUAL Amount: $0.59",
                                                                         "ACTUAL Amount: $" + "9" * 400)}))
    code, err = _respond(capsys, str(event), "-f", "json")
    assert code == 1 and "in 'ACTUAL Amount': too large" in err


def test_poll_refuses_a_directory_as_out_before_asking_aws(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["budget", "poll", str(POLICY), "--stack", "eu-prod", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "Invalid value for '--out'" in err and "is a directory" in err
    assert main(["budget", "poll", str(POLICY), "--stack", "eu-prod", "--out", str(POLICY)]) == 2
    assert "the overlay must be a new file" in capsys.readouterr().err


@pytest.mark.parametrize("stamp", ["2024-13-01T00:00:00.000Z", "yesterday", 1717000000, "2024-05-30T12:00:00+02:00",
                                   "20240528T100000Z", "2024-W22-2T10:00:00Z", "2024-05-28T10:00:00", "2024-05-28", None])
def test_a_timestamp_that_is_no_utc_time_is_a_bad_event(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                       stamp: object) -> None:
    """The alert's budget month comes from its Timestamp: an unreadable one used to fall back to the
    current month silently (or give month "2024-13")."""
    doc = json.loads(EVENT.read_text())
    doc["Timestamp"] = stamp
    event = tmp_path / "stamp.json"
    event.write_text(json.dumps(doc))
    code, err = _respond(capsys, str(event))
    assert code == 1 and "Timestamp: expected an ISO 8601 UTC time" in err
    doc.pop("Timestamp")  # absent: the current month, as before
    event.write_text(json.dumps(doc))
    assert _respond(capsys, str(event))[0] == 0


def test_out_that_is_no_regular_file_is_refused_without_blocking(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Recognising an earlier overlay reads --out: on a FIFO that read blocked for ever."""
    fifo = tmp_path / "overlay.fifo"
    os.mkfifo(fifo)
    code, err = _respond(capsys, str(EVENT), "--out", str(fifo))
    assert code == 1 and "is not a regular file; expected the overlay's file path" in err
    assert fifo.is_fifo()
