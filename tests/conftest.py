from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
STACK_POLICIES = REPO / "stacks" / "policies"
EXAMPLE_STACKS = ("eu-prod", "cn-prod", "dev")


def shared_data_dir() -> Path:
    env = os.environ.get("SEEDANCE_SHARED_DATA")
    return Path(env) if env else (REPO.parent / "shared" / "data")


@pytest.fixture
def repo() -> Path:
    return REPO


@pytest.fixture(params=EXAMPLE_STACKS)
def example_stack(request: pytest.FixtureRequest) -> str:
    return request.param
