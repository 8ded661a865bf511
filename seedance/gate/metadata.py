"""Read the ``# METADATA`` blocks of Rego files.

regorus has no ``rego.metadata.rule()``, so the gate reads the YAML-in-comments blocks itself
(the same blocks OPA reads) and joins them to findings by rule.  A control rule is a rule whose
block has ``custom.control_id``; its block must be complete or the bundle does not load.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

SEVERITIES = ("mandatory", "advisory")
FRAMEWORKS = ("gdpr", "mlps-l3", "budget")
_REQUIRED_TOP = ("title", "description", "related_resources")
_REQUIRED_CUSTOM = ("control_id", "clause", "framework", "severity", "remediation")

_PACKAGE = re.compile(r"^package\s+([A-Za-z_][\w.]*)\s*$", re.M)
_RULE_HEAD = re.compile(r"^([A-Za-z_]\w*)\b")


@dataclass(frozen=True)
class ControlMeta:
    """One control rule: where it is and what its METADATA says."""

    control_id: str
    title: str
    description: str
    clause: str
    framework: str
    severity: str
    remediation: str
    related_resources: tuple[str, ...]
    package: str
    rule: str
    file: str  # relative to the policy directory, '/'-separated
    line: int  # line of the rule head
    extra: dict = field(default_factory=dict, compare=False)

    @property
    def query(self) -> str:
        return f"data.{self.package}.{self.rule}"


def package_of(text: str) -> str | None:
    m = _PACKAGE.search(text)
    return m.group(1) if m else None


def read_blocks(text: str, file: str) -> tuple[list[ControlMeta], list[str]]:
    """Parse every METADATA block of one file; return control rules and problems (``file:line:col: ...``)."""
    lines = text.splitlines()
    package = package_of(text)
    controls: list[ControlMeta] = []
    problems: list[str] = []
    i = 0
    while i < len(lines):
        if lines[i].strip() != "# METADATA":
            i += 1
            continue
        start = i + 1  # 1-based line number of the '# METADATA' marker
        body: list[str] = []
        i += 1
        while i < len(lines) and lines[i].lstrip().startswith("#"):
            raw = lines[i].lstrip()[1:]
            body.append(raw[1:] if raw.startswith(" ") else raw)
            i += 1
        while i < len(lines) and not lines[i].strip():
            i += 1
        head_line = i + 1
        head = _RULE_HEAD.match(lines[i]) if i < len(lines) else None
        try:
            meta = yaml.safe_load("\n".join(body)) or {}
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            line = start + 1 + (mark.line if mark else 0)
            problems.append(f"{file}:{line}:1: METADATA is not valid YAML: {getattr(exc, 'problem', exc)}")
            continue
        if not isinstance(meta, dict):
            problems.append(f"{file}:{start}:1: METADATA must be a YAML mapping")
            continue
        custom = meta.get("custom") or {}
        if meta.get("scope") in ("package", "subpackages") or "control_id" not in custom:
            continue  # documentation of a package or helper, not a control rule
        if head is None:
            problems.append(f"{file}:{start}:1: METADATA block is not followed by a rule")
            continue
        missing = [k for k in _REQUIRED_TOP if not meta.get(k)] + [
            f"custom.{k}" for k in _REQUIRED_CUSTOM if not custom.get(k)
        ]
        if missing:
            problems.append(f"{file}:{start}:1: METADATA of rule '{head.group(1)}' lacks {', '.join(missing)}")
            continue
        if custom["severity"] not in SEVERITIES:
            problems.append(
                f"{file}:{start}:1: METADATA custom.severity: expected one of {', '.join(SEVERITIES)}, got {custom['severity']!r}"
            )
            continue
        if custom["framework"] not in FRAMEWORKS:
            problems.append(
                f"{file}:{start}:1: METADATA custom.framework: expected one of {', '.join(FRAMEWORKS)}, got {custom['framework']!r}"
            )
            continue
        related = meta["related_resources"]
        refs = tuple(str(r.get("ref", r)) if isinstance(r, dict) else str(r) for r in related)
        if package is None:
            problems.append(f"{file}:1:1: no package declaration")
            continue
        controls.append(
            ControlMeta(
                control_id=str(custom["control_id"]),
                title=str(meta["title"]).strip(),
                description=" ".join(str(meta["description"]).split()),
                clause=str(custom["clause"]).strip(),
                framework=str(custom["framework"]),
                severity=str(custom["severity"]),
                remediation=" ".join(str(custom["remediation"]).split()),
                related_resources=refs,
                package=package,
                rule=head.group(1),
                file=file,
                line=head_line,
                extra={k: v for k, v in custom.items() if k not in _REQUIRED_CUSTOM},
            )
        )
    return controls, problems


def read_file(path: Path, root: Path) -> tuple[list[ControlMeta], list[str]]:
    return read_blocks(path.read_text(encoding="utf-8"), path.relative_to(root).as_posix())
