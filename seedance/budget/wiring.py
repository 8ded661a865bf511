"""Which policy file a stack deploys, so a budget response says how to put its overlay in force.

A stack deploys the file its ``seedance:policy`` names (relative to the Pulumi project directory).
An overlay written by ``seedance budget respond``/``poll`` changes nothing until that key names it,
and a stack that names it cannot have it deleted before the key points back. The report's steps
follow what the stack's ``Pulumi.STACK.yaml`` says now; they are built here once, as segments
(plain text or code), for the text report and the Markdown one alike.
"""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

from seedance.textfile import same_path

#: a step of the report: (is_code, text)
Segment = tuple[bool, str]


class Deploys(str, Enum):
    OVERLAY = "overlay"  # the stack's seedance:policy names the overlay: it is (or will be) in force
    POLICY = "policy"  # it names the policy the overlay extends: the overlay is not deployed
    OTHER = "other"  # it names neither


@dataclass(frozen=True)
class Wiring:
    """What ``Pulumi.STACK.yaml`` of ``project_dir`` deploys, against the policy and its overlay."""

    stack: str
    project_dir: Path
    configured: str  # the seedance:policy value as the stack file gives it
    deploys: Deploys

    @property
    def stack_file(self) -> str:
        return str(self.project_dir / f"Pulumi.{self.stack}.yaml")

    def ref(self, path: str | Path) -> str:
        """``path`` as seedance:policy must name it: relative to the project directory, with '/'."""
        rel = os.path.relpath(Path(path).resolve(), self.project_dir.resolve())
        return Path(rel).as_posix()

    def config_set(self, path: str | Path) -> str:
        """The command that points the stack at ``path``, run from the current directory."""
        cwd = os.path.relpath(self.project_dir.resolve(), Path.cwd())
        where = "" if cwd == "." else f" --cwd {shlex.quote(cwd)}"
        return f"pulumi config set seedance:policy {shlex.quote(self.ref(path))} --stack {shlex.quote(self.stack)}{where}"

    def to_json(self, overlay: str | None, policy: str) -> dict[str, object]:
        target = overlay if overlay is not None and self.deploys is not Deploys.OVERLAY else None
        return {"name": self.stack, "file": self.stack_file, "seedancePolicy": self.configured,
                "deploys": self.deploys.value,
                # the command that puts the overlay in force (None when it already is, or none was written)
                "pointAtOverlay": None if target is None else self.config_set(target),
                "pointBack": self.config_set(policy)}


def stack_wiring(project_dir: Path, stack: str | None, *, policy: Path, overlay: Path | None) -> Wiring | None:
    """What stack ``stack`` deploys, or None without a stack, its file, or a seedance:policy to read
    (the report then gives the steps without naming the stack's file)."""
    from seedance.synth.project import read_stack_config
    from seedance.synth.runtime import SynthError

    if stack is None or not (project_dir / f"Pulumi.{stack}.yaml").is_file():
        return None
    try:
        configured = read_stack_config(project_dir, stack).config.get("seedance:policy")
    except SynthError:
        return None
    if not configured:
        return None
    deployed = project_dir / configured
    if overlay is not None and same_path(deployed, overlay):
        deploys = Deploys.OVERLAY
    elif same_path(deployed, policy):
        deploys = Deploys.POLICY
    else:
        deploys = Deploys.OTHER
    return Wiring(stack, project_dir, configured, deploys)


_CHECK_AND_UP: list[Segment] = [(False, "run "), (True, "seedance check"), (False, ", then "), (True, "pulumi up")]


def deploy_steps(overlay: str, wiring: Wiring | None) -> list[Segment]:
    """After ``overlay`` was written: how it comes into force."""
    if wiring is None:
        return [(False, "point the stack's "), (True, "seedance:policy"),
                (False, " at it (a path relative to the Pulumi project directory), commit it, "), *_CHECK_AND_UP]
    if wiring.deploys is Deploys.OVERLAY:
        return [(False, f"stack {wiring.stack} deploys it ("), (True, "seedance:policy"), (False, " in "),
                (True, wiring.stack_file), (False, "): commit it, "), *_CHECK_AND_UP]
    which = "still deploys" if wiring.deploys is Deploys.POLICY else "deploys"
    other = "" if wiring.deploys is Deploys.POLICY else ", neither the policy nor this overlay"
    return [(False, f"stack {wiring.stack} {which} "), (True, wiring.configured), (False, f"{other} ("),
            (True, "seedance:policy"), (False, " in "), (True, wiring.stack_file),
            (False, "), so pulumi up does not apply the overlay until it names it: "),
            (True, wiring.config_set(overlay)), (False, "; commit both, "), *_CHECK_AND_UP]


def revert_steps(overlay: str, policy: str | None, wiring: Wiring | None) -> list[Segment]:
    """How to lift the response of ``overlay`` (written now or kept from an earlier alert); ``policy``:
    the policy it extends, when known."""
    if wiring is None or policy is None:
        named: list[Segment] = [(False, ", "), (True, policy), (False, " (a path relative to the Pulumi project "
                                                                       "directory)")] if policy else []
        return [(False, "point the stack's "), (True, "seedance:policy"), (False, " back to the policy"), *named,
                (False, ", "), *_CHECK_AND_UP, (False, "; delete "), (True, overlay), (False, " once no stack names it")]
    if wiring.deploys is Deploys.POLICY:
        return [(False, f"stack {wiring.stack} does not deploy the overlay, so nothing is in force; delete "),
                (True, overlay), (False, " to drop the response")]
    return [(False, "point the stack back to the policy: "), (True, wiring.config_set(policy)), (False, ", "),
            *_CHECK_AND_UP, *([(False, "; delete "), (True, overlay), (False, " only after that (the stack reads it)")]
                              if wiring.deploys is Deploys.OVERLAY else [])]


def plain(segments: list[Segment]) -> str:
    return "".join(text for _, text in segments)


__all__ = ["Deploys", "Segment", "Wiring", "deploy_steps", "plain", "revert_steps", "stack_wiring"]
