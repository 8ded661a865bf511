"""Prices: the bundled catalog, its builder and the live refresh."""

from seedance.pricing.catalog import (
    Catalog,
    InstanceOffer,
    Price,
    PricingError,
    UnknownPriceError,
    UnknownRegionError,
    load_catalog,
)

__all__ = [
    "Catalog",
    "InstanceOffer",
    "Price",
    "PricingError",
    "UnknownPriceError",
    "UnknownRegionError",
    "load_catalog",
]
