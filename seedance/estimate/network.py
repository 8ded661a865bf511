"""NAT gateways vs VPC endpoints for the traffic in ``network.monthlyTrafficGb``.

* NAT: hourly per gateway (``natGateways`` × 730 h) plus per GB processed for all traffic that
  does not go through an endpoint.
* Gateway endpoints (S3, DynamoDB): no charge (the shared data's sourced $0 rows); always used
  for those services, as the stack always deploys them (an explicit list too).
* Interface endpoints: hourly per AZ (one ENI in each availability zone the endpoint is in, see
  :func:`interface_endpoint_zones`) plus per GB processed (first-1-PB tier).
* Transfer between zones to a NAT gateway in another zone: with fewer NAT gateways than the zones
  the nodes run in (``cloud.availabilityZones``), the traffic of the zones without one crosses to a
  gateway in another, charged out and in (:func:`nat_cross_zone_share`). An interface endpoint has an
  ENI in each zone, so its traffic does not cross; the break-even counts the difference.

``endpoints: auto`` takes an interface endpoint for a service exactly when its monthly traffic is
above :func:`endpoint_break_even_gb` — the GB at which the endpoint's fixed monthly cost equals the
per-GB saving against NAT processing.  An explicit list takes endpoints for the listed services.
A service the VPC already has an endpoint for (``network.existingEndpoints``) is priced nothing: the
stack creates no endpoint for it, and its traffic goes through the VPC's endpoint, not the NAT (the
endpoint's owner pays its hours and processing) - unless AWS says the VPC has no endpoint for it that
serves (``seedance check --lookup``/``--facts``, :attr:`NetworkUsage.unserved`): then its traffic goes
through the NAT, and is priced so.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from seedance.estimate.components import HOURS_PER_MONTH, CostComponent, Rate, ResourceCost, lookup, priced
from seedance.estimate.context import EstimateContext
from seedance.policy.model import NODE_SERVICES, CostPolicy, EndpointService, needs_route
from seedance.pricing.catalog import Catalog

KIND = "network"
SERVICE = "VPC"

GATEWAY_SERVICES = frozenset({EndpointService.S3.value, EndpointService.DYNAMODB.value})


def endpoint_break_even_gb(
    *,
    az_count: int,
    interface_hour_price: float,
    interface_gb_price: float,
    nat_gb_price: float,
    hours: float = HOURS_PER_MONTH,
    cross_zone_gb_price: float = 0.0,
) -> float:
    """Monthly GB above which an interface endpoint is cheaper than sending the traffic via NAT.

    fixed = az_count × hours × interface_hour_price; saving per GB = nat_gb_price +
    cross_zone_gb_price (what a GB through NAT pays on average for crossing zones to reach it, see
    :func:`nat_cross_zone_gb_price`) − interface_gb_price; break-even = fixed / saving
    (``math.inf`` when there is no saving). NAT gateway hours are not part of it: the gateways stay
    for the other traffic.
    """
    if az_count < 1:
        raise ValueError(f"expected at least one availability zone, got {az_count}")
    saving = nat_gb_price + cross_zone_gb_price - interface_gb_price
    if saving <= 0:
        return math.inf
    return az_count * hours * interface_hour_price / saving


def nat_cross_zone_share(zones: int, nat_gateways: int) -> float:
    """The share of the NAT traffic that crosses zones to reach a NAT gateway: the nodes spread evenly
    over ``zones`` zones, the VPC's ``nat_gateways`` gateways are in as many of them (one per zone, as
    ``network.natGateways`` counts them), and each zone with one routes to its own. 0 with no gateway."""
    if zones < 1 or nat_gateways < 1 or nat_gateways >= zones:
        return 0.0
    return (zones - nat_gateways) / zones


def nat_cross_zone_gb_price(per_direction: float, zones: int, nat_gateways: int) -> float:
    """What a GB through NAT pays on average for crossing zones: its share that crosses
    (:func:`nat_cross_zone_share`), charged out of one zone and into the other."""
    return 2 * per_direction * nat_cross_zone_share(zones, nat_gateways)


def interface_endpoint_zones(availability_zones: Sequence[str], subnet_ids: Sequence[str]) -> int:
    """The availability zones an interface endpoint of the stack is priced in.

    AWS takes one subnet per zone for an interface endpoint, and the stack gives it one given subnet
    (``cloud.subnetIds``) in each zone the policy lists (``cloud.availabilityZones``; see
    :func:`components.network.endpoint_subnets`): so at most one zone per listed zone and one per
    given subnet. Given subnets that share a zone, or lie outside the listed zones, put the endpoint
    in fewer zones; only EC2 knows a subnet's zone, so the estimate prices the upper bound. The nodes
    run in the same given subnets, so these are also the zones their NAT traffic starts from
    (:func:`nat_cross_zone_share`).
    """
    return min(len(set(availability_zones)), len(set(subnet_ids)))


@dataclass(frozen=True)
class NetworkUsage:
    az_count: int
    nat_gateways: int
    monthly_traffic_gb: tuple[tuple[str, float], ...]  # (service, GB) sorted by service
    endpoints: tuple[str, ...] | None  # None = "auto"
    existing: tuple[str, ...] = ()  # the VPC's own endpoints (network.existingEndpoints), sorted
    # those of them AWS says the VPC has no serving endpoint for: (service, why), sorted
    unserved: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class NetworkPrices:
    nat_hour: Rate
    nat_gb: Rate
    interface_hour: Rate
    interface_gb: Rate
    gateway: dict[str, Rate]
    cross_zone: Rate  # per GB and direction between zones


def network_prices(catalog: Catalog, region: str) -> NetworkPrices:
    def r(item: str) -> Rate:
        return lookup(catalog, region, "VPC", item)

    return NetworkPrices(
        nat_hour=r("nat_gateway_hour"),
        nat_gb=r("nat_gateway_data_processed"),
        interface_hour=r("interface_endpoint_hour_per_az"),
        interface_gb=r("interface_endpoint_data_processed_first_1pb"),
        gateway={s: r(f"gateway_endpoint_{s}") for s in sorted(GATEWAY_SERVICES)},
        cross_zone=lookup(catalog, region, "DataTransfer", "inter_az_per_direction"),
    )


#: The interface endpoint processing tier the data prices: the first PB a month, 1,024 × 1,024 GB (the
#: price list's tiers count in 1,024s, as S3's first 50 TB is 51,200 GB).
INTERFACE_FIRST_TIER_GB = 1024 * 1024


@dataclass(frozen=True)
class Route:
    service: str
    via: str  # "gateway" | "interface" | "nat" | "existing"
    reason: str


def routes(u: NetworkUsage, p: NetworkPrices) -> list[Route]:
    """Where each service's traffic goes (pure)."""
    traffic = dict(u.monthly_traffic_gb)
    # without a NAT gateway, auto takes an endpoint for each service the nodes reach (as the planner does)
    no_nat = u.endpoints is None and not u.nat_gateways
    services = sorted(set(traffic) | set(u.endpoints or ()) | set(u.existing)
                      | ({s.value for s in NODE_SERVICES} if no_nat else set()))
    out = []
    be: float | None = None
    if None not in (p.interface_hour.value, p.interface_gb.value, p.nat_gb.value):
        be = endpoint_break_even_gb(
            az_count=u.az_count,
            interface_hour_price=p.interface_hour.value,  # type: ignore[arg-type]
            interface_gb_price=p.interface_gb.value,  # type: ignore[arg-type]
            nat_gb_price=p.nat_gb.value,  # type: ignore[arg-type]
            # unpriced (no sourced price for the region): left out, and the NAT's crossing unpriced
            cross_zone_gb_price=nat_cross_zone_gb_price(p.cross_zone.value or 0.0, u.az_count, u.nat_gateways),
        )
    unserved = dict(u.unserved)
    for s in services:
        gb = traffic.get(s, 0.0)
        if s in u.existing and s in unserved:  # the stack creates none, and the VPC has none that serves
            out.append(Route(s, "nat", f"network.existingEndpoints names it, but AWS says {unserved[s]}: "
                                       "the stack creates none, so its traffic goes through NAT"))
        elif s in u.existing:  # no endpoint of the stack's (seedance.planner.endpoints), and no NAT
            out.append(Route(s, "existing", "the VPC's existing endpoint is used (network.existingEndpoints): "
                                            "the stack creates none, and its owner pays its hours and processing"))
        elif s in GATEWAY_SERVICES:  # deployed whatever network.endpoints lists (seedance.planner.endpoints)
            out.append(Route(s, "gateway", "gateway endpoints have no charge; the stack always has them"))
        elif u.endpoints is not None:
            if s in u.endpoints:
                out.append(Route(s, "interface", "listed in network.endpoints"))
            else:
                out.append(Route(s, "nat", "not listed in network.endpoints"))
        elif no_nat and needs_route(s, gb):
            out.append(Route(s, "interface", "no NAT gateway (network.natGateways 0): an endpoint is its only route"))
        elif be is None:
            out.append(Route(s, "nat", "break-even unknown (no sourced endpoint/NAT prices); traffic left on NAT"))
        elif gb > be:
            out.append(Route(s, "interface", f"{gb:g} GB/month > break-even {be:.1f} GB"))
        else:
            out.append(Route(s, "nat", f"{gb:g} GB/month <= break-even {be:.1f} GB"))
    return out


def cost_components(u: NetworkUsage, p: NetworkPrices, currency: str) -> list[CostComponent]:
    """NAT hours and processing, gateway and interface endpoints (pure)."""
    traffic = dict(u.monthly_traffic_gb)
    rs = routes(u, p)
    out: list[CostComponent] = []
    if u.nat_gateways:
        out.append(priced("NAT gateway", "hours", float(u.nat_gateways * HOURS_PER_MONTH), p.nat_hour, currency))
    # traffic routed to NAT is priced so even where the policy says the VPC has no NAT gateway (validation
    # refuses that unless an endpoint serves each such service; an existing endpoint AWS says does not
    # serve may still land here): never free
    nat_gb = sum(traffic.get(r.service, 0.0) for r in rs if r.via == "nat")
    if nat_gb:
        names = ", ".join(r.service for r in rs if r.via == "nat" and traffic.get(r.service, 0.0))
        out.append(priced(f"NAT data processed ({names})", "GB", nat_gb, p.nat_gb, currency))
        share = nat_cross_zone_share(u.az_count, u.nat_gateways)
        if share:
            note = (f"no NAT gateway in {u.az_count - u.nat_gateways} of the {u.az_count} zones "
                    f"(network.natGateways {u.nat_gateways}): their nodes' {share:.0%} of the traffic crosses to a "
                    "gateway in another zone, charged out and in (nodes spread evenly; each zone with a gateway "
                    "routes to its own)")
            out.append(priced(f"NAT cross-zone transfer ({names})", "GB (out and in)", 2 * nat_gb * share,
                              p.cross_zone, currency, note=note))
    # the processing tiers are per region and account, over all interface endpoints: the data prices
    # the first 1 PB a month only
    interface_gb = sum(traffic.get(r.service, 0.0) for r in rs if r.via == "interface")
    above_tier = ("priced at the first-1-PB rate (upper bound: AWS charges less per GB above 1 PB a month "
                  "over the region's interface endpoints)") if interface_gb > INTERFACE_FIRST_TIER_GB else None
    for r in rs:
        gb = traffic.get(r.service, 0.0)
        if r.via == "gateway":
            out.append(priced(f"Gateway endpoint ({r.service})", "endpoints", 1.0, p.gateway[r.service], currency))
        elif r.via == "interface":
            out.append(priced(f"Interface endpoint ({r.service})", "AZ-hours", float(u.az_count * HOURS_PER_MONTH), p.interface_hour, currency))
            if gb:
                out.append(priced(f"Interface endpoint data processed ({r.service})", "GB", gb, p.interface_gb, currency,
                                  note=above_tier))
    return out


def usage_from_policy(ctx: EstimateContext) -> NetworkUsage:
    return usage_of(ctx.policy, ctx.unserved_endpoints)


def usage_of(policy: CostPolicy, unserved_endpoints: Sequence[tuple[str, str]] = ()) -> NetworkUsage:
    """The network usage of ``policy`` (``unserved_endpoints``: see :attr:`NetworkUsage.unserved`)."""
    n = policy.network
    endpoints = None if n.endpoints == "auto" else tuple(sorted(e.value for e in n.endpoints))  # type: ignore[union-attr]
    traffic = tuple(sorted((k.value, float(v)) for k, v in n.monthly_traffic_gb.items()))
    zones = interface_endpoint_zones(policy.cloud.availability_zones, policy.cloud.subnet_ids)
    existing = tuple(sorted({e.value for e in n.existing_endpoints}))
    unserved = tuple((s, why) for s, why in unserved_endpoints if s in existing)
    return NetworkUsage(zones, n.nat_gateways, traffic, endpoints, existing, unserved)


def resources(ctx: EstimateContext) -> list[ResourceCost]:
    usage = usage_from_policy(ctx)
    prices = network_prices(ctx.catalog, ctx.region)
    notes = [f"{r.service}: {r.via} ({r.reason})" for r in routes(usage, prices)]
    comps = cost_components(usage, prices, ctx.currency)
    # the NAT gateways are the VPC's (network.natGateways), not the stack's: priced, as the traffic
    # they carry follows the stack's endpoint choice, but they carry none of its tags
    nat = [c for c in comps if c.name.startswith("NAT ")]
    own = [c for c in comps if not c.name.startswith("NAT ")]
    out = [ResourceCost(KIND, "vpc", SERVICE, own, tags=ctx.tags(), notes=notes)]
    if nat:
        out.append(ResourceCost(KIND, "vpc-nat-gateways", SERVICE, nat, notes=[NOT_CREATED]))
    return out


#: The note on what the estimate prices that the stack does not create.
NOT_CREATED = ("not created by the stack: it carries none of the stack's tags, so the stack's AWS Budget "
               "(filtered on seedance:stack) does not count it")
