"""Read real Pulumi output into the resource document: ``pulumi preview --json`` (the
PreviewDigest: ``steps[]`` with ``newState``/``oldState``) and ``pulumi stack export``
(``{"version": 3, "deployment": {"resources": [...]}}``; older versions alike).

The document is the *desired* state: a resource a step removes (``delete``, ``discard``) is left
out; the steps that retire the old copy of a replaced resource (``delete-replaced``,
``discard-replaced``, ``remove-pending-replace``) leave its replacement in, whichever order the
replacement's steps come in; for every other step the ``newState`` is taken (the last step of a URN
wins, so a replacement's steps collapse to one entry; a step of an op the Pulumi engine does not
have, or whose ``newState`` is of another URN than the step's, is refused, as is an export that lists
a URN twice other than as an old copy pending deletion). A preview run without
``--show-sames`` lists only changes; the document's ``notes`` say so when the change summary
counts unchanged resources that are not in the steps. A preview that did not run to its end (an
``error`` diagnostic, ``maybeCorrupt``, no ``changeSummary``) is refused. A preview lists no step of
a default provider: each one its resources name is added with its package's stack config as inputs,
as an export lists it. A replacement does not take the old copy's outputs. An export's pending
operations add the resources an interrupted create may have made, and make the document partial
where an interrupted update set other inputs.

Every field that is read is checked for its JSON type first: a file of the wrong shape is an
:class:`IngestError` naming the file, the step or resource (index and URN) and the field, never a
crash. Files are read as UTF-8 (with or without a byte-order mark) or as UTF-16/UTF-32 with a
byte-order mark (what PowerShell's ``>`` writes).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from seedance.synth.document import (
    SECRET,
    SIG_KEY,
    UNKNOWN,
    UNKNOWN_SENTINEL,
    Resource,
    ResourceDocument,
    Source,
    normalise,
    normalise_inputs,
    split_provider_ref,
    urn_name,
)
from seedance.textfile import DuplicateKeyError, describe_json, lone_surrogate, unique_keys

STACK_TYPE = "pulumi:pulumi:Stack"
PROVIDER_TYPE_PREFIX = "pulumi:providers:"
#: Steps after which a resource is no longer desired.
REMOVING_OPS = frozenset({"delete", "discard"})
#: Steps that retire the old copy of a replaced resource: its URN stays desired (the replacement's own
#: steps record it, before or after this one: create-before-delete lists ``delete-replaced`` last).
RETIRING_OPS = frozenset({"delete-replaced", "discard-replaced", "remove-pending-replace"})
#: Steps whose resource exists and keeps its id and outputs (a replacement gets new ones, unknown until apply).
ID_KEEPING_OPS = frozenset({"same", "update", "refresh"})
#: Types a launcher names by their AWS name, which a namePrefix leaves to the outputs.
NAMED_BY_OUTPUT = frozenset({"aws:ec2/launchTemplate:LaunchTemplate", "aws:ec2/launchConfiguration:LaunchConfiguration"})
#: Steps of a resource the program only reads (Resource.get): not the stack's. (Dropping a read
#: resource is the op "discard", Pulumi's OpReadDiscard, among REMOVING_OPS.)
READ_OPS = frozenset({"read", "read-replacement"})
#: Every step operation of the Pulumi engine (pkg/resource/deploy/step.go, apitype.OpType): a step of
#: any other op is not one this file can say the effect of, so the desired state cannot be told.
STEP_OPS = (
    "same", "create", "update", "delete", "replace", "create-replacement", "delete-replaced", "read",
    "read-replacement", "refresh", "discard", "discard-replaced", "remove-pending-replace", "import",
    "import-replacement",
)
EXPORT_VERSIONS = (1, 2, 3)

_URN_FORM = "a Pulumi URN string (urn:pulumi:STACK::PROJECT::TYPE::NAME)"
#: Errors a value of an unexpected shape can raise past the explicit checks; turned into an IngestError.
_SHAPE_ERRORS = (TypeError, AttributeError, KeyError, IndexError, ValueError, RecursionError)

#: One resource state and where it came from (``steps[3] (urn:...)``), for error messages.
Located = tuple[str, dict[str, Any]]


class IngestError(ValueError):
    """The file is not the Pulumi output it was given as; the message says what was expected."""


def read_json(path: str | Path, what: str) -> Any:
    """Parse a JSON file, tolerating noise before the document (e.g. policy-pack output that
    ``pulumi preview --json`` printed on stdout before the JSON)."""
    p = Path(path)
    try:
        raw = p.read_bytes()
    except OSError as exc:
        raise IngestError(f"{p}: cannot read: {exc.strerror or exc}") from None
    encoding = json.detect_encoding(raw)  # UTF-8 (BOM or not), UTF-16/32 by BOM or by their zero bytes
    try:
        text = raw.decode(encoding)
    except UnicodeDecodeError as exc:
        raise IngestError(
            f"{p}: cannot decode as {encoding.upper().removesuffix('-SIG')} ({exc.reason} at byte {exc.start}); "
            f"expected {what} in UTF-8, or UTF-16/UTF-32 with a byte-order mark"
        ) from None
    try:
        return _text_only(json.loads(text, object_pairs_hook=unique_keys), text, p, what)
    except DuplicateKeyError as exc:
        raise IngestError(f"{p}: {exc}; expected {what}") from None
    except RecursionError:
        raise IngestError(f"{p}: the JSON is nested too deeply; expected {what}") from None
    except json.JSONDecodeError as first:
        start = text.find("\n{")
        if text.lstrip().startswith("{") or start < 0:
            raise IngestError(f"{p}: not valid JSON ({first.msg} at line {first.lineno} column {first.colno}); expected {what}") from None
        try:
            value, end = json.JSONDecoder(object_pairs_hook=unique_keys).raw_decode(text[start + 1 :])
        except DuplicateKeyError as exc:
            raise IngestError(f"{p}: {exc}; expected {what}") from None
        except RecursionError:
            raise IngestError(f"{p}: the JSON is nested too deeply; expected {what}") from None
        except json.JSONDecodeError as exc:
            raise IngestError(f"{p}: not valid JSON ({exc.msg}); expected {what}") from None
        return _text_only(value, text[start + 1 : start + 1 + end], p, what, lines_before=text.count("\n", 0, start + 1))


def _text_only(value: Any, text: str, p: Path, what: str, *, lines_before: int = 0) -> Any:
    """``value``, unless its JSON ``text`` holds half a surrogate pair (no Unicode text: refused)."""
    bad = lone_surrogate(text)
    if bad is not None:
        line, rest = bad.split(":", 1)
        raise IngestError(f"{p}:{int(line) + lines_before}:{rest}; expected {what}")
    return value


# ---------------------------------------------------------------------- shape checks


_describe = describe_json


def _wrong(where: str, loc: str, field: str, expected: str, got: Any) -> IngestError:
    return IngestError(f"{where}: {loc}: '{field}': expected {expected}, got {_describe(got)}")


def _is_urn(value: Any) -> bool:
    return isinstance(value, str) and value.startswith("urn:pulumi:") and len(value.split("::")) >= 4


def _located(loc: str, urn: Any) -> str:
    return f"{loc} ({urn})" if isinstance(urn, str) and urn else loc


def _check_signatures(value: Any, where: str, loc: str, path: str) -> None:
    """Every special value (``{"4dabf...": SIG, ...}``) has a string signature; iterative, so any depth."""
    todo: list[tuple[str, Any]] = [(path, value)]
    while todo:
        p, v = todo.pop()
        if isinstance(v, dict):
            if SIG_KEY in v and not isinstance(v[SIG_KEY], str):
                raise _wrong(where, loc, f"{p}.{SIG_KEY}", "a string (the signature of a secret, asset, archive, resource or output value)", v[SIG_KEY])
            todo.extend((f"{p}.{k}", x) for k, x in v.items())
        elif isinstance(v, list):
            todo.extend((f"{p}[{i}]", x) for i, x in enumerate(v))


def _check_state(state: dict[str, Any], where: str, base: str, prefix: str = "", known_urn: str | None = None) -> str:
    """Check the fields of one resource state that are read; return its location (``base`` and its URN).
    ``known_urn`` (the step's) names the location when the state's own URN is the bad field."""
    urn = state.get("urn")
    if not _is_urn(urn):
        raise _wrong(where, _located(base, known_urn), f"{prefix}urn", _URN_FORM, urn)
    loc = _located(base, urn)
    typ = state.get("type")
    if not isinstance(typ, str) or not typ:
        raise _wrong(where, loc, f"{prefix}type", "a type token string (e.g. aws:s3/bucket:Bucket)", typ)
    for key in ("inputs", "outputs"):
        value = state.get(key)
        if value is not None and not isinstance(value, dict):
            raise _wrong(where, loc, f"{prefix}{key}", "an object of property values", value)
        _check_signatures(value, where, loc, f"{prefix}{key}")
    inputs = state.get("inputs")
    if isinstance(inputs, dict) and SIG_KEY in inputs:  # Pulumi marks single values secret, never the whole object
        raise IngestError(f"{where}: {loc}: '{prefix}inputs': expected an object of property values, got a special "
                          f"value (signature {str(inputs[SIG_KEY])[:40]!r}) in place of the whole object, which hides "
                          "every setting the rules judge")
    parent = state.get("parent")
    if parent not in (None, "") and not _is_urn(parent):
        raise _wrong(where, loc, f"{prefix}parent", f"the parent's URN, {_URN_FORM}", parent)
    provider = state.get("provider")
    if provider is not None and not isinstance(provider, str):
        raise _wrong(where, loc, f"{prefix}provider", "a provider reference string (PROVIDER-URN::ID)", provider)
    custom = state.get("custom")
    if custom is not None and not isinstance(custom, bool):
        raise _wrong(where, loc, f"{prefix}custom", "true or false", custom)
    deps = state.get("propertyDependencies")
    if deps is not None and not (
        isinstance(deps, dict) and all(v is None or (isinstance(v, list) and all(_is_urn(u) for u in v)) for v in deps.values())
    ):
        raise _wrong(where, loc, f"{prefix}propertyDependencies", "an object of input name -> list of resource URNs (or null)", deps)
    return loc


# ---------------------------------------------------------------------- the document


def _stack_project(urns: Iterable[str], where: str) -> tuple[str, str]:
    for urn in urns:
        parts = urn.split("::")
        if urn.startswith("urn:pulumi:") and len(parts) >= 4:
            return parts[0][len("urn:pulumi:") :], parts[1]
    raise IngestError(f"{where}: no resource URN to tell the stack and project from")


def _build(located: list[Located], *, source: Source, where: str, config_regions: dict[str, str | None]) -> ResourceDocument:
    """The document of resource states already checked by :func:`_check_state`."""
    states = [s for _, s in located]
    stack, project = _stack_project((s["urn"] for s in states), where)
    stack_urns = {s["urn"] for s in states if s["type"] == STACK_TYPE}
    provider_region: dict[str, str | None] = {}
    for s in states:
        if s["type"].startswith("pulumi:providers:"):
            provider_region[s["urn"]] = _region_value((s.get("inputs") or {}).get("region"))
    # a provider without an explicit region (ambient config): the one region its resources report
    seen: dict[str, set[str]] = {}
    for s in states:
        provider = split_provider_ref(s.get("provider"))
        own = own_region(s)
        if provider and own and own not in _HIDDEN:
            seen.setdefault(provider, set()).add(own)
    for provider, regions in seen.items():
        if not provider_region.get(provider) and len(regions) == 1:
            provider_region[provider] = next(iter(regions))
    resources: list[Resource] = []
    for loc, s in located:
        urn, typ = s["urn"], s["type"]
        if typ == STACK_TYPE:
            continue
        try:
            resources.append(_resource(s, urn, typ, stack_urns, provider_region, config_regions))
        except IngestError:
            raise
        except _SHAPE_ERRORS as exc:  # a shape the checks above did not foresee: still a located error
            raise IngestError(f"{where}: {loc}: unexpected content ({type(exc).__name__}: {str(exc)[:200]})") from None
    return ResourceDocument(stack=stack, project=project, source=source, resources=resources)


def _note_read(doc: ResourceDocument, read_urns: set[str]) -> None:
    if read_urns:
        doc.notes.append(
            f"{len(read_urns)} resource(s) the program only reads (e.g. {urn_name(sorted(read_urns)[0])}, by Resource.get) "
            "are left out: they are not the stack's, and the file holds none of their settings"
        )


def _note_unplaced(doc: ResourceDocument) -> ResourceDocument:
    unplaced = [r for r in doc.resources if r.custom and r.type.startswith(("aws:", "aws-native:")) and r.region is None]
    if unplaced:
        doc.notes.append(
            f"{len(unplaced)} AWS resource(s) (e.g. {unplaced[0].name}) name no region in this file (no region input, "
            "ARN, provider region or aws:region config): the gate takes them to be in the policy's cloud.region"
        )
    return doc


def _resource(
    s: dict[str, Any], urn: str, typ: str, stack_urns: set[str], provider_region: dict[str, str | None],
    config_regions: dict[str, str | None],
) -> Resource:
    inputs = normalise_inputs(s.get("inputs"))
    if typ in NAMED_BY_OUTPUT and "name" not in inputs:
        # a namePrefix (or no name at all) leaves the AWS name to the provider: groups name the
        # template by it, so the document keeps the name the outputs show
        named = normalise((s.get("outputs") or {}).get("name"))
        if isinstance(named, str) and named and not named.startswith("["):
            inputs = {**inputs, "name": named}
    provider = split_provider_ref(s.get("provider"))
    region = None
    if typ.startswith(("aws:", "aws-native:")) or typ in ("pulumi:providers:aws", "pulumi:providers:aws-native"):
        # the first of these the file has; a secret or unknown one stays hidden ([secret], [unknown]):
        # the region is not established, and the next one down may not be where the resource goes
        region = (
            own_region(s)
            or provider_region.get(urn)
            or (provider_region.get(provider) if provider else None)
            or (UNKNOWN if _explicit(provider, provider_region) else config_regions.get(_package(typ)))
        )
    parent = s.get("parent") or None
    rid = s.get("id")
    return Resource(
        urn=urn,
        type=typ,
        name=urn_name(urn),
        parent=None if parent in stack_urns or (parent and parent.split("::")[-2:-1] == [STACK_TYPE]) else parent,
        custom=bool(s.get("custom", False)),
        region=region,
        provider=provider,
        id=rid if isinstance(rid, str) and rid else None,
        inputs=inputs,
        property_dependencies={k: list(v) for k, v in (s.get("propertyDependencies") or {}).items() if v},
    )


def _package(typ: str) -> str:
    """The package of a type token (``aws`` of ``aws:s3/bucket:Bucket``), or of a provider type
    (``aws-native`` of ``pulumi:providers:aws-native``): its config namespace."""
    return typ.removeprefix(PROVIDER_TYPE_PREFIX).split(":", 1)[0]


def _explicit(provider: str | None, provider_region: dict[str, str | None]) -> bool:
    """An explicit provider of the file that sets no region: it takes the region from its environment
    (AWS_REGION, the profile), which the file does not show; the stack's aws:region config is the
    default provider's only."""
    return provider is not None and provider in provider_region and not is_default_provider_name(urn_name(provider))


def own_region(state: dict[str, Any]) -> str | None:
    """The region a resource states itself: its ``region`` input or output, or its ARN's region."""
    inputs, outputs = state.get("inputs") or {}, state.get("outputs") or {}
    region = _region_value(inputs.get("region")) or _region_value(outputs.get("region"))
    if region:
        return region
    arn = outputs.get("arn")
    if isinstance(arn, str) and arn.startswith("arn:"):
        parts = arn.split(":")
        if len(parts) > 3 and parts[3]:
            return parts[3]
    return None


#: The names Pulumi gives the providers it makes itself (default, default_6_63_0).
_DEFAULT_PROVIDER = re.compile(r"default(_[0-9]+_[0-9]+_[0-9]+\S*)?")


def is_default_provider_name(name: str) -> bool:
    """Whether a provider's name is one Pulumi gives the providers it makes itself: a program's own
    provider (named default_eu, say) sets its region explicitly or reads its environment."""
    return _DEFAULT_PROVIDER.fullmatch(name) is not None

#: Region values a file holds but does not show.
_HIDDEN = frozenset({SECRET, UNKNOWN})


def _region_value(value: Any) -> str | None:
    """A region as the file gives it: the region; [secret] or [unknown] for a value it holds but does
    not show (a secret, a value unknown until apply, a preview's masked "[...]"); None when absent."""
    v = normalise(value)
    if not isinstance(v, str) or not v:
        return None
    if v.startswith("["):
        return SECRET if v == SECRET else UNKNOWN
    return v


def _guarded(where: str, build: Any, data: Any) -> ResourceDocument:
    try:
        return build(data, where)
    except IngestError:
        raise
    except _SHAPE_ERRORS as exc:  # the last line of defence: never a traceback for a file's content
        raise IngestError(f"{where}: unexpected content ({type(exc).__name__}: {str(exc)[:200]})") from None


# ---------------------------------------------------------------------- preview


def from_preview(data: Any, where: str = "<preview>") -> ResourceDocument:
    """A ``pulumi preview --json`` document -> the desired-state resource document."""
    return _guarded(where, _from_preview, data)


def _from_preview(data: Any, where: str) -> ResourceDocument:
    if isinstance(data, dict) and "deployment" in data:
        raise IngestError(f"{where}: this is `pulumi stack export` output (it has 'deployment'); use --from-export")
    if isinstance(data, dict) and data.get("steps") in (None, []) and isinstance(data.get("changeSummary"), dict):
        # Pulumi leaves 'steps' out (omitempty) when the preview lists none: a stack with nothing to
        # change previewed without --show-sames
        raise IngestError(f"{where}: the preview lists no step (changeSummary {json.dumps(data['changeSummary'])}): "
                          "without --show-sames it shows only what changes; run `pulumi preview --json --show-sames`")
    if not isinstance(data, dict) or not isinstance(data.get("steps"), list):
        raise IngestError(f"{where}: not `pulumi preview --json` output: expected an object with a 'steps' list")
    config = data.get("config")
    if config is not None and not isinstance(config, dict):
        raise IngestError(f"{where}: 'config': expected an object of stack config values, got {_describe(config)}")
    summary = data.get("changeSummary")
    if summary is not None and not isinstance(summary, dict):
        raise IngestError(f"{where}: 'changeSummary': expected an object of counts by operation, got {_describe(summary)}")
    unchanged = (summary or {}).get("same")
    if unchanged is not None and (isinstance(unchanged, bool) or not isinstance(unchanged, int) or unchanged < 0):
        raise IngestError(f"{where}: 'changeSummary.same': expected a count (a whole number >= 0), got {_describe(unchanged)}")
    by_urn: dict[str, Located] = {}
    read_urns: set[str] = set()
    same_seen = 0
    for i, step in enumerate(data["steps"]):
        base = f"steps[{i}]"
        if not isinstance(step, dict) or not isinstance(step.get("op"), str):
            raise IngestError(f"{where}: {base}: expected an object with an 'op'")
        op = step["op"]
        step_urn = step.get("urn")
        if step_urn is not None and not _is_urn(step_urn):
            raise _wrong(where, base, "urn", _URN_FORM, step_urn)
        loc = _located(base, step_urn)
        if op not in STEP_OPS:
            raise _wrong(where, loc, "op", f"one of Pulumi's step operations ({', '.join(STEP_OPS)})", op)
        for key in ("newState", "oldState"):
            if step.get(key) is not None and not isinstance(step[key], dict):
                raise _wrong(where, loc, key, "an object (a resource state) or null", step[key])
        new_state, old_state = step.get("newState"), step.get("oldState")
        new_urn = (new_state or {}).get("urn")
        if step_urn is not None and _is_urn(new_urn) and new_urn != step_urn:  # a malformed one: _check_state
            # the engine's step is of its new state's resource: a file where they differ cannot say which
            # resource is desired (taking the state's URN would merge different resources into one)
            raise IngestError(f"{where}: {loc}: 'newState.urn' is {_describe(new_urn)}, not the step's URN: "
                              "expected the URN of the resource the step is of")
        if op in RETIRING_OPS:
            continue
        if op in REMOVING_OPS:
            urn = step_urn
            for key, state in (("newState", new_state), ("oldState", old_state)):
                if urn is None and state is not None and state.get("urn") is not None:
                    urn = state["urn"]
                    if not _is_urn(urn):
                        raise _wrong(where, loc, f"{key}.urn", _URN_FORM, urn)
            if urn is not None:
                by_urn.pop(urn, None)
            continue
        if new_state is None:
            continue  # nothing desired to record (e.g. an op without a new state)
        if op in READ_OPS or new_state.get("external") is True:
            # a resource the program only reads (Resource.get): not the stack's, and its inputs are
            # only what was passed to get(), so no rule can judge it; launchers naming it are reported
            # as launching from a template the document does not hold
            read_urns.add(step_urn if isinstance(step_urn, str) else str(new_state.get("urn")))
            continue
        loc = _check_state(new_state, where, base, "newState.", step_urn)
        provider = step.get("provider")
        if provider is not None and not isinstance(provider, str):
            raise _wrong(where, loc, "provider", "a provider reference string (PROVIDER-URN::ID)", provider)
        if op == "same":
            same_seen += 1
        state = dict(new_state)
        state.setdefault("provider", provider)
        if not state.get("id") and op in ID_KEEPING_OPS and old_state is not None:
            state["id"] = old_state.get("id")  # a preview's new state of a resource that exists omits its id
        if old_state is not None and "outputs" in old_state:
            outputs = old_state["outputs"]
            if outputs is not None and not isinstance(outputs, dict):
                raise _wrong(where, loc, "oldState.outputs", "an object of property values", outputs)
            _check_signatures(outputs, where, loc, "oldState.outputs")
            if "outputs" not in state and op in ID_KEEPING_OPS:
                # a preview's new state of a resource that stays leaves its outputs (region, ARN) to the
                # old one; a replacement is a new resource, which may be made elsewhere (another
                # provider, region or account): the old outputs (its region, ARN, the name a namePrefix
                # drew) describe the copy the replacement deletes, and none of the new one's is known
                # until apply
                state["outputs"] = outputs  # only read for the region and a generated name
        by_urn[state["urn"]] = (loc, state)
    _check_finished(data, summary, where)
    settings = _provider_settings(config or {}, where)
    located = _default_providers(list(by_urn.values()), settings)
    regions = {pkg: _region_value(values.get("region")) for pkg, values in settings.items()}
    doc = _build(located, source="preview", where=where, config_regions=regions)
    _note_read(doc, read_urns)
    if isinstance(unchanged, int) and unchanged > same_seen:
        doc.notes.append(
            f"partial: the change summary counts {unchanged} unchanged resource(s) but only {same_seen} 'same' step(s) "
            "are listed; run `pulumi preview --json --show-sames` for the full desired state"
        )
    return _note_unplaced(doc)


def _provider_settings(config: dict[str, Any], where: str) -> dict[str, dict[str, str]]:
    """The stack config of a preview by package: ``{"aws": {"region": ..., "defaultTags": ...}}``.

    A preview's ``config`` is the stack's config as text (PreviewDigest.Config, map[string]string;
    secrets blinded as ``[secret]``; an object such as ``aws:defaultTags`` as its JSON text), keyed
    ``NAMESPACE:NAME`` (the older ``NAMESPACE:config:NAME`` too). Pulumi's default provider of a
    package takes the package's namespace as its inputs, one string each (the engine's
    GetPackageConfig), which is what an export's default provider resource holds."""
    out: dict[str, dict[str, str]] = {}
    for key, value in config.items():
        namespace, sep, name = key.partition(":")
        if not sep or not namespace or namespace == "pulumi":
            continue
        name = name.removeprefix("config:")
        if not name:
            continue
        if not isinstance(value, str):
            raise IngestError(f"{where}: 'config.{key}': expected a string (a preview's config values are text), "
                              f"got {_describe(value)}")
        out.setdefault(namespace, {})[name] = value
    return out


def _default_providers(located: list[Located], settings: dict[str, dict[str, str]]) -> list[Located]:
    """``located`` with the default providers its resources are created by, as an export lists them.

    A preview lists no step of a default provider (the real previews of the shared fixtures name
    ``pulumi:providers:aws::default_6_63_0`` in their steps' ``provider`` but have no step of it; the
    export of the same stack lists it as a resource). Its settings are the stack config of its
    package (:func:`_provider_settings`): without them the rules would not see its ``defaultTags``
    (the data class, cost tags), its ``region`` (an ``aws-native`` resource is placed by
    ``aws-native:region``, not ``aws:region``) or its Kubernetes ``namespace``. A default provider
    the preview does list keeps its inputs; the config fills those it lacks."""
    listed = {s["urn"]: i for i, (_, s) in enumerate(located)}
    out = list(located)
    added: dict[str, Located] = {}
    for _, s in located:
        ref = s.get("provider")
        purn = split_provider_ref(ref)
        if not purn or purn in added or not _is_urn(purn):
            continue
        typ = purn.split("::")[2]
        if not typ.startswith(PROVIDER_TYPE_PREFIX) or not is_default_provider_name(urn_name(purn)):
            continue
        values = settings.get(_package(typ), {})
        if purn in listed:
            loc, state = out[listed[purn]]
            inputs = state.get("inputs") or {}
            out[listed[purn]] = (loc, {**state, "inputs": {**{k: v for k, v in values.items() if k not in inputs}, **inputs}})
            continue
        rid = ref[len(purn) + 2 :] if isinstance(ref, str) and ref.startswith(purn + "::") else None
        added[purn] = (f"config ({_package(typ)}:*)", {
            "urn": purn, "type": typ, "custom": True, "inputs": dict(values),
            "id": rid if rid and rid != UNKNOWN_SENTINEL else None,
        })
    return list(added.values()) + out


def _check_finished(data: dict[str, Any], summary: dict[str, Any] | None, where: str) -> None:
    """Refuse a preview that did not run to its end: its steps are not the whole desired state.

    Pulumi's JSON display (pkg/display/json.go, ShowPreviewDigest) fills ``changeSummary``,
    ``duration`` and ``maybeCorrupt`` from the engine's summary event, the last event of a run, and
    collects the run's diagnostics (``severity`` one of debug, info, info#err, warning, error).
    A program that fails reports an ``error`` diagnostic ("Program exited with non-zero exit code");
    a run cancelled or killed before its end has no summary, so no ``changeSummary`` (``omitempty``:
    a finished run always counts at least the stack resource itself). ``duration`` is not the sign:
    the 2019 preview of the shared fixtures finished and has none; every real one has a summary."""
    diagnostics = data.get("diagnostics")
    if diagnostics is not None and not isinstance(diagnostics, list):
        raise IngestError(f"{where}: 'diagnostics': expected an array of diagnostics, got {_describe(diagnostics)}")
    errors = []
    for i, d in enumerate(diagnostics or []):
        if not isinstance(d, dict):
            raise IngestError(f"{where}: diagnostics[{i}]: expected an object (a diagnostic), got {_describe(d)}")
        if d.get("severity") == "error":
            errors.append(d)
    if errors:
        first = errors[0]
        text = " ".join(str(first.get("message") or "").split())[:300] or "(no message)"
        on = f" on {first['urn']}" if isinstance(first.get("urn"), str) and first["urn"] else ""
        raise IngestError(
            f"{where}: the preview failed ({len(errors)} error diagnostic(s); first{on}: {text}): a failed preview "
            "does not hold the whole desired state; fix the error and run `pulumi preview --json --show-sames` again"
        )
    corrupt = data.get("maybeCorrupt")
    if corrupt is not None and not isinstance(corrupt, bool):
        raise IngestError(f"{where}: 'maybeCorrupt': expected true or false, got {_describe(corrupt)}")
    if corrupt:
        raise IngestError(f"{where}: the preview says resources may be corrupt ('maybeCorrupt': true): its steps do not "
                          "show what exists; run `pulumi refresh`, then preview again")
    if not summary:
        raise IngestError(
            f"{where}: no 'changeSummary': the preview did not run to its end (cancelled or killed before its summary), "
            "so its steps may not hold the whole desired state; run `pulumi preview --json --show-sames` to the end"
        )


# ---------------------------------------------------------------------- export


def from_export(data: Any, where: str = "<export>") -> ResourceDocument:
    """A ``pulumi stack export`` document (or its bare ``deployment``) -> the resource document."""
    return _guarded(where, _from_export, data)


def _from_export(data: Any, where: str) -> ResourceDocument:
    if isinstance(data, dict) and "steps" in data:
        raise IngestError(f"{where}: this is `pulumi preview --json` output (it has 'steps'); use --from-preview")
    if isinstance(data, dict) and "deployment" in data:
        version = data.get("version")
        if isinstance(version, bool) or version not in EXPORT_VERSIONS:
            raise IngestError(f"{where}: unsupported stack export version {version!r}; expected one of {list(EXPORT_VERSIONS)}")
        deployment = data["deployment"]
        prefix = "deployment."
    else:
        deployment = data
        prefix = ""
    expected = "expected {'version', 'deployment': {'resources': [...]}}"
    if not isinstance(deployment, dict) or ("resources" not in deployment and "manifest" not in deployment):
        what = f"'{prefix.rstrip('.')}' is {_describe(deployment)}" if prefix else f"got {_describe(deployment)}"
        raise IngestError(f"{where}: not `pulumi stack export` output: {expected}; {what}")
    if not isinstance(deployment.get("resources"), list | None):
        raise IngestError(f"{where}: '{prefix}resources': expected an array of resource states, "
                          f"got {_describe(deployment['resources'])}")
    resources = deployment.get("resources") or []
    if not resources:
        raise IngestError(f"{where}: the deployment has no resources (an empty or never-deployed stack)")
    pending = deployment.get("pending_operations")
    if pending is not None and not isinstance(pending, list):
        raise IngestError(f"{where}: '{prefix}pending_operations': expected an array of operations, got {_describe(pending)}")
    located: list[Located] = []
    read_urns: set[str] = set()
    indexes: dict[str, list[int]] = {}  # URN -> the indexes of the resources desired under it
    for i, r in enumerate(resources):
        loc = f"{prefix}resources[{i}]"
        if not isinstance(r, dict):
            raise IngestError(f"{where}: {loc}: expected an object (a resource state), got {_describe(r)}")
        loc = _check_state(r, where, loc)
        delete = r.get("delete")
        if delete is not None and not isinstance(delete, bool):
            raise _wrong(where, loc, "delete", "true or false", delete)
        if r.get("external") is True:  # read by the program (Resource.get), not the stack's
            read_urns.add(str(r.get("urn")))
        elif not delete:
            located.append((loc, r))
            indexes.setdefault(r["urn"], []).append(i)
    twice = {urn: at for urn, at in indexes.items() if len(at) > 1}
    if twice:
        # a URN names one resource; a replaced one's old copy is pending deletion ('delete': true)
        urn, at = next(iter(twice.items()))
        more = f" (and {len(twice) - 1} more URN(s) listed more than once)" if len(twice) > 1 else ""
        raise IngestError(f"{where}: resource URN {urn} is listed more than once, at "
                          f"{', '.join(f'{prefix}resources[{i}]' for i in at)}{more}: expected each resource once "
                          "(only an old copy pending deletion, 'delete': true, may share its URN)")
    added, changed = _pending(pending or [], located, where, prefix)
    located += added
    if not located:
        raise IngestError(f"{where}: every resource of the deployment is pending deletion ('delete': true); nothing is desired")
    doc = _build(located, source="export", where=where, config_regions={})
    _note_read(doc, read_urns)
    if pending:
        doc.notes.append(f"{len(pending)} pending operation(s) in the export: the last update was interrupted")
    if added:
        doc.notes.append(
            f"{len(added)} resource(s) of interrupted operation(s) the stack does not record (e.g. "
            f"{urn_name(added[0][1]['urn'])}: an interrupted create, import or delete) are judged: they may exist in AWS"
        )
    if changed:
        doc.notes.append(
            f"partial: {len(changed)} interrupted operation(s) (e.g. on {urn_name(changed[0])}) set inputs other than "
            "those the export records for the resource, and AWS may hold either; resolve the pending operations "
            "(`pulumi refresh`) and export again"
        )
    return _note_unplaced(doc)


#: The operations an interrupted update leaves pending (pulumi/pulumi sdk/go/common/resource,
#: OperationType; an export's ``pending_operations`` are ``{"resource": state, "type": ...}``).
PENDING_TYPES = ("creating", "updating", "deleting", "reading", "importing")


def _pending(pending: list[Any], located: list[Located], where: str, prefix: str) -> tuple[list[Located], list[str]]:
    """What an export's pending operations add to its desired resources: the resources an interrupted
    create or import may have made (not among them: added, judged like the others), and the URNs of
    listed resources an interrupted operation was giving other inputs (AWS may hold either set: the
    document cannot say which, so the run is undecided). A resource pending deletion is still listed
    and judged; one being read (Resource.get) is not the stack's."""
    desired = {s["urn"]: s for _, s in located}
    added: dict[str, Located] = {}
    changed: list[str] = []
    for i, op in enumerate(pending):
        base = f"{prefix}pending_operations[{i}]"
        if not isinstance(op, dict):
            raise IngestError(f"{where}: {base}: expected an object (an operation), got {_describe(op)}")
        kind = op.get("type")
        state = op.get("resource")
        if not isinstance(state, dict):
            raise _wrong(where, base, "resource", "an object (a resource state)", state)
        loc = _check_state(state, where, base, "resource.")
        if kind not in PENDING_TYPES:
            # an operation whose effect cannot be told: what exists cannot be told either
            raise _wrong(where, loc, "type", f"one of Pulumi's pending operation types ({', '.join(PENDING_TYPES)})", kind)
        if kind == "reading" or state.get("external") is True:
            continue
        urn = state["urn"]
        known = desired.get(urn) or (added[urn][1] if urn in added else None)
        if known is None:
            added[urn] = (loc, state)
        elif kind != "deleting" and normalise_inputs(known.get("inputs")) != normalise_inputs(state.get("inputs")):
            changed.append(urn)
    return list(added.values()), changed


def load_preview(path: str | Path) -> ResourceDocument:
    return from_preview(read_json(path, "`pulumi preview --json` output"), str(path))


def load_export(path: str | Path) -> ResourceDocument:
    return from_export(read_json(path, "`pulumi stack export` output"), str(path))
