"""Pulumi program of the seedance-gpu example project: the shared program in ``components/stack.py``.
The same file runs under ``pulumi up`` and under ``seedance synth``."""

import sys
from pathlib import Path

PROJECT_DIR = Path(__file__).resolve().parent
if str(PROJECT_DIR.parent) not in sys.path:  # components/ and seedance/ when not pip-installed
    sys.path.insert(0, str(PROJECT_DIR.parent))

from components.stack import run  # noqa: E402

run(PROJECT_DIR)
