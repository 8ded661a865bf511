"""``--stack`` / ``--project-dir`` of ``plan``, ``estimate`` and ``diff``: whether the stack the
policy is deployed by joins a cluster, read from its ``Pulumi.STACK.yaml`` as ``seedance check`` does."""

from __future__ import annotations

import logging
from pathlib import Path

import click

log = logging.getLogger(__name__)

#: ``--project-dir``'s default: the example project of this repository (as ``synth`` and ``check``)
DEFAULT_PROJECT_DIR = Path("stacks")


def project_dir_option(fn):  # type: ignore[no-untyped-def]
    return click.option("--project-dir", type=click.Path(file_okay=False, path_type=Path), default=DEFAULT_PROJECT_DIR,
                        show_default=True, help="Pulumi project of --stack.")(fn)


def joins_cluster(project_dir: Path, stack: str | None) -> bool:
    """Whether the stack's fleets join a cluster: what its Pulumi.STACK.yaml says, when there is one
    (one that cannot be read is a usage error); else assumed, as for a policy priced on its own."""
    if stack is None:
        return True
    if not (project_dir / f"Pulumi.{stack}.yaml").is_file():
        log.warning("--stack %s: %s holds no Pulumi.%s.yaml, so the stack is taken to join a cluster", stack,
                    project_dir, stack)
        return True
    from seedance.gate.inputs import InvalidInputError, stack_setup

    try:
        return stack_setup(project_dir, stack).cluster
    except InvalidInputError as exc:
        raise click.UsageError(f"--stack {stack}: {exc}") from None
