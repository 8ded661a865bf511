"""What a policy change does to the bill: two estimates (and their plans) compared, for PR review.

:func:`compare` is pure: it takes the estimate of the base policy and of the changed one (each
optionally with the plan it was made from) and returns an :class:`EstimateDiff` — the monthly total
before and after, the change by fleet, by service and by resource, the share of the budget used
before and after, and the planner decisions that changed (reserved units, spot share, instance
types, checkpoint interval).  Estimates in different currencies are never compared.
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass, field, replace
from typing import Any, Mapping

import numpy as np

from seedance.estimate.estimate import Estimate
from seedance.planner.demand import DemandHistory
from seedance.planner.plan import FleetPlan, Plan
from seedance.policy.model import CostPolicy, Fleet, Term, term_end
from seedance.pricing.catalog import Catalog, PricingError

#: A cost change smaller than this (in the estimate's currency per month) counts as unchanged.
EPSILON = 0.005


def cents_apart(before: float, after: float) -> float:
    """The change between two amounts as the reports show them, to the cent: 847.074 -> 847.076 is
    +0.01 (847.07 -> 847.08), so a change is never shown as none between totals that differ."""
    return round(round(after, 2) - round(before, 2), 2)


@dataclass(frozen=True)
class Change:
    """One line (fleet, service or resource) in the base and in the head; None where absent."""

    key: str
    before: float | None
    after: float | None

    @property
    def delta(self) -> float:
        return cents_apart(self.before or 0.0, self.after or 0.0)

    @property
    def status(self) -> str:
        if self.before is None:
            return "added"
        if self.after is None:
            return "removed"
        return "changed" if abs(self.delta) >= EPSILON else "unchanged"

    def to_json(self) -> dict[str, Any]:
        return {"key": self.key, "before": _r(self.before), "after": _r(self.after), "delta": round(self.delta, 2),
                "status": self.status}


@dataclass(frozen=True)
class QuantityChange:
    """An unpriced component whose quantity differs between base and head, or that only one of them
    has: neither total holds its cost, so the priced change does not show it."""

    resource: str  # keyed as the resource lines are (a name several kinds share carries its kind)
    component: str
    unit: str
    before: float | None  # None: not in the base, or its quantity is not known (``status`` says which)
    after: float | None
    status: str  # "added" | "removed" | "changed"
    reason: str = ""  # why it has no price (the head's, else the base's)

    @property
    def grew(self) -> bool:
        """Whether it may cost more: it is new, or its quantity rose or became unknown."""
        if self.status == "added":
            return True
        if self.status == "removed":
            return False
        return self.before is None or self.after is None or self.after > self.before

    def to_json(self) -> dict[str, Any]:
        return {"resource": self.resource, "component": self.component, "unit": self.unit, "before": self.before,
                "after": self.after, "status": self.status, "reason": self.reason}


@dataclass(frozen=True)
class DecisionChange:
    """A planner decision for a fleet that differs between base and head."""

    fleet: str
    decision: str  # "reserved units", "spot share", "instance types", ...
    before: str | None  # None: the fleet is new
    after: str | None  # None: the fleet is gone
    rationale: str = ""  # the head plan's reason, when it has one

    def to_json(self) -> dict[str, Any]:
        return {"fleet": self.fleet, "decision": self.decision, "before": self.before, "after": self.after,
                "rationale": self.rationale}


@dataclass(frozen=True)
class EstimateDiff:
    policy: str
    environment: str
    region: str
    currency: str
    basis: str  # "plan" | "policy"
    before_total: float
    after_total: float
    before_partial: bool
    after_partial: bool
    budget_before: float | None
    budget_after: float | None
    fleets: list[Change]
    services: list[Change]
    resources: list[Change]  # every resource whose cost changed, largest change first
    decisions: list[DecisionChange] = field(default_factory=list)
    new_unpriced: list[str] = field(default_factory=list)  # unpriced in the head, not in the base
    # unpriced components whose quantity changed, or that appeared or went: not in either total
    unpriced_changes: list[QuantityChange] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what the totals do not show (a move, reservations still billed)
    # the decision date both sides were planned and estimated on (ISO date; ``--as-of``, default today UTC):
    # what a posted report needs to be reproduced; None only for a diff made without one
    as_of: str | None = None
    # the regions of this diff (the base's and the head's) whose instance prices a price cache
    # (--cache-dir, $SEEDANCE_PRICE_CACHE) overlaid on the bundled catalog; []: the bundled catalog alone
    price_cache_regions: list[str] = field(default_factory=list)

    @property
    def price_source(self) -> str:
        """Where the prices came from, as the reports say it."""
        return price_source(self.price_cache_regions)

    @property
    def delta(self) -> float:
        return cents_apart(self.before_total, self.after_total)

    @property
    def delta_fraction(self) -> float | None:
        return None if self.before_total == 0 else self.delta / self.before_total

    @property
    def budget_share_before(self) -> float | None:
        return None if not self.budget_before else self.before_total / self.budget_before

    @property
    def budget_share_after(self) -> float | None:
        return None if not self.budget_after else self.after_total / self.budget_after

    @property
    def unpriced_grew(self) -> bool:
        """Whether some unpriced quantity is new or larger: the priced change is then not the whole change."""
        return any(q.grew for q in self.unpriced_changes)

    @property
    def changed(self) -> bool:
        return abs(self.delta) >= EPSILON or bool(self.decisions) or bool(self.unpriced_changes) or any(
            c.status != "unchanged" for c in (*self.fleets, *self.services, *self.resources))

    def to_json(self) -> dict[str, Any]:
        return {
            "apiVersion": "seedance.io/v1",
            "kind": "EstimateDiff",
            "policy": self.policy,
            "environment": self.environment,
            "region": self.region,
            "currency": self.currency,
            "basis": self.basis,
            "as_of": self.as_of,
            "price_cache_regions": list(self.price_cache_regions),
            "monthly_total": {"before": round(self.before_total, 2), "after": round(self.after_total, 2),
                              "delta": round(self.delta, 2),
                              "delta_fraction": None if self.delta_fraction is None else round(self.delta_fraction, 6)},
            "partial": {"before": self.before_partial, "after": self.after_partial},
            "budget": {"before": self.budget_before, "after": self.budget_after,
                       "share_before": _r(self.budget_share_before, 6), "share_after": _r(self.budget_share_after, 6)},
            "fleets": [c.to_json() for c in self.fleets],
            "services": [c.to_json() for c in self.services],
            "resources": [c.to_json() for c in self.resources],
            "decisions": [d.to_json() for d in self.decisions],
            "new_unpriced": list(self.new_unpriced),
            "unpriced_changes": [q.to_json() for q in self.unpriced_changes],
            "notes": list(self.notes),
        }


def price_source(cache_regions: list[str] | tuple[str, ...]) -> str:
    """Where an estimate's prices came from: the bundled catalog, overlaid by a price cache's refreshed
    instance prices for ``cache_regions`` when it holds some of the estimate's regions."""
    if not cache_regions:
        return "the bundled price catalog"
    return f"the bundled price catalog with a price cache's refreshed instance prices for {', '.join(cache_regions)}"


def cached_regions(refreshed: tuple[str, ...] | list[str], *regions: str) -> list[str]:
    """The ``regions`` (an estimate's) whose instance prices come from a price cache that refreshed ``refreshed``."""
    return sorted(set(refreshed) & set(regions))


def compare(before: Estimate, after: Estimate, before_plan: Plan | None = None, after_plan: Plan | None = None) -> EstimateDiff:
    """The change from ``before`` (the base policy's estimate) to ``after`` (the changed policy's)."""
    if before.currency != after.currency:
        raise PricingError(f"the base is estimated in {before.currency} ({before.region}), the change in "
                           f"{after.currency} ({after.region}); currencies are never mixed, so they are not compared")
    budget_before = before.budget_amount if before.budget_currency == before.currency else None
    budget_after = after.budget_amount if after.budget_currency == after.currency else None
    shared = _shared_names(before, after)
    resources = [c for c in _changes(_by_resource(before, shared), _by_resource(after, shared)) if c.status != "unchanged"]
    resources.sort(key=lambda c: (-abs(c.delta), c.key))
    old_unpriced = {_unpriced_line(u) for u in before.unpriced}
    return EstimateDiff(
        policy=after.policy,
        environment=after.environment,
        region=after.region,
        currency=after.currency,
        basis=after.basis,
        before_total=before.total,
        after_total=after.total,
        before_partial=before.partial,
        after_partial=after.partial,
        budget_before=budget_before,
        budget_after=budget_after,
        fleets=_changes(before.by_fleet, after.by_fleet),
        services=_changes(before.by_service, after.by_service),
        resources=resources,
        decisions=compare_plans(before_plan, after_plan) if before_plan is not None and after_plan is not None else [],
        new_unpriced=[line for u in after.unpriced if (line := _unpriced_line(u)) not in old_unpriced],
        unpriced_changes=compare_unpriced(before, after, shared),
    )


#: The note of a diff whose base does not exist (``diff --base-absent``).
ABSENT_BASE_NOTE = ("there is no base policy (--base-absent: the change adds this policy): every line is an addition "
                    "and the base total is 0")


def compare_with_nothing(after: Estimate, after_plan: Plan | None = None) -> EstimateDiff:
    """The diff of a policy the change adds (``diff --base-absent``): every line of ``after`` is an
    addition, every fleet of ``after_plan`` a new one, the base total is 0 and there is no base budget."""
    nothing = replace(after, resources=[], total=0.0, partial=False, by_fleet={}, by_service={}, by_tag={},
                      budget_amount=None, budget_currency=None, unpriced=[], usage_dependent=[], fleet_pricing={},
                      service_pricing={}, tag_pricing={})
    return replace(compare(nothing, after, None if after_plan is None else replace(after_plan, fleets=[]), after_plan),
                   notes=[ABSENT_BASE_NOTE])


def compare_unpriced(before: Estimate, after: Estimate, shared: set[str] | None = None) -> list[QuantityChange]:
    """The unpriced components whose monthly quantity differs (or that one side only has), in the
    head's order, then the ones the head no longer has."""
    shared = _shared_names(before, after) if shared is None else shared
    old, new = _unpriced_quantities(before, shared), _unpriced_quantities(after, shared)
    out: list[QuantityChange] = []
    for key, (qty, unit, reason) in new.items():
        if key not in old:
            out.append(QuantityChange(key[0], key[1], unit, None, qty, "added", reason))
        elif not _same_quantity(old[key][0], qty):
            out.append(QuantityChange(key[0], key[1], unit, old[key][0], qty, "changed", reason))
    for key, (qty, unit, reason) in old.items():
        if key not in new:
            out.append(QuantityChange(key[0], key[1], unit, qty, None, "removed", reason))
    return out


def compare_plans(before: Plan, after: Plan) -> list[DecisionChange]:
    """Every planner decision that differs, fleet by fleet (fleets in the head's order, then removed ones)."""
    old = {f.name: f for f in before.fleets}
    new = {f.name: f for f in after.fleets}
    out: list[DecisionChange] = []
    for name, f in new.items():
        if name not in old:
            out.append(DecisionChange(name, "fleet", None, _summary(f), "new fleet"))
            continue
        a, b = _decisions(old[name]), _decisions(f)
        for key in b:
            if a[key] != b[key]:
                out.append(DecisionChange(name, key, a[key], b[key], _reason(f, key)))
    for name, f in old.items():
        if name not in new:
            out.append(DecisionChange(name, "fleet", _summary(f), None, "fleet removed"))
    return out


#: How each route of a service's traffic reads in a diff (seedance.estimate.network.routes).
_ROUTE_WORDS = {"gateway": "the stack's gateway endpoint", "interface": "the stack's interface endpoint",
                "nat": "through the NAT", "existing": "the VPC's existing endpoint (network.existingEndpoints)"}

#: The pseudo-fleet network decisions are listed under (no fleet name has brackets).
NETWORK = "(network)"


def compare_network(before: CostPolicy, after: CostPolicy, catalog: Catalog) -> list[DecisionChange]:
    """The network decisions that differ: each service's route (an endpoint the stack creates or no longer
    declares - pulumi up deletes it -, one taken as the VPC's existing one, traffic moved to or off
    the NAT) and the number of NAT gateways."""
    from seedance.estimate.network import GATEWAY_SERVICES, Route, network_prices, routes, usage_of

    def by_service(policy: CostPolicy) -> dict[str, Any]:
        out = {r.service: r for r in routes(usage_of(policy), network_prices(catalog, policy.cloud.region))}
        for s in GATEWAY_SERVICES - set(out):  # the stack deploys them whatever the traffic
            out[s] = Route(s, "gateway", "the stack always has its gateway endpoints")
        return out

    old, new = by_service(before), by_service(after)
    out: list[DecisionChange] = []
    for service in sorted(set(old) | set(new)):
        a, b = old.get(service), new.get(service)
        if a is not None and b is not None and a.via == b.via:
            continue
        own = ("gateway", "interface")
        if a is not None and a.via in own and (b is None or b.via not in own):
            why = (f"the stack no longer declares its {service} endpoint: pulumi up deletes it"
                   + ("; its traffic then uses the VPC's existing endpoint" if b is not None and b.via == "existing"
                      else "; its traffic then goes through the NAT" if b is not None and b.via == "nat" else ""))
        elif b is not None and b.via in own:
            why = f"the stack creates {'an' if b.via == 'interface' else 'a'} {b.via} endpoint for {service}"
        else:
            why = b.reason if b is not None else "no traffic or endpoint for it any more"
        out.append(DecisionChange(NETWORK, f"{service} route", None if a is None else _ROUTE_WORDS[a.via],
                                  None if b is None else _ROUTE_WORDS[b.via], why))
    if before.network.nat_gateways != after.network.nat_gateways:
        out.append(DecisionChange(NETWORK, "NAT gateways", str(before.network.nat_gateways),
                                  str(after.network.nat_gateways), "network.natGateways"))
    return out


# ---------------------------------------------------------------- helpers

_RATIONALE_KEY = {
    "reserved units": "reserved",
    "spot share": "spot",
    "instance types": "instance_types",
    "checkpoint interval": "checkpoint",
    "on-demand base": "on_demand_base",
}


def _decisions(f: FleetPlan) -> dict[str, str]:
    buys = ", ".join(f"{n} × {t}" for t, n in f.new_purchases) or "none"
    return {
        "instance types": ", ".join(c.instance_type for c in f.instance_types),
        "reserved units": f"{f.reserved_units} (buy now: {buys})",
        "on-demand base": str(f.on_demand_base),
        "spot share": f"{f.spot_share_above_base:.0%} above the base ({f.allocation_strategy or 'n/a'})",
        "checkpoint interval": "none" if f.checkpoint_interval_s is None else f"{f.checkpoint_interval_s / 60:.0f} min",
        "size": f"min {f.min_size} / desired {f.desired} / max {f.max_size}",
    }


def _summary(f: FleetPlan) -> str:
    d = _decisions(f)
    return f"{d['instance types']}; reserved {d['reserved units']}; spot {d['spot share']}"


def _reason(f: FleetPlan, key: str) -> str:
    rk = _RATIONALE_KEY.get(key)
    return f.rationale.get(rk, "") if rk else ""


def _shared_names(*estimates: Estimate) -> set[str]:
    """Names that more than one kind of resource carries (a fleet and a storage class both called eval)."""
    kinds: dict[str, set[str]] = {}
    for est in estimates:
        for r in est.resources:
            kinds.setdefault(r.name, set()).add(r.kind)
    return {name for name, ks in kinds.items() if len(ks) > 1}


def _by_resource(est: Estimate, shared: frozenset[str] | set[str] = frozenset()) -> dict[str, float]:
    """Cost per resource, keyed by name; a name several kinds share carries its kind, so different
    resources are never added together."""
    out: dict[str, float] = {}
    for r in est.resources:
        key = f"{r.name} ({r.kind})" if r.name in shared else r.name
        out[key] = out.get(key, 0.0) + r.monthly_cost
    return out


def _changes(before: dict[str, float], after: dict[str, float]) -> list[Change]:
    keys = list(after) + [k for k in before if k not in after]
    return [Change(k, before.get(k), after.get(k)) for k in keys]


def _unpriced_quantities(est: Estimate, shared: set[str]) -> dict[tuple[str, str], tuple[float | None, str, str]]:
    """(resource key, component) -> (monthly quantity, unit, reason) of every unpriced component; a
    quantity the estimate does not know is None."""
    out: dict[tuple[str, str], tuple[float | None, str, str]] = {}
    for r in est.resources:
        key = f"{r.name} ({r.kind})" if r.name in shared else r.name
        for c in r.components:
            if not c.unpriced:
                continue
            k = (key, c.name)
            qty = c.monthly_quantity
            if k in out:  # one name twice: the quantities add up (as the resource lines' costs do)
                prev = out[k][0]
                qty = None if prev is None or qty is None else prev + qty
            out[k] = (qty, c.unit, c.unpriced_reason or "")
    return out


def _same_quantity(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)


def _unpriced_line(u: dict[str, str]) -> str:
    return f"{u['resource']}: {u['component']}: {u['reason']}"


def _r(value: float | None, digits: int = 2) -> float | None:
    return None if value is None else round(value, digits)


def demand_notes(before: dict[str, tuple[str, DemandHistory]], after: dict[str, tuple[str, DemandHistory]],
                 on: dt.date) -> list[str]:
    """A note per fleet both sides plan from a demand history whose demand before ``on`` (what the
    planner reads) differs: each side reads the file its own policy names, relative to that policy, so
    the cost change of that fleet comes (also) from the data, not only from the policy.  ``before`` and
    ``after``: fleet -> (the file as shown, its history)."""
    out = []
    for name, (new_file, new) in after.items():
        if name not in before:
            continue
        old_file, old = before[name]
        if old.start == new.start and np.array_equal(old.values, new.values):
            continue
        out.append(f"fleet {name} is planned from other demand data in the head: the base reads {old_file}, the head "
                   f"{new_file}, and their demand before {on.isoformat()} differs, so its cost change comes from the "
                   "data as well as the policy")
    return out


def fleet_types(est: Estimate) -> dict[str, str | None]:
    """The instance type each fleet of ``est`` is priced on (its reserved units are of it); None for a
    fleet no type can serve."""
    return {r.name: r.instance_type for r in est.resources if r.kind == "fleet"}


#: held reservations by (term, purchase day): units
_Held = dict[tuple[Term, dt.date], int]


def _running(fleet: Fleet, on: dt.date) -> _Held:
    """The fleet's held reservations running on ``on`` (:func:`seedance.planner.planner.held_running_on`),
    by term and purchase day."""
    from seedance.planner.planner import held_running_on

    out: _Held = {}
    for c in held_running_on(fleet, on):
        out[(c.term, c.purchased)] = out.get((c.term, c.purchased), 0) + c.units
    return out


def _entries(held: _Held) -> str:
    parts = []
    for (term, bought), units in sorted(held.items(), key=lambda kv: (kv[0][1], kv[0][0].value)):
        ends = term_end(bought, term)
        parts.append(f"{units} of {term.value} bought {bought.isoformat()}"
                     + (f", term ends {ends.isoformat()}" if ends is not None else ""))
    return "; ".join(parts)


def _for(itype: str | None, region: str) -> str:
    return f"{itype} in {region}" if itype else region


def held_after_removal(base: CostPolicy, head: CostPolicy, on: dt.date, base_types: Mapping[str, str | None] | None = None,
                       head_types: Mapping[str, str | None] | None = None) -> list[str]:
    """Notes on the held reservations (``reserved.held``, running on ``on``) the head no longer counts
    as it should, which stay billed until their term ends whatever the policy says:

    * a fleet the change removes, or held units it drops from a fleet it keeps, unless the head holds
      the same reservations (term, purchase day, units) under another fleet (a renamed fleet): neither
      estimate shows them (the head has no such reservations, the base prices them);
    * reservations the head keeps on a fleet (the same one, or the one they went to) whose region or
      instance type is not the base's: they were bought for the base's type in the base's region, so
      they do not cover the head's nodes, which the head prices as if they did.

    ``base_types``/``head_types``: the instance type each fleet is priced on (:func:`fleet_types`);
    without them only regions are compared."""
    base_types, head_types = base_types or {}, head_types or {}
    old = {f.name: _running(f, on) for f in base.fleets}
    new = {f.name: _running(f, on) for f in head.fleets}
    # the reservations each head fleet holds beyond its base namesake's: where those of another fleet went
    gained = {name: {k: n - old.get(name, {}).get(k, 0) for k, n in held.items() if n > old.get(name, {}).get(k, 0)}
              for name, held in new.items()}
    region_before, region_after = base.cloud.region, head.cloud.region
    out: list[str] = []
    for f in base.fleets:
        name, was = f.name, old[f.name]
        if not was:
            continue
        kept = new.get(name)  # None: the head removes the fleet
        lost: _Held = {}
        carried: dict[str, _Held] = {}  # head fleet -> the reservations of this one it holds
        for key, units in was.items():
            stays = min(units, kept.get(key, 0)) if kept is not None else 0
            if stays:
                carried.setdefault(name, {})[key] = stays
            rest = units - stays
            for other, more in gained.items():
                if rest and other != name and more.get(key):
                    moved = min(rest, more[key])
                    more[key] -= moved
                    rest -= moved
                    carried.setdefault(other, {})[key] = carried.get(other, {}).get(key, 0) + moved
            if rest:
                lost[key] = rest
        bought_for = _for(base_types.get(name), region_before)
        if lost and kept is None:
            out.append(f"fleet {name} is removed, but its {sum(lost.values())} held reserved unit(s) stay billed until "
                       f"their term ends ({_entries(lost)}; bought for {bought_for}): the head's total does not count "
                       "them, so this change saves less than it shows")
        elif lost:
            out.append(f"fleet {name}: the change drops {sum(lost.values())} held reserved unit(s) from its "
                       f"reserved.held ({_entries(lost)}; bought for {bought_for}), but they stay billed until their "
                       "term ends: the head's total does not count them")
        for holder, held in carried.items():
            t_before, t_after = base_types.get(name), head_types.get(holder)
            if region_before == region_after and (t_before is None or t_after is None or t_before == t_after):
                continue  # the same reservations, counted by the head as they are (a renamed fleet: by its new name)
            runs = _for(t_after, region_after)
            who = "it" if holder == name else f"fleet {holder}, which holds them now,"
            out.append(f"fleet {name}: its {sum(held.values())} held reserved unit(s) ({_entries(held)}) were bought "
                       f"for {bought_for}, but the change runs {who} on {runs}: they stay billed until their term "
                       f"ends, and the head's total does not count them (it prices them as reservations of {runs}, "
                       "which they are not)")
    return out
