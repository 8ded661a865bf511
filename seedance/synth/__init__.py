"""Offline synthesis: Pulumi programs under the mock runtime, and real preview/export output,
as one resource document (:class:`seedance.synth.document.ResourceDocument`).

The names below are imported on first use: reading a preview or a document needs no Pulumi SDK,
and importing it costs more than the rest of a command such as ``seedance estimate``.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

_HOME = {
    "ResourceDocument": "seedance.synth.document",
    "IngestError": "seedance.synth.ingest",
    "load_export": "seedance.synth.ingest",
    "load_preview": "seedance.synth.ingest",
    "synthesize_stack": "seedance.synth.project",
    "SynthError": "seedance.synth.runtime",
    "run_program": "seedance.synth.runtime",
}

__all__ = ["IngestError", "ResourceDocument", "SynthError", "load_export", "load_preview", "run_program", "synthesize_stack"]


def __getattr__(name: str) -> Any:
    try:
        module = _HOME[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    return getattr(import_module(module), name)


if TYPE_CHECKING:  # pragma: no cover
    from seedance.synth.document import ResourceDocument
    from seedance.synth.ingest import IngestError, load_export, load_preview
    from seedance.synth.project import synthesize_stack
    from seedance.synth.runtime import SynthError, run_program
