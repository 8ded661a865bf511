"""What a budget alert does to a policy: the threshold actions, as a pure transformation.

A monthly alert reports an ACTUAL or FORECASTED amount.  Every threshold of the policy's budget at
or below ``amount / budget.monthlyAmount`` has fired, and the actions of all fired thresholds apply
together (the result does not depend on the order alerts arrive in):

* ``notify`` — nothing changes;
* ``degrade`` — non-core fleets are disabled: ``capacity.min``, ``desired`` and ``max`` 0 (a zero
  maximum is what stops a Cluster Autoscaler from starting nodes again for their pending pods; AWS
  lowers the group's live size to it), no off-peak scale-ups, no autoscaling, no demand history (so
  the planner plans no nodes for them) and no new reserved purchases (reservations already held stay
  billed: they cannot be cancelled);
* ``nonprod-spot-only`` — in a non-prod policy every fleet may run on spot as far as its SLA tier
  allows (``spot.maxShare`` raised to the gate's default tier cap: 1, gold 0.5, so the overlay
  still passes the gate) and buys no new reservations; a prod policy is untouched;
* ``freeze`` — no fleet grows: no off-peak scale-ups (a window that only lowers the size, below
  what the group runs outside it, is kept: removing it would cost more), no reserved purchases
  beyond what the policy's plan already holds, and, when the live group sizes are given (in units,
  :func:`seedance.budget.live.live_units`), ``capacity.max`` drops to the fleet's live size (at
  least ``min`` and 1). Once a freeze of a budget month has set a fleet's cap, every later freeze
  of that month keeps it (``earlier_caps``): never lower, so a later alert does not ratchet it down
  to a momentary low, and never higher, since a freeze stops growth from the moment it first fired
  (a group running above it, grown before the cap was deployed, is named in a note; only a policy
  whose ``min`` has since risen above it lifts it, to that minimum). Without live sizes
  ``capacity.max`` is left as it is (or at the earlier freeze's cap) and a note says so: the
  policy's ``desired`` is not the live size once a Cluster Autoscaler manages the group, and a
  maximum below the live size makes AWS shrink the group.

"No new reserved purchases" (``degrade``, ``nonprod-spot-only``) turns ``reserved.mode: auto`` into
``none``; a ``fixed`` count is left as it is, since it names reservations already bought, which stay
billed and would otherwise be priced on-demand. A ``freeze`` instead turns ``auto`` into ``fixed`` at
the units the policy's own plan reserves (``planned_reserved``; at most the new maximum): those are
the reservations the deployed policy's estimate already counts, so the overlay prices the same ones
and buys none beyond them. Turning them to ``none`` would price the fleet's steady hours on-demand
and make the frozen deploy cost more than the policy it replaces (the gate then blocks it). Without
the plan a freeze falls back to ``none`` and a note says the projection may rise.

An alert acts only on the stack's own budget: with ``stack`` it must be ``seedance-<stack>-monthly``,
without it a Seedance budget (``seedance-*-monthly``), and from the policy's ``cloud.accountId``
when both name an account. Anything else is ignored, with the reason (whatever its currency: only
an alert the stack answers must be in its budget's currency).

The response carries every change (field path, before, after, reason) and an overlay document
that ``extends`` the original policy, so a pipeline can commit it and redeploy from it.
"""

from __future__ import annotations

import math
import os
import re
from decimal import ROUND_FLOOR, Decimal, localcontext
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from seedance.budget.events import BudgetAlert
from seedance.budget.status import budget_name
from seedance.policy.loader import BUDGET_RESPONSE_FIRED, BUDGET_RESPONSE_STAMP
from seedance.policy.model import (
    Capacity,
    CostPolicy,
    Environment,
    Fleet,
    Reserved,
    ReservedMode,
    SLA_SPOT_CAP,
    Spot,
    Threshold,
    ThresholdAction,
    Tolerance,
)


class BudgetResponseError(Exception):
    """The alert cannot be applied to this policy (currency, period)."""


SEEDANCE_BUDGET = re.compile(r"^seedance-(?P<stack>.+)-monthly$")


#: A threshold fires when the spend's fraction reaches it up to this much (float division: 0.85 x the
#: budget can divide to 0.8499999999999999); every figure shown of the fraction rounds with the same slack.
FIRE_TOLERANCE = 1e-12


def answered_budget(alert: BudgetAlert, stack: str | None) -> str | None:
    """The budget a run for ``stack`` answers: the stack's own, or without a stack the alert's when it is
    a Seedance budget; None when it answers none (the alert is then ignored)."""
    if stack is not None:
        return budget_name(stack)
    return alert.budget_name if SEEDANCE_BUDGET.match(alert.budget_name) else None


def fired_at(at: float, fraction: float) -> bool:
    """Whether a threshold ``at`` fires for ``fraction`` of the budget."""
    return at <= fraction + FIRE_TOLERANCE


def fraction_down(fraction: float, places: int = 6) -> float:
    """``fraction`` rounded *down* to ``places`` decimals (with the slack thresholds fire with), so it
    never reads at or above a threshold that did not fire, nor below one that did."""
    if not math.isfinite(fraction):
        return fraction
    with localcontext() as ctx:
        ctx.prec = 800  # any finite float, written out in full
        value = Decimal(repr(fraction)) + Decimal(repr(FIRE_TOLERANCE))
        return float(value.quantize(Decimal(1).scaleb(-places), rounding=ROUND_FLOOR))


def exact_decimal(value: float) -> str:
    """A finite float in positional notation that reads back as exactly the same float (no exponent)."""
    return format(Decimal(repr(value)), "f")


def percent(fraction: float, digits: int = 1) -> str:
    """``fraction`` as a percentage rounded *down* (94.99% shows as 94.9%, never as the 95% threshold)."""
    if not math.isfinite(fraction):
        return f"{fraction * 100}%"
    value = Decimal(repr(fraction_down(fraction, digits + 2))).scaleb(2)  # the same rounding as every other figure
    return f"{value:.{digits}f}%"


@dataclass(frozen=True)
class Change:
    path: str  # e.g. "fleets[llm-train].capacity.desired"
    before: Any
    after: Any
    reason: str


@dataclass(frozen=True)
class Projection:
    """The monthly cost ``seedance check`` projects (its estimate, BUDGET-COST-1's figure) for the
    policy and for the overlay that replaces it."""

    policy: float
    overlay: float
    budget: float
    currency: str

    @property
    def above_budget(self) -> bool:
        return self.overlay > self.budget

    @property
    def above_policy(self) -> bool:
        return self.overlay > self.policy + 0.005  # a cent's rounding is no rise

    def warnings(self) -> list[str]:
        """What the user must know before redeploying from the overlay."""
        out = []
        money = f"{self.overlay:,.2f} {self.currency}"
        if self.above_policy:
            out.append(f"the overlay's projected monthly cost {money} is above the policy's {self.policy:,.2f} "
                       f"{self.currency}: this response raises the cost")
        if self.above_budget:
            out.append(f"the overlay's projected monthly cost {money} is above the budget of {self.budget:,.2f} "
                       f"{self.currency}: seedance check will block it (BUDGET-COST-1) until the budget or the "
                       "overlay changes")
        return out


@dataclass(frozen=True)
class BudgetResponse:
    policy: str
    alert: BudgetAlert
    fraction: float  # amount / the policy's monthly budget
    fired: list[Threshold]
    actions: list[ThresholdAction]
    changes: list[Change]
    notes: list[str]
    effective: CostPolicy
    overlay: dict[str, Any] = field(default_factory=dict)
    ignored: str | None = None  # why the alert does not apply to this policy, when it does not
    projection: Projection | None = None  # the overlay's projected cost, when it was computed

    @property
    def changed(self) -> bool:
        return bool(self.changes)


def respond(policy: CostPolicy, alert: BudgetAlert, *, policy_ref: str, stack: str | None = None,
            live_sizes: Mapping[str, int | None] | None = None, earlier_caps: Mapping[str, int] | None = None,
            planned_reserved: Mapping[str, int] | None = None, cluster: bool = True,
            weights: Mapping[str, int] | None = None, now_month: str | None = None) -> BudgetResponse:
    """Apply the thresholds that ``alert`` has crossed to ``policy`` (pure).

    ``live_sizes``: each fleet's live group size in the policy's units, for ``freeze`` (a fleet
    whose group's size cannot be counted in units maps to None); None when not read.
    ``weights``: the units one instance of each fleet's planned types holds (a cap is a whole number
    of them); 1 when not given. ``earlier_caps``: the ``capacity.max`` an earlier freeze of the same budget month set
    per fleet (a floor for this one's). ``planned_reserved``: the reserved units the plan of
    ``policy`` holds per fleet (a freeze keeps them); None when not planned. ``cluster``: whether the
    stack's fleets join a cluster (a Cluster Autoscaler sizes them above ``capacity.min``).
    ``now_month``: the budget month now (YYYY-MM); an alert of an earlier month answers a budget that
    has started over since, so it changes nothing.
    """
    budget = policy.budget

    def ignored(why: str) -> BudgetResponse:
        return BudgetResponse(policy.metadata.name, alert, 0.0, [], [], [], [why], policy, {}, ignored=why)

    notes: list[str] = []
    if alert.period == "day":
        return ignored("a per-day budget alert: thresholds apply to the monthly budget, so nothing fires")
    if alert.period != "month":
        return ignored("a budget alert that names no period (its message says neither 'for the current month' nor "
                       "'per day'): thresholds apply to the monthly budget, so nothing fires")
    if stack is not None and alert.budget_name != budget_name(stack):
        return ignored(f"alert for budget {alert.budget_name!r}, not this stack's {budget_name(stack)}")
    if stack is None and not SEEDANCE_BUDGET.match(alert.budget_name):
        return ignored(f"alert for budget {alert.budget_name!r}, which is not a Seedance budget (seedance-STACK-monthly): "
                       "ignored; pass the stack to name the budget it must be")
    account = policy.cloud.account_id
    if account and alert.account and alert.account != account:
        return ignored(f"alert from AWS account {alert.account}, not the policy's cloud.accountId {account}")
    if now_month is not None and (month := alert_month(alert, now_month)) < now_month:
        return ignored(f"alert of budget month {month}, which has ended (it is {now_month} now): the budget has "
                       "started over since, so that month's thresholds no longer apply (a delayed or replayed "
                       "alert); `seedance budget poll` responds to this month's spend")
    # only the stack's own alert can be in the wrong currency: one the checks above ignore is ignored in any
    if alert.currency != budget.currency.value:
        raise BudgetResponseError(
            f"the alert is in {alert.currency} but the policy's budget is in {budget.currency.value}"
        )
    if abs(alert.budgeted_amount - budget.monthly_amount) > 0.005:
        notes.append(
            f"AWS budget is {alert.budgeted_amount:,.2f} but the policy says {budget.monthly_amount:,.2f}: "
            "fractions use the policy"
        )
    fraction = alert.amount / budget.monthly_amount
    fired = [t for t in budget.thresholds if fired_at(t.at, fraction)]
    actions = list(dict.fromkeys(t.action for t in fired))
    changes: list[Change] = []
    fleets: list[Fleet] = []
    overlay_fleets: list[dict[str, Any]] = []
    for f in policy.fleets:
        live = None if live_sizes is None else live_sizes.get(f.name)
        # a group that runs but whose size cannot be counted in units: what runs is unknown, so no cap
        uncounted = live_sizes is not None and f.name in live_sizes and live is None
        frozen = _Freeze(live, (earlier_caps or {}).get(f.name),
                         None if planned_reserved is None else planned_reserved.get(f.name), cluster,
                         max(1, (weights or {}).get(f.name, 1)), uncounted)
        new, fleet_changes, patch = _apply(f, actions, policy.metadata.environment, fraction, frozen)
        earlier_note = " but for the cap an earlier freeze of this month set" if frozen.earlier_cap is not None else ""
        if ThresholdAction.FREEZE in actions and live_sizes is not None and live is None and new.capacity.max > 0:
            notes.append(f"freeze: the size of fleet {f.name}'s group cannot be counted in the policy's units (it runs "
                         "instance types the plan does not list, or types of different weights, or the policy could "
                         f"not be planned), so its capacity.max is unchanged{earlier_note}" if uncounted else
                         f"freeze: fleet {f.name} has no live group, so its capacity.max is unchanged{earlier_note}")
        if ThresholdAction.FREEZE in actions and frozen.earlier_cap is not None and live is not None \
                and live > new.capacity.max > 0:
            notes.append(f"freeze: fleet {f.name}'s group runs {live} unit(s), above the cap of {new.capacity.max} the "
                         "first freeze of this month set; the cap is kept (a freeze stops growth from the moment it "
                         "first fired), so redeploying the overlay shrinks the group to it")
        fleets.append(new)
        changes += fleet_changes
        if patch:
            overlay_fleets.append({"name": f.name, **patch})
    if ThresholdAction.FREEZE in actions and planned_reserved is None and any(
            f.reserved.mode is ReservedMode.AUTO for f in policy.fleets):
        notes.append("freeze: the policy was not planned, so reserved.mode auto became none: the fleets' steady hours "
                     "are priced on-demand, which can make the overlay cost more than the policy")
    if ThresholdAction.FREEZE in actions and live_sizes is None and any(f.capacity.max > 0 for f in fleets):
        notes.append("freeze: live group sizes were not read, so no capacity.max was lowered"
                     + (" but to the caps an earlier freeze of this month set" if earlier_caps else "")
                     + " (a maximum below what a group runs makes AWS shrink it); read them (--live-sizes) to cap "
                     "each fleet where it is")
    if ThresholdAction.NONPROD_SPOT_ONLY in actions and policy.metadata.environment == Environment.PROD:
        notes.append("nonprod-spot-only fired, but this is a prod policy: its fleets are unchanged")
    effective = policy.model_copy(update={"fleets": fleets}) if changes else policy
    overlay: dict[str, Any] = {}
    if changes:
        overlay = {"apiVersion": "seedance.io/v1", "kind": "CostPolicy", "extends": policy_ref, "fleets": overlay_fleets}
    return BudgetResponse(policy.metadata.name, alert, fraction, fired, actions, changes, notes, effective, overlay)


def fleets_changed_at(policy: CostPolicy, fraction: float, *, cluster: bool = True,
                      actions: Sequence[ThresholdAction] | None = None) -> set[str]:
    """The fleets the thresholds fired at ``fraction`` of the budget change, judged from the policy alone
    (no live sizes, no earlier caps, no plan) (pure). ``actions``: those to apply instead of the ones the
    policy's thresholds fire (what a stamped response applied, whatever the thresholds say now)."""
    if actions is None:
        actions = list(dict.fromkeys(t.action for t in policy.budget.thresholds if fired_at(t.at, fraction)))
    else:
        actions = list(dict.fromkeys(actions))
    frozen = _Freeze(live=None, earlier_cap=None, planned_reserved=None, cluster=cluster)
    return {f.name for f in policy.fleets
            if _apply(f, actions, policy.metadata.environment, fraction, frozen)[1]}


def stop_purchases(reserved: Reserved, note: Callable[[str, Any, Any, str], None], why: str,
                   capacity_max: int) -> Reserved:
    """No new reservations: ``auto`` becomes ``none``. A ``fixed`` count is left as it is: it is the
    reservation the policy already runs on (bought when it was deployed), so dropping it would
    price those units on-demand and raise the estimate while they stay billed. A fleet whose
    ``capacity_max`` falls below that count (degrade disables it) cannot keep it (the language bounds
    a fixed count by the maximum): it becomes ``none`` too, and the note says the units stay billed."""
    fixed = reserved.mode is ReservedMode.FIXED
    if reserved.mode is ReservedMode.NONE or (fixed and (reserved.units or 0) <= capacity_max):
        return reserved
    if fixed:
        why += (f"; the {reserved.units} fixed unit(s) bought stay billed until their term ends (list them under "
                f"reserved.held to keep them in the estimate)")
    note("reserved.mode", reserved.mode.value, ReservedMode.NONE.value, why)
    return reserved.model_copy(update={"mode": ReservedMode.NONE, "units": None})


def keep_purchases(reserved: Reserved, note: Callable[[str, Any, Any, str], None], why: str, capacity_max: int,
                   planned: int | None) -> Reserved:
    """A freeze's reservations: ``auto`` becomes ``fixed`` at the ``planned`` units (the plan of the
    policy being frozen holds them, and its estimate counts them), at most ``capacity_max``; nothing
    beyond them is bought. Without a plan (or with nothing planned), as :func:`stop_purchases`."""
    if reserved.mode is not ReservedMode.AUTO or not planned or capacity_max < 1:
        return stop_purchases(reserved, note, why, capacity_max)
    units = min(planned, capacity_max)
    held = (f"the {units} unit(s) the policy's plan reserves" if units == planned else
            f"{units} of the {planned} unit(s) the policy's plan reserves (the new maximum)")
    note("reserved.mode", reserved.mode.value, ReservedMode.FIXED.value,
         f"{why}: no reservation beyond {held}, which its estimate already counts (none at all would price those "
         "steady hours on-demand and raise the cost)")
    note("reserved.units", reserved.units, units, f"{why}: the policy's plan reserves {planned} unit(s)" + (
        "" if units == planned else
        f"; a fixed count cannot pass the maximum of {capacity_max}, so the other {planned - units}, if bought, "
        "stay billed idle until their term ends and are not in this projection (list them under reserved.held "
        "to count them)"))
    return reserved.model_copy(update={"mode": ReservedMode.FIXED, "units": units})


@dataclass(frozen=True)
class _Freeze:
    live: int | None  # units running now
    earlier_cap: int | None  # capacity.max an earlier freeze of the month set
    planned_reserved: int | None  # reserved units the policy's plan holds
    cluster: bool
    weight: int = 1  # units one instance of the fleet's planned types holds
    uncounted: bool = False  # its group runs, but its size cannot be counted in units: no cap


def _apply(
    f: Fleet, actions: list[ThresholdAction], env: Environment, fraction: float, frozen: _Freeze
) -> tuple[Fleet, list[Change], dict[str, Any]]:
    changes: list[Change] = []
    patch: dict[str, Any] = {}
    update: dict[str, Any] = {}
    where = f"fleets[{f.name}]"
    pct = f"{percent(fraction)} of budget"

    def note(path: str, before: Any, after: Any, reason: str) -> None:
        if before != after:
            changes.append(Change(f"{where}.{path}", before, after, f"{reason} ({pct})"))

    capacity = f.capacity
    reserved = f.reserved
    spot = f.spot
    off_peak = list(f.off_peak)
    autoscaling = f.autoscaling
    demand = f.demand_history

    if ThresholdAction.DEGRADE in actions and not f.core:
        why = "degrade: non-core fleet disabled"
        note("capacity.min", capacity.min, 0, why)
        note("capacity.desired", capacity.desired, 0, why)
        note("capacity.max", capacity.max, 0, why)
        capacity = Capacity(min=0, desired=0, max=0)
        note("offPeak", [w.cron for w in off_peak], [], why)
        off_peak = []
        note("autoscaling", autoscaling.metric if autoscaling else None, None, why)
        autoscaling = None
        note("demandHistory", demand, None, why)
        demand = None
        reserved = stop_purchases(reserved, note, why + "; held reservations stay billed", capacity.max)
    if ThresholdAction.NONPROD_SPOT_ONLY in actions and env != Environment.PROD:
        cap = SLA_SPOT_CAP[f.sla]
        why = f"nonprod-spot-only: non-prod runs on spot up to its SLA tier's cap ({f.sla.value} {cap:g})"
        share = max(spot.max_share if spot else 0.0, cap)
        note("spot.maxShare", spot.max_share if spot else 0.0, share, why)
        spot = (spot or Spot.model_validate({"maxShare": share, "interruptionTolerance": Tolerance.HIGH.value})
                ).model_copy(update={"max_share": share})
        # no reservation beyond the plan's, as a freeze: none at all would price the steady hours of a
        # fleet the planner keeps on-demand (its interruption tolerance, spot that does not pay) at the
        # on-demand rate, and the overlay would cost more than the policy
        reserved = keep_purchases(reserved, note, why, capacity.max, frozen.planned_reserved)
    if ThresholdAction.FREEZE in actions:
        why = "freeze: no growth"
        live, earlier = frozen.live, frozen.earlier_cap
        if earlier is not None and capacity.max > 0:
            # the month's first freeze set the cap: kept whatever runs now (never lowered to a momentary
            # low, never raised by growth since); only the fleet's minimum can lift it
            cap = max(earlier, capacity.min, 1)
            if cap > earlier:  # lifted to the minimum: a cap still holds whole instances
                cap = -(-cap // frozen.weight) * frozen.weight
            cap = min(cap, capacity.max)
            grounds = [f"the cap of {earlier} the first freeze of this month set (kept for the rest of the month)"
                       if cap == earlier else
                       f"the fleet's minimum of {max(capacity.min, 1)} unit(s)"
                       + (f" in whole instances of {frozen.weight} units" if cap > max(capacity.min, 1) else "")
                       + f" (the first freeze of this month set {earlier})"
                       if cap > earlier else f"the policy's maximum of {cap} unit(s)"]
            desired = min(capacity.desired, cap)
            note("capacity.max", capacity.max, cap, f"{why} beyond {' and '.join(grounds)}")
            note("capacity.desired", capacity.desired, desired, f"{why}: at most the new maximum")
            capacity = Capacity(min=capacity.min, desired=desired, max=cap)
        elif live is not None and capacity.max > 0 and not frozen.uncounted:
            # without a cluster the group runs capacity.desired outside its windows (a size read inside a
            # window that lowers it is not what runs by day); a cap holds whole instances
            floor = max(capacity.min, 1, 0 if frozen.cluster else capacity.desired)
            cap = max(live, floor)
            cap = min(-(-cap // frozen.weight) * frozen.weight, capacity.max)
            grounds = [f"the {live} unit(s) running"] + (
                [f"the desired size of {capacity.desired} its group runs outside its windows (no cluster resizes it)"]
                if not frozen.cluster and capacity.desired > live else []) + (
                [f"whole instances of {frozen.weight} units"] if frozen.weight > 1 and cap % frozen.weight == 0
                and cap > max(live, floor) else []) + (
                [f"the fleet's minimum of {max(capacity.min, 1)} unit(s)"] if frozen.cluster
                and max(capacity.min, 1) > live else [])
            desired = min(capacity.desired, cap)
            note("capacity.max", capacity.max, cap, f"{why} beyond {' and '.join(grounds)}")
            note("capacity.desired", capacity.desired, desired, f"{why}: at most the new maximum")
            capacity = Capacity(min=capacity.min, desired=desired, max=cap)
        # a window that lifts the group above what it runs outside it is growth; one below (a stack
        # without a cluster runs capacity.desired) only lowers the cost, and is kept
        outside = capacity.min if frozen.cluster else capacity.desired
        kept = [w for w in off_peak if w.desired <= outside]
        note("offPeak", [w.cron for w in off_peak], [w.cron for w in kept], f"{why}: no off-peak scale-up")
        off_peak = kept
        reserved = keep_purchases(reserved, note, why, capacity.max, frozen.planned_reserved)

    if capacity != f.capacity:
        update["capacity"] = capacity
        patch["capacity"] = capacity.model_dump(by_alias=True)
    if reserved != f.reserved:
        update["reserved"] = reserved
        patch["reserved"] = {"mode": reserved.mode.value, "units": reserved.units}
    if spot != f.spot:
        update["spot"] = spot
        patch["spot"] = {"maxShare": spot.max_share} if f.spot else spot.model_dump(mode="json", by_alias=True)  # type: ignore[union-attr]
    if off_peak != list(f.off_peak):
        update["off_peak"] = off_peak
        patch["offPeak"] = [w.model_dump(mode="json", by_alias=True) for w in off_peak]
    if autoscaling != f.autoscaling:
        update["autoscaling"] = None
        patch["autoscaling"] = None
    if demand != f.demand_history:
        update["demand_history"] = None
        patch["demandHistory"] = None
    return (f.model_copy(update=update) if update else f), changes, patch


STAMP_PREFIX = BUDGET_RESPONSE_STAMP  # the loader recognises a budget-response overlay by it
FIRED_PREFIX = BUDGET_RESPONSE_FIRED  # the line after it: the thresholds the response applied


def threshold_label(at: float) -> str:
    """A threshold as a percentage with every digit it has (0.995 is 99.5%, never a rounded 100%)."""
    return f"{round(at * 100, 6):g}%"


_NUMBER = r"[0-9]+(?:\.[0-9]+)?"
_FIRED_LINE = re.compile(rf"^{re.escape(FIRED_PREFIX)} thresholds=(-|{_NUMBER}:[a-z-]+(?:,{_NUMBER}:[a-z-]+)*) "
                         rf"amount=(-?{_NUMBER}) budget=({_NUMBER})(?: env=([a-z]+))?$", re.M)


@dataclass(frozen=True)
class FiredThresholds:
    """What a stamped response applied: the thresholds that fired (``at`` and action, in the policy's
    order), the alert's spend and the policy's monthly budget it was a fraction of. A later load
    compares them with what the policy fires now for the same spend."""

    thresholds: tuple[tuple[float, ThresholdAction], ...]
    amount: float  # the alert's ACTUAL or FORECASTED amount, in the budget's currency
    budget: float  # the policy's budget.monthlyAmount when the response was written
    # the policy's metadata.environment then (nonprod-spot-only acts only outside prod); None in a line
    # written before it was recorded
    environment: Environment | None = None

    def comment(self) -> str:
        """The line written after the stamp (every figure exact, as the stamp's fraction)."""
        fired = ",".join(f"{exact_decimal(at)}:{action.value}" for at, action in self.thresholds) or "-"
        env = f" env={self.environment.value}" if self.environment is not None else ""
        return (f"{FIRED_PREFIX} thresholds={fired} amount={exact_decimal(self.amount)} "
                f"budget={exact_decimal(self.budget)}{env}\n")

    @classmethod
    def parse(cls, text: str) -> FiredThresholds | None:
        """The line in an overlay's text, or None (an overlay from an older Seedance has none; one this
        version cannot read, an action it does not know say, is treated the same)."""
        m = _FIRED_LINE.search(text)
        if not m:
            return None
        try:
            thresholds = tuple((float(at), ThresholdAction(action))
                               for at, action in (item.split(":") for item in m.group(1).split(",") if item != "-"))
            amount, budget = float(m.group(2)), float(m.group(3))
            if not (math.isfinite(amount) and math.isfinite(budget) and amount >= 0 and budget > 0):
                return None  # hand-edited: nothing to compare with
            return cls(thresholds, amount, budget, Environment(m.group(4)) if m.group(4) else None)
        except ValueError:
            return None


@dataclass(frozen=True)
class OverlayStamp:
    """What an overlay was written for: the alert's fraction of the budget, its type and its month,
    and (``fired``; None in a stamp older Seedance wrote) the thresholds the response applied.

    Written as comment lines in the overlay (the policy schema has no field for it) so a later
    alert can tell whether it would weaken the response already in place, and a later load whether
    the policy's thresholds still fire what the overlay applies. The thresholds are a line of their
    own, after the stamp line, which older Seedance reads unchanged.
    """

    fraction: float
    alert_type: str
    month: str  # "YYYY-MM" (UTC) of the alert
    fired: FiredThresholds | None = None

    @classmethod
    def of(cls, response: BudgetResponse, month: str) -> OverlayStamp:
        """The stamp of the overlay ``response`` writes for its alert of ``month``."""
        fired = tuple((t.at, t.action) for t in response.fired)
        return cls(response.fraction, response.alert.alert_type, month,
                   FiredThresholds(fired, response.alert.amount, response.effective.budget.monthly_amount,
                                   response.effective.metadata.environment))

    def comment(self) -> str:
        """The stamp line (and the thresholds' line, when recorded). The fraction is written exactly (it
        reads back as the same float), so a later alert compares with the thresholds this one fired, never
        with a rounded figure that fires another (``.6f`` wrote 0.8499999 as 0.850000, reading back a
        threshold at 0.85 that had not fired)."""
        line = f"{STAMP_PREFIX} fraction={exact_decimal(self.fraction)} type={self.alert_type} month={self.month}\n"
        return line + (self.fired.comment() if self.fired is not None else "")

    @classmethod
    def parse(cls, text: str) -> OverlayStamp | None:
        """The stamp in an overlay's text, or None (an overlay from an older Seedance has none)."""
        m = re.search(rf"^{re.escape(STAMP_PREFIX)} fraction=([0-9]+(?:\.[0-9]+)?) type=([A-Z]+) "
                      rf"month=([0-9]{{4}}-[0-9]{{2}})$", text, re.M)
        if not m:
            return None  # hand-edited or from an older Seedance: treated as unstamped
        try:
            return cls(float(m.group(1)), m.group(2), m.group(3), FiredThresholds.parse(text))
        except ValueError:
            return None


def _flat(value: Any, path: str) -> dict[str, Any]:
    """A fleet's settings as ``path.field`` -> value (lists and scalars are leaves)."""
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for k, v in value.items():
            out.update(_flat(v, f"{path}.{k}"))
        return out
    return {path: value}


def same_file(path: str, declared_in: Path, other: str, other_declared_in: Path) -> bool:
    """Whether two paths, each relative to the folder of the file that declares it, name one file.

    Both are made absolute first: the policy may be given relative to the working directory and the
    overlay elsewhere (``--out /tmp/x/overlay.yaml``), and the same file then reads
    ``../demand/a.csv`` in one and ``../../work/stacks/demand/a.csv`` in the other."""
    return Path(os.path.abspath(declared_in / path)).resolve() == Path(os.path.abspath(other_declared_in / other)).resolve()


def restored_changes(applied: CostPolicy, applied_dir: Path, original: CostPolicy, original_dir: Path,
                     month: str) -> list[Change]:
    """The fleet fields ``applied`` (an overlay, in ``applied_dir``) sets differently from ``original``
    (the policy, in ``original_dir``): what a new budget month gives back when it lifts the overlay.

    Paths (a fleet's ``demandHistory``) are relative to their own file's folder and compared as the
    files they name."""
    why = f"a new budget month ({month}): back to the policy's value"
    fleets = {f.name: f for f in original.fleets}
    changes: list[Change] = []
    for f in applied.fleets:
        base = fleets.get(f.name)
        if base is None:
            continue
        where = f"fleets[{f.name}]"
        now = _flat(f.model_dump(mode="json", by_alias=True), where)
        then = _flat(base.model_dump(mode="json", by_alias=True), where)
        for p in now.keys() | then.keys():
            if p.endswith(".demandHistory") and now.get(p) and then.get(p) and \
                    same_file(now[p], applied_dir, then[p], original_dir):
                continue
            if now.get(p) != then.get(p):
                changes.append(Change(p, now.get(p), then.get(p), why))
    return sorted(changes, key=lambda c: c.path)


def alert_month(alert: BudgetAlert, today: str) -> str:
    """The month (YYYY-MM) an alert belongs to: its SNS timestamp's, else ``today``'s."""
    ts = alert.timestamp or ""
    return ts[:7] if re.match(r"^[0-9]{4}-[0-9]{2}", ts) else today[:7]


def weaker_than(earlier: OverlayStamp, response: BudgetResponse, month: str, policy: CostPolicy) -> bool:
    """Whether ``response`` would undo part of the response ``earlier`` applied in the same budget month.

    Budget alerts arrive in any order (ACTUAL and FORECASTED ones cross thresholds at different times; SNS retries late),
    so a later alert that crossed fewer thresholds must not replace a stronger overlay of the same
    month. A new month starts the budget over, so its alerts replace last month's overlay.
    """
    if month < earlier.month:
        return True  # a late alert of an earlier month (SNS retries): it never changes a newer response
    if earlier.month != month:
        return False
    # the earlier alert's spend as a fraction of the budget as it is now (the amount may have changed since)
    before = (earlier.fired.amount / policy.budget.monthly_amount
              if earlier.fired is not None and earlier.fired.budget != policy.budget.monthly_amount else earlier.fraction)
    fired_before = {t.at for t in policy.budget.thresholds if fired_at(t.at, before)}
    fired_now = {t.at for t in response.fired}
    return fired_now < fired_before
