"""``--stack`` / ``--project-dir`` of ``plan``, ``estimate`` and ``diff``: whether the stack the
policy is deployed by joins a cluster, read from its ``Pulumi.STACK.yaml`` as ``seedance check`` does."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

import click

from seedance.textfile import same_path

log = logging.getLogger(__name__)

#: ``--project-dir``'s default: the example project of this repository (as ``synth`` and ``check``)
DEFAULT_PROJECT_DIR = Path("stacks")


def project_dir_option(fn):  # type: ignore[no-untyped-def]
    from seedance.commands.outputs import NonEmptyPath

    return click.option("--project-dir", type=NonEmptyPath(file_okay=False, path_type=Path), default=DEFAULT_PROJECT_DIR,
                        show_default=True, help="Pulumi project of --stack.")(fn)


def stack_name(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """``--stack``'s callback: a stack name is never empty (nor holds a NUL character or a path separator)."""
    if value is not None and (not value.strip() or any(c in value for c in "\0/\\")):
        raise click.BadParameter(f"expected a Pulumi stack name (letters, digits, '-', '_' or '.'), got {value!r}")
    return value


class StackFileError(click.ClickException):
    """A stack's Pulumi files exist but cannot be read: bad input (exit 1), not a malformed option."""

    def show(self, file=None) -> None:  # type: ignore[no-untyped-def,override]
        from seedance.cli import console

        console(stderr=True).print(f"error {self.message}", markup=False)


def joins_cluster(project_dir: Path, stack: str | None, policies: Sequence[Path] = (), *,
                  must_exist: bool = False) -> bool:
    """:func:`stack_joins_cluster` for ``plan``, ``estimate`` and ``diff``: a stack whose
    Pulumi.STACK.yaml does not exist is a usage error (a mistyped --stack, exit 2); one whose files
    cannot be read is bad input (exit 1, naming the file and line)."""
    from seedance.gate.inputs import InvalidInputError
    from seedance.synth.project import stack_file_path

    try:
        return stack_joins_cluster(project_dir, stack, policies, must_exist=must_exist)
    except InvalidInputError as exc:
        if stack is not None and not stack_file_path(project_dir, stack).is_file():
            raise click.UsageError(f"--stack {stack}: {exc}") from None
        raise StackFileError(f"--stack {stack}: {exc}") from None


def stack_joins_cluster(project_dir: Path, stack: str | None, policies: Sequence[Path] = (), *,
                        must_exist: bool = False) -> bool:
    """Whether the stack's fleets join a cluster: what its Pulumi.STACK.yaml says (InvalidInputError,
    naming the file and line, when it or the project's Pulumi.yaml cannot be read: bad input, which
    ``budget respond``/``poll`` report with exit 1).  ``must_exist`` (``plan``, ``estimate``, ``diff``):
    a stack without that file is an error naming the file looked for, as for ``synth`` and ``check``,
    so that a mistyped name does not quietly plan or price another kind of stack; else it is taken to
    join a cluster, with a warning.  Without ``--stack``: a cluster, as for a policy priced on its own.  ``policies``: the policy files the command reads; a warning says so when the stack deploys
    none of them (its seedance:policy), since its cluster setting and tag are then another policy's."""
    if stack is None:
        return True
    from seedance.synth.project import stack_file_path

    stack_file = stack_file_path(project_dir, stack)  # in Pulumi.yaml's stackConfigDir when it names one
    if not stack_file.is_file() and not must_exist:
        log.warning("--stack %s: %s does not exist, so the stack is taken to join a cluster", stack, stack_file)
        return True
    from seedance.gate.inputs import SecretPolicyError, stack_setup

    try:  # an unknown stack: "unknown stack 'x': FILE does not exist (stacks: ...)"
        setup = stack_setup(project_dir, stack)
    except SecretPolicyError as exc:
        log.warning("--stack %s: %s; whether the stack joins a cluster is read from its seedance:clusterName (%s)",
                    stack, exc, "set" if exc.cluster else "unset")
        return exc.cluster
    if policies and not any(same_path(setup.policy_path, p) for p in policies):
        log.warning("--stack %s deploys %s (seedance:policy in %s), not %s: its cluster setting and seedance:stack "
                    "tag are used for a policy it does not deploy", stack, setup.policy_path,
                    stack_file, " or ".join(str(p) for p in policies))
    return setup.cluster


def stack_files(project_dir: Path, stack: str | None) -> list[Path]:
    """The Pulumi files ``--stack`` reads: the project's Pulumi.yaml and the stack's Pulumi.STACK.yaml
    (none without ``--stack``); an output must not replace them."""
    if stack is None:
        return []
    from seedance.synth.project import stack_file_path

    return [project_dir / "Pulumi.yaml", stack_file_path(project_dir, stack)]
