"""Hypothesis: no input whatsoever produces anything but a valid policy or located errors."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from seedance.policy import CostPolicy, PolicyError, load_policy_text

# Examples per property; SEEDANCE_FUZZ_SCALE=10 runs ten times as many (a deeper run than CI's).
SCALE = float(os.environ.get("SEEDANCE_FUZZ_SCALE", "1"))


def _n(examples: int) -> int:
    return max(1, round(examples * SCALE))


MINIMAL = yaml.safe_load((Path(__file__).parent / "valid" / "minimal.yaml").read_text())
# libyaml's emitter where PyYAML has it: the documents only need to be valid YAML, and dumping them
# in pure Python cost a third of this file's time
DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
LINE = re.compile(r"^fuzz\.yaml:\d+:\d+: .+: .+$", re.S)

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**12), max_value=10**12),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=20),
    st.sampled_from(["auto", "gold", "gp3", "A100", "1g.5gb", "eu-*", "2027-01-01", "seedance.io/v1"]),
)
values = st.recursive(
    scalars,
    lambda children: st.one_of(st.lists(children, max_size=4), st.dictionaries(st.text(max_size=12), children, max_size=4)),
    max_leaves=12,
)


def _paths(doc: Any, prefix: tuple = ()) -> list[tuple]:
    out = [prefix]
    if isinstance(doc, dict):
        for k, v in doc.items():
            out += _paths(v, prefix + (k,))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            out += _paths(v, prefix + (i,))
    return out


PATHS = _paths(MINIMAL)


def _set(doc: Any, path: tuple, value: Any) -> Any:
    if not path:
        return value
    head, rest = path[0], path[1:]
    if isinstance(doc, dict):
        new = dict(doc)
        new[head] = _set(doc.get(head), rest, value)
        return new
    new_list = list(doc)
    new_list[head] = _set(doc[head], rest, value)
    return new_list


def _check(text: str) -> None:
    try:
        policy = load_policy_text(text, "fuzz.yaml")
    except PolicyError as exc:
        assert exc.problems
        for problem in exc.problems:
            assert LINE.match(str(problem)), str(problem)
    else:
        assert isinstance(policy, CostPolicy)


@settings(max_examples=_n(800), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(PATHS), values)
def test_mutated_documents(path: tuple, value: Any) -> None:
    _check(yaml.dump(_set(MINIMAL, path, value), Dumper=DUMPER, allow_unicode=True))


@settings(max_examples=_n(500), deadline=None)
@given(st.text(max_size=300))
def test_arbitrary_text(text: str) -> None:
    _check(text)


@settings(max_examples=_n(300), deadline=None)
@given(st.binary(max_size=300))
def test_arbitrary_bytes(data: bytes) -> None:
    try:
        load_policy_text(data, "fuzz.yaml")
    except PolicyError as exc:
        for problem in exc.problems:
            assert LINE.match(str(problem)), str(problem)
