"""Gate errors.  Every one of them means *undecided*: the gate fails closed (exit 2)."""

from __future__ import annotations


class GateError(Exception):
    """The gate could not reach a decision; nothing may be reported as passing."""

    kind = "undecided"


class PolicyLoadError(GateError):
    """A Rego file does not parse, or a METADATA block is missing or malformed."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__("; ".join(problems))


class EngineError(GateError):
    """The Rego engine failed while evaluating (or raised unexpectedly)."""


class OpaUnreachableError(GateError):
    """The OPA server named by --opa-url could not be reached."""


class InvalidInputError(GateError):
    """The resource document or gate input is not what the gate expects."""
