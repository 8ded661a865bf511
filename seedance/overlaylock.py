"""Serialise the writers of one file: an exclusive advisory lock on a sibling lock file.

``seedance budget respond``/``poll`` read the overlay in place (its stamp says which alert it
answers), decide, then replace it. Two runs started close together would both read the old overlay
and the later rename would win, whichever response was stronger. Holding :func:`exclusive_lock`
from the read through the rename makes the second run wait, then decide against what the first
wrote, exactly as if they had run one after the other.

The lock is ``fcntl.flock`` on ``.NAME.lock`` beside the file (the file itself is replaced by a
rename, so it cannot carry the lock). The holder removes the lock file before it lets go, so none is
left beside the overlay; a waiter that then gets the lock of the removed file sees that the path no
longer names the file it locked and starts over on the path, so two writers never both hold it. The
kernel releases the lock when the holder exits, however it exits (a lock file left by a killed
holder is simply locked again by the next writer).
"""

from __future__ import annotations

import errno
import fcntl
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

#: How long a writer waits for another one before giving up (a response plans in seconds).
LOCK_WAIT_S = 600.0
_POLL_S = 0.05


class LockError(Exception):
    """The lock could not be taken: the lock file cannot be opened, or another writer held it too long."""


class LockUnavailable(LockError):
    """The lock file cannot be opened at all (a read-only directory, say): no writer can lock this
    path, so the caller may go on without the lock, as before locks existed."""


def lock_path(path: Path) -> Path:
    """The lock file of ``path``: ``.NAME.lock`` in the same directory."""
    return path.parent / f".{path.name}.lock"


@contextmanager
def exclusive_lock(path: Path, *, timeout_s: float = LOCK_WAIT_S,
                   on_wait: Callable[[Path], None] | None = None) -> Iterator[Path]:
    """Hold the exclusive lock of ``path`` for the ``with`` block; yields the lock file's path.

    When another process holds it, ``on_wait(lock_file)`` is called once and the lock is retried until
    ``timeout_s`` has passed (then :class:`LockError`)."""
    lock = lock_path(path)
    deadline = time.monotonic() + timeout_s
    waited = False
    while True:
        fd = _open(lock)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            os.close(fd)
            if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                raise LockError(f"cannot lock its lock file {lock.name}: {exc.strerror or exc}") from None
            if not waited and on_wait is not None:
                on_wait(lock)
            waited = True
            if time.monotonic() >= deadline:
                raise LockError(f"another writer has held its lock file {lock.name} for more than {timeout_s:g} s") \
                    from None
            time.sleep(_POLL_S)
            continue
        if _same_file(fd, lock):
            break
        os.close(fd)  # the holder removed it as it let go: lock the file the path names now
    try:
        yield lock
    finally:
        try:
            lock.unlink()  # still held: a waiter on this file starts over on the path
        except OSError:
            pass
        os.close(fd)  # closing the descriptor releases the lock


def _open(lock: Path) -> int:
    """A descriptor of the lock file, created if need be; never through a symlink. A lock file another
    user left (mode 0644 under umask 022) is opened read-only: flock takes an exclusive lock on any
    descriptor."""
    flags = os.O_CLOEXEC | os.O_NOFOLLOW
    try:
        return os.open(lock, os.O_RDWR | os.O_CREAT | flags, 0o666)
    except OSError as exc:
        if exc.errno in (errno.EACCES, errno.EPERM) and lock.exists():
            try:
                return os.open(lock, os.O_RDONLY | flags)
            except OSError:
                pass
        raise LockUnavailable(f"cannot open its lock file {lock.name}: {exc.strerror or exc}") from None


def _same_file(fd: int, path: Path) -> bool:
    """Whether ``path`` still names the file open as ``fd``."""
    try:
        st = os.stat(path)
    except OSError:
        return False
    mine = os.fstat(fd)
    return (st.st_dev, st.st_ino) == (mine.st_dev, mine.st_ino)
