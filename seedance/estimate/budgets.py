"""AWS Budgets and the SNS notifications of the policy's budget.

One budget per stack, without AWS budget actions (Seedance's degrade/freeze thresholds are
enforced by the gate, not by budget actions): billed per budget-day at the data's rate.  Each
threshold notifies at most once a month, so notifications per month are at most
thresholds × e-mail recipients, and SNS publishes at most one per threshold; the first 1,000
e-mail notifications a month are free (the data row's tier note).
"""

from __future__ import annotations

from dataclasses import dataclass

from seedance.estimate.components import DAYS_PER_MONTH, CostComponent, Rate, ResourceCost, lookup, priced
from seedance.estimate.context import EstimateContext
from seedance.pricing.catalog import Catalog

KIND = "budgets"
SERVICE = "Budgets"
SNS_SERVICE = "SNS"

SNS_FREE_EMAILS_PER_MONTH = 1000  # service_list_prices.csv SNS/email_notifications tier note


@dataclass(frozen=True)
class BudgetUsage:
    budgets: int
    thresholds: int
    email_recipients: int


@dataclass(frozen=True)
class BudgetPrices:
    budget_day: Rate
    sns_publish: Rate
    sns_email: Rate


def budget_prices(catalog: Catalog, region: str) -> BudgetPrices:
    return BudgetPrices(
        budget_day=lookup(catalog, region, "Budgets", "budget_without_actions_per_day"),
        sns_publish=lookup(catalog, region, "SNS", "publish_requests_standard"),
        sns_email=lookup(catalog, region, "SNS", "email_notifications"),
    )


def budget_components(u: BudgetUsage, p: BudgetPrices, currency: str) -> list[CostComponent]:
    return [priced("Budget (without actions)", "budget-days", u.budgets * DAYS_PER_MONTH, p.budget_day, currency)]


def sns_components(u: BudgetUsage, p: BudgetPrices, currency: str) -> list[CostComponent]:
    if u.thresholds == 0:
        return []
    out = [priced("Publish requests (threshold alerts)", "1M requests", u.thresholds / 1e6, p.sns_publish, currency)]
    emails = u.thresholds * u.email_recipients
    if emails:
        billable = max(emails - SNS_FREE_EMAILS_PER_MONTH, 0)
        out.append(
            priced(
                f"Email notifications (at most {emails}, first {SNS_FREE_EMAILS_PER_MONTH} free)",
                "100k notifications", billable / 1e5, p.sns_email, currency,
            )
        )
    return out


def resources(ctx: EstimateContext) -> list[ResourceCost]:
    b = ctx.policy.budget
    usage = BudgetUsage(1, len(b.thresholds), len(b.notify.emails))
    prices = budget_prices(ctx.catalog, ctx.region)
    out = [ResourceCost(KIND, "budget", SERVICE, budget_components(usage, prices, ctx.currency), tags=ctx.tags())]
    sns = sns_components(usage, prices, ctx.currency)
    if sns:
        note = "existing topic " + b.notify.sns_topic_arn if b.notify.sns_topic_arn else "topic created by the stack"
        out.append(ResourceCost(KIND, "budget-alerts", SNS_SERVICE, sns, tags=ctx.tags(), notes=[note]))
    return out
