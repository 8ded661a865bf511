"""Instance types for a fleet: which catalog types qualify, and their rank by effective cost per unit.

A fleet's **unit** is one node as the policy states it (``gpu.count`` GPUs of ``gpu.model``, or
``cpu.vcpu`` / ``cpu.memoryGib``).  A type qualifies with **weight** ``m`` when it holds ``m``
whole units: for GPU fleets the same GPU model, at least the required memory per GPU, and a GPU
count that is a multiple of ``gpu.count`` (g5.12xlarge = 4 x A10G is weight 4 for a 1-GPU fleet,
weight 1 for a 4-GPU fleet); for CPU fleets no GPUs and ``min(vcpu / need, memory / need)``
whole units.  Bigger types are allowed - the ASG's weighted capacity counts them correctly and
they widen the spot pools - but only up to the fleet's maximum size: a type holding more units
than the fleet may ever run would strand paid capacity.

Rank key: the expected hourly cost of one unit, ``(share * effective_spot + (1 - share) *
on_demand) / weight``, where ``share`` is the fleet's spot share for that type (its maxShare when
that type's effective spot - spot price plus interruption losses - beats its on-demand price,
else 0).  A type whose Spot Advisor band is above the fleet's ``spot.interruptionTolerance`` (see
:mod:`seedance.planner.spot`) is ranked on-demand only.  Preferred types that qualify come first,
in the policy's order.  Fleets that may use spot get every qualifying type (at least three spot
pools - types with a spot price and a band the tolerance accepts - fewer only when the catalog has
no more, and then the reason says so) to diversify spot pools.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from seedance.awsnames import arm64_instance_type
from seedance.gpus import GpuModel
from seedance.planner.spot import band_hourly_rate, band_label, effective_spot_hourly, tolerance_text, within_tolerance

MIN_SPOT_TYPES = 3
MAX_TYPES = 10


@dataclass(frozen=True)
class OfferView:
    """The catalog facts the ranking needs (built from a ``pricing.catalog.InstanceOffer``)."""

    instance_type: str
    vcpu: int
    memory_gib: float
    gpus: int
    gpu_model: GpuModel | None
    gpu_memory_gib_total: float
    ondemand_hourly: float
    spot_hourly: float | None = None
    interruption_band_max_pct: float | None = None


@dataclass(frozen=True)
class Requirement:
    gpu_model: GpuModel | None = None
    gpus: int = 0  # per unit
    gpu_memory_gib: float | None = None  # per GPU, minimum
    # per GPU, exactly one of these (GiB): a MIG profile exists only on some memory sizes
    gpu_memory_sizes: tuple[int, ...] | None = None
    vcpu: int | None = None  # CPU fleets
    memory_gib: float | None = None
    max_units: int = 1  # the fleet's maximum size: no type may hold more units


@dataclass(frozen=True)
class RankedType:
    offer: OfferView
    weight: int
    ondemand_per_unit: float
    effective_spot_per_unit: float | None
    spot_share: float
    cost_per_unit: float  # the rank key
    rationale: str


@dataclass(frozen=True)
class InstanceRanking:
    ranked: list[RankedType]
    rationale: str


def unit_weight(offer: OfferView, req: Requirement) -> tuple[int | None, str]:
    """How many units ``offer`` holds (None when it does not qualify) and why."""
    if arm64_instance_type(offer.instance_type):
        return None, ("is an arm64 (AWS Graviton) type: the fleet's nodes boot the x86_64 EKS-optimised AMI, "
                      "which it cannot run")
    if req.gpu_model is not None:
        if offer.gpus > 0 and offer.gpu_model is None:
            return None, (f"has {offer.gpus} GPU(s) of a model the price data does not name (refreshed prices name "
                          "none, and no bundled type of its family has one)")
        if offer.gpu_model != req.gpu_model or offer.gpus <= 0:
            return None, f"has no {req.gpu_model.value} GPUs"
        if offer.gpus % req.gpus:
            return None, f"{offer.gpus} GPUs is not a multiple of {req.gpus}"
        if req.gpu_memory_gib is not None and offer.gpu_memory_gib_total / offer.gpus < req.gpu_memory_gib:
            return None, f"{offer.gpu_memory_gib_total / offer.gpus:g} GiB per GPU < {req.gpu_memory_gib:g}"
        per_gpu = offer.gpu_memory_gib_total / offer.gpus
        if req.gpu_memory_sizes is not None and round(per_gpu) not in req.gpu_memory_sizes:
            return None, (f"{per_gpu:g} GiB per GPU; the fleet's MIG profile needs "
                          f"{' or '.join(f'{m} GiB' for m in req.gpu_memory_sizes)}")
        weight = offer.gpus // req.gpus
    elif req.vcpu is not None and req.memory_gib is not None:
        if offer.gpus:
            return None, "is a GPU type (a CPU fleet would pay for idle GPUs)"
        weight = min(offer.vcpu // req.vcpu, math.floor(offer.memory_gib / req.memory_gib))
        if weight < 1:
            return None, f"{offer.vcpu} vCPU / {offer.memory_gib:g} GiB is below {req.vcpu} / {req.memory_gib:g}"
    else:
        return None, "the fleet states no GPU or CPU requirement"
    # a fleet of maximum 0 (stopped, as a budget response's degrade leaves a non-core fleet) runs no
    # instance: its group still lists a type, whatever it holds
    if req.max_units > 0 and weight > req.max_units:
        return None, f"holds {weight} units, more than the fleet's maximum {req.max_units}"
    return weight, f"holds {weight} unit(s)"


def rank_instances(
    offers: Sequence[OfferView],
    req: Requirement,
    *,
    max_spot_share: float | None,
    lost_fraction: Callable[[float], float],
    allowed: Sequence[str] = (),
    preferred: Sequence[str] = (),
    region: str = "",
    tolerance: str | None = None,
) -> InstanceRanking:
    """Qualifying types ranked by effective cost per unit (preferred ones first).

    ``lost_fraction(rate_per_hour)`` gives the share of paid spot time lost at an interruption
    rate (it depends on the fleet's workload and checkpointing, not on the type).  ``tolerance``
    is the fleet's ``spot.interruptionTolerance`` (None: every band).
    """
    spot_ok = max_spot_share is not None and max_spot_share > 0
    candidates: list[RankedType] = []
    not_used: dict[str, str] = {}  # preferred types left out, and why
    for offer in offers:
        if allowed and offer.instance_type not in allowed:
            not_used[offer.instance_type] = "not an allowed type"
            continue
        weight, why_not = unit_weight(offer, req)
        if weight is None:
            not_used[offer.instance_type] = why_not or "cannot hold the unit"
            continue
        od = offer.ondemand_hourly / weight
        eff: float | None = None
        share = 0.0
        note = f"on-demand {od:.4g}/unit-h"
        band = offer.interruption_band_max_pct
        if spot_ok and offer.spot_hourly is not None and band is not None and not within_tolerance(band, tolerance):
            assert tolerance is not None
            note += (f", spot band {band_label(band)} is above interruptionTolerance {tolerance_text(tolerance)}: "
                     f"on-demand only")
        elif spot_ok and offer.spot_hourly is not None and band is not None:
            rate = band_hourly_rate(band)
            eff = effective_spot_hourly(offer.spot_hourly, lost_fraction(rate)) / weight
            if eff < od:
                share = float(max_spot_share or 0.0)
            note += (f", effective spot {eff:.4g}/unit-h (band {band_label(band)})" if math.isfinite(eff) else
                     f", spot band {band_label(band)} loses every paid hour to interruptions: on-demand only")
        elif spot_ok:
            note += ", no spot price or interruption band: on-demand only"
        # the expected cost of a unit: on-demand where spot is not used (an infinite effective spot
        # cost times a share of 0 is not a number)
        cost = share * eff + (1 - share) * od if share > 0 and eff is not None else od
        candidates.append(RankedType(offer, weight, od, eff, share, cost,
                                     f"weight {weight}; {note}; expected {cost:.4g} per unit-hour"))
    order = {t: i for i, t in enumerate(preferred)}
    candidates.sort(key=lambda c: (order.get(c.offer.instance_type, len(order)), c.cost_per_unit,
                                   c.weight, c.offer.instance_type))
    ranked = candidates[:MAX_TYPES]
    what = describe_requirement(req)
    where = f" in {region}" if region else ""
    # types spot may launch in (one whose spot loses every hour is not one)
    pools = sum(c.effective_spot_per_unit is not None and math.isfinite(c.effective_spot_per_unit) for c in ranked)
    too_big = sorted(t for t, why_not in not_used.items() if why_not.startswith("holds "))
    if not ranked:
        why = f"no catalog type{where} satisfies {what}" + (f" among the allowed {list(allowed)}" if allowed else "")
    elif spot_ok and pools < MIN_SPOT_TYPES:
        if pools == len(ranked):
            why = f"only {len(ranked)} type(s){where} satisfy {what}"
        else:
            why = (f"{len(ranked)} type(s){where} satisfy {what}, only {pools} of them with a spot price and an "
                   f"interruption band" + (f" within interruptionTolerance {tolerance_text(tolerance)}"
                                           if tolerance is not None else ""))
        why += ((" within the allowed list" if allowed else "")
                + (f" and hold no more units than the fleet's maximum {req.max_units} (not "
                   f"{', '.join(too_big)})" if too_big else "")
                + f", fewer than the {MIN_SPOT_TYPES} spot pools wanted; cheapest per unit first")
    else:
        why = f"{len(ranked)} type(s){where} satisfy {what}; cheapest expected cost per unit first"
    listed = {c.offer.instance_type for c in candidates}
    if any(t in listed for t in preferred):
        why += " (the policy's preferred types first)"
    unfit = [f"{t} ({not_used.get(t, 'not priced' + where)})" for t in dict.fromkeys(preferred) if t not in listed]
    if unfit:
        why += f"; preferred type(s) not used: {'; '.join(unfit)}"
    return InstanceRanking(ranked, why)


def describe_requirement(req: Requirement) -> str:
    """The unit a requirement asks for, for messages: ``1 x A10G with >= 24 GiB each per unit``."""
    if req.gpu_model is not None:
        mem = f" with >= {req.gpu_memory_gib:g} GiB each" if req.gpu_memory_gib else ""
        if req.gpu_memory_sizes is not None:
            mem = f" with {' or '.join(f'{m:g}' for m in req.gpu_memory_sizes)} GiB each (its MIG profile's size)"
        return f"{req.gpus} x {req.gpu_model.value}{mem} per unit"
    return f"{req.vcpu} vCPU / {req.memory_gib} GiB per unit"
