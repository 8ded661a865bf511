"""The policy bundle: every Rego file of the policy directory with the METADATA of its control rules."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path

from seedance.gate.errors import PolicyLoadError
from seedance.gate.metadata import SEVERITIES, ControlMeta, package_of, read_blocks
from seedance.resources import ResourceNotFoundError, policies_dir

log = logging.getLogger(__name__)

CONTROL_DIRS = ("gdpr", "mlps", "budget")
HELPER_DIRS = ("lib",)


def default_policy_dir() -> Path:
    """The policies Seedance uses by default (see :mod:`seedance.resources`): ``$SEEDANCE_POLICIES``,
    else the copy bundled in the installed package, else the checkout's ``policies/``.

    Raises PolicyLoadError naming every place it looked when there is none (the gate fails closed).
    """
    try:
        return policies_dir()
    except ResourceNotFoundError as exc:
        raise PolicyLoadError([str(exc)]) from None


@dataclass(frozen=True)
class RegoFile:
    path: str  # relative to the bundle root, '/'-separated
    text: str
    package: str
    is_test: bool


@dataclass(frozen=True)
class PolicyBundle:
    root: Path
    files: tuple[RegoFile, ...]
    controls: tuple[ControlMeta, ...]
    severity_overrides: dict[str, str] = field(default_factory=dict)
    parent: PolicyBundle | None = field(default=None, compare=False, repr=False)

    def modules(self, *, tests: bool = False) -> list[RegoFile]:
        return [f for f in self.files if tests or not f.is_test]

    def control(self, control_id: str) -> ControlMeta:
        for c in self.controls:
            if c.control_id == control_id:
                return c
        raise KeyError(control_id)

    def only(self, control_ids: set[str]) -> PolicyBundle:
        """The same policies with fewer control rules to evaluate (the data keeps every control)."""
        return PolicyBundle(self.root, self.files, tuple(c for c in self.controls if c.control_id in control_ids), self.severity_overrides, self)

    def data(self) -> dict:
        """The data document both engines receive: the control catalog read from METADATA, and overrides."""
        catalog = self.parent.controls if self.parent is not None else self.controls
        return {
            "seedance": {
                "controls": {
                    c.control_id: {
                        "severity": c.severity,
                        "framework": c.framework,
                        "clause": c.clause,
                        "title": c.title,
                    }
                    for c in catalog
                },
                "severity_overrides": dict(self.severity_overrides),
            }
        }


def load_bundle(root: Path | None = None, *, severity_overrides: dict[str, str] | None = None) -> PolicyBundle:
    """Read every ``.rego`` file of the framework and helper folders; raise PolicyLoadError listing all problems."""
    root = (root or default_policy_dir()).resolve()
    if not root.is_dir():
        raise PolicyLoadError([f"{root}: policy directory not found (expected a folder with gdpr/, mlps/, budget/, lib/)"])
    files: list[RegoFile] = []
    controls: list[ControlMeta] = []
    problems: list[str] = []
    for sub in (*HELPER_DIRS, *CONTROL_DIRS):
        for path in sorted((root / sub).rglob("*.rego")):
            rel = path.relative_to(root).as_posix()
            text, problem = _read_rego(path, rel)
            if text is None:
                problems.append(problem)
                continue
            package = package_of(text)
            if package is None:
                problems.append(f"{rel}:1:1: no package declaration")
                continue
            expected = rel[: -len(".rego")].replace("/", ".")
            if package != expected:
                problems.append(f"{rel}:1:1: package '{package}' does not follow the path (expected '{expected}')")
            is_test = rel.endswith("_test.rego")
            files.append(RegoFile(rel, text, package, is_test))
            if is_test:
                continue
            found, bad = read_blocks(text, rel)
            problems.extend(bad)
            if sub in CONTROL_DIRS and not found and not bad:
                problems.append(f"{rel}:1:1: no control rule (a rule with a METADATA block giving custom.control_id)")
            controls.extend(found)
    problems.extend(_missing_frameworks(root, controls, problems))
    seen: dict[str, ControlMeta] = {}
    for c in controls:
        if c.control_id in seen:
            problems.append(f"{c.file}:{c.line}:1: control {c.control_id} is also defined in {seen[c.control_id].file}")
        seen[c.control_id] = c
    overrides = dict(severity_overrides or {})
    for cid, sev in overrides.items():
        if cid not in seen:
            problems.append(f"severity override: unknown control {cid!r}")
        elif sev not in SEVERITIES:
            problems.append(f"severity override {cid}: expected one of {', '.join(SEVERITIES)}, got {sev!r}")
    if problems:
        raise PolicyLoadError(problems)
    log.info("loaded %d Rego files, %d controls from %s", len(files), len(controls), root)
    return PolicyBundle(root, tuple(files), tuple(sorted(controls, key=lambda c: c.control_id)), overrides)


def _read_rego(path: Path, rel: str) -> tuple[str | None, str]:
    """The text of one Rego file, or None and a located problem (the file is not readable UTF-8 text)."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        return None, f"{rel}: cannot read: {exc.strerror or exc}"
    try:
        return data.decode("utf-8-sig"), ""  # a byte-order mark is dropped (OPA accepts it, regorus does not)
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        line_start = data.rfind(b"\n", 0, exc.start) + 1
        column = len(data[line_start:exc.start].decode("utf-8", errors="replace")) + 1
        return None, f"{rel}:{line}:{column}: not UTF-8 text (byte 0x{data[exc.start]:02x}); Rego files must be UTF-8"


_FRAMEWORK_OF_DIR = {"gdpr": "GDPR", "mlps": "MLPS 2.0 level 3", "budget": "budget"}


def _missing_frameworks(root: Path, controls: list[ControlMeta], problems: list[str]) -> list[str]:
    """A control folder that is missing or holds no control rule: the gate would silently skip a whole
    framework, so the bundle does not load.  (Leaving out single control files stays allowed.)"""
    layout = ", ".join(f"{d}/" for d in (*CONTROL_DIRS, *HELPER_DIRS))
    if not controls and not problems:
        return [f"{root}: no control rules found (expected {layout})"]
    found = {c.file.split("/", 1)[0] for c in controls}
    out = []
    for sub in CONTROL_DIRS:
        if sub in found:
            continue
        folder = root / sub
        framework = _FRAMEWORK_OF_DIR.get(sub, sub)
        if not folder.is_dir():
            out.append(f"{folder}: folder missing; expected the {framework} control rules here (a policy directory holds {layout})")
        elif not any(p.startswith(f"{sub}/") for p in problems):  # its files' own problems already explain it
            out.append(f"{folder}: no control rule found; expected the {framework} control rules here "
                       "(.rego files with a METADATA block giving custom.control_id)")
    return out
