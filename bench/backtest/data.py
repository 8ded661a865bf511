"""Loaders for the shared real data the backtest uses (read-only; nothing here is synthesised).

The shared data folder is ``$SEEDANCE_SHARED_DATA`` or ``<repo>/../shared/data``.
"""

from __future__ import annotations

import csv
import datetime as dt
import os
from collections import defaultdict
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

REPO = Path(__file__).resolve().parents[2]


def shared_data() -> Path:
    env = os.environ.get("SEEDANCE_SHARED_DATA")
    return Path(env) if env else REPO / ".." / "shared" / "data"


V2023 = "gpu_cluster_traces/alibaba_gpu_v2023_hourly_gpu_demand_by_qos.csv"
V2025 = "gpu_cluster_traces/alibaba_gpu_v2025_dlrm_inference_hourly_demand.csv"
SPOT = "aws_spot_prices/spot_price_history_eu-west-1_2021-12-13_2022-06-07.csv"
SKYPILOT = "aws_spot_interruption/skypilot_spot_traces"


def v2023_gpu_demand(column: str = "avg_gpus_requested") -> dict[str, NDArray[np.float64]]:
    """Hourly GPUs requested per QoS class (LS, BE, Burstable, Guaranteed), hour 0 first."""
    rows: dict[str, dict[int, float]] = defaultdict(dict)
    with open(shared_data() / V2023, newline="") as fh:
        for r in csv.DictReader(fh):
            rows[r["qos"]][int(r["hour_index"])] = float(r[column])
    out = {}
    for qos, by_hour in rows.items():
        n = max(by_hour) + 1
        out[qos] = np.array([by_hour.get(i, 0.0) for i in range(n)])
    return out


def v2025_dlrm_demand(role: str = "HN", column: str = "avg_gpus_requested") -> NDArray[np.float64]:
    """Hourly demand of the v2025 DLRM inference trace for one role (HN = GPU nodes, 1 GPU each)."""
    by_hour: dict[int, float] = {}
    with open(shared_data() / V2025, newline="") as fh:
        for r in csv.DictReader(fh):
            if r["role"] == role:
                by_hour[int(r["hour_index"])] = float(r[column])
    return np.array([by_hour[i] for i in range(max(by_hour) + 1)])


def spot_hourly(instance_type: str, start: dt.datetime, hours: int) -> tuple[NDArray[np.float64], str]:
    """Hourly eu-west-1 spot price of ``instance_type`` from ``start``: each AZ forward-filled from its
    records (a record applies until the next one), then averaged over the AZs with a price."""
    recs: dict[str, list[tuple[dt.datetime, float]]] = defaultdict(list)
    with open(shared_data() / SPOT, newline="") as fh:
        for r in csv.DictReader(fh):
            if r["instance_type"] == instance_type:
                t = dt.datetime.fromisoformat(r["timestamp_utc"].replace("Z", "+00:00"))
                recs[r["availability_zone"]].append((t, float(r["spot_price_usd_per_hour"])))
    if not recs:
        raise ValueError(f"no eu-west-1 spot history for {instance_type}")
    grid = [start + dt.timedelta(hours=i) for i in range(hours)]
    per_az = []
    for series in recs.values():
        series.sort()
        times = [t for t, _ in series]
        vals = np.array([v for _, v in series])
        naive = np.array([t.replace(tzinfo=None) for t in times], dtype="datetime64[s]")
        idx = np.searchsorted(naive, np.array([g.replace(tzinfo=None) for g in grid], dtype="datetime64[s]"), side="right") - 1
        col = np.where(idx >= 0, vals[np.clip(idx, 0, None)], np.nan)
        per_az.append(col)
    m = np.array(per_az)
    have = (~np.isnan(m)).sum(axis=0)
    price = np.where(have > 0, np.nansum(m, axis=0) / np.maximum(have, 1), np.nan)
    if np.isnan(price).any():  # hours before the first record of every AZ: back-fill from the first price
        first = price[~np.isnan(price)][0]
        price = np.where(np.isnan(price), first, price)
    return price, f"{SPOT} ({instance_type}, mean of {len(recs)} AZs, forward-filled)"
