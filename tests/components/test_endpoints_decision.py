"""Interface endpoint vs NAT (seedance.planner.endpoints) with hand-computed break-evens."""

from __future__ import annotations

import pytest

from seedance.planner.endpoints import EndpointPrices, Route, break_even_gb, decide_endpoints, endpoint_prices
from seedance.policy.model import EndpointService as S
from seedance.policy.model import Network
from seedance.pricing.catalog import load_catalog

# eu-central-1 list prices: endpoint 0.012 USD/AZ-hour and 0.01 USD/GB; NAT 0.052 USD/GB
EU = EndpointPrices(currency="USD", endpoint_hour_per_az=0.012, endpoint_per_gb=0.01, nat_per_gb=0.052, source="test")


def net(**kw) -> Network:
    return Network.model_validate(kw)


def test_break_even_by_hand():
    # 0.012 x 730 x 3 = 26.28 USD/month fixed; saving 0.042 USD/GB -> 625.714... GB
    assert break_even_gb(EU, 3) == pytest.approx(26.28 / 0.042)
    assert break_even_gb(EU, 1) == pytest.approx(8.76 / 0.042)
    never = EndpointPrices("USD", 0.01, 0.05, 0.045, "test")
    assert break_even_gb(never, 2) is None


def test_catalog_prices_for_eu_and_none_for_china():
    cat = load_catalog()
    p = endpoint_prices(cat, "eu-central-1")
    assert (p.endpoint_hour_per_az, p.endpoint_per_gb, p.nat_per_gb, p.currency) == (0.012, 0.01, 0.052, "USD")
    assert endpoint_prices(cat, "cn-north-1") is None


def test_auto_interface_only_above_break_even():
    decisions = decide_endpoints(net(monthlyTrafficGb={"s3": 40000, "ecr.dkr": 1500, "logs": 600, "sts": 626}), 3, EU)
    routes = {d.service: d.route for d in decisions}
    assert routes == {
        S.S3: Route.GATEWAY,
        S.DYNAMODB: Route.GATEWAY,
        S.ECR_DKR: Route.INTERFACE,  # 1500 > 625.7
        S.LOGS: Route.NAT,  # 600 <= 625.7
        S.STS: Route.INTERFACE,  # 626 > 625.7
    }
    dkr = next(d for d in decisions if d.service is S.ECR_DKR)
    assert dkr.monthly_cost_endpoint == pytest.approx(26.28 + 15.0)
    assert dkr.monthly_cost_nat == pytest.approx(78.0)
    assert "break-even 625.7 GB/month" in dkr.rationale and "above break-even" in dkr.rationale


def test_explicit_list_and_unknown_prices():
    decisions = decide_endpoints(net(endpoints=["kms"], monthlyTrafficGb={"logs": 5000}), 2, None)
    routes = {d.service: (d.route, d.break_even_gb) for d in decisions}
    assert routes == {S.S3: (Route.GATEWAY, None), S.DYNAMODB: (Route.GATEWAY, None), S.LOGS: (Route.NAT, None), S.KMS: (Route.INTERFACE, None)}
    unknown = decide_endpoints(net(monthlyTrafficGb={"logs": 5000}), 2, None)
    logs = next(d for d in unknown if d.service is S.LOGS)
    assert logs.route is Route.NAT and "break-even unknown" in logs.rationale


def test_needs_an_az():
    with pytest.raises(ValueError, match="azs: expected at least one availability zone"):
        decide_endpoints(net(), 0, EU)


def test_existing_endpoints_are_used_never_created():
    # ecr.dkr's 1500 GB would pay for an interface endpoint, and s3 always gets a gateway: the VPC
    # already has both (another stack's, the landing zone's), so the stack decides on neither
    n = net(existingEndpoints=["ecr.dkr", "s3", "kms"], monthlyTrafficGb={"s3": 40000, "ecr.dkr": 1500, "logs": 600})
    decisions = decide_endpoints(n, 3, EU)
    routes = {d.service: d.route for d in decisions}
    assert routes == {
        S.S3: Route.EXISTING,
        S.DYNAMODB: Route.GATEWAY,
        S.ECR_DKR: Route.EXISTING,
        S.LOGS: Route.NAT,  # 600 <= 625.7, as without the field
        S.KMS: Route.EXISTING,  # listed with no traffic declared: still a decision, so the rationale says so
    }
    dkr = next(d for d in decisions if d.service is S.ECR_DKR)
    assert not dkr.interface and dkr.break_even_gb is None
    assert dkr.monthly_cost_endpoint is None and dkr.monthly_cost_nat is None
    assert "the VPC's existing endpoint is used" in dkr.rationale and "1,500 GB/month declared" in dkr.rationale
    # an explicit list leaves them out too (validation refuses a service in both lists)
    explicit = decide_endpoints(net(endpoints=["logs"], existingEndpoints=["kms"]), 2, None)
    assert {d.service: d.route for d in explicit} == {S.S3: Route.GATEWAY, S.DYNAMODB: Route.GATEWAY,
                                                      S.LOGS: Route.INTERFACE, S.KMS: Route.EXISTING}


@pytest.mark.parametrize("prices", [EU, None], ids=["priced", "unpriced"])
def test_auto_without_a_nat_gateway_takes_an_endpoint_for_every_service_the_nodes_reach(prices):
    # natGateways 0: NAT is no route at all, so 'auto' takes an interface endpoint for every service with
    # traffic (however little) and for those every node reaches (ECR, STS, EC2 for the VPC CNI), priced or not
    network = net(natGateways=0, existingEndpoints=["sts"], monthlyTrafficGb={"s3": 40000, "logs": 5, "kms": 0})
    decisions = decide_endpoints(network, 3, prices)
    routes = {d.service: d.route for d in decisions}
    assert routes == {S.S3: Route.GATEWAY, S.DYNAMODB: Route.GATEWAY, S.ECR_API: Route.INTERFACE,
                      S.ECR_DKR: Route.INTERFACE, S.LOGS: Route.INTERFACE, S.STS: Route.EXISTING,
                      S.KMS: Route.NAT,  # no traffic: nothing to route
                      S.EC2: Route.INTERFACE}  # not autoscaling: the stack runs no Cluster Autoscaler
    ec2 = next(d for d in decisions if d.service is S.EC2)
    assert ec2.rationale == ("ec2: interface (no NAT gateway, network.natGateways 0, and every node reaches it: an "
                             "endpoint is its only route); no traffic declared")
    # the estimate routes them the same way
    from seedance.estimate.network import usage_of, network_prices, routes as estimate_routes
    from seedance.policy.model import CostPolicy

    policy = CostPolicy.model_validate({
        "apiVersion": "seedance.io/v1", "kind": "CostPolicy",
        "metadata": {"name": "n", "environment": "dev", "owner": "a@example.com"},
        "cloud": {"region": "eu-central-1", "availabilityZones": ["eu-central-1a"], "vpcId": "vpc-0123456789abcdef0",
                  "subnetIds": ["subnet-0123456789abcdef0"]},
        "budget": {"monthlyAmount": 1000}, "network": network.model_dump(mode="json", by_alias=True)})
    priced = {r.service: r.via for r in estimate_routes(usage_of(policy), network_prices(load_catalog(), "eu-central-1"))}
    # (the estimate lists a gateway service only when it has traffic: a gateway endpoint has no charge)
    assert priced == {s.value: r.value for s, r in routes.items() if s is not S.DYNAMODB}


def test_nat_traffic_crossing_zones_lowers_the_break_even():
    # 3 node zones, 2 NAT gateways: a third of the NAT traffic crosses, 0.01 USD/GB out and in, so a GB
    # through NAT costs 0.052 + 0.00667: break-even 26.28 / 0.048667 = 540.0 GB, and logs at 600 GB flips
    eu = EndpointPrices("USD", 0.012, 0.01, 0.052, "test", inter_az_per_direction=0.01)
    traffic = net(monthlyTrafficGb={"logs": 600}, natGateways=2)
    crossing = {d.service: d for d in decide_endpoints(traffic, 3, eu)}[S.LOGS]
    assert crossing.route is Route.INTERFACE and crossing.break_even_gb == pytest.approx(540.0)
    assert crossing.monthly_cost_nat == pytest.approx(600 * (0.052 + 0.02 / 3))
    assert "(0.052 + 0.00667 cross-zone - 0.01) USD/GB" in crossing.rationale
    # a gateway in every zone the nodes (and the endpoint) are in, or no transfer price: the old break-even
    for decided in (decide_endpoints(net(monthlyTrafficGb={"logs": 600}, natGateways=3), 3, eu),
                    decide_endpoints(traffic, 3, EU)):
        logs = {d.service: d for d in decided}[S.LOGS]
        assert logs.route is Route.NAT and logs.break_even_gb == pytest.approx(625.714, abs=1e-3)
    # one given subnet: the nodes and the endpoint share its zone, and one gateway there crosses nothing
    # (8.76 / 0.042 = 208.6 GB, so 200 GB stays on NAT)
    one = {d.service: d for d in decide_endpoints(net(monthlyTrafficGb={"logs": 200}, natGateways=1), 1, eu)}[S.LOGS]
    assert one.route is Route.NAT and one.break_even_gb == pytest.approx(208.571, abs=1e-3)
    assert endpoint_prices(load_catalog(), "eu-central-1").inter_az_per_direction == 0.01
