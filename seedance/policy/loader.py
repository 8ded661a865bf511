"""Load cost policies: YAML (with locations) -> overlays -> schema -> cross-field semantics.

Every error of a document is reported at once, each as ``file:line:column: path: message``.
Nothing here ever lets an exception other than :class:`PolicyError` escape for bad input.
"""

from __future__ import annotations

import datetime as dt
import difflib
import json
import logging
import os
import re
import types
import typing
from collections.abc import Hashable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import annotated_types
from pydantic import BaseModel, ValidationError

from seedance.policy import semantics
from seedance.policy.errors import Location, PolicyError, PolicySyntaxError, PolicyValidationError, Problem
from seedance.policy.errors import got as _got
from seedance.policy.model import (
    AMI_ID_PATTERN,
    AMI_PARAMETER_PATTERN,
    INSTANCE_TYPE_PATTERN,
    LABEL_VALUE_PATTERN,
    METRIC_NAME_PATTERN,
    QUALIFIED_NAME_PATTERN,
    REGISTRY_PATTERN,
    Budget,
    Cloud,
    Compliance,
    CostPolicy,
    Fleet,
    Metadata,
    Network,
    Scheduling,
    Storage,
)
from seedance.policy.overlay import MAX_CHAIN, merge, strip_remove_markers
from seedance.policy.yamlsrc import LList, LMap, parse, read_bytes
from seedance.textfile import path_kind

log = logging.getLogger(__name__)

Loc = tuple[str | int, ...]


#: The comment line that marks a budget-response overlay (``seedance budget respond``/``poll`` write it;
#: :class:`seedance.budget.response.OverlayStamp` reads and writes its fields).
BUDGET_RESPONSE_STAMP = "# seedance-budget-response:"
#: The comment line after the stamp that records the thresholds the response applied (an overlay from
#: an older Seedance has none; :class:`seedance.budget.response.FiredThresholds` reads and writes it).
BUDGET_RESPONSE_FIRED = "# seedance-budget-fired:"

_STAMP_LINE = re.compile(rb"^" + re.escape(BUDGET_RESPONSE_STAMP.encode()) + rb"[^\r\n]*", re.M)
_FIRED_LINE = re.compile(rb"^" + re.escape(BUDGET_RESPONSE_FIRED.encode()) + rb"[^\r\n]*", re.M)


def _first_line(pattern: re.Pattern[bytes], data: bytes) -> str | None:
    m = pattern.search(data)
    return m.group(0).decode("utf-8", errors="replace") if m else None


def budget_response_stamp(data: bytes) -> str | None:
    """The stamp line of a budget-response overlay's text, or None for any other policy file."""
    return _first_line(_STAMP_LINE, data)


def _fired_line(data: bytes) -> str | None:
    """The line recording the thresholds a budget response applied, or None."""
    return _first_line(_FIRED_LINE, data)


@dataclass(frozen=True)
class ResponseOverlay:
    """The loaded file is a budget-response overlay: its stamp line, the fleets it names itself and
    the line recording the thresholds the response applied (None in an older overlay)."""

    stamp: str
    fleets: tuple[str, ...]
    fired: str | None = None

    @property
    def stamp_text(self) -> str:
        """The stamp's lines, as :meth:`seedance.budget.response.OverlayStamp.parse` reads them."""
        return "\n".join(line for line in (self.stamp, self.fired) if line is not None)


@dataclass(frozen=True)
class LoadedPolicy:
    """A validated policy with where it came from."""

    policy: CostPolicy
    path: Path
    tree: Any  # the merged located tree, to point findings at lines
    chain: tuple[Path, ...]  # the files merged, base first
    response: ResponseOverlay | None = None  # when the file is a budget-response overlay

    @property
    def base_dir(self) -> Path:
        return self.path.parent

    def location(self, loc: Loc) -> Location:
        return locate(self.tree, loc).location


# --------------------------------------------------------------------------- public API


def load_policy(path: str | Path) -> LoadedPolicy:
    """Load, merge and validate the policy at ``path``; raise :class:`PolicyError` on any problem."""
    path = Path(path)
    overlay_problems: list[Problem] = []
    responses: dict[Path, ResponseOverlay] = {}
    tree, chain = _read_chain(path, (), overlay_problems, responses)
    loaded = _validate_tree(tree, path, chain, overlay_problems=overlay_problems)
    response = responses.get(path)
    if response is None:
        return loaded
    loaded = replace(loaded, response=response)
    from seedance.budget.coverage import (  # the budget package reads stamps
        drifted_in,
        threshold_drift_warning,
        uncovered_fleets_warning,
        uncovered_in,
    )

    found = uncovered_in(loaded)
    if found is not None:
        stamp, missing = found
        _warn_once((str(path.resolve()), tuple(missing)), uncovered_fleets_warning(path, stamp, missing))
    drifted = drifted_in(loaded)
    if drifted is not None:
        stamp, drift = drifted
        _warn_once((str(path.resolve()), "thresholds", drift), threshold_drift_warning(path, stamp, drift))
    return loaded


_warned: set[Hashable] = set()


def chain_demand_histories(loaded: LoadedPolicy) -> list[Path]:
    """The demand histories every file of the policy's ``extends`` chain names (each relative to the
    file naming it), those of fleets a later file removes or repoints included: other policies
    extending the same bases plan from them.  A file that cannot be read again adds none."""
    found: list[Path] = []
    for file in loaded.chain:
        try:
            tree = parse(str(file), read_bytes(str(file)))
        except PolicyError:  # changed since it was loaded: its histories are not known
            continue
        items = tree.get("fleets") if isinstance(tree, LMap) else None
        for item in items if isinstance(items, LList) else []:
            value = item.get(_PATH_FIELDS[0][1]) if isinstance(item, LMap) else None
            if isinstance(value, str) and value:
                found.append(Path(os.path.normpath(Path(file).parent / value)))
    return found


def _warn_once(key: Hashable, message: str) -> None:
    """Log ``message`` as a warning once a process for ``key`` (a command can load one policy several
    times, by different spellings of its path)."""
    if key not in _warned:
        _warned.add(key)
        log.warning("%s", message)


def load_policy_text(text: str | bytes, file: str = "<string>", base_dir: Path | None = None) -> CostPolicy:
    """Validate a policy given as text (no ``extends``)."""
    data = text.encode("utf-8") if isinstance(text, str) else text
    tree = parse(file, data)
    _require_mapping(tree, file)
    if isinstance(tree, LMap) and "extends" in tree:
        raise PolicyValidationError([Problem(tree.key_locs["extends"], "extends", "'extends' needs a policy file, not text")])
    return _validate_tree(tree, Path(file), (Path(file),), base_dir=base_dir).policy


# --------------------------------------------------------------------------- reading and overlays


def _require_mapping(tree: Any, file: str) -> None:
    if not isinstance(tree, LMap):
        kind = "a list" if isinstance(tree, list) else f"a scalar ({_got(tree)})"
        raise PolicyValidationError([Problem(Location(file, 1, 1), "", f"expected a CostPolicy mapping, got {kind}")])


def _read_chain(path: Path, seen: tuple[Path, ...], problems: list[Problem],
                responses: dict[Path, ResponseOverlay] | None = None) -> tuple[Any, tuple[Path, ...]]:
    file = str(path)
    data = read_bytes(file)
    tree = parse(file, data)
    _require_mapping(tree, file)
    stamp = budget_response_stamp(data)
    if stamp is not None and responses is not None:
        responses[path] = ResponseOverlay(stamp, _own_fleet_names(tree), _fired_line(data))
    ext = tree.get("extends")
    if ext is None:
        return tree, (path,)
    loc = tree.val_locs["extends"]
    if not isinstance(ext, str) or not ext.strip():
        raise PolicyValidationError([Problem(loc, "extends", f"expected a path to a base policy, got {_got(ext)}")])
    try:  # a NUL character or an overlong name cannot even be looked up
        kind = path_kind(path.parent / ext)
        base = (path.parent / ext).resolve()
    except (OSError, ValueError) as exc:
        raise PolicyValidationError([Problem(loc, "extends", f"expected a path to a base policy, but {exc}; "
                                                             f"got {_got(ext)}")]) from None
    if base in seen or base == path.resolve():
        raise PolicyValidationError([Problem(loc, "extends", f"cycle: {ext} is already part of this chain")])
    if len(seen) + 1 >= MAX_CHAIN:
        raise PolicyValidationError([Problem(loc, "extends", f"more than {MAX_CHAIN} files in the extends chain")])
    if kind == "directory":
        raise PolicyValidationError([Problem(loc, "extends", f"{ext} is a directory; expected a policy file")])
    if kind == "special":  # a device, FIFO or socket
        raise PolicyValidationError([Problem(loc, "extends", f"{ext} is not a regular file; expected a policy file")])
    if kind == "missing":
        raise PolicyValidationError([Problem(loc, "extends", f"base policy not found: {ext}")])
    # keep the user's relative spelling in messages (stacks/base.yaml, not an absolute path)
    base_tree, base_chain = _read_chain(path.parent / ext, seen + (path.resolve(),), problems)
    merged = merge(base_tree, tree, problems)
    if stamp is not None:
        problems.extend(_stale_response_fleets(base_tree, merged, file, ext))
    return merged, base_chain + (path,)


def _own_fleet_names(tree: Any) -> tuple[str, ...]:
    """The names of the fleets a file's own ``fleets`` list sets."""
    items = tree.get("fleets") if isinstance(tree, LMap) else None
    return tuple(i["name"] for i in items if isinstance(i, LMap) and isinstance(i.get("name"), str)) \
        if isinstance(items, LList) else ()


def _stale_response_fleets(base: Any, merged: Any, file: str, ext: str) -> list[Problem]:
    """A budget-response overlay (``file``) naming a fleet its base policy no longer has (renamed or
    removed since the response): the merge appended it as a new fleet, which the schema would report
    as a fleet missing its required fields. Say what it is instead, where the overlay names it."""
    base_items = base.get("fleets") if isinstance(base, LMap) else None
    known = {i.get("name") for i in base_items if isinstance(i, LMap)} if isinstance(base_items, LList) else set()
    items = merged.get("fleets") if isinstance(merged, LMap) else None
    if not isinstance(items, LList):
        return []
    problems: list[Problem] = []
    for i, (item, loc) in enumerate(zip(items, items.item_locs)):
        name = item.get("name") if isinstance(item, LMap) else None
        if isinstance(name, str) and name not in known and loc.file == file:
            problems.append(Problem(loc, f"fleets[{i}]",
                                    f"overlay names fleet {name!r}, which the policy no longer has ({ext} has no fleet "
                                    "of that name): a stale budget response; re-run `seedance budget respond`/`poll`, "
                                    "or point the stack's seedance:policy back to the policy, then delete the overlay",
                                    f"fleet {name!r}"))
    return problems


# --------------------------------------------------------------------------- validation


def _validate_tree(
    tree: Any, path: Path, chain: tuple[Path, ...], base_dir: Path | None = None, overlay_problems: list[Problem] | None = None
) -> LoadedPolicy:
    overlay: list[Problem] = list(overlay_problems or [])
    strip_remove_markers(tree, overlay)
    _rebase_paths(tree, path)
    problems: list[Problem] = []
    try:
        payload = json.dumps(tree, default=_json_default, allow_nan=True)
    except (TypeError, ValueError, RecursionError) as exc:  # pragma: no cover - defensive
        raise PolicyValidationError([Problem(Location(str(path), 1, 1), "", f"unsupported value: {exc}")]) from None
    policy: CostPolicy | None = None
    try:
        policy = CostPolicy.model_validate_json(payload, strict=True)
    except ValidationError as exc:
        problems += _schema_problems(tree, exc)
    parts = semantics.Parts.of(policy) if policy is not None else _valid_parts(tree)
    for loc, message, *other in semantics.check_parts(parts, base_dir or path.parent):
        hit = locate(tree, loc)
        if other:  # the field compared with, when another file of the chain sets it
            there = locate(tree, other[0])
            if there.key_location is not None and there.location.file != hit.location.file:
                message += f" ({there.path.rsplit('.', 1)[-1]} set at {there.location})"
        problems.append(Problem(hit.location, hit.path, message, hit.context))
    # the rest of the document is checked too, all errors at once, but not under a field an overlay
    # problem names: there it would only repeat the stray item's missing fields (or the kept base items)
    roots = tuple(o.path for o in overlay)
    problems = overlay + [p for p in problems if not _under(p.path, roots)]
    if problems:
        raise PolicyValidationError(problems)
    assert policy is not None
    return LoadedPolicy(policy=policy, path=path, tree=tree, chain=chain)


def _under(path: str, roots: tuple[str, ...]) -> bool:
    """``path`` is one of ``roots`` or a field inside one (``fleets[0].name`` is under ``fleets``); the
    document itself (``""``) holds everything."""
    return any(not root or path == root or path.startswith((root + ".", root + "[")) for root in roots)


_PART_MODELS = {
    "metadata": Metadata,
    "cloud": Cloud,
    "compliance": Compliance,
    "budget": Budget,
    "storage": Storage,
    "scheduling": Scheduling,
    "network": Network,
}


def _part(model: type[BaseModel], value: Any) -> Any:
    try:
        return model.model_validate_json(json.dumps(value, default=_json_default, allow_nan=True), strict=True)
    except (ValidationError, TypeError, ValueError, RecursionError):
        return None


def _valid_parts(tree: Any) -> semantics.Parts:
    """The parts of a schema-invalid document that are valid on their own, so their cross-field
    rules still run (all errors at once) while rules needing a rejected part are left out."""
    if not isinstance(tree, LMap):
        return semantics.Parts()
    found: dict[str, Any] = {}
    for key, model in _PART_MODELS.items():
        if key in tree:
            found[key] = _part(model, tree[key])
        elif key in ("compliance", "storage", "scheduling"):
            found[key] = model()  # defaults, as the document would get them
    fleets: list[tuple[int, Fleet]] = []
    items = tree.get("fleets")
    for i, item in enumerate(items if isinstance(items, list) else []):
        fleet = _part(Fleet, item)
        if fleet is not None:
            fleets.append((i, fleet))
    return semantics.Parts(fleets=fleets, **found)


#: Fields holding a path, which is relative to the file that declares it.
_PATH_FIELDS = (("fleets", "demandHistory"),)


def _rebase_paths(tree: Any, top: Path) -> None:
    """Make paths declared in a base file relative to the top file, as the API reads them."""
    if not isinstance(tree, LMap):
        return
    for list_key, field in _PATH_FIELDS:
        items = tree.get(list_key)
        if not isinstance(items, LList):
            continue
        for item in items:
            if not isinstance(item, LMap) or not isinstance(item.get(field), str):
                continue
            declared_in = Path(item.val_locs[field].file).parent
            if declared_in == top.parent or Path(item[field]).is_absolute():
                continue
            target = os.path.normpath(declared_in / item[field])
            item[field] = os.path.relpath(target, top.parent)


def _json_default(value: Any) -> Any:
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat()
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    return {"$unsupported": type(value).__name__}


# --------------------------------------------------------------------------- locating


_ITEM_WORDS = {"fleets": "fleet", "classes": "storage class", "checkpointBuckets": "bucket", "waivers": "waiver"}


@dataclass(frozen=True)
class _Hit:
    location: Location
    path: str
    context: str
    key_location: Location | None
    skipped: bool  # union branch tags were skipped


def locate(tree: Any, loc: Loc) -> _Hit:
    node = tree
    where = tree.loc if isinstance(tree, (LMap, LList)) else Location("<policy>", 1, 1)
    key_where: Location | None = None
    parts: list[str] = []
    context = ""
    skipped = False
    for i, el in enumerate(loc):
        last = i == len(loc) - 1
        if isinstance(node, LMap) and isinstance(el, str) and el in node:
            where, key_where = node.val_locs[el], node.key_locs[el]
            parts.append(el)
            node = node[el]
        elif isinstance(node, LList) and isinstance(el, int) and 0 <= el < len(node):
            where, key_where = node.item_locs[el], None
            parts.append(f"[{el}]")
            node = node[el]
            if isinstance(node, LMap) and isinstance(node.get("name"), str):
                owner = parts[-2] if len(parts) >= 2 else "item"
                context = f"{_ITEM_WORDS.get(owner, owner)} {node['name']!r}"
        elif isinstance(node, LMap) and isinstance(el, str) and last:
            parts.append(el)  # a missing key: point at the mapping that lacks it
            key_where = None
        else:
            skipped = True  # a union branch tag such as "literal['auto']" or "int"
    text = ""
    for part in parts:
        text += part if part.startswith("[") or not text else f".{part}"
    return _Hit(where, text, context, key_where, skipped)


# --------------------------------------------------------------------------- messages


def _schema_problems(tree: Any, exc: ValidationError) -> list[Problem]:
    grouped: dict[tuple[str, Location], list[tuple[str, str | None, _Hit]]] = {}
    for err in exc.errors(include_url=False):
        loc = tuple(err["loc"])
        hit = locate(tree, loc)
        expected, got = _describe(err, loc)
        where = hit.key_location if err["type"] == "extra_forbidden" and hit.key_location else hit.location
        grouped.setdefault((hit.path, where), []).append((expected, got, hit))
    problems: list[Problem] = []
    for (path, where), items in grouped.items():
        hit = items[0][2]
        expecteds = list(dict.fromkeys(e for e, _, _ in items))
        got = next((g for _, g, _ in items if g is not None), None)
        if len(expecteds) > 1 and all(e.startswith("expected ") for e in expecteds):
            msg = "expected " + " or ".join(e[len("expected ") :] for e in expecteds)
        else:
            msg = "; ".join(expecteds)
        if got is not None:
            msg += f", got {got}"
        problems.append(Problem(where, path, msg, hit.context))
    return problems


_TYPE_WORDS = {
    "int_type": "an integer",
    "int_parsing": "an integer",
    "int_from_float": "an integer",
    "int_parsing_size": "an integer of reasonable size",
    "float_type": "a number",
    "float_parsing": "a number",
    "finite_number": "a finite number",
    "bool_type": "true or false",
    "bool_parsing": "true or false",
    "string_type": "a string",
    "list_type": "a list",
    "dict_type": "a mapping",
    "model_type": "a mapping",
    "model_attributes_type": "a mapping",
    "date_type": "a date (YYYY-MM-DD)",
    "date_parsing": "a date (YYYY-MM-DD)",
    "date_from_datetime_parsing": "a date (YYYY-MM-DD)",
    "date_from_datetime_inexact": "a date (YYYY-MM-DD) without a time",
}

_PATTERN_HINTS = {
    r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$": "a lowercase name of letters, digits and '-' (at most 63 characters)",
    r"^[a-z]{2}(-gov)?-[a-z]+-[0-9]$": "an AWS region such as eu-central-1",
    r"^[a-z]{2}(-gov)?-[a-z]+-[0-9][a-z]$": "an availability zone such as eu-central-1a",
    r"^vpc-[0-9a-f]{8,17}$": "a VPC id such as vpc-0abc12345678def01",
    r"^subnet-[0-9a-f]{8,17}$": "a subnet id such as subnet-0abc12345678def01",
    r"^[0-9]{12}$": "a 12-digit AWS account id",
    r"^[^@\s]+@[^@\s]+\.[^@\s]+$": "an email address",
    INSTANCE_TYPE_PATTERN: "an EC2 instance type such as g5.xlarge",
    r"^[0-9]+g\.[0-9]+gb$": "a MIG profile such as 1g.10gb",
    AMI_ID_PATTERN: "an AMI id such as ami-0123456789abcdef0",
    AMI_PARAMETER_PATTERN: "an SSM parameter path prefix ending with '/', such as /golden/gpu/",
    REGISTRY_PATTERN: "a container registry prefix ending with '/', such as registry.example.com/ml/",
    r"^\s*(\S+\s+){4}\S+\s*$": "a five-field cron expression such as '0 22 * * *'",
    QUALIFIED_NAME_PATTERN: "a Kubernetes key such as nvidia.com/gpu (an optional DNS prefix and '/', then at most "
                            "63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit)",
    METRIC_NAME_PATTERN: "a metric name Kubernetes takes (no '/' or '%', not '.' or '..')",
    LABEL_VALUE_PATTERN: "a Kubernetes label value (at most 63 letters, digits, '-', '_' or '.', starting and ending "
                         "with a letter or digit, or empty)",
}


_BOOL_HINT = "YAML reads an unquoted yes/no/on/off/true/false as a boolean; quote the value"

_NUMBER_ERRORS = frozenset({"int_type", "int_parsing", "float_type", "float_parsing"})


def _number_hint(text: str) -> str | None:
    """Why a number-looking text is not a number: YAML reads 1e13 (no dot) as text, and a policy reads
    plain decimals only (YAML 1.1 reads 2:00 as 120 and 010 as 8)."""
    t = text.strip()
    if re.fullmatch(r"[-+]?[0-9]+(\.[0-9]*)?[eE][-+]?[0-9]+", t):  # a number only with a point and a signed exponent
        mantissa, _, exponent = t.lower().partition("e")
        mantissa = mantissa + ".0" if "." not in mantissa else mantissa + "0" if mantissa.endswith(".") else mantissa
        return ("YAML reads an exponent without a decimal point or a sign as text: "
                f"write {mantissa}e{'' if exponent[:1] in '+-' else '+'}{exponent}")
    if re.fullmatch(r"[-+]?(0[0-9_]+|0[xob][0-9a-fA-F_]+|[0-9][0-9_]*(:[0-5]?[0-9])+(\.[0-9_]*)?|[0-9][0-9_]*_[0-9_]*(\.[0-9_]*)?)", t):
        return "a policy reads plain decimal numbers only (no base 60, octal, hex, binary or '_')"
    return None


def _describe(err: Any, loc: Loc) -> tuple[str, str | None]:
    expected, got = _describe_plain(err, loc)
    value = err.get("input")
    if got is not None and isinstance(value, bool) and err["type"] in ("enum", "literal_error", "string_type"):
        got += f" ({_BOOL_HINT})"
    elif got is not None and isinstance(value, str) and err["type"] in _NUMBER_ERRORS and (hint := _number_hint(value)):
        got += f" ({hint})"
    elif (
        got is not None
        and err["type"] == "less_than_equal"
        and len(loc) == 4 and loc[:2] == ("budget", "thresholds") and loc[3] == "at"
        and isinstance(value, (int, float)) and 2 <= value <= 100
    ):
        got += f" (thresholds are fractions of the monthly budget: write {value / 100:g} for {value:g}%)"
    return expected, got


def _describe_plain(err: Any, loc: Loc) -> tuple[str, str | None]:
    typ = err["type"]
    ctx = err.get("ctx") or {}
    value = err.get("input")
    if typ == "missing":
        return f"missing required field '{loc[-1]}'", None
    if typ == "extra_forbidden":
        key = str(loc[-1])
        allowed = _allowed_keys(loc[:-1])
        hint = difflib.get_close_matches(key, allowed, n=1, cutoff=0.6)
        msg = f"unknown field '{key}'"
        if hint:
            msg += f"; did you mean '{hint[0]}'?"
        elif allowed:
            msg += f"; expected one of: {', '.join(sorted(allowed))}"
        return msg, None
    if typ in ("enum", "literal_error"):
        expected = str(ctx.get("expected", ""))
        msg = f"expected one of {expected}"
        options = [o.strip().strip("'\"") for o in expected.replace(" or ", ",").split(",") if o.strip()]
        if isinstance(value, str):
            hint = difflib.get_close_matches(value, options, n=1, cutoff=0.6)
            if hint and hint[0] != value:
                return msg, f"{_got(value)} (did you mean '{hint[0]}'?)"
        return msg, _got(value)
    if typ in ("greater_than", "greater_than_equal", "less_than", "less_than_equal"):
        return f"expected {_range_text(loc, ctx, value)}", _got(value)
    if typ == "string_pattern_mismatch":
        pattern = str(ctx.get("pattern", ""))
        return f"expected {_PATTERN_HINTS.get(pattern, f'a string matching {pattern}')}", _got(value)
    if typ == "string_too_short":
        return f"expected at least {ctx.get('min_length')} characters", _got(value)
    if typ == "string_too_long":
        return f"expected at most {ctx.get('max_length')} characters", _got(value)
    if typ == "too_short":
        return f"expected at least {ctx.get('min_length')} item(s)", f"{ctx.get('actual_length')}"
    if typ == "too_long":
        return f"expected at most {ctx.get('max_length')} item(s)", f"{ctx.get('actual_length')}"
    if typ in _TYPE_WORDS:
        return f"expected {_TYPE_WORDS[typ]}", _got(value)
    msg = str(err.get("msg", "invalid value"))
    if msg.startswith("Value error, "):
        msg = msg[len("Value error, ") :]
    return msg[0].lower() + msg[1:], _got(value)


def _range_text(loc: Loc, ctx: dict[str, Any], value: Any) -> str:
    bounds: dict[str, Any] = {}
    annotation, meta = _annotation_at(loc)
    for m in meta:
        for name in ("ge", "gt", "le", "lt"):
            if isinstance(m, getattr(annotated_types, name.capitalize())):
                bounds[name] = getattr(m, name)
    bounds.update({k: v for k, v in ctx.items() if k in ("ge", "gt", "le", "lt")})
    kind = "an integer" if isinstance(value, int) and not isinstance(value, bool) and _is_int(annotation) else "a number"
    lo = ("[", bounds["ge"]) if "ge" in bounds else ("(", bounds["gt"]) if "gt" in bounds else None
    hi = ("]", bounds["le"]) if "le" in bounds else (")", bounds["lt"]) if "lt" in bounds else None
    if lo and hi:
        return f"{kind} in {lo[0]}{lo[1]:g}, {hi[1]:g}{hi[0]}"
    if lo:
        return f"{kind} {'>=' if lo[0] == '[' else '>'} {lo[1]:g}"
    if hi:
        return f"{kind} {'<=' if hi[0] == ']' else '<'} {hi[1]:g}"
    return kind


def _is_int(annotation: Any) -> bool:
    return annotation is int or (annotation is not None and int in typing.get_args(annotation))


def _unwrap(annotation: Any) -> tuple[Any, list[Any]]:
    """Strip Annotated / Optional wrappers; collect constraint metadata on the way."""
    meta: list[Any] = []
    while True:
        origin = typing.get_origin(annotation)
        if origin is typing.Annotated:
            args = typing.get_args(annotation)
            annotation = args[0]
            for m in args[1:]:
                meta.extend(getattr(m, "metadata", []) or [m])
        elif origin in (typing.Union, types.UnionType):
            args = [a for a in typing.get_args(annotation) if a is not type(None)]
            models = [a for a in args if isinstance(a, type) and issubclass(a, BaseModel)]
            if len(args) == 1:
                annotation = args[0]
            elif models:
                annotation = models[0]
            else:
                # e.g. Literal["auto"] | Annotated[int, ...]: keep the constrained member's metadata
                for a in args:
                    inner, m2 = _unwrap(a)
                    meta.extend(m2)
                return annotation, meta
        else:
            return annotation, meta


def _annotation_at(loc: Loc) -> tuple[Any, list[Any]]:
    current: Any = CostPolicy
    meta: list[Any] = []
    for el in loc:
        current, _ = _unwrap(current)
        if isinstance(current, type) and issubclass(current, BaseModel) and isinstance(el, str):
            field = next((f for n, f in current.model_fields.items() if (f.alias or n) == el), None)
            if field is None:
                return None, []
            current, meta = _unwrap(field.annotation)
            meta = list(field.metadata) + meta
        elif typing.get_origin(current) is list and isinstance(el, int):
            current, meta = _unwrap(typing.get_args(current)[0])
        elif typing.get_origin(current) is dict:
            current, meta = _unwrap(typing.get_args(current)[1])
        else:
            continue  # union tags
    return current, meta


def _allowed_keys(loc: Loc) -> list[str]:
    annotation, _ = _annotation_at(loc)
    annotation, _ = _unwrap(annotation)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [f.alias or n for n, f in annotation.model_fields.items()]
    return []


__all__ = [
    "BUDGET_RESPONSE_FIRED",
    "BUDGET_RESPONSE_STAMP",
    "LoadedPolicy",
    "ResponseOverlay",
    "PolicyError",
    "PolicySyntaxError",
    "PolicyValidationError",
    "load_policy",
    "load_policy_text",
    "locate",
]
