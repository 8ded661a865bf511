"""An overlay list item that is not a named mapping (null, a scalar, a mapping without a name) is
reported where it is, by its own index, not through the ``$remove`` marker of another item or as
the missing fields of the items after it."""

from __future__ import annotations

from pathlib import Path

import pytest

from seedance.policy import PolicyError, load_policy

MINIMAL = (Path(__file__).parent / "valid" / "minimal.yaml").read_text()
BASE_FLEETS = MINIMAL + (
    "  - name: batch\n    workload: batch\n    sla: bronze\n    cpu: {vcpu: 2, memoryGib: 8}\n"
    "    capacity: {min: 0, desired: 1, max: 2}\n    spot: {maxShare: 1.0}\n"
)


def _error(tmp: Path, body: str) -> tuple[Path, str]:
    (tmp / "base.yaml").write_text(BASE_FLEETS)
    p = tmp / "dev.yaml"
    p.write_text(f"apiVersion: seedance.io/v1\nkind: CostPolicy\nextends: base.yaml\n{body}")
    with pytest.raises(PolicyError) as exc:
        load_policy(p)
    return p, str(exc.value)


@pytest.mark.parametrize(("item", "shown"), [("null", "null"), ("3", "3"), ("[a]", "a list"), ("'web'", "'web'")])
def test_an_item_that_is_not_a_mapping_is_named_by_its_index(tmp_path: Path, item: str, shown: str) -> None:
    p, error = _error(tmp_path, f"fleets:\n  - {item}\n  - {{name: batch, $remove: true}}\n")
    assert error.splitlines() == [f"{p}:5:5: fleets[0]: expected a mapping, got {shown}"], error


def test_the_other_items_still_merge_by_name(tmp_path: Path) -> None:
    # a resize of a base fleet after the null item: no "missing required field" for it
    p, error = _error(tmp_path, "fleets:\n  - {name: web, capacity: {max: 8}}\n  - null\n")
    assert error.splitlines() == [f"{p}:6:5: fleets[1]: expected a mapping, got null"], error


def test_a_mapping_without_a_string_name(tmp_path: Path) -> None:
    p, error = _error(tmp_path, "fleets:\n  - {capacity: {max: 3}}\n  - {name: 7}\n")
    assert error.splitlines() == [
        f"{p}:5:5: fleets[0].name: missing required field 'name' (an overlay item merges into the base policy's "
        "item of its name, or adds one of a new name)",
        f"{p}:6:12: fleets[1].name: expected a string, got 7",
    ], error


def test_a_name_twice_keeps_its_own_index_after_an_unnamed_item(tmp_path: Path) -> None:
    p, error = _error(tmp_path, "fleets:\n  - null\n  - {name: batch, capacity: {max: 3}}\n  - {name: batch, $remove: true}\n")
    assert f"{p}:7:12: fleets[2].name: name 'batch' is used twice" in error, error
    assert f"{p}:5:5: fleets[0]: expected a mapping, got null" in error, error
