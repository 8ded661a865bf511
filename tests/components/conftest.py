"""Synthesise each example stack once (under the mock runtime) for the component tests."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from seedance.planner.plan import Plan
from seedance.policy.loader import LoadedPolicy
from seedance.synth.document import Resource, ResourceDocument
from seedance.synth.program import catalog, load_stack_policy, plan_for
from seedance.synth.project import synthesize_stack

REPO = Path(__file__).resolve().parents[2]
STACKS_DIR = REPO / "stacks"
EXAMPLE_STACKS = ("eu-prod", "cn-prod", "dev")
REGIONS = {"eu-prod": "eu-central-1", "cn-prod": "cn-north-1", "dev": "us-east-1"}


@dataclass(frozen=True)
class Synthesised:
    stack: str
    loaded: LoadedPolicy
    plan: Plan
    doc: ResourceDocument
    outputs: dict[str, Any]

    @property
    def policy(self):  # noqa: ANN201 - CostPolicy
        return self.loaded.policy

    def one(self, name: str) -> Resource:
        return self.doc.by_name(name)

    def of_type(self, token: str) -> list[Resource]:
        return self.doc.of_type(token)

    def kms_key_arn(self) -> str:
        if self.policy.compliance.kms_key_arn:
            return self.policy.compliance.kms_key_arn
        keys = self.of_type("aws:kms/key:Key")
        assert len(keys) == 1
        return self.outputs["kmsKeyArn"]


@functools.cache
def synthesised(stack: str) -> Synthesised:
    loaded = load_stack_policy(STACKS_DIR, f"policies/{stack}.yaml", REGIONS[stack])
    plan = plan_for(loaded, catalog(), cluster=stack in CLUSTERED_STACKS)  # as the stack program plans it
    result = synthesize_stack(stack, STACKS_DIR)
    return Synthesised(stack, loaded, plan, result.document, result.outputs)


@pytest.fixture(params=EXAMPLE_STACKS)
def stack(request: pytest.FixtureRequest) -> Synthesised:
    return synthesised(request.param)


#: The example stacks that name an EKS cluster (seedance:clusterName) and so have a Kubernetes side.
CLUSTERED_STACKS = ("eu-prod", "cn-prod")


@pytest.fixture(params=CLUSTERED_STACKS)
def clustered(request: pytest.FixtureRequest) -> Synthesised:
    return synthesised(request.param)


@pytest.fixture
def eu() -> Synthesised:
    return synthesised("eu-prod")


@pytest.fixture
def cn() -> Synthesised:
    return synthesised("cn-prod")


@pytest.fixture
def dev() -> Synthesised:
    return synthesised("dev")


def pytest_configure(config: pytest.Config) -> None:
    # pulumi-aws 7 warns about its own deprecated V2 classes at import time
    config.addinivalue_line("filterwarnings", "ignore::DeprecationWarning:pulumi_aws.*")
