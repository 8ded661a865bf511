"""``seedance synth``: the resource document of a stack (mock runtime) or of real Pulumi output."""

from __future__ import annotations

from pathlib import Path

import click

from seedance.atomic import write_text_atomically
from seedance.commands.outputs import NonEmptyPath, refuse_inputs
from seedance.synth.document import ResourceDocument


@click.command()
@click.argument("stack", required=False)
@click.option("--out", "out", type=NonEmptyPath(dir_okay=False, path_type=Path), help="Write the document here, in an existing directory (default and '-': stdout).")
@click.option("--from-preview", "preview", type=NonEmptyPath(dir_okay=False, path_type=Path), help="Read `pulumi preview --json` output.")
@click.option("--from-export", "export", type=NonEmptyPath(dir_okay=False, path_type=Path), help="Read `pulumi stack export` output.")
@click.option("--project-dir", type=NonEmptyPath(file_okay=False, path_type=Path), default=Path("stacks"), show_default=True,
              help="The Pulumi project holding Pulumi.<stack>.yaml.")
def synth(stack: str | None, out: Path | None, preview: Path | None, export: Path | None, project_dir: Path) -> int:
    """Write the desired-state resource document of STACK (run offline under Pulumi's mock
    runtime), or of a real `pulumi preview --json` / `pulumi stack export` file."""
    from seedance.cli import console
    from seedance.synth import IngestError, SynthError, load_export, load_preview, synthesize_stack
    from seedance.synth.components_errors import component_errors

    chosen = [x for x in (stack, preview, export) if x is not None]
    if len(chosen) != 1:
        raise click.UsageError("give exactly one of STACK, --from-preview FILE or --from-export FILE")
    err = console(stderr=True)
    refuse_inputs(out, [x for x in (preview, export) if x is not None] + (_stack_inputs(stack, project_dir) if stack else []))
    try:
        if preview is not None:
            doc: ResourceDocument = load_preview(preview)
            what = f"preview {preview}"
        elif export is not None:
            doc = load_export(export)
            what = f"export {export}"
        else:
            assert stack is not None
            result = synthesize_stack(stack, project_dir)
            doc = result.document
            what = f"stack {stack} ({result.seconds:.2f} s)"
    except (IngestError, SynthError, *component_errors()) as exc:
        err.print(f"error: {exc}", markup=False, highlight=False)
        return 1
    text = doc.dumps()
    to_file = out is not None and str(out) != "-"  # `--out -` is stdout, as for `seedance plan`
    if to_file:
        assert out is not None
        if not out.parent.is_dir():  # as `seedance plan`: the directory is not made
            err.print(f"error --out {out}: cannot write: no directory {out.parent}", markup=False, highlight=False)
            return 1
        try:  # whole or not at all: a failed write keeps the previous file
            write_text_atomically(out, text)
        except OSError as exc:
            err.print(f"error --out {out}: cannot write: {exc.strerror or exc}", markup=False, highlight=False)
            return 1
    else:
        click.echo(text, nl=False)
    for note in doc.notes:
        err.print(f"note: {note}", markup=False)
    target = f" -> {out}" if to_file else ""
    err.print(f"{what}: {len(doc.resources)} resources{target}", markup=False)
    return 0


def _stack_inputs(stack: str, project_dir: Path) -> list[Path]:
    """The files synthesising STACK reads: the project's Pulumi files and program (its Python files)
    and the stack's cost policy (with its bases and demand histories); what cannot be read yet is left
    to the synthesis to report."""
    from seedance.commands.outputs import policy_inputs
    from seedance.gate.inputs import InvalidInputError, policy_path_for_stack
    from seedance.policy import PolicyError, load_policy

    from seedance.synth.project import project_layout

    layout = project_layout(project_dir)  # stackConfigDir and main honoured
    files = [project_dir / "Pulumi.yaml", layout.config_dir / f"Pulumi.{stack}.yaml", layout.program_dir / "__main__.py",
             *layout.program_dir.glob("*.py")]
    try:
        files += policy_inputs(load_policy(policy_path_for_stack(project_dir, stack)))
    except (InvalidInputError, PolicyError, OSError):
        pass
    return files
