"""Lookups in the bundled catalog: the prices of the shared data rows, errors with suggestions."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from seedance.gpus import GpuModel
from seedance.policy.model import PaymentOption, Term
from seedance.pricing import PricingError, UnknownPriceError, UnknownRegionError, load_catalog
from seedance.pricing.catalog import Catalog

REPO = Path(__file__).resolve().parents[2]
ONE_NO = (Term.ONE_YEAR, PaymentOption.NO_UPFRONT)


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog()


def test_g5_xlarge_us_east_1_is_the_compact_row(catalog: Catalog) -> None:
    o = catalog.instance("us-east-1", "g5.xlarge")
    assert (o.currency, o.vcpu, o.memory_gib, o.gpus, o.gpu_model, o.gpu_memory_gib_total) == ("USD", 4, 16.0, 1, GpuModel.A10G, 24.0)
    assert o.ondemand.value == 1.006 and o.ondemand.unit == "hour" and o.ondemand.date == "2025-11-30"
    assert o.ondemand.source.startswith("tsaol/aws-gpu@2d0108c:data/gpu_instances_raw.json")
    assert o.ondemand.ref == "gpu_instance_prices_compact.csv[instance_type=g5.xlarge,region=us-east-1].ondemand_hourly"
    assert o.reserved[ONE_NO].value == 0.63378
    assert o.reserved[(Term.ONE_YEAR, PaymentOption.ALL_UPFRONT)].value == 0.591553
    assert o.reserved[(Term.THREE_YEARS, PaymentOption.NO_UPFRONT)].value == 0.43459
    assert o.reserved[(Term.THREE_YEARS, PaymentOption.ALL_UPFRONT)].value == 0.378272
    assert o.convertible[Term.ONE_YEAR].value == 0.79223
    assert (o.spot_avg.value, o.spot_min.value, o.spot_max.value) == (0.39388, 0.3837, 0.4034)
    assert (o.interruption_band, o.interruption_band_max_pct) == (">20%", 100.0)


def test_china_rows_are_cny_with_savings_plans_and_no_spot(catalog: Catalog) -> None:
    assert catalog.currency("cn-north-1") == "CNY" and catalog.currency("cn-northwest-1") == "CNY"
    o = catalog.instance("cn-north-1", "g5.xlarge")
    assert o.currency == "CNY" and o.ondemand.currency == "CNY" and o.ondemand.value == 9.51389
    assert o.reserved[ONE_NO].value == 6.12219 and o.reserved[ONE_NO].currency == "CNY"
    assert o.savings_plan[Term.ONE_YEAR].value == 6.7344
    assert o.spot_avg is None and o.spot_min is None and o.spot_max is None
    for offer in catalog.instances("cn-north-1"):
        assert offer.spot_avg is None
        assert {p.currency for p in [offer.ondemand, *offer.reserved.values()]} == {"CNY"}


def test_no_china_service_prices(catalog: Catalog) -> None:
    assert catalog.service_price("cn-north-1", "EBS", "gp3_storage") is None
    assert catalog.service_price("cn-northwest-1", "VPC", "nat_gateway_hour") is None
    assert not catalog.has_service_prices("cn-north-1")


def test_service_price_carries_row_source_and_date(catalog: Catalog) -> None:
    p = catalog.service_price("eu-central-1", "EBS", "gp3_iops_above_3000")
    assert (p.value, p.currency, p.unit, p.date) == (0.006, "USD", "IOPS-month", "2024-07-18")
    assert p.source == "yeo/ec2.shop@576c890f33ae177837e93499866aa04a0ac4fa89:data/ebs/ebs.json"
    assert p.ref == "service_list_prices.csv[service=EBS,item=gp3_iops_above_3000,region=eu-central-1].price"
    undated = catalog.service_price("us-east-1", "DataTransfer", "internet_out_first_tier")
    assert undated.value == 0.09 and undated.date == "undated"
    # data transfer out to the internet is sourced only for us-east-1
    assert catalog.service_price("eu-central-1", "DataTransfer", "internet_out_first_tier") is None


def test_unknown_service_item_is_an_error_with_suggestions(catalog: Catalog) -> None:
    with pytest.raises(UnknownPriceError) as exc:
        catalog.service_price("us-east-1", "EBS", "gp3_storag")
    assert str(exc.value) == "unknown service price EBS/gp3_storag; closest known: EBS/gp3_storage, EBS/gp2_storage, EBS/io2_storage"


def test_unknown_instance_type_names_the_closest(catalog: Catalog) -> None:
    with pytest.raises(UnknownPriceError) as exc:
        catalog.instance("us-east-1", "g5.xlarg")
    assert str(exc.value) == "no price for instance type 'g5.xlarg' in us-east-1; closest known: g5.xlarge, g5.2xlarge, g5.12xlarge"


def test_type_priced_elsewhere_says_where(catalog: Catalog) -> None:
    with pytest.raises(UnknownPriceError) as exc:
        catalog.instance("cn-north-1", "p4d.24xlarge")
    msg = str(exc.value)
    assert msg.startswith("no price for instance type 'p4d.24xlarge' in cn-north-1 (it is priced in: ap-northeast-1, cn-northwest-1, eu-central-1")
    assert "closest known:" in msg


def test_unknown_region_names_the_closest(catalog: Catalog) -> None:
    with pytest.raises(UnknownRegionError) as exc:
        catalog.instances("eu-centrall-1")
    assert str(exc.value).startswith("no prices for region 'eu-centrall-1'; closest known: eu-central-1")
    assert "known regions: ap-northeast-1, cn-north-1, cn-northwest-1, eu-central-1, eu-west-1, us-east-1, us-west-2" in str(exc.value)
    # a real region the catalog lacks: how to add it, not a region of a similar name
    with pytest.raises(UnknownRegionError) as exc:
        catalog.instances("eu-central-2")
    assert str(exc.value) == (
        "no prices for region 'eu-central-2': the price catalog holds ap-northeast-1, cn-north-1, cn-northwest-1, "
        "eu-central-1, eu-west-1, us-east-1, us-west-2; `seedance prices refresh --region eu-central-2 --cache-dir DIR` "
        "adds it (then give DIR as --cache-dir or $SEEDANCE_PRICE_CACHE)")
    # the newest regions are refreshed by code like the others
    with pytest.raises(UnknownRegionError) as exc:
        catalog.instances("ap-southeast-7")
    assert "`seedance prices refresh --region ap-southeast-7 --cache-dir DIR` adds it" in str(exc.value)
    # a partition refresh cannot price: no advice it would refuse
    with pytest.raises(UnknownRegionError) as exc:
        catalog.instances("us-gov-west-1")
    assert str(exc.value).endswith("`seedance prices refresh` cannot add it (it is in the aws-us-gov partition, which "
                                   "Seedance does not deploy to)")
    with pytest.raises(PricingError):
        catalog.instance("ap-south-1", "g5.xlarge")
    with pytest.raises(UnknownRegionError):
        catalog.service_price("ap-south-1", "EBS", "gp3_storage")


def test_2017_rows_fill_ri_only_where_on_demand_is_unchanged(catalog: Catalog) -> None:
    p3 = catalog.instance("us-east-1", "p3.2xlarge")
    assert p3.ondemand.value == 3.06 and p3.ondemand.date == "2025-11-30"
    assert p3.reserved[ONE_NO].value == 2.088 and p3.reserved[ONE_NO].date == "2017-11-12"
    assert p3.reserved[ONE_NO].source == "vantage-sh/ec2instances.info@94e1f006:www/instances.json"
    # general-purpose types come from the 2017 file, with its RI prices
    m4 = catalog.instance("eu-west-1", "m4.xlarge")
    assert m4.gpus == 0 and m4.gpu_model is None and m4.reserved and m4.ondemand.date == "2017-11-12"


def test_karpenter_only_types_are_on_demand_only_with_advisor_facts(catalog: Catalog) -> None:
    m5 = catalog.instance("us-east-1", "m5.xlarge")
    assert m5.ondemand.value == 0.192 and m5.ondemand.date == "2026-07-20"
    assert m5.ondemand.source.startswith("aws/karpenter-provider-aws@6fc13b523")
    assert m5.reserved == {} and m5.spot_avg is None
    assert (m5.vcpu, m5.memory_gib, m5.gpus) == (4, 16.0, 0)
    # band from the Spot Advisor snapshot, since no price file gives one
    assert (m5.interruption_band, m5.interruption_band_max_pct) == ("5-10%", 11.0)
    assert m5.interruption_source.startswith("spot_advisor_snapshot_2024-02.csv[region=us-east-1,os=Linux,instance_type=m5.xlarge]")
    with pytest.raises(UnknownPriceError):
        catalog.instance("eu-central-1", "m5.xlarge")  # karpenter data is us-east-1 only


def test_regions_and_offers_are_sorted(catalog: Catalog) -> None:
    assert catalog.regions() == ["ap-northeast-1", "cn-north-1", "cn-northwest-1", "eu-central-1", "eu-west-1", "us-east-1", "us-west-2"]
    types = [o.instance_type for o in catalog.instances("eu-central-1")]
    assert types == sorted(types) and "p4d.24xlarge" in types


def test_live_prices_required_without_cache_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(PricingError, match="no refreshed prices are cached"):
        load_catalog(cache_dir=tmp_path, offline=False)


def test_unreadable_cache_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "prices-us-east-1.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(PricingError, match="unreadable price cache"):
        load_catalog(cache_dir=tmp_path)


def test_cache_in_another_currency_is_refused(tmp_path: Path) -> None:
    rec = {"instance_type": "g5.xlarge", "region": "cn-north-1", "currency": "USD", "vcpu": 4, "memory_gib": 16, "gpus": 1,
           "prices": {"ondemand": {"value": 1.0, "unit": "hour", "source": "x", "date": "2026-01-01"}}}
    (tmp_path / "prices-cn-north-1.json").write_text(json.dumps({"instances": [rec]}), encoding="utf-8")
    with pytest.raises(PricingError, match="refusing to mix currencies"):
        load_catalog(cache_dir=tmp_path)


def test_missing_shared_data_fails_loudly_unless_allowed(tmp_path: Path) -> None:
    test = "tests/pricing/test_catalog_build.py::test_shipped_catalog_equals_a_fresh_rebuild"
    env = {**os.environ, "SEEDANCE_SHARED_DATA": str(tmp_path / "absent")}
    env.pop("SEEDANCE_ALLOW_NO_SHARED", None)
    failed = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", test], cwd=REPO, env=env,
                            capture_output=True, text=True, timeout=120)
    assert failed.returncode == 1 and "shared data not found" in failed.stdout
    env["SEEDANCE_ALLOW_NO_SHARED"] = "1"
    skipped = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", test], cwd=REPO, env=env,
                             capture_output=True, text=True, timeout=120)
    assert skipped.returncode == 0 and "1 skipped" in skipped.stdout


def test_prices_show_command() -> None:
    from click.testing import CliRunner

    from seedance.cli import app

    ok = CliRunner().invoke(app, ["prices", "show", "us-east-1", "g5.xlarge"], standalone_mode=False)
    assert ok.return_value == 0
    assert "g5.xlarge" in ok.output and "1.006" in ok.output and "0.63378" in ok.output and "0.39388" in ok.output
    bad = CliRunner().invoke(app, ["prices", "show", "us-east-1", "g5.xlarg"], standalone_mode=False)
    assert bad.return_value == 1 and "closest known: g5.xlarge" in bad.output
