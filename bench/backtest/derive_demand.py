"""Derive the example stacks' hourly node-demand CSVs (``stacks/demand/``) from the real Alibaba
GPU traces.  Rerun: ``python bench/backtest/derive_demand.py``.

Mapping (our reading of the QoS classes, not the trace's own labels):

* ``inference.csv``  <- v2023 LS (latency-sensitive) GPUs requested / 1 GPU per node (fleet ``inference``, 1 x A10G)
* ``finetune.csv``   <- v2023 Burstable GPUs requested / 4 GPUs per node (fleet ``finetune``, 4 x A10G)
* ``training.csv``   <- v2023 BE (best-effort) GPUs requested / 8 GPUs per node (fleet ``llm-train``, 8 x A100)
* ``dlrm-inference.csv`` <- v2025 DLRM HN (GPU node) GPUs requested / 1 GPU per node (a large inference fleet)

The traces give hours since their start, not dates.  The files anchor hour 0 at an arbitrary fixed
Monday (``ANCHOR``) so the CSVs have the ``hour`` timestamps the planner reads; weekday labels are
therefore not the trace's real weekdays.
"""

from __future__ import annotations

import datetime as dt
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from bench.backtest.data import V2023, V2025, v2023_gpu_demand, v2025_dlrm_demand  # noqa: E402
from seedance.planner.demand import write_demand_csv  # noqa: E402

ANCHOR = dt.datetime(2024, 1, 1, tzinfo=dt.UTC)  # a Monday; the traces carry no absolute dates
OUT = REPO / "stacks" / "demand"

MAPPING = [
    ("inference.csv", "LS", 1, "fleet inference (1 x A10G per node)"),
    ("finetune.csv", "Burstable", 4, "fleet finetune (4 x A10G per node)"),
    ("training.csv", "BE", 8, "fleet llm-train (8 x A100 per node)"),
]


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    by_qos = v2023_gpu_demand()
    for name, qos, per_node, fleet in MAPPING:
        values = by_qos[qos] / per_node
        write_demand_csv(OUT / name, ANCHOR, values, comment=(
            f"Derived by bench/backtest/derive_demand.py from {V2023.split('/')[-1]} (Alibaba clusterdata v2023):\n"
            f"QoS {qos}, avg_gpus_requested / {per_node} GPUs per node -> nodes for {fleet}.\n"
            f"Hour 0 of the trace is anchored at {ANCHOR:%Y-%m-%d} (the trace has no dates)."))
        print(f"{name}: {values.size} h, mean {values.mean():.2f}, max {values.max():.2f} nodes")
    hn = v2025_dlrm_demand("HN")
    write_demand_csv(OUT / "dlrm-inference.csv", ANCHOR, hn, comment=(
        f"Derived by bench/backtest/derive_demand.py from {V2025.split('/')[-1]} (Alibaba clusterdata v2025):\n"
        "role HN (GPU nodes, 1 GPU each), avg_gpus_requested / 1 -> nodes.\n"
        f"Hour 0 of the trace is anchored at {ANCHOR:%Y-%m-%d} (the trace has no dates)."))
    print(f"dlrm-inference.csv: {hn.size} h, mean {hn.mean():.1f}, max {hn.max():.1f} nodes")


if __name__ == "__main__":
    main()
