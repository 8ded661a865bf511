from __future__ import annotations

from pathlib import Path

import pytest

from seedance.policy import load_policy
from seedance.policy.loader import LoadedPolicy
from seedance.pricing import load_catalog
from seedance.pricing.catalog import Catalog

REPO = Path(__file__).resolve().parents[2]
POLICIES = REPO / "stacks" / "policies"


@pytest.fixture(scope="session")
def catalog() -> Catalog:
    return load_catalog()


@pytest.fixture(scope="session")
def stacks() -> dict[str, LoadedPolicy]:
    return {name: load_policy(POLICIES / f"{name}.yaml") for name in ("eu-prod", "cn-prod", "dev")}
