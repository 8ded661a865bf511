"""Reading a user's text file as UTF-8, with an error that says where it is not."""

from __future__ import annotations

import os
from pathlib import Path


def not_utf8(data: bytes, exc: UnicodeDecodeError) -> str:
    """``LINE: not UTF-8 text (byte 0xNN at offset K)`` for a decoding error in ``data``."""
    line = data.count(b"\n", 0, exc.start) + 1
    return f"{line}: not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start})"


class TextFileError(ValueError):
    """A user's file could not be read as what it should hold; the message starts with ``PATH[:LINE[:COL]]:``."""


def describe_json(value: object) -> str:
    """A JSON value for an error message: its JSON type and (shortened) text (``number 5``)."""
    import json

    if value is None:
        return "null"
    kind = (
        "boolean" if isinstance(value, bool)
        else "number" if isinstance(value, int | float)
        else "string" if isinstance(value, str)
        else "array" if isinstance(value, list)
        else "object" if isinstance(value, dict)
        else type(value).__name__
    )
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        text = repr(value)
    return f"{kind} {text[:60]}{'...' if len(text) > 60 else ''}"


class DuplicateKeyError(ValueError):
    """A JSON object gives a key twice: Python's reader would keep the last value, so what the file
    means cannot be told (its reader gives no place for it)."""

    def __init__(self, key: str) -> None:
        shown = repr(key if len(key) <= 40 else key[:40] + "…")
        super().__init__(f"not valid JSON for Seedance: an object gives the key {shown} twice, so which value "
                         "counts cannot be told")


def unique_keys(pairs: list[tuple[str, object]]) -> dict[str, object]:
    """``object_pairs_hook`` for ``json.loads``: the object, or :class:`DuplicateKeyError`."""
    out: dict[str, object] = {}
    for key, value in pairs:
        if key in out:
            raise DuplicateKeyError(key)
        out[key] = value
    return out


def lone_surrogate(text: str) -> str | None:
    """``LINE:COL: …`` for the first ``\\uD800``-``\\uDFFF`` escape of the JSON ``text`` that is not half of
    a pair, else None. JSON allows such an escape, but the string it makes is no Unicode text: it
    cannot be printed or encoded, and handed to the Rego engine it crashes the process."""
    import re

    if not re.search(r"\\u[dD][89a-fA-F]", text):  # the common case: no surrogate escape at all
        return None
    pending: re.Match[str] | None = None  # a high surrogate waiting for its low half
    for m in re.finditer(r"\\(?:u([0-9a-fA-F]{4})|.)", text, re.S):  # escapes, left to right
        code = int(m.group(1), 16) if m.group(1) else -1
        if pending is not None:
            if 0xDC00 <= code <= 0xDFFF and m.start() == pending.end():
                pending = None
                continue
            break
        if 0xD800 <= code <= 0xDBFF:
            pending = m
        elif 0xDC00 <= code <= 0xDFFF:
            pending = m
            break
    if pending is None:
        return None
    line = text.count("\n", 0, pending.start()) + 1
    col = pending.start() - (text.rfind("\n", 0, pending.start()) + 1) + 1
    return (f"{line}:{col}: {pending.group(0)} is half of a UTF-16 surrogate pair, not a character: "
            "expected Unicode text")


def parse_json(text: str) -> object:
    """``text`` as JSON (``ValueError`` with ``LINE:COL: …`` when it is not JSON, or nests too deeply to
    read: Python's reader recurses once per level; without a place when an object gives a key twice:
    Python's reader keeps the last, so what the file means cannot be told, and the reader does not
    say where)."""
    import json

    try:
        doc = json.loads(text, object_pairs_hook=unique_keys)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{exc.lineno}:{exc.colno}: not valid JSON: {exc.msg}") from None
    except DuplicateKeyError as exc:
        raise ValueError(str(exc)) from None
    except RecursionError:
        raise ValueError("1: JSON nested too deeply to read (arrays and objects inside each other)") from None
    bad = lone_surrogate(text)
    if bad is not None:
        raise ValueError(bad)
    return doc


def read_text_file(path: os.PathLike[str] | str, *, what: str = "a text file", encoding: str = "utf-8") -> str:
    """The text of ``path`` (UTF-8; ``utf-8-sig`` drops a byte-order mark); ``TextFileError`` naming the
    file (and line) when it cannot be read, is a directory or is not UTF-8 (``what`` names the file
    expected in place of a directory)."""
    from pathlib import Path

    p = Path(path)
    try:
        data = p.read_bytes()
    except IsADirectoryError:
        raise TextFileError(f"{p}: is a directory, expected {what}") from None
    except OSError as exc:
        raise TextFileError(f"{p}: cannot read: {exc.strerror or exc}") from None
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as exc:
        raise TextFileError(f"{p}:{not_utf8(data, exc)}") from None


def read_json_file(path: os.PathLike[str] | str) -> object:
    """The JSON in the UTF-8 file ``path``; ``TextFileError`` naming the file (and line) when it cannot be
    read, is not UTF-8, is not JSON or nests too deeply."""
    text = read_text_file(path, what="a JSON file")
    try:
        return parse_json(text)
    except ValueError as exc:
        sep = ":" if str(exc)[:1].isdigit() else ": "  # LINE:COL, or a message with no place
        raise TextFileError(f"{path}{sep}{exc}") from None


#: How deeply a JSON document a user hands in may nest (the documents Seedance writes nest a few
#: dozen levels at most; readers further on recurse once per level).
MAX_JSON_DEPTH = 100


def too_deep(value: object, limit: int = MAX_JSON_DEPTH) -> str | None:
    """The path (``resources[0].inputs.x``, its first 8 steps) of the first place where ``value`` nests
    more than ``limit`` arrays and objects inside each other, or None (an iterative walk: no recursion)."""
    stack: list[tuple[object, str, int]] = [(value, "", 0)]
    while stack:
        v, path, depth = stack.pop()
        if isinstance(v, dict | list):
            if depth >= limit:
                return path or "(top level)"
            items = v.items() if isinstance(v, dict) else enumerate(v)
            for k, child in items:
                if depth >= 8:
                    sub = path if path.endswith("…") else f"{path}…"
                else:
                    sub = f"{path}[{k}]" if isinstance(k, int) else (f"{path}.{k}" if path else str(k))
                stack.append((child, sub, depth + 1))
    return None


def path_kind(path: os.PathLike[str] | str) -> str:
    """What ``path`` names, links followed: ``"file"``, ``"directory"``, ``"special"`` (a device, FIFO or
    socket) or ``"missing"``; ``ValueError`` saying why (``it holds a NUL character``) when it cannot be looked up at all (a NUL
    character, a name longer than the system takes, a link loop, no permission)."""
    import errno
    import stat

    if "\0" in os.fspath(path):
        raise ValueError("it holds a NUL character")
    try:
        mode = os.stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return "missing"
    except OSError as exc:
        if exc.errno == errno.ENAMETOOLONG:
            raise ValueError("it is longer than the system takes (file name too long)") from None
        raise ValueError(f"it cannot be looked up ({exc.strerror or exc})") from None
    except ValueError:  # a path the platform cannot represent
        raise ValueError("the system cannot represent it") from None
    if stat.S_ISREG(mode):
        return "file"
    return "directory" if stat.S_ISDIR(mode) else "special"


def same_path(a: str | os.PathLike[str], b: str | os.PathLike[str]) -> bool:
    """Whether ``a`` and ``b`` name one file: the same inode where both exist (symlinks, hard links,
    other spellings), else the same path with symlinks resolved."""
    try:
        return os.path.samefile(a, b)
    except (OSError, ValueError):
        # one does not exist (yet): compare both resolved alike (a missing file's existing parents are)
        return Path(os.path.abspath(a)).resolve() == Path(os.path.abspath(b)).resolve()
