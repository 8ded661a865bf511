"""CloudWatch Logs: ingestion and stored data of the stack's log groups.

Ingestion is the policy's ``network.monthlyTrafficGb.logs`` (the traffic sent to the CloudWatch
Logs API is the log data).  Stored data in steady state is ingestion × retention (in months of
30.42 days) — an upper bound, because CloudWatch bills stored data after compression, whose ratio
the policy does not give.  Without a ``logs`` traffic figure both depend on usage.
"""

from __future__ import annotations

from dataclasses import dataclass

from seedance.estimate.components import DAYS_PER_MONTH, CostComponent, Rate, ResourceCost, depends_on_usage, lookup, priced
from seedance.estimate.context import EstimateContext
from seedance.policy.model import EndpointService
from seedance.pricing.catalog import Catalog

KIND = "logs"
SERVICE = "CloudWatchLogs"


@dataclass(frozen=True)
class LogsUsage:
    monthly_ingest_gb: float | None
    retention_days: int


@dataclass(frozen=True)
class LogsPrices:
    ingestion: Rate
    storage: Rate


def logs_prices(catalog: Catalog, region: str) -> LogsPrices:
    return LogsPrices(
        ingestion=lookup(catalog, region, "CloudWatchLogs", "ingestion_standard"),
        storage=lookup(catalog, region, "CloudWatchLogs", "storage_archival"),
    )


def cost_components(u: LogsUsage, p: LogsPrices, currency: str) -> list[CostComponent]:
    storage_name = f"Stored data (uncompressed upper bound, {u.retention_days}-day retention)"
    if u.monthly_ingest_gb is None:
        what = "the policy gives no log volume (network.monthlyTrafficGb.logs)"
        return [
            depends_on_usage("Data ingested (Standard)", "GB", p.ingestion, currency, what),
            depends_on_usage(storage_name, "GB-months", p.storage, currency, what),
        ]
    stored = u.monthly_ingest_gb * u.retention_days / DAYS_PER_MONTH
    return [
        priced("Data ingested (Standard)", "GB", u.monthly_ingest_gb, p.ingestion, currency),
        priced(storage_name, "GB-months", stored, p.storage, currency),
    ]


def resources(ctx: EstimateContext) -> list[ResourceCost]:
    gb = ctx.policy.network.monthly_traffic_gb.get(EndpointService.LOGS)
    usage = LogsUsage(None if gb is None else float(gb), ctx.policy.compliance.log_retention_days)
    comps = cost_components(usage, logs_prices(ctx.catalog, ctx.region), ctx.currency)
    return [ResourceCost(KIND, "log-groups", SERVICE, comps, tags=ctx.tags())]
