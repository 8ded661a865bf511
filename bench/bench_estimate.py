"""Benchmark: estimate a policy with 500 fleets (built in memory from the eu-prod stack).

Writes the median of several runs into the "Estimate" section of bench/README.md (other sections
are kept).  Target: well under 1 s on a 2-core machine.
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

from bench.backtest.readme import replace_section  # noqa: E402
from seedance.estimate import estimate_policy  # noqa: E402
from seedance.policy import load_policy  # noqa: E402
from seedance.pricing import load_catalog  # noqa: E402

FLEETS = 500
RUNS = 7
SECTION = "## Estimate (bench_estimate.py)"


def build_policy(n: int = FLEETS):  # type: ignore[no-untyped-def]
    loaded = load_policy(REPO / "stacks" / "policies" / "eu-prod.yaml")
    base = loaded.policy.fleets
    fleets = [base[i % len(base)].model_copy(update={"name": f"{base[i % len(base)].name}-{i:03d}"}) for i in range(n)]
    return loaded.policy.model_copy(update={"fleets": fleets})


def main() -> int:
    t0 = time.perf_counter()
    catalog = load_catalog()
    load_s = time.perf_counter() - t0
    policy = build_policy()
    times = []
    est = None
    for _ in range(RUNS):
        t = time.perf_counter()
        est = estimate_policy(policy, catalog)
        times.append(time.perf_counter() - t)
    median = statistics.median(times)
    assert est is not None and len(est.by_fleet) == FLEETS
    line = (
        f"- {FLEETS} fleets (eu-prod x 100, {sum(len(r.components) for r in est.resources)} components): "
        f"median {median * 1000:.1f} ms over {RUNS} runs (min {min(times) * 1000:.1f} ms, max {max(times) * 1000:.1f} ms); "
        f"catalog load {load_s * 1000:.1f} ms (once per process). Target: well under 1 s. "
        f"{'OK' if median < 1.0 else 'MISSED'}"
    )
    machine = f"- Machine: {platform.python_implementation()} {platform.python_version()}, {os.cpu_count()} CPUs, {platform.machine()}"
    body = f"{SECTION}\n\n`python bench/bench_estimate.py`: `estimate_policy` on a generated policy, catalog preloaded.\n\n{line}\n{machine}\n"
    replace_section("estimate", body)  # only between its own markers: the other sections stay
    print(line)
    return 0 if median < 1.0 else 1


if __name__ == "__main__":
    sys.exit(main())
