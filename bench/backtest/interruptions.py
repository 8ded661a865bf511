"""Interruption rates measured in the SkyPilot "Can't Be Late" traces (the planner's open-band rate).

The 4-node preemption traces count the spot instances a 4-node job held (0..4) at each tick, so a
drop of the count is a preemption whatever the sign question of the 1-node traces: the rate per
instance-hour is (sum of drops) / (sum of count x tick length).  For the 1-node traces the value's
meaning is ambiguous (the README says "available instances"; the paper's simulator reads 1 as
preempted); the number of preemptions is the same either way (one per 1->0 or 0->1 change), only
the denominator (hours held) flips, so both readings are reported.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from bench.backtest.data import SKYPILOT, shared_data


def _load(path: Path) -> tuple[np.ndarray, float]:
    doc = json.loads(path.read_text())
    return np.asarray(doc["data"], dtype=float), float(doc["metadata"]["gap_seconds"])


def multi_node_rate(kind: str = "preemption/4-node") -> tuple[float, float, float]:
    """(drops, instance-hours, drops per instance-hour) pooled over the multi-node traces of ``kind``."""
    drops = inst_h = 0.0
    for f in sorted((shared_data() / SKYPILOT / kind).rglob("*.json")):
        d, gap = _load(f)
        drops += float(np.clip(d[:-1] - d[1:], 0, None).sum())
        inst_h += float(d.sum() * gap / 3600)
    return drops, inst_h, drops / inst_h


def one_node_rates(kind: str = "preemption/1-node") -> list[dict[str, float | str]]:
    out = []
    for f in sorted((shared_data() / SKYPILOT / kind).rglob("*.json")):
        d, gap = _load(f)
        falls = int(((d[:-1] == 1) & (d[1:] == 0)).sum())
        rises = int(((d[:-1] == 0) & (d[1:] == 1)).sum())
        h1, h0 = float((d == 1).sum() * gap / 3600), float((d == 0).sum() * gap / 3600)
        out.append({"trace": str(f.relative_to(shared_data() / SKYPILOT)),
                    "rate_if_1_means_running": falls / h1 if h1 else float("nan"),
                    "rate_if_0_means_running": rises / h0 if h0 else float("nan")})
    return out


if __name__ == "__main__":
    drops, hours, rate = multi_node_rate()
    print(f"4-node preemption traces: {drops:.0f} drops over {hours:.0f} instance-hours = {rate:.4f} per instance-hour")
    for row in one_node_rates():
        print(row)
