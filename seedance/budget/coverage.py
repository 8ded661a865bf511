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
"""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path

from seedance.budget.response import OverlayStamp, fleets_changed_at, percent
from seedance.policy.loader import LoadedPolicy
from seedance.policy.model import CostPolicy


def uncovered_fleets(policy: CostPolicy, named: Collection[str], stamp: OverlayStamp) -> list[str]:
    """The fleets of ``policy`` (the overlay merged onto its base) that the response the stamp records
    would change but the overlay does not name, in the policy's order. The response applies the actions
    the stamp records when it records them, whatever the thresholds say now, else those the policy's
    thresholds fire at its fraction."""
    actions = None if stamp.fired is None else [a for _, a in stamp.fired.thresholds]
    changed = fleets_changed_at(policy, stamp.fraction, cluster=True, actions=actions) & \
        fleets_changed_at(policy, stamp.fraction, cluster=False, actions=actions)
    return [f.name for f in policy.fleets if f.name in changed and f.name not in set(named)]


def uncovered_in(loaded: LoadedPolicy) -> tuple[OverlayStamp, list[str]] | None:
    """The stamp of ``loaded`` and the fleets its response leaves uncovered, when it is a budget-response
    overlay that leaves any."""
    if loaded.response is None:
        return None
    stamp = OverlayStamp.parse(loaded.response.stamp_text)
    if stamp is None:  # a stamp line this version cannot read: nothing to compare
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
