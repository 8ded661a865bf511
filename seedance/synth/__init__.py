"""Offline synthesis: Pulumi programs under the mock runtime, and real preview/export output,
as one resource document (:class:`seedance.synth.document.ResourceDocument`)."""

from seedance.synth.document import ResourceDocument
from seedance.synth.ingest import IngestError, load_export, load_preview
from seedance.synth.project import synthesize_stack
from seedance.synth.runtime import SynthError, run_program

__all__ = ["IngestError", "ResourceDocument", "SynthError", "load_export", "load_preview", "run_program", "synthesize_stack"]
