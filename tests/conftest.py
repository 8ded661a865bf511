from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

# Hypothesis keeps no example database: tests must not write into the checkout.
settings.register_profile("seedance", database=None)
settings.load_profile("seedance")

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


@pytest.fixture(scope="session")
def moto_endpoint():  # type: ignore[no-untyped-def]
    """A real moto server on 127.0.0.1 (a free port), reached by boto3 over HTTP like AWS itself."""
    from moto.server import ThreadedMotoServer

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    yield f"http://{host}:{port}"
    server.stop()


@pytest.fixture
def aws_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Dummy credentials so no test can reach a real account by accident."""
    for key, value in {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_SESSION_TOKEN": "testing",
                       "AWS_DEFAULT_REGION": "us-east-1"}.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("AWS_PROFILE", raising=False)
