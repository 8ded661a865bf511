"""Benchmark: offline synthesis (mock runtime) of a stack with 50 and 500 fleets.

The policy is eu-prod with its fleets repeated (names suffixed); the plan (``plan_policy``) is
computed before timing, so the figures are synthesis only:
components + mock runtime + document. Each size is run several times in one process (which
also exercises repeated runs); the median is reported with the time per fleet, whose constancy
shows linear growth. Writes its own section of bench/README.md, keeping the others.
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

from components.platform import PlatformArgs, build_platform  # noqa: E402
from seedance.planner.endpoints import endpoint_prices  # noqa: E402
from seedance.planner.planner import plan_policy  # noqa: E402
from seedance.policy import load_policy  # noqa: E402
from seedance.pricing import load_catalog  # noqa: E402
from seedance.synth.runtime import run_program  # noqa: E402

SIZES = (50, 100, 200, 500)
RUNS = {50: 5, 100: 3, 200: 3, 500: 3}
SECTION = "## Synthesis (bench_synth.py)"
START, END = "<!-- synth-bench:start -->", "<!-- synth-bench:end -->"
HEADER = "# Benchmarks\n"


def build(n: int):  # type: ignore[no-untyped-def]
    loaded = load_policy(REPO / "stacks" / "policies" / "eu-prod.yaml")
    base = loaded.policy.fleets
    fleets = [base[i % len(base)].model_copy(update={"name": f"{base[i % len(base)].name}-{i:03d}"}) for i in range(n)]
    policy = loaded.policy.model_copy(update={"fleets": fleets})
    return loaded.__class__(policy=policy, path=loaded.path, tree=loaded.tree, chain=loaded.chain)


def main() -> int:
    catalog = load_catalog()
    prices = endpoint_prices(catalog, "eu-central-1")
    rows = []
    for n in SIZES:
        loaded = build(n)
        plan = plan_policy(loaded, catalog)
        args = PlatformArgs(policy=loaded.policy, plan=plan, stack="bench", endpoint_prices=prices)
        times, count = [], 0
        for _ in range(RUNS[n]):
            t = time.perf_counter()
            result = run_program(lambda: build_platform(args), project="seedance-gpu", stack="bench", config={"aws:region": "eu-central-1"})
            times.append(time.perf_counter() - t)
            count = len(result.document.resources)
        med = statistics.median(times)
        rows.append((n, count, med, min(times), max(times)))
        print(f"{n} fleets: {count} resources, median {med:.2f} s ({med / n * 1000:.1f} ms/fleet)", file=sys.stderr)
    per_fleet = [r[2] / r[0] for r in rows]
    ratio = rows[-1][2] / rows[0][2]
    lines = [
        "| fleets | resources | median | min | max | per fleet |",
        "|---:|---:|---:|---:|---:|---:|",
        *[f"| {n} | {c} | {m:.2f} s | {lo:.2f} s | {hi:.2f} s | {m / n * 1000:.1f} ms |" for n, c, m, lo, hi in rows],
    ]
    verdict = (
        f"500 / 50 fleets: {ratio:.1f}x the time for 10x the fleets; per-fleet time "
        f"{min(per_fleet) * 1000:.1f}-{max(per_fleet) * 1000:.1f} ms across sizes "
        f"({'linear' if max(per_fleet) <= 1.5 * min(per_fleet) else 'NOT linear'})."
    )
    machine = f"- Machine: {platform.python_implementation()} {platform.python_version()}, {os.cpu_count()} CPUs (shared), {platform.machine()}"
    body = (
        f"{SECTION}\n\n`python bench/bench_synth.py`: eu-prod with its fleets repeated, plan precomputed; "
        "time of `run_program(build_platform)` under the mock runtime, document included "
        f"(runs per size: {', '.join(f'{n}: {RUNS[n]}' for n in SIZES)}; all in one process).\n\n"
        + "\n".join(lines)
        + f"\n\n- {verdict}\n{machine}\n"
    )
    readme = REPO / "bench" / "README.md"
    text = readme.read_text(encoding="utf-8") if readme.exists() else HEADER
    block = f"{START}\n{body}{END}\n"
    if START in text and END in text:
        head, rest = text.split(START, 1)
        text = head + block + rest.split(END, 1)[1].lstrip("\n")
    else:
        text = text.rstrip("\n") + "\n\n" + block
    readme.write_text(text, encoding="utf-8")
    print(body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
