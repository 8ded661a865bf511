"""The per-type rationale names a Spot Advisor band as the fleet's spot text does (``band 5-10%``),
never as its upper bound (``band <= 11%/month``), which reads as another band."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from seedance.gpus import GpuModel
from seedance.planner.instances import OfferView, Requirement, rank_instances
from seedance.planner.spot import BAND_MAX_PCT

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(("label", "upper"), [(k, v) for k, v in BAND_MAX_PCT.items() if v < 100])
def test_a_types_rationale_names_its_band_by_its_label(label: str, upper: float) -> None:
    offer = OfferView("g5.xlarge", 4, 16, 1, GpuModel.A10G, 24, 1.0, 0.3, upper)
    ranking = rank_instances([offer], Requirement(GpuModel.A10G, 1, 24, max_units=4), max_spot_share=0.5,
                             lost_fraction=lambda rate: 0.0)
    why = ranking.ranked[0].rationale
    assert f"(band {label})" in why, why
    assert f"{upper:g}%" not in why.replace(label, "")  # the band's upper bound is not shown as another band


def test_fleet_and_type_rationales_give_the_same_band(capsys: pytest.CaptureFixture[str]) -> None:
    from seedance.cli import main

    assert main(["plan", str(REPO / "stacks" / "policies" / "eu-prod.yaml"), "--as-of", "2024-05-30", "-f", "json"]) == 0
    plan = json.loads(capsys.readouterr().out)
    seen = 0
    for fleet in plan["fleets"]:
        named = re.search(r"most interrupted spot pool, (\S+) \(band ([^)]+)\)", fleet["rationale"].get("spot", ""))
        if named is None:
            continue
        itype, band = named.groups()
        choice = next(c for c in fleet["instance_types"] if c["instance_type"] == itype)
        assert f"(band {band})" in choice["rationale"], (band, choice["rationale"])
        seen += 1
    assert seen  # eu-prod's llm-train runs spot on p4d.24xlarge
