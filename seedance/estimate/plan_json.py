"""Read a plan written by ``plan.to_json()`` (``--plan PLAN.json``) back into the Plan dataclasses."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

from seedance.planner.plan import FleetPlan, InstanceChoice, Plan
from seedance.pricing.catalog import PricingError


def plan_from_json(data: dict[str, Any], *, origin: str = "plan") -> Plan:
    """A :class:`Plan` from its JSON form; a clear error naming the missing or bad field."""
    try:
        fleets = []
        for i, f in enumerate(data["fleets"]):
            where = f"fleets[{i}]"
            try:
                choices = [InstanceChoice(**c) for c in f["instance_types"]]
                fleets.append(
                    FleetPlan(
                        name=f["name"],
                        instance_types=choices,
                        reserved_units=int(f["reserved_units"]),
                        new_purchases=[(str(t), int(n)) for t, n in f.get("new_purchases", [])],
                        on_demand_base=int(f["on_demand_base"]),
                        spot_share_above_base=float(f["spot_share_above_base"]),
                        allocation_strategy=f.get("allocation_strategy", ""),
                        checkpoint_interval_s=f.get("checkpoint_interval_s"),
                        checkpoint_overhead=f.get("checkpoint_overhead"),
                        min_size=int(f["min_size"]),
                        max_size=int(f["max_size"]),
                        desired=int(f["desired"]),
                        rationale=dict(f.get("rationale", {})),
                        **_optional(FleetPlan, f),
                    )
                )
            except KeyError as exc:
                raise PricingError(f"{origin}: {where}: missing field {exc.args[0]!r}") from None
            except TypeError as exc:
                raise PricingError(f"{origin}: {where}: {exc}") from None
        return Plan(
            policy=data["policy"],
            environment=data.get("environment", ""),
            region=data["region"],
            currency=data.get("currency", ""),
            fleets=fleets,
            monthly_cost=float(data.get("monthly_cost", 0.0)),
            monthly_cost_all_ondemand=float(data.get("monthly_cost_all_ondemand", 0.0)),
            savings=float(data.get("savings", 0.0)),
            **_optional(Plan, data),
        )
    except KeyError as exc:
        raise PricingError(f"{origin}: missing field {exc.args[0]!r} (expected the JSON of `seedance plan`)") from None
    except (TypeError, ValueError, AttributeError) as exc:
        raise PricingError(f"{origin}: not a plan ({exc}); expected the JSON of `seedance plan`") from None


_READ = {
    "name", "instance_types", "reserved_units", "new_purchases", "on_demand_base", "spot_share_above_base",
    "allocation_strategy", "checkpoint_interval_s", "checkpoint_overhead", "min_size", "max_size", "desired",
    "rationale", "policy", "environment", "region", "currency", "fleets", "monthly_cost",
    "monthly_cost_all_ondemand", "savings",
}


def _optional(cls: type, data: dict[str, Any]) -> dict[str, Any]:
    """Fields the planner added to its dataclasses beyond the contract (passed through when present)."""
    names = {f.name for f in dataclasses.fields(cls)} - _READ
    return {k: data[k] for k in names if k in data}


def read_plan(path: Path) -> Plan:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise PricingError(f"{path}: cannot read the plan ({exc.strerror})") from None
    except json.JSONDecodeError as exc:
        raise PricingError(f"{path}:{exc.lineno}:{exc.colno}: not JSON ({exc.msg})") from None
    if not isinstance(data, dict):
        raise PricingError(f"{path}: expected a JSON object (the output of `seedance plan`)")
    if isinstance(data.get("plan"), dict):  # accept a wrapper {"plan": {...}}
        data = data["plan"]
    return plan_from_json(data, origin=str(path))
