"""The price catalog: instance offers and service list prices, each price with its source.

The catalog ships inside the package (``seedance/data/price_catalog.json``, built by
:mod:`seedance.pricing.build` from the shared public data) and can be overlaid by a local cache
written by ``seedance prices refresh`` (:mod:`seedance.pricing.refresh`).  Currencies are kept as
the data gives them (China regions are CNY) and are never converted or mixed.

Lookups of something the catalog does not know are errors that name the closest known entries;
a service price the shared data simply lacks (all China service prices, for example) is ``None``,
never a made-up or zero price.
"""

from __future__ import annotations

import difflib
import functools
import json
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from seedance.gpus import GpuModel
from seedance.policy.model import PaymentOption, Term

log = logging.getLogger(__name__)

CATALOG_SCHEMA = "seedance.io/price-catalog"
CATALOG_VERSION = 1
BUNDLED_CATALOG = Path(__file__).resolve().parents[1] / "data" / "price_catalog.json"
CACHE_GLOB = "prices-*.json"

#: Spot Advisor band label -> the band's upper bound (percent of instances interrupted per month).
BAND_MAX_PCT: dict[str, float] = {"<5%": 5.0, "5-10%": 11.0, "10-15%": 16.0, "15-20%": 22.0, ">20%": 100.0}


class PricingError(Exception):
    """A price question the catalog cannot answer."""


class UnknownRegionError(PricingError):
    """A region the catalog has no prices for."""


class UnknownPriceError(PricingError):
    """An instance type (or service item) the catalog has no price for."""


@dataclass(frozen=True)
class Price:
    value: float  # per unit (instance prices: per instance-hour)
    currency: str  # "USD" | "CNY" (never mixed silently)
    unit: str  # "hour", "GB-month", ...
    source: str  # upstream source, e.g. "tsaol/aws-gpu@2d0108c:data/gpu_instances_raw.json"
    date: str  # ISO date of the snapshot ("undated" where the source gives none)
    ref: str = ""  # the shared-data row it came from: "<file>[key=value,...].<column>"
    note: str = ""  # tier or scaling note carried with the row


@dataclass(frozen=True)
class InstanceOffer:
    instance_type: str
    region: str
    currency: str
    vcpu: int
    memory_gib: float
    gpus: int
    gpu_model: GpuModel | None
    gpu_memory_gib_total: float
    ondemand: Price
    reserved: dict[tuple[Term, PaymentOption], Price]  # effective hourly; key absent = no price
    spot_avg: Price | None
    spot_min: Price | None
    spot_max: Price | None
    interruption_band: str | None  # "<5%", "5-10%", "10-15%", "15-20%", ">20%"
    interruption_band_max_pct: float | None  # the band's upper bound per month (5, 11, 16, 22, 100)
    # additions to the contract
    convertible: dict[Term, Price] = field(default_factory=dict)  # convertible RI, no upfront
    savings_plan: dict[Term, Price] = field(default_factory=dict)  # Savings Plan rate, no upfront
    interruption_source: str | None = None  # where the band came from (file + row)
    spot_savings_pct: float | None = None  # Spot Advisor's savings vs on-demand

    @property
    def gpu_memory_gib_per_gpu(self) -> float:
        return self.gpu_memory_gib_total / self.gpus if self.gpus else 0.0


@dataclass(frozen=True)
class ServicePrice:
    service: str
    item: str
    region: str
    price: Price


def _closest(word: str, choices: list[str], n: int = 3) -> list[str]:
    """Up to ``n`` close matches: difflib ratio, ties broken by the longer shared prefix (us-east-2 -> us-east-1)."""
    scored = []
    for c in choices:
        ratio = difflib.SequenceMatcher(None, word, c).ratio()
        if ratio >= 0.5:
            scored.append((-round(ratio, 3), -len(os.path.commonprefix([word, c])), c))
    found = [c for _, _, c in sorted(scored)[:n]]
    if not found:  # fall back to a shared prefix (family), so there is always a hint
        family = word.split(".", 1)[0]
        found = [c for c in choices if c.startswith(family)][:n]
    return found


def _hint(found: list[str]) -> str:
    return f"; closest known: {', '.join(found)}" if found else ""


class Catalog:
    """Instance offers by (region, type) and service prices by (region, service, item)."""

    def __init__(
        self,
        offers: dict[tuple[str, str], InstanceOffer],
        services: dict[tuple[str, str, str], Price],
        region_currency: dict[str, str],
        *,
        header: dict[str, Any] | None = None,
    ) -> None:
        self._offers = offers
        self._services = services
        self._currency = region_currency
        self.header = header or {}
        self._by_region: dict[str, list[InstanceOffer]] = {}
        for (region, _), offer in sorted(offers.items()):
            self._by_region.setdefault(region, []).append(offer)
        self._service_items = sorted({(s, i) for (_, s, i) in services})
        self._service_regions = {r for (r, _, _) in services}

    # ------------------------------------------------------------------ contract

    def regions(self) -> list[str]:
        return sorted(self._currency)

    def currency(self, region: str) -> str:
        self._require_region(region)
        return self._currency[region]

    def instances(self, region: str) -> list[InstanceOffer]:
        self._require_region(region)
        return list(self._by_region.get(region, []))

    def instance(self, region: str, instance_type: str) -> InstanceOffer:
        self._require_region(region)
        offer = self._offers.get((region, instance_type))
        if offer is not None:
            return offer
        here = sorted(t for (r, t) in self._offers if r == region)
        elsewhere = sorted({r for (r, t) in self._offers if t == instance_type})
        msg = f"no price for instance type {instance_type!r} in {region}"
        if elsewhere:
            msg += f" (it is priced in: {', '.join(elsewhere)})"
        raise UnknownPriceError(msg + _hint(_closest(instance_type, here)))

    def service_price(self, region: str, service: str, item: str) -> Price | None:
        """The list price of ``service``/``item`` in ``region``; ``None`` when the data has none there."""
        self._require_region(region)
        price = self._services.get((region, service, item))
        if price is not None:
            return price
        if (service, item) not in self._service_items:
            known = [f"{s}/{i}" for s, i in self._service_items]
            raise UnknownPriceError(
                f"unknown service price {service}/{item}" + _hint(_closest(f"{service}/{item}", known))
            )
        return None

    # ------------------------------------------------------------------ helpers

    def has_region(self, region: str) -> bool:
        return region in self._currency

    def has_service_prices(self, region: str) -> bool:
        """Whether the data has any service price for ``region`` (China regions have none)."""
        return region in self._service_regions

    def service_items(self) -> list[tuple[str, str]]:
        return list(self._service_items)

    def _require_region(self, region: str) -> None:
        if region not in self._currency:
            raise UnknownRegionError(
                f"no prices for region {region!r}" + _hint(_closest(region, sorted(self._currency)))
                + f" (known regions: {', '.join(sorted(self._currency))})"
            )


# ---------------------------------------------------------------------- (de)serialisation

_TERM_PAY = {f"{t.value}/{p.value}": (t, p) for t in Term for p in PaymentOption}


def _price(d: dict[str, Any] | None, currency: str) -> Price | None:
    if d is None:
        return None
    return Price(
        value=float(d["value"]),
        currency=currency,
        unit=d.get("unit", "hour"),
        source=d["source"],
        date=d["date"],
        ref=d.get("ref", ""),
        note=d.get("note", ""),
    )


def offer_from_record(rec: dict[str, Any]) -> InstanceOffer:
    cur = rec["currency"]
    prices = rec["prices"]
    band = rec.get("interruption") or {}
    gpu_model = rec.get("gpu_model")
    ondemand = _price(prices.get("ondemand"), cur)
    if ondemand is None:
        raise PricingError(f"catalog record {rec['region']}/{rec['instance_type']} has no on-demand price")
    return InstanceOffer(
        instance_type=rec["instance_type"],
        region=rec["region"],
        currency=cur,
        vcpu=int(rec["vcpu"]),
        memory_gib=float(rec["memory_gib"]),
        gpus=int(rec["gpus"]),
        gpu_model=GpuModel(gpu_model) if gpu_model else None,
        gpu_memory_gib_total=float(rec.get("gpu_memory_gib_total") or 0.0),
        ondemand=ondemand,
        reserved={_TERM_PAY[k]: _price(v, cur) for k, v in prices.get("reserved", {}).items()},  # type: ignore[misc]
        spot_avg=_price(prices.get("spot_avg"), cur),
        spot_min=_price(prices.get("spot_min"), cur),
        spot_max=_price(prices.get("spot_max"), cur),
        interruption_band=band.get("band"),
        interruption_band_max_pct=band.get("max_pct"),
        convertible={Term(k): _price(v, cur) for k, v in prices.get("convertible", {}).items()},  # type: ignore[misc]
        savings_plan={Term(k): _price(v, cur) for k, v in prices.get("savings_plan", {}).items()},  # type: ignore[misc]
        interruption_source=band.get("ref"),
        spot_savings_pct=band.get("savings_pct"),
    )


def _merge_record(base: dict[str, Any] | None, new: dict[str, Any]) -> dict[str, Any]:
    """Overlay a cached (refreshed) record on the bundled one: new prices win, facts fill gaps."""
    if base is None:
        return new
    if base["currency"] != new["currency"]:
        raise PricingError(
            f"cache for {new['region']}/{new['instance_type']} is in {new['currency']}, "
            f"the bundled catalog in {base['currency']}; refusing to mix currencies"
        )
    out = dict(base)
    for key in ("vcpu", "memory_gib", "gpus", "gpu_model", "gpu_memory_gib_total"):
        if new.get(key) not in (None, "", 0):
            out[key] = new[key]
    prices = dict(base["prices"])
    for key, value in new["prices"].items():
        if isinstance(value, dict) and key in ("reserved", "convertible", "savings_plan"):
            prices[key] = {**prices.get(key, {}), **value}
        else:
            prices[key] = value
    out["prices"] = prices
    if new.get("interruption"):
        out["interruption"] = new["interruption"]
    return out


def catalog_from_document(doc: dict[str, Any], caches: list[dict[str, Any]] | None = None) -> Catalog:
    if doc.get("schema") != CATALOG_SCHEMA or doc.get("version") != CATALOG_VERSION:
        raise PricingError(
            f"not a seedance price catalog v{CATALOG_VERSION} (schema={doc.get('schema')!r}, version={doc.get('version')!r})"
        )
    records: dict[tuple[str, str], dict[str, Any]] = {(r["region"], r["instance_type"]): r for r in doc["instances"]}
    region_currency: dict[str, str] = dict(doc["region_currency"])
    services: dict[tuple[str, str, str], Price] = {}
    for s in doc["services"]:
        services[(s["region"], s["service"], s["item"])] = _price(s, s["currency"])  # type: ignore[assignment]
    for cache in caches or []:
        for rec in cache.get("instances", []):
            key = (rec["region"], rec["instance_type"])
            records[key] = _merge_record(records.get(key), rec)
            cur = region_currency.setdefault(rec["region"], rec["currency"])
            if cur != rec["currency"]:
                raise PricingError(f"cache has {rec['currency']} prices for {rec['region']}, whose prices are in {cur}")
    offers = {key: offer_from_record(rec) for key, rec in records.items()}
    return Catalog(offers, services, region_currency, header={k: doc[k] for k in ("schema", "version", "built_from")})


@functools.lru_cache(maxsize=1)
def _bundled_document() -> dict[str, Any]:
    try:
        return json.loads(BUNDLED_CATALOG.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise PricingError(f"the bundled price catalog is missing ({BUNDLED_CATALOG.name}); run `seedance prices build`") from exc


def read_caches(cache_dir: Path) -> list[dict[str, Any]]:
    caches = []
    for path in sorted(Path(cache_dir).glob(CACHE_GLOB)):
        try:
            caches.append(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, json.JSONDecodeError) as exc:
            raise PricingError(f"{path}: unreadable price cache ({exc}); delete it or run `seedance prices refresh`") from exc
    return caches


@functools.lru_cache(maxsize=8)
def _load_cached(cache_key: str | None) -> Catalog:
    caches = read_caches(Path(cache_key)) if cache_key else []
    return catalog_from_document(_bundled_document(), caches)


PRICE_CACHE_ENV = "SEEDANCE_PRICE_CACHE"


def env_cache_dir() -> Path | None:
    """The refresh cache ``$SEEDANCE_PRICE_CACHE`` names, if set: the one every command (and the stack
    program under ``pulumi up``) reads, so plan, synth, estimate and the gate price alike."""
    value = os.environ.get(PRICE_CACHE_ENV)
    return Path(value) if value else None


def load_catalog(*, cache_dir: Path | None = None, offline: bool = True) -> Catalog:
    """The bundled catalog, overlaid by the refresh cache in ``cache_dir`` when given.

    Loading never touches the network: live prices arrive through ``seedance prices refresh``,
    which writes the cache.  ``offline=False`` states that live (cached) prices are required, so
    it is an error when ``cache_dir`` holds no refreshed prices.  A ``cache_dir`` that is not an
    existing directory is an error too (a mistyped path must not quietly price on the bundled data).
    """
    if cache_dir is not None and not Path(cache_dir).is_dir():
        what = "is not a directory" if Path(cache_dir).exists() else "does not exist"
        raise PricingError(f"price cache directory {cache_dir} {what}; give the directory `seedance prices refresh "
                           f"--cache-dir DIR` wrote, or leave --cache-dir and ${PRICE_CACHE_ENV} unset to use the "
                           f"bundled prices")
    if not offline:
        if cache_dir is None or not any(Path(cache_dir).glob(CACHE_GLOB)):
            raise PricingError(
                "live prices requested but no refreshed prices are cached; run `seedance prices refresh --region R --cache-dir DIR`"
            )
    if cache_dir is None:
        return _load_cached(None)
    # the cache may change between calls (refresh), so key on its files' state
    state = ";".join(f"{p.name}:{p.stat().st_mtime_ns}" for p in sorted(Path(cache_dir).glob(CACHE_GLOB)))
    return _load_with_state(str(Path(cache_dir).resolve()), state)


@functools.lru_cache(maxsize=8)
def _load_with_state(cache_dir: str, state: str) -> Catalog:
    return catalog_from_document(_bundled_document(), read_caches(Path(cache_dir)))
