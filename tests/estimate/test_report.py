"""Estimate and diff reports: unpriced lines, rounding of shares and percentages, the PR-comment size limit."""

from __future__ import annotations

import json
import re

from seedance.estimate.components import CostComponent, ResourceCost
from seedance.estimate.diff import compare
from seedance.estimate.estimate import Estimate, estimate_policy
from seedance.estimate.report import _helpers, diff_icon, diff_markdown, estimate_markdown
from seedance.policy.loader import LoadedPolicy
from seedance.pricing.catalog import Catalog
from seedance.templating import COMMENT_LIMIT


def _priced(cost: float) -> CostComponent:
    return CostComponent("use", "hours", 10.0, cost / 10, cost, "CNY", "t")


UNPRICED_GP3 = CostComponent("Storage (gp3)", "GB-months", 100.0, None, None, "CNY", None, unpriced_reason="no CNY price")


def _est(resources: list[ResourceCost], *, budget: float = 1000.0) -> Estimate:
    """An estimate summed the way :func:`seedance.estimate.estimate.summarise` sums one."""
    from seedance.estimate.estimate import pricing_status

    by_fleet: dict[str, float] = {}
    by_service: dict[str, float] = {}
    comps: dict[str, list] = {}
    for r in resources:
        if r.fleet:
            by_fleet[r.fleet] = by_fleet.get(r.fleet, 0.0) + r.monthly_cost
        by_service[r.service] = by_service.get(r.service, 0.0) + r.monthly_cost
        comps.setdefault(r.service, []).extend(r.components)
    unpriced = [{"resource": r.name, "component": c.name, "reason": c.unpriced_reason or ""}
                for r in resources for c in r.components if c.unpriced]
    return Estimate("p", "prod", "cn-north-1", "CNY", "plan", resources, sum(r.monthly_cost for r in resources),
                    bool(unpriced), by_fleet, by_service, {}, budget, "CNY", unpriced,
                    service_pricing={k: s for k, cs in comps.items() if (s := pricing_status(cs)) != "priced"})


def test_unpriced_services_are_not_shown_as_zero(stacks: dict[str, LoadedPolicy], catalog: Catalog) -> None:
    # China: no service prices in the shared data, and no spot prices: a plan that puts part of a fleet
    # on spot (the planner does not there; a hand-edited plan may) leaves EC2 partly priced
    import dataclasses
    import datetime as dt

    from seedance.planner.planner import plan_policy

    plan = plan_policy(stacks["cn-prod"], catalog, as_of=dt.date(2024, 5, 30))
    fleets = [dataclasses.replace(f, spot_share_above_base=0.3) if f.name == "inference" else f for f in plan.fleets]
    est = estimate_policy(stacks["cn-prod"], catalog, dataclasses.replace(plan, fleets=fleets))
    doc = est.to_json()
    assert doc["by_service"]["EBS"] == 0.0  # the number stays a number (backward compatible) ...
    assert doc["by_service_pricing"]["EBS"] == "unpriced" and doc["by_service_pricing"]["EC2"] == "partial"
    assert set(doc["by_fleet_pricing"]) == set(doc["by_fleet"])
    assert {r["name"]: r["pricing"] for r in doc["resources"]}["general"] == "unpriced"
    md = estimate_markdown(est)
    assert "| EBS | unpriced |" in md and "| EBS | 0.00 CNY |" not in md  # ... but no report says 0.00
    assert re.search(r"\| EC2 \| [0-9,.]+ CNY \+ unpriced \|", md)
    # a fully priced stack says nothing of the kind
    dev = estimate_policy(stacks["dev"], catalog)
    assert set(dev.to_json()["by_service_pricing"].values()) == {"priced"} and "unpriced" not in estimate_markdown(dev)


def test_estimate_markdown_lists_every_resource_it_counts_and_labels_prices(stacks: dict[str, LoadedPolicy],
                                                                           catalog: Catalog) -> None:
    est = estimate_policy(stacks["dev"], catalog)
    md = estimate_markdown(est)
    listed = {line.split(" | ")[0].lstrip("| ") for line in md.split("<details>")[1].splitlines() if line.startswith("| ")}
    assert f"Every resource ({len(est.resources)})" in md and {r.name for r in est.resources} <= listed
    assert "| scratch | no charges" in md
    assert re.search(r"\| [0-9.]+ USD/hour \|", md) and "USD/GB-month |" in md


def test_an_estimate_without_fleets_says_so() -> None:
    md = estimate_markdown(_est([ResourceCost("kms", "kms", "KMS", [_priced(1.0)])]))
    assert "No fleets." in md and "| Fleet |" not in md


def test_a_newly_unpriced_resource_is_not_no_change() -> None:
    base = _est([ResourceCost("fleet", "a", "EC2", [_priced(100.0)], fleet="a")])
    head = _est([*base.resources, ResourceCost("ebs", "extra-vol", "EBS", [UNPRICED_GP3])])
    d = compare(base, head)
    assert diff_icon(d) != "⚪" and d.new_unpriced
    md = diff_markdown(d, base=base, head=head)
    assert md.startswith("❓") and "(partial: 1 newly unpriced)" in md
    assert "| extra-vol | — | unpriced | unpriced |" in md and "| 0.00 CNY |" not in md
    assert "| EBS | — | unpriced | unpriced |" in md
    # partly priced: the priced part is shown, and said to be only a part
    part = _est([ResourceCost("fleet", "a", "EC2", [_priced(150.0), UNPRICED_GP3], fleet="a")])
    md = diff_markdown(compare(base, part), base=base, head=part)
    assert "| a | 100.00 CNY | 150.00 CNY + unpriced | +50.00 CNY (priced part) |" in md


def test_shares_and_percentages_never_show_minus_zero_and_points_match_the_shares() -> None:
    h = _helpers("USD")
    assert h["pct"](-0.00025) == "±0.0%" and h["pct"](0.0) == "±0.0%" and h["pct"](0.262) == "+26.2%"
    assert h["points"](0.4647, 0.4644) == "±0 pp"
    # 45.51% -> 58.49%: the rows show 45% and 58% (rounded down), so the change is 13 points
    assert (h["share"](0.4551), h["share"](0.5849), h["points"](0.4551, 0.5849)) == ("45%", "58%", "+13 pp")
    assert h["signed"](-0.001) == "±0.00 USD"


def test_diff_comment_of_many_fleets_stays_under_the_github_limit() -> None:
    names = [f"training-fleet-for-a-team-with-a-long-name-{i:04d}" for i in range(1000)]
    base = _est([ResourceCost("fleet", n, "EC2", [_priced(100.0)], fleet=n) for n in names], budget=1e6)
    head = _est([ResourceCost("fleet", n, "EC2", [_priced(100.0 + i)], fleet=n) for i, n in enumerate(names)], budget=1e6)
    d = compare(base, head)
    md = diff_markdown(d, base=base, head=head)
    assert len(md) <= COMMENT_LIMIT < 65_536
    assert "| Monthly total |" in md and "| Budget used |" in md and md.rstrip().endswith("</sub>")
    # the largest changes are kept; what is left out is counted
    assert f"fleet `{names[-1]}`" in md and f"fleet `{names[1]}`" not in md
    fleet_rows = md.count("| fleet `")
    match = re.search(r"… ([0-9,]+) more line\(s\) not shown", md)
    assert fleet_rows > 100 and match
    assert "run the same `seedance diff` command with `--format json` to see every line._" in md
    assert "seedance diff --format json" not in md  # does not run as written (BASE and HEAD are missing)
    # 999 fleets changed (the first did not), each with a fleet row and a resource row; EC2 is the one service
    assert "\n| EC2 | 100,000.00 CNY |" in md
    resource_rows = md.count("\n| training-fleet")
    assert int(match.group(1).replace(",", "")) == 999 + 999 + 1 - fleet_rows - resource_rows - 1
    # the JSON keeps every line
    assert len(json.loads(json.dumps(d.to_json()))["fleets"]) == 1000


def test_budget_shares_never_read_as_reaching_or_crossing_a_line_they_do_not() -> None:
    h = _helpers("USD")
    # 84.98% is not the 85% a threshold names; an overspend never reads 100%
    assert (h["share"](0.8498), h["share"](0.29), h["share"](1.0), h["share"](1.0029), h["share"](1.1)) == \
        ("84%", "29%", "100%", "101%", "110%")
    assert h["points"](0.999, 1.001) == "+2 pp"
    over = _est([ResourceCost("fleet", "a", "EC2", [_priced(1810.28)], fleet="a")], budget=1805.0)
    md = estimate_markdown(over)
    assert "Budget 1,805.00 CNY: **101%** used" in md and "**100%**" not in md
    under = _est([ResourceCost("fleet", "a", "EC2", [_priced(849.8)], fleet="a")], budget=1000.0)
    assert "**84%** used" in estimate_markdown(under)
    d = compare(under, over)
    assert "| Budget used | 84% | 101% | +17 pp |" in diff_markdown(d)


def test_a_total_that_all_depends_on_usage_is_never_zero(stacks: dict[str, LoadedPolicy], catalog: Catalog) -> None:
    import datetime as dt

    from rich.console import Console

    from seedance.commands.estimate import render_estimate

    # eu-prod names its own KMS key (kmsKeyArn): what is left of KMS is the API requests, whose count
    # the policy does not give
    est = estimate_policy(stacks["eu-prod"], catalog, as_of=dt.date(2026, 12, 1))
    doc = est.to_json()
    assert doc["by_service_pricing"]["KMS"] == "usage" and {r["name"]: r["pricing"] for r in doc["resources"]}["kms"] == "usage"
    md = estimate_markdown(est)
    assert "| KMS | depends on usage |" in md and "| KMS | 0.00 USD |" not in md
    console = Console(width=200, record=True)
    render_estimate(console, est, "Estimate")
    text = console.export_text()
    assert re.search(r"service\s*│\s*KMS\s*│\s*depends on usage", text) and not re.search(r"KMS\s*│\s*0\.00 USD", text)
    # a service with a priced component beside usage-dependent ones stays priced (its figure is a cost)
    dev = estimate_policy(stacks["dev"], catalog, as_of=dt.date(2026, 12, 1))
    assert dev.to_json()["by_service_pricing"]["KMS"] == "priced" and "| KMS | 1.00 USD |" in estimate_markdown(dev)


def test_estimate_report_of_many_fleets_stays_under_the_github_limit() -> None:
    names = [f"fleet-{i:04d}-" + "a" * 40 for i in range(1000)]
    resources = [ResourceCost("fleet", n, "EC2", [_priced(100.0 + i), UNPRICED_GP3], fleet=n) for i, n in enumerate(names)]
    est = _est(resources, budget=1e6)
    md = estimate_markdown(est)
    assert len(md) <= COMMENT_LIMIT < 65_536
    assert md.startswith("### Seedance estimate") and "per month** (partial" in md and "used by this estimate" in md
    # the services come first, then the costliest fleets; what is left out is counted
    assert "\n| EC2 | " in md
    fleet_rows = [line for line in md.splitlines() if line.startswith("| fleet-") and line.count(" | ") == 1]
    assert 100 < len(fleet_rows) < 1000 and f"| {names[-1]} | 1,099.00 CNY |" in md and f"| {names[0]} | 100.00 CNY |" not in md
    match = re.search(r"… ([0-9,]+) more line\(s\) not shown", md)
    # a command that runs as written: the one that made the report, in JSON (no policy path is known here)
    assert match and "run the same `seedance estimate` command with `--format json` to see every line._" in md
    assert "\n\n\n" not in md and all(line.count("`") % 2 == 0 for line in md.splitlines())
    shown_rows = sum(1 for line in md.splitlines() if line.startswith("| fleet-") and line.count(" | ") == 5)
    unpriced = md.count("\n- fleet-")
    total = 1 + 1000 + 1000 + 2000  # a service, the fleets, the unpriced lines, the resource rows
    assert int(match.group(1).replace(",", "")) == total - 1 - len(fleet_rows) - unpriced - shown_rows
    # a small estimate is rendered whole, without the note
    assert "not shown" not in estimate_markdown(_est(resources[:3]))


def test_the_reports_show_the_notes_beside_the_figures(stacks: dict[str, LoadedPolicy], catalog: Catalog) -> None:
    # the notes explain the figures (the planner's mix, what the total leaves out): every report shows
    # them, each resource's and each priced component's, not only the JSON
    import io

    from rich.console import Console

    from seedance.commands.estimate import render_estimate

    est = estimate_policy(stacks["eu-prod"], catalog)
    notes = est.notes()
    dearer = next(n for where, n in notes if where == "batch-embed" and "dearer pools" in n)
    cross = next(n for where, n in notes if where.startswith("vpc-nat-gateways: NAT cross-zone transfer"))
    assert any(where == "llm-train" and "p4de.24xlarge" in n for where, n in notes)
    assert cross.startswith("no NAT gateway in 1 of the 3")
    assert len(notes) == sum(len(r.notes) for r in est.resources) + sum(
        1 for r in est.resources for c in r.components if c.usage_note and c.monthly_cost is not None)
    md = estimate_markdown(est)
    assert f"<summary>Notes ({len(notes)})</summary>" in md and f"- batch-embed: {dearer}\n" in md
    buf = io.StringIO()
    render_estimate(Console(file=buf, width=10_000), est, "Estimate")
    assert f"  - batch-embed: {dearer}\n" in buf.getvalue()
    # a report cut to fit a comment drops rows of the resource table before notes
    short = estimate_markdown(est, limit=len(md) - 200)
    assert f"<summary>Notes ({len(notes)})</summary>" in short and "more line(s) not shown" in short


HOSTILE = "alias/x` @octocat <img src=x onerror=alert(1)> <details><summary>Click</summary> [phish](https://evil.example) **b** | c"


def test_outside_text_in_estimate_and_diff_comments_stays_text() -> None:
    # a note quoting a policy value (compliance.kmsKeyArn accepts `alias/` + anything) rendered as
    # Markdown: a mention pinged, an image, HTML and a link rendered, an open <details> ate the rest
    hostile = UNPRICED_GP3.__class__("Storage (gp3)", "GB-months", 100.0, None, None, "CNY", None,
                                     unpriced_reason=HOSTILE)
    base = _est([ResourceCost("kms", "kms", "KMS", [_priced(1.0)], notes=[HOSTILE])])
    head = _est([*base.resources, ResourceCost("ebs", HOSTILE, "EBS", [hostile])])
    for md in (estimate_markdown(head), diff_markdown(compare(base, head), base=base, head=head)):
        assert "@octocat" not in md and "https://" not in md  # a zero-width space breaks the mention and link
        for raw in ("<img", "<summary>Click", "[phish](", "**b**", "` @"):
            assert not re.search(r"(?<!\\)" + re.escape(raw), md), raw  # only ever after an escaping backslash
        assert "\\<img" in md  # escaped, shown as written


def test_reports_say_their_rows_are_rounded_one_by_one() -> None:
    # three resources of 1/3 each: the rows read 0.33 three times, the total 1.00
    third = [ResourceCost(f"r{i}", f"r{i}", "EC2", [_priced(1 / 3)], fleet="a") for i in range(3)]
    est = _est(third)
    md = estimate_markdown(est)
    assert "**1.00 CNY per month**" in md and md.count("| 0.33 CNY |") == 3
    assert "rounded to the cent on its own, so rows may not add up to a total" in md
    diff = diff_markdown(compare(_est(third[:1]), est), base=_est(third[:1]), head=est)
    assert "rounded to the cent on its own" in diff
