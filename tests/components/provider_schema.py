"""The installed pulumi-aws SDK's view of a resource's inputs, to check what a program registers.

The mock runtime accepts any property: a misspelt key in a nested dict (``{"noncurrentDays": ...}``
for ``noncurrentDays`` under the wrong parent, say) synthesises cleanly and only fails, or is
dropped, at ``pulumi up``. The SDK's generated classes carry the provider schema: every resource
module has an ``@input_type`` args class whose properties map Python names to the provider's
(camelCase) names and types, nested input types included. ``schema_problems`` walks a registered
resource's inputs through them: unknown properties at any depth, nested objects missing a property
their type requires, and a list given where one object goes (or an object where a list goes).
"""

from __future__ import annotations

import collections.abc
import functools
import importlib
import inspect
import json
import re
import typing
from pathlib import Path
from typing import Any

import pulumi._types as pulumi_types
import pulumi_aws


@functools.cache
def resource_classes() -> dict[str, tuple[str, str]]:
    """Type token -> (module, class name), from the package's own resource-module registration."""
    source = Path(pulumi_aws.__file__).read_text()
    match = re.search(r'resource_modules="""(.*?)"""', source, re.S)
    if match is None:
        raise RuntimeError("pulumi_aws no longer registers its resource modules as expected")
    return {token: (module["fqn"], cls) for module in json.loads(match.group(1))
            for token, cls in module["classes"].items()}


@functools.cache
def args_class(token: str) -> type | None:
    """The resource's own args class (``XInitArgs`` where a nested type took ``XArgs``)."""
    fqn, name = resource_classes()[token]
    module = importlib.import_module(getattr(importlib.import_module(fqn), name).__module__)
    for candidate in (f"{name}InitArgs", f"{name}Args"):
        cls = getattr(module, candidate, None)
        if cls is not None and cls.__module__ == module.__name__:
            return cls
    return None


def _shapes(tp: Any) -> list[tuple[str, Any]]:
    """(container, element type) pairs a value of ``tp`` may take: "one", "list" or "map"."""
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is None:
        return [] if isinstance(tp, (typing.ForwardRef, str)) else [("one", tp)]
    if origin in (list, collections.abc.Sequence):
        return [("list", args[0])] if args else []
    if origin in (dict, collections.abc.Mapping):
        return [("map", args[1])] if len(args) == 2 else []
    # Union (Optional, Input = T | Awaitable[T] | Output[T]), Awaitable, Output: their members
    return [shape for arg in args for shape in _shapes(arg)]


def _nested(tp: Any) -> dict[str, type]:
    """The input type a "one", "list" or "map" value of ``tp`` holds, where it is one."""
    found: dict[str, type] = {}
    for container, element in _shapes(tp):
        for kind, leaf in _shapes(element) if container != "one" else [("one", element)]:
            if kind == "one" and isinstance(leaf, type) and pulumi_types.is_input_type(leaf):
                found.setdefault(container, leaf)
    return found


def _required(cls: type) -> set[str]:
    names = pulumi_types.input_type_py_to_pulumi_names(cls)
    params = list(inspect.signature(cls.__init__).parameters.values())[1:]
    return {names.get(p.name, p.name) for p in params if p.default is inspect.Parameter.empty
            and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}


def _check(value: Any, cls: type, path: str, problems: list[str], top: bool) -> None:
    if not isinstance(value, dict):
        return
    types = pulumi_types.input_type_types(cls)  # keyed by the provider's names
    for key, item in value.items():
        if key not in types:
            problems.append(f"{path}.{key}: not a property of {cls.__name__}")
            continue
        nested = _nested(types[key])
        if isinstance(item, list) and "list" not in nested and "one" in nested:
            problems.append(f"{path}.{key}: a list where {cls.__name__} takes one {nested['one'].__name__}")
        elif isinstance(item, dict) and nested and not {"one", "map"} & nested.keys():
            problems.append(f"{path}.{key}: an object where {cls.__name__} takes a list of {nested['list'].__name__}")
        elif isinstance(item, list) and "list" in nested:
            for i, element in enumerate(item):
                _check(element, nested["list"], f"{path}.{key}[{i}]", problems, False)
        elif isinstance(item, dict) and "one" in nested:
            _check(item, nested["one"], f"{path}.{key}", problems, False)
        elif isinstance(item, dict) and "map" in nested:
            for k, element in item.items():
                _check(element, nested["map"], f"{path}.{key}[{k}]", problems, False)
    if not top:  # a resource's own required inputs are checked by its constructor
        problems.extend(f"{path}: {cls.__name__} requires {name}" for name in sorted(_required(cls) - value.keys()))


def schema_problems(token: str, name: str, inputs: dict[str, Any]) -> list[str]:
    """What pulumi-aws's schema would not take in ``inputs`` of resource ``name`` of type ``token``."""
    if token not in resource_classes():
        return [f"{name}: {token} is not a pulumi-aws resource type"]
    cls = args_class(token)
    if cls is None:
        return [f"{name}: no args class for {token}"]
    problems: list[str] = []
    _check(inputs, cls, f"{name}", problems, True)
    return problems
