"""lib.cidr against Python's ipaddress: whether CIDRs together cover the internet, and whether one
holds a public address, on random lists built to land near a cover (halves, quarters, the
special-purpose ranges, a missing piece)."""

from __future__ import annotations

import ipaddress
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from seedance.gate import load_bundle
from seedance.gate.engine import compile_modules

# the IPv4 ranges lib.cidr does not count as the internet, as the IANA registry lists them
SPECIAL_V4 = [ipaddress.ip_network(c) for c in (
    "0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12",
    "192.0.0.0/24", "192.0.2.0/24", "192.168.0.0/16", "198.18.0.0/15", "198.51.100.0/24",
    "203.0.113.0/24", "224.0.0.0/4", "240.0.0.0/4",
)]
GLOBAL_V6 = ipaddress.ip_network("2000::/3")


def _public_v4_blocks() -> list[ipaddress.IPv4Network]:
    blocks = [ipaddress.ip_network("0.0.0.0/0")]
    for special in SPECIAL_V4:
        blocks = [piece for b in blocks for piece in (b.address_exclude(special) if special.subnet_of(b) else [b])]
    return blocks


PUBLIC_V4 = _public_v4_blocks()


def _covers(networks: list, targets: list) -> bool:
    merged = list(ipaddress.collapse_addresses(networks))  # minimal: a covered block lies in one of them
    return all(any(t.subnet_of(m) for m in merged) for t in targets)


def expected_internet(cidrs: list[str]) -> bool:
    v4 = [ipaddress.ip_network(c, strict=False) for c in cidrs if ":" not in c]
    # IPv6 ranges longer than /32 are left out by design (lib.cidr reads the first 32 bits)
    v6 = [n for c in cidrs if ":" in c for n in [ipaddress.ip_network(c, strict=False)] if n.prefixlen <= 32]
    return _covers(v4, PUBLIC_V4) or _covers(v6, [GLOBAL_V6])


def expected_public(c: str) -> bool:
    n = ipaddress.ip_network(c, strict=False)
    if n.version == 6:
        return n.overlaps(GLOBAL_V6)
    return not any(n.subnet_of(s) for s in SPECIAL_V4)


@pytest.fixture(scope="module")
def engine():
    return compile_modules(load_bundle())


def _holds(engine, rule: str, value) -> bool:
    engine.set_input({"value": value})
    out = json.loads(engine.eval_query_as_json(f"x := data.lib.cidr.{rule}(input.value)"))
    return bool(out.get("result"))


@st.composite
def v4_cidrs(draw) -> str:
    kind = draw(st.sampled_from(["short", "special", "any"]))
    if kind == "special":
        return str(draw(st.sampled_from(SPECIAL_V4)))
    prefix = draw(st.integers(0, 4) if kind == "short" else st.integers(0, 32))
    address = ipaddress.IPv4Address(draw(st.integers(0, 2**32 - 1)))
    return f"{address}/{prefix}"  # host bits may be set, as users write them


@st.composite
def v6_cidrs(draw) -> str:
    prefix = draw(st.sampled_from([0, 1, 2, 3, 4, 5, 32, 33, 48]))
    address = ipaddress.IPv6Address(draw(st.integers(0, 2**128 - 1)))
    return f"{address.compressed}/{prefix}"


@st.composite
def cidr_lists(draw) -> list[str]:
    cidrs = draw(st.lists(st.one_of(v4_cidrs(), v6_cidrs()), max_size=6))
    if draw(st.booleans()):  # the public blocks, one perhaps left out: right at the edge of a cover
        blocks = [str(b) for b in PUBLIC_V4]
        if draw(st.booleans()):
            blocks.pop(draw(st.integers(0, len(blocks) - 1)))
        cidrs += blocks
    if draw(st.booleans()):  # 2000::/3 in halves or quarters, one perhaps left out
        parts = [str(n) for n in GLOBAL_V6.subnets(prefixlen_diff=draw(st.integers(1, 2)))]
        if draw(st.booleans()):
            parts.pop(draw(st.integers(0, len(parts) - 1)))
        cidrs += parts
    return draw(st.permutations(cidrs))


@settings(max_examples=300, deadline=None, database=None)
@given(cidrs=cidr_lists())
def test_internet_matches_ipaddress(engine, cidrs: list[str]) -> None:
    assert _holds(engine, "internet", cidrs) == expected_internet(cidrs), cidrs


@settings(max_examples=300, deadline=None, database=None)
@given(c=st.one_of(v4_cidrs(), v6_cidrs()))
def test_public_matches_ipaddress(engine, c: str) -> None:
    assert _holds(engine, "public", c) == expected_public(c), c


def test_the_public_blocks_cover_the_internet_and_one_fewer_does_not(engine) -> None:
    blocks = [str(b) for b in PUBLIC_V4]
    assert _holds(engine, "internet", blocks)
    for i in range(len(blocks)):
        assert not _holds(engine, "internet", blocks[:i] + blocks[i + 1:]), blocks[i]
