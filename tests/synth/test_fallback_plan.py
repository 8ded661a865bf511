"""The fallback plan (policy's explicit values) used by the synthesis benchmark."""

from __future__ import annotations

from pathlib import Path

from seedance.policy import load_policy
from seedance.pricing.catalog import load_catalog
from seedance.synth.fallback_plan import fallback_plan

POLICIES = Path(__file__).resolve().parents[2] / "stacks" / "policies"


def test_fallback_plan_of_eu_prod():
    plan = fallback_plan(load_policy(POLICIES / "eu-prod.yaml"), load_catalog())
    by = {f.name: f for f in plan.fleets}
    # batch-embed: reserved none, maxShare 1.0 -> base 0, 0 % on-demand above it
    assert (by["batch-embed"].on_demand_base, by["batch-embed"].on_demand_percentage_above_base) == (0, 0)
    # inference is gold: base 1 even without reservations; maxShare 0.3 -> 70 % on-demand above
    assert (by["inference"].on_demand_base, by["inference"].on_demand_percentage_above_base) == (1, 70)
    # eval has no spot block: everything above the base on-demand
    assert by["eval"].spot_share_above_base == 0.0 and by["eval"].on_demand_percentage_above_base == 100
    # no instance types named: the cheapest on-demand type with 8 x A100 40 GB in eu-central-1
    assert [c.instance_type for c in by["llm-train"].instance_types] == ["p4d.24xlarge"]
    assert all(c.weight == 1 for f in plan.fleets for c in f.instance_types)
    cap = load_policy(POLICIES / "eu-prod.yaml").policy.fleet("inference").capacity
    assert (by["inference"].min_size, by["inference"].desired, by["inference"].max_size) == (cap.min, cap.desired, cap.max)
