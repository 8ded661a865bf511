"""Planner speed: plan 500 fleets, each with 8,760 hourly demand points (a year), in under 2 s.

``python bench/bench_plan.py`` times :func:`seedance.planner.planner.plan_fleet` (every decision:
instance ranking, spot share, checkpoint interval, forecast over the 1-year term and the exact
receding-horizon commitment) with the catalog already loaded.  Demand: the real v2023 LS and
v2025 DLRM hourly traces (``stacks/demand/``), each tiled to 8,760 hours from a different offset
per fleet; the fleets cycle through the example stacks' eu-prod fleets.  Writes its figures to the
"Planner speed" section of ``bench/README.md``.
"""

from __future__ import annotations

import os
import platform
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import numpy as np  # noqa: E402

from bench.backtest.readme import replace_section  # noqa: E402
from seedance.planner.demand import read_demand_csv  # noqa: E402
from seedance.planner.planner import FleetInputs, offer_view, plan_fleet  # noqa: E402
from seedance.policy import load_policy  # noqa: E402
from seedance.pricing.catalog import load_catalog  # noqa: E402

FLEETS = 500
HOURS = 8760
TARGET_S = 2.0
RUNS = 5


def inputs() -> list[FleetInputs]:
    policy = load_policy(REPO / "stacks" / "policies" / "eu-prod.yaml").policy
    catalog = load_catalog()
    region = policy.cloud.region
    offers = catalog.instances(region)
    views = [offer_view(o) for o in offers]
    traces = [read_demand_csv(REPO / "stacks" / "demand" / n).values for n in ("inference.csv", "dlrm-inference.csv")]
    out = []
    for i in range(FLEETS):
        fleet = policy.fleets[i % len(policy.fleets)]
        key = (fleet.reserved.term, fleet.reserved.payment)
        base = traces[i % 2]
        series = np.roll(np.resize(base, HOURS), 97 * i)
        scale = fleet.capacity.max / max(float(series.max()), 1e-9)  # the trace's shape at the fleet's size
        out.append(FleetInputs(fleet=fleet, offers=views,
                               reserved_hourly={o.instance_type: o.reserved[key].value for o in offers if key in o.reserved},
                               history=series * scale, start_hour_of_week=0, held_units=0, region=region))
    return out


def main() -> int:
    batch = inputs()
    times = []
    for _ in range(RUNS):
        t = time.perf_counter()
        plans = [plan_fleet(x) for x in batch]
        times.append(time.perf_counter() - t)
    med = statistics.median(times)
    reserved = sum(p.plan.reserved_units for p in plans)
    ok = med < TARGET_S
    body = "\n".join([
        "## Planner speed (`bench/bench_plan.py`)",
        "",
        f"`plan_fleet` for {FLEETS} fleets × {HOURS:,} hourly demand points (all decisions, 1-year forecast, exact",
        "receding-horizon commitment), catalog loaded once; demand = the real LS / DLRM traces tiled to a year.",
        "",
        f"- median {med:.2f} s over {RUNS} runs (min {min(times):.2f} s, max {max(times):.2f} s) = "
        f"{1000 * med / FLEETS:.2f} ms per fleet; target < {TARGET_S:g} s: {'OK' if ok else 'MISSED'}",
        f"- {reserved:,} units reserved across the fleets (a sanity figure, not a target)",
        f"- Machine: {platform.python_implementation()} {platform.python_version()}, "
        f"{os.cpu_count()} CPUs, {platform.machine()}",
    ])
    replace_section("planner-speed", body)
    print(body)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
