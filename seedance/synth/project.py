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

from seedance.synth.components_errors import domain_cause
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
    #: the directory ``Pulumi.STACK.yaml`` lives in (Pulumi.yaml's ``stackConfigDir``), as given
    config_dir: Path | None = None
    #: the directory Pulumi runs the program in (Pulumi.yaml's ``main``), as given, symlinks kept
    program_dir: Path | None = None
    #: config key -> the value as YAML gave it (a mapping, a list, None...), before it became a string
    raw: dict[str, Any] = field(default_factory=dict)

    @property
    def stack_file(self) -> Path:
        return (self.config_dir or self.project_dir) / f"Pulumi.{self.stack}.yaml"

    @property
    def base_dir(self) -> Path:
        """What a path in the stack config (``seedance:policy``) is relative to: the program's directory,
        where Pulumi runs it (``main``; the project directory by default) and which the program
        (``run(PROJECT_DIR)``, its ``__main__.py``'s folder) loads the policy from."""
        return self.program_dir or self.project_dir


@dataclass(frozen=True)
class ProjectLayout:
    """Where a Pulumi project keeps its stack files and its program (``Pulumi.yaml``), paths as given."""

    project_dir: Path
    config_dir: Path  # stackConfigDir (the project directory by default)
    program_dir: Path  # main's directory (the project directory by default)


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


#: The most scalars, lists and mappings a config value may hold once YAML aliases are expanded: a value is
#: handed to the program as JSON, and an alias bomb (a few lines of nested ``*a`` references) expands to
#: billions of elements.
MAX_CONFIG_NODES = 100_000


class _TooLarge(Exception):
    pass


def _count_nodes(value: Any, budget: int) -> int:
    """``budget`` less the nodes of ``value`` (_TooLarge when they exceed it); aliases count each time used."""
    budget -= 1
    if budget < 0:
        raise _TooLarge
    if isinstance(value, dict):
        for k, v in value.items():
            budget = _count_nodes(v, _count_nodes(k, budget))
    elif isinstance(value, list):
        for v in value:
            budget = _count_nodes(v, budget)
    return budget


def _config_value(value: Any, path: Path | None = None, key: str = "") -> str:
    if isinstance(value, str):
        return value
    try:
        _count_nodes(value, MAX_CONFIG_NODES)
    except (_TooLarge, RecursionError):
        line = _key_line(path, key) if path is not None else None
        where = f"{path}:{line}" if line else str(path)
        raise SynthError(f"{where}: config {key}: the value holds more than {MAX_CONFIG_NODES:,} elements once its "
                         "YAML aliases (*name) are expanded; write the value out, or give a smaller one") from None
    return json.dumps(value)


def _key_line(path: Path, key: str) -> int | None:
    """The line of ``config: KEY`` in the YAML file ``path`` (for an error message), when it can be found."""
    try:
        root = yaml.compose(path.read_text(encoding="utf-8", errors="replace"), Loader=yaml.SafeLoader)
    except (OSError, yaml.YAMLError):
        return None
    config = next((v for k, v in getattr(root, "value", []) if getattr(k, "value", None) == "config"), None)
    short = key.partition(":")[2]
    for k, _ in getattr(config, "value", []) if isinstance(config, yaml.MappingNode) else []:
        if getattr(k, "value", None) in (key, short):
            return int(k.start_mark.line) + 1
    return None


def _layout_of(project_dir: Path, project: Any, project_file: Path) -> ProjectLayout:
    """The stack-config and program directories a parsed ``Pulumi.yaml`` names (SynthError for a wrong one)."""
    doc = project if isinstance(project, dict) else {}
    config_dir = doc.get("stackConfigDir")
    if config_dir is None and isinstance(doc.get("config"), str):  # the deprecated spelling of stackConfigDir
        config_dir = doc["config"]
    if config_dir is not None and (not isinstance(config_dir, str) or not config_dir.strip()):
        raise SynthError(f"{project_file}: 'stackConfigDir': expected a directory relative to the project, "
                         f"got {_yaml_kind(config_dir)}")
    main = doc.get("main")
    if main is not None and (not isinstance(main, str) or not main.strip()):
        raise SynthError(f"{project_file}: 'main': expected the program's path relative to the project, "
                         f"got {_yaml_kind(main)}")
    program = project_dir / main if main else project_dir
    if program.is_file():
        program = program.parent  # a program file: Pulumi runs it in its folder
    return ProjectLayout(project_dir, project_dir / config_dir if config_dir else project_dir, program)


def project_layout(project_dir: Path) -> ProjectLayout:
    """Where the project of ``project_dir`` keeps its stack files and program; the defaults (both in the
    project directory) when it has no readable ``Pulumi.yaml`` (the caller reports that where it matters)."""
    project_file = project_dir / "Pulumi.yaml"
    try:
        return _layout_of(project_dir, _read_yaml(project_file), project_file) if project_file.is_file() else \
            ProjectLayout(project_dir, project_dir, project_dir)
    except SynthError:
        return ProjectLayout(project_dir, project_dir, project_dir)


def stack_file_path(project_dir: Path, stack: str) -> Path:
    """``Pulumi.STACK.yaml`` of the project, in its ``stackConfigDir`` when Pulumi.yaml names one."""
    return project_layout(project_dir).config_dir / f"Pulumi.{stack}.yaml"


def project_dir_of(program_dir: Path) -> Path:
    """The Pulumi project a program directory belongs to: the nearest folder up holding a Pulumi.yaml, as
    Pulumi finds it (the program's folder itself when none does)."""
    for d in (program_dir, *program_dir.parents):
        if (d / "Pulumi.yaml").is_file():
            return d
    return program_dir


def available_stacks(project_dir: Path) -> list[str]:
    config_dir = project_layout(project_dir).config_dir
    return sorted(p.name[len("Pulumi.") : -len(".yaml")] for p in config_dir.glob("Pulumi.*.yaml"))


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
    layout = _layout_of(project_dir, project, project_file)
    stack_file = layout.config_dir / f"Pulumi.{stack}.yaml"
    if not stack_file.is_file():
        known = ", ".join(available_stacks(project_dir)) or "none"
        raise SynthError(f"unknown stack {stack!r}: {stack_file} does not exist (stacks: {known})")
    name = project["name"]
    config: dict[str, str] = {}
    origin: dict[str, Path] = {}
    raw: dict[str, Any] = {}
    project_config = None if isinstance(project.get("config"), str) else project.get("config")  # a str: stackConfigDir
    for key, spec in _config_items(project_config, project_file, "config"):
        full = key if ":" in key else f"{name}:{key}"
        if isinstance(spec, dict) and ("default" in spec or "value" in spec):
            raw[full] = spec.get("value", spec.get("default"))
            config[full] = _config_value(raw[full], project_file, key)
            origin[full] = project_file
        elif not isinstance(spec, dict):
            raw[full] = spec
            config[full] = _config_value(spec, project_file, key)
            origin[full] = project_file
    stack_doc = _read_yaml(stack_file)
    if not isinstance(stack_doc, dict):
        raise SynthError(f"{stack_file}: expected a mapping (with a 'config' mapping), got {_yaml_kind(stack_doc)}")
    secure: list[str] = []
    for key, value in _config_items(stack_doc.get("config"), stack_file, "config"):
        full = key if ":" in key else f"{name}:{key}"
        if isinstance(value, dict) and set(value) == {"secure"}:
            secure.append(full)
            config.pop(full, None)  # the stack's secret overrides a project default
            raw.pop(full, None)
            origin[full] = stack_file
            continue
        raw[full] = value
        config[full] = _config_value(value, stack_file, key)
        origin[full] = stack_file
    main_dir = project.get("main") or "."
    main = (project_dir / main_dir).resolve()
    main = main / "__main__.py" if main.is_dir() else main
    if not main.is_file():
        raise SynthError(f"{project_file}: program {main} not found")
    return StackConfig(name, stack, project_dir, main, config, tuple(secure), origin, layout.config_dir,
                       layout.program_dir, raw)


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
    except (ValueError, AssertionError) as exc:  # a component's check in an apply, wrapped by Pulumi
        cause = domain_cause(exc)
        if cause is None or cause is exc:
            raise
        raise cause from None
    if sc.secure_keys:
        result.document.notes.append(f"secure config not available offline: {', '.join(sc.secure_keys)}")
    return result
