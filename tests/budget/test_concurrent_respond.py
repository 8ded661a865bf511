"""Two `seedance budget respond` runs writing one overlay take turns: the second decides against what
the first wrote, so the stronger (or later-month) response wins exactly as if they ran one after the
other. The runs are real processes; the lock is held by the test to order them deterministically."""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import yaml

from seedance.budget.response import OverlayStamp
from seedance.overlaylock import LockError, exclusive_lock, lock_path

REPO = Path(__file__).resolve().parents[2]
EU_PROD = REPO / "stacks" / "policies" / "eu-prod.yaml"  # budget 160,000; degrade at 85%, freeze at 100%
SHARED = Path(os.environ["SEEDANCE_SHARED_DATA"]) if os.environ.get("SEEDANCE_SHARED_DATA") else REPO.parent / "shared" / "data"


def _alert(tmp_path: Path, name: str, amount: str) -> Path:
    """The real monthly-actual SNS notification, for eu-prod's budget and ``amount`` spent."""
    doc = json.loads((SHARED / "fixtures" / "aws-sns-budgets" /
                      "sre-bot.sns-http-notification.budget-monthly-actual.json").read_text(encoding="utf-8"))
    doc["Message"] = (doc["Message"].replace("Test Budget", "seedance-eu-prod-monthly").replace("$0.20", "$160,000.00")
                      .replace("$0.59", f"${amount}").replace("AWS Account 017790921725", "AWS Account 111122223333"))
    # sent now: the responding processes act only on an alert of the current budget month
    doc["Timestamp"] = dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z")
    path = tmp_path / name
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def _respond(event: Path, out: Path, stderr: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    with stderr.open("wb") as err:
        return subprocess.Popen([sys.executable, "-m", "seedance", "budget", "respond", str(EU_PROD), str(event),
                                 "--stack", "eu-prod", "--project-dir", str(REPO / "stacks"), "--out", str(out),
                                 "-f", "json"], stdout=subprocess.PIPE, stderr=err, env=env, cwd=REPO)


def _wait_for(predicate, what: str, timeout: float = 60.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def _stamp(out: Path) -> OverlayStamp:
    stamp = OverlayStamp.parse(out.read_text(encoding="utf-8"))
    assert stamp is not None
    return stamp


def test_a_writer_waits_for_the_lock_and_decides_against_the_overlay_written_meanwhile(tmp_path: Path) -> None:
    freeze, degrade = _alert(tmp_path, "freeze.json", "164,800.00"), _alert(tmp_path, "degrade.json", "140,000.00")
    out = tmp_path / "eu-prod.budget.yaml"
    # the freeze overlay another run would write, made beside `out` so its `extends` reads the same
    staged = tmp_path / "freeze.budget.yaml"
    first = _respond(freeze, staged, tmp_path / "freeze.err")
    assert first.wait(120) == 0, (tmp_path / "freeze.err").read_text()
    assert _stamp(staged).fraction == pytest.approx(1.03)

    with exclusive_lock(out):  # the freeze run, mid-way between reading the overlay and renaming its own
        second = _respond(degrade, out, tmp_path / "degrade.err")
        _wait_for(lambda: "waiting for" in (tmp_path / "degrade.err").read_text(encoding="utf-8"),
                  "the degrade run to wait for the lock")
        time.sleep(0.5)
        assert second.poll() is None and not out.exists()  # it waits, and has written nothing
        os.replace(staged, out)  # the freeze run's rename, still under the lock
    stdout, _ = second.communicate(timeout=120)
    err = (tmp_path / "degrade.err").read_text(encoding="utf-8")
    assert second.returncode == 0, err
    assert f"waiting for {out}: another seedance budget run is writing it" in err
    report = json.loads(stdout)
    assert report["overlay"] is None and any(n.startswith(f"kept {out}: an earlier alert this month") for n in report["notes"])
    assert _stamp(out).fraction == pytest.approx(1.03)  # the freeze overlay stays
    assert any("capacity" in f or "reserved" in f for f in yaml.safe_load(out.read_text())["fleets"])
    assert not lock_path(out).exists()  # no lock file is left beside the overlay


def test_two_racing_writers_leave_the_stronger_response(tmp_path: Path) -> None:
    """The red team's race: a 103% freeze, then an 87.5% degrade 0.3 s later. Whichever takes the lock
    first, the overlay left is the freeze (the degrade either keeps it, or is replaced by it)."""
    freeze, degrade = _alert(tmp_path, "freeze.json", "164,800.00"), _alert(tmp_path, "degrade.json", "140,000.00")
    out = tmp_path / "eu-prod.budget.yaml"
    a = _respond(freeze, out, tmp_path / "a.err")
    time.sleep(0.3)
    b = _respond(degrade, out, tmp_path / "b.err")
    assert a.wait(120) == 0 and b.wait(120) == 0, ((tmp_path / "a.err").read_text(), (tmp_path / "b.err").read_text())
    assert _stamp(out).fraction == pytest.approx(1.03) and _stamp(out).alert_type == "ACTUAL"
    assert not lock_path(out).exists()


def test_the_lock_excludes_a_second_holder_until_released(tmp_path: Path) -> None:
    out = tmp_path / "x.yaml"
    waited: list[Path] = []
    with exclusive_lock(out):
        with pytest.raises(LockError, match=r"another writer has held its lock file \.x\.yaml\.lock for more than 0\.2 s"):
            with exclusive_lock(out, timeout_s=0.2, on_wait=waited.append):
                pass  # pragma: no cover - never entered
    assert waited == [lock_path(out)]
    with exclusive_lock(out, timeout_s=0.2):  # free again
        assert lock_path(out).exists()
    assert not lock_path(out).exists()


def test_a_waiter_that_gets_a_removed_lock_file_starts_over(tmp_path: Path) -> None:
    """The holder removes the lock file as it lets go; a waiter that locks the removed file must then lock
    the file the path names, or a third writer locking a new file would hold the lock at the same time.
    (Which of the two ways the waiter gets in depends on timing; both must leave it the only holder.)"""
    from seedance.overlaylock import _same_file

    probe = tmp_path / "probe"
    fd = os.open(probe, os.O_RDWR | os.O_CREAT)
    try:
        assert _same_file(fd, probe)
        probe.unlink()
        assert not _same_file(fd, probe)  # removed
        probe.touch()
        assert not _same_file(fd, probe)  # another file by that name now
    finally:
        os.close(fd)
    out = tmp_path / "x.yaml"
    inside = threading.Event()
    leave = threading.Event()

    def waiter() -> None:
        with exclusive_lock(out, timeout_s=30):
            inside.set()
            leave.wait(30)

    with exclusive_lock(out):
        thread = threading.Thread(target=waiter)
        thread.start()
        time.sleep(0.2)  # the waiter has opened the lock file and is retrying it
        assert not inside.is_set()
    assert inside.wait(30)  # it got the lock after the holder let go
    with pytest.raises(LockError):  # and holds it: a third writer cannot take it
        with exclusive_lock(out, timeout_s=0.3):
            pass  # pragma: no cover - never entered
    leave.set()
    thread.join(30)
    assert not lock_path(out).exists()


def test_an_out_in_a_missing_directory_is_a_clean_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from seedance.cli import main

    out = tmp_path / "no" / "such" / "x.yaml"
    assert main(["budget", "respond", str(EU_PROD), str(_alert(tmp_path, "a.json", "140,000.00")), "--out", str(out)]) == 1
    err = capsys.readouterr().err
    # no lock can be taken there, so the run decides without one, and its write fails as it did before
    assert f"warning --out {out}: cannot open its lock file .x.yaml.lock: No such file or directory" in err
    assert f"error --out {out}" in err and "Traceback" not in err
    assert not out.parent.exists()


def test_a_run_with_nothing_to_write_needs_no_lock(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # a quiet day's poll or alert below every threshold, with --out where no lock file can be made,
    # ends 0 as it did before writers were serialised
    from seedance.cli import main

    out = tmp_path / "no" / "such" / "x.yaml"
    assert main(["budget", "respond", str(EU_PROD), str(_alert(tmp_path, "a.json", "10,000.00")), "--out", str(out)]) == 0
    assert "nothing to do" in capsys.readouterr().out
