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
import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from seedance.gpus import GpuModel
from seedance.policy.model import PaymentOption, Term

log = logging.getLogger(__name__)

CATALOG_SCHEMA = "seedance.io/price-catalog"
CATALOG_VERSION = 1
BUNDLED_CATALOG = Path(__file__).resolve().parents[1] / "data" / "price_catalog.json"
CACHE_GLOB = "prices-*.json"
#: The refresh cache's document type (written by :mod:`seedance.pricing.refresh`).
CACHE_SCHEMA = "seedance.io/price-cache"
CACHE_VERSION = 1

#: Spot Advisor band label -> the band's upper bound (percent of instances interrupted per month).
BAND_MAX_PCT: dict[str, float] = {"<5%": 5.0, "5-10%": 11.0, "10-15%": 16.0, "15-20%": 22.0, ">20%": 100.0}


class PricingError(Exception):
    """A price question the catalog cannot answer."""


class PriceDataError(PricingError, ValueError):
    """Price data that is not what it should be (a malformed refresh cache, a corrupt shared-data CSV); the
    message starts with the file (``PATH:`` plus the JSON path, or ``PATH:LINE:``)."""


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


def missing_region_message(region: str, known: list[str]) -> str:
    """Why ``region`` has no prices: a real region the catalog lacks is added by a refresh where
    refresh can price it (a spelling hint would send a Stockholm user to Beijing); anything else gets
    the closest names."""
    from seedance.policy.semantics import SUPPORTED_PARTITIONS, region_partitions

    partition = region_partitions().get(region)
    unread = default_refresh_dir()
    if partition in SUPPORTED_PARTITIONS and (unread / f"prices-{region}.json").is_file():
        # `prices refresh` without --cache-dir wrote it where no command reads unless told
        return (f"no prices for region {region!r}: the price catalog holds {', '.join(known)}; a refresh cache "
                f"for it is in {unread}, where `seedance prices refresh` writes by default, and no command reads "
                f"it unless named: give --cache-dir {unread} or set ${PRICE_CACHE_ENV}={unread}")
    if partition in SUPPORTED_PARTITIONS:
        return (f"no prices for region {region!r}: the price catalog holds {', '.join(known)}; "
                f"`seedance prices refresh --region {region} --cache-dir DIR` adds it (then give DIR as "
                f"--cache-dir or $SEEDANCE_PRICE_CACHE)")
    if partition is not None:
        return (f"no prices for region {region!r}: the price catalog holds {', '.join(known)}, and `seedance prices "
                f"refresh` cannot add it (it is in the {partition} partition, which Seedance does not deploy to)")
    return f"no prices for region {region!r}" + _hint(_closest(region, known)) + f" (known regions: {', '.join(known)})"


class Catalog:
    """Instance offers by (region, type) and service prices by (region, service, item)."""

    def __init__(
        self,
        offers: dict[tuple[str, str], InstanceOffer],
        services: dict[tuple[str, str, str], Price],
        region_currency: dict[str, str],
        *,
        header: dict[str, Any] | None = None,
        refreshed_regions: Iterable[str] = (),
    ) -> None:
        self._offers = offers
        self._services = services
        self._currency = region_currency
        self.header = header or {}
        #: the regions a refresh cache (``--cache-dir``, ``$SEEDANCE_PRICE_CACHE``) overlays with its
        #: instance prices, in name order; () for the bundled catalog alone
        self.refreshed_regions: tuple[str, ...] = tuple(sorted(set(refreshed_regions)))
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
            raise UnknownRegionError(missing_region_message(region, sorted(self._currency)))


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


#: An instance type's own facts (the same in every region); the Price List API has no GPU model.
_FACTS = ("vcpu", "memory_gib", "gpus", "gpu_model", "gpu_memory_gib_total")


def _facts_of_type(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Each instance type's facts from the bundled catalog, whatever region records them (the first
    region in name order): a region only a refresh cache prices takes its types' facts from here."""
    out: dict[str, dict[str, Any]] = {}
    for rec in sorted(doc["instances"], key=lambda r: (r["instance_type"], r["region"])):
        out.setdefault(rec["instance_type"], {k: rec.get(k) for k in _FACTS} | {"facts_ref": rec.get("facts_ref")})
    return out


def _family(instance_type: str) -> str:
    return instance_type.partition(".")[0]


def _gpus_of_family(facts: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The GPU model (and memory per GPU) of each instance family whose bundled GPU types all carry the
    same one (``g6`` -> L4 from g6.xlarge): a GPU type no bundled region prices (g6.2xlarge refreshed in
    a new region) takes them from its family; a family of mixed models gives nothing."""
    seen: dict[str, set[tuple[str, float]]] = {}
    refs: dict[str, str] = {}
    for itype, f in sorted(facts.items()):
        if f.get("gpu_model") and f.get("gpus"):
            per_gpu = round(float(f.get("gpu_memory_gib_total") or 0.0) / int(f["gpus"]), 3)
            seen.setdefault(_family(itype), set()).add((f["gpu_model"], per_gpu))
            refs.setdefault(_family(itype), itype)
    return {fam: {"gpu_model": model, "gpu_memory_gib_per_gpu": per_gpu, "from": refs[fam]}
            for fam, found in seen.items() if len(found) == 1 for model, per_gpu in found}


def _with_family_gpu(new: dict[str, Any], family: dict[str, Any] | None) -> dict[str, Any]:
    """``new`` with the GPU model (and total GPU memory, when missing) of its family, when it has GPUs
    the record does not name the model of."""
    if family is None or not new.get("gpus") or new.get("gpu_model"):
        return new
    new = dict(new, gpu_model=family["gpu_model"])
    filled = ["gpu_model"]
    if not new.get("gpu_memory_gib_total") and family["gpu_memory_gib_per_gpu"]:
        new["gpu_memory_gib_total"] = family["gpu_memory_gib_per_gpu"] * int(new["gpus"])
        filled.append("gpu_memory_gib_total")
    new["facts_ref"] = (f"{new.get('facts_ref')}; {', '.join(filled)} of the {_family(new['instance_type'])} family "
                        f"(bundled {family['from']})")
    return new


def _merge_record(base: dict[str, Any] | None, new: dict[str, Any], where: str = "price cache",
                  facts: dict[str, Any] | None = None) -> dict[str, Any]:
    """Overlay a cached (refreshed) record on the bundled one: new prices win, facts fill gaps.

    A type the bundled catalog does not price in the cache's region takes the facts the cache lacks
    (the GPU model, always) from ``facts``: the same type's record in another region."""
    if base is None:
        if facts is not None:
            new = dict(new)
            filled = [k for k in _FACTS if new.get(k) in (None, "", 0) and facts.get(k) not in (None, "", 0)]
            for key in filled:
                new[key] = facts[key]
            if filled:
                new["facts_ref"] = f"{new.get('facts_ref')}; {', '.join(filled)} from {facts.get('facts_ref')}"
        missing = [k for k in ("vcpu", "memory_gib", "gpus") if new.get(k) is None]
        if missing:
            raise PriceDataError(
                f"{where}: {new['region']}/{new['instance_type']} is not in the bundled catalog, so its record needs "
                f"{', '.join(missing)} (missing)"
            )
        return new
    if base["currency"] != new["currency"]:
        raise PriceDataError(
            f"{where}: cache for {new['region']}/{new['instance_type']} is in {new['currency']}, "
            f"the bundled catalog in {base['currency']}; refusing to mix currencies"
        )
    out = dict(base)
    for key in _FACTS:
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


# ---------------------------------------------------------------------- refresh cache validation

_PRICE_GROUPS: dict[str, tuple[str, ...]] = {
    "reserved": tuple(sorted(_TERM_PAY)),
    "convertible": tuple(t.value for t in Term),
    "savings_plan": tuple(t.value for t in Term),
}
_SINGLE_PRICES = ("ondemand", "spot_avg", "spot_min", "spot_max")
_CURRENCY = re.compile(r"^[A-Z]{3}$")
_MAX_PROBLEMS = 20


def _got(value: Any) -> str:
    """How a JSON value that is not what was expected is shown in an error."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return repr(value if len(value) <= 60 else value[:57] + "...")
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "an array"
    return type(value).__name__


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


class _CacheCheck:
    """Collects every way one cache document differs from what ``seedance prices refresh`` writes."""

    def __init__(self) -> None:
        self.problems: list[str] = []

    def bad(self, path: str, expected: str, value: Any) -> None:
        self.problems.append(f"{path}: expected {expected}, got {_got(value)}")

    def text(self, obj: dict[str, Any], key: str, path: str, *, required: bool, nonempty: bool = True) -> None:
        where = f"{path}.{key}" if path else key
        if key not in obj:
            if required:
                self.problems.append(f"{where}: missing (expected a string)")
            return
        value = obj[key]
        if not isinstance(value, str) or (nonempty and not value.strip()):
            self.bad(where, "a non-empty string" if nonempty else "a string", value)

    def number(self, obj: dict[str, Any], key: str, path: str, *, integer: bool = False, maximum: float | None = None,
               nullable: bool = False) -> None:
        if key not in obj or (nullable and obj[key] is None):
            return
        value = obj[key]
        what = "a whole number >= 0" if integer else "a finite number >= 0"
        if maximum is not None:
            what = f"a finite number from 0 to {maximum:g}"
        ok = _is_number(value) and math.isfinite(value) and value >= 0 and (maximum is None or value <= maximum)
        if ok and integer and not isinstance(value, int):
            ok = False
        if not ok:
            self.bad(f"{path}.{key}", what, value)

    def price(self, value: Any, path: str) -> None:
        if not isinstance(value, dict):
            self.bad(path, "a price object with value, unit, source and date", value)
            return
        if "value" not in value:
            self.problems.append(f"{path}.value: missing (expected a positive finite price)")
        else:
            v = value["value"]
            if not (_is_number(v) and math.isfinite(v) and v > 0):
                self.bad(f"{path}.value", "a positive finite price", v)
        if "unit" in value and value["unit"] != "hour":
            self.bad(f"{path}.unit", "'hour' (instance prices are per instance-hour)", value["unit"])
        self.text(value, "source", path, required=True)
        self.text(value, "date", path, required=True)
        self.text(value, "ref", path, required=False, nonempty=False)
        self.text(value, "note", path, required=False, nonempty=False)

    def prices(self, value: Any, path: str) -> None:
        if not isinstance(value, dict):
            self.bad(path, "an object of prices (ondemand, reserved, spot_avg, ...)", value)
            return
        if "ondemand" not in value:
            self.problems.append(f"{path}.ondemand: missing (every offer needs an on-demand price)")
        known = (*_SINGLE_PRICES, *_PRICE_GROUPS)
        for key in sorted(value):
            sub = f"{path}.{key}"
            if key in _SINGLE_PRICES:
                self.price(value[key], sub)
            elif key in _PRICE_GROUPS:
                group = value[key]
                if not isinstance(group, dict):
                    self.bad(sub, f"an object keyed by {', '.join(_PRICE_GROUPS[key])}", group)
                    continue
                for term in sorted(group):
                    if term not in _PRICE_GROUPS[key]:
                        self.problems.append(f"{sub}: unknown key {term!r} (expected {', '.join(_PRICE_GROUPS[key])})")
                    else:
                        self.price(group[term], f"{sub}.{term}")
            else:
                self.problems.append(f"{sub}: unknown price {key!r} (expected {', '.join(known)})")

    def interruption(self, value: Any, path: str) -> None:
        if value is None:
            return
        if not isinstance(value, dict):
            self.bad(path, "an object with the Spot Advisor band", value)
            return
        if value.get("band") not in BAND_MAX_PCT:
            self.bad(f"{path}.band", f"one of {', '.join(BAND_MAX_PCT)}", value.get("band"))
        if "max_pct" not in value:
            self.problems.append(f"{path}.max_pct: missing (expected the band's upper bound in percent)")
        elif value.get("band") in BAND_MAX_PCT and value["max_pct"] != BAND_MAX_PCT[value["band"]]:
            # the planner turns the bound into an interruption rate: 0 has none, another band's misleads
            self.bad(f"{path}.max_pct", f"{BAND_MAX_PCT[value['band']]:g}, the upper bound of band {value['band']}",
                     value["max_pct"])
        else:
            self.number(value, "max_pct", path, maximum=100)
        self.number(value, "savings_pct", path, maximum=100, nullable=True)
        for key in ("source", "date", "ref", "savings_ref"):
            self.text(value, key, path, required=False, nonempty=False)

    def record(self, rec: Any, path: str, region: str | None) -> None:
        if not isinstance(rec, dict):
            self.bad(path, "an object (one instance type's prices)", rec)
            return
        for key in ("instance_type", "region"):
            self.text(rec, key, path, required=True)
        if region is not None and isinstance(rec.get("region"), str) and rec["region"] != region:
            self.bad(f"{path}.region", f"{region!r} (the cache's region)", rec["region"])
        if "currency" not in rec:
            self.problems.append(f"{path}.currency: missing (expected a currency code such as USD or CNY)")
        elif not (isinstance(rec["currency"], str) and _CURRENCY.match(rec["currency"])):
            self.bad(f"{path}.currency", "a currency code such as USD or CNY", rec["currency"])
        self.number(rec, "vcpu", path, integer=True)
        self.number(rec, "gpus", path, integer=True)
        self.number(rec, "memory_gib", path)
        self.number(rec, "gpu_memory_gib_total", path, nullable=True)
        model = rec.get("gpu_model")
        if model is not None and model not in {m.value for m in GpuModel}:
            self.bad(f"{path}.gpu_model", f"null or one of {', '.join(m.value for m in GpuModel)}", model)
        self.text(rec, "facts_ref", path, required=False, nonempty=False)
        if "prices" not in rec:
            self.problems.append(f"{path}.prices: missing (expected an object with at least the ondemand price)")
        else:
            self.prices(rec["prices"], f"{path}.prices")
        self.interruption(rec.get("interruption"), f"{path}.interruption")

    def document(self, doc: Any) -> None:
        if not isinstance(doc, dict):
            self.problems.append(f"expected a JSON object (a price cache written by `seedance prices refresh`), got {_got(doc)}")
            return
        if "schema" in doc and doc["schema"] != CACHE_SCHEMA:
            self.bad("schema", repr(CACHE_SCHEMA), doc["schema"])
        if "version" in doc and (doc["version"] != CACHE_VERSION or not _is_number(doc["version"])):
            self.bad("version", str(CACHE_VERSION), doc["version"])
        self.text(doc, "refreshed_at", "", required=False)
        region = doc.get("region")
        if "region" in doc and not (isinstance(region, str) and region.strip()):
            self.bad("region", "a non-empty string (the region the cache holds)", region)
            region = None
        if "instances" not in doc:
            self.problems.append("instances: missing (expected an array of instance records)")
            return
        instances = doc["instances"]
        if not isinstance(instances, list):
            self.bad("instances", "an array of instance records", instances)
            return
        seen: dict[tuple[Any, Any], int] = {}
        for i, rec in enumerate(instances):
            self.record(rec, f"instances[{i}]", region)
            if isinstance(rec, dict) and isinstance(rec.get("region"), str) and isinstance(rec.get("instance_type"), str):
                key = (rec["region"], rec["instance_type"])
                if key in seen:
                    self.problems.append(f"instances[{i}]: {key[0]}/{key[1]} again (first at instances[{seen[key]}])")
                else:
                    seen[key] = i


def check_cache_document(doc: Any, origin: str) -> dict[str, Any]:
    """``doc`` when it is a refresh cache as :mod:`seedance.pricing.refresh` writes it; otherwise
    :class:`PriceDataError` naming ``origin`` (the file) and the JSON path of every problem.

    Prices must be finite and positive, currencies codes like ``USD``; the header (``schema``,
    ``version``, ``region``, ``refreshed_at``) may be absent, but when present it must match."""
    check = _CacheCheck()
    check.document(doc)
    problems = check.problems
    if not problems:
        return doc  # type: ignore[no-any-return]
    if len(problems) == 1:
        raise PriceDataError(f"{origin}: {problems[0]}")
    shown = problems[:_MAX_PROBLEMS]
    more = f"\n  ... and {len(problems) - len(shown)} more" if len(problems) > len(shown) else ""
    raise PriceDataError(f"{origin}: {len(problems)} problems in the price cache:\n" + "\n".join(f"  - {p}" for p in shown)
                         + more)


def catalog_from_document(doc: dict[str, Any], caches: list[dict[str, Any]] | None = None, *,
                          origins: list[str] | None = None) -> Catalog:
    """The catalog of the bundled document ``doc`` overlaid by the refresh ``caches`` (each checked with
    :func:`check_cache_document`; ``origins`` names their files in errors)."""
    if doc.get("schema") != CATALOG_SCHEMA or doc.get("version") != CATALOG_VERSION:
        raise PricingError(
            f"not a seedance price catalog v{CATALOG_VERSION} (schema={doc.get('schema')!r}, version={doc.get('version')!r})"
        )
    records: dict[tuple[str, str], dict[str, Any]] = {(r["region"], r["instance_type"]): r for r in doc["instances"]}
    region_currency: dict[str, str] = dict(doc["region_currency"])
    services: dict[tuple[str, str, str], Price] = {}
    for s in doc["services"]:
        services[(s["region"], s["service"], s["item"])] = _price(s, s["currency"])  # type: ignore[assignment]
    facts = _facts_of_type(doc) if caches else {}
    families = _gpus_of_family(facts) if caches else {}
    # Spot Advisor bands of the bundled types in the regions the bundled records do not cover
    bands = {(b["region"], b["instance_type"]): b for b in doc.get("spot_bands", [])} if caches else {}
    for n, cache in enumerate(caches or []):
        origin = origins[n] if origins is not None and n < len(origins) else f"price cache #{n + 1}"
        check_cache_document(cache, origin)
        for i, rec in enumerate(cache["instances"]):
            where = f"{origin}: instances[{i}]"
            key = (rec["region"], rec["instance_type"])
            base = records.get(key)
            records[key] = _merge_record(base, rec, where, facts.get(rec["instance_type"]))
            if base is None and rec["instance_type"] not in facts:
                records[key] = _with_family_gpu(records[key], families.get(_family(rec["instance_type"])))
            band = bands.get(key)
            if base is None and band is not None and not records[key].get("interruption"):
                records[key] = {**records[key], "interruption": {k: v for k, v in band.items()
                                                                 if k not in ("region", "instance_type")}}
            cur = region_currency.setdefault(rec["region"], rec["currency"])
            if cur != rec["currency"]:
                raise PriceDataError(f"{where}: {rec['currency']} prices for {rec['region']}, whose prices are in {cur}; "
                                     f"refusing to mix currencies")
    offers = {key: offer_from_record(rec) for key, rec in records.items()}
    return Catalog(offers, services, region_currency, header={k: doc[k] for k in ("schema", "version", "built_from")},
                   refreshed_regions={rec["region"] for cache in caches or [] for rec in cache["instances"]})


@functools.lru_cache(maxsize=1)
def _bundled_document() -> dict[str, Any]:
    try:
        return json.loads(BUNDLED_CATALOG.read_text(encoding="utf-8"))  # type: ignore[no-any-return]
    except FileNotFoundError as exc:
        raise PricingError(f"the bundled price catalog is missing ({BUNDLED_CATALOG.name}); run `seedance prices build`") from exc


def _cache_paths(cache_dir: Path) -> list[Path]:
    return sorted(Path(cache_dir).glob(CACHE_GLOB))


def read_cache(path: Path) -> dict[str, Any]:
    """One refresh cache file, checked (:func:`check_cache_document`); :class:`PriceDataError` naming the
    file (and line, or JSON path) when it cannot be read or is not a cache ``seedance prices refresh`` writes."""
    from seedance.textfile import TextFileError, read_json_file

    hint = "delete it or run `seedance prices refresh`"
    try:
        doc = read_json_file(path)
    except TextFileError as exc:
        raise PriceDataError(f"{exc}; unreadable price cache: {hint}") from None
    try:
        return check_cache_document(doc, str(path))
    except PriceDataError as exc:
        raise PriceDataError(f"{exc}\n{hint}" if "\n" in str(exc) else f"{exc}; {hint}") from None


def read_caches(cache_dir: Path) -> list[dict[str, Any]]:
    """Every ``prices-*.json`` in ``cache_dir``, checked (see :func:`read_cache`), in name order."""
    return [read_cache(path) for path in _cache_paths(cache_dir)]


def _catalog_with_caches(cache_dir: Path) -> Catalog:
    paths = _cache_paths(cache_dir)
    caches = [read_cache(path) for path in paths]
    return catalog_from_document(_bundled_document(), caches, origins=[str(p) for p in paths])


@functools.lru_cache(maxsize=8)
def _load_cached(cache_key: str | None) -> Catalog:
    if not cache_key:
        return catalog_from_document(_bundled_document())
    return _catalog_with_caches(Path(cache_key))


PRICE_CACHE_ENV = "SEEDANCE_PRICE_CACHE"


def default_refresh_dir() -> Path:
    """Where ``seedance prices refresh`` writes without ``--cache-dir``: ``$SEEDANCE_PRICE_CACHE``, else
    ``~/.cache/seedance/prices`` (which nothing reads unless it is named)."""
    return env_cache_dir() or Path.home() / ".cache" / "seedance" / "prices"


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
    return _catalog_with_caches(Path(cache_dir))
