"""Output files are written whole or not at all, through symbolic links."""

from __future__ import annotations

from pathlib import Path

import pytest

from seedance.atomic import write_text_atomically


def test_writes_the_text_and_leaves_no_temporary_file(tmp_path: Path) -> None:
    out = tmp_path / "plan.json"
    write_text_atomically(out, "{}\n")
    write_text_atomically(out, "[1]\n")
    assert out.read_text() == "[1]\n"
    assert [p.name for p in tmp_path.iterdir()] == ["plan.json"]


def test_a_failed_write_keeps_the_old_file(tmp_path: Path) -> None:
    out = tmp_path / "plan.json"
    out.write_text("old\n")
    with pytest.raises(TypeError):
        write_text_atomically(out, 42)  # type: ignore[arg-type]
    assert out.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["plan.json"]


def test_a_symbolic_link_is_followed_and_kept(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    target = tmp_path / "real" / "plan.json"
    target.write_text("old\n")
    link = tmp_path / "plan.json"
    link.symlink_to(target)
    write_text_atomically(link, "new\n")
    assert link.is_symlink() and target.read_text() == "new\n"
    dangling = tmp_path / "next.json"
    dangling.symlink_to(tmp_path / "real" / "next.json")
    write_text_atomically(dangling, "x\n")
    assert dangling.is_symlink() and (tmp_path / "real" / "next.json").read_text() == "x\n"


def test_a_fifo_is_written_to_not_replaced(tmp_path: Path) -> None:
    """A rename over a FIFO (or a device such as /dev/null) would replace it with a regular file."""
    import os
    import threading

    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    got: list[str] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_text()))
    reader.start()
    write_text_atomically(fifo, "plan\n")
    reader.join(timeout=10)
    assert got == ["plan\n"]
    assert fifo.is_fifo()
    assert [p.name for p in tmp_path.iterdir()] == ["out.fifo"]


def test_a_failed_check_writes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "overlay.yaml"
    out.write_text("old\n")
    seen: list[str] = []

    def refuse(tmp: Path) -> None:
        seen.append(tmp.read_text())
        raise ValueError("would not load")

    with pytest.raises(ValueError, match="would not load"):
        write_text_atomically(out, "new\n", check=refuse)
    assert seen == ["new\n"]  # the check saw the whole text
    assert out.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["overlay.yaml"]


def test_an_existing_file_keeps_its_mode(tmp_path: Path) -> None:
    import os
    import stat

    out = tmp_path / "plan.json"
    out.write_text("old\n")
    out.chmod(0o600)
    write_text_atomically(out, "new\n")
    assert out.read_text() == "new\n" and stat.S_IMODE(os.stat(out).st_mode) == 0o600
