"""Live refresh: current EC2 prices from the AWS Price List API and spot price history.

``seedance prices refresh --region R`` calls ``pricing.get_products`` (service AmazonEC2, Linux,
shared tenancy, no pre-installed software, capacity status Used) for each instance type and
``ec2.describe_spot_price_history`` (Linux/UNIX, the price in effect now in every AZ), and writes
``prices-<region>.json`` into a cache directory.  :func:`seedance.pricing.load_catalog` overlays
that cache on the bundled catalog.  Nothing here runs unless asked: the default is offline.

Parsing is separate from calling, so the shapes are tested with botocore's Stubber.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import math
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from seedance.pricing.catalog import (
    CACHE_SCHEMA,
    CACHE_VERSION,
    PricingError,
    UnknownRegionError,
    _bundled_document,
    _closest,
    _hint,
    catalog_from_document,
    check_cache_document,
)

log = logging.getLogger(__name__)

HOURS_PER_YEAR = 8760

PRICING_SOURCE = "AWS Price List API pricing:GetProducts (AmazonEC2)"
SPOT_SOURCE = "AWS EC2 DescribeSpotPriceHistory (Linux/UNIX)"


def pricing_endpoint_region(region: str) -> str:
    """Where the Price List API answers for ``region``'s prices (China has its own endpoint)."""
    return "cn-northwest-1" if region.startswith("cn-") else "us-east-1"


def product_filters(instance_type: str, region: str) -> list[dict[str, str]]:
    """The Price List query for one type's Linux, shared-tenancy, on-demand-capacity product in the
    region.  The region is matched by its code (``regionCode``), not by the ``location`` display name,
    so a region is priced without a table of names; ``locationType`` keeps out the Local Zones and
    Wavelength Zones whose products carry their parent region's code."""
    check_refreshable(region)
    pairs = [
        ("instanceType", instance_type),
        ("regionCode", region),
        ("locationType", "AWS Region"),
        ("operatingSystem", "Linux"),
        ("tenancy", "Shared"),
        ("preInstalledSw", "NA"),
        ("capacitystatus", "Used"),
    ]
    return [{"Type": "TERM_MATCH", "Field": f, "Value": v} for f, v in pairs]


def check_refreshable(region: str) -> None:
    """Refuse what the Price List API cannot price for Seedance: a name no AWS partition lists, or a
    region of a partition Seedance does not deploy to (see ``SUPPORTED_PARTITIONS``)."""
    from seedance.policy.semantics import SUPPORTED_PARTITIONS, region_partitions

    partitions = region_partitions()
    if not partitions:  # botocore's partition data could not be read: let the API answer
        return
    partition = partitions.get(region)
    if partition is None:
        raise UnknownRegionError(f"unknown AWS region {region!r}" + _hint(_closest(region, sorted(partitions))))
    if partition not in SUPPORTED_PARTITIONS:
        raise UnknownRegionError(f"cannot refresh {region!r}: it is in the {partition} partition, and Seedance "
                                 f"deploys to {' and '.join(SUPPORTED_PARTITIONS)} only")


# ---------------------------------------------------------------------- parsing (pure)


def _dimension_prices(term: dict[str, Any]) -> tuple[float | None, float, str | None]:
    """(hourly rate, upfront fee, currency) of one offer term."""
    hourly: float | None = None
    upfront = 0.0
    currency: str | None = None
    for dim in term.get("priceDimensions", {}).values():
        ppu = dim.get("pricePerUnit", {})
        if not ppu:
            continue
        currency, text = next(iter(sorted(ppu.items())))
        try:
            value = float(text)
        except (TypeError, ValueError):
            value = math.nan
        if not math.isfinite(value) or value < 0:
            log.warning("Price List dimension %s: price %r is not a finite number >= 0; ignored", dim.get("rateCode", "?"), text)
            continue
        if dim.get("unit") in ("Hrs", "Hours", "hours"):
            hourly = value
        elif dim.get("unit") == "Quantity":
            upfront += value
    return hourly, upfront, currency


def _gib(text: str | None) -> float | None:
    if not text:
        return None
    num = text.replace(",", "").split()[0]
    try:
        return float(num)
    except ValueError:
        return None


def parse_product(item: str | dict[str, Any], region: str) -> dict[str, Any] | None:
    """A cache record from one Price List entry (a JSON string); None when it has no hourly price."""
    doc = json.loads(item) if isinstance(item, str) else item
    product = doc.get("product", {})
    attrs = product.get("attributes", {})
    sku = product.get("sku", "?")
    # the query matches regionCode and locationType: an entry without them is not known to be this region's
    if attrs.get("regionCode") != region or attrs.get("locationType") != "AWS Region":
        log.warning("Price List entry %s is for %s (%s), not the region %s; ignored", sku,
                    attrs.get("regionCode", "no regionCode"), attrs.get("locationType", "no locationType"), region)
        return None
    market = attrs.get("marketoption")
    if market is not None and market != "OnDemand":  # a Capacity Block's price is not the on-demand one
        log.info("Price List entry %s is a %s offer, not an on-demand one; ignored", sku, market)
        return None
    date = str(doc.get("publicationDate", ""))[:10] or "undated"
    terms = doc.get("terms", {})
    ondemand = None
    currency = None
    for code, term in sorted(terms.get("OnDemand", {}).items()):
        hourly, _, cur = _dimension_prices(term)
        if hourly is not None and hourly > 0:
            ondemand = {"value": hourly, "unit": "hour", "source": PRICING_SOURCE, "date": date,
                        "ref": f"pricing.get_products[sku={sku},term={code}]"}
            currency = cur
            break
    if ondemand is None:
        return None
    reserved: dict[str, Any] = {}
    convertible: dict[str, Any] = {}
    for code, term in sorted(terms.get("Reserved", {}).items()):
        ta = term.get("termAttributes", {})
        years = {"1yr": 1, "3yr": 3}.get(ta.get("LeaseContractLength", ""))
        option = {"No Upfront": "no-upfront", "All Upfront": "all-upfront"}.get(ta.get("PurchaseOption", ""))
        if years is None or option is None:
            continue
        hourly, upfront, cur = _dimension_prices(term)
        if cur != currency:
            continue
        effective = (hourly or 0.0) + upfront / (years * HOURS_PER_YEAR)
        if round(effective, 6) <= 0:
            continue
        price = {"value": round(effective, 6), "unit": "hour", "source": PRICING_SOURCE, "date": date,
                 "ref": f"pricing.get_products[sku={sku},term={code}]"}
        if ta.get("OfferingClass") == "standard":
            reserved[f"{years}y/{option}"] = price
        elif ta.get("OfferingClass") == "convertible" and option == "no-upfront":
            convertible[f"{years}y"] = price
    prices: dict[str, Any] = {"ondemand": ondemand}
    if reserved:
        prices["reserved"] = reserved
    if convertible:
        prices["convertible"] = convertible
    gpus = int(attrs.get("gpu", "0") or 0) if str(attrs.get("gpu", "0")).isdigit() else 0
    return {
        "instance_type": attrs.get("instanceType", ""),
        "region": region,
        "currency": currency,
        "vcpu": int(attrs.get("vcpu", "0") or 0) if str(attrs.get("vcpu", "0")).isdigit() else 0,
        "memory_gib": _gib(attrs.get("memory")) or 0.0,
        "gpus": gpus,
        "gpu_model": None,
        "gpu_memory_gib_total": _gib(attrs.get("gpuMemory")) or 0.0,
        "facts_ref": f"pricing.get_products[sku={sku}].attributes",
        "prices": prices,
    }


#: The spot product descriptions of Linux instances (EC2 reports instances in a VPC under the second).
LINUX_PRODUCTS = frozenset({"Linux/UNIX", "Linux/UNIX (Amazon VPC)"})


def parse_spot_history(entries: Iterable[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Spot avg/min/max per instance type over the latest price of each AZ."""
    latest: dict[tuple[str, str], tuple[dt.datetime, float]] = {}
    for e in entries:
        if e.get("ProductDescription", "Linux/UNIX") not in LINUX_PRODUCTS:
            continue
        key = (e["InstanceType"], e["AvailabilityZone"])
        ts = e["Timestamp"]
        if isinstance(ts, str):
            ts = dt.datetime.fromisoformat(ts.replace("Z", "+00:00"))
        try:
            price = float(e["SpotPrice"])
        except (TypeError, ValueError):
            price = math.nan
        if key not in latest or ts > latest[key][0]:
            latest[key] = (ts, price)
    by_type: dict[str, list[tuple[str, dt.datetime, float]]] = {}
    for (itype, az), (ts, price) in latest.items():
        if not math.isfinite(price) or round(price, 6) <= 0:  # never fall back on an older price: leave the AZ out
            log.warning("spot price %r for %s in %s is not a positive finite number; AZ left out", price, itype, az)
            continue
        by_type.setdefault(itype, []).append((az, ts, price))
    out = {}
    for itype, rows in sorted(by_type.items()):
        values = [p for _, _, p in rows]
        date = max(ts for _, ts, _ in rows).date().isoformat()
        azs = ",".join(sorted(az for az, _, _ in rows))
        ref = f"ec2.describe_spot_price_history[{itype},{azs}]"

        def mk(v: float, ref: str = ref, date: str = date) -> dict[str, Any]:
            return {"value": round(v, 6), "unit": "hour", "source": SPOT_SOURCE, "date": date, "ref": ref}

        out[itype] = {"spot_avg": mk(sum(values) / len(values)), "spot_min": mk(min(values)), "spot_max": mk(max(values))}
    return out


# ---------------------------------------------------------------------- calling AWS


def default_instance_types(region: str) -> list[str]:
    doc = _bundled_document()
    here = sorted({r["instance_type"] for r in doc["instances"] if r["region"] == region})
    return here or sorted({r["instance_type"] for r in doc["instances"]})


#: What EC2 answers in an opt-in region the account has not enabled (``OptInRequired``; some endpoints say
#: ``AuthFailure``), or to credentials that may not call DescribeSpotPriceHistory (``UnauthorizedOperation``).
NOT_ENABLED_CODES = frozenset({"OptInRequired", "AuthFailure", "UnauthorizedOperation"})


def _no_spot_message(region: str, code: str) -> str:
    tail = "no spot prices; on-demand and reserved prices written"
    if code == "UnauthorizedOperation":
        return f"the credentials may not call ec2:DescribeSpotPriceHistory in {region} ({code}): {tail}"
    return f"{region} is not enabled for this account ({code}): {tail}"


def _spot_history(ec2_client: Any, types: list[str], now: dt.datetime) -> list[dict[str, Any]]:
    """Every page of ``describe_spot_price_history`` for ``types`` (Linux) from ``now``."""
    entries: list[dict[str, Any]] = []
    token: str | None = None
    while True:
        kwargs: dict[str, Any] = {
            "InstanceTypes": types,
            "ProductDescriptions": sorted(LINUX_PRODUCTS),
            "StartTime": now,
            "MaxResults": 1000,
        }
        if token:
            kwargs["NextToken"] = token
        resp = ec2_client.describe_spot_price_history(**kwargs)
        entries.extend(resp.get("SpotPriceHistory", []))
        token = resp.get("NextToken")
        if not token:
            return entries


def refresh_region(
    region: str,
    *,
    instance_types: list[str] | None = None,
    pricing_client: Any = None,
    ec2_client: Any = None,
    now: dt.datetime | None = None,
) -> dict[str, Any]:
    """Fetch current prices for ``region`` and return a cache document (clients injectable for tests).

    A region the account has not enabled (EC2 answers the spot call with one of :data:`NOT_ENABLED_CODES`)
    gets no spot prices, with a warning: its on-demand and reserved prices come from the Price List API,
    which answers for every region.  Any other error of either call propagates."""
    check_refreshable(region)  # validate early
    types = sorted(set(instance_types or default_instance_types(region)))
    now = now or dt.datetime.now(dt.timezone.utc)
    if pricing_client is None or ec2_client is None:
        from seedance import awsclient

        pricing_client = pricing_client or awsclient.client("pricing", pricing_endpoint_region(region))
        ec2_client = ec2_client or awsclient.client("ec2", region)
    records: dict[str, dict[str, Any]] = {}
    for itype in types:
        matched: list[dict[str, Any]] = []
        token: str | None = None
        while True:
            kwargs: dict[str, Any] = {
                "ServiceCode": "AmazonEC2",
                "Filters": product_filters(itype, region),
                "FormatVersion": "aws_v1",
                "MaxResults": 100,
            }
            if token:
                kwargs["NextToken"] = token
            resp = pricing_client.get_products(**kwargs)
            for item in resp.get("PriceList", []):
                rec = parse_product(item, region)
                if rec is not None and rec["instance_type"] == itype:
                    matched.append(rec)
            token = resp.get("NextToken")
            if not token:
                break
        if not matched:
            log.warning("no on-demand Linux price for %s in %s from the Price List API", itype, region)
            continue
        records[itype] = matched[0]
        if len(matched) > 1:
            log.info("%d Price List entries price %s in %s (%s); the first is used", len(matched), itype, region,
                     ", ".join(r["prices"]["ondemand"]["ref"] for r in matched))
    from botocore.exceptions import ClientError

    from seedance.awsclient import error_code

    try:
        spot_entries = _spot_history(ec2_client, types, now)
    except ClientError as exc:
        code = error_code(exc)
        if code is None or code not in NOT_ENABLED_CODES:
            raise
        log.warning("%s", _no_spot_message(region, code))
        spot_entries = []
    for itype, spot in parse_spot_history(spot_entries).items():
        if itype in records:
            records[itype]["prices"].update(spot)
    return {
        "schema": CACHE_SCHEMA,
        "version": CACHE_VERSION,
        "region": region,
        "refreshed_at": now.replace(microsecond=0).isoformat(),
        "instances": [records[t] for t in sorted(records)],
    }


def _existing_records(path: Path, region: str) -> dict[str, dict[str, Any]]:
    """The records of the region's cache file already at ``path`` by instance type; none when there is no
    file, and none (with a warning) when it cannot be read or is not a cache of ``region``."""
    from seedance.pricing.catalog import PriceDataError, read_cache

    if not path.exists():
        return {}
    try:
        old = read_cache(path)
    except PriceDataError as exc:
        log.warning("the existing price cache cannot be read, so the new prices are written alone: %s", exc)
        return {}
    other = sorted({str(r.get("region")) for r in old["instances"] if r.get("region") != region})
    if other:
        log.warning("the existing price cache %s holds prices of %s, not %s only, so the new prices are written alone",
                    path, ", ".join(other), region)
        return {}
    return {r["instance_type"]: r for r in old["instances"]}


def write_cache(doc: dict[str, Any], cache_dir: Path) -> Path:
    """Merge ``doc`` into ``cache_dir/prices-<region>.json`` and write it whole or not at all (a reader sees
    the old cache or the new one, never half of it).

    The new records replace the file's records of the same instance type; the file's other types are
    kept as they were, with their own price dates (a refresh of one ``--instance-type`` drops nothing).
    An existing file that cannot be read is said so (a warning) and the new records are written alone.
    ``doc`` is checked first with the reader's own checks
    (:func:`seedance.pricing.catalog.check_cache_document`), and the merged cache is overlaid on the bundled
    catalog as a reader would (:func:`seedance.pricing.catalog.catalog_from_document`: prices in another
    currency than the bundled ones of the region are refused), so a cache the catalog would refuse is never
    written: :class:`~seedance.pricing.catalog.PriceDataError` then, and the old cache is kept.  A ``doc``
    with no instance record is refused the same way."""
    from seedance.atomic import write_text_atomically
    from seedance.pricing.catalog import PriceDataError

    cache_dir = Path(cache_dir)
    path = cache_dir / f"prices-{doc['region']}.json"
    origin = f"{path} (not written)"
    check_cache_document(doc, origin)
    if not doc["instances"]:
        raise PriceDataError(f"{origin}: instances: no instance record (a refresh that priced nothing changes no cache)")
    records = _existing_records(path, doc["region"])
    records.update({r["instance_type"]: r for r in doc["instances"]})
    merged = {**doc, "instances": [records[t] for t in sorted(records)]}
    check_cache_document(merged, origin)
    try:  # and it must overlay the bundled catalog (the same currency as the bundled prices of the region)
        catalog_from_document(_bundled_document(), [merged], origins=[origin])
    except PriceDataError:
        raise
    except PricingError as exc:
        raise PriceDataError(f"{origin}: {exc}") from None
    text = json.dumps(merged, indent=1, sort_keys=True, allow_nan=False) + "\n"
    cache_dir.mkdir(parents=True, exist_ok=True)
    write_text_atomically(path, text)
    return path
