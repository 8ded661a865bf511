"""The policy gate: Rego controls (GDPR, MLPS 2.0 level 3, budgets) evaluated before a deploy, failing closed."""

from seedance.gate.bundle import PolicyBundle, default_policy_dir, load_bundle
from seedance.gate.decision import Decision, Finding, Waiver, decide, parse_waivers
from seedance.gate.engine import Engine, OpaEngine, RegorusEngine, make_engine
from seedance.gate.errors import EngineError, GateError, InvalidInputError, OpaUnreachableError, PolicyLoadError

__all__ = [
    "Decision",
    "Engine",
    "EngineError",
    "Finding",
    "GateError",
    "InvalidInputError",
    "OpaEngine",
    "OpaUnreachableError",
    "PolicyBundle",
    "PolicyLoadError",
    "RegorusEngine",
    "Waiver",
    "decide",
    "default_policy_dir",
    "load_bundle",
    "make_engine",
    "parse_waivers",
]
