"""Models, cross-field rules and the JSON Schema."""

from __future__ import annotations

import json
import os
from pathlib import Path

import jsonschema
import pytest

from seedance.gpus import GpuModel, mig_profiles
from seedance.policy import PolicyError, json_schema, load_policy, load_policy_text
from seedance.policy.reference import END, START, reference_markdown

MINIMAL = (Path(__file__).parent / "valid" / "minimal.yaml").read_text()


def test_minimal_policy_defaults() -> None:
    p = load_policy_text(MINIMAL, "minimal.yaml")
    assert p.cloud.provider == "aws"
    assert p.compliance.frameworks == []
    assert p.fleets[0].spot is None  # no spot block: no spot at all
    assert p.fleets[0].reserved.mode.value == "auto"
    assert p.budget.currency.value == "USD"
    assert p.scheduling.overcommit_cap == 1.0


def test_models_are_frozen() -> None:
    p = load_policy_text(MINIMAL, "minimal.yaml")
    with pytest.raises(Exception):
        p.metadata.name = "other"  # type: ignore[misc]


def test_snake_case_keys_are_rejected() -> None:
    with pytest.raises(PolicyError) as exc:
        load_policy_text(MINIMAL.replace("monthlyAmount", "monthly_amount"), "x.yaml")
    messages = [p.message for p in exc.value.problems]
    assert "unknown field 'monthly_amount'; did you mean 'monthlyAmount'?" in messages


@pytest.mark.parametrize(
    ("model", "memory", "profile", "ok"),
    [
        (GpuModel.A100, 40, "1g.5gb", True),
        (GpuModel.A100, 80, "1g.5gb", False),
        (GpuModel.A100, 80, "7g.80gb", True),
        (GpuModel.H100, 80, "3g.40gb", True),
        (GpuModel.A100, None, "3g.40gb", True),
    ],
)
def test_mig_profiles(model: GpuModel, memory: int | None, profile: str, ok: bool) -> None:
    assert (profile in mig_profiles(model, memory)) is ok


def test_reserved_units_above_max_is_rejected() -> None:
    text = MINIMAL.replace("    capacity: {min: 1, desired: 2, max: 4}", "    capacity: {min: 1, desired: 2, max: 4}\n    reserved: {mode: fixed, units: 9}")
    with pytest.raises(PolicyError) as exc:
        load_policy_text(text, "x.yaml")
    assert str(exc.value) == "x.yaml:20:36: fleets[0].reserved.units (fleet 'web'): expected at most capacity.max (4) units, got 9"


def test_demand_history_must_exist(tmp_path: Path) -> None:
    text = MINIMAL.replace("    capacity: {min: 1, desired: 2, max: 4}", "    capacity: {min: 1, desired: 2, max: 4}\n    demandHistory: nope.csv")
    p = tmp_path / "p.yaml"
    p.write_text(text)
    with pytest.raises(PolicyError) as exc:
        load_policy(p)
    assert str(exc.value) == f"{p}:20:20: fleets[0].demandHistory (fleet 'web'): file not found: nope.csv"
    (tmp_path / "nope.csv").mkdir()
    with pytest.raises(PolicyError) as exc:
        load_policy(p)
    assert str(exc.value) == (f"{p}:20:20: fleets[0].demandHistory (fleet 'web'): nope.csv is a directory; "
                              "expected a CSV file of hourly demand")
    (tmp_path / "nope.csv").rmdir()
    os.mkfifo(tmp_path / "nope.csv")  # a FIFO (or /dev/null) exists but holds no history
    with pytest.raises(PolicyError) as exc:
        load_policy(p)
    assert str(exc.value) == (f"{p}:20:20: fleets[0].demandHistory (fleet 'web'): nope.csv is not a regular file; "
                              "expected a CSV file of hourly demand")
    (tmp_path / "nope.csv").unlink()
    (tmp_path / "nope.csv").write_text("hour,demand\n0,1\n")
    assert load_policy(p).policy.fleets[0].demand_history == "nope.csv"


def test_shipped_schema_file_is_current(repo: Path) -> None:
    shipped = json.loads((repo / "stacks" / "costpolicy.schema.json").read_text())
    assert shipped == json_schema(), "run: seedance schema > stacks/costpolicy.schema.json"


def test_schema_accepts_the_merged_example_stacks(example_stack: str, repo: Path) -> None:
    policy = load_policy(repo / "stacks" / "policies" / f"{example_stack}.yaml").policy
    doc = policy.model_dump(mode="json", by_alias=True, exclude_none=True)
    jsonschema.Draft202012Validator(json_schema()).validate(doc)


def test_schema_rejects_what_the_loader_rejects() -> None:
    validator = jsonschema.Draft202012Validator(json_schema())
    policy = load_policy_text(MINIMAL, "m.yaml").model_dump(mode="json", by_alias=True, exclude_none=True)
    policy["fleets"][0]["spot"] = {"maxShare": 1.5}
    assert not validator.is_valid(policy)
    policy["fleets"][0]["spot"] = {"maxShare": 0.5}
    policy["fleets"][0]["bogus"] = 1
    assert not validator.is_valid(policy)


def test_example_policies_point_editors_at_the_schema(repo: Path) -> None:
    for path in (repo / "stacks" / "policies").glob("*.yaml"):
        first = path.read_text().splitlines()[0]
        assert first == "# yaml-language-server: $schema=../costpolicy.schema.json", path


def test_readme_reference_matches_the_schema(repo: Path) -> None:
    readme = (repo / "README.md").read_text()
    start, end = readme.index(START), readme.index(END) + len(END)
    assert readme[start:end] + "\n" == reference_markdown(), "run: make docs"


@pytest.mark.parametrize(("profile", "model", "memory", "count"), [
    ("1g.5gb", GpuModel.A100, 40, 7),
    ("1g.10gb", GpuModel.A100, 40, 4),  # the 1g profile with twice the memory fits 4 times
    ("1g.10gb", GpuModel.A100, 80, 7),
    ("1g.20gb", GpuModel.H100, 80, 4),
    ("1g.10gb", GpuModel.A100, None, 4),  # memory not given: the count that fits on every size
    ("3g.40gb", GpuModel.H100, 80, 2),
    ("7g.80gb", None, None, 1),
])
def test_mig_instances_per_gpu(profile: str, model: GpuModel | None, memory: int | None, count: int) -> None:
    from seedance.gpus import instances_per_gpu

    assert instances_per_gpu(profile, model, memory) == count


def test_mig_memory_sizes() -> None:
    from seedance.gpus import mig_memory_sizes

    assert mig_memory_sizes(GpuModel.A100, "1g.5gb") == (40,)
    assert mig_memory_sizes(GpuModel.A100, "1g.10gb") == (40, 80)
    assert mig_memory_sizes(GpuModel.H100, "7g.40gb") == ()
