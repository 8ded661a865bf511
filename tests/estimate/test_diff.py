"""Estimate diffs: what a policy change does to the bill (`seedance diff`, PR comments)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from seedance.cli import app, main
from seedance.estimate.components import CostComponent, ResourceCost
from seedance.estimate.diff import Change, compare, compare_plans
from seedance.estimate.estimate import Estimate, estimate_policy
from seedance.estimate.report import diff_markdown, estimate_markdown
from seedance.planner.planner import plan_policy
from seedance.policy import load_policy
from seedance.pricing.catalog import PricingError, load_catalog

REPO = Path(__file__).resolve().parents[2]
DEV = REPO / "stacks" / "policies" / "dev.yaml"


def _est(costs: dict[str, float], *, currency: str = "USD", budget: float | None = 1000.0, fleet: str | None = None) -> Estimate:
    resources = [ResourceCost("fleet", name, "EC2", [CostComponent("use", "hours", 1.0, cost, cost, currency, "t")], fleet=fleet or name)
                 for name, cost in costs.items()]
    by_fleet = {r.name: r.monthly_cost for r in resources}
    return Estimate("p", "dev", "us-east-1", currency, "plan", resources, sum(costs.values()), False, by_fleet,
                    {"EC2": sum(costs.values())}, {}, budget, currency)


def test_change_status_and_delta() -> None:
    assert Change("a", None, 5.0).status == "added" and Change("a", None, 5.0).delta == 5.0
    assert Change("a", 5.0, None).status == "removed" and Change("a", 5.0, None).delta == -5.0
    assert Change("a", 5.0, 5.001).status == "unchanged"
    assert Change("a", 5.0, 7.5).status == "changed"


def test_compare_by_hand() -> None:
    d = compare(_est({"a": 100.0, "b": 50.0, "gone": 10.0}), _est({"a": 100.0, "b": 80.0, "new": 300.0}))
    assert d.before_total == pytest.approx(160.0) and d.after_total == pytest.approx(480.0)
    assert d.delta == pytest.approx(320.0) and d.delta_fraction == pytest.approx(2.0)
    assert d.budget_share_before == pytest.approx(0.16) and d.budget_share_after == pytest.approx(0.48)
    # changed resources only, largest change first
    assert [(c.key, c.status) for c in d.resources] == [("new", "added"), ("b", "changed"), ("gone", "removed")]
    assert {c.key: c.status for c in d.fleets} == {"a": "unchanged", "b": "changed", "new": "added", "gone": "removed"}
    assert d.changed
    assert json.loads(json.dumps(d.to_json()))["monthly_total"] == {"before": 160.0, "after": 480.0, "delta": 320.0,
                                                                    "delta_fraction": 2.0}


def test_the_text_diff_lists_the_resources_whose_cost_changed() -> None:
    # red team: json and markdown listed them, the default text output did not
    from rich.console import Console

    from seedance.estimate.report import render_diff_text

    base, head = _est({"a": 100.0, "b": 50.0, "gone": 10.0}), _est({"a": 100.0, "b": 80.0, "new": 300.0})
    console = Console(width=200, record=True)
    render_diff_text(console, compare(base, head), base=base, head=head)
    table = console.export_text().split("Resources whose cost changed")[1]
    rows = [[cell.strip() for cell in line.split("│")[1:-1]] for line in table.splitlines() if line.startswith("│")]
    assert rows == [["new", "—", "300.00 USD", "+300.00 USD"], ["b", "50.00 USD", "80.00 USD", "+30.00 USD"],
                    ["gone", "10.00 USD", "—", "-10.00 USD"]]  # "a" did not change


def test_identical_estimates_are_unchanged() -> None:
    d = compare(_est({"a": 1.0}), _est({"a": 1.0}))
    assert not d.changed and d.resources == []
    assert "No cost or planner decision changes." in diff_markdown(d)


def test_a_change_is_the_difference_of_the_amounts_shown() -> None:
    # 847.074 -> 847.076 shows as 847.07 -> 847.08: the change is +0.01, never ±0.00 and "no changes"
    d = compare(_est({"a": 847.074}), _est({"a": 847.076}))
    assert d.delta == 0.01 and d.changed and d.fleets[0].status == "changed"
    total = d.to_json()["monthly_total"]
    assert (total["before"], total["after"], total["delta"]) == (847.07, 847.08, 0.01)
    md = diff_markdown(d)
    assert "+0.01 USD" in md and "No cost or planner decision changes." not in md
    # and amounts that show the same are unchanged, however far apart unrounded
    assert not compare(_est({"a": 847.0751}), _est({"a": 847.0849})).changed


def test_currencies_are_never_compared() -> None:
    with pytest.raises(PricingError, match="currencies are never mixed"):
        compare(_est({"a": 1.0}), _est({"a": 1.0}, currency="CNY"))


def _overlay(tmp_path: Path, body: str) -> Path:
    p = tmp_path / "head.yaml"
    p.write_text(f"apiVersion: seedance.io/v1\nkind: CostPolicy\nextends: {DEV}\n{body}", encoding="utf-8")
    return p


def test_a_real_policy_change_moves_cost_and_decisions(tmp_path: Path) -> None:
    catalog = load_catalog()
    # dev inference (interruptionTolerance low) has no spot: g5.xlarge is in the >20% band in us-east-1
    head_path = _overlay(tmp_path, "fleets:\n  - name: inference\n    capacity: {min: 2, desired: 3, max: 6}\n"
                                   "    spot: {maxShare: 0.2, interruptionTolerance: high}\n")
    base, head = load_policy(DEV), load_policy(head_path)
    bp, hp = plan_policy(base, catalog), plan_policy(head, catalog)
    d = compare(estimate_policy(base, catalog, bp), estimate_policy(head, catalog, hp), bp, hp)
    fleets = {c.key: c for c in d.fleets}
    assert fleets["inference"].status == "changed" and fleets["inference"].delta > 0
    assert fleets["finetune"].status == "unchanged"
    # the total moves by the fleet's change (nothing else differs), to the cent: each change is the
    # difference of the amounts as shown, each rounded to cents on its own
    assert d.delta == pytest.approx(fleets["inference"].delta, abs=0.0101)
    moved = {(x.fleet, x.decision) for x in d.decisions}
    assert ("inference", "reserved units") in moved and ("inference", "spot share") in moved
    assert all(x.fleet == "inference" for x in d.decisions)
    spot = next(x for x in d.decisions if x.decision == "spot share")
    assert spot.before.startswith("0%") and spot.after.startswith("20%") and "maxShare" in spot.rationale
    md = diff_markdown(d)
    assert "vs base**" in md and "fleet `inference`" in md and "Planner decisions that changed" in md


def test_added_and_removed_fleets_are_decisions(tmp_path: Path) -> None:
    catalog = load_catalog()
    head = load_policy(_overlay(tmp_path, "fleets:\n  - name: batch-embed\n    $remove: true\n"))
    base = load_policy(DEV)
    changes = compare_plans(plan_policy(base, catalog), plan_policy(head, catalog))
    assert [(c.fleet, c.decision, c.after) for c in changes] == [("batch-embed", "fleet", None)]


def _invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args), standalone_mode=False, catch_exceptions=False)
    return result.return_value, result.output


def test_cli_diff_formats(tmp_path: Path) -> None:
    head = _overlay(tmp_path, "budget:\n  monthlyAmount: 1000\n")
    code, out = _invoke("diff", str(DEV), str(head), "-f", "json", "--as-of", "2026-11-01")
    assert code == 0, out
    doc = json.loads(out)
    assert doc["kind"] == "EstimateDiff" and doc["monthly_total"]["delta"] == 0
    assert doc["budget"]["share_after"] > 1 > doc["budget"]["share_before"]
    code, md = _invoke("diff", str(DEV), str(head), "-f", "markdown", "--as-of", "2026-11-01")
    assert code == 0 and md.startswith("🔴") and "| Budget used |" in md
    code, text = _invoke("diff", str(DEV), str(DEV))
    assert code == 0 and "no cost or planner decision changes" in text


def test_cli_diff_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("apiVersion: seedance.io/v1\nkind: CostPolicy\nmetadata: {name: 3}\n", encoding="utf-8")
    assert main(["diff", str(DEV), str(bad)]) == 1
    err = capsys.readouterr().err
    assert "bad.yaml:3:18: metadata.name: expected a string, got 3" in err and "Traceback" not in err
    cn = REPO / "stacks" / "policies" / "cn-prod.yaml"
    assert main(["diff", str(DEV), str(cn), "--no-plan"]) == 1
    assert "currencies are never mixed" in capsys.readouterr().err


def test_estimate_markdown_matches_the_json_total() -> None:
    catalog = load_catalog()
    est = estimate_policy(load_policy(DEV), catalog)
    md = estimate_markdown(est)
    assert f"**{est.total:,.2f} USD per month**" in md
    for name, cost in est.by_fleet.items():
        assert f"| {name} | {cost:,.2f} USD |" in md
    code, out = _invoke("estimate", str(DEV), "-f", "markdown", "--no-plan")
    assert code == 0 and out == md


def test_missing_templates_are_a_clean_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("SEEDANCE_TEMPLATES", str(tmp_path))  # a directory without the report templates
    assert main(["estimate", str(DEV), "-f", "markdown"]) == 1
    assert "error: template cost_estimate.md.j2 not found" in capsys.readouterr().err
    assert main(["diff", str(DEV), str(DEV), "-f", "markdown", "--no-plan"]) == 1
    err = capsys.readouterr().err
    assert "error: template cost_diff.md.j2 not found" in err and "Traceback" not in err
    assert main(["init", str(tmp_path / "p"), "--region", "us-east-1"]) == 1
    assert "error: template init/Pulumi.yaml.j2 not found" in capsys.readouterr().err
    assert not (tmp_path / "p").exists()


def test_resources_of_different_kinds_with_one_name_are_kept_apart() -> None:
    before = _est({"eval": 100.0})
    after = _est({"eval": 100.0})
    after.resources.append(ResourceCost("ebs", "eval", "EBS", [CostComponent("gb", "GB-month", 10.0, 0.1, 1.0, "USD", "t")]))
    d = compare(before, after)
    assert [(c.key, c.status) for c in d.resources] == [("eval (ebs)", "added")]


def test_a_change_no_instance_type_can_serve_is_refused(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    from pathlib import Path as _Path

    from seedance.cli import main

    dev = _Path(__file__).resolve().parents[2] / "stacks" / "policies" / "dev.yaml"
    head = tmp_path / "head.yaml"
    head.write_text(f"apiVersion: seedance.io/v1\nkind: CostPolicy\nextends: {dev}\nfleets:\n"
                    "  - name: finetune\n    gpu: {model: A10G, count: 3}\n")
    assert main(["diff", str(dev), str(head), "--as-of", "2026-06-01"]) == 1
    err = capsys.readouterr().err
    assert f"{head}:6:10: fleets[0].gpu (fleet 'finetune'): no instance type of the price catalog in us-east-1" in err
    assert main(["diff", str(dev), str(head), "--no-plan"]) == 1  # without plans too
    assert "fleets[0].gpu (fleet 'finetune'): no instance type of the price catalog" in capsys.readouterr().err
    moved = tmp_path / "moved.yaml"
    moved.write_text(f"apiVersion: seedance.io/v1\nkind: CostPolicy\nextends: {dev}\ncloud:\n  region: us-west-2\n"
                     "  availabilityZones: [us-west-2a, us-west-2b]\n")
    assert main(["diff", str(dev), str(moved), "--as-of", "2026-06-01", "-f", "json"]) == 0
    assert "note: the region changes from us-east-1 to us-west-2" in capsys.readouterr().err


def test_removing_a_fleet_that_still_holds_reservations_says_they_stay_billed(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    import json as _json
    from pathlib import Path as _Path

    from seedance.cli import main

    dev = _Path(__file__).resolve().parents[2] / "stacks" / "policies" / "dev.yaml"
    base = tmp_path / "base.yaml"
    base.write_text(f"apiVersion: seedance.io/v1\nkind: CostPolicy\nextends: {dev}\nfleets:\n"
                    "  - name: batch-embed\n    reserved: {mode: auto, held: [{units: 2, term: 1y, purchased: 2026-01-10}]}\n")
    head = tmp_path / "head.yaml"
    head.write_text(f"apiVersion: seedance.io/v1\nkind: CostPolicy\nextends: {base}\nfleets:\n"
                    "  - name: batch-embed\n    $remove: true\n")
    assert main(["diff", str(base), str(head), "--as-of", "2026-06-01", "-f", "json"]) == 0
    out = capsys.readouterr()
    note = "fleet batch-embed is removed, but its 2 held reserved unit(s) stay billed until their term ends"
    assert any(n.startswith(note) for n in _json.loads(out.out)["notes"]) and note in out.err
    assert main(["diff", str(base), str(head), "--as-of", "2026-06-01", "-f", "markdown"]) == 0
    assert f"> ⚠️ {note}" in capsys.readouterr().out
    # after the term, nothing is said
    assert main(["diff", str(base), str(head), "--as-of", "2027-02-01", "-f", "json"]) == 0
    assert _json.loads(capsys.readouterr().out)["notes"] == []


CN = REPO / "stacks" / "policies" / "cn-prod.yaml"


def _cn_overlay(tmp_path: Path, body: str) -> Path:
    p = tmp_path / "cn-head.yaml"
    p.write_text(f"apiVersion: seedance.io/v1\nkind: CostPolicy\nextends: {CN}\n{body}", encoding="utf-8")
    return p


def test_unpriced_quantities_that_grow_are_a_change(tmp_path: Path) -> None:
    # China has no EBS prices: 100x the storage moves no priced figure, yet it is not "no change"
    head = _cn_overlay(tmp_path, "storage:\n  classes:\n    - {name: general, volumes: 200, sizeGib: 2000}\n")
    code, js = _invoke("diff", str(CN), str(head), "-f", "json", "--as-of", "2026-12-01")
    assert code == 0
    doc = json.loads(js)
    assert doc["monthly_total"]["delta"] == 0
    moved = {(q["resource"], q["component"]): q for q in doc["unpriced_changes"]}
    gp3 = moved[("general", "Storage (gp3)")]
    assert (gp3["before"], gp3["after"], gp3["unit"], gp3["status"]) == (4000.0, 400000.0, "GB-months", "changed")
    code, md = _invoke("diff", str(CN), str(head), "-f", "markdown", "--as-of", "2026-12-01")
    assert "No cost or planner decision changes." not in md and md.startswith("❓")
    assert "priced part ±0.00 CNY (±0.0%) vs base; unpriced quantities changed" in md.splitlines()[0]
    assert "| general | Storage (gp3) | 4,000.00 | 400,000.00 | GB-months |" in md
    code, text = _invoke("diff", str(CN), str(head), "--as-of", "2026-12-01")
    assert "no cost or planner decision changes" not in text and "unpriced quantities changed" in text
    assert re.search(r"general\s+│ Storage \(gp3\)\s+│\s+4,000.00 │\s+400,000.00 │ GB-months", text)


def test_a_priced_saving_is_not_a_clean_saving_when_unpriced_quantities_grow(tmp_path: Path) -> None:
    head = _cn_overlay(tmp_path, "fleets:\n  - name: batch-embed\n    $remove: true\n"
                                 "storage:\n  classes:\n    - {name: general, volumes: 40}\n")
    code, md = _invoke("diff", str(CN), str(head), "-f", "markdown", "--as-of", "2026-12-01")
    first = md.splitlines()[0]
    assert code == 0 and not first.startswith("🔻") and first.startswith("❓")
    assert "priced part -" in first and "unpriced quantities changed" in first
    # the fleet's unpriced root volumes went with it: listed as removed
    assert "| batch-embed | Node root volumes (gp3, 200 GiB each) | 933.33 | — | GB-months |" in md


def test_unpriced_quantities_by_hand() -> None:
    def est(gib: float | None, *extra: CostComponent) -> Estimate:
        comp = CostComponent("Storage (gp3)", "GB-months", gib, None, None, "USD", None, unpriced_reason="no price")
        r = [ResourceCost("ebs", "vol", "EBS", [comp, *extra])]
        return Estimate("p", "dev", "us-east-1", "USD", "plan", r, 0.0, True, {}, {"EBS": 0.0}, {}, 1000.0, "USD",
                        [{"resource": "vol", "component": c.name, "reason": "no price"} for c in r[0].components])

    iops = CostComponent("IOPS", "IOPS-months", 5.0, None, None, "USD", None, unpriced_reason="no price")
    assert compare(est(100.0), est(100.0 + 1e-12)).unpriced_changes == []  # float noise is no change
    assert not compare(est(100.0), est(100.0)).changed
    grew = compare(est(100.0), est(200.0, iops))
    assert [(q.component, q.status, q.before, q.after) for q in grew.unpriced_changes] == \
        [("Storage (gp3)", "changed", 100.0, 200.0), ("IOPS", "added", None, 5.0)]
    assert grew.changed and grew.unpriced_grew
    shrank = compare(est(200.0, iops), est(100.0))
    assert [(q.status, q.grew) for q in shrank.unpriced_changes] == [("changed", False), ("removed", False)]
    assert shrank.changed and not shrank.unpriced_grew
    assert "No cost or planner decision changes." not in diff_markdown(shrank)
    assert compare(est(100.0), est(None)).unpriced_grew  # a quantity no longer known may be larger


def test_a_budget_change_is_shown_beside_the_share(tmp_path: Path) -> None:
    # the share went 16% -> 68% with nothing said about the budget falling from 120,000 to 30,000
    head = tmp_path / "head.yaml"
    head.write_text(f"apiVersion: seedance.io/v1\nkind: CostPolicy\nextends: {DEV}\nbudget:\n  monthlyAmount: 500\n")
    base_amount = load_policy(DEV).policy.budget.monthly_amount
    text = CliRunner().invoke(app, ["diff", str(DEV), str(head), "--no-plan"], catch_exceptions=False).output
    assert f"the budget changes from {base_amount:,.2f} USD to 500.00 USD" in text
    md = CliRunner().invoke(app, ["diff", str(DEV), str(head), "--no-plan", "-f", "markdown"],
                            catch_exceptions=False).output
    assert f"| Monthly budget | {base_amount:,.2f} USD | 500.00 USD | {500 - base_amount:+,.2f} USD |" in md
    same = CliRunner().invoke(app, ["diff", str(DEV), str(DEV), "--no-plan"], catch_exceptions=False).output
    assert "the budget changes" not in same


# red team: a change that takes the stack's S3 and DynamoDB gateway endpoints as the VPC's existing ones
# said "no cost or planner decision changes", though pulumi up deletes both
def test_diff_reports_network_route_changes(tmp_path: Path) -> None:
    eu = REPO / "stacks" / "policies" / "eu-prod.yaml"
    head = tmp_path / "head.yaml"
    head.write_text(f"apiVersion: seedance.io/v1\nkind: CostPolicy\nextends: {eu}\nnetwork:\n  existingEndpoints: [s3, dynamodb]\n")
    text = " ".join(_invoke("diff", str(eu), str(head), "--no-plan")[1].split())
    assert "no cost or planner decision changes" not in text
    assert ("network: s3 route: the stack no longer declares its s3 endpoint: pulumi up deletes it; its traffic then "
            "uses the VPC's existing endpoint") in text
    assert "network: dynamodb route: the stack no longer declares its dynamodb endpoint: pulumi up deletes it" in text
    report = json.loads(_invoke("diff", str(eu), str(head), "--no-plan", "-f", "json")[1])
    assert {(d["fleet"], d["decision"], d["before"], d["after"]) for d in report["decisions"]} == {
        ("(network)", s + " route", "the stack's gateway endpoint", "the VPC's existing endpoint (network.existingEndpoints)")
        for s in ("s3", "dynamodb")}
    markdown = _invoke("diff", str(eu), str(head), "--no-plan", "-f", "markdown")[1]
    assert "No cost or planner decision changes" not in markdown
    assert "| (network) | s3 route | the stack's gateway endpoint |" in markdown
    assert "pulumi up deletes it" in markdown


def test_diff_says_which_endpoint_the_stack_creates(tmp_path: Path) -> None:
    # the reverse change: the VPC's existing endpoints become the stack's own again ("an interface
    # endpoint", not "a interface endpoint")
    eu = REPO / "stacks" / "policies" / "eu-prod.yaml"
    base = tmp_path / "base.yaml"
    base.write_text(f"apiVersion: seedance.io/v1\nkind: CostPolicy\nextends: {eu}\nnetwork:\n  existingEndpoints: [s3, ecr.dkr]\n")
    text = " ".join(_invoke("diff", str(base), str(eu), "--no-plan")[1].split())
    assert "network: s3 route: the stack creates a gateway endpoint for s3" in text
    assert "network: ecr.dkr route: the stack creates an interface endpoint for ecr.dkr" in text
