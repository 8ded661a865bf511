"""An output path must not be one of the command's own inputs (a policy, its bases, its demand
history, the stack's Pulumi files): writing a plan or a document there would destroy the input."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

import click

from seedance.policy.loader import LoadedPolicy


def policy_inputs(loaded: LoadedPolicy) -> list[Path]:
    """The files a policy is read from: its extends chain and its fleets' demand histories."""
    files = list(loaded.chain)
    files += [loaded.base_dir / f.demand_history for f in loaded.policy.fleets if f.demand_history]
    return files


def refuse_inputs(out: Path | None, inputs: Iterable[Path], option: str = "--out") -> None:
    """A usage error when ``out`` is (the same file as) one of ``inputs``."""
    if out is None or str(out) == "-":
        return
    for f in inputs:
        if _same_file(out, f):
            raise click.BadParameter(f"{out} is one of this command's inputs ({f}); the output must not replace it",
                                     param_hint=option)


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.exists() and b.exists() and os.path.samefile(a, b)
    except OSError:
        return False
