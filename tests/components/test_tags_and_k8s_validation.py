"""Cost-allocation / compliance tags on every taggable AWS resource, labels on every Kubernetes
object, and every Kubernetes object valid against the upstream schema (kubernetes-validate, strict)."""

from __future__ import annotations

import copy
import functools
import importlib
import inspect
import json

import kubernetes_validate
import pytest

K8S_VERSION = "1.31.0"  # the stacks' default seedance:eksVersion
REQUIRED_TAGS = ("data-class", "purpose", "controller", "team", "cost-center", "environment", "owner", "seedance:stack")
FLEET_TAGS = ("seedance:fleet", "seedance:sla")


@functools.cache
def taggable(type_token: str) -> bool:
    """Whether the installed pulumi-aws resource class takes a ``tags`` input."""
    _, module_path, cls_name = type_token.split(":")
    module = importlib.import_module(f"pulumi_aws.{module_path.split('/')[0]}")
    cls = getattr(module, cls_name)
    return "tags" in inspect.signature(cls._internal_init).parameters


def tags_of(inputs: dict) -> dict[str, str] | None:
    tags = inputs.get("tags")
    if isinstance(tags, list):  # autoscaling groups: [{key, value, propagateAtLaunch}]
        return {t["key"]: t["value"] for t in tags}
    return tags


def test_taggable_is_read_from_the_sdk():
    assert taggable("aws:ec2/launchTemplate:LaunchTemplate")
    assert not taggable("aws:s3/bucketPolicy:BucketPolicy")


def test_every_taggable_aws_resource_is_tagged(stack):
    checked = 0
    for r in stack.doc.resources:
        if not r.type.startswith("aws:") or not taggable(r.type):
            continue
        checked += 1
        tags = tags_of(r.inputs)
        assert tags is not None, f"{r.name} ({r.type}) has no tags"
        missing = [k for k in REQUIRED_TAGS if not tags.get(k)]
        assert not missing, f"{r.name}: missing tags {missing}"
        assert tags["seedance:stack"] == stack.stack
        assert tags["data-class"] in ("personal", "internal", "public")
        if "SpotRiFleet" in (r.parent or ""):
            fleet = stack.policy.fleet(tags["seedance:fleet"])
            assert tags["seedance:sla"] == fleet.sla.value and tags["data-class"] == fleet.data_class.value
    assert checked >= 20


def test_provider_default_tags(stack):
    (provider,) = stack.of_type("pulumi:providers:aws")
    assert provider.inputs["region"] == stack.policy.cloud.region
    assert json.loads(provider.inputs["allowedAccountIds"]) == [stack.policy.cloud.account_id]
    default = json.loads(provider.inputs["defaultTags"])["tags"]
    assert {k: default[k] for k in ("seedance:stack", "environment", "owner", "team", "cost-center")} == {
        "seedance:stack": stack.stack,
        "environment": stack.policy.metadata.environment.value,
        "owner": "ml-platform@example.com",
        "team": "ml-platform",
        "cost-center": "CC-4120",
    }


def k8s_objects(stack):
    return [r for r in stack.doc.resources if r.type.startswith("kubernetes:")]


def test_every_kubernetes_object_is_labelled(clustered):
    stack = clustered
    objs = k8s_objects(stack)
    assert objs
    for r in objs:
        labels = r.inputs["metadata"]["labels"]
        assert labels["seedance.io/data-class"] in ("personal", "internal", "public"), r.name
        if r.type in ("kubernetes:core/v1:Namespace", "kubernetes:networking.k8s.io/v1:NetworkPolicy",
                      "kubernetes:autoscaling/v2:HorizontalPodAutoscaler"):
            assert labels["seedance.io/fleet"] and labels["seedance.io/sla"], r.name


def test_every_kubernetes_object_validates_strictly(clustered):
    objs = k8s_objects(clustered)
    assert len(objs) >= 10
    for r in objs:
        kubernetes_validate.validate(r.inputs, K8S_VERSION, strict=True)


def test_strict_validation_catches_a_bad_object(eu):
    hpa = copy.deepcopy(eu.one("scheduling-inference-hpa").inputs)
    hpa["spec"]["minReplica"] = hpa["spec"].pop("minReplicas")  # a typo strict mode must reject
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(hpa, K8S_VERSION, strict=True)
