"""Gate benchmark: every rule over a 10,000-resource document with the embedded engine (regorus).

    python bench/bench_gate.py [--resources 10000] [--runs 5] [--baseline POLICY_DIR] [--checkov PATH_TO_CHECKOV]

The document replicates the synthesised eu-prod sample (buckets with their configuration resources,
launch templates, autoscaling groups, security groups, Kubernetes objects...) with unique names until
it holds N resources, and is checked with GDPR and MLPS forced on, so every rule runs, then with
each framework alone and with none (budget rules only).  With ``--baseline`` (another policy
directory, e.g. an older commit's ``git archive COMMIT policies``), each row also times those rules
and the current ones in one process, alternating, on the same input, so the ratio holds on a noisy
machine.  With
``--checkov``, the Kubernetes objects of the same document are written out as manifests and checkov
scans them (kubernetes framework) as a peer figure.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from seedance.gate import RegorusEngine, load_bundle  # noqa: E402
from seedance.gate.inputs import GateInput  # noqa: E402
from seedance.gate.run import evaluate  # noqa: E402
from seedance.policy import load_policy  # noqa: E402

SAMPLE = REPO / "tests" / "synth" / "samples" / "eu-prod.json"


def _rename(value, old: str, new: str):
    if isinstance(value, str):
        return value.replace(old, new)
    if isinstance(value, list):
        return [_rename(v, old, new) for v in value]
    if isinstance(value, dict):
        return {k: _rename(v, old, new) for k, v in value.items()}
    return value


def big_document(n: int) -> dict:
    """The sample's resources copied with a ``-cN`` suffix (names, URNs, bucket auto-names and
    namespaces renamed consistently, so joins within a copy still hold) until there are ``n``."""
    sample = json.loads(SAMPLE.read_text())
    base = [r for r in sample["resources"] if r["custom"]]
    text = json.dumps(base)
    autonames = sorted(set(re.findall(r"[a-z][a-z0-9-]*-[0-9a-f]{7}(?=[\"/])", text)), key=len, reverse=True)
    namespaces = [r["inputs"]["metadata"]["name"] for r in base if r["type"] == "kubernetes:core/v1:Namespace"]
    resources: list[dict] = []
    copy = 0
    while len(resources) < n:
        for r in base:
            if len(resources) >= n:
                break
            c = json.loads(json.dumps(r))
            if copy:
                suffix = f"-c{copy}"
                c["urn"] += suffix
                c["name"] += suffix
                deps = c.get("property_dependencies")
                if deps:  # links within a copy point at the copy's own resources
                    c["property_dependencies"] = {k: [u + suffix for u in v] for k, v in deps.items()}
                blob = json.dumps(c["inputs"])
                for auto in autonames:
                    stem, hexpart = auto.rsplit("-", 1)
                    blob = blob.replace(auto, f"{stem}{suffix}-{hexpart}")
                c["inputs"] = json.loads(blob)
                meta = c["inputs"].get("metadata")
                if isinstance(meta, dict):
                    if meta.get("namespace") in namespaces:
                        meta["namespace"] += suffix
                    if c["type"] == "kubernetes:core/v1:Namespace" or c["type"].startswith("kubernetes:storage") or c["type"].startswith("kubernetes:scheduling"):
                        meta["name"] += suffix
            resources.append(c)
        copy += 1
    sample["resources"] = resources
    return sample


def gate_input(doc: dict, frameworks: tuple[str, ...] = ("gdpr", "mlps-l3")) -> GateInput:
    policy = load_policy(REPO / "stacks" / "policies" / "eu-prod.yaml").policy.model_dump(mode="json", by_alias=True)
    policy["compliance"]["frameworks"] = list(frameworks)
    return GateInput(doc, policy, None, {"monthly_total": 100000.0, "currency": "USD"}, None)


class _Timed:
    """Stands in for the engine's compiled regorus engine and times the two engine phases of each
    evaluation (the rest of evaluate() is the result parsing, sorting, METADATA join, waivers and the
    given-resources summary)."""

    def __init__(self, inner) -> None:
        self.inner = inner
        self.hand_over = self.query = 0.0

    def set_input(self, value) -> None:
        start = time.perf_counter()
        self.inner.set_input(value)
        self.hand_over = time.perf_counter() - start

    def eval_query_as_json(self, query: str) -> str:
        start = time.perf_counter()
        out = self.inner.eval_query_as_json(query)
        self.query = time.perf_counter() - start
        return out


def timed_runs(engine: RegorusEngine, bundle, gi: GateInput, runs: int):
    """``runs`` evaluations as the gate does them (the engine's compiled rules reused); per run the
    total and its three phases: input to regorus, query, the rest."""
    files, compiled = engine._local.compiled
    timed = _Timed(compiled)
    engine._local.compiled = (files, timed)
    totals, phases, decision = [], [], None
    try:
        for _ in range(runs):
            start = time.perf_counter()
            decision = evaluate(gi, bundle, engine, as_of=dt.date(2026, 6, 1))
            total = time.perf_counter() - start
            totals.append(total)
            phases.append((timed.hand_over, timed.query, total - timed.hand_over - timed.query))
    finally:
        engine._local.compiled = (files, compiled)
    return totals, phases, decision


def compare(baseline, current, gi: GateInput, runs: int) -> str:
    """Median seconds of the baseline rules and the current ones, alternating run by run."""
    times: tuple[list[float], list[float]] = ([], [])
    counts = [0, 0]
    for _ in range(runs):
        for k, (bundle, engine) in enumerate((baseline, current)):
            start = time.perf_counter()
            decision = evaluate(gi, bundle, engine, as_of=dt.date(2026, 6, 1))
            times[k].append(time.perf_counter() - start)
            counts[k] = len(decision.findings)
    old, new = (statistics.median(t) for t in times)
    return (f"same process, alternating: baseline {old:.2f} s ({counts[0]} findings) -> current {new:.2f} s "
            f"({counts[1]} findings), {new / old:.2f}x")


def run_checkov(checkov: str, doc: dict) -> tuple[int, float, int]:
    manifests = [r["inputs"] for r in doc["resources"] if r["type"].startswith("kubernetes:")]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "manifests.yaml"
        path.write_text(yaml.safe_dump_all(manifests, sort_keys=False))
        start = time.perf_counter()
        proc = subprocess.run([checkov, "-f", str(path), "--framework", "kubernetes", "--quiet", "--compact", "-o", "json"],
                              capture_output=True, text=True, check=False)
        seconds = time.perf_counter() - start
    failed = 0
    try:
        out = json.loads(proc.stdout)
        for report in out if isinstance(out, list) else [out]:
            failed += report.get("summary", {}).get("failed", 0)
    except json.JSONDecodeError:
        failed = -1
    return len(manifests), seconds, failed


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--resources", type=int, default=10_000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--checkov", default=None, help="path to a checkov executable (run from its own venv)")
    ap.add_argument("--baseline", type=Path, default=None, help="a policy directory to time against the current rules")
    args = ap.parse_args()

    doc = big_document(args.resources)
    start = time.perf_counter()
    bundle = load_bundle()
    engine = RegorusEngine()
    engine.prepare(bundle)  # kept by the engine: evaluate() reuses it
    load_s = time.perf_counter() - start
    baseline = None
    if args.baseline is not None:
        old_bundle = load_bundle(args.baseline)
        old_engine = RegorusEngine()
        old_engine.prepare(old_bundle)
        baseline = (old_bundle, old_engine)
    for label, frameworks in (
        ("GDPR + MLPS forced on (every rule runs)", ("gdpr", "mlps-l3")),
        ("GDPR only, the stack's own framework", ("gdpr",)),
        ("MLPS only (forced on this EU document)", ("mlps-l3",)),
        ("no framework (budget rules only)", ()),
    ):
        gi = gate_input(doc, frameworks)
        times, parts, decision = timed_runs(engine, bundle, gi, args.runs)
        assert decision is not None
        counts = decision.counts()
        med = statistics.median(times)
        print(f"- {len(doc['resources'])} resources, {len(bundle.controls)} controls, {label}: "
              f"median {med:.2f} s over {args.runs} runs (min {min(times):.2f}, max {max(times):.2f}); "
              f"{len(decision.findings)} findings ({counts['mandatory']} mandatory, {counts['advisory']} advisory). "
              f"Target: < 1 s. {'OK' if med < 1 else 'MISSED'}")
        hand_over, query_s, rest = (statistics.median(p[k] for p in parts) for k in range(3))
        print(f"  of which (medians, same runs): input to regorus {hand_over:.2f} s, query {query_s:.2f} s, "
              f"rest (results, sorting, METADATA join, waivers, given resources) {rest:.2f} s")
        if baseline is not None:
            print("  " + compare(baseline, (bundle, engine), gi, args.runs))
    print(f"- policy load + compile: {load_s * 1000:.0f} ms (once per process)")
    if args.checkov:
        n, seconds, failed = run_checkov(args.checkov, doc)
        print(f"- checkov (kubernetes framework, its own checks) on the same {n} Kubernetes manifests: {seconds:.1f} s, {failed} failed checks")
    print(f"- Machine: {platform.python_implementation()} {platform.python_version()}, {__import__('os').cpu_count()} CPUs, {platform.machine()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
