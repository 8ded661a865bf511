"""Read a stack's AWS Budget directly (``budgets:DescribeBudget``) instead of waiting for its SNS alert.

A pipeline without an SNS endpoint can run ``seedance budget poll`` on a schedule: the budget that
``BudgetGuard`` creates (``seedance-<stack>-monthly``) is read with boto3, its actual (or
forecasted) spend becomes a :class:`~seedance.budget.events.BudgetAlert`, and the same pure
:func:`~seedance.budget.response.respond` applies the policy's thresholds.

:func:`alert_from_budget` is pure (the DescribeBudget ``Budget`` structure in, an alert out);
:func:`fetch_budget` is the only call to AWS.
"""

from __future__ import annotations

import datetime as dt
import math
from typing import Any

from seedance.budget.events import BudgetAlert

#: AWS Budgets is a global service; its API endpoint lives in one region per partition.
BUDGETS_REGION = {"aws": "us-east-1", "aws-cn": "cn-northwest-1"}


class BudgetStatusError(Exception):
    """The budget cannot be read, or its answer cannot be turned into an alert."""


def budget_name(stack: str) -> str:
    """The name BudgetGuard gives the stack's budget."""
    return f"seedance-{stack}-monthly"


def budgets_region(policy_region: str) -> str:
    return BUDGETS_REGION["aws-cn" if policy_region.startswith("cn-") else "aws"]


def _spend(value: Any, what: str) -> tuple[float, str]:
    if not isinstance(value, dict) or "Amount" not in value or "Unit" not in value:
        raise BudgetStatusError(f"the budget has no {what} (Amount and Unit)")
    raw = value["Amount"]
    shown = _shown(raw)
    try:
        amount = float(raw)
    except (TypeError, ValueError):
        raise BudgetStatusError(f"{what}.Amount is not a number: {shown}") from None
    # float() also reads 'NaN', 'inf' and '1e400' (infinity): no spend or budget is any of them, and
    # none may reach the thresholds (an alert's own amounts are refused the same way)
    if not math.isfinite(amount) or amount < 0:
        raise BudgetStatusError(f"{what}.Amount is not a finite amount >= 0: {shown}")
    return amount, str(value["Unit"])


def alert_from_budget(budget: dict[str, Any], *, alert_type: str = "ACTUAL", account: str | None = None,
                      now: dt.datetime | None = None) -> BudgetAlert:
    """The alert a notification at this moment would carry: the ACTUAL or FORECASTED spend of ``budget``."""
    if alert_type not in ("ACTUAL", "FORECASTED"):
        raise BudgetStatusError(f"alert type must be ACTUAL or FORECASTED, got {alert_type!r}")
    name = budget.get("BudgetName")
    if not isinstance(name, str) or not name:
        raise BudgetStatusError("the budget has no BudgetName")
    limit, limit_unit = _spend(budget.get("BudgetLimit"), "BudgetLimit")
    calculated = budget.get("CalculatedSpend") or {}
    if not isinstance(calculated, dict):
        raise BudgetStatusError(f"CalculatedSpend is not a mapping of ActualSpend and ForecastedSpend: {_shown(calculated)}")
    key = "ActualSpend" if alert_type == "ACTUAL" else "ForecastedSpend"
    if key == "ForecastedSpend" and calculated.get(key) is None:
        # optional in DescribeBudget's answer: AWS forecasts only once it has enough usage history
        raise BudgetStatusError("the budget holds no forecast yet (CalculatedSpend.ForecastedSpend: AWS gives one "
                                "only once it has enough usage history); poll the actual spend (without --forecasted)")
    amount, unit = _spend(calculated.get(key), f"CalculatedSpend.{key}")
    if unit != limit_unit:
        raise BudgetStatusError(f"{key} is in {unit} but the budget limit in {limit_unit}")
    moment = now or dt.datetime.now(dt.UTC)
    _check_current(budget, moment)
    stamp = moment.replace(microsecond=0).isoformat().replace("+00:00", "Z")
    return BudgetAlert(
        budget_name=name,
        alert_type=alert_type,
        period="month",
        budgeted_amount=limit,
        threshold_amount=None,
        amount=amount,
        currency=unit,
        account=account,
        timestamp=stamp,
        topic_arn=None,
    )


def _check_current(budget: dict[str, Any], now: dt.datetime) -> None:
    """Refuse a budget whose spend is not this month's: not MONTHLY, outside its TimePeriod, or not updated.

    A notification says which period its spend is for; a budget read directly is checked for it
    instead. BudgetGuard creates a MONTHLY budget that starts at the month it is created and
    has no end (AWS's default end, 2087-06-15); anything else was changed outside the stack.
    """
    time_unit = budget.get("TimeUnit")
    if time_unit != "MONTHLY":
        raise BudgetStatusError(f"the budget's TimeUnit is {_shown(time_unit)}, not MONTHLY, so its spend is not "
                                "the month's (the stack creates it MONTHLY: was it changed outside the stack?)")
    period = budget.get("TimePeriod")
    if period is not None and not isinstance(period, dict):
        raise BudgetStatusError(f"TimePeriod is not a mapping of Start and End: {_shown(period)}")
    period = period or {}
    start = _moment(period.get("Start"), "TimePeriod.Start")
    end = _moment(period.get("End"), "TimePeriod.End")
    if start is not None and start > now:
        raise BudgetStatusError(f"the budget starts at {_stamp(start)}, after now ({_stamp(now)}): it holds no spend "
                                "for this month (was its TimePeriod changed outside the stack?)")
    if end is not None and end <= now:
        raise BudgetStatusError(f"the budget ended at {_stamp(end)} (it is {_stamp(now)}): its spend is not this "
                                "month's, and AWS deletes a budget after its end")
    health = budget.get("HealthStatus")
    if isinstance(health, dict) and health.get("Status") == "UNHEALTHY":
        reason = health.get("StatusReason")
        why = f" ({_shown(reason)})" if reason is not None else ""
        raise BudgetStatusError(f"AWS reports the budget UNHEALTHY{why}: its spend is not being updated, so it "
                                "cannot say what this month has cost")


def _moment(value: Any, what: str) -> dt.datetime | None:
    """A TimePeriod bound as boto3 returns it (a datetime), or as epoch seconds; None when absent."""
    if value is None:
        return None
    if isinstance(value, dt.datetime):
        return value if value.tzinfo is not None else value.replace(tzinfo=dt.UTC)
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
        try:
            return dt.datetime.fromtimestamp(value, dt.UTC)
        except (OverflowError, OSError, ValueError):
            pass
    raise BudgetStatusError(f"{what} is not a time: {_shown(value)}")


def _stamp(moment: dt.datetime) -> str:
    return moment.astimezone(dt.UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:40] + "…"


def fetch_budget(client: Any, account_id: str, name: str) -> dict[str, Any]:
    """``DescribeBudget`` for ``name``; a clear :class:`BudgetStatusError` when it cannot be read."""
    from botocore.exceptions import BotoCoreError, ClientError

    from seedance.awsclient import unreadable_answer_errors

    try:
        answer = client.describe_budget(AccountId=account_id, BudgetName=name)
    except unreadable_answer_errors() as exc:
        raise BudgetStatusError(f"DescribeBudget {name!r}: the answer is not an AWS Budgets response "
                                f"({type(exc).__name__}: {exc}); check the endpoint (AWS_ENDPOINT_URL_BUDGETS, "
                                "a proxy)") from None
    except ClientError as exc:
        code = exc.response.get("Error", {}).get("Code", "")
        msg = exc.response.get("Error", {}).get("Message", str(exc))
        if code == "NotFoundException":
            raise BudgetStatusError(f"no budget named {name!r} in account {account_id} (is the stack deployed?)") from None
        raise BudgetStatusError(f"DescribeBudget {name!r} failed: {code}: {msg}") from None
    except BotoCoreError as exc:
        raise BudgetStatusError(f"DescribeBudget {name!r} failed: {exc}") from None
    budget = answer.get("Budget") if isinstance(answer, dict) else None
    if not isinstance(budget, dict):  # an HTML page with status 200 parses to no Budget at all
        raise BudgetStatusError(f"DescribeBudget {name!r}: the answer holds no Budget, so it is not an AWS Budgets "
                                "response; check the endpoint (AWS_ENDPOINT_URL_BUDGETS, a proxy)")
    return dict(budget)
