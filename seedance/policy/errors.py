"""Exceptions of the policy language: every error carries a location and a field path."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Location:
    file: str
    line: int  # 1-based
    column: int  # 1-based

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


@dataclass(frozen=True)
class Problem:
    """One error in a policy document."""

    location: Location
    path: str  # e.g. "fleets[1].spot.maxShare"; "" for the document itself
    message: str  # "expected a number <= 1, got 1.5"
    context: str = ""  # e.g. "fleet llm-train"

    def __str__(self) -> str:
        where = self.path or "(document)"
        if self.context:
            where = f"{where} ({self.context})"
        return f"{self.location}: {where}: {self.message}"


class PolicyError(Exception):
    """Base of every policy error; ``problems`` lists all errors of the document."""

    def __init__(self, problems: list[Problem]):
        self.problems = sorted(problems, key=lambda p: (p.location.file, p.location.line, p.location.column, p.path))
        super().__init__("\n".join(str(p) for p in self.problems))


class PolicySyntaxError(PolicyError):
    """The file is not a readable YAML document (syntax, encoding, size, aliases)."""


class PolicyValidationError(PolicyError):
    """The YAML is well-formed but does not conform to the language."""


def got(value: Any) -> str:
    """A value as an error message shows it after 'got'."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        text = format(value, "g")
        return text + ".0" if text.lstrip("-").isdigit() else text  # 4.0 is not the integer 4
    if isinstance(value, int):
        return str(value)
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    text = repr(str(value))
    return text if len(text) <= 60 else text[:57] + "...'"
