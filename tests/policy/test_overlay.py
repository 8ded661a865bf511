"""The documented overlay (extends) merge rule."""

from __future__ import annotations

from pathlib import Path

import pytest

from seedance.policy import PolicyError, load_policy

MINIMAL = (Path(__file__).parent / "valid" / "minimal.yaml").read_text()


def _write(tmp: Path, name: str, text: str) -> Path:
    p = tmp / name
    p.write_text(text)
    return p


def _overlay(extends: str, body: str) -> str:
    return f"apiVersion: seedance.io/v1\nkind: CostPolicy\nextends: {extends}\n{body}"


BASE_FLEETS = MINIMAL + (
    "  - name: batch\n    workload: batch\n    sla: bronze\n    cpu: {vcpu: 2, memoryGib: 8}\n"
    "    capacity: {min: 0, desired: 1, max: 2}\n    spot: {maxShare: 1.0}\n"
)


def test_scalars_and_mappings_merge_key_by_key(tmp_path: Path) -> None:
    _write(tmp_path, "base.yaml", MINIMAL)
    p = _write(tmp_path, "prod.yaml", _overlay("base.yaml", "metadata:\n  environment: prod\nbudget:\n  monthlyAmount: 5000\n"))
    policy = load_policy(p).policy
    assert policy.metadata.environment.value == "prod"
    assert policy.metadata.name == "minimal"  # kept from the base
    assert policy.metadata.owner == "dev@example.com"
    assert policy.budget.monthly_amount == 5000
    assert policy.extends == "base.yaml"


def test_named_lists_merge_by_name_and_append_new(tmp_path: Path) -> None:
    _write(tmp_path, "base.yaml", BASE_FLEETS)
    body = (
        "fleets:\n  - name: web\n    capacity: {max: 8}\n"
        "  - name: gpu\n    workload: inference\n    sla: gold\n    gpu: {model: T4}\n"
        "    capacity: {min: 1, desired: 1, max: 1}\n"
    )
    loaded = load_policy(_write(tmp_path, "prod.yaml", _overlay("base.yaml", body)))
    fleets = loaded.policy.fleets
    assert [f.name for f in fleets] == ["web", "batch", "gpu"]
    web = fleets[0]
    assert (web.capacity.min, web.capacity.desired, web.capacity.max) == (1, 2, 8)  # deep-merged
    assert web.cpu is not None and web.cpu.vcpu == 4


def test_remove_marker_drops_a_base_item(tmp_path: Path) -> None:
    _write(tmp_path, "base.yaml", BASE_FLEETS)
    body = "fleets:\n  - name: batch\n    $remove: true\n"
    policy = load_policy(_write(tmp_path, "dev.yaml", _overlay("base.yaml", body))).policy
    assert [f.name for f in policy.fleets] == ["web"]


def _overlay_error(tmp: Path, base: str, body: str, name: str = "dev.yaml") -> tuple[Path, str]:
    """The error an overlay ``body`` over ``base`` gives, and the overlay's path."""
    _write(tmp, "base.yaml", base)
    p = _write(tmp, name, _overlay("base.yaml", body))
    with pytest.raises(PolicyError) as exc:
        load_policy(p)
    return p, str(exc.value)


def test_remove_marker_without_base_item_is_an_error(tmp_path: Path) -> None:
    p, error = _overlay_error(tmp_path, MINIMAL, "fleets:\n  - name: nope\n    $remove: true\n")
    assert error == (f"{p}:6:5: fleets: '$remove' drops the base policy's item of the same name, and the base "
                              "has no item 'nope' here (it has 'web')")


@pytest.mark.parametrize(("value", "shown"), [("false", "false"), ("1", "1"), ("'yes'", "'yes'"), ("null", "null")])
def test_remove_marker_that_is_not_true_is_named_as_such(tmp_path: Path, value: str, shown: str) -> None:
    # the base has the item: the marker's value is what is wrong, not its place
    _write(tmp_path, "base.yaml", BASE_FLEETS)
    p = _write(tmp_path, "dev.yaml", _overlay("base.yaml", f"fleets:\n  - name: batch\n    $remove: {value}\n"))
    with pytest.raises(PolicyError) as exc:
        load_policy(p)
    assert str(exc.value) == (f"{p}:6:14: fleets[1].$remove: expected true (to drop the base policy's item 'batch'; "
                              f"it takes no other value), got {shown}")


def test_a_name_twice_in_an_overlay_list_is_an_error(tmp_path: Path) -> None:
    # one edit per name: the second used to replace the first silently (a resize then a removal
    # removed the fleet and said the policy was valid)
    body = "fleets:\n  - name: batch\n    capacity: {max: 3}\n  - name: batch\n    $remove: true\n"
    p, error = _overlay_error(tmp_path, BASE_FLEETS, body)
    assert error == (f"{p}:7:11: fleets[1].name: name 'batch' is used twice in this overlay list (also at line 5): "
                              "an overlay item merges into the base item of its name, so give each name one item")
    # two new items of one name too
    body = "fleets:\n  - name: new\n    sla: gold\n  - name: new\n    sla: bronze\n"
    with pytest.raises(PolicyError, match=r"dev2.yaml:7:11: fleets\[1\].name: name 'new' is used twice"):
        load_policy(_write(tmp_path, "dev2.yaml", _overlay("base.yaml", body)))


def test_a_remove_item_takes_only_its_name(tmp_path: Path) -> None:
    p, error = _overlay_error(tmp_path, BASE_FLEETS, "fleets:\n  - name: batch\n    $remove: true\n    sla: gold\n")
    assert error == (f"{p}:7:5: fleets[0].sla: an item with '$remove: true' drops 'batch' and takes only its "
                     "name; got also sla")


def test_remove_marker_outside_an_overlay_list_is_still_an_error(tmp_path: Path) -> None:
    p = _write(tmp_path, "p.yaml", MINIMAL.replace("  - name: web\n", "  - name: web\n    $remove: true\n", 1))
    with pytest.raises(PolicyError, match=r"'\$remove' only applies to an item of the base policy's list with the same name"):
        load_policy(p)


def test_plain_lists_are_replaced(tmp_path: Path) -> None:
    _write(tmp_path, "base.yaml", MINIMAL.replace("[us-east-1a]", "[us-east-1a, us-east-1b]"))
    body = "cloud:\n  availabilityZones: [us-east-1c]\n"
    policy = load_policy(_write(tmp_path, "p.yaml", _overlay("base.yaml", body))).policy
    assert policy.cloud.availability_zones == ["us-east-1c"]


def test_errors_point_at_the_file_that_holds_the_value(tmp_path: Path) -> None:
    base = _write(tmp_path, "base.yaml", MINIMAL.replace("sla: silver", "sla: platinum"))
    p = _write(tmp_path, "p.yaml", _overlay("base.yaml", "budget:\n  monthlyAmount: -1\n"))
    with pytest.raises(PolicyError) as exc:
        load_policy(p)
    text = str(exc.value)
    assert f"{p}:5:18: budget.monthlyAmount: expected a number in [0.01, 1e+12], got -1" in text
    assert f"{base}:17:10: fleets[0].sla (fleet 'web'): expected one of 'gold', 'silver' or 'bronze', got 'platinum'" in text


def test_chains_and_cycles(tmp_path: Path) -> None:
    _write(tmp_path, "a.yaml", MINIMAL)
    _write(tmp_path, "b.yaml", _overlay("a.yaml", "budget:\n  monthlyAmount: 2000\n"))
    c = _write(tmp_path, "c.yaml", _overlay("b.yaml", "metadata:\n  name: chained\n"))
    loaded = load_policy(c)
    assert loaded.policy.metadata.name == "chained"
    assert loaded.policy.budget.monthly_amount == 2000
    assert [p.name for p in loaded.chain] == ["a.yaml", "b.yaml", "c.yaml"]

    x = _write(tmp_path, "x.yaml", _overlay("y.yaml", ""))
    _write(tmp_path, "y.yaml", _overlay("x.yaml", ""))
    with pytest.raises(PolicyError) as exc:
        load_policy(x)
    assert "extends: cycle: x.yaml is already part of this chain" in str(exc.value)


def test_missing_base(tmp_path: Path) -> None:
    p = _write(tmp_path, "p.yaml", _overlay("nowhere.yaml", ""))
    with pytest.raises(PolicyError) as exc:
        load_policy(p)
    assert str(exc.value) == f"{p}:3:10: extends: base policy not found: nowhere.yaml"


@pytest.mark.parametrize(("target", "message"), [(".", ". is a directory; expected a policy file"),
                                                 ("/dev/null", "/dev/null is not a regular file; expected a policy file")])
def test_a_base_that_is_no_file(tmp_path: Path, target: str, message: str) -> None:
    p = _write(tmp_path, "p.yaml", _overlay(target, ""))
    with pytest.raises(PolicyError) as exc:
        load_policy(p)
    assert str(exc.value) == f"{p}:3:10: extends: {message}"


def test_example_stacks_extend_the_base(repo: Path) -> None:
    dev = load_policy(repo / "stacks/policies/dev.yaml").policy
    eu = load_policy(repo / "stacks/policies/eu-prod.yaml").policy
    assert [f.name for f in dev.fleets] == ["finetune", "inference", "batch-embed"]
    assert [f.name for f in eu.fleets] == ["llm-train", "finetune", "inference", "batch-embed", "eval"]
    assert dev.fleet("inference").sla.value == "silver" and eu.fleet("inference").sla.value == "gold"
    assert eu.metadata.tags["cost-center"] == "CC-4120"  # from the base
    assert [c.name for c in dev.storage.classes] == ["general", "scratch"]


def test_paths_in_a_base_resolve_from_the_base(tmp_path: Path) -> None:
    (tmp_path / "base").mkdir()
    (tmp_path / "base" / "demand.csv").write_text("hour,demand\n0,1\n")
    base = MINIMAL.replace("    capacity: {min: 1, desired: 2, max: 4}", "    capacity: {min: 1, desired: 2, max: 4}\n    demandHistory: demand.csv")
    _write(tmp_path / "base", "base.yaml", base)
    p = _write(tmp_path, "prod.yaml", _overlay("base/base.yaml", ""))
    policy = load_policy(p).policy
    assert policy.fleets[0].demand_history == "base/demand.csv"


def test_a_comparison_names_the_overlay_that_set_the_other_side(tmp_path: Path) -> None:
    # the overlay lowers max; desired, reported, is in the base: the message says where max was set
    _write(tmp_path, "base.yaml", BASE_FLEETS)
    p = _write(tmp_path, "p.yaml", _overlay("base.yaml", "fleets:\n  - name: batch\n    capacity: {max: 0}\n"))
    with pytest.raises(PolicyError) as exc:
        load_policy(p)
    (problem,) = [q for q in exc.value.problems if "desired <= max" in str(q)]
    assert str(problem).startswith(str(tmp_path / "base.yaml"))
    assert str(problem).endswith(f"got desired 1 > max 0 (max set at {p}:6:21)")
    # an off-peak window's size against the overlay's max says so too
    windows = BASE_FLEETS + "    offPeak: [{cron: '0 20 * * 1-5', hours: 8, desired: 1}]\n"
    _write(tmp_path, "base2.yaml", windows)
    p2 = _write(tmp_path, "p2.yaml", _overlay("base2.yaml", "fleets:\n  - name: batch\n    capacity: {desired: 0, max: 0}\n"))
    with pytest.raises(PolicyError) as exc:
        load_policy(p2)
    assert any("offPeak[0].desired" in str(q) and str(q).endswith(f"got 1 (max set at {p2}:6:33)")
               for q in exc.value.problems), [str(q) for q in exc.value.problems]
    # both in one file: nothing added
    one = _write(tmp_path, "one.yaml", BASE_FLEETS.replace("max: 2}\n    spot", "max: 0}\n    spot"))
    with pytest.raises(PolicyError) as exc:
        load_policy(one)
    assert any(str(q).endswith("got desired 1 > max 0") for q in exc.value.problems)


def test_an_overlay_error_does_not_hide_the_document_s_other_errors(tmp_path: Path) -> None:
    # the $remove error stopped validation: the bad amount and owner were found one fix later
    _write(tmp_path, "base.yaml", MINIMAL)
    p = _write(tmp_path, "dev.yaml", _overlay("base.yaml", "budget:\n  monthlyAmount: -5\nmetadata:\n  owner: nobody\n"
                                                           "fleets:\n  - {name: nope, $remove: true}\n"))
    with pytest.raises(PolicyError) as exc:
        load_policy(p)
    paths = [problem.path for problem in exc.value.problems]
    assert sorted(paths) == ["budget.monthlyAmount", "fleets", "metadata.owner"]  # nothing repeated under fleets
