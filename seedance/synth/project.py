"""Synthesise a stack of a Pulumi project directory: read ``Pulumi.yaml`` and
``Pulumi.<stack>.yaml``, run the project's program under the mock runtime."""

from __future__ import annotations

import json
import logging
import runpy
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from seedance.synth.runtime import SynthError, SynthResult, run_program

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class StackConfig:
    project: str
    stack: str
    project_dir: Path
    main: Path
    config: dict[str, str]
    secure_keys: tuple[str, ...]  # encrypted values we cannot read offline


def _read_yaml(path: Path) -> Any:
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except OSError as exc:
        raise SynthError(f"{path}: cannot read: {exc.strerror}") from None
    except yaml.YAMLError as exc:
        raise SynthError(f"{path}: not valid YAML: {exc}") from None


def _config_value(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def available_stacks(project_dir: Path) -> list[str]:
    return sorted(p.name[len("Pulumi.") : -len(".yaml")] for p in project_dir.glob("Pulumi.*.yaml"))


def read_stack_config(project_dir: Path, stack: str) -> StackConfig:
    project_file = project_dir / "Pulumi.yaml"
    if not project_file.is_file():
        raise SynthError(f"{project_file}: no Pulumi project here (run from the repository root or pass --project-dir)")
    project = _read_yaml(project_file)
    if not isinstance(project, dict) or not isinstance(project.get("name"), str):
        raise SynthError(f"{project_file}: expected a mapping with a 'name'")
    runtime = project.get("runtime")
    runtime_name = runtime.get("name") if isinstance(runtime, dict) else runtime
    if runtime_name != "python":
        raise SynthError(f"{project_file}: runtime is {runtime_name!r}; only python programs can be synthesised")
    stack_file = project_dir / f"Pulumi.{stack}.yaml"
    if not stack_file.is_file():
        known = ", ".join(available_stacks(project_dir)) or "none"
        raise SynthError(f"unknown stack {stack!r}: {stack_file} does not exist (stacks: {known})")
    name = project["name"]
    config: dict[str, str] = {}
    for key, spec in (project.get("config") or {}).items():
        full = key if ":" in key else f"{name}:{key}"
        if isinstance(spec, dict) and ("default" in spec or "value" in spec):
            config[full] = _config_value(spec.get("value", spec.get("default")))
        elif not isinstance(spec, dict):
            config[full] = _config_value(spec)
    stack_doc = _read_yaml(stack_file)
    secure: list[str] = []
    for key, value in ((stack_doc or {}).get("config") or {}).items():
        full = key if ":" in key else f"{name}:{key}"
        if isinstance(value, dict) and set(value) == {"secure"}:
            secure.append(full)
            continue
        config[full] = _config_value(value)
    main_dir = project.get("main") or "."
    main = (project_dir / main_dir).resolve()
    main = main / "__main__.py" if main.is_dir() else main
    if not main.is_file():
        raise SynthError(f"{project_file}: program {main} not found")
    return StackConfig(name, stack, project_dir, main, config, tuple(secure))


def synthesize_stack(stack: str, project_dir: Path = Path("stacks")) -> SynthResult:
    """Run the project's program for ``stack`` under mocks and return its resource document."""
    sc = read_stack_config(project_dir, stack)
    if sc.secure_keys:
        log.warning("stack %s: secure config %s cannot be decrypted offline and is left unset", stack, ", ".join(sc.secure_keys))

    def program() -> None:
        runpy.run_path(str(sc.main), run_name="__main__")

    result = run_program(program, project=sc.project, stack=stack, config=sc.config)
    if sc.secure_keys:
        result.document.notes.append(f"secure config not available offline: {', '.join(sc.secure_keys)}")
    return result
