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
"""

from __future__ import annotations

import csv
import datetime as dt
import hashlib
import json
import logging
import os
from pathlib import Path
from typing import Any

from seedance.gpus import CATALOG_NAMES
from seedance.pricing.catalog import BAND_MAX_PCT, BUNDLED_CATALOG, CATALOG_SCHEMA, CATALOG_VERSION, PricingError

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


def default_shared_dir() -> Path:
    """``$SEEDANCE_SHARED_DATA``, else ``<repo>/../shared/data``."""
    env = os.environ.get("SEEDANCE_SHARED_DATA")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[2] / ".." / "shared" / "data"


def _rows(shared: Path, rel: str) -> list[dict[str, str]]:
    path = shared / rel
    try:
        with path.open(newline="", encoding="utf-8") as fh:
            return list(csv.DictReader(fh))
    except FileNotFoundError as exc:
        raise PricingError(f"shared data file missing: {path} (set SEEDANCE_SHARED_DATA or pass --shared)") from exc


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _ref(rel: str, keys: dict[str, str], column: str) -> str:
    return f"{Path(rel).name}[{','.join(f'{k}={v}' for k, v in keys.items())}].{column}"


def _num(text: str) -> float | None:
    text = (text or "").strip()
    return float(text) if text else None


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
        key = {"instance_type": row["instance_type"], "region": row["region"]}
        src, date = row["source"], row["snapshot_date"]
        model = row["gpu_model"].strip()
        if model and model not in CATALOG_NAMES:
            raise PricingError(f"{COMPACT}: unknown GPU model {model!r} for {row['instance_type']}; add it to seedance.gpus.CATALOG_NAMES")
        ondemand = _num(row["ondemand_hourly"])
        if ondemand is None:
            log.warning("%s: %s/%s has no on-demand price; skipped", COMPACT, row["region"], row["instance_type"])
            continue
        prices: dict[str, Any] = {"ondemand": _p(ondemand, src, date, _ref(COMPACT, key, "ondemand_hourly"))}
        for name, cols in (("reserved", _RESERVED_COLS), ("convertible", _CONVERTIBLE_COLS), ("savings_plan", _SP_COLS)):
            group = {k: _p(v, src, date, _ref(COMPACT, key, c)) for k, c in cols.items() if (v := _num(row[c])) is not None}
            if group:
                prices[name] = group
        for name, col in _SPOT_COLS.items():
            if (v := _num(row[col])) is not None:
                prices[name] = _p(v, src, date, _ref(COMPACT, key, col))
        rec: dict[str, Any] = {
            "instance_type": row["instance_type"],
            "region": row["region"],
            "currency": row["currency"],
            "vcpu": int(row["vcpu"]),
            "memory_gib": float(row["memory_gib"]),
            "gpus": int(row["gpus"]),
            "gpu_model": CATALOG_NAMES[model].value if model else None,
            "gpu_memory_gib_total": float(row["gpu_memory_gib_total"] or 0),
            "facts_ref": _ref(COMPACT, key, "vcpu..gpu_memory_gib_total"),
            "prices": prices,
        }
        band = row["spot_interrupt_band"].strip()
        if band:
            rec["interruption"] = {
                "band": band,
                "max_pct": BAND_MAX_PCT[band],
                "source": src,
                "date": date,
                "ref": _ref(COMPACT, key, "spot_interrupt_band"),
            }
        records[(row["region"], row["instance_type"])] = rec

    # 2. the 2017 snapshot: general-purpose types, and RI gaps where on-demand is unchanged
    for row in _rows(shared, OLD_2017):
        key = {"instance_type": row["instance_type"], "region": row["region"]}
        src, date = row["source"], row["snapshot_date"]
        ondemand = float(row["ondemand_hourly"])
        reserved = {k: _p(v, src, date, _ref(OLD_2017, key, c)) for k, c in _RESERVED_COLS.items() if (v := _num(row[c])) is not None}
        convertible = {k: _p(v, src, date, _ref(OLD_2017, key, c)) for k, c in _CONVERTIBLE_COLS.items() if (v := _num(row[c])) is not None}
        existing = records.get((row["region"], row["instance_type"]))
        if existing is None:
            prices: dict[str, Any] = {"ondemand": _p(ondemand, src, date, _ref(OLD_2017, key, "ondemand_hourly"))}
            if reserved:
                prices["reserved"] = reserved
            if convertible:
                prices["convertible"] = convertible
            records[(row["region"], row["instance_type"])] = {
                "instance_type": row["instance_type"],
                "region": row["region"],
                "currency": row["currency"],
                "vcpu": int(row["vcpu"]),
                "memory_gib": float(row["memory_gib"]),
                "gpus": int(row["gpus"]),
                "gpu_model": None,  # the 2017 file names no GPU model
                "gpu_memory_gib_total": 0.0,
                "facts_ref": _ref(OLD_2017, key, "vcpu,memory_gib,gpus"),
                "prices": prices,
            }
            continue
        if existing["currency"] != row["currency"]:
            continue
        if abs(existing["prices"]["ondemand"]["value"] - ondemand) > 1e-9:
            log.info("2017 RI for %s/%s not used: on-demand changed since 2017", row["region"], row["instance_type"])
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
        key = {"instance_type": row["instance_type"], "region": row["region"]}
        value = float(row["ondemand_hourly"])
        date = row["generated_at_utc"][:10]
        existing = records.get((row["region"], row["instance_type"]))
        if existing is not None:
            other = existing["prices"]["ondemand"]["value"]
            if abs(other - value) > 5e-7:
                cross_checks.append(
                    {"instance_type": row["instance_type"], "region": row["region"], "catalog": other, "karpenter": value}
                )
            continue
        facts = advisor_linux.get((row["region"], row["instance_type"]))
        if facts is None:
            log.warning("%s: no vCPU/memory facts for %s; skipped", KARPENTER, row["instance_type"])
            continue
        fkey = {"region": row["region"], "os": "Linux", "instance_type": row["instance_type"]}
        records[(row["region"], row["instance_type"])] = {
            "instance_type": row["instance_type"],
            "region": row["region"],
            "currency": row["currency"],
            "vcpu": int(facts["vcpus"]),
            "memory_gib": float(facts["ram_gb"]),
            "gpus": 0,
            "gpu_model": None,
            "gpu_memory_gib_total": 0.0,
            "facts_ref": _ref(ADVISOR, fkey, "vcpus,ram_gb"),
            "prices": {"ondemand": _p(value, row["source"], date, _ref(KARPENTER, key, "ondemand_hourly"))},
        }

    # 4. Spot Advisor: bands where missing, savings figure everywhere it exists
    for (region, itype), rec in records.items():
        adv = advisor_linux.get((region, itype))
        if adv is None:
            continue
        akey = {"region": region, "os": "Linux", "instance_type": itype}
        band = rec.get("interruption")
        if band is None:
            label = adv["interruption_frequency_band"]
            rec["interruption"] = {
                "band": label,
                "max_pct": float(adv["band_upper_bound_pct"]),
                "source": ADVISOR_SOURCE,
                "date": ADVISOR_DATE,
                "ref": _ref(ADVISOR, akey, "interruption_frequency_band"),
            }
        rec["interruption"]["savings_pct"] = float(adv["savings_vs_ondemand_pct"])
        rec["interruption"]["savings_ref"] = _ref(ADVISOR, akey, "savings_vs_ondemand_pct")

    # 5. service list prices
    services: list[dict[str, Any]] = []
    for row in _rows(shared, SERVICES):
        key = {"service": row["service"], "item": row["item"], "region": row["region"]}
        d = _p(float(row["price"]), row["source"], _iso_or_undated(row["source_date"]), _ref(SERVICES, key, "price"),
               unit=row["unit"], note=row["tier_note"])
        d.update(service=row["service"], item=row["item"], region=row["region"], currency=row["currency"])
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
        "services": sorted(services, key=lambda s: (s["region"], s["service"], s["item"])),
    }


def dumps_catalog(doc: dict[str, Any]) -> str:
    """Deterministic text of a catalog document: one record per line, sorted keys."""
    head = {k: v for k, v in doc.items() if k not in ("instances", "services")}
    lines = ["{"]
    for k in sorted(head):
        lines.append(f"{json.dumps(k)}: {json.dumps(head[k], sort_keys=True, ensure_ascii=False)},")
    for name in ("instances", "services"):
        lines.append(f'"{name}": [')
        body = [json.dumps(r, sort_keys=True, ensure_ascii=False, separators=(",", ":")) for r in doc[name]]
        lines.append(",\n".join(body))
        lines.append("]," if name == "instances" else "]")
    lines.append("}")
    return "\n".join(lines) + "\n"


def write_catalog(doc: dict[str, Any], out: Path | None = None) -> Path:
    out = Path(out) if out is not None else BUNDLED_CATALOG
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(dumps_catalog(doc), encoding="utf-8")
    return out
