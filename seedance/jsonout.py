"""JSON the CLI writes: strict JSON only. Python's ``json`` writes ``Infinity`` and ``NaN`` for
non-finite floats by default, which no JSON reader accepts; here such a number is an error naming
where in the document it is, and nothing is written."""

from __future__ import annotations

import json
import math
from typing import Any


class NonFiniteNumberError(ValueError):
    """A document the CLI was about to write holds NaN or an infinity."""


def dumps(value: Any, **kwargs: Any) -> str:
    """``json.dumps(value, **kwargs)`` that refuses NaN and infinities (:class:`NonFiniteNumberError`
    naming the first such number's place, e.g. ``$.by_service.S3``)."""
    kwargs.pop("allow_nan", None)
    try:
        return json.dumps(value, allow_nan=False, **kwargs)
    except ValueError:
        where = non_finite_path(value)
        if where is None:
            raise
        path, number = where
        raise NonFiniteNumberError(f"cannot write JSON: {path} is {number}, not a finite number (JSON has no "
                                   "NaN or infinity); an input is out of range") from None


def non_finite_path(value: Any, path: str = "$") -> tuple[str, float] | None:
    """The JSON path (``$.a[0].b``) and value of the first NaN or infinity in ``value``, or None."""
    stack: list[tuple[Any, str]] = [(value, path)]
    while stack:
        node, at = stack.pop()
        if isinstance(node, float):
            if not math.isfinite(node):
                return at, node
        elif isinstance(node, dict):
            stack.extend((v, f"{at}.{k}") for k, v in reversed(list(node.items())))
        elif isinstance(node, (list, tuple)):
            stack.extend((v, f"{at}[{i}]") for i, v in reversed(list(enumerate(node))))
    return None
