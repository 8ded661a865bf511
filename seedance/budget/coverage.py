"""Whether a budget-response overlay still covers the policy it extends.

An overlay that ``seedance budget respond``/``poll`` wrote answers one alert (its stamp: the fraction
of the budget, the alert type, the month) for the fleets the policy had then. A fleet added to the
base policy since is not in it, so it runs at full size under a response that would have disabled or
frozen it, and nothing else says so. :func:`uncovered_fleets` finds the fleets the stamped response
would change that the overlay does not name (pure); :func:`uncovered_in` applies it to a loaded
overlay and :func:`uncovered_fleets_warning` words it for the loader, which logs it whenever such an overlay is loaded (``plan``, ``estimate``, ``diff``,
``check``, ``synth``).

"Would change" is judged from the policy alone, as the response would be computed without live
group sizes or a plan: ``degrade`` disabling a non-core fleet, ``nonprod-spot-only`` raising spot,
``freeze`` dropping off-peak scale-ups or automatic reservations. A fleet changed whether or not the
stack joins a cluster is reported (only which off-peak windows a freeze drops depends on it).

The thresholds can change too. A stamp records the thresholds its response applied, the alert's
spend and the budget it was a fraction of; :func:`threshold_drift` (pure) compares the actions they
apply with those the policy's thresholds fire now for the same spend (its fraction of the budget as
it is now, when the amount changed); :func:`drifted_in` applies it to a loaded overlay and
:func:`threshold_drift_warning` words a difference for the loader, which logs it as it logs the
uncovered fleets. Only actions that change the policy count: ``notify`` never does, nor
``nonprod-spot-only`` in a prod policy. A stamp from before Seedance recorded the thresholds is not
compared.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from pathlib import Path

from seedance.budget.response import OverlayStamp, fired_at, fleets_changed_at, percent, threshold_label
from seedance.policy.loader import LoadedPolicy
from seedance.policy.model import CostPolicy, Environment, ThresholdAction


def uncovered_fleets(policy: CostPolicy, named: Collection[str], stamp: OverlayStamp) -> list[str]:
    """The fleets of ``policy`` (the overlay merged onto its base) that the response the stamp records
    would change but the overlay does not name, in the policy's order. The response applies the actions
    the stamp records when it records them, whatever the thresholds say now, else those the policy's
    thresholds fire at its fraction."""
    actions = None if stamp.fired is None else [a for _, a in stamp.fired.thresholds]
    changed = fleets_changed_at(policy, stamp.fraction, cluster=True, actions=actions) & \
        fleets_changed_at(policy, stamp.fraction, cluster=False, actions=actions)
    return [f.name for f in policy.fleets if f.name in changed and f.name not in set(named)]


def _stamp_of(loaded: LoadedPolicy) -> OverlayStamp | None:
    """The stamp of a budget-response overlay; None for any other policy, or a stamp line this version
    cannot read (nothing to compare)."""
    return OverlayStamp.parse(loaded.response.stamp_text) if loaded.response is not None else None


def uncovered_in(loaded: LoadedPolicy) -> tuple[OverlayStamp, list[str]] | None:
    """The stamp of ``loaded`` and the fleets its response leaves uncovered, when it is a budget-response
    overlay that leaves any."""
    stamp = _stamp_of(loaded)
    if stamp is None:
        return None
    missing = uncovered_fleets(loaded.policy, loaded.response.fleets, stamp)
    return (stamp, missing) if missing else None


def uncovered_fleets_warning(path: Path, stamp: OverlayStamp, missing: Collection[str]) -> str:
    """What to tell the user when the overlay at ``path`` leaves the ``missing`` fleets uncovered."""
    names = ", ".join(repr(n) for n in missing)
    return (f"{path}: the budget response in this overlay ({stamp.alert_type} alert of {stamp.month}, "
            f"{percent(stamp.fraction)} of budget) does not cover fleet(s) {names} of the policy it extends, which "
            f"that response would change: they run as the policy says; re-run `seedance budget respond` or "
            f"`seedance budget poll` with --out {path} to respond for them")


Fired = tuple[tuple[float, ThresholdAction], ...]  # thresholds as (at, action), in the policy's order


@dataclass(frozen=True)
class ThresholdDrift:
    """The policy's thresholds fire other actions now than the overlay's response applied."""

    applied: Fired  # the thresholds the overlay's response applied, with an action that changes the policy
    now: Fired  # those the policy fires now for the same spend
    moved: tuple[tuple[ThresholdAction, tuple[float, ...]], ...]  # an action applied, no longer fired: its thresholds
    fraction: float  # the spend's fraction of the budget as it is now
    budget: float | None  # the policy's budget now, when it is not the one the response was a fraction of
    # whether the actions the policy fires now change some fleet: only then does a re-run replace the
    # overlay (a response that changes nothing leaves an overlay of its month in place)
    rerun_replaces: bool = False


def _changing(thresholds: Iterable[tuple[float, ThresholdAction]], environment: Environment) -> Fired:
    """The thresholds whose action changes a policy of ``environment``: ``notify`` changes nothing,
    ``nonprod-spot-only`` nothing in prod."""
    return tuple((at, a) for at, a in thresholds if a is not ThresholdAction.NOTIFY
                 and not (a is ThresholdAction.NONPROD_SPOT_ONLY and environment is Environment.PROD))


def threshold_drift(policy: CostPolicy, stamp: OverlayStamp, base: CostPolicy | None = None) -> ThresholdDrift | None:
    """How the actions the policy's thresholds fire now for the stamped alert's spend differ from those
    the stamped response applied (pure); None when they are the same, or the stamp does not record them.

    The spend is the stamp's fraction while the budget amount is the one it was a fraction of; after the
    amount changed, the alert's spend over the new amount (so a new amount alone counts only when that
    crosses other thresholds). ``base``: the policy the overlay extends, on which a re-run decides
    whether the new actions change fleets (default ``policy``)."""
    if stamp.fired is None:
        return None
    budget = policy.budget.monthly_amount
    changed_budget = stamp.fired.budget != budget
    fraction = stamp.fired.amount / budget if changed_budget else stamp.fraction
    env = policy.metadata.environment
    # the actions applied, judged in the environment the response was written for (a staging overlay's
    # nonprod-spot-only still raises spot after the policy became prod)
    applied = _changing(stamp.fired.thresholds, stamp.fired.environment or env)
    now = _changing(((t.at, t.action) for t in policy.budget.thresholds if fired_at(t.at, fraction)), env)
    now_actions = {a for _, a in now}
    if {a for _, a in applied} == now_actions:
        return None
    gone = dict.fromkeys(a for _, a in applied if a not in now_actions)
    moved = tuple((a, tuple(t.at for t in policy.budget.thresholds if t.action is a)) for a in gone)
    # `respond` decides on the policy the overlay extends (``base``; the overlay's own fleets are changed already)
    actions, decided_on = [a for _, a in now], base or policy
    replaces = bool(actions) and bool(fleets_changed_at(decided_on, fraction, cluster=True, actions=actions)
                                      | fleets_changed_at(decided_on, fraction, cluster=False, actions=actions))
    return ThresholdDrift(applied, now, moved, fraction, budget if changed_budget else None, replaces)


def drifted_in(loaded: LoadedPolicy) -> tuple[OverlayStamp, ThresholdDrift] | None:
    """The stamp of ``loaded`` and how the policy's thresholds now differ from what it applied, when it is
    a budget-response overlay whose stamp records them and they differ."""
    stamp = _stamp_of(loaded)
    if stamp is None:
        return None
    drift = threshold_drift(loaded.policy, stamp)
    if drift is not None and drift.now and len(loaded.chain) > 1:  # would a re-run replace it? judged on the base
        from seedance.policy.loader import PolicyError, load_policy

        try:
            drift = threshold_drift(loaded.policy, stamp, load_policy(loaded.chain[-2]).policy)
        except PolicyError:
            pass  # the overlay loaded, so its base does; keep the judgement on the overlay
    return (stamp, drift) if drift is not None else None


def _listed(thresholds: Fired) -> str:
    return ", ".join(f"{a.value} (threshold {threshold_label(at)})" for at, a in thresholds) or "nothing"


def threshold_drift_warning(path: Path, stamp: OverlayStamp, drift: ThresholdDrift) -> str:
    """What to tell the user when the policy's thresholds no longer fire what the overlay at ``path`` applies."""
    full = os.path.abspath(path)
    ats = [at for at, _ in drift.applied + drift.now] + [at for _, moved in drift.moved for at in moved]
    digits = max([1, *(len(threshold_label(at).rstrip("%").partition(".")[2]) for at in ats)])
    spend = f"that spend ({percent(stamp.fraction, digits)} of budget)"
    if drift.budget is not None and stamp.fired is not None:
        spend = (f"that spend ({stamp.fired.amount:,.2f}: {percent(drift.fraction, digits)} of the budget now of "
                 f"{drift.budget:,.2f}, {percent(stamp.fraction, digits)} of the {stamp.fired.budget:,.2f} then)")
    moved = "; ".join(f"{a.value} at {', '.join(map(threshold_label, at))}: not reached" if at else
                      f"no {a.value} threshold" for a, at in drift.moved)
    # a response that changes nothing leaves an overlay of its month in place: re-running does not lift it
    if drift.rerun_replaces:
        todo = (f"re-run `seedance budget respond` or `seedance budget poll` with --out {full} to respond as the "
                "policy now says, or point the stack's seedance:policy back to the policy it extends, then delete the "
                "overlay, to lift the response")
    else:
        todo = (f"point the stack's seedance:policy back to the policy it extends, then delete the overlay, to lift "
                f"the response (`seedance budget respond` or `seedance budget poll` with "
                f"--out {full} replaces it only with a response that changes fleets, or in a new budget month)")
    return (f"{full}: the budget response in this overlay ({stamp.alert_type} alert of {stamp.month}) applies "
            f"{_listed(drift.applied)}, but for {spend} the policy it extends now applies {_listed(drift.now)}"
            + (f" ({moved})" if moved else "") + f": the overlay stays in force as it is; {todo}")
