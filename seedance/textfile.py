"""Reading a user's text file as UTF-8, with an error that says where it is not."""

from __future__ import annotations


def not_utf8(data: bytes, exc: UnicodeDecodeError) -> str:
    """``LINE: not UTF-8 text (byte 0xNN at offset K)`` for a decoding error in ``data``."""
    line = data.count(b"\n", 0, exc.start) + 1
    return f"{line}: not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start})"
