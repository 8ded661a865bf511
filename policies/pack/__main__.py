"""Pulumi policy pack running the gate's Rego: ``pulumi preview --policy-pack policies/pack``.

The validators live in :mod:`seedance.gate.pack` (unit-tested there); this file only builds the pack.
"""

from pulumi_policy import EnforcementLevel, PolicyPack

from seedance.gate.pack import make_policies

PolicyPack(
    name="seedance-gate",
    enforcement_level=EnforcementLevel.ADVISORY,
    policies=make_policies(),
)
