"""nonprod-spot-only raises a non-prod fleet's spot share; its reservations stay at the policy's plan,
as a freeze keeps them. Stopping them (reserved.mode none) priced the steady hours of a fleet the
planner keeps on-demand (a gold fleet with a low interruption tolerance) at the on-demand rate, so the
response raised the projected cost it was meant to lower."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from seedance.cli import main
from seedance.policy import load_policy
from tests.budget.test_budget import POLICIES, _monthly_alert


def test_nonprod_spot_only_never_prices_the_plans_reservations_on_demand(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    policy = tmp_path / "staging.yaml"
    policy.write_text(f"""apiVersion: seedance.io/v1
kind: CostPolicy
extends: {POLICIES / 'dev.yaml'}
metadata: {{name: gpu-platform-staging, environment: staging}}
budget:
  monthlyAmount: 6000
  currency: USD
  thresholds:
    - {{at: 0.5, action: notify}}
    - {{at: 0.95, action: nonprod-spot-only}}
fleets:
  - name: inference
    sla: gold
    core: true
    capacity: {{min: 2, desired: 4, max: 8}}
    spot: {{maxShare: 0.3, interruptionTolerance: low}}
""")
    event = tmp_path / "alert.json"
    account = load_policy(policy).policy.cloud.account_id  # dev's, which it extends
    event.write_bytes(_monthly_alert("seedance-staging-monthly", "6,000.00", "5,760.00", account=account))
    assert main(["budget", "respond", str(policy), str(event), "--stack", "staging", "-f", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    changes = {c["path"]: (c["before"], c["after"]) for c in doc["changes"]}
    assert changes["fleets[inference].spot.maxShare"] == (0.3, 0.5)
    # the plan reserves the gold fleet's steady units: kept, fixed, not dropped
    mode, units = changes["fleets[inference].reserved.mode"], changes["fleets[inference].reserved.units"]
    assert mode == ("auto", "fixed") and units[1] >= 1
    assert doc["projection"]["overlay"] <= doc["projection"]["policy"]
