"""An output path must not be one of the command's own inputs (a policy, its bases, its demand
history, the stack's Pulumi files and program, Seedance's own code, price catalog and price cache):
writing a plan or a document there would destroy the input."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from seedance.policy.loader import LoadedPolicy


class NonEmptyPath(click.Path):
    """A :class:`click.Path` that refuses an empty value, which click would take as ``.``, the current
    directory: ``--out ''`` would then try to replace it, ``--cache-dir ''`` read it as a price cache."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str) and not value:
            self.fail(f"expected a {'file' if self.file_okay else 'directory'} path, got ''", param, ctx)
        return super().convert(value, param, ctx)


def policy_inputs(loaded: LoadedPolicy) -> list[Path]:
    """The files a policy is read from: its extends chain and its fleets' demand histories, with
    those any file of the chain names (a base's fleet this policy removes still plans from its
    history in the other policies extending that base)."""
    from seedance.policy.loader import chain_demand_histories

    files = list(loaded.chain)
    files += [loaded.base_dir / f.demand_history for f in loaded.policy.fleets if f.demand_history]
    files += chain_demand_histories(loaded)
    return files


def require_out_directory(out: Path | None, option: str = "--out") -> None:
    """A usage error (exit 2) when ``out``'s directory does not exist: it is never made up ('-' is stdout)."""
    if out is not None and str(out) != "-" and not out.parent.is_dir():
        raise click.BadParameter(f"{out}: the directory {out.parent} does not exist", param_hint=option)


def refuse_inputs(out: Path | None, inputs: Iterable[Path], option: str = "--out", *,
                  cache_dir: Path | None = None) -> None:
    """A usage error when ``out`` is (the same file as) one of ``inputs``, a file of Seedance's own code
    (:func:`code_directories`: with the stack program's components, the bundled price catalog) or a
    price file of the cache (``cache_dir``, else ``$SEEDANCE_PRICE_CACHE``), which every command reads."""
    if out is None or str(out) == "-":
        return
    for f in inputs:
        if _same_file(out, f):
            raise click.BadParameter(f"{out} is one of this command's inputs ({f}); the output must not replace it",
                                     param_hint=option)
    target = Path(os.path.realpath(out))
    for d in code_directories():
        if target.is_relative_to(d):
            raise click.BadParameter(f"{out} is in {d}, Seedance's own code and prices, which this command reads; the "
                                     "output must not replace them", param_hint=option)
    from seedance.pricing.catalog import CACHE_GLOB, PRICE_CACHE_ENV

    cache = cache_dir if cache_dir is not None else os.environ.get(PRICE_CACHE_ENV)
    if cache and target.parent == Path(os.path.realpath(cache)) and target.match(CACHE_GLOB):
        raise click.BadParameter(f"{out} is a price file of the cache {cache}, which this command reads; the output "
                                 "must not replace it", param_hint=option)


def code_directories() -> list[Path]:
    """The directories of the ``seedance`` and ``components`` packages: code, bundled policies and
    templates (in an installed copy) and the price catalog."""
    import components
    import seedance

    return [Path(os.path.realpath(Path(m.__file__).parent)) for m in (seedance, components) if m.__file__]


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.exists() and b.exists() and os.path.samefile(a, b)
    except OSError:
        return False
