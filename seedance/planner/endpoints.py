"""Interface VPC endpoint or NAT gateway, per AWS service: a pure decision from declared traffic.

An interface endpoint costs a fixed hourly fee per AZ it is placed in plus a per-GB processing
fee; traffic that goes through the NAT gateway instead pays the NAT's per-GB processing fee (the
NAT's own hourly fee is paid anyway, since the VPC keeps its NAT for everything else). An
interface endpoint therefore pays for itself above

    break-even GB/month = hourly_per_az x 730 x AZs / (nat_per_gb + cross_zone_per_gb - endpoint_per_gb)

where cross_zone_per_gb is what a GB through NAT pays on average for crossing zones to reach a NAT
gateway when the VPC has fewer gateways than the nodes have zones (an endpoint has an ENI in each).

S3 and DynamoDB get gateway endpoints, which are free, whatever the traffic. A service the VPC
already has an endpoint for (``network.existingEndpoints``) gets none of the stack's: its traffic
uses that endpoint, whoever created it. Prices arrive as an
argument (:class:`EndpointPrices`); :func:`endpoint_prices` looks them up in a catalog. Without
sourced prices the break-even is an explicit unknown and traffic stays on the NAT unless the
policy lists the service explicitly.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

from seedance.estimate.network import endpoint_break_even_gb, nat_cross_zone_gb_price
from seedance.policy.model import NODE_SERVICES, EndpointService, Network, needs_route

if TYPE_CHECKING:  # pragma: no cover
    from seedance.pricing.catalog import Catalog

HOURS_PER_MONTH = 730
GATEWAY_SERVICES: tuple[EndpointService, ...] = (EndpointService.S3, EndpointService.DYNAMODB)


class Route(StrEnum):
    GATEWAY = "gateway"  # free gateway endpoint (S3, DynamoDB)
    INTERFACE = "interface"  # interface endpoint (PrivateLink)
    NAT = "nat"  # stays on the NAT gateway
    EXISTING = "existing"  # the VPC's endpoint (network.existingEndpoints): none of the stack's


@dataclass(frozen=True)
class EndpointPrices:
    currency: str
    endpoint_hour_per_az: float
    endpoint_per_gb: float
    nat_per_gb: float
    source: str  # where the prices come from, for the rationale
    inter_az_per_direction: float | None = None  # per GB and direction between zones; None: unsourced


@dataclass(frozen=True)
class EndpointDecision:
    service: EndpointService
    route: Route
    monthly_traffic_gb: float | None  # None: no traffic declared
    break_even_gb: float | None  # None: gateway, or no sourced price
    monthly_cost_endpoint: float | None  # fixed + processing through the interface endpoint
    monthly_cost_nat: float | None  # processing through the NAT
    currency: str | None
    rationale: str

    @property
    def interface(self) -> bool:
        return self.route is Route.INTERFACE


def break_even_gb(prices: EndpointPrices, azs: int, cross_zone: float = 0.0) -> float | None:
    """Monthly GB above which an interface endpoint in ``azs`` AZs is cheaper than the NAT (whose
    traffic pays ``cross_zone`` per GB on average for crossing zones: :func:`cross_zone_per_gb`).

    ``None`` when the endpoint never pays off (its per-GB fee is not below the NAT's). The
    arithmetic is the estimator's :func:`seedance.estimate.network.endpoint_break_even_gb`, so
    the plan, the estimate and the synthesised resources agree.
    """
    be = endpoint_break_even_gb(
        az_count=azs,
        interface_hour_price=prices.endpoint_hour_per_az,
        interface_gb_price=prices.endpoint_per_gb,
        nat_gb_price=prices.nat_per_gb,
        hours=HOURS_PER_MONTH,
        cross_zone_gb_price=cross_zone,
    )
    return None if math.isinf(be) else be


def cross_zone_per_gb(prices: EndpointPrices, zones: int, nat_gateways: int) -> float:
    """What a GB through NAT pays on average for crossing zones (0 when the price is unsourced: the
    estimate then shows that transfer unpriced)."""
    return nat_cross_zone_gb_price(prices.inter_az_per_direction or 0.0, zones, nat_gateways)


def decide_endpoints(network: Network, azs: int, prices: EndpointPrices | None) -> list[EndpointDecision]:
    """One decision per service: the gateway services and the VPC's existing endpoints always, then
    every service with declared traffic or listed explicitly, in the order of :class:`EndpointService`.
    ``azs``: the zones an interface endpoint is in, which are those the nodes run in (both take the
    given subnets, :func:`~seedance.estimate.network.interface_endpoint_zones`); with fewer NAT gateways
    than that, NAT traffic crosses zones."""
    if azs < 1:
        raise ValueError(f"azs: expected at least one availability zone for interface endpoints, got {azs}")
    explicit = None if network.endpoints == "auto" else set(network.endpoints)
    existing = set(network.existing_endpoints)
    traffic = network.monthly_traffic_gb
    cross = 0.0 if prices is None else cross_zone_per_gb(prices, azs, network.nat_gateways)
    out: list[EndpointDecision] = []
    for service in EndpointService:
        gb = traffic.get(service)
        if service in existing:
            declared = "no traffic declared" if gb is None else f"{gb:,.0f} GB/month declared"
            out.append(
                EndpointDecision(
                    service, Route.EXISTING, gb, None, None, None, None,
                    f"{service}: existing (the VPC's existing endpoint is used, network.existingEndpoints); the stack "
                    f"creates none and pays neither an endpoint nor NAT processing for it; {declared}",
                )
            )
            continue
        if service in GATEWAY_SERVICES:
            out.append(
                EndpointDecision(
                    service, Route.GATEWAY, gb, None, 0.0, None, None,
                    f"{service}: gateway endpoint, free in every region",
                )
            )
            continue
        listed = explicit is not None and service in explicit
        if explicit is None and not network.nat_gateways and needs_route(service, gb):
            out.append(_no_nat(service, gb, azs, prices))
            continue
        if gb is None and not listed:
            continue
        out.append(_interface_or_nat(service, gb, azs, prices, explicit, listed, cross))
    return out


def _no_nat(service: EndpointService, gb: float | None, azs: int, prices: EndpointPrices | None) -> EndpointDecision:
    """``endpoints: auto`` in a VPC without a NAT gateway: an interface endpoint for every service with
    traffic or that every node reaches (:data:`~seedance.policy.model.NODE_SERVICES`), whatever it costs,
    as it is the only route there."""
    be = break_even_gb(prices, azs) if prices is not None else None
    cost_ep = cost_nat = currency = None
    if prices is not None:
        currency = prices.currency
        cost_ep = prices.endpoint_hour_per_az * HOURS_PER_MONTH * azs + (gb or 0.0) * prices.endpoint_per_gb
    declared = "no traffic declared" if gb is None else f"{gb:,.0f} GB/month declared"
    why = "every node reaches it" if service in NODE_SERVICES and not (gb or 0) > 0 else "it carries traffic"
    return EndpointDecision(service, Route.INTERFACE, gb, be, cost_ep, cost_nat, currency,
                            f"{service}: interface (no NAT gateway, network.natGateways 0, and {why}: an endpoint is "
                            f"its only route); {declared}")


def _interface_or_nat(
    service: EndpointService,
    gb: float | None,
    azs: int,
    prices: EndpointPrices | None,
    explicit: set[EndpointService] | None,
    listed: bool,
    cross: float = 0.0,
) -> EndpointDecision:
    if prices is None:
        be = cost_ep = cost_nat = None
        currency = None
        figure = "break-even unknown: no sourced VPC endpoint / NAT price for this region"
    else:
        be = break_even_gb(prices, azs, cross)
        currency = prices.currency
        fixed = prices.endpoint_hour_per_az * HOURS_PER_MONTH * azs
        cost_ep = None if gb is None else fixed + gb * prices.endpoint_per_gb
        cost_nat = None if gb is None else gb * (prices.nat_per_gb + cross)
        # "0.052 USD/GB" or "0.052 + 0.00667 cross-zone USD/GB"
        nat = f"{prices.nat_per_gb:g}" + (f" + {cross:.3g} cross-zone" if cross else "")
        if be is None:
            figure = (
                f"an interface endpoint never pays off: {prices.endpoint_per_gb:g} {currency}/GB processing "
                f"is not below the NAT's {nat} {currency}/GB"
            )
        else:
            figure = (
                f"break-even {be:,.1f} GB/month = {prices.endpoint_hour_per_az:g} {currency}/AZ-hour x "
                f"{HOURS_PER_MONTH} h x {azs} AZ / ({nat} - {prices.endpoint_per_gb:g}) {currency}/GB "
                f"[{prices.source}]"
            )
    declared = "no traffic declared" if gb is None else f"{gb:,.0f} GB/month declared"
    if explicit is not None:
        route = Route.INTERFACE if listed else Route.NAT
        why = "listed in network.endpoints" if listed else "not listed in network.endpoints"
        return EndpointDecision(service, route, gb, be, cost_ep, cost_nat, currency, f"{service}: {route} ({why}); {declared}; {figure}")
    assert gb is not None  # auto mode only considers services with declared traffic
    if be is not None and gb > be:
        route, why = Route.INTERFACE, "above break-even"
    elif be is not None:
        route, why = Route.NAT, "at or below break-even"
    else:
        route, why = Route.NAT, "kept on NAT"
    return EndpointDecision(service, route, gb, be, cost_ep, cost_nat, currency, f"{service}: {route} ({why}); {declared}; {figure}")


_VPC_ITEMS = ("interface_endpoint_hour_per_az", "interface_endpoint_data_processed_first_1pb", "nat_gateway_data_processed")


def endpoint_prices(catalog: Catalog, region: str) -> EndpointPrices | None:
    """The three prices the decision needs, or ``None`` when any is unsourced for ``region``; with the
    transfer between zones when the data has it there."""
    hour, ep_gb, nat_gb = (catalog.service_price(region, "VPC", item) for item in _VPC_ITEMS)
    if hour is None or ep_gb is None or nat_gb is None:
        return None
    cross = catalog.service_price(region, "DataTransfer", "inter_az_per_direction")
    if cross is not None and cross.currency != hour.currency:
        cross = None
    currencies = {hour.currency, ep_gb.currency, nat_gb.currency}
    if len(currencies) != 1:
        raise ValueError(f"VPC prices for {region} mix currencies {sorted(currencies)}")
    sources = sorted({hour.source, ep_gb.source, nat_gb.source} | ({cross.source} if cross else set()))
    return EndpointPrices(
        currency=hour.currency,
        endpoint_hour_per_az=hour.value,
        endpoint_per_gb=ep_gb.value,
        nat_per_gb=nat_gb.value,
        source="; ".join(sources),
        inter_az_per_direction=None if cross is None else cross.value,
    )
