"""`estimate --plan`: a plan's reserved units are what the planner makes them, the units the policy
holds (reserved.held) plus the plan's new purchases within what capacity.max can run. A plan that
reserves units the policy does not hold (under reserved.mode none, or beyond capacity) is refused,
never priced at the cheaper reserved rate."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest

from seedance.cli import main
from seedance.estimate.plan_json import plan_problems
from seedance.planner.planner import plan_policy
from seedance.policy import load_policy
from seedance.pricing import load_catalog

REPO = Path(__file__).resolve().parents[2]
POLICIES = REPO / "stacks" / "policies"
AS_OF = "2024-05-30"


def _plan(policy: Path) -> dict[str, Any]:
    plan = plan_policy(load_policy(policy), load_catalog(), as_of=dt.date.fromisoformat(AS_OF))
    return json.loads(json.dumps(plan.to_json()))


def _fleet(doc: dict[str, Any], name: str) -> dict[str, Any]:
    return next(f for f in doc["fleets"] if f["name"] == name)


def _estimate(tmp_path: Path, capsys: pytest.CaptureFixture[str], policy: Path, doc: dict[str, Any]) -> tuple[int, str, str]:
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(doc))
    capsys.readouterr()
    code = main(["estimate", "-f", "json", str(policy), "--plan", str(path)])
    out, err = capsys.readouterr()
    return code, out, err


def _holding(tmp_path: Path, units: int, mode: str = "none") -> Path:
    """dev with batch-embed (capacity.max 4) holding ``units`` 1y units bought before the plan's date."""
    p = tmp_path / f"held-{mode}-{units}.yaml"
    p.write_text(f"apiVersion: seedance.io/v1\nkind: CostPolicy\nextends: {POLICIES / 'dev.yaml'}\nfleets:\n"
                 f"  - name: batch-embed\n    reserved: {{mode: {mode}, term: 1y, held: [{{units: {units}, term: 1y, "
                 "purchased: 2024-01-10}]}\n")
    return p


def test_reserved_units_where_the_policy_reserves_none(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    policy = POLICIES / "eu-prod.yaml"
    doc = _plan(policy)
    assert _estimate(tmp_path, capsys, policy, doc)[0] == 0  # the plan as written is priced
    ev = _fleet(doc, "eval")  # reserved: {mode: none}, capacity.max 2
    cap = ev["max_size"]
    ev["reserved_units"] = cap + 3  # lowered the bill, exit 0
    code, out, err = _estimate(tmp_path, capsys, policy, doc)
    assert code == 1 and out == "", err
    assert (f"fleet 'eval': reserved_units {cap + 3}, but the policy's reserved.mode is none and the policy holds 0 "
            f"unit(s) through the month a plan of {AS_OF} prices (reserved.held)") in err
    assert f"fleet 'eval': reserved_units {cap + 3} is more than capacity.max {cap} could run plus the 0 unit(s)" in err
    assert "Traceback" not in err and "internal error" not in err
    ev["reserved_units"] = 1  # within capacity, still none held
    code, _, err = _estimate(tmp_path, capsys, policy, doc)
    assert code == 1 and "fleet 'eval': reserved_units 1, but the policy's reserved.mode is none" in err
    assert "could run" not in err


def test_the_auditors_plan_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    bad = Path("/tmp/rt33b/eu.bad3.plan.json")
    if not bad.is_file():
        pytest.skip("the auditor's file is not on this machine")
    assert main(["estimate", str(POLICIES / "eu-prod.yaml"), "--plan", str(bad), "--as-of", AS_OF]) == 1
    assert "fleet 'eval': reserved_units 5, but the policy's reserved.mode is none" in capsys.readouterr().err


def test_units_the_policy_holds_are_allowed_and_no_more(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    policy = _holding(tmp_path, 2)
    doc = _plan(policy)
    emb = _fleet(doc, "batch-embed")
    assert emb["reserved_units"] == 2 and emb["new_purchases"] == []  # mode none: kept, none bought
    assert _estimate(tmp_path, capsys, policy, doc)[0] == 0
    emb["reserved_units"] = 3
    code, _, err = _estimate(tmp_path, capsys, policy, doc)
    assert code == 1
    assert (f"fleet 'batch-embed': reserved_units 3, but the policy's reserved.mode is none and the policy holds 2 "
            f"unit(s) through the month a plan of {AS_OF} prices (reserved.held)") in err
    emb["reserved_units"] = 2 + emb["max_size"] + 1  # beyond what is held and what the group could run
    code, _, err = _estimate(tmp_path, capsys, policy, doc)
    assert code == 1
    assert (f"fleet 'batch-embed': reserved_units {2 + emb['max_size'] + 1} is more than capacity.max "
            f"{emb['max_size']} could run plus the 2 unit(s) the policy holds") in err


def test_held_units_above_capacity_are_kept_not_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # held units are never reduced: above capacity.max they are billed idle, as the planner plans them
    policy = _holding(tmp_path, 10, mode="auto")
    doc = _plan(policy)
    assert _fleet(doc, "batch-embed")["reserved_units"] >= 10
    code, _, err = _estimate(tmp_path, capsys, policy, doc)
    assert code == 0, err


def test_reserved_units_beyond_purchases_and_holdings(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    policy = POLICIES / "dev.yaml"
    doc = _plan(policy)
    inf = _fleet(doc, "inference")  # reserved.mode auto, nothing held
    bought = sum(n for _, n in inf["new_purchases"])
    inf["reserved_units"] = bought + 1
    code, _, err = _estimate(tmp_path, capsys, policy, doc)
    assert code == 1
    assert (f"fleet 'inference': reserved_units {bought + 1} is more than its new_purchases ({bought} unit(s)) and "
            f"the units already held: the policy holds 0 unit(s) through the month a plan of {AS_OF} prices") in err


@pytest.mark.parametrize("name", ["dev", "eu-prod", "cn-prod"])
def test_every_fresh_plan_fits(name: str) -> None:
    loaded, catalog = load_policy(POLICIES / f"{name}.yaml"), load_catalog()
    for cluster in (True, False):
        plan = plan_policy(loaded, catalog, as_of=dt.date.fromisoformat(AS_OF), cluster=cluster)
        assert plan_problems(plan, loaded.policy, catalog, loaded.policy.cloud.region) == []


def test_a_plan_made_with_held_is_priced_as_it_records(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`plan --held FLEET=N` replaces the policy's reserved.held: the plan records it, and `estimate
    --plan` checks its reserved units against those units, not the policy's (which hold none here)."""
    policy = POLICIES / "eu-prod.yaml"
    out = tmp_path / "held.json"
    capsys.readouterr()
    assert main(["plan", str(policy), "--as-of", AS_OF, "--held", "eval=1", "-f", "json", "--out", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert doc["held"] == {"eval": 1}
    assert _fleet(doc, "eval")["reserved_units"] == 1
    assert _estimate(tmp_path, capsys, policy, doc)[0] == 0
    # the same plan without the record reserves a unit the policy does not hold
    code, _, err = _estimate(tmp_path, capsys, policy, {**doc, "held": None})
    assert code == 1 and "reserved_units 1" in err and "reserved.mode is none" in err
    # a malformed record is refused
    code, _, err = _estimate(tmp_path, capsys, policy, {**doc, "held": {"eval": "1"}})
    assert code == 1 and "held: expected null or an object" in err
