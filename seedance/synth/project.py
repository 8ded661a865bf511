"""Synthesise a stack of a Pulumi project directory: read ``Pulumi.yaml`` and
``Pulumi.<stack>.yaml``, run the project's program under the mock runtime."""

from __future__ import annotations

import json
import logging
import runpy
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from pulumi.config import ConfigMissingError, ConfigTypeError

from seedance.synth.runtime import SynthError, SynthResult, run_program
from seedance.textfile import TextFileError, read_text_file

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class StackConfig:
    project: str
    stack: str
    project_dir: Path
    main: Path
    config: dict[str, str]
    secure_keys: tuple[str, ...]  # encrypted values we cannot read offline
    origin: dict[str, Path] = field(default_factory=dict)  # config key -> the file that sets it

    @property
    def stack_file(self) -> Path:
        return self.project_dir / f"Pulumi.{self.stack}.yaml"


class _StrictLoader(yaml.SafeLoader):
    """Refuses a key given twice in one mapping, as Pulumi's own reader does (PyYAML keeps the last)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: dict[Any, int] = {}
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":  # keys merged in (<<) may be overridden
                continue
            key = self.construct_object(key_node, deep=deep)
            try:
                first = seen.get(key)
            except TypeError:  # an unhashable key: the base constructor reports it
                continue
            if first is not None:
                raise yaml.constructor.ConstructorError(
                    None, None, f"key {key!r} is given twice (first on line {first}); give each key once",
                    key_node.start_mark)
            seen[key] = key_node.start_mark.line + 1
        return super().construct_mapping(node, deep)


def _read_yaml(path: Path) -> Any:
    try:
        text = read_text_file(path, what="a Pulumi YAML file")
    except TextFileError as exc:
        raise SynthError(str(exc)) from None
    try:
        return yaml.load(text, Loader=_StrictLoader) or {}  # noqa: S506 - a SafeLoader
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark is not None else str(path)
        raise SynthError(f"{where}: {exc.problem or 'not valid YAML'}") from None
    except yaml.YAMLError as exc:
        raise SynthError(f"{path}: not valid YAML: {exc}") from None
    except RecursionError:
        raise SynthError(f"{path}: nested too deeply to read") from None


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
    origin: dict[str, Path] = {}
    for key, spec in _config_items(project.get("config"), project_file, "config"):
        full = key if ":" in key else f"{name}:{key}"
        if isinstance(spec, dict) and ("default" in spec or "value" in spec):
            config[full] = _config_value(spec.get("value", spec.get("default")))
            origin[full] = project_file
        elif not isinstance(spec, dict):
            config[full] = _config_value(spec)
            origin[full] = project_file
    stack_doc = _read_yaml(stack_file)
    if not isinstance(stack_doc, dict):
        raise SynthError(f"{stack_file}: expected a mapping (with a 'config' mapping), got {_yaml_kind(stack_doc)}")
    secure: list[str] = []
    for key, value in _config_items(stack_doc.get("config"), stack_file, "config"):
        full = key if ":" in key else f"{name}:{key}"
        if isinstance(value, dict) and set(value) == {"secure"}:
            secure.append(full)
            continue
        config[full] = _config_value(value)
        origin[full] = stack_file
    main_dir = project.get("main") or "."
    main = (project_dir / main_dir).resolve()
    main = main / "__main__.py" if main.is_dir() else main
    if not main.is_file():
        raise SynthError(f"{project_file}: program {main} not found")
    return StackConfig(name, stack, project_dir, main, config, tuple(secure), origin)


def _yaml_kind(value: Any) -> str:
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    return f"{type(value).__name__} {value!r}"[:80]


def _config_items(config: Any, path: Path, where: str) -> list[tuple[str, Any]]:
    """The ``config:`` mapping of a Pulumi.yaml or Pulumi.<stack>.yaml, checked: a mapping of names."""
    if config is None:
        return []
    if not isinstance(config, dict):
        raise SynthError(f"{path}: '{where}': expected a mapping of config keys to values, got {_yaml_kind(config)}")
    for key in config:
        if not isinstance(key, str) or not key:
            raise SynthError(f"{path}: '{where}': config key {key!r} is not a name (expected e.g. seedance:policy)")
    return list(config.items())


#: What a Pulumi config getter expects, in words (``ConfigTypeError.expect_type``).
_EXPECTED = {"JSON object": "a list or mapping (YAML or JSON)", "bool": "true or false", "int": "a whole number", "float": "a number"}
#: What a Seedance stack config key is for, in a missing-key message.
_PURPOSE = {"seedance:policy": "naming the cost policy"}


def _config_error(sc: StackConfig, exc: ConfigMissingError | ConfigTypeError) -> SynthError:
    """A Pulumi config error of the program as an error naming the file and key."""
    key = exc.key
    if isinstance(exc, ConfigTypeError):
        where = sc.origin.get(key, sc.stack_file)
        expected = _EXPECTED.get(exc.expect_type, f"a valid {exc.expect_type}")
        return SynthError(f"{where}: config {key}: expected {expected}, got {exc.value!r}")
    if key in sc.secure_keys:
        return SynthError(f"{sc.stack_file}: config {key} is a secure (encrypted) value, which cannot be decrypted offline; "
                          "the program requires it")
    purpose = _PURPOSE.get(key, "which the program requires")
    return SynthError(f"{sc.stack_file}: no {key} config {purpose}")


def _check_seedance_config(sc: StackConfig) -> None:
    """Shapes of the Seedance stack config keys the program reads whole (see ``Pulumi.yaml``): checked
    before the run, so a wrong one is an error naming the file and key rather than a failure inside it."""
    key = "seedance:routeTableIds"
    if key not in sc.config:
        return
    raw = sc.config[key]
    try:
        value = json.loads(raw)
    except ValueError:
        value = raw
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        where = sc.origin.get(key, sc.stack_file)
        raise SynthError(f"{where}: config {key}: expected a list of route table ids (e.g. [rtb-0123456789abcdef0], "
                         f"or [] for none), got {raw!r}")


def synthesize_stack(stack: str, project_dir: Path = Path("stacks"), *,
                     subnet_zones: Mapping[str, str] | None = None) -> SynthResult:
    """Run the project's program for ``stack`` under mocks and return its resource document.
    ``subnet_zones`` (subnet id -> zone) answers the subnet lookups for the subnets it names; offline
    every other subnet is in a zone of its own (see :class:`seedance.synth.runtime.SeedanceMocks`)."""
    sc = read_stack_config(project_dir, stack)
    _check_seedance_config(sc)
    if sc.secure_keys:
        log.warning("stack %s: secure config %s cannot be decrypted offline and is left unset", stack, ", ".join(sc.secure_keys))

    def program() -> None:
        runpy.run_path(str(sc.main), run_name="__main__")

    try:
        result = run_program(program, project=sc.project, stack=stack, config=sc.config, subnet_zones=subnet_zones)
    except (ConfigMissingError, ConfigTypeError) as exc:
        raise _config_error(sc, exc) from None
    if sc.secure_keys:
        result.document.notes.append(f"secure config not available offline: {', '.join(sc.secure_keys)}")
    return result
