"""Render estimates and estimate diffs: Markdown (Jinja2, ``templates/``) and rich text."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from seedance.estimate.components import _per
from seedance.estimate.diff import NETWORK, EstimateDiff, _shared_names
from seedance.estimate.estimate import PARTIAL, PRICED, UNPRICED, USAGE, Estimate, pricing_status
from seedance.templating import COMMENT_LIMIT, fit, get_template


_BLANK_LINES = re.compile(r"\n{3,}")


def share_percent(fraction: float) -> int:
    """A budget share in whole percent, rounded away from 100%: down below the budget, up above it,
    so 84.98% reads 84% (not the 85% a threshold names) and an overspend never reads 100%."""
    exact = 100 * fraction
    if fraction > 1:
        return math.ceil(exact - 1e-9)  # 110.00000000000001 is 110
    return math.floor(exact + 1e-9)  # 28.999999999999996 is 29


def _helpers(currency: str) -> dict[str, Any]:
    def money(value: float | None) -> str:
        return "—" if value is None else f"{value:,.2f} {currency}"

    def signed(value: float) -> str:
        return "±0.00 " + currency if abs(value) < 0.005 else f"{value:+,.2f} {currency}"

    def pct(fraction: float) -> str:
        shown = round(100 * fraction, 1)
        return "±0.0%" if shown == 0 else f"{shown:+.1f}%"  # never "-0.0%" or "+0.0%"

    def share(fraction: float | None, partial: bool = False) -> str:
        """A budget share; of a partial total (some components unpriced, left out) it is a lower bound."""
        if fraction is None:
            return "—"
        return f"{'at least ' if partial else ''}{share_percent(fraction)}%"

    def points(a: float | None, b: float | None, partial: bool = False) -> str:
        # from the rounded shares the row shows, so the change always equals their difference; when
        # either total is partial, only the change of its priced part is known
        if a is None or b is None:
            return "—"
        moved = share_percent(b) - share_percent(a)
        return ("±0 pp" if moved == 0 else f"{moved:+d} pp") + (", priced part" if partial else "")

    def cost(value: float | None, status: str = PRICED) -> str:
        """A fleet's, service's or resource's cost: ``unpriced`` when nothing of it has a price and
        ``depends on usage`` when all of it depends on usage (never 0.00), the priced part ``+ unpriced``
        when only some of it has a price."""
        if status == UNPRICED:
            return "unpriced"
        if status == USAGE:
            return "depends on usage"
        return money(value) + (" + unpriced" if status == PARTIAL else "")

    def change(delta: float, before: str | None = PRICED, after: str | None = PRICED) -> str:
        """The change of a line; when either side is not fully priced, only its priced part is known."""
        if before in (None, PRICED) and after in (None, PRICED):
            return signed(delta)
        if abs(delta) < 0.005:
            return "unpriced" if {before, after} & {UNPRICED, PARTIAL} else "depends on usage"
        return f"{signed(delta)} (priced part)"

    def unit_price(c: Any) -> str:
        return "—" if c.unit_price is None else f"{c.unit_price:g} {currency}/{_per(c.unit)}"

    def qty(value: float | None) -> str:
        if value is None:
            return "?"
        return f"{value:,.2f}" if abs(value) >= 0.01 or value == 0 else f"{value:.6f}"

    return {"money": money, "signed": signed, "pct": pct, "share": share, "points": points, "qty": qty, "cost": cost,
            "change": change, "unit_price": unit_price}


def estimate_markdown(est: Estimate, *, limit: int = COMMENT_LIMIT) -> str:
    """The estimate as a report for a pull request, at most ``limit`` characters.

    The header, the total and the budget share are always there; then, as far as they fit: the
    services, the fleets (the costliest first), the unpriced and the usage-dependent components, the
    notes and the rows of the resource table; what does not fit is counted at the end (the JSON output holds it all)."""
    template = get_template("cost_estimate.md.j2")
    share = est.total / est.budget_amount if est.budget_amount and est.budget_currency == est.currency else None
    rows: list[tuple[Any, Any]] = [(r, c) for r in est.resources for c in (r.components or [None])]
    sections: dict[str, list[Any]] = {"services": list(est.by_service.items()), "fleets": list(est.by_fleet.items()),
                                      "unpriced": list(est.unpriced), "usage_dependent": list(est.usage_dependent),
                                      "notes": est.notes(), "rows": rows}
    priority: list[tuple[str, int]] = []
    for name in ("services", "fleets", "unpriced", "usage_dependent", "notes", "rows"):
        order: Any = range(len(sections[name]))
        if name == "fleets":
            order = sorted(order, key=lambda i: -sections["fleets"][i][1])
        priority += [(name, i) for i in order]

    def render_first(k: int) -> str:
        kept = set(priority[:k])
        shown = {name: [x for i, x in enumerate(items) if (name, i) in kept] for name, items in sections.items()}
        text = template.render(est=est, budget_share=share, shown=shown, total={n: len(v) for n, v in sections.items()},
                               omitted=len(priority) - k, **_helpers(est.currency))
        return _BLANK_LINES.sub("\n\n", text)  # the note may follow a list that ends in a newline: one blank line

    return fit(render_first, len(priority), limit)


def diff_icon(d: EstimateDiff) -> str:
    """🔴 over budget, 🔺 the priced part grows, ❓ something without a price is new or larger (or
    changed while the priced part did not), 🔻 a saving, ⚪ no change."""
    over = d.budget_share_after is not None and d.budget_share_after > 1
    if over or d.delta >= 0.005:
        return "🔺" if not over else "🔴"
    if d.new_unpriced or d.unpriced_grew:  # something costs more by an amount the tool cannot price: not "no change"
        return "❓"
    if d.delta <= -0.005:
        return "🔻"
    return "❓" if d.unpriced_changes else "⚪"


@dataclass(frozen=True)
class QuantityRow:
    """A line of the diff's unpriced-quantity table, its cells ready to print."""

    resource: str
    component: str
    before: str
    after: str
    unit: str


def quantity_rows(d: EstimateDiff) -> list[QuantityRow]:
    """The unpriced components whose quantity changed, as table rows ("—" where a side has none,
    "?" where its quantity is not known)."""
    qty = _helpers(d.currency)["qty"]
    return [QuantityRow(q.resource, q.component, "—" if q.status == "added" else qty(q.before),
                        "—" if q.status == "removed" else qty(q.after), q.unit) for q in d.unpriced_changes]


@dataclass(frozen=True)
class DiffRow:
    """A line of the diff's cost table, its cells ready to print ("unpriced" where nothing has a price)."""

    key: str
    before: str
    after: str
    change: str
    weight: float  # |change|: which lines matter most when not all fit


def _resource_status(est: Estimate | None, shared: set[str]) -> dict[str, str]:
    """Each resource's pricing status, keyed as the diff keys resources (a name shared by two kinds
    carries its kind)."""
    groups: dict[str, list] = {}
    for r in est.resources if est is not None else []:
        groups.setdefault(f"{r.name} ({r.kind})" if r.name in shared else r.name, []).extend(r.components)
    return {k: pricing_status(cs) for k, cs in groups.items()}


def diff_rows(d: EstimateDiff, base: Estimate | None = None, head: Estimate | None = None) -> dict[str, list[DiffRow]]:
    """The changed fleets, services and resources of ``d`` as table rows.

    ``base`` and ``head`` (the two estimates ``d`` compares) say which lines are not (fully) priced;
    without them every line is taken as priced."""
    h = _helpers(d.currency)
    shared = _shared_names(*(e for e in (base, head) if e is not None))
    lookups: dict[str, tuple[Any, Any]] = {
        "fleets": (base.fleet_status if base else None, head.fleet_status if head else None),
        "services": (base.service_status if base else None, head.service_status if head else None),
        "resources": (_resource_status(base, shared).get, _resource_status(head, shared).get),
    }
    out: dict[str, list[DiffRow]] = {}
    for section, changes in (("fleets", d.fleets), ("services", d.services), ("resources", d.resources)):
        before_of, after_of = lookups[section]
        rows = []
        for c in changes:
            if c.status == "unchanged":
                continue
            sb = None if c.before is None or before_of is None else (before_of(c.key) or PRICED)
            sa = None if c.after is None or after_of is None else (after_of(c.key) or PRICED)
            rows.append(DiffRow(c.key, "—" if c.before is None else h["cost"](c.before, sb or PRICED),
                                "—" if c.after is None else h["cost"](c.after, sa or PRICED), h["change"](c.delta, sb, sa),
                                abs(c.delta)))
        out[section] = rows
    return out


def diff_markdown(d: EstimateDiff, *, base: Estimate | None = None, head: Estimate | None = None,
                  limit: int = COMMENT_LIMIT) -> str:
    """The diff as a pull-request comment of at most ``limit`` characters.

    The header, the totals and the budget row are always there; then, as far as they fit: the notes,
    the unpriced quantities that changed, the newly unpriced items, the services and the fleets
    (largest change first), the planner decisions and the resources; what does not fit is counted
    at the end."""
    template = get_template("cost_diff.md.j2")
    rows = diff_rows(d, base, head)
    sections: dict[str, list[Any]] = {"notes": list(d.notes), "unpriced_changes": quantity_rows(d),
                                      "new_unpriced": list(d.new_unpriced), "fleets": rows["fleets"],
                                      "services": rows["services"], "decisions": list(d.decisions),
                                      "resources": rows["resources"]}
    priority: list[tuple[str, int]] = []
    for name in ("notes", "unpriced_changes", "new_unpriced", "services", "fleets", "decisions", "resources"):  # a few services sum up many fleets
        items = sections[name]
        order: Any = range(len(items))
        if name in ("fleets", "services"):
            order = sorted(order, key=lambda i, items=items: -items[i].weight)
        priority += [(name, i) for i in order]

    def render_first(k: int) -> str:
        kept = set(priority[:k])
        shown = {name: [x for i, x in enumerate(items) if (name, i) in kept] for name, items in sections.items()}
        return template.render(d=d, icon=diff_icon(d), shown=shown, total={n: len(v) for n, v in sections.items()},
                               omitted=len(priority) - k, **_helpers(d.currency))

    return fit(render_first, len(priority), limit)


def render_diff_text(out: Console, d: EstimateDiff, *, base: Estimate | None = None, head: Estimate | None = None) -> None:
    h = _helpers(d.currency)
    priced_part = "priced part " if d.unpriced_changes else ""
    head_line = (f"{d.policy} ({d.environment}, {d.region}): {h['money'](d.before_total)} -> {h['money'](d.after_total)} "
                 f"per month, {priced_part}{h['signed'](d.delta)}")
    if d.delta_fraction is not None:
        head_line += f" ({h['pct'](d.delta_fraction)})"
    if d.unpriced_changes:
        head_line += f"; unpriced quantities changed ({len(d.unpriced_changes)}, not in either total)"
    if d.after_partial:
        head_line += " (partial: some components have no sourced price)"
    out.print(Text(head_line, style="bold"))
    if d.as_of is not None:
        out.print(Text(f"decision date (--as-of): {d.as_of}; prices: {d.price_source}"))
    for note in d.notes:
        out.print(Text(f"note: {note}", style="yellow"))
    if d.budget_share_after is not None or d.budget_share_before is not None:
        out.print(Text(f"budget used: {h['share'](d.budget_share_before, d.before_partial)} -> "
                       f"{h['share'](d.budget_share_after, d.after_partial)} "
                       f"({h['points'](d.budget_share_before, d.budget_share_after, d.before_partial or d.after_partial)})"
                       + (f"; the budget changes from {h['money'](d.budget_before)} to {h['money'](d.budget_after)}"
                          if d.budget_before != d.budget_after else "")))
    if not d.changed and not d.new_unpriced:
        out.print("no cost or planner decision changes")
        return
    rows = diff_rows(d, base, head)
    if rows["fleets"] or rows["services"]:
        table = Table(title=Text("Cost by fleet and service"))
        for col, just in (("", "left"), ("Base", "right"), ("This change", "right"), ("Change", "right")):
            table.add_column(col, justify=just)  # type: ignore[arg-type]
        for prefix, section in (("fleet ", rows["fleets"]), ("", rows["services"])):
            for r in section:
                table.add_row(Text(prefix + r.key), r.before, r.after, r.change)
        out.print(table)
    if rows["resources"]:
        rt = Table(title=Text("Resources whose cost changed"))
        for col, just in (("Resource", "left"), ("Base", "right"), ("This change", "right"), ("Change", "right")):
            rt.add_column(col, justify=just)  # type: ignore[arg-type]
        for r in rows["resources"]:
            rt.add_row(Text(r.key), r.before, r.after, r.change)
        out.print(rt)
    if d.unpriced_changes:
        qt = Table(title=Text("Unpriced quantities that changed (not in either total)"))
        for col, just in (("Resource", "left"), ("Component", "left"), ("Base", "right"), ("This change", "right"),
                          ("Unit", "left")):
            qt.add_column(col, justify=just)  # type: ignore[arg-type]
        for q in quantity_rows(d):
            qt.add_row(Text(q.resource), Text(q.component), q.before, q.after, Text(q.unit))
        out.print(qt)
    if d.decisions:
        dec = Table(title=Text("Planner decisions that changed"))
        for col in ("Fleet", "Decision", "Base", "This change"):
            dec.add_column(col)
        for x in d.decisions:
            dec.add_row(Text(x.fleet), Text(x.decision), Text(x.before or "—"), Text(x.after or "—"))
        out.print(dec)
        for x in d.decisions:  # the network's: what a route change does to the stack's endpoints
            if x.fleet == NETWORK and x.rationale:
                out.print(Text(f"network: {x.decision}: {x.rationale}", style="yellow" if "deletes" in x.rationale else ""))
    for u in d.new_unpriced:
        out.print(Text(f"newly unpriced (not in the total): {u}", style="yellow"))
