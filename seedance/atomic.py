"""Write a text file whole or not at all: a temporary file in the same directory, then a rename."""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _special(path: Path) -> bool:
    """An existing path that is no regular file once links are followed: a device (``/dev/null``), a
    FIFO, a socket, a terminal or ``/dev/stdout``."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode)


def write_text_atomically(path: Path, text: str, check: Callable[[Path], None] | None = None) -> None:
    """Write ``text`` to ``path`` (UTF-8) so readers see the old file or the new one, never half of it.
    The file gets the mode a plain ``open`` would give it (an existing file's own, else 0666 less the
    umask). A symbolic link is
    followed, as a plain ``open`` would: its target gets the text and the link stays. A device, FIFO
    or other special file is written to as it is, never replaced by a regular file (a rename over
    ``/dev/null`` would replace the device). ``check``, if given, is called on the complete
    temporary file before the rename; if it raises, nothing is written and the exception propagates."""
    if _special(path):
        if check is not None:
            raise OSError(errno.EINVAL, "not a regular file: the text cannot be checked before it is written")
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
        return
    path = Path(os.path.realpath(path)) if os.path.islink(path) else path
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        try:  # the mode a plain open would leave: an existing file keeps its own
            mode = stat.S_IMODE(os.stat(path).st_mode)
        except OSError:
            mode = 0o666 & ~_umask()
        os.chmod(tmp, mode)
        if check is not None:
            check(Path(tmp))
        os.replace(tmp, path)
    finally:
        Path(tmp).unlink(missing_ok=True)
