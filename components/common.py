"""Helpers shared by the Seedance Pulumi components: tags, labels, partitions, argument errors."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import pulumi

from seedance import awsnames
from seedance.policy.model import CostPolicy, DataClass, Fleet, Workload

partition = awsnames.partition  # the partition of a region, as ARNs name it

#: Most to least sensitive: the stack-wide data class is the most sensitive one it holds.
_DATA_CLASS_RANK = {DataClass.PERSONAL: 0, DataClass.INTERNAL: 1, DataClass.PUBLIC: 2}

PURPOSE_BY_WORKLOAD: dict[Workload, str] = {
    Workload.TRAINING: "model-training",
    Workload.FINETUNE: "model-finetuning",
    Workload.INFERENCE: "model-inference",
    Workload.BATCH: "batch-processing",
    Workload.API: "api-serving",
}

LABEL_PREFIX = "seedance.io"
_LABEL_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")


class ComponentArgsError(ValueError):
    """A component argument is invalid; the message names the field and what was expected."""

    def __init__(self, field_path: str, message: str) -> None:
        super().__init__(f"{field_path}: {message}")
        self.field_path = field_path


def require(condition: bool, field_path: str, message: str) -> None:
    if not condition:
        raise ComponentArgsError(field_path, message)


def name_safe_stack(stack: str, max_len: int | None = None) -> str:
    """The stack's name as AWS names that take only letters, digits, '_' and '-' (KMS aliases, AWS
    Backup vaults) can hold it: the stack name itself when it fits; otherwise its other characters
    (a Pulumi stack name may hold '.') become '-' and 8 hex digits of its SHA-256 follow, so two
    stacks such as ``a.b`` and ``a-b`` never share a name. ``max_len``: the sanitised part is cut
    so the whole fits (the hash stays; a name that needs no hash is left as it is)."""
    safe = re.sub(r"[^a-zA-Z0-9_-]", "-", stack)
    if safe == stack:
        return stack
    return with_stack_digest(safe, stack, max_len)


def with_stack_digest(text: str, stack: str, max_len: int | None = None) -> str:
    """``text`` followed by '-' and 8 hex digits of the SHA-256 of ``stack``'s name (so stacks whose
    names clean or cut to the same text never share a name), ``text`` cut so the whole fits ``max_len``."""
    digest = hashlib.sha256(stack.encode("utf-8")).hexdigest()[:8]
    if max_len is not None:
        text = text[: max(1, max_len - len(digest) - 1)]
    return f"{text}-{digest}"


def dns_suffix(region: str) -> str:
    return "amazonaws.com.cn" if region.startswith("cn-") else "amazonaws.com"


def most_sensitive(classes: list[DataClass]) -> DataClass:
    return min(classes, key=_DATA_CLASS_RANK.__getitem__) if classes else DataClass.INTERNAL


def stack_data_class(policy: CostPolicy) -> DataClass:
    """The most sensitive data class anywhere in the stack (logs and keys may carry it)."""
    classes = [f.data_class for f in policy.fleets]
    classes += [c.data_class for c in policy.storage.classes]
    classes += [b.data_class for b in policy.storage.checkpoint_buckets]
    return most_sensitive(classes)


@dataclass(frozen=True)
class TagSet:
    """The cost-allocation and compliance tags of one stack.

    ``base`` goes into the provider's default tags; :meth:`for_resource` adds the data class,
    purpose and (for fleet resources) fleet and SLA tags that every taggable resource carries.
    """

    base: dict[str, str]
    stack_data_class: DataClass
    extra: dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_policy(cls, policy: CostPolicy, stack: str) -> TagSet:
        meta = policy.metadata
        base = dict(meta.tags)  # user tags first; ours win on conflicts
        base.update(
            {
                "environment": meta.environment.value,
                "owner": meta.owner,
                "team": meta.tags.get("team", "unassigned"),
                "cost-center": meta.tags.get("cost-center", "unassigned"),
                "controller": meta.tags.get("controller", meta.owner),
                "seedance:stack": stack,
                "seedance:policy": meta.name,
            }
        )
        return cls(base=base, stack_data_class=stack_data_class(policy))

    def for_resource(
        self,
        *,
        purpose: str,
        data_class: DataClass | None = None,
        fleet: Fleet | None = None,
        sla: str | None = None,
    ) -> dict[str, str]:
        tags = dict(self.base)
        tags["purpose"] = purpose
        tags["data-class"] = (data_class or (fleet.data_class if fleet else None) or self.stack_data_class).value
        if fleet is not None:
            tags["seedance:fleet"] = fleet.name
            tags["seedance:sla"] = fleet.sla.value
        elif sla is not None:
            tags["seedance:sla"] = sla
        tags.update(self.extra)
        return tags

    def labels(self, *, data_class: DataClass | None = None, fleet: Fleet | None = None) -> dict[str, str]:
        """Kubernetes labels for an object (label values must be DNS-label-like)."""
        labels = {
            "app.kubernetes.io/managed-by": "seedance",
            f"{LABEL_PREFIX}/stack": self.base["seedance:stack"],
            f"{LABEL_PREFIX}/data-class": (data_class or (fleet.data_class if fleet else None) or self.stack_data_class).value,
        }
        if fleet is not None:
            labels[f"{LABEL_PREFIX}/fleet"] = fleet.name
            labels[f"{LABEL_PREFIX}/sla"] = fleet.sla.value
        for key, value in labels.items():
            require(len(value) <= 63 and bool(_LABEL_VALUE.match(value)), f"labels[{key}]", f"not a valid label value: {value!r}")
        return labels


def child(parent: pulumi.Resource, **kwargs: Any) -> pulumi.ResourceOptions:
    """Options for a child resource of a component."""
    return pulumi.ResourceOptions(parent=parent, **kwargs)


def policy_json(document: Mapping[str, Any]) -> str:
    """An IAM / resource policy as compact, key-stable JSON."""
    return json.dumps(document, separators=(",", ":"), sort_keys=False)


def quantity(value: float) -> str:
    """A Kubernetes quantity string for a plain number (40 -> "40", 2.5 -> "2500m", 0.0004 -> "400u");
    below a thousandth it is written in millionths, so a small positive target never becomes 0."""
    if float(value).is_integer():
        return str(int(value))
    milli = round(value * 1000)
    if milli == value * 1000 or abs(value) >= 1:
        return f"{milli}m"
    return f"{round(value * 1_000_000)}u"


def mig_memory(fleet: Fleet) -> int | None:
    """The memory per GPU (GiB) a MIG-shared fleet's nodes have: the policy's ``gpu.memoryGib``, else
    the one size its profile exists on; None when the profile exists on several and none is given."""
    from seedance.gpus import mig_memory_sizes

    if fleet.gpu is None:
        return None
    if fleet.gpu.memory_gib is not None:
        return int(round(fleet.gpu.memory_gib))
    share = fleet.gpu_sharing
    sizes = mig_memory_sizes(fleet.gpu.model, share.mig.profile) if share and share.mig else ()
    return sizes[0] if len(sizes) == 1 else None
