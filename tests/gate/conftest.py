from __future__ import annotations

from pathlib import Path

import pytest

from seedance.gate import load_bundle
from seedance.gate.inputs import GateInput, from_stack

REPO = Path(__file__).resolve().parents[2]
STACKS = REPO / "stacks"


@pytest.fixture(scope="session")
def bundle():
    return load_bundle()


_inputs: dict[str, GateInput] = {}


@pytest.fixture(scope="session")
def stack_input():
    """Synthesise, plan and estimate an example stack once per session."""

    def get(stack: str) -> GateInput:
        if stack not in _inputs:
            _inputs[stack] = from_stack(stack, STACKS)
        return _inputs[stack]

    return get
