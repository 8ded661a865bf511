"""Read real Pulumi output into the resource document: ``pulumi preview --json`` (the
PreviewDigest: ``steps[]`` with ``newState``/``oldState``) and ``pulumi stack export``
(``{"version": 3, "deployment": {"resources": [...]}}``; older versions alike).

The document is the *desired* state: preview steps that remove a resource (``delete``,
``delete-replaced``, ``discard``...) are left out; for every other step the ``newState`` is taken
(the last step of a URN wins, so replacements collapse to one entry). A preview run without
``--show-sames`` lists only changes; the document's ``notes`` say so when the change summary
counts unchanged resources that are not in the steps.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from seedance.synth.document import (
    Resource,
    ResourceDocument,
    Source,
    normalise_inputs,
    split_provider_ref,
    urn_name,
)

STACK_TYPE = "pulumi:pulumi:Stack"
REMOVING_OPS = frozenset({"delete", "delete-replaced", "discard", "discard-replaced", "remove-pending-replace"})
EXPORT_VERSIONS = (1, 2, 3)


class IngestError(ValueError):
    """The file is not the Pulumi output it was given as; the message says what was expected."""


def read_json(path: str | Path, what: str) -> Any:
    """Parse a JSON file, tolerating noise before the document (e.g. policy-pack output that
    ``pulumi preview --json`` printed on stdout before the JSON)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise IngestError(f"{p}: cannot read: {exc.strerror}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as first:
        start = text.find("\n{")
        if text.lstrip().startswith("{") or start < 0:
            raise IngestError(f"{p}: not valid JSON ({first.msg} at line {first.lineno} column {first.colno}); expected {what}") from None
        try:
            value, _ = json.JSONDecoder().raw_decode(text[start + 1 :])
        except json.JSONDecodeError as exc:
            raise IngestError(f"{p}: not valid JSON ({exc.msg}); expected {what}") from None
        return value


def _stack_project(urns: Iterable[str], where: str) -> tuple[str, str]:
    for urn in urns:
        parts = urn.split("::")
        if urn.startswith("urn:pulumi:") and len(parts) >= 4:
            return parts[0][len("urn:pulumi:") :], parts[1]
    raise IngestError(f"{where}: no resource URN to tell the stack and project from")


def _build(states: list[dict[str, Any]], *, source: Source, where: str, config_region: str | None) -> ResourceDocument:
    stack, project = _stack_project((s.get("urn", "") for s in states), where)
    stack_urns = {s["urn"] for s in states if s.get("type") == STACK_TYPE}
    provider_region: dict[str, str | None] = {}
    for s in states:
        if str(s.get("type", "")).startswith("pulumi:providers:"):
            provider_region[s["urn"]] = _str((s.get("inputs") or {}).get("region"))
    # a provider without an explicit region (ambient config): the one region its resources report
    seen: dict[str, set[str]] = {}
    for s in states:
        provider = split_provider_ref(s.get("provider"))
        own = _own_region(s)
        if provider and own:
            seen.setdefault(provider, set()).add(own)
    for provider, regions in seen.items():
        if not provider_region.get(provider) and len(regions) == 1:
            provider_region[provider] = next(iter(regions))
    resources: list[Resource] = []
    for s in states:
        urn, typ = s.get("urn"), s.get("type")
        if not isinstance(urn, str) or not isinstance(typ, str):
            raise IngestError(f"{where}: a resource without 'urn' and 'type': {json.dumps(s)[:120]}")
        if typ == STACK_TYPE:
            continue
        inputs = normalise_inputs(s.get("inputs"))
        provider = split_provider_ref(s.get("provider"))
        region = None
        if typ.startswith("aws:") or typ == "pulumi:providers:aws":
            region = (
                _own_region(s)
                or provider_region.get(urn)
                or (provider_region.get(provider) if provider else None)
                or config_region
            )
        parent = s.get("parent") or None
        resources.append(
            Resource(
                urn=urn,
                type=typ,
                name=urn_name(urn),
                parent=None if parent in stack_urns or (parent and parent.split("::")[-2:-1] == [STACK_TYPE]) else parent,
                custom=bool(s.get("custom", False)),
                region=region,
                provider=provider,
                inputs=inputs,
            )
        )
    return ResourceDocument(stack=stack, project=project, source=source, resources=resources)


def _own_region(state: dict[str, Any]) -> str | None:
    """The region a resource states itself: its ``region`` input or output, or its ARN's region."""
    inputs, outputs = state.get("inputs") or {}, state.get("outputs") or {}
    region = _str(inputs.get("region")) or _str(outputs.get("region"))
    if region:
        return region
    arn = outputs.get("arn")
    if isinstance(arn, str) and arn.startswith("arn:"):
        parts = arn.split(":")
        if len(parts) > 3 and parts[3]:
            return parts[3]
    return None


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value and not value.startswith("[") else None


def from_preview(data: Any, where: str = "<preview>") -> ResourceDocument:
    """A ``pulumi preview --json`` document -> the desired-state resource document."""
    if isinstance(data, dict) and "deployment" in data:
        raise IngestError(f"{where}: this is `pulumi stack export` output (it has 'deployment'); use --from-export")
    if not isinstance(data, dict) or not isinstance(data.get("steps"), list):
        raise IngestError(f"{where}: not `pulumi preview --json` output: expected an object with a 'steps' list")
    by_urn: dict[str, dict[str, Any]] = {}
    same_seen = 0
    for i, step in enumerate(data["steps"]):
        if not isinstance(step, dict) or not isinstance(step.get("op"), str):
            raise IngestError(f"{where}: steps[{i}]: expected an object with an 'op'")
        op = step["op"]
        urn = step.get("urn") or (step.get("newState") or step.get("oldState") or {}).get("urn")
        if op in REMOVING_OPS:
            by_urn.pop(urn, None)
            continue
        state = step.get("newState")
        if not isinstance(state, dict):
            continue  # nothing desired to record (e.g. an op without a new state)
        if op == "same":
            same_seen += 1
        state = dict(state)
        state.setdefault("provider", step.get("provider"))
        old_state = step.get("oldState")
        if "outputs" not in state and isinstance(old_state, dict) and "outputs" in old_state:
            state["outputs"] = old_state["outputs"]  # only read for the region
        by_urn[state.get("urn", urn)] = state
    config = data.get("config") or {}
    doc = _build(list(by_urn.values()), source="preview", where=where, config_region=_str(config.get("aws:region")))
    summary = data.get("changeSummary") or {}
    unchanged = summary.get("same", 0) if isinstance(summary, dict) else 0
    if isinstance(unchanged, int) and unchanged > same_seen:
        doc.notes.append(
            f"partial: the change summary counts {unchanged} unchanged resource(s) but only {same_seen} 'same' step(s) "
            "are listed; run `pulumi preview --json --show-sames` for the full desired state"
        )
    return doc


def from_export(data: Any, where: str = "<export>") -> ResourceDocument:
    """A ``pulumi stack export`` document (or its bare ``deployment``) -> the resource document."""
    if isinstance(data, dict) and "steps" in data:
        raise IngestError(f"{where}: this is `pulumi preview --json` output (it has 'steps'); use --from-preview")
    if isinstance(data, dict) and "deployment" in data:
        version = data.get("version")
        if version not in EXPORT_VERSIONS:
            raise IngestError(f"{where}: unsupported stack export version {version!r}; expected one of {list(EXPORT_VERSIONS)}")
        deployment = data["deployment"]
    else:
        deployment = data
    if not isinstance(deployment, dict) or not isinstance(deployment.get("resources"), list | None) or (
        "resources" not in deployment and "manifest" not in deployment
    ):
        raise IngestError(f"{where}: not `pulumi stack export` output: expected {{'version', 'deployment': {{'resources': [...]}}}}")
    resources = deployment.get("resources") or []
    if not resources:
        raise IngestError(f"{where}: the deployment has no resources (an empty or never-deployed stack)")
    states = [r for r in resources if isinstance(r, dict) and not r.get("delete")]
    doc = _build(states, source="export", where=where, config_region=None)
    pending = deployment.get("pending_operations") or []
    if pending:
        doc.notes.append(f"{len(pending)} pending operation(s) in the export: the last update was interrupted")
    return doc


def load_preview(path: str | Path) -> ResourceDocument:
    return from_preview(read_json(path, "`pulumi preview --json` output"), str(path))


def load_export(path: str | Path) -> ResourceDocument:
    return from_export(read_json(path, "`pulumi stack export` output"), str(path))
