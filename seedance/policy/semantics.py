"""Cross-field rules of the language (layer four of validation).

Each rule returns the path of the offending field (YAML spelling) and a message, so the
loader can point at the exact line.  Compliance findings (a region outside the residency
list, a gold fleet without on-demand base, ...) are *not* here: they belong to the gate.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from seedance.gpus import mig_profiles
from seedance.policy.model import (
    BindingMode,
    CostPolicy,
    Currency,
    ReservedMode,
    StorageTier,
    Workload,
)

Loc = tuple[str | int, ...]
Issue = tuple[Loc, str]

GP3_MAX_IOPS = 16_000
GP3_MAX_THROUGHPUT = 1_000
S3_MIN_DAYS_BEFORE_IA = 30  # S3 refuses a Standard-IA transition before 30 days
S3_MIN_DAYS_IN_IA = 30


def _dupes(names: list[str]) -> Iterator[int]:
    seen: set[str] = set()
    for i, n in enumerate(names):
        if n in seen:
            yield i
        seen.add(n)


def check(policy: CostPolicy, base_dir: Path | None = None) -> list[Issue]:
    """All cross-field problems of a schema-valid policy."""
    out: list[Issue] = []
    out += _cloud(policy)
    out += _budget(policy)
    out += _fleets(policy, base_dir)
    out += _storage(policy)
    out += _scheduling(policy)
    return out


def _cloud(p: CostPolicy) -> list[Issue]:
    out: list[Issue] = []
    for i, az in enumerate(p.cloud.availability_zones):
        if az[:-1] != p.cloud.region:
            out.append((("cloud", "availabilityZones", i), f"zone {az!r} is not in region {p.cloud.region!r}"))
    for i in _dupes(p.cloud.availability_zones):
        out.append((("cloud", "availabilityZones", i), "zone listed twice"))
    for i in _dupes([f.value for f in p.compliance.frameworks]):
        out.append((("compliance", "frameworks", i), "framework listed twice"))
    return out


def _budget(p: CostPolicy) -> list[Issue]:
    out: list[Issue] = []
    expected = Currency.CNY if p.cloud.region.startswith("cn-") else Currency.USD
    if p.budget.currency != expected:
        out.append(
            (
                ("budget", "currency"),
                f"region {p.cloud.region} is billed in {expected.value}; expected {expected.value}, got {p.budget.currency.value}",
            )
        )
    prev = 0.0
    for i, t in enumerate(p.budget.thresholds):
        if t.at <= prev:
            out.append(
                (("budget", "thresholds", i, "at"), f"thresholds must be strictly ascending: expected > {prev:g}, got {t.at:g}")
            )
        prev = max(prev, t.at)
    return out


def _fleets(p: CostPolicy, base_dir: Path | None) -> list[Issue]:
    out: list[Issue] = []
    for i in _dupes([f.name for f in p.fleets]):
        out.append((("fleets", i, "name"), f"fleet name {p.fleets[i].name!r} is used twice"))
    for i, f in enumerate(p.fleets):
        at = ("fleets", i)
        if (f.gpu is None) == (f.cpu is None):
            out.append((at, "a fleet needs exactly one of 'gpu' or 'cpu'"))
        c = f.capacity
        if c.min > c.desired:
            out.append((at + ("capacity", "desired"), f"expected min <= desired, got min {c.min} > desired {c.desired}"))
        if c.desired > c.max:
            out.append((at + ("capacity", "desired"), f"expected desired <= max, got desired {c.desired} > max {c.max}"))
        if c.max == 0 and f.autoscaling is not None:
            out.append((at + ("autoscaling",), "a disabled fleet (capacity.max 0) cannot autoscale: remove 'autoscaling'"))
        allowed = set(f.instance_types.allowed)
        if allowed:
            for j, t in enumerate(f.instance_types.preferred):
                if t not in allowed:
                    out.append((at + ("instanceTypes", "preferred", j), f"{t!r} is preferred but not in 'allowed'"))
        r = f.reserved
        if r.mode == ReservedMode.FIXED and r.units is None:
            out.append((at + ("reserved", "units"), "mode 'fixed' needs 'units'"))
        if r.mode != ReservedMode.FIXED and r.units is not None:
            out.append((at + ("reserved", "units"), f"'units' is only read when mode is 'fixed' (mode is {r.mode.value!r})"))
        if r.units is not None and r.units > c.max:
            out.append((at + ("reserved", "units"), f"expected at most capacity.max ({c.max}) units, got {r.units}"))
        if f.checkpoint is not None and isinstance(f.checkpoint.interval, int):
            if f.checkpoint.interval <= f.checkpoint.write_seconds:
                out.append(
                    (
                        at + ("checkpoint", "interval"),
                        f"interval must exceed the checkpoint write time ({f.checkpoint.write_seconds:g} s), got {f.checkpoint.interval}",
                    )
                )
        seen_taints: set[tuple[str, str]] = set()
        for j, taint in enumerate(f.taints or []):
            if (taint.key, taint.effect.value) in seen_taints:
                out.append((at + ("taints", j), f"taint {taint.key}:{taint.effect.value} is listed twice"))
            seen_taints.add((taint.key, taint.effect.value))
        for j, w in enumerate(f.off_peak):
            if f.workload not in (Workload.BATCH, Workload.TRAINING, Workload.FINETUNE):
                out.append((at + ("offPeak", j), f"off-peak windows apply to batch or training fleets, not {f.workload.value}"))
            if w.desired > c.max:
                out.append((at + ("offPeak", j, "desired"), f"expected at most capacity.max ({c.max}), got {w.desired}"))
        if f.autoscaling is not None and f.workload not in (Workload.INFERENCE, Workload.API, Workload.BATCH):
            out.append((at + ("autoscaling",), f"autoscaling applies to inference, api or batch fleets, not {f.workload.value}"))
        gs = f.gpu_sharing
        if gs is not None:
            if (gs.mig is None) == (gs.time_slicing is None):
                out.append((at + ("gpuSharing",), "give exactly one of 'mig' or 'timeSlicing'"))
            if f.gpu is None:
                out.append((at + ("gpuSharing",), "GPU sharing needs a 'gpu' requirement"))
            elif gs.mig is not None:
                valid = mig_profiles(f.gpu.model, f.gpu.memory_gib)
                if not valid:
                    out.append(
                        (
                            at + ("gpuSharing", "mig"),
                            f"{f.gpu.model.value} has no MIG support (A100 and H100 do); use 'timeSlicing' instead",
                        )
                    )
                elif gs.mig.profile not in valid:
                    mem = f" with {f.gpu.memory_gib} GiB" if f.gpu.memory_gib else ""
                    out.append(
                        (
                            at + ("gpuSharing", "mig", "profile"),
                            f"no MIG profile {gs.mig.profile!r} on {f.gpu.model.value}{mem}; expected one of: {', '.join(valid)}",
                        )
                    )
        if f.demand_history is not None and base_dir is not None:
            path = (base_dir / f.demand_history).resolve()
            if not path.is_file():
                out.append((at + ("demandHistory",), f"file not found: {f.demand_history}"))
    return out


def _storage(p: CostPolicy) -> list[Issue]:
    out: list[Issue] = []
    s = p.storage
    for i in _dupes([c.name for c in s.classes]):
        out.append((("storage", "classes", i, "name"), f"storage class {s.classes[i].name!r} is defined twice"))
    for i in _dupes([b.name for b in s.checkpoint_buckets]):
        out.append((("storage", "checkpointBuckets", i, "name"), f"bucket {s.checkpoint_buckets[i].name!r} is defined twice"))
    for i, c in enumerate(s.classes):
        at = ("storage", "classes", i)
        if c.tier == StorageTier.GP3:
            if c.iops is not None and c.iops > GP3_MAX_IOPS:
                out.append((at + ("iops",), f"gp3 allows at most {GP3_MAX_IOPS} IOPS, got {c.iops}"))
            if c.iops is not None and c.iops < 3000:
                out.append((at + ("iops",), f"gp3 includes 3000 IOPS; expected 3000..{GP3_MAX_IOPS}, got {c.iops}"))
            if c.throughput_mibps is not None and c.throughput_mibps > GP3_MAX_THROUGHPUT:
                out.append((at + ("throughputMibps",), f"gp3 allows at most {GP3_MAX_THROUGHPUT} MiB/s, got {c.throughput_mibps}"))
        elif c.tier == StorageTier.IO2:
            if c.iops is None:
                out.append((at + ("iops",), "io2 needs provisioned 'iops'"))
            if c.throughput_mibps is not None:
                out.append((at + ("throughputMibps",), "io2 throughput is not provisioned separately"))
        else:  # local NVMe
            if c.iops is not None or c.throughput_mibps is not None:
                out.append((at, "local-nvme volumes have no provisioned IOPS or throughput"))
            if c.binding_mode != BindingMode.WAIT_FOR_FIRST_CONSUMER:
                out.append((at + ("bindingMode",), "local-nvme needs bindingMode WaitForFirstConsumer"))
    for i, b in enumerate(s.checkpoint_buckets):
        at = ("storage", "checkpointBuckets", i)
        if b.warm_days is not None and b.hot_days < S3_MIN_DAYS_BEFORE_IA:
            out.append((at + ("hotDays",), f"S3 moves objects to Standard-IA no earlier than day {S3_MIN_DAYS_BEFORE_IA}, got {b.hot_days}"))
        if b.warm_days is not None and b.warm_days < S3_MIN_DAYS_IN_IA:
            out.append((at + ("warmDays",), f"objects must stay {S3_MIN_DAYS_IN_IA} days in Standard-IA, got {b.warm_days}"))
        if b.cold_days is not None and b.expire_days is not None:
            out.append((at + ("expireDays",), "give either 'coldDays' or 'expireDays', not both"))
        if b.expire_days is not None:
            first = b.hot_days + (b.warm_days or 0)
            if b.expire_days <= b.hot_days:
                out.append((at + ("expireDays",), f"expiry (day {b.expire_days}) must come after the hot tier (day {b.hot_days})"))
            elif b.warm_days is not None and b.expire_days < first:
                out.append(
                    (at + ("expireDays",), f"expiry (day {b.expire_days}) comes before the Glacier transition (day {first}); drop 'warmDays' or expire later")
                )
        if b.noncurrent_expire_days is not None and not b.versioning:
            out.append((at + ("noncurrentExpireDays",), "noncurrent versions exist only with 'versioning: true'"))
    return out


def _scheduling(p: CostPolicy) -> list[Issue]:
    d = p.scheduling.descheduler
    if d.cpu_below_pct > d.target_above_pct or d.memory_below_pct > d.target_above_pct:
        return [
            (
                ("scheduling", "descheduler", "targetAbovePct"),
                f"expected targetAbovePct >= the low thresholds ({d.cpu_below_pct}/{d.memory_below_pct}), got {d.target_above_pct}",
            )
        ]
    return []
