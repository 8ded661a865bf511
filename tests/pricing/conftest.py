from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def locate_shared() -> Path:
    """``$SEEDANCE_SHARED_DATA`` or ``<repo>/../shared/data`` (CI clones the repo beside ``shared/``)."""
    env = os.environ.get("SEEDANCE_SHARED_DATA")
    return Path(env) if env else REPO.parent / "shared" / "data"


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """The shared data; its absence fails loudly unless SEEDANCE_ALLOW_NO_SHARED=1."""
    path = locate_shared()
    if not (path / "aws_pricing" / "gpu_instance_prices_compact.csv").is_file():
        if os.environ.get("SEEDANCE_ALLOW_NO_SHARED") == "1":
            pytest.skip(f"shared data not found at {path} (SEEDANCE_ALLOW_NO_SHARED=1)")
        pytest.fail(
            f"shared data not found at {path}: set SEEDANCE_SHARED_DATA, or SEEDANCE_ALLOW_NO_SHARED=1 to skip the rebuild checks",
            pytrace=False,
        )
    return path
