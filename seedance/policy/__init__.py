"""The cost policy language: models, loader, overlays and cross-field rules."""

from seedance.policy.errors import Location, PolicyError, PolicySyntaxError, PolicyValidationError, Problem
from seedance.policy.loader import LoadedPolicy, load_policy, load_policy_text
from seedance.policy.model import CostPolicy, json_schema

__all__ = [
    "CostPolicy",
    "LoadedPolicy",
    "Location",
    "PolicyError",
    "PolicySyntaxError",
    "PolicyValidationError",
    "Problem",
    "json_schema",
    "load_policy",
    "load_policy_text",
]
