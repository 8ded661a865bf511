"""The backtest's traces, fleets and prices (all from the shared real data and the bundled catalog)."""

from __future__ import annotations

import datetime as dt

from bench.backtest.backtest import Case
from bench.backtest.data import V2023, V2025, spot_hourly, v2023_gpu_demand, v2025_dlrm_demand
from seedance.planner.checkpoint import decide_checkpoint
from seedance.planner.spot import band_hourly_rate, stateless_lost_fraction
from seedance.pricing.catalog import load_catalog
from seedance.policy.model import PaymentOption, Term, Workload

REGION = "eu-west-1"  # the only region with multi-week spot price history
SPOT_START = dt.datetime(2021, 12, 14, tzinfo=dt.UTC)  # trace hour 0 <-> first full day of spot history

# name, series, instance type, gold, maxShare, checkpoint (write s, restart s) or None, workload, description
FLEETS = [
    ("v2023-LS", ("v2023", "LS"), "g5.xlarge", True, 0.3, None, Workload.INFERENCE, "LS (latency-sensitive) as gold inference"),
    ("v2023-Burstable", ("v2023", "Burstable"), "g5.xlarge", False, 0.5, (60, 240), Workload.FINETUNE,
     "Burstable as silver finetune"),
    ("v2023-BE", ("v2023", "BE"), "g5.xlarge", False, 0.7, (180, 600), Workload.TRAINING, "BE (best-effort) as bronze training"),
    ("v2023-Guaranteed", ("v2023", "Guaranteed"), "g5.xlarge", True, 0.3, None, Workload.INFERENCE,
     "Guaranteed as gold inference"),
    ("v2025-DLRM", ("v2025", "HN"), "g4dn.xlarge", True, 0.3, None, Workload.INFERENCE, "DLRM GPU nodes (HN) as gold inference"),
    # held out: added after the planner was frozen, to test it on a trace it was never run on
    ("v2025-DLRM-CN", ("v2025", "CN"), "c5.2xlarge", True, 0.3, None, Workload.INFERENCE,
     "DLRM CPU nodes (CN) as gold inference, held out"),
]
#: Traces counted in nodes of a CPU type (instances present), not in 1-GPU nodes (GPUs requested).
CPU_TRACES = {"v2025-DLRM-CN"}


# Other real prices the same traces are rerun on (no retuning): (label, instance type or None for
# each fleet's own, term of the no-upfront standard RI).  Each type has eu-west-1 spot history.
PRICE_SETS = [
    ("own type, 3y RI", None, Term.THREE_YEARS),
    ("g4dn.xlarge, 1y RI", "g4dn.xlarge", Term.ONE_YEAR),
    ("g5.2xlarge, 1y RI", "g5.2xlarge", Term.ONE_YEAR),
    ("p3.2xlarge, 1y RI", "p3.2xlarge", Term.ONE_YEAR),
    ("p3.2xlarge, 3y RI", "p3.2xlarge", Term.THREE_YEARS),
]


def build_cases(instance_type: str | None = None, term: Term = Term.ONE_YEAR) -> list[Case]:
    """The fleets on their own instance type and the 1-year RI, or on ``instance_type`` / ``term``
    (a GPU ``instance_type`` re-prices the GPU traces only; the CPU traces are then left out)."""
    catalog = load_catalog()
    v2023 = v2023_gpu_demand()
    out = []
    for name, (trace, cls), own_type, gold, share, ckpt, workload, desc in FLEETS:
        cpu = name in CPU_TRACES
        if cpu and instance_type is not None:
            continue
        itype = instance_type or own_type
        if cpu:
            demand = v2025_dlrm_demand(cls, column="avg_instances_present")
        else:
            demand = v2023[cls] if trace == "v2023" else v2025_dlrm_demand(cls)
        offer = catalog.instance(REGION, itype)
        if not cpu and (offer.gpus != 1 or offer.gpu_model is None):  # the GPU traces count 1-GPU nodes
            raise ValueError(f"{itype}: the backtest needs a 1-GPU instance type")
        ri = offer.reserved[(term, PaymentOption.NO_UPFRONT)]
        assert offer.interruption_band_max_pct is not None
        rate = band_hourly_rate(offer.interruption_band_max_pct)
        lost = decide_checkpoint(ckpt[0], ckpt[1], rate).overhead if ckpt else stateless_lost_fraction(rate)
        spot, spot_src = spot_hourly(itype, SPOT_START, demand.size)
        out.append(Case(
            name=name, demand=demand, instance_type=itype, gold=gold, max_share=share,
            ondemand=offer.ondemand.value, reserved=ri.value, spot=spot, lost_fraction=lost,
            interruption_rate=rate, workload=workload,
            description=f"{desc}, 1 {offer.gpu_model.value}/node" if offer.gpu_model else f"{desc}, {offer.vcpu} vCPU/node",
            sources={"demand": V2023 if trace == "v2023" else V2025, "ondemand": offer.ondemand.source,
                     "reserved": ri.source, "spot": spot_src,
                     "interruption": f"Spot Advisor band {offer.interruption_band} ({offer.interruption_source or 'catalog'})"},
        ))
    return out
