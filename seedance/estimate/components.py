"""Cost components: the plain-data lines every resource estimator returns.

A component is one of three things:

* **priced** — quantity × unit price = monthly cost, with the price's source;
* **unpriced** — the shared data has no sourced price (``unpriced_reason`` says why); the
  estimate total is then *partial*.  Never a zero or made-up price;
* **usage-dependent** — the price is known but the policy does not say how much will be used
  (``usage_note`` says what is missing, e.g. object counts); shown, not summed, as Infracost does.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from seedance.pricing.catalog import Catalog, Price, PricingError

HOURS_PER_MONTH = 730
DAYS_PER_MONTH = HOURS_PER_MONTH / 24  # 30.4166…, the month every estimator uses


@dataclass(frozen=True)
class CostComponent:
    name: str  # "Instance usage (Linux, spot, g5.xlarge)"
    unit: str  # "hours", "GB", "requests" (plural)
    monthly_quantity: float | None
    unit_price: float | None
    monthly_cost: float | None  # None when unpriced (or usage unknown)
    currency: str
    price_source: str | None
    unpriced_reason: str | None = None  # set when no sourced price exists: never a made-up or zero price
    # additions to the contract
    usage_note: str | None = None  # set when the usage is unknown ("depends on usage: ...")
    price_ref: str | None = None  # the shared-data row of the price
    price_date: str | None = None

    @property
    def unpriced(self) -> bool:
        return self.unpriced_reason is not None

    def to_json(self) -> dict[str, object]:
        return {
            "name": self.name,
            "unit": self.unit,
            "monthly_quantity": self.monthly_quantity,
            "unit_price": self.unit_price,
            "monthly_cost": None if self.monthly_cost is None else round(self.monthly_cost, 6),
            "currency": self.currency,
            "price_source": self.price_source,
            "price_ref": self.price_ref,
            "price_date": self.price_date,
            "unpriced_reason": self.unpriced_reason,
            "usage_note": self.usage_note,
        }


@dataclass(frozen=True)
class Rate:
    """A looked-up price, or why there is none."""

    price: Price | None
    missing: str | None = None

    @property
    def value(self) -> float | None:
        return None if self.price is None else self.price.value


def lookup(catalog: Catalog, region: str, service: str, item: str) -> Rate:
    """The catalog price of ``service``/``item`` in ``region`` as a :class:`Rate` (I/O-free lookup)."""
    price = catalog.service_price(region, service, item)
    if price is not None:
        return Rate(price)
    if not catalog.has_service_prices(region):
        why = f"the shared price data has no service prices for {region} ({catalog.currency(region)})"
    else:
        why = f"the shared price data has no {service}/{item} price for {region}"
    return Rate(None, why)


def rate_in(catalog: Catalog, region: str, service: str, item: str, currency: str) -> Rate:
    """A price in another region than the stack's (its off-site copies'), in the estimate's
    currency: unpriced when the data has no prices there, or prices them in another currency."""
    if not catalog.has_region(region):
        return Rate(None, f"the shared price data has no prices for {region}")
    if catalog.currency(region) != currency:
        return Rate(None, f"{region} prices are in {catalog.currency(region)}, the estimate in {currency}")
    return lookup(catalog, region, service, item)


def priced(name: str, unit: str, quantity: float, rate: Rate, currency: str, *, note: str | None = None) -> CostComponent:
    """quantity × rate; an unpriced component (with the reason) when the rate has no price."""
    if rate.price is None:
        return CostComponent(name, unit, quantity, None, None, currency, None, unpriced_reason=rate.missing or "no sourced price",
                             usage_note=note)
    if rate.price.currency != currency:
        raise PricingError(f"{name}: price in {rate.price.currency}, estimate in {currency}; currencies are never mixed")
    return CostComponent(
        name,
        unit,
        quantity,
        rate.price.value,
        quantity * rate.price.value,
        currency,
        rate.price.source,
        usage_note=note,
        price_ref=rate.price.ref or None,
        price_date=rate.price.date,
    )


def depends_on_usage(name: str, unit: str, rate: Rate, currency: str, what: str) -> CostComponent:
    """A component whose usage the policy does not give: shown with its price, not summed."""
    if rate.price is None:
        return CostComponent(
            name, unit, None, None, None, currency, None, unpriced_reason=rate.missing or "no sourced price", usage_note=f"depends on usage: {what}"
        )
    if rate.price.currency != currency:
        raise PricingError(f"{name}: price in {rate.price.currency}, estimate in {currency}; currencies are never mixed")
    return CostComponent(
        name,
        unit,
        None,
        rate.price.value,
        None,
        currency,
        rate.price.source,
        usage_note=f"depends on usage: {what} ({rate.price.value:g} {currency} per {_per(unit)})",
        price_ref=rate.price.ref or None,
        price_date=rate.price.date,
    )


def _per(unit: str) -> str:
    """The unit after "per": "GB-months" -> "GB-month"; counted units ("1k requests") stay plural."""
    if unit[:1].isdigit() or not unit.endswith("s") or unit.endswith("IOPS"):
        return unit
    return unit[:-1]


@dataclass(frozen=True)
class ResourceCost:
    """One resource (or resource group) of the policy with its components."""

    kind: str  # registration name: "fleet", "ebs", ...
    name: str
    service: str  # "EC2", "EBS", "S3", "VPC", "CloudWatchLogs", "KMS", "Budgets", "SNS", "EKS"
    components: list[CostComponent]
    fleet: str | None = None
    tags: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    # a fleet's: the instance type it is priced on (its reserved units are of this type); None otherwise
    instance_type: str | None = None

    @property
    def monthly_cost(self) -> float:
        return sum(c.monthly_cost for c in self.components if c.monthly_cost is not None)

    @property
    def partial(self) -> bool:
        return any(c.unpriced for c in self.components)

    def to_json(self) -> dict[str, object]:
        return {
            "kind": self.kind,
            "name": self.name,
            "service": self.service,
            "fleet": self.fleet,
            "tags": dict(sorted(self.tags.items())),
            "monthly_cost": round(self.monthly_cost, 2),
            "partial": self.partial,
            "notes": list(self.notes),
            "components": [c.to_json() for c in self.components],
        }
