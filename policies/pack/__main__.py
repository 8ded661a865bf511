"""Pulumi policy pack running the gate's Rego: ``pulumi preview --policy-pack policies/pack``.

The validators live in :mod:`seedance.gate.pack` (unit-tested there); this file only builds the pack.
Pulumi starts the pack in this directory; each stack's cost policy is read from the Pulumi project
that :func:`seedance.gate.pack.default_project_dir` finds: ``$SEEDANCE_PROJECT_DIR`` if set, else
the checkout's ``stacks/``.
"""

from pulumi_policy import EnforcementLevel, PolicyPack

from seedance.gate.pack import make_policies

PolicyPack(
    name="seedance-gate",
    enforcement_level=EnforcementLevel.ADVISORY,
    policies=make_policies(),
)
