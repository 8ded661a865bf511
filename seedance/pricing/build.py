"""Build the bundled price catalog from the shared public data (``<repo>/../shared/data``).

Inputs (see the shared data README for provenance and caveats):

* ``aws_pricing/gpu_instance_prices_compact.csv`` — GPU types, 2025 (USD) and 2026 (CNY, China
  regions): on-demand, standard RI (1y/3y, no-upfront and all-upfront effective hourly),
  convertible RI, Savings Plans (China only), spot avg/min/max, Spot Advisor band.  Primary source.
* ``aws_pricing/general_and_gpu_prices_2017-11-12.csv`` — 2017 snapshot: adds general-purpose
  types (c4/c5/m4/r4, g3) and fills RI prices that the 2025 data lacks (p2/p3) **only where the
  2017 on-demand price equals the current one** (the list price has not moved since), so an old
  RI rate is never paired with a changed on-demand rate.
* ``aws_pricing/ondemand_us-east-1_karpenter_2026-07-20.csv`` — us-east-1 on-demand; used where no
  other source prices the type (m5, r5, m6i, c6i, m7i, c7i: on-demand only), otherwise as a
  cross-check recorded in the catalog header.
* ``aws_spot_interruption/spot_advisor_snapshot_2024-02.csv`` — Linux interruption bands, used
  where the compact file has none; vCPU/memory for types only the karpenter file prices.  Only
  rows for (region, type) pairs that have a price are kept.
* ``aws_pricing/service_list_prices.csv`` — every row, as given (USD; no China rows exist).

Every price keeps its upstream ``source``, its ``date`` and a ``ref`` naming the CSV row and column.
Output is deterministic: sorted records, sorted keys, no timestamps of the build itself.

Every cell the build reads is checked: instance prices are finite and > 0, service list prices finite
and >= 0 (some items are free), counts whole numbers, sizes and percentages finite, dates ISO dates.
Corrupt data is a :class:`~seedance.pricing.catalog.PriceDataError` naming ``FILE:LINE`` and the
column (a missing column, a short or long row, a file with no data rows, text that is not UTF-8 or
not CSV) -- never a catalog with a made-up, negative or non-finite price.
"""

from __future__ import annotations

import csv
import datetime as dt
import hashlib
import io
import json
import logging
import math
import os
from pathlib import Path
from typing import Any

from seedance.gpus import CATALOG_NAMES
from seedance.pricing.catalog import (
    BAND_MAX_PCT,
    BUNDLED_CATALOG,
    CATALOG_SCHEMA,
    CATALOG_VERSION,
    PriceDataError,
    PricingError,
)

log = logging.getLogger(__name__)

COMPACT = "aws_pricing/gpu_instance_prices_compact.csv"
OLD_2017 = "aws_pricing/general_and_gpu_prices_2017-11-12.csv"
KARPENTER = "aws_pricing/ondemand_us-east-1_karpenter_2026-07-20.csv"
SERVICES = "aws_pricing/service_list_prices.csv"
ADVISOR = "aws_spot_interruption/spot_advisor_snapshot_2024-02.csv"
INPUTS = (COMPACT, OLD_2017, KARPENTER, SERVICES, ADVISOR)

ADVISOR_SOURCE = "ETOgaosion/bamboo@0faa479:data/spot-advisor-data.json (AWS Spot Advisor data)"
ADVISOR_DATE = "2024-02-28"  # commit date; the download date is not recorded

# compact column -> catalog key
_RESERVED_COLS = {
    "1y/no-upfront": "ri_1y_std_no_upfront_hourly",
    "1y/all-upfront": "ri_1y_std_all_upfront_effective_hourly",
    "3y/no-upfront": "ri_3y_std_no_upfront_hourly",
    "3y/all-upfront": "ri_3y_std_all_upfront_effective_hourly",
}
_CONVERTIBLE_COLS = {"1y": "ri_1y_conv_no_upfront_hourly", "3y": "ri_3y_conv_no_upfront_hourly"}
_SP_COLS = {"1y": "sp_1y_no_upfront_hourly", "3y": "sp_3y_no_upfront_hourly"}
_SPOT_COLS = {"spot_avg": "spot_avg_hourly", "spot_min": "spot_min_hourly", "spot_max": "spot_max_hourly"}

#: The columns the build reads from each input (any others are ignored).
_COLUMNS: dict[str, tuple[str, ...]] = {
    COMPACT: ("instance_type", "region", "currency", "vcpu", "memory_gib", "gpus", "gpu_model", "gpu_memory_gib_total",
              "ondemand_hourly", *_RESERVED_COLS.values(), *_CONVERTIBLE_COLS.values(), *_SP_COLS.values(),
              *_SPOT_COLS.values(), "spot_interrupt_band", "snapshot_date", "source"),
    OLD_2017: ("instance_type", "region", "currency", "vcpu", "memory_gib", "gpus", "ondemand_hourly",
               *_RESERVED_COLS.values(), *_CONVERTIBLE_COLS.values(), "snapshot_date", "source"),
    KARPENTER: ("instance_type", "region", "currency", "ondemand_hourly", "generated_at_utc", "source"),
    ADVISOR: ("region", "os", "instance_type", "savings_vs_ondemand_pct", "interruption_frequency_band",
              "band_upper_bound_pct", "vcpus", "ram_gb"),
    SERVICES: ("service", "item", "region", "currency", "unit", "price", "tier_note", "source", "source_date"),
}


def default_shared_dir() -> Path:
    """``$SEEDANCE_SHARED_DATA``, else ``<repo>/../shared/data``."""
    env = os.environ.get("SEEDANCE_SHARED_DATA")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[2] / ".." / "shared" / "data"


class _Row:
    """One data row of a shared-data CSV: its cells by column, each read through a check that names
    ``FILE:LINE: column NAME`` when the cell is not what it should be."""

    __slots__ = ("cells", "line", "path")

    def __init__(self, path: Path, line: int, cells: dict[str, str]) -> None:
        self.path = path
        self.line = line
        self.cells = cells

    def __getitem__(self, column: str) -> str:
        return self.cells[column]

    def error(self, column: str, expected: str, text: str) -> PriceDataError:
        shown = text if len(text) <= 60 else text[:57] + "..."
        return PriceDataError(f"{self.path}:{self.line}: column {column}: expected {expected}, got {shown!r}")

    def text(self, column: str) -> str:
        """The cell, which must not be empty."""
        value = self.cells[column]
        if not value.strip():
            raise self.error(column, "a value", value)
        return value

    def price(self, column: str) -> float | None:
        """An instance price: empty (no price) or a finite number > 0."""
        text = self.cells[column].strip()
        if not text:
            return None
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not (math.isfinite(value) and value > 0):
            raise self.error(column, "a positive finite price (or an empty cell for none)", text)
        return value

    def required_price(self, column: str) -> float:
        value = self.price(column)
        if value is None:
            raise self.error(column, "a positive finite price", self.cells[column])
        return value

    def list_price(self, column: str) -> float:
        """A service list price: a finite number >= 0 (some items are free)."""
        text = self.cells[column]
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not (math.isfinite(value) and value >= 0):
            raise self.error(column, "a finite price >= 0", text)
        return value

    def count(self, column: str, minimum: int) -> int:
        text = self.cells[column]
        try:
            value = int(text)
        except ValueError:
            raise self.error(column, f"a whole number >= {minimum}", text) from None
        if value < minimum:
            raise self.error(column, f"a whole number >= {minimum}", text)
        return value

    def amount(self, column: str, *, positive: bool, maximum: float | None = None) -> float:
        """A size or percentage: finite, > 0 (``positive``) or >= 0, at most ``maximum``."""
        text = self.cells[column]
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        ok = math.isfinite(value) and (value > 0 if positive else value >= 0) and (maximum is None or value <= maximum)
        if not ok:
            what = "a finite number " + ("> 0" if positive else ">= 0") + (f" and <= {maximum:g}" if maximum is not None else "")
            raise self.error(column, what, text)
        return value

    def date(self, column: str, text: str | None = None) -> str:
        """The cell (or ``text`` taken from it), which must be an ISO date."""
        value = self.cells[column] if text is None else text
        try:
            dt.date.fromisoformat(value.strip())
        except ValueError:
            raise self.error(column, "an ISO date (YYYY-MM-DD)", self.cells[column]) from None
        return value

    def band(self, column: str) -> str:
        value = self.cells[column].strip()
        if value not in BAND_MAX_PCT:
            raise self.error(column, f"a Spot Advisor band ({', '.join(BAND_MAX_PCT)})", self.cells[column])
        return value


def _rows(shared: Path, rel: str) -> list[_Row]:
    """The data rows of ``shared/rel``, checked for shape: UTF-8 CSV, a header with every column the build
    reads, each row as long as the header, at least one data row."""
    from seedance.textfile import TextFileError, read_text_file

    path = shared / rel
    if not path.exists():
        raise PricingError(f"shared data file missing: {path} (set SEEDANCE_SHARED_DATA or pass --shared)")
    try:
        text = read_text_file(path, what="a CSV file")
    except TextFileError as exc:
        raise PriceDataError(str(exc)) from None
    reader = csv.reader(io.StringIO(text, newline=""))
    rows: list[_Row] = []
    try:
        header = next(reader, None)
        if not header:
            raise PriceDataError(f"{path}: empty file; expected a CSV header and data rows")
        missing = [c for c in _COLUMNS[rel] if c not in header]
        if missing:
            raise PriceDataError(f"{path}:{reader.line_num}: missing column(s) {', '.join(missing)} in the header "
                                 f"(it has: {', '.join(header)})")
        while True:
            line = reader.line_num + 1
            cells = next(reader, None)
            if cells is None:
                break
            if not cells:  # a blank line
                continue
            if len(cells) != len(header):
                what = "short" if len(cells) < len(header) else "long"
                raise PriceDataError(f"{path}:{line}: row too {what}: {len(cells)} field(s), the header has {len(header)}")
            rows.append(_Row(path, line, dict(zip(header, cells))))
    except csv.Error as exc:
        raise PriceDataError(f"{path}:{reader.line_num}: not valid CSV: {exc}") from None
    if not rows:
        raise PriceDataError(f"{path}: no data rows (only the header); expected at least one")
    return rows


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _ref(rel: str, keys: dict[str, str], column: str) -> str:
    return f"{Path(rel).name}[{','.join(f'{k}={v}' for k, v in keys.items())}].{column}"


def _p(value: float, source: str, date: str, ref: str, unit: str = "hour", note: str = "") -> dict[str, Any]:
    d: dict[str, Any] = {"value": value, "unit": unit, "source": source, "date": date, "ref": ref}
    if note:
        d["note"] = note
    return d


def _iso_or_undated(text: str) -> str:
    try:
        return dt.date.fromisoformat(text.strip()).isoformat()
    except ValueError:
        return "undated"


def build_catalog(shared: Path | None = None) -> dict[str, Any]:
    """The catalog document built from the shared data in ``shared`` (pure apart from reading it)."""
    shared = Path(shared) if shared is not None else default_shared_dir()
    if not shared.is_dir():
        raise PricingError(f"shared data directory not found: {shared} (set SEEDANCE_SHARED_DATA or pass --shared)")
    records: dict[tuple[str, str], dict[str, Any]] = {}
    cross_checks: list[dict[str, Any]] = []

    # 1. compact GPU prices (primary)
    for row in _rows(shared, COMPACT):
        itype, region = row.text("instance_type"), row.text("region")
        key = {"instance_type": itype, "region": region}
        src, date = row.text("source"), row.date("snapshot_date")
        model = row["gpu_model"].strip()
        if model and model not in CATALOG_NAMES:
            raise PriceDataError(f"{row.path}:{row.line}: column gpu_model: unknown GPU model {model!r} for {itype}; "
                                 f"add it to seedance.gpus.CATALOG_NAMES")
        ondemand = row.price("ondemand_hourly")
        if ondemand is None:
            log.warning("%s: %s/%s has no on-demand price; skipped", COMPACT, region, itype)
            continue
        prices: dict[str, Any] = {"ondemand": _p(ondemand, src, date, _ref(COMPACT, key, "ondemand_hourly"))}
        for name, cols in (("reserved", _RESERVED_COLS), ("convertible", _CONVERTIBLE_COLS), ("savings_plan", _SP_COLS)):
            group = {k: _p(v, src, date, _ref(COMPACT, key, c)) for k, c in cols.items() if (v := row.price(c)) is not None}
            if group:
                prices[name] = group
        for name, col in _SPOT_COLS.items():
            if (v := row.price(col)) is not None:
                prices[name] = _p(v, src, date, _ref(COMPACT, key, col))
        rec: dict[str, Any] = {
            "instance_type": itype,
            "region": region,
            "currency": row.text("currency"),
            "vcpu": row.count("vcpu", 1),
            "memory_gib": row.amount("memory_gib", positive=True),
            "gpus": row.count("gpus", 0),
            "gpu_model": CATALOG_NAMES[model].value if model else None,
            "gpu_memory_gib_total": row.amount("gpu_memory_gib_total", positive=False) if row["gpu_memory_gib_total"] else 0.0,
            "facts_ref": _ref(COMPACT, key, "vcpu..gpu_memory_gib_total"),
            "prices": prices,
        }
        if row["spot_interrupt_band"].strip():
            band = row.band("spot_interrupt_band")
            rec["interruption"] = {
                "band": band,
                "max_pct": BAND_MAX_PCT[band],
                "source": src,
                "date": date,
                "ref": _ref(COMPACT, key, "spot_interrupt_band"),
            }
        records[(region, itype)] = rec

    # 2. the 2017 snapshot: general-purpose types, and RI gaps where on-demand is unchanged
    for row in _rows(shared, OLD_2017):
        itype, region = row.text("instance_type"), row.text("region")
        key = {"instance_type": itype, "region": region}
        src, date = row.text("source"), row.date("snapshot_date")
        ondemand = row.required_price("ondemand_hourly")
        reserved = {k: _p(v, src, date, _ref(OLD_2017, key, c)) for k, c in _RESERVED_COLS.items() if (v := row.price(c)) is not None}
        convertible = {k: _p(v, src, date, _ref(OLD_2017, key, c)) for k, c in _CONVERTIBLE_COLS.items() if (v := row.price(c)) is not None}
        currency = row.text("currency")
        existing = records.get((region, itype))
        if existing is None:
            prices: dict[str, Any] = {"ondemand": _p(ondemand, src, date, _ref(OLD_2017, key, "ondemand_hourly"))}
            if reserved:
                prices["reserved"] = reserved
            if convertible:
                prices["convertible"] = convertible
            records[(region, itype)] = {
                "instance_type": itype,
                "region": region,
                "currency": currency,
                "vcpu": row.count("vcpu", 1),
                "memory_gib": row.amount("memory_gib", positive=True),
                "gpus": row.count("gpus", 0),
                "gpu_model": None,  # the 2017 file names no GPU model
                "gpu_memory_gib_total": 0.0,
                "facts_ref": _ref(OLD_2017, key, "vcpu,memory_gib,gpus"),
                "prices": prices,
            }
            continue
        if existing["currency"] != currency:
            continue
        if abs(existing["prices"]["ondemand"]["value"] - ondemand) > 1e-9:
            log.info("2017 RI for %s/%s not used: on-demand changed since 2017", region, itype)
            continue
        for group_name, group in (("reserved", reserved), ("convertible", convertible)):
            target = existing["prices"].setdefault(group_name, {})
            for k, v in group.items():
                target.setdefault(k, v)
            if not target:
                del existing["prices"][group_name]

    # 3. karpenter us-east-1 on-demand: fills types nobody else prices; otherwise a cross-check
    advisor = _rows(shared, ADVISOR)
    advisor_linux = {(r["region"], r["instance_type"]): r for r in advisor if r["os"] == "Linux"}
    for row in _rows(shared, KARPENTER):
        itype, region = row.text("instance_type"), row.text("region")
        key = {"instance_type": itype, "region": region}
        value = row.required_price("ondemand_hourly")
        date = row.date("generated_at_utc", row["generated_at_utc"][:10])
        existing = records.get((region, itype))
        if existing is not None:
            other = existing["prices"]["ondemand"]["value"]
            if abs(other - value) > 5e-7:
                cross_checks.append({"instance_type": itype, "region": region, "catalog": other, "karpenter": value})
            continue
        facts = advisor_linux.get((region, itype))
        if facts is None:
            log.warning("%s: no vCPU/memory facts for %s; skipped", KARPENTER, itype)
            continue
        fkey = {"region": region, "os": "Linux", "instance_type": itype}
        records[(region, itype)] = {
            "instance_type": itype,
            "region": region,
            "currency": row.text("currency"),
            "vcpu": facts.count("vcpus", 1),
            "memory_gib": facts.amount("ram_gb", positive=True),
            "gpus": 0,
            "gpu_model": None,
            "gpu_memory_gib_total": 0.0,
            "facts_ref": _ref(ADVISOR, fkey, "vcpus,ram_gb"),
            "prices": {"ondemand": _p(value, row.text("source"), date, _ref(KARPENTER, key, "ondemand_hourly"))},
        }

    # 4. Spot Advisor: bands where missing, savings figure everywhere it exists
    for (region, itype), rec in records.items():
        adv = advisor_linux.get((region, itype))
        if adv is None:
            continue
        if rec.get("interruption") is None:
            rec["interruption"] = _advisor_band(adv, region, itype)
        rec["interruption"].update(_advisor_savings(adv, region, itype))

    # 4b. the same bands for the catalog's types in every other region the snapshot covers: a region
    # only `prices refresh` prices (the Price List API has no interruption data) takes its types' band
    # from here, so its fleets can plan spot
    types = {itype for _, itype in records}
    spot_bands = [{"region": region, "instance_type": itype, **_advisor_band(adv, region, itype),
                   **_advisor_savings(adv, region, itype)}
                  for (region, itype), adv in sorted(advisor_linux.items()) if itype in types and (region, itype) not in records]

    # 5. service list prices
    services: list[dict[str, Any]] = []
    for row in _rows(shared, SERVICES):
        service, item, region = row.text("service"), row.text("item"), row.text("region")
        key = {"service": service, "item": item, "region": region}
        d = _p(row.list_price("price"), row.text("source"), _iso_or_undated(row["source_date"]), _ref(SERVICES, key, "price"),
               unit=row.text("unit"), note=row["tier_note"])
        d.update(service=service, item=item, region=region, currency=row.text("currency"))
        services.append(d)

    region_currency: dict[str, str] = {}
    for rec in [*records.values(), *services]:
        cur = region_currency.setdefault(rec["region"], rec["currency"])
        if cur != rec["currency"]:
            raise PricingError(f"shared data mixes {cur} and {rec['currency']} in {rec['region']}")

    return {
        "schema": CATALOG_SCHEMA,
        "version": CATALOG_VERSION,
        "built_from": [{"file": rel, "sha256": _sha256(shared / rel)} for rel in INPUTS],
        "ondemand_cross_checks": sorted(cross_checks, key=lambda c: (c["region"], c["instance_type"])),
        "region_currency": dict(sorted(region_currency.items())),
        "instances": [records[k] for k in sorted(records)],
        "spot_bands": spot_bands,
        "services": sorted(services, key=lambda s: (s["region"], s["service"], s["item"])),
    }


def _advisor_band(adv: _Row, region: str, itype: str) -> dict[str, Any]:
    """A Spot Advisor row's interruption band (an ``interruption`` record without its savings)."""
    akey = {"region": region, "os": "Linux", "instance_type": itype}
    return {
        "band": adv.band("interruption_frequency_band"),
        "max_pct": adv.amount("band_upper_bound_pct", positive=True, maximum=100),
        "source": ADVISOR_SOURCE,
        "date": ADVISOR_DATE,
        "ref": _ref(ADVISOR, akey, "interruption_frequency_band"),
    }


def _advisor_savings(adv: _Row, region: str, itype: str) -> dict[str, Any]:
    """A Spot Advisor row's savings against on-demand, with its reference."""
    akey = {"region": region, "os": "Linux", "instance_type": itype}
    return {"savings_pct": adv.amount("savings_vs_ondemand_pct", positive=False, maximum=100),
            "savings_ref": _ref(ADVISOR, akey, "savings_vs_ondemand_pct")}


def dumps_catalog(doc: dict[str, Any]) -> str:
    """Deterministic text of a catalog document: one record per line, sorted keys; strict JSON (a NaN or
    infinite number is a :class:`PriceDataError`, never a ``NaN``/``Infinity`` token)."""
    try:
        return _dumps_catalog(doc)
    except ValueError as exc:  # allow_nan=False: the checks above should make this unreachable
        raise PriceDataError(f"the catalog would hold a number that is not finite ({exc}); nothing written") from None


def _dumps_catalog(doc: dict[str, Any]) -> str:
    listed = [name for name in ("instances", "spot_bands", "services") if name in doc]  # one record a line
    head = {k: v for k, v in doc.items() if k not in listed}
    lines = ["{"]
    for k in sorted(head):
        lines.append(f"{json.dumps(k)}: {json.dumps(head[k], sort_keys=True, ensure_ascii=False, allow_nan=False)},")
    for name in listed:
        lines.append(f'"{name}": [')
        body = [json.dumps(r, sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=False) for r in doc[name]]
        lines.append(",\n".join(body))
        lines.append("]" if name == listed[-1] else "],")
    lines.append("}")
    return "\n".join(lines) + "\n"


def write_catalog(doc: dict[str, Any], out: Path | None = None) -> Path:
    """Write ``doc`` to ``out`` (default: the bundled catalog) whole or not at all."""
    from seedance.atomic import write_text_atomically

    out = Path(out) if out is not None else BUNDLED_CATALOG
    text = dumps_catalog(doc)  # before touching the file: an error leaves the old catalog as it was
    out.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomically(out, text)
    return out
