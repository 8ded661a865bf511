"""Which policy file a stack deploys, so a budget response says how to put its overlay in force.

A stack deploys the file its ``seedance:policy`` names, relative to the directory Pulumi runs the
program in (``main`` of ``Pulumi.yaml``; the project directory by default), which is where the
program loads it from. The stack file is ``Pulumi.STACK.yaml`` in ``stackConfigDir`` (the project
directory by default); the key may also come from ``Pulumi.yaml``'s own ``config``.

An overlay written by ``seedance budget respond``/``poll`` changes nothing until that key names it,
and a stack that names it cannot have it deleted before the key points back. The report's steps
follow what the stack's config says now; they are built here once, as segments (plain text or
code), for the text report and the Markdown one alike.

Paths are compared as the files they name (symlinks followed, files that do not exist yet
included), and printed in the user's terms: a value the stack file already holds is given back as
written, a new one relative to the program directory without following symlinks (unless only the
resolved path names the file from there).
"""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any

from seedance.textfile import same_path

#: How an overlay a budget response wrote begins (the line before its stamp)
OVERLAY_HEADER = "# Budget response to "


def overlay_extends(text: str, at: Path, policy: Path) -> tuple[str | None, bool]:
    """An overlay's ``extends`` (``text`` read from ``at``) and whether it names ``policy``; (None,
    False) when it names none that can be read."""
    import yaml

    from seedance.budget.response import same_file

    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError:
        return None, False
    ext = doc.get("extends") if isinstance(doc, dict) else None
    if not isinstance(ext, str) or not ext:
        return None, False
    return ext, same_file(ext, at.parent, str(policy), Path.cwd())


def _budget_overlay_of(path: Path, policy: Path) -> bool:
    """Whether ``path`` is an overlay an earlier budget response wrote for ``policy``."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return text.startswith(OVERLAY_HEADER) and overlay_extends(text, path, policy)[1]

#: a step of the report: (is_code, text)
Segment = tuple[bool, str]


class Deploys(str, Enum):
    OVERLAY = "overlay"  # the stack's seedance:policy names the overlay: it is (or will be) in force
    POLICY = "policy"  # it names the policy the overlay extends: the overlay is not deployed
    OTHER = "other"  # it names neither (another file, or an overlay of it)
    UNKNOWN = "unknown"  # it cannot be told: the value is secret, or not a path


def config_ref(path: Path, base: Path) -> str:
    """``path`` as ``seedance:policy`` must name it: relative to ``base`` (the program directory), with '/',
    in the user's terms (symlinks kept) when that spelling names the same file from ``base``."""
    plain_rel = Path(os.path.relpath(os.path.abspath(path), os.path.abspath(base))).as_posix()
    if same_path(base / plain_rel, path):
        return plain_rel
    return Path(os.path.relpath(Path(path).resolve(), Path(base).resolve())).as_posix()


def _arg(value: str) -> str:
    return shlex.quote(value)


def config_set(value: str, stack: str, project_dir: Path) -> str:
    """The command that sets ``seedance:policy`` of ``stack`` to ``value``, run from the current directory
    (``project_dir`` as the user gave it). A value starting with '-' is passed after ``--``."""
    where = _cwd(project_dir)
    stack_opt = _stack_opt(stack)
    if value.startswith("-"):
        return f"pulumi config set seedance:policy {stack_opt}{where} -- {_arg(value)}"
    return f"pulumi config set seedance:policy {_arg(value)} {stack_opt}{where}"


def up_command(stack: str | None, project_dir: Path | None) -> str:
    """``pulumi up`` of ``stack`` of ``project_dir``, run from the same directory as the other steps
    (a bare ``pulumi up`` there finds no project, or deploys whichever stack is selected)."""
    return f"pulumi up {'--stack STACK' if stack is None else _stack_opt(stack)}" + (
        "" if project_dir is None else _cwd(project_dir))


def _stack_opt(stack: str) -> str:
    return f"--stack={_arg(stack)}" if stack.startswith("-") else f"--stack {_arg(stack)}"


def _cwd(project_dir: Path) -> str:
    cwd = str(project_dir)
    return "" if cwd in ("", ".") else (f" --cwd={_arg(cwd)}" if cwd.startswith("-") else f" --cwd {_arg(cwd)}")


def check_command(stack: str | None, project_dir: Path | None) -> str:
    """``seedance check`` with its argument and ``--project-dir``. A stack name starting with '-' is
    passed after ``--`` (``./NAME`` would name a document file, not the stack)."""
    where = "PROJECT_DIR" if project_dir is None else \
        _arg(str(project_dir) if not str(project_dir).startswith("-") else f"./{project_dir}")
    if stack is not None and stack.startswith("-"):
        return f"seedance check --project-dir {where} -- {_arg(stack)}"
    return f"seedance check {'STACK' if stack is None else _arg(stack)} --project-dir {where}"


@dataclass(frozen=True)
class Wiring:
    """What stack ``stack`` of ``project_dir`` deploys, against the policy and its overlay."""

    stack: str
    project_dir: Path  # as the user gave it (--project-dir)
    stack_file: Path  # Pulumi.STACK.yaml (in stackConfigDir), absolute, symlinks kept
    origin: Path  # the file that sets seedance:policy (the stack file, or Pulumi.yaml's config), absolute
    base: Path  # seedance:policy is relative to it: the program directory, as given (from --project-dir)
    configured: str | None  # the seedance:policy value as the file gives it; None when secret or not a path
    deploys: Deploys
    problem: str | None = None  # why the value cannot be used (Deploys.UNKNOWN)
    missing: bool = False  # the file it names does not exist: check and pulumi up fail
    secret: bool = False  # the value is encrypted (secure:): it cannot be read offline
    overlay: Path | None = None  # the overlay as the user named it (--out, symlinks kept)

    def ref(self, path: Path) -> str:
        return config_ref(path, self.base)

    def set_to(self, value: str) -> str:
        return config_set(value, self.stack, self.project_dir)

    def point_back_value(self, policy: Path) -> str | None:
        """What ``seedance:policy`` returns to when the response is lifted: the stack's own value unless
        it names the overlay (then the policy); None when the value cannot be read (secret)."""
        if self.secret:
            return None
        if self.deploys in (Deploys.OVERLAY, Deploys.UNKNOWN):  # UNKNOWN: a value that is no path
            return self.ref(policy)
        return self.configured

    def to_json(self, overlay: Path | None, policy: Path) -> dict[str, object]:
        """``overlay``: the overlay written now (None when none was: then nothing is put in force)."""
        target = overlay is not None and self.deploys in (Deploys.POLICY, Deploys.UNKNOWN)
        back = self.point_back_value(policy)
        return {"name": self.stack, "file": str(self.stack_file), "origin": str(self.origin),
                "seedancePolicy": self.configured, "deploys": self.deploys.value, "problem": self.problem,
                # False: the file seedance:policy names does not exist (seedance check and pulumi up fail)
                "deployedExists": None if self.configured is None else
                not self.missing or (overlay is not None and self.deploys is Deploys.OVERLAY),
                # the command that puts the overlay written now in force; None when it already is, when none
                # was written, or when the stack deploys another file (pointAtOverlayReplacing then)
                "pointAtOverlay": self.set_to(self.ref(overlay)) if target and overlay is not None else None,
                "pointAtOverlayReplacing": self.set_to(self.ref(overlay))
                if overlay is not None and self.deploys is Deploys.OTHER else None,
                # the command that lifts the response: back to what the stack deployed before it
                "pointBack": None if back is None else self.set_to(back)}


def _kind(value: Any) -> str:
    if value is None:
        return "empty (null)"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    return f"the {type(value).__name__} {value!r}"[:60]


def stack_wiring(project_dir: Path, stack: str | None, *, policy: Path, overlay: Path | None) -> Wiring | None:
    """What stack ``stack`` deploys, or None without a stack, its file, or a seedance:policy in its config
    (the report then gives the steps without naming the stack's file). ``policy`` and ``overlay``: the
    files as the user named them (compared as the files they name)."""
    from seedance.synth.project import read_stack_config
    from seedance.synth.runtime import SynthError

    if stack is None:
        return None
    try:
        sc = read_stack_config(project_dir, stack)
    except SynthError:
        return None
    key = "seedance:policy"
    origin = Path(os.path.abspath(sc.origin.get(key, sc.stack_file)))
    common = {"overlay": overlay, "stack": stack, "project_dir": project_dir, "stack_file": Path(os.path.abspath(sc.stack_file)),
              "origin": origin, "base": sc.base_dir}
    if key in sc.secure_keys:
        return Wiring(**common, configured=None, deploys=Deploys.UNKNOWN, secret=True,  # type: ignore[arg-type]
                      problem=f"seedance:policy in {origin} is a secret (secure: encrypted), which cannot be read "
                              "offline, so which policy the stack deploys is not known")
    if key not in sc.raw:
        return None
    raw = sc.raw[key]
    if not isinstance(raw, str) or not raw.strip():
        return Wiring(**common, configured=None, deploys=Deploys.UNKNOWN,  # type: ignore[arg-type]
                      problem=f"seedance:policy in {origin} is {_kind(raw) if raw != '' else 'empty'}, not a path: "
                              "seedance check and pulumi up fail until it names the policy file")
    deployed = sc.base_dir / raw
    if overlay is not None and same_path(deployed, overlay):
        deploys = Deploys.OVERLAY
    elif same_path(deployed, policy):
        deploys = Deploys.POLICY
    else:
        deploys = Deploys.OTHER
    return Wiring(**common, configured=raw, deploys=deploys, missing=not deployed.is_file())  # type: ignore[arg-type]


def wiring_warnings(wiring: Wiring | None, policy: Path, overlay_written: bool) -> list[str]:
    """What the user must know about the stack before acting on the response (pure but for the paths'
    spelling): the stack deploys another file, names a missing one, or a value that cannot be read."""
    if wiring is None:
        return []
    out: list[str] = []
    deployed = wiring.base / (wiring.configured or "")
    if wiring.deploys is Deploys.OTHER and wiring.configured and _budget_overlay_of(deployed, policy):
        out.append(f"stack {wiring.stack} deploys {wiring.configured} (seedance:policy in {wiring.origin}), the "
                   f"overlay an earlier budget response wrote for this policy, and this run wrote none beside it: "
                   f"respond with --out {shlex.quote(str(deployed))} to decide against that response and replace it")
    elif wiring.deploys is Deploys.OTHER:
        out.append(f"stack {wiring.stack} deploys {wiring.configured} (seedance:policy in {wiring.origin}), not the "
                   f"policy this response was computed from ({policy}): pointing it at the overlay would replace that "
                   f"file and drop what it sets; respond for the file the stack deploys (seedance budget respond "
                   f"{shlex.quote(str(wiring.base / (wiring.configured or '')))} ...) unless replacing it is what you "
                   "want")
    if wiring.missing and wiring.configured is not None:
        what = ("the overlay " if wiring.deploys is Deploys.OVERLAY else "") + f"{wiring.configured}, which"
        fix = (f"point it back to the policy ({wiring.set_to(wiring.ref(policy))}) or re-run this response when an "
               "alert changes the policy") if wiring.deploys is Deploys.OVERLAY and not overlay_written else \
            "point it at a file that exists"
        if not (wiring.deploys is Deploys.OVERLAY and overlay_written):
            out.append(f"stack {wiring.stack} names {what} does not exist (seedance:policy in {wiring.origin}): "
                       f"seedance check and pulumi up fail until it does; {fix}")
    if wiring.problem is not None:
        out.append(wiring.problem)
    return out


def lift_hint(wiring: Wiring | None) -> str:
    """How to lift an overlay kept in place, following what the stack deploys."""
    if wiring is not None and wiring.deploys in (Deploys.POLICY, Deploys.OTHER):
        return f"stack {wiring.stack} does not deploy it, so it is not in force; delete the overlay to drop it"
    return "point the stack's seedance:policy back to the policy, then delete the overlay, to lift it"


def _check_and_up(wiring: Wiring | None, stack: str | None, project_dir: Path | None) -> list[Segment]:
    if wiring is not None:
        stack, project_dir = wiring.stack, wiring.project_dir
    return [(False, "run "), (True, check_command(stack, project_dir)), (False, ", then "), (True, up_command(stack, project_dir))]


def _generic_ref(path: Path, base: Path | None) -> list[Segment]:
    """``path`` as seedance:policy names it, said in words, when the stack's config is not known."""
    if base is None:
        return [(True, os.path.abspath(path)), (False, " (seedance:policy names it relative to the directory the "
                                                       "Pulumi program runs in)")]
    return [(True, config_ref(path, base)), (False, " (relative to "), (True, os.path.abspath(base)),
            (False, ", where the Pulumi program runs)")]


def deploy_steps(overlay: Path, wiring: Wiring | None, *, stack: str | None = None, project_dir: Path | None = None,
                 base: Path | None = None, named: Path | None = None) -> list[Segment]:
    """After ``overlay`` was written: how it comes into force. Without ``wiring``, ``base``: the program
    directory when the project is known, ``stack`` and ``project_dir`` for the check command; ``named``:
    the overlay as the user named it (what seedance:policy is told to name)."""
    up = _check_and_up(wiring, stack, project_dir)
    overlay = (wiring.overlay if wiring is not None and wiring.overlay is not None else named) or overlay
    if wiring is None:
        return [(False, "point the stack's "), (True, "seedance:policy"), (False, " at it, "),
                *_generic_ref(overlay, base), (False, ", commit it, "), *up]
    where: list[Segment] = [(True, "seedance:policy"), (False, " in "), (True, str(wiring.origin))]
    if wiring.deploys is Deploys.OVERLAY:
        return [(False, f"stack {wiring.stack} deploys it ("), *where, (False, "): commit it, "), *up]
    command = wiring.set_to(wiring.ref(overlay))
    if wiring.deploys is Deploys.UNKNOWN:
        why = "is a secret" if wiring.secret else "is not a path"
        return [(False, f"which file stack {wiring.stack} deploys is not known ("), *where,
                (False, f" {why}); to apply the overlay: "), (True, command), (False, "; commit both, "), *up]
    if wiring.deploys is Deploys.OTHER:
        return [(False, f"stack {wiring.stack} deploys "), (True, wiring.configured or ""), (False, " ("), *where,
                (False, "), neither the policy nor this overlay: pulumi up applies neither; to replace what it "
                        "deploys with this overlay (dropping the settings of "), (True, wiring.configured or ""),
                (False, "): "), (True, command), (False, "; commit both, "), *up]
    return [(False, f"stack {wiring.stack} still deploys "), (True, wiring.configured or ""), (False, " ("), *where,
            (False, "), so pulumi up does not apply the overlay until it names it: "), (True, command),
            (False, "; commit both, "), *up]


def revert_steps(overlay: Path, policy: Path | None, wiring: Wiring | None, *, stack: str | None = None,
                 project_dir: Path | None = None, base: Path | None = None, named: Path | None = None) -> list[Segment]:
    """How to lift the response of ``overlay`` (written now or kept from an earlier alert); ``policy``:
    the policy it extends, when known."""
    up = _check_and_up(wiring, stack, project_dir)
    delete: list[Segment] = [(True, os.path.abspath(overlay))]
    if wiring is None or policy is None:
        named: list[Segment] = [(False, ", "), *_generic_ref(policy, base)] if policy else []
        return [(False, "point the stack's "), (True, "seedance:policy"), (False, " back to the policy"), *named,
                (False, ", "), *up, (False, "; delete "), *delete, (False, " once no stack names it")]
    if wiring.deploys in (Deploys.POLICY, Deploys.OTHER):
        back: list[Segment] = [] if wiring.deploys is Deploys.POLICY else [
            (False, " (if you pointed it at the overlay, point it back to what it deployed: "),
            (True, wiring.set_to(wiring.configured or "")), (False, ")")]
        return [(False, f"stack {wiring.stack} does not deploy the overlay, so nothing is in force"), *back,
                (False, "; delete "), *delete, (False, " to drop the response")]
    value = wiring.point_back_value(policy)
    if wiring.secret or value is None:  # secret: the value it had cannot be read
        return [(False, "point the stack back to what it deployed before ("), (True, f"pulumi config get seedance:policy "
                f"--stack {_arg(wiring.stack)}"), (False, " shows it now; note it before changing it), or to the "
                "policy: "), (True, wiring.set_to(wiring.ref(policy))), (False, ", "), *up, (False, "; delete "),
                *delete, (False, " once no stack names it")]
    return [(False, "point the stack back to the policy: "), (True, wiring.set_to(value)), (False, ", "),
            *up, *([(False, "; delete "), *delete, (False, " only after that (the stack reads it)")]
                   if wiring.deploys is Deploys.OVERLAY else [(False, "; delete "), *delete,
                                                               (False, " once no stack names it")])]


def plain(segments: list[Segment]) -> str:
    return "".join(text for _, text in segments)


__all__ = ["Deploys", "Segment", "Wiring", "check_command", "config_ref", "config_set", "deploy_steps", "lift_hint",
           "plain", "revert_steps", "stack_wiring", "wiring_warnings"]
