"""The resource document: the desired state of a stack, one entry per resource.

Written by ``seedance synth`` (from the mock runtime), ``--from-preview`` (``pulumi preview --json``)
and ``--from-export`` (``pulumi stack export``); read by the estimator and the policy gate.

Normalisation, the same for every source:

* ``inputs`` keep the property names the Pulumi engine sees (pulumi-aws / pulumi-kubernetes
  camelCase names such as ``blockDeviceMappings``); engine bookkeeping keys (``__defaults``,
  ``__internal``) are dropped.
* Numbers that are integral come back as ``int`` (the mock runtime and protobuf hand integers
  back as floats).
* A secret becomes the string :data:`SECRET`; a value not known until apply (the preview's
  unknown sentinel) becomes :data:`UNKNOWN`; a resource reference becomes the referenced URN;
  assets and archives keep their fields plus ``"$kind": "asset" | "archive"``.
* A null input (at any depth of an object) is dropped: Pulumi treats it as unset.
* ``parent`` is ``None`` for resources directly under the stack; the stack resource itself
  (``pulumi:pulumi:Stack``) is not listed.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Literal

from seedance import jsonout
from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, StrictBool, field_validator, model_serializer

API_VERSION = "seedance.io/v1"
KIND = "ResourceDocument"

#: Placeholder for a secret value (never the plaintext).
SECRET = "[secret]"
#: Placeholder for a value that is only known after apply.
UNKNOWN = "[unknown]"

#: The special-signature key of Pulumi's wire and state formats, and its values.
SIG_KEY = "4dabf18193072939515e22adb298388d"
SIG_SECRET = "1b47061264138c4ac30d75fd1eb44270"
SIG_ASSET = "c44067f5952c0a294b673a41bacd8c17"
SIG_ARCHIVE = "0def7320c3a5731c473e5ecbe6d01bc7"
SIG_RESOURCE = "5cf8f73096256a8f31e491e813e4eb8e"
SIG_OUTPUT = "d0e6a833031e9bbcd3f4e8bde6ca49a4"
#: The preview's stand-in for an unknown value.
UNKNOWN_SENTINEL = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"

_BOOKKEEPING_KEYS = frozenset({"__defaults", "__internal"})

Source = Literal["synth", "preview", "export"]


class Resource(BaseModel):
    model_config = ConfigDict(extra="forbid")

    urn: str
    type: str
    name: str
    parent: str | None = None
    custom: StrictBool  # "yes" or 1 is not a boolean: a document is JSON Seedance or Pulumi wrote
    region: str | None = None
    provider: str | None = Field(default=None, description="URN of the provider resource (no id), if explicit.")
    id: str | None = Field(
        default=None,
        description="The provider's id of the resource (a preview's resource that keeps its id, an export's, or the mock "
        "runtime's in synthesis); none for a resource a preview creates or replaces. Rules join by it where an input "
        "holds another resource's id (e.g. a backup selection's planId).",
    )
    inputs: dict[str, Any] = Field(default_factory=dict)
    property_dependencies: dict[str, list[str]] = Field(
        default_factory=dict,
        description="Input name -> URNs of the resources its value comes from (Pulumi's property dependencies): how "
        "rules join an input that holds another resource's id or ARN, known or not until apply.",
    )
    ignore_changes: list[str] = Field(default_factory=list, description="Inputs `pulumi up` leaves as they are once the resource exists (synth only).")

    @field_validator("inputs")
    @classmethod
    def _drop_nulls(cls, value: dict[str, Any]) -> dict[str, Any]:
        # a null input is an unset one (Pulumi sends neither), so the gate's rules see one shape for both
        return without_nulls(value)

    @model_serializer(mode="wrap")
    def _drop_empty_ignore_changes(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        out = handler(self)
        if not out.get("ignore_changes"):
            out.pop("ignore_changes", None)
        if out.get("id") is None:
            out.pop("id", None)
        if not out.get("property_dependencies"):
            out.pop("property_dependencies", None)
        return out


class ResourceDocument(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    api_version: Literal["seedance.io/v1"] = Field(default=API_VERSION, alias="apiVersion")
    kind: Literal["ResourceDocument"] = KIND
    stack: str
    project: str
    source: Source
    resources: list[Resource] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list, description="What the source could not tell (e.g. partial preview).")
    placeholders: dict[str, str] = Field(
        default_factory=dict,
        description="Values offline synthesis made up where the program looked AWS up (value -> what it stands for, e.g. "
        "an EKS cluster's security group id); a real preview holds the real ones.",
    )

    @model_serializer(mode="wrap")
    def _drop_empty_placeholders(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        out = handler(self)
        if not out.get("placeholders"):
            out.pop("placeholders", None)
        return out

    # ------------------------------------------------------------------ queries

    def of_type(self, type_token: str) -> list[Resource]:
        return [r for r in self.resources if r.type == type_token]

    def by_name(self, name: str) -> Resource:
        for r in self.resources:
            if r.name == name:
                return r
        raise KeyError(name)

    def children(self, parent_urn: str) -> list[Resource]:
        return [r for r in self.resources if r.parent == parent_urn]

    def type_counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for r in self.resources:
            counts[r.type] = counts.get(r.type, 0) + 1
        return dict(sorted(counts.items()))

    # ------------------------------------------------------------------ (de)serialisation

    def to_json(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=True)

    def dumps(self) -> str:
        return jsonout.dumps(self.to_json(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"

    @classmethod
    def load(cls, path: str | Path) -> ResourceDocument:
        return cls.model_validate_json(Path(path).read_text(encoding="utf-8"))


def normalise(value: Any) -> Any:
    """Normalise one property value (see the module docstring); pure, recursive."""
    if isinstance(value, bool) or value is None or isinstance(value, int):
        return value
    if isinstance(value, float):
        if math.isfinite(value) and value.is_integer():
            return int(value)
        return value
    if isinstance(value, str):
        return UNKNOWN if value == UNKNOWN_SENTINEL else value
    if isinstance(value, dict):
        sig = value.get(SIG_KEY)
        if sig is not None:
            return _special(sig, value)
        return {k: normalise(v) for k, v in value.items() if k not in _BOOKKEEPING_KEYS}
    if isinstance(value, (list, tuple)):
        return [normalise(v) for v in value]
    return value


def _special(sig: str, value: dict[str, Any]) -> Any:
    if sig == SIG_SECRET:
        return SECRET
    if sig == SIG_RESOURCE:
        return value.get("urn", UNKNOWN)
    if sig == SIG_OUTPUT:
        if value.get("secret"):
            return SECRET
        return normalise(value["value"]) if "value" in value else UNKNOWN
    kind = {SIG_ASSET: "asset", SIG_ARCHIVE: "archive"}.get(sig, "special")
    out: dict[str, Any] = {"$kind": kind}
    out.update({k: normalise(v) for k, v in value.items() if k != SIG_KEY})
    return out


def without_nulls(value: Any) -> Any:
    """``value`` with every null-valued object key removed, at any depth (list items stay)."""
    if isinstance(value, dict):
        return {k: without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [without_nulls(v) for v in value]
    return value


def normalise_inputs(inputs: dict[str, Any] | None) -> dict[str, Any]:
    if not inputs:
        return {}
    out = normalise(inputs)
    return out if isinstance(out, dict) else {}


def split_provider_ref(ref: str | None) -> str | None:
    """``urn:...::name::id`` -> ``urn:...::name`` (the provider resource's URN)."""
    if not ref:
        return None
    head, sep, _id = ref.rpartition("::")
    return head if sep and head.startswith("urn:pulumi:") else ref


def urn_name(urn: str) -> str:
    return urn.rsplit("::", 1)[-1]


def urn_type(urn: str) -> str:
    return urn.split("::")[2].split("$")[-1]
