"""Checkpoint interval for interruptible (spot) training: Young's first-order optimum with Daly's
higher-order correction, and the expected share of wall-clock time lost to checkpoints and failures.

Symbols (all in seconds): ``delta`` = time to write one checkpoint, ``mtbi`` = mean time between
interruptions (1 / hourly interruption rate, in seconds), ``restart`` = time to resume after one.

* Young (1974): ``tau = sqrt(2 * delta * M)``.
* Daly (2006): ``tau = sqrt(2 delta M) * (1 + sqrt(delta / 2M) / 3 + (delta / 2M) / 9) - delta``
  when ``delta < 2M``, else ``tau = M``.
* Daly's expected wall-clock time for ``T`` seconds of work, interruptions arriving as a Poisson
  process: ``T_w = M * exp(R/M) * (exp((tau + delta)/M) - 1) * T / tau``.  The overhead fraction is
  ``1 - T / T_w``: the share of paid node time that does no useful work.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class CheckpointDecision:
    interval_s: float
    young_interval_s: float
    overhead: float  # expected share of paid time lost (checkpoint writes, lost work, restarts)
    rationale: str


def young_interval(delta: float, mtbi: float) -> float:
    """Young's first-order optimum ``sqrt(2 delta M)``."""
    _check(delta, mtbi)
    return math.sqrt(2.0 * delta * mtbi)


def daly_interval(delta: float, mtbi: float) -> float:
    """Daly's higher-order optimum (compute time between checkpoints, seconds)."""
    _check(delta, mtbi)
    if delta >= 2.0 * mtbi:
        return mtbi
    x = delta / (2.0 * mtbi)
    return math.sqrt(2.0 * delta * mtbi) * (1.0 + math.sqrt(x) / 3.0 + x / 9.0) - delta


def overhead_fraction(interval: float, delta: float, mtbi: float, restart: float = 0.0) -> float:
    """Expected share of wall-clock time that is not useful work (Daly's model)."""
    _check(delta, mtbi)
    if interval <= 0:
        raise ValueError(f"checkpoint interval must be positive, got {interval}")
    if restart < 0:
        raise ValueError(f"restart time must be >= 0, got {restart}")
    try:
        wall_per_work = mtbi * math.exp(restart / mtbi) * math.expm1((interval + delta) / mtbi) / interval
    except OverflowError:  # interruptions so frequent that (almost) no work is ever done
        return 1.0
    # >= delta / (interval + delta) > 0 in exact arithmetic; a write of 1e-300 s rounds it to a hair below 0
    return min(1.0, max(0.0, 1.0 - 1.0 / wall_per_work))


def no_interruption_overhead(interval: float, delta: float) -> float:
    """Overhead with no interruptions at all: only the writes (``delta / (tau + delta)``)."""
    return delta / (interval + delta)


def decide_checkpoint(
    write_s: float, restart_s: float, interruptions_per_hour: float, fixed_interval_s: float | None = None
) -> CheckpointDecision:
    """The interval to checkpoint at (Daly's optimum unless the policy fixes one) and its overhead."""
    if interruptions_per_hour <= 0:
        interval = fixed_interval_s if fixed_interval_s is not None else math.inf
        ovh = 0.0 if math.isinf(interval) else no_interruption_overhead(interval, write_s)
        return CheckpointDecision(
            interval, interval, ovh, "no expected interruptions (no spot): checkpoint only as the policy fixes"
        )
    mtbi = 3600.0 / interruptions_per_hour
    young = young_interval(write_s, mtbi)
    if fixed_interval_s is not None:
        ovh = overhead_fraction(fixed_interval_s, write_s, mtbi, restart_s)
        return CheckpointDecision(
            fixed_interval_s, young, ovh,
            f"fixed by the policy at {fixed_interval_s:.0f} s (Young would give {_secs(young)} s); "
            f"expected overhead {ovh:.1%}",
        )
    tau = daly_interval(write_s, mtbi)
    ovh = overhead_fraction(tau, write_s, mtbi, restart_s)
    return CheckpointDecision(
        tau, young, ovh,
        f"Daly optimum {_secs(tau)} s (Young {_secs(young)} s) for {_secs(write_s)} s writes and one interruption "
        f"every {mtbi / 3600:.1f} h; expected overhead {ovh:.1%}",
    )


def _secs(seconds: float) -> str:
    """Whole seconds, or three significant digits below ten (a 0.002 s write is not "0 s")."""
    return f"{seconds:.0f}" if seconds >= 10 else f"{seconds:.3g}"


def _check(delta: float, mtbi: float) -> None:
    if not delta > 0:
        raise ValueError(f"checkpoint write time must be positive, got {delta}")
    if not mtbi > 0:
        raise ValueError(f"mean time between interruptions must be positive, got {mtbi}")
