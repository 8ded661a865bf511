"""The instance types a policy names are checked against the catalog where they are written."""

from __future__ import annotations

from pathlib import Path

import pytest

from seedance.planner.type_checks import instance_type_problems
from seedance.policy import load_policy
from seedance.pricing.catalog import load_catalog

STACKS = Path(__file__).resolve().parents[2] / "stacks" / "policies"


@pytest.fixture(scope="module")
def catalog():  # type: ignore[no-untyped-def]
    return load_catalog()


def _overlay(tmp_path: Path, fleets: str) -> Path:
    p = tmp_path / "p.yaml"
    p.write_text(f"apiVersion: seedance.io/v1\nkind: CostPolicy\nextends: {STACKS / 'dev.yaml'}\nfleets:\n{fleets}")
    return p


def test_the_example_stacks_name_no_bad_type(catalog) -> None:  # type: ignore[no-untyped-def]
    for stack in ("eu-prod", "cn-prod", "dev"):
        assert instance_type_problems(load_policy(STACKS / f"{stack}.yaml"), catalog) == []


def test_unknown_and_unusable_types_are_reported_where_they_are_written(tmp_path: Path, catalog) -> None:  # type: ignore[no-untyped-def]
    path = _overlay(tmp_path, "  - name: inference\n    instanceTypes: {allowed: [p4d.24xlarge, m5.xlarge, g5.xlarg]}\n")
    problems = instance_type_problems(load_policy(path), catalog)
    assert [(p.location.line, p.path, p.context) for p in problems] == [
        (6, "fleets[1].instanceTypes.allowed[2]", "fleet 'inference'"),
        (6, "fleets[1].instanceTypes.allowed", "fleet 'inference'"),
    ]
    assert problems[0].message.startswith("no price for instance type 'g5.xlarg' in us-east-1; closest known: g5.xlarge")
    assert problems[1].message == ("no allowed type can hold the fleet's unit, so the fleet cannot run: "
                                   "p4d.24xlarge: has no A10G GPUs; m5.xlarge: has no A10G GPUs")


def test_an_allowed_list_with_one_usable_type_or_a_disabled_fleet_passes(tmp_path: Path, catalog) -> None:  # type: ignore[no-untyped-def]
    path = _overlay(tmp_path, "  - name: inference\n    instanceTypes: {allowed: [m5.xlarge, g5.xlarge]}\n")
    assert instance_type_problems(load_policy(path), catalog) == []
    # a budget response's disabled fleet (capacity 0) runs nothing: its list is not judged
    path = _overlay(tmp_path, "  - name: inference\n    capacity: {min: 0, desired: 0, max: 0}\n    autoscaling: null\n"
                              "    instanceTypes: {allowed: [g5.12xlarge]}\n")
    assert instance_type_problems(load_policy(path), catalog) == []


def test_a_region_the_catalog_does_not_price_is_reported_at_cloud_region(tmp_path: Path, catalog) -> None:  # type: ignore[no-untyped-def]
    # validate used to say "valid" and plan to fail without a line
    p = tmp_path / "p.yaml"
    p.write_text(f"apiVersion: seedance.io/v1\nkind: CostPolicy\nextends: {STACKS / 'dev.yaml'}\ncloud:\n"
                 "  region: eu-north-1\n  availabilityZones: [eu-north-1a, eu-north-1b]\n")
    (problem,) = instance_type_problems(load_policy(p), catalog)
    assert (problem.location.line, problem.path) == (5, "cloud.region")
    assert problem.message.startswith("no prices for region 'eu-north-1': the price catalog holds ")
    assert "`seedance prices refresh --region eu-north-1 --cache-dir DIR` adds it" in problem.message


def test_an_allowed_graviton_type_is_refused_where_it_is_written(tmp_path: Path) -> None:
    # a refresh prices Graviton types; the groups boot the x86_64 AMI, so one would fail every launch
    import json

    cache = tmp_path / "cache"
    cache.mkdir()
    ondemand = {"value": 0.1632, "unit": "hour", "source": "AWS Price List API", "date": "2026-01-01", "ref": "x"}
    (cache / "prices-us-east-1.json").write_text(json.dumps({
        "schema": "seedance.io/price-cache", "version": 1, "region": "us-east-1", "refreshed_at": "2026-01-01T00:00:00Z",
        "instances": [{"instance_type": "m7g.xlarge", "region": "us-east-1", "currency": "USD", "vcpu": 4,
                       "memory_gib": 16.0, "gpus": 0, "gpu_model": None, "gpu_memory_gib_total": 0.0, "facts_ref": "x",
                       "prices": {"ondemand": ondemand}}]}))
    catalog = load_catalog(cache_dir=cache)
    assert catalog.instance("us-east-1", "m7g.xlarge").instance_type == "m7g.xlarge"  # priced, yet unusable
    path = _overlay(tmp_path, "  - name: batch-embed\n    instanceTypes: {allowed: [m7g.xlarge]}\n")
    (problem,) = instance_type_problems(load_policy(path), catalog)
    assert problem.path == "fleets[2].instanceTypes.allowed" and problem.message == (
        "no allowed type can hold the fleet's unit, so the fleet cannot run: m7g.xlarge: is an arm64 (AWS Graviton) "
        "type: the fleet's nodes boot the x86_64 EKS-optimised AMI, which it cannot run")
