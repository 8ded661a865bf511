"""Live price refresh.

EC2 (spot price history) is a real moto server on 127.0.0.1, reached by boto3 over HTTP exactly as
production reaches AWS. moto implements no Pricing API, so ``pricing.get_products`` is fed through
botocore's Stubber, which checks every request and response against the botocore service model;
the PriceList entries follow the documented Price List shape.
"""

from __future__ import annotations

import csv
import datetime as dt
import json
import logging
import os
from pathlib import Path

import boto3
import pytest
from botocore.stub import Stubber
from click.testing import CliRunner

from seedance.cli import app
from seedance.estimate import FleetUsage, fleet_components
from seedance.policy.model import PaymentOption, Term
from seedance.pricing import UnknownRegionError, load_catalog
from seedance.pricing.catalog import PriceDataError
from seedance.pricing.refresh import (
    PRICING_SOURCE,
    SPOT_SOURCE,
    parse_product,
    parse_spot_history,
    product_filters,
    refresh_region,
    write_cache,
)

NOW = dt.datetime(2026, 3, 1, 12, 0, tzinfo=dt.timezone.utc)


def _product(itype: str, sku: str, od: str, ri_no: str, ri_all_upfront: str, currency: str = "USD",
             region: str = "us-east-1") -> str:
    """One PriceList entry of ``region``: a JSON string with product, terms.OnDemand and terms.Reserved."""
    return json.dumps({
        "product": {
            "productFamily": "Compute Instance",
            "sku": sku,
            "attributes": {
                "instanceType": itype, "vcpu": "4", "memory": "16 GiB", "gpu": "1", "gpuMemory": "24 GiB",
                "location": "US East (N. Virginia)", "operatingSystem": "Linux", "tenancy": "Shared",
                "preInstalledSw": "NA", "capacitystatus": "Used", "regionCode": region, "locationType": "AWS Region",
                "marketoption": "OnDemand",
            },
        },
        "serviceCode": "AmazonEC2",
        "terms": {
            "OnDemand": {
                f"{sku}.JRTCKXETXF": {
                    "offerTermCode": "JRTCKXETXF", "sku": sku, "effectiveDate": "2026-02-01T00:00:00Z",
                    "priceDimensions": {f"{sku}.JRTCKXETXF.6YS6EN2CT7": {
                        "unit": "Hrs", "description": f"${od} per On Demand Linux {itype} Instance Hour",
                        "beginRange": "0", "endRange": "Inf", "rateCode": f"{sku}.JRTCKXETXF.6YS6EN2CT7",
                        "pricePerUnit": {currency: od}}},
                    "termAttributes": {},
                },
            },
            "Reserved": {
                f"{sku}.4NA7Y494T4": {
                    "offerTermCode": "4NA7Y494T4", "sku": sku,
                    "termAttributes": {"LeaseContractLength": "1yr", "OfferingClass": "standard", "PurchaseOption": "No Upfront"},
                    "priceDimensions": {f"{sku}.4NA7Y494T4.6YS6EN2CT7": {"unit": "Hrs", "pricePerUnit": {currency: ri_no}}},
                },
                f"{sku}.6QCMYABX3D": {
                    "offerTermCode": "6QCMYABX3D", "sku": sku,
                    "termAttributes": {"LeaseContractLength": "1yr", "OfferingClass": "standard", "PurchaseOption": "All Upfront"},
                    "priceDimensions": {
                        f"{sku}.6QCMYABX3D.2TG2D8R56U": {"unit": "Quantity", "description": "Upfront Fee", "pricePerUnit": {currency: ri_all_upfront}},
                        f"{sku}.6QCMYABX3D.6YS6EN2CT7": {"unit": "Hrs", "pricePerUnit": {currency: "0.0000000000"}},
                    },
                },
                f"{sku}.7NE97W5U4E": {  # partial upfront: not in the catalog's keys, ignored
                    "offerTermCode": "7NE97W5U4E", "sku": sku,
                    "termAttributes": {"LeaseContractLength": "1yr", "OfferingClass": "standard", "PurchaseOption": "Partial Upfront"},
                    "priceDimensions": {f"{sku}.7NE97W5U4E.x": {"unit": "Hrs", "pricePerUnit": {currency: "0.3"}}},
                },
            },
        },
        "version": "20260201000000",
        "publicationDate": "2026-02-01T00:00:00Z",
    })


def _clients(moto_endpoint: str) -> tuple[object, object]:
    return boto3.client("pricing", region_name="us-east-1"), boto3.client("ec2", region_name="us-east-1", endpoint_url=moto_endpoint)


def _spot(az: str, price: str, ts: dt.datetime, itype: str = "g5.xlarge", product: str = "Linux/UNIX") -> dict:
    return {"AvailabilityZone": az, "InstanceType": itype, "ProductDescription": product, "SpotPrice": price, "Timestamp": ts}


def _stub_pricing(pricing) -> Stubber:  # type: ignore[no-untyped-def]
    ps = Stubber(pricing)
    base = {"ServiceCode": "AmazonEC2", "FormatVersion": "aws_v1", "MaxResults": 100}
    # first page carries NextToken: the refresh must follow it
    ps.add_response("get_products", {"FormatVersion": "aws_v1", "PriceList": [], "NextToken": "page-2"},
                    {**base, "Filters": product_filters("g5.xlarge", "us-east-1")})
    ps.add_response("get_products", {"FormatVersion": "aws_v1", "PriceList": [_product("g5.xlarge", "SKUG5XL", "1.0060000000", "0.6340000000", "5182")]},
                    {**base, "Filters": product_filters("g5.xlarge", "us-east-1"), "NextToken": "page-2"})
    ps.add_response("get_products", {"FormatVersion": "aws_v1", "PriceList": [_product("m5.xlarge", "SKUM5XL", "0.1920000000", "0.1210000000", "1033")]},
                    {**base, "Filters": product_filters("m5.xlarge", "us-east-1")})
    return ps


def test_spot_history_keeps_the_latest_price_of_each_az() -> None:
    history = [
        _spot("us-east-1a", "0.400000", NOW - dt.timedelta(hours=2)),
        _spot("us-east-1a", "0.500000", NOW - dt.timedelta(days=2)),  # older record of the same AZ: ignored
        _spot("us-east-1b", "0.380000", NOW - dt.timedelta(hours=5), product="Linux/UNIX (Amazon VPC)"),  # same product in a VPC
        _spot("us-east-1c", "0.100000", NOW - dt.timedelta(hours=1), product="Windows"),  # another product: ignored
        _spot("us-east-1a", "0.090000", NOW - dt.timedelta(hours=1), itype="m5.xlarge"),
    ]
    out = parse_spot_history(history)
    assert set(out) == {"g5.xlarge", "m5.xlarge"}
    g5 = out["g5.xlarge"]
    assert (g5["spot_avg"]["value"], g5["spot_min"]["value"], g5["spot_max"]["value"]) == (0.39, 0.38, 0.4)
    assert g5["spot_avg"]["ref"] == "ec2.describe_spot_price_history[g5.xlarge,us-east-1a,us-east-1b]"
    assert g5["spot_avg"]["date"] == NOW.date().isoformat()


def test_filters_match_the_documented_price_list_fields() -> None:
    assert product_filters("g5.xlarge", "eu-central-1") == [
        {"Type": "TERM_MATCH", "Field": "instanceType", "Value": "g5.xlarge"},
        {"Type": "TERM_MATCH", "Field": "regionCode", "Value": "eu-central-1"},
        {"Type": "TERM_MATCH", "Field": "locationType", "Value": "AWS Region"},
        {"Type": "TERM_MATCH", "Field": "operatingSystem", "Value": "Linux"},
        {"Type": "TERM_MATCH", "Field": "tenancy", "Value": "Shared"},
        {"Type": "TERM_MATCH", "Field": "preInstalledSw", "Value": "NA"},
        {"Type": "TERM_MATCH", "Field": "capacitystatus", "Value": "Used"},
    ]


def test_parse_product_effective_all_upfront_hourly() -> None:
    rec = parse_product(_product("g5.xlarge", "S", "1.0060000000", "0.6340000000", "5182"), "us-east-1")
    assert rec["currency"] == "USD" and rec["prices"]["ondemand"]["value"] == 1.006
    assert rec["prices"]["reserved"]["1y/no-upfront"]["value"] == 0.634
    assert rec["prices"]["reserved"]["1y/all-upfront"]["value"] == 0.591553  # 5182 / 8760
    assert set(rec["prices"]["reserved"]) == {"1y/no-upfront", "1y/all-upfront"}
    assert (rec["vcpu"], rec["memory_gib"], rec["gpus"], rec["gpu_memory_gib_total"]) == (4, 16.0, 1, 24.0)
    assert rec["prices"]["ondemand"]["ref"] == "pricing.get_products[sku=S,term=S.JRTCKXETXF]"


def test_refresh_writes_a_cache_that_overrides_the_bundled_catalog(tmp_path: Path, moto_endpoint: str, aws_env: None,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    pricing, ec2 = _clients(moto_endpoint)
    ps = _stub_pricing(pricing)
    with ps:
        doc = refresh_region("us-east-1", instance_types=["m5.xlarge", "g5.xlarge"], pricing_client=pricing, ec2_client=ec2, now=NOW)
        ps.assert_no_pending_responses()
    # what the EC2 endpoint answers over HTTP, read independently of the refresh
    answer = ec2.describe_spot_price_history(InstanceTypes=["g5.xlarge", "m5.xlarge"], ProductDescriptions=["Linux/UNIX"],
                                             StartTime=NOW)["SpotPriceHistory"]
    assert {e["InstanceType"] for e in answer} == {"g5.xlarge", "m5.xlarge"}
    served = parse_spot_history(answer)
    assert [r["instance_type"] for r in doc["instances"]] == ["g5.xlarge", "m5.xlarge"]
    path = write_cache(doc, tmp_path)
    assert path.name == "prices-us-east-1.json"

    bundled = load_catalog()
    cached = load_catalog(cache_dir=tmp_path)
    g5 = cached.instance("us-east-1", "g5.xlarge")
    assert g5.ondemand.source == PRICING_SOURCE and g5.ondemand.date == "2026-02-01"
    assert g5.reserved[(Term.ONE_YEAR, PaymentOption.NO_UPFRONT)].value == 0.634
    # a reserved key the refresh did not return keeps its bundled price
    assert g5.reserved[(Term.THREE_YEARS, PaymentOption.NO_UPFRONT)].value == 0.43459
    for key in ("spot_avg", "spot_min", "spot_max"):
        assert getattr(g5, key).value == served["g5.xlarge"][key]["value"]
    azs = sorted({e["AvailabilityZone"] for e in answer if e["InstanceType"] == "g5.xlarge"})
    assert g5.spot_avg.ref == f"ec2.describe_spot_price_history[g5.xlarge,{','.join(azs)}]"
    assert g5.spot_avg.source == SPOT_SOURCE and g5.spot_avg.date == served["g5.xlarge"]["spot_avg"]["date"]
    assert g5.gpu_model is not None and g5.interruption_band == ">20%"  # bundled facts and band kept
    m5 = cached.instance("us-east-1", "m5.xlarge")
    assert m5.spot_avg.value == served["m5.xlarge"]["spot_avg"]["value"]
    assert m5.reserved[(Term.ONE_YEAR, PaymentOption.NO_UPFRONT)].value == 0.121
    # untouched offers and regions are the bundled ones
    assert cached.instance("us-east-1", "p4d.24xlarge") == bundled.instance("us-east-1", "p4d.24xlarge")
    assert bundled.instance("us-east-1", "g5.xlarge").ondemand.date == "2025-11-30"

    # the estimate follows the refreshed prices: 730 h × (1 reserved + 1.5 spot + 1.5 on-demand)
    usage = FleetUsage("llm", "g5.xlarge", 4, 1, Term.ONE_YEAR, PaymentOption.NO_UPFRONT, 1, 0.5)
    expected = 730 * (0.634 + 1.5 * g5.spot_avg.value + 1.5 * 1.006)
    assert sum(c.monthly_cost for c in fleet_components(usage, g5)) == pytest.approx(expected, abs=0.01)
    assert load_catalog(cache_dir=tmp_path, offline=False).instance("us-east-1", "g5.xlarge") == g5

    # $SEEDANCE_PRICE_CACHE reaches the stack program and the gate too, so what deploys and what the
    # budget rules judge are priced as `seedance plan` priced them
    from seedance.gate.inputs import derived_parts
    from seedance.synth.program import catalog as program_catalog

    dev = Path(__file__).resolve().parents[2] / "stacks" / "policies" / "dev.yaml"
    before = derived_parts(dev)[3]["monthly_total"]
    monkeypatch.setenv("SEEDANCE_PRICE_CACHE", str(tmp_path))
    assert program_catalog().instance("us-east-1", "g5.xlarge") == g5
    assert derived_parts(dev)[3]["monthly_total"] != pytest.approx(before)


def test_refresh_of_an_unknown_region_names_the_closest() -> None:
    with pytest.raises(UnknownRegionError, match="unknown AWS region 'eu-centrall-1'; closest known: eu-central-1"):
        refresh_region("eu-centrall-1", instance_types=["g5.xlarge"], pricing_client=object(), ec2_client=object())
    # regions are matched by code: the newest regions need no table of display names
    assert {"Type": "TERM_MATCH", "Field": "regionCode", "Value": "mx-central-1"} in product_filters("g5.xlarge", "mx-central-1")
    # a partition Seedance does not deploy to is refused, not queried
    with pytest.raises(UnknownRegionError, match=r"^cannot refresh 'us-gov-west-1': it is in the aws-us-gov partition"):
        refresh_region("us-gov-west-1", instance_types=["g5.xlarge"], pricing_client=object(), ec2_client=object())


def test_a_product_of_another_region_or_a_local_zone_is_ignored() -> None:
    base = json.loads(_product("g5.xlarge", "S", "1.0060000000", "0.6340000000", "5182"))
    here = dict(base, product=dict(base["product"], attributes=dict(
        base["product"]["attributes"], regionCode="us-east-1", locationType="AWS Region")))
    assert parse_product(json.dumps(here), "us-east-1") is not None
    zone = dict(here, product=dict(here["product"], attributes=dict(
        here["product"]["attributes"], location="US East (Boston)", locationType="AWS Local Zone")))
    assert parse_product(json.dumps(zone), "us-east-1") is None
    assert parse_product(json.dumps(here), "eu-west-1") is None


def test_refresh_command_writes_into_the_cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, moto_endpoint: str,
                                                   aws_env: None) -> None:
    pricing, ec2 = _clients(moto_endpoint)
    ps = _stub_pricing(pricing)
    import seedance.pricing.refresh as refresh

    real = refresh.refresh_region

    def stubbed(region: str, instance_types: list[str] | None = None) -> dict:
        assert instance_types == ["g5.xlarge", "m5.xlarge"]
        return real(region, instance_types=instance_types, pricing_client=pricing, ec2_client=ec2, now=NOW)

    monkeypatch.setattr(refresh, "refresh_region", stubbed)
    args = ["prices", "refresh", "--region", "us-east-1", "--cache-dir", str(tmp_path),
            "--instance-type", "g5.xlarge", "--instance-type", "m5.xlarge"]
    with ps:
        result = CliRunner().invoke(app, args, standalone_mode=False, catch_exceptions=False)
    assert result.return_value == 0, result.output
    assert "2 instance type(s) in us-east-1" in result.output
    assert json.loads((tmp_path / "prices-us-east-1.json").read_text())["refreshed_at"] == "2026-03-01T12:00:00+00:00"


def test_refresh_command_unknown_region_is_a_clean_error(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["prices", "refresh", "--region", "mars-east-1", "--cache-dir", str(tmp_path)], standalone_mode=False)
    assert result.return_value == 1
    assert "error: unknown AWS region 'mars-east-1'" in result.output
    assert not list(tmp_path.iterdir())


def test_a_region_only_the_cache_prices_takes_its_types_facts_from_another_region(tmp_path: Path) -> None:
    # the Price List API names no GPU model: a region the bundled catalog lacks (ap-south-1) would
    # price g5.xlarge as a GPU of no model, which no GPU fleet can use
    rec = parse_product(_product("g5.xlarge", "SKU1", "1.2", "0.8", "5000", region="ap-south-1"), "ap-south-1")
    assert rec is not None and rec["gpu_model"] is None
    write_cache({"region": "ap-south-1", "instances": [rec]}, tmp_path)
    assert not load_catalog().has_region("ap-south-1")
    g5 = load_catalog(cache_dir=tmp_path).instance("ap-south-1", "g5.xlarge")
    bundled = load_catalog().instance("us-east-1", "g5.xlarge")
    assert g5.gpu_model == bundled.gpu_model is not None and g5.gpus == 1
    assert g5.ondemand.value == 1.2 and g5.ondemand.source == PRICING_SOURCE  # its own prices
    # nor does the API give a Spot Advisor band: the catalog carries the snapshot's for this region
    advisor = Path(os.environ.get("SEEDANCE_SHARED_DATA") or Path(__file__).resolve().parents[3] / "shared" / "data")
    row = next(r for r in csv.DictReader((advisor / "aws_spot_interruption" / "spot_advisor_snapshot_2024-02.csv").open())
               if (r["region"], r["os"], r["instance_type"]) == ("ap-south-1", "Linux", "g5.xlarge"))
    assert (g5.interruption_band, g5.interruption_band_max_pct) == (row["interruption_frequency_band"],
                                                                     float(row["band_upper_bound_pct"]))
    assert g5.spot_savings_pct == float(row["savings_vs_ondemand_pct"])


def test_a_gpu_type_no_bundled_region_prices_takes_its_family_s_gpu(tmp_path: Path) -> None:
    # g6.2xlarge is in no bundled region; its family's bundled types (g6.xlarge, g6.12xlarge) are all L4
    assert not any(o.instance_type == "g6.2xlarge" for r in load_catalog().regions() for o in load_catalog().instances(r))
    rec = parse_product(_product("g6.2xlarge", "SKU6", "1.1", "0.7", "4000", region="ap-south-1"), "ap-south-1")
    assert rec is not None and rec["gpus"] == 1 and rec["gpu_model"] is None
    no_memory = dict(parse_product(_product("g6.4xlarge", "SKU7", "1.5", "0.9", "5000", region="ap-south-1"),
                                   "ap-south-1"), gpu_memory_gib_total=0.0)
    mixed = parse_product(_product("p9.xlarge", "SKU8", "9", "6", "50000", region="ap-south-1"),
                          "ap-south-1")  # no bundled family
    write_cache({"region": "ap-south-1", "instances": [rec, no_memory, mixed]}, tmp_path)
    catalog = load_catalog(cache_dir=tmp_path)
    g6 = catalog.instance("ap-south-1", "g6.2xlarge")
    assert g6.gpu_model is not None and g6.gpu_model.value == "L4" and g6.gpu_memory_gib_total == 24.0
    assert catalog.instance("ap-south-1", "g6.4xlarge").gpu_memory_gib_total == 24.0  # the family's per-GPU memory
    assert catalog.instance("ap-south-1", "p9.xlarge").gpu_model is None
    # a fleet cannot use a GPU of a model nobody names, and is told so rather than "has no L4 GPUs"
    from seedance.gpus import GpuModel
    from seedance.planner.instances import Requirement, unit_weight

    weight, why = unit_weight(catalog.instance("ap-south-1", "p9.xlarge"), Requirement(gpu_model=GpuModel("L4"), gpus=1))
    assert weight is None and "a model the price data does not name" in why


# ---------------------------------------------------------------------- the cache file is merged, never emptied


def _stub_one(pricing, itype: str, region: str, price_list: list[str]) -> Stubber:  # type: ignore[no-untyped-def]
    ps = Stubber(pricing)
    ps.add_response("get_products", {"FormatVersion": "aws_v1", "PriceList": price_list},
                    {"ServiceCode": "AmazonEC2", "FormatVersion": "aws_v1", "MaxResults": 100,
                     "Filters": product_filters(itype, region)})
    return ps


def _refresh_cli(monkeypatch: pytest.MonkeyPatch, pricing, ec2, *args: str):  # type: ignore[no-untyped-def]
    import seedance.pricing.refresh as refresh

    def stubbed(region: str, instance_types: list[str] | None = None) -> dict:
        return refresh_region(region, instance_types=instance_types, pricing_client=pricing, ec2_client=ec2, now=NOW)

    monkeypatch.setattr(refresh, "refresh_region", stubbed)
    return CliRunner().invoke(app, ["prices", "refresh", *args], standalone_mode=False, catch_exceptions=False)


def test_a_refresh_of_one_type_keeps_the_region_s_other_types(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                               moto_endpoint: str, aws_env: None) -> None:
    old_m5 = parse_product(_product("m5.xlarge", "SKUM5XL", "0.1920000000", "0.1210000000", "1033"), "us-east-1")
    old_g5 = parse_product(_product("g5.xlarge", "SKUG5XL", "1.0060000000", "0.6340000000", "5182"), "us-east-1")
    assert old_m5 is not None and old_g5 is not None
    old_m5["prices"]["ondemand"]["date"] = "2025-12-01"  # an older refresh of its own
    write_cache({"region": "us-east-1", "instances": [old_g5, old_m5]}, tmp_path)
    pricing, ec2 = _clients(moto_endpoint)
    newer = _product("g5.xlarge", "SKUG5XL", "1.1000000000", "0.7000000000", "5500").replace("2026-02-01", "2026-02-20")
    with _stub_one(pricing, "g5.xlarge", "us-east-1", [newer]) as ps:
        result = _refresh_cli(monkeypatch, pricing, ec2, "--region", "us-east-1", "--cache-dir", str(tmp_path),
                              "--instance-type", "g5.xlarge")
        ps.assert_no_pending_responses()
    assert result.return_value == 0, result.output
    assert "1 instance type(s) in us-east-1" in result.output
    written = json.loads((tmp_path / "prices-us-east-1.json").read_text())
    assert [r["instance_type"] for r in written["instances"]] == ["g5.xlarge", "m5.xlarge"]
    assert written["instances"][1] == old_m5  # kept as it was, with its own date
    assert written["refreshed_at"] == "2026-03-01T12:00:00+00:00"
    catalog = load_catalog(cache_dir=tmp_path)
    assert catalog.instance("us-east-1", "g5.xlarge").ondemand.value == 1.1
    assert catalog.instance("us-east-1", "g5.xlarge").ondemand.date == "2026-02-20"
    assert catalog.instance("us-east-1", "m5.xlarge").ondemand.date == "2025-12-01"


def test_a_refresh_that_priced_nothing_is_an_error_and_keeps_the_old_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                         moto_endpoint: str, aws_env: None) -> None:
    pricing, ec2 = _clients(moto_endpoint)
    args = ("--region", "us-east-1", "--cache-dir", str(tmp_path), "--instance-type", "g5.xlarge")
    with _stub_one(pricing, "g5.xlarge", "us-east-1", []):
        result = _refresh_cli(monkeypatch, pricing, ec2, *args)
    assert result.return_value == 1
    assert ("error: the Price List API returned no Linux on-demand price for g5.xlarge in us-east-1; the price cache is "
            "left as it was") in result.output
    assert not list(tmp_path.iterdir())  # no empty cache
    old = write_cache({"region": "us-east-1", "instances": [
        parse_product(_product("g5.xlarge", "SKUG5XL", "1.0060000000", "0.6340000000", "5182"), "us-east-1")]}, tmp_path)
    before = old.read_bytes()
    with _stub_one(pricing, "g5.xlarge", "us-east-1", []):
        result = _refresh_cli(monkeypatch, pricing, ec2, *args)
    assert result.return_value == 1 and "no Linux on-demand price for g5.xlarge in us-east-1" in result.output
    assert old.read_bytes() == before
    with pytest.raises(PriceDataError, match=r"prices-us-east-1\.json \(not written\): instances: no instance record"):
        write_cache({"region": "us-east-1", "instances": []}, tmp_path)
    assert old.read_bytes() == before


def test_an_unreadable_cache_is_said_so_and_replaced_by_the_new_records(tmp_path: Path,
                                                                        caplog: pytest.LogCaptureFixture) -> None:
    (tmp_path / "prices-us-east-1.json").write_text('{"instances": [{"instance_type": "m5.xlarge"', encoding="utf-8")
    rec = parse_product(_product("g5.xlarge", "SKUG5XL", "1.0060000000", "0.6340000000", "5182"), "us-east-1")
    with caplog.at_level(logging.WARNING, logger="seedance.pricing.refresh"):
        path = write_cache({"region": "us-east-1", "instances": [rec]}, tmp_path)
    warned = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warned) == 1
    assert warned[0].startswith(f"the existing price cache cannot be read, so the new prices are written alone: {path}")
    assert [r["instance_type"] for r in json.loads(path.read_text())["instances"]] == ["g5.xlarge"]


# ---------------------------------------------------------------------- a region the account has not enabled


def _refresh_with_spot_error(region: str, code: str):  # type: ignore[no-untyped-def]
    """refresh_region of g5.xlarge in ``region``, the Price List answering and EC2 failing with ``code``."""
    pricing = boto3.client("pricing", region_name="us-east-1", aws_access_key_id="t", aws_secret_access_key="t")
    ec2 = boto3.client("ec2", region_name=region, aws_access_key_id="t", aws_secret_access_key="t")
    ps = _stub_one(pricing, "g5.xlarge", region, [_product("g5.xlarge", "SKUG5", "1.2", "0.8", "5000", region=region)])
    es = Stubber(ec2)
    es.add_client_error("describe_spot_price_history", service_error_code=code,
                        service_message="You are not subscribed to this service.", http_status_code=401)
    with ps, es:
        return refresh_region(region, instance_types=["g5.xlarge"], pricing_client=pricing, ec2_client=ec2, now=NOW)


@pytest.mark.parametrize(("code", "message"), [
    ("OptInRequired", "ap-southeast-7 is not enabled for this account (OptInRequired): no spot prices; on-demand and "
                      "reserved prices written"),
    ("AuthFailure", "ap-southeast-7 is not enabled for this account (AuthFailure): no spot prices; on-demand and "
                    "reserved prices written"),
    ("UnauthorizedOperation", "the credentials may not call ec2:DescribeSpotPriceHistory in ap-southeast-7 "
                              "(UnauthorizedOperation): no spot prices; on-demand and reserved prices written"),
])
def test_a_region_not_enabled_gets_its_price_list_prices_and_no_spot(code: str, message: str,
                                                                     caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="seedance.pricing.refresh"):
        doc = _refresh_with_spot_error("ap-southeast-7", code)
    assert [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING] == [message]
    [rec] = doc["instances"]
    assert set(rec["prices"]) == {"ondemand", "reserved"} and rec["prices"]["ondemand"]["value"] == 1.2


def test_other_spot_errors_still_fail_the_refresh() -> None:
    from botocore.exceptions import ClientError

    with pytest.raises(ClientError, match="RequestLimitExceeded"):
        _refresh_with_spot_error("ap-southeast-7", "RequestLimitExceeded")


def test_opt_in_required_elsewhere_asks_for_the_region_not_for_credentials(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    import seedance.pricing.refresh as refresh
    from botocore.exceptions import ClientError

    def failing(region: str, instance_types: list[str] | None = None) -> dict:
        raise ClientError({"Error": {"Code": "OptInRequired", "Message": "You are not subscribed to this service."}},
                          "DescribeSpotPriceHistory")

    monkeypatch.setattr(refresh, "refresh_region", failing)
    result = CliRunner().invoke(app, ["prices", "refresh", "--region", "ap-southeast-7", "--cache-dir", str(tmp_path)],
                                standalone_mode=False)
    assert result.return_value == 1
    assert ("error: AWS call failed: An error occurred (OptInRequired) when calling the DescribeSpotPriceHistory "
            "operation: You are not subscribed to this service. (ap-southeast-7 must be enabled for the account (an "
            "opt-in region) before it can be refreshed)") in result.output
    assert "credentials" not in result.output and not list(tmp_path.iterdir())


# ---------------------------------------------------------------------- which Price List entries are the region's


def _entry(region: str, sku: str, od: str, *, drop: tuple[str, ...] = (), **attrs: str) -> str:
    doc = json.loads(_product("g5.xlarge", sku, od, "0.8", "5000", region=region))
    for key in drop:
        del doc["product"]["attributes"][key]
    doc["product"]["attributes"].update(attrs)
    return json.dumps(doc)


@pytest.mark.parametrize(("drop", "said"), [
    (("regionCode",), "Price List entry S is for no regionCode (AWS Region), not the region us-east-1; ignored"),
    (("locationType",), "Price List entry S is for us-east-1 (no locationType), not the region us-east-1; ignored"),
])
def test_an_entry_that_does_not_name_the_region_is_not_the_region_s(drop: tuple[str, ...], said: str,
                                                                    caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="seedance.pricing.refresh"):
        assert parse_product(_entry("us-east-1", "S", "1.0", drop=drop), "us-east-1") is None
    assert [r.getMessage() for r in caplog.records] == [said]


def test_a_capacity_block_entry_is_not_an_on_demand_price(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="seedance.pricing.refresh"):
        assert parse_product(_entry("us-east-1", "CB", "1.5", marketoption="CapacityBlock"), "us-east-1") is None
    assert [r.getMessage() for r in caplog.records] == [
        "Price List entry CB is a CapacityBlock offer, not an on-demand one; ignored"]
    assert parse_product(_entry("us-east-1", "OD", "1.5", marketoption="OnDemand"), "us-east-1") is not None
    assert parse_product(_entry("us-east-1", "OD", "1.5", drop=("marketoption",)), "us-east-1") is not None


def test_the_refresh_takes_the_region_s_on_demand_entry(caplog: pytest.LogCaptureFixture) -> None:
    region = "ap-southeast-7"
    pricing = boto3.client("pricing", region_name="us-east-1", aws_access_key_id="t", aws_secret_access_key="t")
    ec2 = boto3.client("ec2", region_name=region, aws_access_key_id="t", aws_secret_access_key="t")
    ps, es = Stubber(pricing), Stubber(ec2)
    base = {"ServiceCode": "AmazonEC2", "FormatVersion": "aws_v1", "MaxResults": 100,
            "Filters": product_filters("g5.xlarge", region)}
    pages = [
        [_entry("us-east-1", "USE1", "0.5", drop=("regionCode", "locationType")),  # no region named: not this one's
         _entry(region, "ZERO", "0.0000000000")],  # no hourly price
        [_entry(region, "CB", "1.5", marketoption="CapacityBlock"), _entry(region, "TH", "1.2"),
         _entry(region, "TH2", "1.3")],
    ]
    ps.add_response("get_products", {"FormatVersion": "aws_v1", "PriceList": pages[0], "NextToken": "p1"}, base)
    ps.add_response("get_products", {"FormatVersion": "aws_v1", "PriceList": pages[1]}, {**base, "NextToken": "p1"})
    es.add_response("describe_spot_price_history", {"SpotPriceHistory": []}, None)
    with ps, es, caplog.at_level(logging.INFO, logger="seedance.pricing.refresh"):
        doc = refresh_region(region, instance_types=["g5.xlarge"], pricing_client=pricing, ec2_client=ec2, now=NOW)
    [rec] = doc["instances"]
    assert rec["prices"]["ondemand"]["value"] == 1.2
    assert rec["prices"]["ondemand"]["ref"] == "pricing.get_products[sku=TH,term=TH.JRTCKXETXF]"
    assert ("2 Price List entries price g5.xlarge in ap-southeast-7 (pricing.get_products[sku=TH,term=TH.JRTCKXETXF], "
            "pricing.get_products[sku=TH2,term=TH2.JRTCKXETXF]); the first is used") in caplog.messages


def test_a_cache_in_another_currency_than_the_bundled_region_s_is_not_written(tmp_path: Path) -> None:
    assert load_catalog().currency("cn-north-1") == "CNY"
    usd = parse_product(_product("g5.xlarge", "SKUCN", "1.2", "0.8", "5000", region="cn-north-1"), "cn-north-1")
    assert usd is not None and usd["currency"] == "USD"
    with pytest.raises(PriceDataError) as raised:
        write_cache({"region": "cn-north-1", "instances": [usd]}, tmp_path)
    assert str(raised.value) == (f"{tmp_path / 'prices-cn-north-1.json'} (not written): instances[0]: cache for "
                                 f"cn-north-1/g5.xlarge is in USD, the bundled catalog in CNY; refusing to mix currencies")
    assert not list(tmp_path.iterdir())
    load_catalog(cache_dir=tmp_path)  # every command using the folder still works
    cny = parse_product(_product("g5.xlarge", "SKUCN", "9.1", "6.0", "40000", currency="CNY", region="cn-north-1"),
                        "cn-north-1")
    path = write_cache({"region": "cn-north-1", "instances": [cny]}, tmp_path)
    assert load_catalog(cache_dir=tmp_path).instance("cn-north-1", "g5.xlarge").ondemand.value == 9.1
    before = path.read_bytes()
    # a type the bundled catalog does not price there: the region's currency decides
    p4d = dict(usd, instance_type="p4d.24xlarge")
    with pytest.raises(PriceDataError, match=r"\(not written\): instances\[1\]: USD prices for cn-north-1, whose prices "
                                             r"are in CNY; refusing to mix currencies"):
        write_cache({"region": "cn-north-1", "instances": [p4d]}, tmp_path)
    assert path.read_bytes() == before


def test_a_region_refreshed_into_the_default_cache_says_where_its_prices_are(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # `prices refresh` without --cache-dir writes ~/.cache/seedance/prices, which no command reads unless named
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("SEEDANCE_PRICE_CACHE", raising=False)
    default = tmp_path / ".cache" / "seedance" / "prices"
    rec = parse_product(_product("g5.xlarge", "SKU1", "1.2", "0.8", "5000", region="ap-south-1"), "ap-south-1")
    write_cache({"region": "ap-south-1", "instances": [rec]}, default)
    with pytest.raises(UnknownRegionError) as exc:
        load_catalog().instances("ap-south-1")
    assert f"a refresh cache for it is in {default}, where `seedance prices refresh` writes by default" in str(exc.value)
    assert f"give --cache-dir {default} or set $SEEDANCE_PRICE_CACHE={default}" in str(exc.value)
    assert load_catalog(cache_dir=default).instance("ap-south-1", "g5.xlarge").ondemand.value == 1.2
    # another region without a cache keeps the refresh advice
    with pytest.raises(UnknownRegionError, match="`seedance prices refresh --region eu-central-2 --cache-dir DIR` adds it"):
        load_catalog().instances("eu-central-2")
