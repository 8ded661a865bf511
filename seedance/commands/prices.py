"""``seedance prices``: rebuild the bundled catalog, refresh live prices, show offers."""

from __future__ import annotations

from pathlib import Path

import click

from seedance.commands.outputs import NonEmptyPath
from seedance.pricing.catalog import PricingError


#: How many of the asked instance types an error names before "and N more".
_SHOWN_TYPES = 8


def default_cache_dir() -> Path:
    from seedance.pricing.catalog import default_refresh_dir

    return default_refresh_dir()


@click.group()
def prices() -> None:
    """Price catalog: build it from the shared data, refresh it from AWS, look prices up."""


@prices.command("build")
@click.option("--shared", "shared", type=NonEmptyPath(path_type=Path, file_okay=False), default=None,
              help="Shared data directory (default: $SEEDANCE_SHARED_DATA or <repo>/../shared/data).")
@click.option("--out", "out", type=NonEmptyPath(path_type=Path, dir_okay=False), default=None,
              help="Output file (default: the bundled seedance/data/price_catalog.json).")
def build_cmd(shared: Path | None, out: Path | None) -> int:
    """Rebuild the price catalog from the shared public data."""
    from seedance.cli import console
    from seedance.commands.outputs import require_out_directory
    from seedance.pricing.build import build_catalog, write_catalog

    err = console(stderr=True)
    require_out_directory(out)  # as plan, synth and budget --out: never made up
    try:
        doc = build_catalog(shared)
        path = write_catalog(doc, out)  # whole or not at all
    except PricingError as exc:
        err.print(f"error: {exc}", markup=False)
        return 1
    except OSError as exc:
        err.print(f"error: cannot write {out or 'the bundled catalog'}: {exc.strerror or exc}", markup=False)
        return 1
    console().print(
        f"wrote {path} ({len(doc['instances'])} instance offers, {len(doc['services'])} service prices, "
        f"{len(doc['region_currency'])} regions)",
        markup=False,
    )
    return 0


@prices.command("refresh")
@click.option("--region", required=True, help="AWS region to refresh, e.g. eu-central-1.")
@click.option("--cache-dir", type=NonEmptyPath(path_type=Path, file_okay=False), default=None,
              help="Cache directory (default: $SEEDANCE_PRICE_CACHE or ~/.cache/seedance/prices).")
@click.option("--instance-type", "instance_types", multiple=True, help="Instance types (default: the catalog's for the region).")
def refresh_cmd(region: str, cache_dir: Path | None, instance_types: tuple[str, ...]) -> int:
    """Fetch current prices from AWS (Price List API, spot price history) into the local cache."""
    from botocore.exceptions import BotoCoreError, ClientError

    from seedance.awsclient import error_code
    from seedance.cli import console
    from seedance.pricing.refresh import default_instance_types, refresh_region, write_cache

    err = console(stderr=True)
    try:
        doc = refresh_region(region, instance_types=list(instance_types) or None)
    except PricingError as exc:
        err.print(f"error: {exc}", markup=False)
        return 1
    except (BotoCoreError, ClientError) as exc:
        hint = (f"{region} must be enabled for the account (an opt-in region) before it can be refreshed"
                if error_code(exc) == "OptInRequired" else "credentials and network access are needed for a refresh")
        err.print(f"error: AWS call failed: {exc} ({hint})", markup=False)
        return 1
    if not doc["instances"]:  # nothing priced: the old cache stays as it was
        asked = sorted(set(instance_types)) or default_instance_types(region)
        shown = ", ".join(asked[:_SHOWN_TYPES]) + (f" and {len(asked) - _SHOWN_TYPES} more" if len(asked) > _SHOWN_TYPES else "")
        err.print(f"error: the Price List API returned no Linux on-demand price for {shown} in {region}; "
                  f"the price cache is left as it was", markup=False)
        return 1
    try:
        path = write_cache(doc, cache_dir or default_cache_dir())
    except PricingError as exc:  # the answer is not a cache the catalog would read: nothing is written
        err.print(f"error: {exc}", markup=False)
        return 1
    except OSError as exc:
        err.print(f"error: cannot write the price cache in {cache_dir or default_cache_dir()}: {exc.strerror or exc}",
                  markup=False)
        return 1
    console().print(
        f"wrote {path}: {len(doc['instances'])} instance type(s) in {region}; "
        f"estimate with --cache-dir {path.parent} (or SEEDANCE_PRICE_CACHE)",
        markup=False,
    )
    return 0


@prices.command("show")
@click.argument("region")
@click.argument("instance_type", required=False)
@click.option("--cache-dir", type=NonEmptyPath(path_type=Path, file_okay=False), default=None, envvar="SEEDANCE_PRICE_CACHE",
              help="Overlay this refresh cache (default: $SEEDANCE_PRICE_CACHE, else none).")
def show_cmd(region: str, instance_type: str | None, cache_dir: Path | None) -> int:
    """Show the offers of REGION (or one INSTANCE_TYPE) with their sources."""
    from rich.table import Table

    from seedance.cli import console
    from seedance.pricing.catalog import load_catalog

    out = console()
    try:
        catalog = load_catalog(cache_dir=cache_dir)
        offers = [catalog.instance(region, instance_type)] if instance_type else catalog.instances(region)
    except PricingError as exc:
        console(stderr=True).print(f"error: {exc}", markup=False)
        return 1
    cur = catalog.currency(region)
    table = Table(title=f"{region} ({cur} per instance-hour)")
    for col in ("type", "vCPU", "GiB", "GPUs", "on-demand", "RI 1y no-upfront", "spot avg", "band", "on-demand source"):
        table.add_column(col)
    from seedance.policy.model import PaymentOption, Term

    for o in offers:
        ri = o.reserved.get((Term.ONE_YEAR, PaymentOption.NO_UPFRONT))
        gpus = f"{o.gpus} x {o.gpu_model.value}" if o.gpu_model else str(o.gpus)
        table.add_row(
            o.instance_type, str(o.vcpu), f"{o.memory_gib:g}", gpus, f"{o.ondemand.value:g}",
            f"{ri.value:g}" if ri else "-", f"{o.spot_avg.value:g}" if o.spot_avg else "-",
            o.interruption_band or "-", f"{o.ondemand.source} ({o.ondemand.date})",
        )
    out.print(table)
    return 0
