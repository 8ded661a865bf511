"""Read a plan written by ``plan.to_json()`` (``--plan PLAN.json``) back into the Plan dataclasses,
and check that a plan belongs to the policy it is used with.

:func:`plan_from_json` checks the form: every field of the type ``seedance plan`` writes, counts
whole numbers from 0 to :data:`MAX_UNITS`, shares in [0, 1].  :func:`plan_problems` checks the
meaning against a policy and the price catalog: the same policy name and fleets, node counts within
the fleet's capacity, spot shares within its ``spot.maxShare``, and instance types that meet the
fleet's GPU/CPU requirement (the planner's own rule, :func:`seedance.planner.instances.unit_weight`),
a spot fleet's interruption rate that of its most interrupted type's Spot Advisor band, and reserved
units no more than the policy holds (``reserved.held``) plus the plan's new purchases.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import math
from pathlib import Path
from typing import Any

from seedance.planner.plan import FleetPlan, InstanceChoice, Plan
from seedance.pricing.catalog import Catalog, PricingError
from seedance.textfile import DuplicateKeyError, TextFileError, lone_surrogate, read_text_file, unique_keys

#: the largest unit count a plan may hold in any field: far above any fleet (a policy bounds node
#: counts and held reservations at 100,000 each, so reserved units stay below 200,000)
MAX_UNITS = 1_000_000
_TERMS = ("1y", "3y")
_TOLERANCE = 1e-9  # float noise in planner averages


class _Problems:
    """Errors of one plan document, each naming the field (``fleets[1].reserved_units``)."""

    def __init__(self, origin: str) -> None:
        self.origin = origin
        self.items: list[str] = []

    def add(self, where: str, message: str, fleet: str | None = None) -> None:
        at = f"{where}: " if where else ""
        self.items.append(f"{at}{message}" + (f" (fleet {fleet!r})" if fleet else ""))

    def raise_if_any(self) -> None:
        if not self.items:
            return
        if len(self.items) == 1:
            raise PricingError(f"{self.origin}: {self.items[0]}")
        lines = "\n".join(f"  {self.origin}: {p}" for p in self.items)
        raise PricingError(f"{self.origin}: {len(self.items)} problems (expected the JSON of `seedance plan`):\n{lines}")


def _got(value: Any) -> str:
    text = json.dumps(value) if not isinstance(value, float) or math.isfinite(value) else str(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_num(v: Any) -> bool:
    return (isinstance(v, int | float) and not isinstance(v, bool)) and math.isfinite(v)


class _Reader:
    def __init__(self, data: dict[str, Any], where: str, problems: _Problems, fleet: str | None = None) -> None:
        self.data, self.where, self.p, self.fleet = data, where, problems, fleet
        self.ok = True

    def _at(self, key: str) -> str:
        return f"{self.where}.{key}" if self.where else key

    def _bad(self, key: str, message: str) -> None:
        self.ok = False
        self.p.add(self._at(key), message, self.fleet)

    def _get(self, key: str, required: bool) -> tuple[bool, Any]:
        if key not in self.data:
            if required:
                self.ok = False
                self.p.add(self.where, f"missing field {key!r}", self.fleet)
            return False, None
        return True, self.data[key]

    def units(self, key: str, *, required: bool = True, default: int = 0) -> int:
        present, v = self._get(key, required)
        if not present:
            return default
        if not _is_int(v) or not 0 <= v <= MAX_UNITS:
            self._bad(key, f"expected a whole number from 0 to {MAX_UNITS:,}, got {_got(v)}")
            return default
        return int(v)

    def number(self, key: str, *, required: bool = True, default: float | None = 0.0, nullable: bool = False,
               low: float | None = None, high: float | None = None) -> float | None:
        present, v = self._get(key, required)
        if not present or (v is None and nullable):
            return default if not present else None
        rng = (f" from {low:g}" if low is not None else "") + (f" to {high:g}" if high is not None else "")
        if not _is_num(v) or (low is not None and v < low) or (high is not None and v > high):
            what = "a finite number" + (f"{rng}" if rng else "") + (" or null" if nullable else "")
            self._bad(key, f"expected {what}, got {_got(v)}")
            return default
        return float(v)

    def text(self, key: str, *, required: bool = True, default: str = "", nullable: bool = False) -> str | None:
        present, v = self._get(key, required)
        if not present or (v is None and nullable):
            return default if not present else None
        if not isinstance(v, str):
            self._bad(key, f"expected a string, got {_got(v)}")
            return default
        return v

    def raw(self, key: str, *, required: bool = True, default: Any = None) -> Any:
        present, v = self._get(key, required)
        return v if present else default


def _instance_choice(c: Any, where: str, p: _Problems, fleet: str | None) -> InstanceChoice | None:
    if not isinstance(c, dict):
        p.add(where, f"expected an object (instance_type, weight, hourly_ondemand, hourly_spot, rationale), got {_got(c)}", fleet)
        return None
    r = _Reader(c, where, p, fleet)
    itype = r.text("instance_type")
    weight = r.units("weight")
    if r.ok and weight < 1:
        r._bad("weight", "expected a whole number >= 1, got 0")
    od = r.number("hourly_ondemand", low=0)
    spot = r.number("hourly_spot", required=False, default=None, nullable=True, low=0)
    why = r.text("rationale", required=False)
    for k in sorted(set(c) - {"instance_type", "weight", "hourly_ondemand", "hourly_spot", "rationale"}):
        p.add(where, f"unknown field {k!r}", fleet)
        r.ok = False
    if not r.ok:
        return None
    return InstanceChoice(str(itype), weight, float(od or 0.0), spot, str(why))


#: the fields of a cost component (``CostComponent.to_json``): the required strings, the numbers
#: (finite, >= 0, or null: unpriced or usage unknown) and the optional strings
_COMPONENT_TEXT = ("name", "unit", "currency")
_COMPONENT_NUMBERS = ("monthly_quantity", "unit_price", "monthly_cost")
_COMPONENT_NOTES = ("price_source", "price_ref", "price_date", "unpriced_reason", "usage_note")


def _component(c: Any, where: str, p: _Problems, fleet: str | None) -> bool:
    """Whether ``c`` is a cost component as the planner writes it; each problem is added to ``p``."""
    if not isinstance(c, dict):
        p.add(where, f"expected a cost component object ({', '.join(_COMPONENT_TEXT + _COMPONENT_NUMBERS)}, ...), "
                     f"got {_got(c)}", fleet)
        return False
    r = _Reader(c, where, p, fleet)
    for key in _COMPONENT_TEXT:
        r.text(key)
    for key in _COMPONENT_NUMBERS:
        r.number(key, required=False, default=None, nullable=True, low=0)
    for key in _COMPONENT_NOTES:
        r.text(key, required=False, default=None, nullable=True)  # type: ignore[arg-type]
    for k in sorted(set(c) - set(_COMPONENT_TEXT + _COMPONENT_NUMBERS + _COMPONENT_NOTES)):
        r._bad(k, "unknown field")
    return r.ok


def _fleet(f: Any, i: int, p: _Problems) -> FleetPlan | None:
    where = f"fleets[{i}]"
    if not isinstance(f, dict):
        p.add(where, f"expected a fleet object, got {_got(f)}")
        return None
    name = f.get("name") if isinstance(f.get("name"), str) else None
    r = _Reader(f, where, p, name)
    r.text("name")
    if name == "":
        r._bad("name", "expected a fleet name, got \"\"")
    types_raw = r.raw("instance_types")
    choices: list[InstanceChoice] = []
    if "instance_types" in f:
        if not isinstance(types_raw, list):
            r._bad("instance_types", f"expected a list, got {_got(types_raw)}")
        else:
            for j, c in enumerate(types_raw):
                choice = _instance_choice(c, f"{where}.instance_types[{j}]", p, name)
                if choice is None:
                    r.ok = False
                else:
                    choices.append(choice)
    purchases: list[tuple[str, int]] = []
    new_raw = r.raw("new_purchases", required=False, default=[])
    if not isinstance(new_raw, list):
        r._bad("new_purchases", f"expected a list of [term, units], got {_got(new_raw)}")
    else:
        for j, item in enumerate(new_raw):
            if (not isinstance(item, list) or len(item) != 2 or item[0] not in _TERMS or not _is_int(item[1])
                    or not 1 <= item[1] <= MAX_UNITS):
                r._bad(f"new_purchases[{j}]", f"expected [\"1y\" or \"3y\", units from 1 to {MAX_UNITS:,}], got {_got(item)}")
            else:
                purchases.append((item[0], int(item[1])))
    other_terms: list[tuple[str, int]] | None = None
    others_raw = r.raw("held_other_terms", required=False, default=None)
    if others_raw is not None and not isinstance(others_raw, list):
        r._bad("held_other_terms", f"expected a list of [term, units] or null, got {_got(others_raw)}")
    elif others_raw is not None:
        other_terms = []
        for j, item in enumerate(others_raw):
            if (not isinstance(item, list) or len(item) != 2 or item[0] not in _TERMS or not _is_int(item[1])
                    or not 1 <= item[1] <= MAX_UNITS):
                r._bad(f"held_other_terms[{j}]",
                       f"expected [\"1y\" or \"3y\", units from 1 to {MAX_UNITS:,}], got {_got(item)}")
            else:
                other_terms.append((item[0], int(item[1])))
    rationale = r.raw("rationale", required=False, default={})
    if not isinstance(rationale, dict) or not all(isinstance(v, str) for v in rationale.values()):
        r._bad("rationale", f"expected an object of strings, got {_got(rationale)}")
        rationale = {}
    components = r.raw("cost_components", required=False, default=[])
    if not isinstance(components, list):
        r._bad("cost_components", f"expected a list of cost components, got {_got(components)}")
        components = []
    for j, c in enumerate(components):
        if not _component(c, f"{where}.cost_components[{j}]", p, name):
            r.ok = False
    # written for readers of the file, derived from the components (plans written before it have none)
    fleet_partial = r.raw("partial", required=False, default=False)
    if not isinstance(fleet_partial, bool):
        r._bad("partial", f"expected true or false (whether some cost component has no price), got {_got(fleet_partial)}")
    kw: dict[str, Any] = dict(
        name=name or "",
        instance_types=choices,
        reserved_units=r.units("reserved_units"),
        new_purchases=purchases,
        on_demand_base=r.units("on_demand_base"),
        spot_share_above_base=r.number("spot_share_above_base", low=0, high=1),
        allocation_strategy=r.text("allocation_strategy", required=False),
        checkpoint_interval_s=r.number("checkpoint_interval_s", required=False, default=None, nullable=True, low=0),
        checkpoint_overhead=r.number("checkpoint_overhead", required=False, default=None, nullable=True, low=0, high=1),
        min_size=r.units("min_size"),
        max_size=r.units("max_size"),
        desired=r.units("desired"),
        rationale=dict(rationale),
        expected_nodes=r.number("expected_nodes", required=False, default=None, nullable=True, low=0, high=MAX_UNITS),
        monthly_cost=r.number("monthly_cost", required=False, default=None, nullable=True),
        monthly_cost_all_ondemand=r.number("monthly_cost_all_ondemand", required=False, default=None, nullable=True),
        cost_components=list(components),
        # a Spot Advisor band's hourly rate (at most 0.196, the open band's): never above 1 an hour
        interruption_rate_per_hour=r.number("interruption_rate_per_hour", required=False, default=None,
                                            nullable=True, low=0, high=1),
        held_other_terms=other_terms,
        expected_within_reserved=r.number("expected_within_reserved", required=False, default=None, nullable=True,
                                          low=0, high=MAX_UNITS),
        expected_within_base=r.number("expected_within_base", required=False, default=None, nullable=True,
                                      low=0, high=MAX_UNITS),
    )
    known = {fl.name for fl in dataclasses.fields(FleetPlan)}
    for k in sorted(set(f) - known - {"partial"}):
        r._bad(k, "unknown field")
    kw.update({k: f[k] for k in known - set(kw) if k in f})  # fields the planner added beyond these
    return FleetPlan(**kw) if r.ok else None


def plan_from_json(data: dict[str, Any], *, origin: str = "plan") -> Plan:
    """A :class:`Plan` from its JSON form; a clear error naming every missing or bad field."""
    p = _Problems(origin)
    if not isinstance(data, dict):
        raise PricingError(f"{origin}: expected a JSON object (the output of `seedance plan`), got {_got(data)}")
    r = _Reader(data, "", p)
    policy = r.text("policy")
    environment = r.text("environment", required=False)
    region = r.text("region")
    currency = r.text("currency", required=False)
    fleets: list[FleetPlan] = []
    fleets_raw = r.raw("fleets")
    if "fleets" in data:
        if not isinstance(fleets_raw, list):
            r._bad("fleets", f"expected a list of fleets, got {_got(fleets_raw)}")
        else:
            for i, f in enumerate(fleets_raw):
                fp = _fleet(f, i, p)
                if fp is not None:
                    fleets.append(fp)
    cost = r.number("monthly_cost", required=False)
    cost_od = r.number("monthly_cost_all_ondemand", required=False)
    savings = r.number("savings", required=False)
    as_of = r.text("as_of", required=False, default=None, nullable=True)  # type: ignore[arg-type]
    if as_of is not None:
        try:
            if dt.date.fromisoformat(as_of).isoformat() != as_of:  # 20240101 and 2024-W01-1 parse too
                raise ValueError
        except ValueError:
            r._bad("as_of", f"expected the plan's date as YYYY-MM-DD (the planner writes it so), got {_got(as_of)}")
            as_of = None
    partial = r.raw("partial", required=False, default=False)
    if not isinstance(partial, bool):
        r._bad("partial", f"expected true or false, got {_got(partial)}")
        partial = False
    cluster = r.raw("cluster", required=False, default=True)
    if not isinstance(cluster, bool):
        r._bad("cluster", f"expected true or false (whether the plan is for a stack that joins a cluster), got {_got(cluster)}")
        cluster = True
    held = r.raw("held", required=False, default=None)
    if held is not None and not (isinstance(held, dict) and all(
            isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= MAX_UNITS
            for k, v in held.items())):
        r._bad("held", f"expected null or an object of fleet name: units held (whole numbers from 0 to {MAX_UNITS:,}, "
                       f"as `plan --held` writes it), got {_got(held)}")
        held = None
    unpriced = r.raw("unpriced", required=False, default=[])
    if not isinstance(unpriced, list) or not all(isinstance(u, str) for u in unpriced):
        r._bad("unpriced", f"expected a list of strings, got {_got(unpriced)}")
        unpriced = []
    # written for readers of the file, derived from ``partial`` (plans written before it have none)
    upper = r.raw("savings_upper_bound", required=False, default=False)
    if not isinstance(upper, bool):
        r._bad("savings_upper_bound", f"expected true or false (whether the cost is partial, so the savings are "
                                      f"at most the figure), got {_got(upper)}")
    known = {fl.name for fl in dataclasses.fields(Plan)}
    for k in sorted(set(data) - known - {"savings_upper_bound"}):
        r._bad(k, "unknown field")
    p.raise_if_any()
    kw: dict[str, Any] = dict(
        policy=str(policy), environment=str(environment or ""), region=str(region), currency=str(currency or ""),
        fleets=fleets, monthly_cost=float(cost or 0.0), monthly_cost_all_ondemand=float(cost_od or 0.0),
        savings=float(savings or 0.0), as_of=as_of, partial=partial, unpriced=list(unpriced),
        cluster=cluster, held=held,
    )
    kw.update({k: data[k] for k in known - set(kw) if k in data})  # fields the planner added beyond these
    return Plan(**kw)


def plan_problems(plan: Plan, policy: Any, catalog: Catalog, region: str, on: dt.date | None = None) -> list[str]:
    """Why ``plan`` is not a plan of ``policy`` (a :class:`~seedance.policy.model.CostPolicy`) in
    ``region``: one line per mismatch, empty when it is.  Region and currency are checked by the caller.
    Held reservations of other terms are checked against what the policy holds on the plan's
    ``as_of`` (a plan without one: on ``on``, default today in UTC)."""
    from seedance.clock import utc_today
    from seedance.estimate.fleet import requirement_text
    from seedance.planner.instances import unit_weight
    from seedance.planner.planner import active_held_by_term, active_held_units, max_instances, offer_view, requirement
    from seedance.pricing.catalog import UnknownPriceError

    held_on = dt.date.fromisoformat(plan.as_of) if plan.as_of else (on or utc_today())

    out: list[str] = []
    name = policy.metadata.name
    if plan.policy != name:
        out.append(f"the plan is for policy {plan.policy!r}, this policy is {name!r}")
    env = policy.metadata.environment.value
    if plan.environment and plan.environment != env:
        out.append(f"the plan is for environment {plan.environment!r}, the policy's is {env!r}")
    names = [f.name for f in plan.fleets]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        out.append(f"the plan lists fleet(s) more than once: {', '.join(map(repr, dup))}")
    wanted = [f.name for f in policy.fleets]
    for missing in (n for n in wanted if n not in names):
        out.append(f"the plan has no fleet {missing!r} (plan fleets: {', '.join(names) or 'none'})")
    extra = [n for n in dict.fromkeys(names) if n not in wanted]
    if extra:
        out.append(f"the plan has fleet(s) the policy does not: {', '.join(map(repr, extra))} "
                   f"(policy fleets: {', '.join(wanted) or 'none'})")
    by_name = {f.name: f for f in plan.fleets}
    for fleet in policy.fleets:
        fp = by_name.get(fleet.name)
        if fp is None:
            continue
        at = f"fleet {fleet.name!r}: "
        cap = fleet.capacity
        if (fp.min_size, fp.desired, fp.max_size) != (cap.min, cap.desired, cap.max):
            out.append(f"{at}planned for capacity min/desired/max {fp.min_size}/{fp.desired}/{fp.max_size}, "
                       f"the policy's is {cap.min}/{cap.desired}/{cap.max} (the plan is stale: run `seedance plan` again)")
        w = max(1, int(fp.instance_types[0].weight)) if fp.instance_types else 1
        top = -(-cap.max // w) * w  # whole instances of the first type may overshoot capacity.max
        if fp.expected_nodes is not None and not 0 <= fp.expected_nodes <= top * (1 + _TOLERANCE):
            out.append(f"{at}expected_nodes {fp.expected_nodes:g} is outside [0, {top}] (capacity.max"
                       + (f" in whole instances of {w} units)" if top != cap.max else ")"))
        # the least the group runs: capacity.min, in the whole instances it can run (a group the Cluster
        # Autoscaler manages stops at floor(capacity.max / w) instances)
        floor_units = min(cap.min, cap.max, max_instances(max(cap.max, 0), w, plan.cluster) * w)
        if fp.expected_nodes is not None and fp.expected_nodes < floor_units * (1 - _TOLERANCE):
            out.append(f"{at}expected_nodes {fp.expected_nodes:g} is below capacity.min {cap.min}, which the group "
                       "never goes under")
        inside = [v for v in (fp.expected_within_reserved, fp.expected_within_base) if v is not None]
        if inside and (len(inside) == 1 or fp.expected_nodes is None):
            out.append(f"{at}expected_within_reserved and expected_within_base come together, with expected_nodes")
        elif len(inside) == 2 and fp.expected_nodes is not None and not (
                inside[0] <= inside[1] * (1 + _TOLERANCE) + 1e-9 and inside[1] <= fp.expected_nodes * (1 + _TOLERANCE) + 1e-9):
            out.append(f"{at}expected_within_reserved {inside[0]:g} <= expected_within_base {inside[1]:g} <= "
                       f"expected_nodes {fp.expected_nodes:g} does not hold")
        if fp.instance_types and fp.on_demand_base > cap.max:
            out.append(f"{at}on_demand_base {fp.on_demand_base} is above capacity.max {cap.max}")
        if fleet.demand_history is None and fp.expected_nodes is not None:
            from seedance.estimate.fleet import average_nodes  # the planner's own basis without history

            average, _ = average_nodes(fleet, cap.desired, w, managed=plan.cluster)
            if not math.isclose(fp.expected_nodes, average, rel_tol=1e-6, abs_tol=1e-6):
                out.append(f"{at}expected_nodes {fp.expected_nodes:g}, but the policy's desired size and off-peak "
                           f"windows give {average:g} on average (the plan is stale: run `seedance plan` again)")
        bought = sum(n for _, n in fp.new_purchases)
        if bought > fp.reserved_units:
            out.append(f"{at}new_purchases total {bought} units, more than reserved_units {fp.reserved_units}")
        if bought and fleet.reserved.mode.value == "none":
            out.append(f"{at}new_purchases of {bought} unit(s), but the policy's reserved.mode is none")
        most = max_instances(max(cap.max, 0), w, plan.cluster)  # whole instances of the first type the group runs
        if -(-bought // w) > most:
            out.append(f"{at}new_purchases total {bought} units, more than capacity.max {cap.max} could run"
                       + (f" ({most} whole instance(s) of {w} units)" if w > 1 else ""))
        given = (plan.held or {}).get(fleet.name)
        out += _reserved_problems(at, fp, fleet, bought, most, w,
                                  active_held_units(fleet, held_on) if given is None else given, held_on, given is not None)
        term = fleet.reserved.term.value
        other = sorted({t for t, _ in fp.new_purchases if t != term})
        if other:
            out.append(f"{at}new_purchases of term {', '.join(other)}, the policy's reserved.term is {term}")
        out += _held_other_terms_problems(at, fp, fleet, active_held_by_term(fleet, held_on), held_on)
        listed = [c.instance_type for c in fp.instance_types]
        twice = [it for it in dict.fromkeys(listed) if listed.count(it) > 1]
        if twice:
            out.append(f"{at}instance_types lists {', '.join(twice)} more than once")
        if not fp.instance_types and cap.max > 0:
            out.append(f"{at}no instance_types: a fleet that runs nodes (capacity.max {cap.max}) needs at least one "
                       "(`seedance plan` writes no plan without)")
        cap_share = fleet.spot.max_share if fleet.spot is not None else 0.0
        if fp.spot_share_above_base > cap_share + _TOLERANCE:
            out.append(f"{at}spot_share_above_base {fp.spot_share_above_base:g} is above the policy's "
                       + (f"spot.maxShare {cap_share:g}" if fleet.spot is not None else "limit 0 (the fleet has no spot block)"))
        if fp.spot_share_above_base > 0:
            out += _interruption_problems(at, fp, catalog, region)
        req = requirement(fleet)
        allowed = fleet.instance_types.allowed
        for j, choice in enumerate(fp.instance_types):
            it = choice.instance_type
            where = f"{at}instance_types[{j}] {it}: "
            if allowed and it not in allowed:
                out.append(f"{where}not in the policy's instanceTypes.allowed {list(allowed)}")
                continue
            try:
                offer = catalog.instance(region, it)
            except UnknownPriceError as exc:
                out.append(f"{where}{exc}")
                continue
            weight, why = unit_weight(offer_view(offer), req)
            if weight is None:
                out.append(f"{where}does not meet the fleet's requirement ({requirement_text(fleet)} per node): {it} {why}")
            elif weight != choice.weight:
                out.append(f"{where}weight {choice.weight} in the plan, but {it} holds {weight} unit(s) of this fleet")
    return out


def band_interruption_rate(fp: FleetPlan, catalog: Catalog, region: str) -> tuple[float, str, float] | None:
    """The interruption rate a fleet that runs spot is priced at: its most interrupted spot pool's,
    the Spot Advisor band of the types its group lists (the planner lists only those it runs on spot),
    as ``(hourly rate, that type, its band's upper %)``; None when none of its types has a band in
    ``region``. The rate ``seedance plan`` records as ``interruption_rate_per_hour``."""
    from seedance.planner.spot import band_hourly_rate
    from seedance.pricing.catalog import UnknownPriceError

    bands: list[tuple[float, str]] = []
    for choice in fp.instance_types:
        try:
            band = catalog.instance(region, choice.instance_type).interruption_band_max_pct
        except UnknownPriceError:
            continue  # listed among the instance_types problems
        if band is not None:
            bands.append((band, choice.instance_type))
    if not bands:
        return None
    band, itype = max(bands)
    return band_hourly_rate(band), itype, band


def _interruption_problems(at: str, fp: FleetPlan, catalog: Catalog, region: str) -> list[str]:
    """A fleet that runs spot is priced at the interruption rate of its most interrupted spot pool
    (:func:`band_interruption_rate`): the plan's ``interruption_rate_per_hour``, when it gives one, must
    be that rate (a plan without one is priced at it; without a band too, spot is priced without losses)."""
    from seedance.planner.spot import band_label

    got = fp.interruption_rate_per_hour
    share = f"spot_share_above_base {fp.spot_share_above_base:g}"
    banded = band_interruption_rate(fp, catalog, region)
    if banded is None:
        return [] if not fp.instance_types or got is None else [
            f"{at}{share}, but none of its instance types has a Spot Advisor band in {region} (`seedance plan` runs "
            "such a fleet on-demand only)"]
    want, itype, band = banded
    if got is None or math.isclose(got, want, rel_tol=1e-9):
        return []
    return [f"{at}interruption_rate_per_hour {got:g} with {share}, but its most "
            f"interrupted spot pool, {itype} (Spot Advisor band {band_label(band)}), gives {want:.6g} per hour, "
            "the rate `seedance plan` records (plan and estimate with the same prices)"]


def _reserved_problems(at: str, fp: FleetPlan, fleet: Any, bought: int, most: int, w: int, held: int,
                       on: dt.date, given: bool = False) -> list[str]:
    """``reserved_units`` as the planner makes them: the units the policy holds (``reserved.held``,
    still running through the month a plan of ``on`` prices) plus the plan's ``new_purchases``, which
    buy at most the whole instances ``capacity.max`` can run (``most`` of ``w`` units; those are checked
    with the purchases).  Held units are never reduced, so they may exceed what the group runs (billed
    idle); anything beyond them and the purchases is a reservation the policy does not have.  Units the
    plan records as given with ``plan --held`` (``given``) replace the policy's."""
    out: list[str] = []
    holds = (f"the plan was made with --held {fp.name}={held}" if given else
             f"the policy holds {held} unit(s) through the month a plan of {on} prices (reserved.held)")
    if fleet.reserved.mode.value == "none" and fp.reserved_units > held:
        out.append(f"{at}reserved_units {fp.reserved_units}, but the policy's reserved.mode is none and {holds}: a "
                   "plan reserves no more than it holds")
    elif fp.reserved_units - bought > held:
        out.append(f"{at}reserved_units {fp.reserved_units} is more than its new_purchases ({bought} unit(s)) and "
                   f"the units already held: {holds}")
    if fp.reserved_units > held + most * w:
        cap = fleet.capacity.max
        out.append(f"{at}reserved_units {fp.reserved_units} is more than capacity.max {cap} could run"
                   + (f" ({most} whole instance(s) of {w} units)" if w > 1 else "")
                   + f" plus the {held} unit(s) the policy holds")
    return out


def _held_other_terms_problems(at: str, fp: FleetPlan, fleet: Any, active: dict[Any, int], on: dt.date) -> list[str]:
    """Held units of terms other than the fleet's: the policy must hold them (``reserved.held``, still
    running on ``on``), and they are part of ``reserved_units``."""
    if not fp.held_other_terms:
        return []
    out: list[str] = []
    own = fleet.reserved.term.value
    claimed: dict[str, int] = {}
    for t, n in fp.held_other_terms:
        claimed[t] = claimed.get(t, 0) + n
    held = {term.value: n for term, n in active.items()}
    for t, n in sorted(claimed.items()):
        if t == own:
            out.append(f"{at}held_other_terms lists {n} unit(s) of {t}, the fleet's own reserved.term (those are "
                       "counted in reserved_units)")
        elif n > held.get(t, 0):
            out.append(f"{at}held_other_terms lists {n} unit(s) of {t}, but the policy holds {held.get(t, 0)} of {t} "
                       f"through the month a plan of {on} prices (reserved.held)")
    total = sum(claimed.values())
    if total > fp.reserved_units:
        out.append(f"{at}held_other_terms total {total} units, more than reserved_units {fp.reserved_units}")
    return out


def check_plan(plan: Plan, policy: Any, catalog: Catalog, region: str, on: dt.date | None = None) -> None:
    """Raise :class:`PricingError` listing every way ``plan`` does not fit ``policy`` (see :func:`plan_problems`)."""
    problems = plan_problems(plan, policy, catalog, region, on)
    if len(problems) == 1:
        raise PricingError(f"the plan does not fit the policy: {problems[0]}")
    if problems:
        raise PricingError(f"the plan does not fit the policy ({len(problems)} problems):\n"
                           + "\n".join(f"  - {p}" for p in problems))


def read_plan(path: Path) -> Plan:
    try:
        text = read_text_file(path, what="the JSON of `seedance plan`", encoding="utf-8-sig")  # a BOM, as policies
    except TextFileError as exc:
        raise PricingError(f"{exc}; expected the JSON of `seedance plan`") from None
    try:
        data = json.loads(text, object_pairs_hook=unique_keys)
    except json.JSONDecodeError as exc:
        raise PricingError(f"{path}:{exc.lineno}:{exc.colno}: not JSON ({exc.msg})") from None
    except DuplicateKeyError as exc:
        raise PricingError(f"{path}: {exc}; expected the JSON of `seedance plan`") from None
    except (ValueError, RecursionError) as exc:  # integers past Python's digit limit, nesting too deep
        raise PricingError(f"{path}: not a plan ({exc}); expected the JSON of `seedance plan`") from None
    bad = lone_surrogate(text)
    if bad is not None:
        raise PricingError(f"{path}:{bad}; expected the JSON of `seedance plan`")
    if not isinstance(data, dict):
        raise PricingError(f"{path}: expected a JSON object (the output of `seedance plan`)")
    if isinstance(data.get("plan"), dict):  # accept a wrapper {"plan": {...}}
        data = data["plan"]
    return plan_from_json(data, origin=str(path))
