"""NAT gateway vs VPC endpoints, and the break-even the components reuse."""

from __future__ import annotations

import math

import pytest

from seedance.estimate.network import NetworkUsage, cost_components, endpoint_break_even_gb, network_prices, routes
from seedance.pricing.catalog import Catalog

TRAFFIC = (("ecr.dkr", 1000.0), ("logs", 100.0), ("s3", 2000.0))


def test_break_even() -> None:
    # us-east-1, 2 AZs: 2 × 730 × 0.01 / (0.045 − 0.01) = 14.6 / 0.035
    be = endpoint_break_even_gb(az_count=2, interface_hour_price=0.01, interface_gb_price=0.01, nat_gb_price=0.045)
    assert be == pytest.approx(417.142857, abs=1e-6)
    assert endpoint_break_even_gb(az_count=3, interface_hour_price=0.012, interface_gb_price=0.01, nat_gb_price=0.052) == pytest.approx(625.714286, abs=1e-6)
    assert endpoint_break_even_gb(az_count=1, interface_hour_price=0.01, interface_gb_price=0.05, nat_gb_price=0.045) == math.inf
    with pytest.raises(ValueError, match="at least one availability zone"):
        endpoint_break_even_gb(az_count=0, interface_hour_price=0.01, interface_gb_price=0.01, nat_gb_price=0.045)


def test_auto_takes_an_interface_endpoint_above_break_even(catalog: Catalog) -> None:
    u = NetworkUsage(az_count=2, nat_gateways=1, monthly_traffic_gb=TRAFFIC, endpoints=None)
    p = network_prices(catalog, "us-east-1")
    assert [(r.service, r.via) for r in routes(u, p)] == [("ecr.dkr", "interface"), ("logs", "nat"), ("s3", "gateway")]
    comps = cost_components(u, p, "USD")
    assert [(c.name, c.monthly_quantity, round(c.monthly_cost, 2)) for c in comps] == [
        ("NAT gateway", 730.0, 32.85),  # 1 × 730 × 0.045
        ("NAT data processed (logs)", 100.0, 4.50),  # 100 × 0.045
        ("NAT cross-zone transfer (logs)", 100.0, 1.00),  # half of 100 GB from the zone without one, out and in × 0.01
        ("Interface endpoint (ecr.dkr)", 1460.0, 14.60),  # 2 AZ × 730 × 0.01
        ("Interface endpoint data processed (ecr.dkr)", 1000.0, 10.00),  # 1000 × 0.01
        ("Gateway endpoint (s3)", 1.0, 0.00),  # no charge (sourced $0 row)
    ]
    assert round(sum(c.monthly_cost for c in comps), 2) == 62.95


def test_interface_processing_above_the_first_tier_is_an_upper_bound(catalog: Catalog) -> None:
    # the data prices the first PB a month (1,048,576 GB) over all the region's interface endpoints: two
    # endpoints of 600,000 GB each pass it together, so both lines say they are an upper bound
    p = network_prices(catalog, "us-east-1")
    big = NetworkUsage(az_count=2, nat_gateways=1, monthly_traffic_gb=(("ecr.dkr", 600_000.0), ("logs", 600_000.0)),
                       endpoints=None)
    lines = [c for c in cost_components(big, p, "USD") if c.name.startswith("Interface endpoint data")]
    assert [(c.monthly_quantity, round(c.monthly_cost, 2)) for c in lines] == [(600_000.0, 6000.0)] * 2
    assert all(c.usage_note and "first-1-PB rate (upper bound" in c.usage_note for c in lines)
    # below the tier, no note
    small = NetworkUsage(az_count=2, nat_gateways=1, monthly_traffic_gb=(("ecr.dkr", 600_000.0),), endpoints=None)
    assert [c.usage_note for c in cost_components(small, p, "USD") if c.name.startswith("Interface endpoint data")] == [None]


def test_explicit_list_keeps_other_traffic_on_nat(catalog: Catalog) -> None:
    u = NetworkUsage(az_count=2, nat_gateways=1, monthly_traffic_gb=TRAFFIC, endpoints=("s3",))
    comps = cost_components(u, network_prices(catalog, "us-east-1"), "USD")
    # NAT 32.85 + (1000 + 100) × (0.045 + 0.01 crossing half the time, out and in) = 32.85 + 60.50;
    # the auto choice above saves 30.40
    assert round(sum(c.monthly_cost for c in comps), 2) == 93.35
    assert comps[1].name == "NAT data processed (ecr.dkr, logs)"


def test_listed_interface_endpoint_without_traffic_still_costs_hours(catalog: Catalog) -> None:
    u = NetworkUsage(az_count=3, nat_gateways=0, monthly_traffic_gb=(), endpoints=("sts",))
    comps = cost_components(u, network_prices(catalog, "eu-central-1"), "USD")
    assert [(c.name, round(c.monthly_cost, 2)) for c in comps] == [("Interface endpoint (sts)", 26.28)]  # 3 × 730 × 0.012


def test_china_network_is_unpriced(catalog: Catalog) -> None:
    u = NetworkUsage(az_count=2, nat_gateways=2, monthly_traffic_gb=TRAFFIC, endpoints=None)
    p = network_prices(catalog, "cn-north-1")
    assert [r.via for r in routes(u, p)] == ["nat", "nat", "gateway"]
    comps = cost_components(u, p, "CNY")
    assert comps and all(c.monthly_cost is None and c.unpriced_reason for c in comps)


@pytest.mark.parametrize(("zones", "subnets", "priced"), [
    (["a", "b", "c"], ["s1", "s2", "s3"], 3),
    (["a", "b", "c"], ["s1", "s2"], 2),  # two subnets: an endpoint is in two zones at most
    (["a", "b"], ["s1", "s2", "s3", "s4"], 2),  # public and private per zone: one subnet per zone
    (["a"], ["s1", "s1"], 1),
])
def test_interface_endpoints_are_priced_in_the_zones_they_can_be_in(zones: list[str], subnets: list[str], priced: int) -> None:
    from seedance.estimate.network import interface_endpoint_zones

    assert interface_endpoint_zones(zones, subnets) == priced


def test_existing_endpoints_are_priced_neither_as_endpoint_nor_as_nat(catalog: Catalog) -> None:
    # ecr.dkr (1000 GB, above break-even) and logs (100 GB, on NAT) go through the VPC's existing
    # endpoints, s3 through its existing gateway: the stack pays for none of them
    u = NetworkUsage(az_count=2, nat_gateways=1, monthly_traffic_gb=TRAFFIC, endpoints=None,
                     existing=("ecr.dkr", "kms", "logs", "s3"))
    p = network_prices(catalog, "us-east-1")
    rs = routes(u, p)
    assert [(r.service, r.via) for r in rs] == [("ecr.dkr", "existing"), ("kms", "existing"), ("logs", "existing"),
                                                ("s3", "existing")]
    assert all("the VPC's existing endpoint is used" in r.reason for r in rs)
    comps = cost_components(u, p, "USD")
    assert [(c.name, round(c.monthly_cost, 2)) for c in comps] == [("NAT gateway", 32.85)]  # the VPC's hours only
    # an explicit list: the listed interface endpoint is the stack's, the existing one is not, and
    # traffic to neither is NAT processing
    u = NetworkUsage(az_count=2, nat_gateways=1, monthly_traffic_gb=TRAFFIC, endpoints=("logs",), existing=("ecr.dkr",))
    comps = cost_components(u, p, "USD")
    assert [c.name for c in comps] == ["NAT gateway", "Interface endpoint (logs)", "Interface endpoint data processed (logs)",
                                       "Gateway endpoint (s3)"]


def test_existing_endpoints_leave_the_estimate_of_the_policy(tmp_path) -> None:  # type: ignore[no-untyped-def]
    # eu-prod: ecr.dkr (1500 GB) has an interface endpoint and kms (2 GB) and logs (600 GB) go
    # through NAT; with those three existing, none of them is priced and the total drops by as much
    import shutil
    from pathlib import Path

    from seedance.estimate import estimate_policy
    from seedance.policy import load_policy
    from seedance.pricing.catalog import load_catalog

    stacks = Path(__file__).resolve().parents[2] / "stacks"
    shutil.copytree(stacks, tmp_path / "stacks", ignore=shutil.ignore_patterns("__pycache__"))
    policy = tmp_path / "stacks" / "policies" / "eu-prod.yaml"
    cat = load_catalog()
    before = estimate_policy(load_policy(policy), cat)
    policy.write_text(policy.read_text() + "network:\n  existingEndpoints: [ecr.dkr, kms, logs]\n")
    after = estimate_policy(load_policy(policy), cat)

    def network(est):  # type: ignore[no-untyped-def]
        return {c.name: c.monthly_cost for r in est.resources if r.kind == "network" for c in r.components}

    old, new = network(before), network(after)
    assert "Interface endpoint (ecr.dkr)" in old and not any("ecr.dkr" in name for name in new)
    assert "Interface endpoint (logs)" in old and not any("logs" in name for name in new)
    # a third of the NAT traffic crosses zones (2 NAT gateways, 3 zones), 0.01 USD/GB out and in
    assert old["NAT data processed (ecr.api, kms, sts)"] == pytest.approx((5 + 2 + 1) * 0.052)
    assert old["NAT cross-zone transfer (ecr.api, kms, sts)"] == pytest.approx(2 * (5 + 2 + 1) / 3 * 0.01)
    assert new["NAT data processed (ecr.api, sts)"] == pytest.approx((5 + 1) * 0.052)
    assert new["NAT cross-zone transfer (ecr.api, sts)"] == pytest.approx(2 * (5 + 1) / 3 * 0.01)
    saved = sum(old[f"Interface endpoint{part} ({s})"] for part in ("", " data processed") for s in ("ecr.dkr", "logs")) \
        + 2 * 0.052 + 2 * 2 / 3 * 0.01
    assert before.total - after.total == pytest.approx(saved, abs=0.01)
    notes = [n for r in after.resources if r.kind == "network" for n in r.notes]
    assert "kms: existing (the VPC's existing endpoint is used (network.existingEndpoints): the stack creates none, " \
           "and its owner pays its hours and processing)" in notes


def test_traffic_routed_to_nat_is_priced_even_without_a_nat_gateway(catalog: Catalog) -> None:
    p = network_prices(catalog, "us-east-1")
    # an explicit list leaving ecr.dkr and logs on NAT (validation refuses it with natGateways 0, but an
    # existing endpoint AWS says does not serve lands there too): their processing is priced, no NAT hours
    u = NetworkUsage(az_count=2, nat_gateways=0, monthly_traffic_gb=TRAFFIC, endpoints=("s3",))
    comps = cost_components(u, p, "USD")
    assert [(c.name, round(c.monthly_cost, 2)) for c in comps] == [("NAT data processed (ecr.dkr, logs)", 49.5),
                                                                   ("Gateway endpoint (s3)", 0.0)]
    # auto without a NAT gateway: an endpoint for each service with traffic and each the nodes reach
    u = NetworkUsage(az_count=2, nat_gateways=0, monthly_traffic_gb=TRAFFIC, endpoints=None)
    rs = routes(u, p)
    assert [(r.service, r.via) for r in rs] == [("ec2", "interface"), ("ecr.api", "interface"), ("ecr.dkr", "interface"),
                                                ("logs", "interface"), ("s3", "gateway"), ("sts", "interface")]
    assert all("no NAT gateway" in r.reason for r in rs if r.via == "interface")
    assert not any(c.name.startswith("NAT ") for c in cost_components(u, p, "USD"))


def test_the_ec2_endpoint_every_node_needs_without_nat_is_priced(catalog: Catalog) -> None:
    # the VPC CNI plugin on every node calls EC2: with no NAT gateway 'auto' takes its endpoint, priced as
    # any interface endpoint (the catalog's VPC rates are per endpoint, whatever the service)
    p = network_prices(catalog, "us-east-1")
    u = NetworkUsage(az_count=2, nat_gateways=0, monthly_traffic_gb=(), endpoints=None)
    ec2 = [(c.name, c.unit, c.monthly_quantity, c.unit_price, round(c.monthly_cost, 2))
           for c in cost_components(u, p, "USD") if "(ec2)" in c.name]
    assert ec2 == [("Interface endpoint (ec2)", "AZ-hours", 1460.0, 0.01, 14.6)]
    # listed explicitly, with traffic (autoscaling for a cluster's own Cluster Autoscaler): hours and GB
    u = NetworkUsage(az_count=2, nat_gateways=0, monthly_traffic_gb=(("autoscaling", 10.0), ("ec2", 20.0)),
                     endpoints=("autoscaling", "ec2", "ecr.api", "ecr.dkr", "sts"))
    comps = {c.name: round(c.monthly_cost, 2) for c in cost_components(u, p, "USD")}
    assert comps["Interface endpoint (ec2)"] == comps["Interface endpoint (autoscaling)"] == 14.6
    assert (comps["Interface endpoint data processed (ec2)"], comps["Interface endpoint data processed (autoscaling)"]) == (0.2, 0.1)
    assert not any(n.startswith("NAT ") for n in comps)


def test_nat_traffic_of_zones_without_a_gateway_crosses_zones(catalog: Catalog) -> None:
    from seedance.estimate.network import nat_cross_zone_gb_price, nat_cross_zone_share

    assert [nat_cross_zone_share(z, n) for z, n in ((3, 2), (2, 1), (3, 1), (2, 2), (2, 3), (3, 0), (0, 1))] == \
        [pytest.approx(1 / 3), 0.5, pytest.approx(2 / 3), 0.0, 0.0, 0.0, 0.0]
    assert nat_cross_zone_gb_price(0.01, 2, 1) == pytest.approx(0.01)  # half the GB, out and in
    # us-east-1, 2 interface zones: 14.6 / (0.045 + 0.01 - 0.01) = 324.4 GB, so logs at 400 GB flips
    traffic = (("logs", 400.0),)
    p = network_prices(catalog, "us-east-1")
    one_nat = NetworkUsage(az_count=2, nat_gateways=1, monthly_traffic_gb=traffic, endpoints=None)
    two_nat = NetworkUsage(az_count=2, nat_gateways=2, monthly_traffic_gb=traffic, endpoints=None)
    assert [r.via for r in routes(one_nat, p)] == ["interface"] and "break-even 324.4 GB" in routes(one_nat, p)[0].reason
    assert [r.via for r in routes(two_nat, p)] == ["nat"] and "break-even 417.1 GB" in routes(two_nat, p)[0].reason
    # on NAT (an explicit list), the crossing half is priced out and in beside the processing; none with a
    # gateway in every zone
    listed = NetworkUsage(az_count=2, nat_gateways=1, monthly_traffic_gb=traffic, endpoints=("s3",))
    comps = {c.name: c for c in cost_components(listed, p, "USD")}
    cross = comps["NAT cross-zone transfer (logs)"]
    assert (cross.monthly_quantity, cross.monthly_cost) == (pytest.approx(400.0), pytest.approx(4.0))
    assert cross.usage_note.startswith("no NAT gateway in 1 of the 2 zones (network.natGateways 1): their nodes' 50%")
    both = NetworkUsage(az_count=2, nat_gateways=2, monthly_traffic_gb=traffic, endpoints=("s3",))
    assert not [c for c in cost_components(both, p, "USD") if "cross-zone" in c.name]


def test_cross_zone_transfer_without_a_sourced_price_is_unpriced(catalog: Catalog) -> None:
    # the data has no transfer price for the China regions: the component says so, never free
    p = network_prices(catalog, "cn-north-1")
    u = NetworkUsage(az_count=2, nat_gateways=1, monthly_traffic_gb=(("logs", 100.0),), endpoints=("s3",))
    cross = [c for c in cost_components(u, p, "CNY") if "cross-zone" in c.name]
    assert len(cross) == 1 and cross[0].monthly_cost is None and cross[0].unpriced_reason
    assert cross[0].usage_note and cross[0].usage_note.startswith("no NAT gateway in 1 of the 2 zones")  # why it is there


def test_nodes_cross_zones_only_between_the_zones_their_subnets_give(catalog: Catalog) -> None:
    # three listed zones but one given subnet: the nodes, the NAT gateway and the endpoint all sit in
    # one zone, so nothing crosses, and logs at 200 GB stay on NAT (break-even 8.76 / 0.042 = 208.6 GB)
    from seedance.estimate.network import usage_of
    from seedance.policy.model import CostPolicy

    def policy(subnets: list[str]) -> CostPolicy:
        return CostPolicy.model_validate({
            "apiVersion": "seedance.io/v1", "kind": "CostPolicy",
            "metadata": {"name": "n", "environment": "dev", "owner": "a@example.com"},
            "cloud": {"region": "eu-central-1", "availabilityZones": ["eu-central-1a", "eu-central-1b", "eu-central-1c"],
                      "vpcId": "vpc-0123456789abcdef0", "subnetIds": subnets},
            "budget": {"monthlyAmount": 1000}, "network": {"natGateways": 1, "monthlyTrafficGb": {"logs": 200}}})

    p = network_prices(catalog, "eu-central-1")
    one = usage_of(policy(["subnet-0123456789abcdef0"]))
    assert [(r.via, r.reason.split("break-even ")[1][:8]) for r in routes(one, p)] == [("nat", "208.6 GB")]
    assert not [c for c in cost_components(one, p, "USD") if "cross-zone" in c.name]
    # three subnets (three zones, as many as listed): two thirds of the NAT traffic crosses
    three = usage_of(policy([f"subnet-0123456789abcdef{i}" for i in range(3)]))
    cross = {c.name: c for c in cost_components(three, p, "USD")}["NAT cross-zone transfer (logs)"]
    assert cross.monthly_quantity == pytest.approx(2 * 200 * 2 / 3)
