"""Write a text file whole or not at all: a temporary file in the same directory, then a rename."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_text_atomically(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` (UTF-8) so readers see the old file or the new one, never half of it.
    The file gets the mode a plain ``open`` would give it (0666 less the umask). A symbolic link is
    followed, as a plain ``open`` would: its target gets the text and the link stays."""
    path = Path(os.path.realpath(path)) if os.path.islink(path) else path
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    finally:
        Path(tmp).unlink(missing_ok=True)
