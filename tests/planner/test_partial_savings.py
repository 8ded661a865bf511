"""A plan whose cost leaves components unpriced: the cost is a lower bound, so what it saves against
all on-demand is at most the figure, never a figure of savings (red team: an unpriced reservation
read "80,358 USD (100%) saved")."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from seedance.cli import app
from seedance.estimate.plan_json import plan_from_json
from seedance.planner.plan import unpriced_components
from seedance.planner.planner import cost_text, plan_policy
from seedance.policy import load_policy
from seedance.pricing.catalog import PricingError, load_catalog

# us-east-1 p5.48xlarge: on-demand 55.04/h; the data has 3y reserved prices but no 1y one
P5 = "\n".join([
    "apiVersion: seedance.io/v1", "kind: CostPolicy",
    "metadata: {name: rt, environment: dev, owner: a@example.com, tags: {team: t, cost-center: CC-1}}",
    "cloud: {region: us-east-1, availabilityZones: [us-east-1a, us-east-1b], vpcId: vpc-0d1a2b3c4d5e6f703,",
    "        subnetIds: [subnet-0d1b2c3d4e5f60001, subnet-0d1b2c3d4e5f60002]}",
    "budget: {monthlyAmount: 100000}",
    "fleets:",
    "  - {name: inf, workload: inference, sla: silver, gpu: {model: H100, count: 8}, capacity: {min: 2, desired: 2, max: 4},",
    "     reserved: RESERVED}",
    "network: {natGateways: 1}", ""])
RI_NAME = "Reserved instances (Linux, 1y no-upfront, p5.48xlarge)"


def _policy(tmp_path: Path, reserved: str) -> Path:
    pol = tmp_path / "p5.yaml"
    pol.write_text(P5.replace("RESERVED", reserved), encoding="utf-8")
    return pol


@pytest.fixture(scope="module")
def catalog():  # type: ignore[no-untyped-def]
    return load_catalog()


def test_an_unpriced_reservation_is_not_counted_as_a_saving(tmp_path, catalog) -> None:  # type: ignore[no-untyped-def]
    # 2 reserved p5.48xlarge, 2 x 730 = 1,460 reserved hours with no 1y price: unpriced, not free.
    # Priced: the 2 root volumes, 2 x 200 GiB x 0.08 = 32.00. All on-demand: 1,460 h x 55.04 = 80,358.40
    # + 32.00 = 80,390.40. So the cost is at least 32.00 and the saving at most 80,358.40
    plan = plan_policy(load_policy(_policy(tmp_path, "{mode: fixed, units: 2, term: 1y}")), catalog,
                       as_of=dt.date(2024, 5, 30))
    f = plan.fleet("inf")
    assert f.monthly_cost == pytest.approx(32.0) and f.monthly_cost_all_ondemand == pytest.approx(80_390.40)
    assert plan.savings == pytest.approx(80_358.40)  # the field keeps its meaning: all on-demand - cost ...
    assert f.partial and plan.partial and plan.savings_upper_bound  # ... and says it is an upper bound
    assert unpriced_components(f) == [RI_NAME]
    assert f.rationale["cost"] == ("32 USD/month (a lower bound) for ~2.0 units vs 80,390 all on-demand: at most "
                                   f"80,358 (100%) saved; 1 component(s) unpriced: {RI_NAME}")
    doc = json.loads(json.dumps(plan.to_json()))
    assert doc["savings_upper_bound"] is True and doc["fleets"][0]["partial"] is True
    assert isinstance(doc["savings"], float)  # still a number, as before


def test_a_fully_priced_plan_says_what_it_did(tmp_path, catalog) -> None:  # type: ignore[no-untyped-def]
    # the same fleet with nothing reserved: 80,390.40 on both sides, fully priced
    plan = plan_policy(load_policy(_policy(tmp_path, "{mode: none}")), catalog, as_of=dt.date(2024, 5, 30))
    f = plan.fleet("inf")
    assert not f.partial and not plan.partial and not plan.savings_upper_bound
    assert f.rationale["cost"] == "80,390 USD/month for ~2.0 units vs 80,390 all on-demand (0% saved)"


def test_cost_text_by_hand() -> None:
    # fully priced: as it always read
    assert cost_text(70.0, 100.0, 2.0, "USD", []) == "70 USD/month for ~2.0 units vs 100 all on-demand (30% saved)"
    assert cost_text(120.0, 100.0, 2.0, "USD", [], why_more=["x"]) == \
        "120 USD/month for ~2.0 units vs 100 all on-demand (20% more: x)"
    assert cost_text(5.0, 0.0, 0.0, "USD", []) == "5 USD/month"
    # partial: 70 or more against 100 saves at most 30; 120 or more costs at least 20% more
    assert cost_text(70.0, 100.0, 2.0, "USD", ["a", "b"]) == \
        "70 USD/month (a lower bound) for ~2.0 units vs 100 all on-demand: at most 30 (30%) saved; 2 component(s) unpriced: a, b"
    assert cost_text(120.0, 100.0, 2.0, "USD", ["a"], why_more=["x"]) == \
        "120 USD/month (a lower bound) for ~2.0 units vs 100 all on-demand (at least 20% more: x); 1 component(s) unpriced: a"
    # both sides leave the root volumes out (no EBS price in the region)
    assert cost_text(70.0, 100.0, 2.0, "CNY", ["v"], od_unpriced=True) == \
        "70 CNY/month (a lower bound) for ~2.0 units vs 100 all on-demand (a lower bound too): at most 30 (30%) saved; " \
        "1 component(s) unpriced: v"


def test_plan_text_says_at_most(tmp_path) -> None:  # type: ignore[no-untyped-def]
    out = CliRunner().invoke(app, ["plan", str(_policy(tmp_path, "{mode: fixed, units: 2, term: 1y}")), "--as-of",
                                   "2024-05-30"], catch_exceptions=False, terminal_width=250).output
    summary = next(line for line in out.splitlines() if line.startswith("Fleet compute"))
    assert summary == ("Fleet compute (partial: some components have no sourced price): at least 32 USD per month vs "
                       "80,390 USD all on-demand: at most 80,358 USD (100%) saved; 1 component(s) unpriced (listed "
                       "below): the cost is a lower bound")
    assert "32 USD + unpriced" in out  # the fleet's row of the table
    full = CliRunner().invoke(app, ["plan", str(_policy(tmp_path, "{mode: none}")), "--as-of", "2024-05-30"],
                              catch_exceptions=False, terminal_width=250).output
    assert "Fleet compute: 80,390 USD per month vs 80,390 USD all on-demand: 0 USD (0%) saved" in full
    assert "unpriced" not in full and "at most" not in full


def test_the_plan_reader_reads_the_bounds_back(tmp_path, catalog) -> None:  # type: ignore[no-untyped-def]
    plan = plan_policy(load_policy(_policy(tmp_path, "{mode: fixed, units: 2, term: 1y}")), catalog,
                       as_of=dt.date(2024, 5, 30))
    doc = json.loads(json.dumps(plan.to_json()))
    assert plan_from_json(doc) == plan
    # a plan written before the fields: worked out from its partial flag and its components
    old = json.loads(json.dumps(doc))
    del old["savings_upper_bound"], old["fleets"][0]["partial"]
    back = plan_from_json(old)
    assert back.savings_upper_bound and back.fleets[0].partial
    priced = plan_policy(load_policy(_policy(tmp_path, "{mode: none}")), catalog, as_of=dt.date(2024, 5, 30))
    old = json.loads(json.dumps(priced.to_json()))
    del old["savings_upper_bound"], old["fleets"][0]["partial"]
    back = plan_from_json(old)
    assert not back.savings_upper_bound and not back.fleets[0].partial
    # a value of another type is refused, named
    doc["savings_upper_bound"], doc["fleets"][0]["partial"] = "yes", 1
    with pytest.raises(PricingError, match=r"savings_upper_bound: expected true or false") as err:
        plan_from_json(doc)
    assert "fleets[0].partial: expected true or false" in str(err.value)
