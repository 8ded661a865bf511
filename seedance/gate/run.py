"""Evaluate a gate input: engine -> raw findings -> decision document."""

from __future__ import annotations

import datetime as dt
import logging

from seedance.gate.bundle import PolicyBundle
from seedance.gate.decision import Decision, decide, parse_waivers
from seedance.gate.engine import Engine
from seedance.gate.errors import EngineError, GateError
from seedance.gate.inputs import GateInput

log = logging.getLogger(__name__)


def evaluate(gate_input: GateInput, bundle: PolicyBundle, engine: Engine, *, as_of: dt.date | None = None) -> Decision:
    """Fail closed: any engine failure raises a GateError; nothing is returned as passing on an error."""
    try:
        raw = engine.evaluate(bundle, gate_input.to_json())
    except GateError:
        raise
    except Exception as exc:  # an engine bug must not look like a pass
        raise EngineError(f"{engine.name}: {type(exc).__name__}: {exc}") from None
    policy = gate_input.policy
    return decide(
        raw,
        bundle,
        stack=gate_input.stack,
        frameworks=list(policy.get("compliance", {}).get("frameworks", [])),
        waivers=parse_waivers(policy),
        as_of=as_of or dt.date.today(),
    )
