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


@pytest.fixture(scope="session")
def opa_go():
    """OPA's own Go evaluator (``opa_bindings.OpaEngine``), unpacked into the venv by ``make test``.

    Skips, saying why, where it is not there (``SEEDANCE_OPA_GO`` may name another unpacked copy).
    """
    import os
    import sys

    where = Path(os.environ.get("SEEDANCE_OPA_GO") or Path(sys.prefix) / "opa-go")
    if not (where / "opa_bindings" / "libopabridge.so").is_file():
        pytest.skip(f"OPA's Go evaluator is not unpacked at {where}: `make test` fetches it (tests/gate/opa-go.txt)")
    if str(where) not in sys.path:
        sys.path.insert(0, str(where))
    try:
        from opa_bindings import OpaEngine
    except OSError as exc:  # the shared library does not load on this platform
        pytest.skip(f"OPA's Go evaluator does not load here: {exc}")
    return OpaEngine


@pytest.fixture(scope="module")
def documents(tmp_path_factory) -> dict[str, dict]:
    """eu-prod's and cn-prod's documents as `seedance synth` writes them (a module's tests may change them)."""
    import json

    from seedance.cli import main

    out = {}
    for stack in ("eu-prod", "cn-prod"):
        path = tmp_path_factory.mktemp(stack) / f"{stack}.json"
        assert main(["synth", stack, "--out", str(path)]) == 0
        out[stack] = json.loads(path.read_text())
    return out
