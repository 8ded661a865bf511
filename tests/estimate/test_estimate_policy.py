"""Whole-policy estimates of the example stacks: totals, groupings, partial flags, plans."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from seedance.estimate import ESTIMATORS, estimate_policy
from seedance.estimate.plan_json import plan_from_json
from seedance.planner.plan import FleetPlan, InstanceChoice, Plan
from seedance.planner.planner import plan_policy
from seedance.policy import load_policy
from seedance.policy.loader import LoadedPolicy
from seedance.policy.model import Cloud, InstanceTypes
from seedance.pricing import PricingError, UnknownPriceError, UnknownRegionError
from seedance.pricing.catalog import Catalog


def test_registration_list_is_explicit() -> None:
    assert [name for name, _ in ESTIMATORS] == ["fleet", "ebs", "backup", "s3", "network", "logs", "budgets", "kms", "eks"]


def test_eu_prod_hand_checked_lines(stacks: dict[str, LoadedPolicy], catalog: Catalog) -> None:
    est = estimate_policy(stacks["eu-prod"], catalog)
    assert (est.currency, est.region, est.partial, est.basis) == ("USD", "eu-central-1", False, "policy")
    # inference: gold, desired 6, 30 % spot allowed, but with interruptionTolerance low and every A10G
    # type of eu-central-1 in a higher band (g5.xlarge 10-15%) the planner plans no spot: on-demand
    # g5.xlarge, 730 × 6 × 1.258 = 5510.04, and the 6 nodes' 200 GiB gp3 root volumes at 0.0952 USD
    # per GB-month: 6 × 200 × 0.0952 = 114.24
    assert round(est.by_fleet["inference"], 2) == 5624.28
    # network: 3 AZs, 2 NAT, so a third of the NAT traffic crosses zones (0.01 USD/GB out and in):
    # break-even 3 × 730 × 0.012 / (0.052 + 2 × 0.01 / 3 - 0.01) = 540.0 GB, so ecr.dkr (1500 GB)
    # and logs (600 GB) take interface endpoints; ecr.api, sts and kms (8 GB) stay on NAT:
    # 2 × 730 × 0.052 + 8 × 0.052 + 2 × 8 / 3 × 0.01 + 2 × 3 × 730 × 0.012 + (1500 + 600) × 0.01 = 149.949
    assert round(est.by_service["VPC"], 2) == 149.95
    # EKS 730 × 0.10; the policy names a KMS key, so the stack creates none
    assert est.by_service["EKS"] == pytest.approx(73.0)
    assert est.by_service["KMS"] == 0.0
    fleets = {r.name: r for r in est.resources if r.kind == "fleet"}
    # llm-train: the planner's first type, p4de.24xlarge: 70 % spot at 10.76 and 30 % on-demand at
    # 34.29 is 17.84 an hour, against p4d.24xlarge's 0.7 × 14.87 + 0.3 × 27.43 = 18.64
    assert [c.name for c in fleets["llm-train"].components] == [
        "Instance usage (Linux, on-demand, p4de.24xlarge)",
        "Instance usage (Linux, spot, p4de.24xlarge)",
        "Node root volumes (gp3, 200 GiB each)",
    ]


def test_totals_add_up_every_way(stacks: dict[str, LoadedPolicy], catalog: Catalog) -> None:
    for loaded in stacks.values():
        est = estimate_policy(loaded, catalog)
        priced = sum(c.monthly_cost for r in est.resources for c in r.components if c.monthly_cost is not None)
        assert est.total == pytest.approx(priced)
        assert sum(est.by_service.values()) == pytest.approx(est.total)
        for key, values in est.by_tag.items():
            assert sum(values.values()) == pytest.approx(est.total), key
        assert set(est.by_fleet) == {f.name for f in loaded.policy.fleets}
        # the VPC's NAT gateways and the cluster's control plane are priced but not created by the
        # stack: they carry none of its tags
        outside = {r.name: r for r in est.resources if not r.tags}
        assert set(outside) == {"eks-cluster", "vpc-nat-gateways"}
        assert all("not created by the stack" in r.notes[0] for r in outside.values())
        rest = sum(r.monthly_cost for r in outside.values())
        assert est.by_tag["team"] == {"ml-platform": pytest.approx(est.total - rest), "(untagged)": pytest.approx(rest)}


def test_cost_allocation_tags(stacks: dict[str, LoadedPolicy], catalog: Catalog) -> None:
    est = estimate_policy(stacks["dev"], catalog)
    # the tags the components put on every resource: seedance:policy is the policy's name, and
    # seedance:stack the Pulumi stack's, known only when given
    outside = sum(r.monthly_cost for r in est.resources if r.name in ("eks-cluster", "vpc-nat-gateways"))
    assert outside > 0
    assert est.by_tag["seedance:policy"] == {"gpu-platform-dev": pytest.approx(est.total - outside),
                                             "(untagged)": pytest.approx(outside)}
    assert "seedance:stack" not in est.by_tag
    assert estimate_policy(stacks["dev"], catalog, stack="dev").by_tag["seedance:stack"] == {
        "dev": pytest.approx(est.total - outside), "(untagged)": pytest.approx(outside)}
    assert set(est.by_tag["seedance:fleet"]) == {"(untagged)", "batch-embed", "finetune", "inference"}
    assert est.by_tag["seedance:fleet"]["finetune"] == pytest.approx(est.by_fleet["finetune"])
    # dev finetune: 1 × A10G, all spot on g5.2xlarge, billed as paid: 730 × 0.43682 / (1 - 0.003387),
    # and its root volume, see test_estimate_cli
    assert round(est.by_fleet["finetune"], 2) == 336.02
    # dev KMS: no kmsKeyArn, so the stack creates one key (1 USD per key-month)
    assert est.by_service["KMS"] == 1.0


def test_cn_prod_is_partial_with_reasons_and_never_mixes_currencies(stacks: dict[str, LoadedPolicy], catalog: Catalog) -> None:
    est = estimate_policy(stacks["cn-prod"], catalog)
    assert est.currency == "CNY" and est.partial is True
    assert {c.currency for r in est.resources for c in r.components} == {"CNY"}
    doc = json.dumps(est.to_json())
    assert "USD" not in doc
    reasons = {u["reason"] for u in est.unpriced}
    assert "the shared price data has no service prices for cn-north-1 (CNY)" in reasons
    unpriced = [c for r in est.resources for c in r.components if c.unpriced_reason]
    assert all(c.monthly_cost is None and c.unit_price is None for c in unpriced)
    # inference: the data has no spot price or band in China, so the planner, and the estimate
    # without a plan, run no spot: desired 4 on-demand, 730 × 4 × 9.51389 = 27780.5588
    assert round(est.by_fleet["inference"], 2) == 27780.56
    assert not any("spot" in c.name for r in est.resources if r.kind == "fleet" for c in r.components)
    assert est.by_service["EBS"] == 0.0 and est.to_json()["partial"] is True


def test_unknown_instance_type_in_policy_is_an_error(stacks: dict[str, LoadedPolicy], catalog: Catalog) -> None:
    policy = stacks["dev"].policy
    fleets = [f.model_copy(update={"instance_types": InstanceTypes(preferred=["g5.xlarg"])}) if f.name == "finetune" else f for f in policy.fleets]
    with pytest.raises(UnknownPriceError, match=r"no price for instance type 'g5.xlarg' in us-east-1; closest known: g5.xlarge"):
        estimate_policy(policy.model_copy(update={"fleets": fleets}), catalog)


def test_unknown_region_is_an_error(stacks: dict[str, LoadedPolicy], catalog: Catalog) -> None:
    policy = stacks["dev"].policy
    cloud = policy.cloud.model_copy(update={"region": "us-east-2"})
    with pytest.raises(UnknownRegionError, match=r"no prices for region 'us-east-2': the price catalog holds .*prices refresh --region us-east-2"):
        estimate_policy(policy.model_copy(update={"cloud": cloud}), catalog)
    assert isinstance(policy.cloud, Cloud)


def test_no_matching_type_is_unpriced(stacks: dict[str, LoadedPolicy], catalog: Catalog) -> None:
    policy = stacks["dev"].policy
    gpu = policy.fleets[0].gpu.model_copy(update={"count": 3})  # no type has 3 × A10G
    fleets = [policy.fleets[0].model_copy(update={"gpu": gpu}), *policy.fleets[1:]]
    est = estimate_policy(policy.model_copy(update={"fleets": fleets}), catalog)
    assert est.partial
    assert est.unpriced[0] == {
        "resource": "finetune",
        "component": "Instance usage (Linux, no matching type)",
        "reason": "no instance type priced in us-east-1 has 3 x A10G with >= 24 GiB each",
    }


def _dev_plan(**over: object) -> Plan:
    def fp(name: str, itype: str, price: float, spot: float, reserved: int, base: int, share: float,
           capacity: tuple[int, int, int], expected: float | None = None) -> FleetPlan:
        lo, desired, hi = capacity  # the dev policy's capacity.min / desired / max
        return FleetPlan(name, [InstanceChoice(itype, 1, price, spot, "cheapest")], reserved, [("1y", reserved)] if reserved else [],
                         base, share, "price-capacity-optimized", None, None, lo, hi, desired, {}, expected_nodes=expected)
    fleets = [
        fp("finetune", "g5.2xlarge", 1.212, 0.43682, 0, 0, 1.0, (0, 1, 2)),
        fp("inference", "g5.xlarge", 1.006, 0.39388, 1, 1, 0.5, (1, 3, 3), expected=3),
        fp("batch-embed", "g4dn.xlarge", 0.526, 0.1766, 0, 0, 1.0, (0, 1, 4)),
    ]
    kw = dict(policy="gpu-platform-dev", environment="dev", region="us-east-1", currency="USD", fleets=fleets,
              monthly_cost=0.0, monthly_cost_all_ondemand=0.0, savings=0.0)
    kw.update(over)
    return Plan(**kw)  # type: ignore[arg-type]


def _dev_with_three(stacks: dict[str, LoadedPolicy]):  # noqa: ANN202 - CostPolicy
    """dev with its inference fleet at desired 3, so the hand-made plan's 3 expected nodes are current."""
    dev = stacks["dev"].policy
    fleets = [f.model_copy(update={"capacity": f.capacity.model_copy(update={"desired": 3})}) if f.name == "inference" else f
              for f in dev.fleets]
    return dev.model_copy(update={"fleets": fleets})


def test_plan_mix_replaces_the_policy_values(stacks: dict[str, LoadedPolicy], catalog: Catalog) -> None:
    plan = _dev_plan()
    est = estimate_policy(_dev_with_three(stacks), catalog, plan)
    assert est.basis == "plan"
    # The plan gives no interruption rate, so spot is priced at its type's Spot Advisor band, as
    # `seedance plan` records it. inference under the plan: 3 nodes expected, 1 reserved, 2 above the
    # base half on spot; g5.xlarge's band is >20% (600 drops / 3,066 h = 0.19569/h) and each costs a
    # 300 s restart, so f = 0.19569 × 300 / 3600 = 0.016308 of spot hours are lost:
    # 730 × (0.63378 + 1.006 + 0.39388 / (1 − f)) = 1489.34, and 200 GiB gp3 root volumes at 0.08 on
    # 2 + 1 / (1 − f) paid instances = 48.27
    assert round(est.by_fleet["inference"], 2) == 1537.60
    # finetune: g5.2xlarge chosen by the plan, all spot; its band's upper bound 22% a month is
    # −ln(0.78) / 730 = 0.00034036/h, one interruption every 2,938 h: Daly's interval for 60 s writes and
    # a 240 s restart loses 0.3387% (see tests/planner for the closed form), so
    # (730 × 0.43682 + 200 × 0.08) / (1 − 0.0033871) = 336.02
    assert round(est.by_fleet["finetune"], 2) == 336.02
    again = estimate_policy(_dev_with_three(stacks), catalog, plan_from_json(json.loads(json.dumps(plan.to_json()))))
    assert again.to_json() == est.to_json()


def test_plan_for_another_region_is_refused(stacks: dict[str, LoadedPolicy], catalog: Catalog) -> None:
    with pytest.raises(PricingError, match="the plan is for eu-central-1, the policy for us-east-1"):
        estimate_policy(stacks["dev"], catalog, _dev_plan(region="eu-central-1"))
    with pytest.raises(PricingError, match="the plan has no fleet 'finetune'"):
        estimate_policy(stacks["dev"], catalog, _dev_plan(fleets=_dev_plan().fleets[1:]))


def test_bad_plan_json_names_the_field() -> None:
    with pytest.raises(PricingError, match=r"plan: fleets\[0\]: missing field 'reserved_units'"):
        plan_from_json({"policy": "p", "region": "us-east-1", "fleets": [{"name": "a", "instance_types": []}]})
    with pytest.raises(PricingError, match="plan: missing field 'fleets'"):
        plan_from_json({"policy": "p", "region": "us-east-1"})


STACK_POLICIES = Path(__file__).resolve().parents[2] / "stacks" / "policies"


def _overlay(tmp_path: Path, name: str, base: str, fleets: str) -> LoadedPolicy:
    """An example stack's policy with ``fleets`` (YAML list items under ``fleets:``) merged over it."""
    path = tmp_path / f"{name}.yaml"
    path.write_text(f"apiVersion: seedance.io/v1\nkind: CostPolicy\nextends: {STACK_POLICIES / base}\nfleets:\n{fleets}")
    return load_policy(path)


def test_a_plan_of_multi_unit_instances_is_estimated_as_planned(tmp_path, catalog: Catalog) -> None:  # type: ignore[no-untyped-def]
    # g5.12xlarge carries 4 A10G: for a fleet whose unit is one A10G it serves 4 units (weight 4), so
    # the plan's unit counts (expected, reserved, base) are a quarter as many instances
    loaded = _overlay(tmp_path, "big-boxes", "eu-prod.yaml", "  - name: inference\n    instanceTypes: {allowed: [g5.12xlarge]}\n")
    plan = plan_policy(loaded, catalog, as_of=dt.date(2026, 6, 1))
    fp = plan.fleet("inference")
    assert (fp.instance_types[0].instance_type, fp.instance_types[0].weight) == ("g5.12xlarge", 4)
    est = estimate_policy(loaded, catalog, plan)
    assert est.by_fleet["inference"] == pytest.approx(fp.monthly_cost, rel=1e-9)
    assert est.by_fleet["inference"] < 2 * fp.monthly_cost_all_ondemand  # not four times the instances


def test_a_preferred_multi_unit_type_is_estimated_per_instance(tmp_path, catalog: Catalog) -> None:  # type: ignore[no-untyped-def]
    per_unit = {}
    for itype in ("g5.xlarge", "g5.12xlarge"):
        loaded = _overlay(tmp_path, itype, "eu-prod.yaml", f"  - name: inference\n    instanceTypes: {{preferred: [{itype}]}}\n"
                          "    reserved: {mode: none}\n")
        est = estimate_policy(loaded, catalog)
        offer = catalog.instance("eu-central-1", itype)
        per_unit[itype] = est.by_fleet["inference"] / offer.ondemand.value
    # the same units need a quarter as many 4-GPU instances, whole ones: desired 6 units run as 2
    # g5.12xlarge (8 units), so 8/6 of a quarter (rounding of the on-demand base aside)
    assert per_unit["g5.12xlarge"] == pytest.approx(per_unit["g5.xlarge"] / 4 * 8 / 6, rel=0.1)


def test_held_reservations_of_another_term_are_priced_at_their_own_rate(tmp_path, catalog: Catalog) -> None:  # type: ignore[no-untyped-def]
    # dev's batch-embed reserves on 1y terms; a held 3-year commitment costs the 3-year rate, in the
    # plan-less estimate, in the plan and in the estimate of that plan alike
    from seedance.policy.model import PaymentOption, Term

    loaded = _overlay(tmp_path, "held3y", "dev.yaml", "  - name: batch-embed\n    reserved: {mode: auto, term: 1y, held: "
                      "[{units: 1, term: 3y, purchased: 2025-03-01}]}\n")
    itype = "g4dn.xlarge"
    offer = catalog.instance("us-east-1", itype)
    rate_3y = offer.reserved[(Term.THREE_YEARS, PaymentOption.NO_UPFRONT)].value
    est = estimate_policy(loaded, catalog, as_of=dt.date(2026, 6, 1))
    fleet = next(r for r in est.resources if r.kind == "fleet" and r.name == "batch-embed")
    reserved = [c for c in fleet.components if c.name.startswith("Reserved instances")]
    assert [(c.name.split(",")[1].strip(), round(c.unit_price, 5)) for c in reserved] == [
        (f"3y {PaymentOption.NO_UPFRONT.value}", round(rate_3y, 5))]
    plan = plan_policy(loaded, catalog, as_of=dt.date(2026, 6, 1))
    fp = plan.fleet("batch-embed")
    assert fp.reserved_units >= 1
    from_plan = estimate_policy(loaded, catalog, plan)
    assert from_plan.by_fleet["batch-embed"] == pytest.approx(fp.monthly_cost, rel=1e-9)
    assert any("3y" in c["name"] for c in fp.cost_components if c["name"].startswith("Reserved"))


def _dev_finetune(stacks: dict[str, LoadedPolicy], **update: object):  # noqa: ANN202 - CostPolicy
    dev = stacks["dev"].policy
    return dev.model_copy(update={"fleets": [f.model_copy(update=update) if f.name == "finetune" else f for f in dev.fleets]})


def _line(est, fleet: str) -> tuple[list[str], list[str]]:  # noqa: ANN001
    """The fleet's instance components (the root volumes aside) and its notes."""
    r = next(r for r in est.resources if r.name == fleet and r.kind == "fleet")
    return [c.name for c in r.components if not c.name.startswith("Node root volumes")], r.notes


def test_a_policy_type_that_does_not_serve_the_fleet_is_not_priced(stacks: dict[str, LoadedPolicy], catalog: Catalog) -> None:
    """Without a plan the estimate takes the policy's types, as the planner does only where they
    hold the fleet's units: m5.xlarge (no GPU) for a 1 x A10G fleet would price a CPU node."""
    est = estimate_policy(_dev_finetune(stacks, instance_types=InstanceTypes(preferred=["m5.xlarge", "g5.2xlarge"])), catalog)
    names, notes = _line(est, "finetune")
    assert all("g5.2xlarge" in n for n in names) and not any("m5.xlarge" in n for n in names)
    assert any(n.startswith("skipped, not meeting 1 x A10G") and "m5.xlarge" in n for n in notes)
    # a preferred type that serves none: the planner's first, as without a preference (g5.2xlarge:
    # spot within the fleet's tolerance)
    est = estimate_policy(_dev_finetune(stacks, instance_types=InstanceTypes(preferred=["m5.xlarge"])), catalog)
    assert all("g5.2xlarge" in n for n in _line(est, "finetune")[0])
    # allowed types of which none serves: nothing the fleet may run is priced
    est = estimate_policy(_dev_finetune(stacks, instance_types=InstanceTypes(allowed=["p4d.24xlarge"])), catalog)
    assert est.partial
    assert est.unpriced[0]["resource"] == "finetune"
    assert est.unpriced[0]["reason"].startswith("no allowed instance type has 1 x A10G with >= 24 GiB each: p4d.24xlarge")


def test_a_plan_less_estimate_plans_no_spot_for_training_without_checkpoints(stacks: dict[str, LoadedPolicy],
                                                                              catalog: Catalog) -> None:
    """A training fleet without a checkpoint block loses all its work at an interruption: the planner
    plans no spot for it, and neither does the estimate without a plan."""
    from seedance.policy.model import Spot, Workload

    high = Spot.model_validate({"maxShare": 1.0, "interruptionTolerance": "high"})
    est = estimate_policy(_dev_finetune(stacks, spot=high, workload=Workload.TRAINING, checkpoint=None), catalog)
    names, notes = _line(est, "finetune")
    assert not any("spot" in n for n in names)
    assert any(n.startswith("no spot: the planner plans none") and "training without a checkpoint block" in n for n in notes)
    # a fine-tuning fleet of the same shape is billed spot
    est = estimate_policy(_dev_finetune(stacks, spot=high), catalog)
    assert any("spot" in n for n in _line(est, "finetune")[0])


def test_without_history_or_reservations_the_plan_less_estimate_is_the_plans(stacks: dict[str, LoadedPolicy],
                                                                              catalog: Catalog) -> None:
    """A fleet without demand history and with nothing to reserve is decided alike with or without a
    plan: the planner's first type, its spot share, the policy's desired size."""
    import datetime as dt

    dev = stacks["dev"]
    plan = plan_policy(dev, catalog, as_of=dt.date(2024, 5, 30))
    with_plan = estimate_policy(dev, catalog, plan)
    without = estimate_policy(dev, catalog, as_of=dt.date(2024, 5, 30))
    for name in ("finetune", "batch-embed"):  # inference reserves a unit in the plan
        assert plan.fleet(name).reserved_units == 0
        assert without.by_fleet[name] == pytest.approx(with_plan.by_fleet[name], rel=1e-12)


def test_the_plan_less_type_is_the_plans_also_when_spot_ranks_another_first(tmp_path: Path, catalog: Catalog) -> None:
    """A gold 4 x A10G fleet of one node: spot ranks g5.48xlarge's pool first, but a gold fleet's only
    node runs on-demand, where g5.12xlarge is cheaper; the planner puts g5.12xlarge first, and the
    estimate without a plan must price the same type (it priced g5.48xlarge, 14,868.71 against 5,177.76)."""
    import datetime as dt

    policy = tmp_path / "p.yaml"
    policy.write_text("""apiVersion: seedance.io/v1
kind: CostPolicy
metadata: {name: rt, environment: dev, owner: a@example.com}
cloud: {region: eu-central-1, availabilityZones: [eu-central-1a], vpcId: vpc-0d1a2b3c4d5e6f703, subnetIds: [subnet-0d1b2c3d4e5f60001]}
budget: {monthlyAmount: 100000, currency: USD}
fleets:
  - name: f
    workload: batch
    sla: gold
    dataClass: internal
    capacity: {min: 1, desired: 1, max: 2}
    gpu: {model: A10G, count: 4}
    spot: {maxShare: 1.0, interruptionTolerance: medium}
    reserved: {mode: none}
""")
    loaded = load_policy(policy)
    plan = plan_policy(loaded, catalog, as_of=dt.date(2024, 5, 30))
    assert plan.fleet("f").instance_types[0].instance_type == "g5.12xlarge"
    without = estimate_policy(loaded, catalog, as_of=dt.date(2024, 5, 30))
    assert without.by_fleet["f"] == pytest.approx(estimate_policy(loaded, catalog, plan).by_fleet["f"], rel=1e-12)
    assert all("g5.12xlarge" in c.name for r in without.resources if r.kind == "fleet" for c in r.components
               if not c.name.startswith("Node root volumes"))
