"""Every AWS resource the stacks register takes only properties pulumi-aws's schema has, at any depth.

The mock runtime takes any input; the provider does not. See ``provider_schema``.
"""

from __future__ import annotations

import copy

import pytest

from provider_schema import args_class, resource_classes, schema_problems


def aws_resources(stack):  # noqa: ANN001, ANN201
    return [r for r in stack.doc.resources if r.type.startswith("aws:")]


def test_every_aws_input_is_in_the_provider_schema(stack):
    resources = aws_resources(stack)
    problems = [p for r in resources for p in schema_problems(r.type, r.name, r.inputs)]
    assert problems == []
    assert len(resources) >= 30


def _one(stack, token: str, name: str | None = None):  # noqa: ANN001, ANN202
    return copy.deepcopy(next(r for r in aws_resources(stack) if r.type == token and name in (None, r.name)))


def test_the_schema_is_read_from_the_sdk():
    assert "aws:s3/bucketVersioning:BucketVersioning" in resource_classes()
    # the resource's args, not the nested BucketVersioningArgs of aws.s3.Bucket that shares the name
    assert args_class("aws:s3/bucketVersioning:BucketVersioning").__name__ == "BucketVersioningInitArgs"


@pytest.mark.parametrize("mutate, expected", [
    (lambda i: i.update(lifecycleRule=[]), ".lifecycleRule: not a property"),
    (lambda i: i["rules"][0].update(noncurrentDays=30), ".rules[0].noncurrentDays: not a property"),
    (lambda i: i["rules"][0].pop("status"), ".rules[0]: BucketLifecycleConfigurationRuleArgs requires status"),
    (lambda i: i["rules"][0]["transitions"][0].update(storage_class="GLACIER"),
     ".rules[0].transitions[0].storage_class: not a property"),
])
def test_a_wrong_input_is_found_at_its_depth(eu, mutate, expected):
    rule = _one(eu, "aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration", "storage-llm-checkpoints-lifecycle")
    assert rule.inputs["rules"][0]["transitions"], "the example's lifecycle rules transition objects"
    assert schema_problems(rule.type, rule.name, rule.inputs) == []
    mutate(rule.inputs)
    problems = schema_problems(rule.type, rule.name, rule.inputs)
    assert len(problems) == 1 and expected in problems[0], problems


def test_a_list_of_input_types_is_walked(eu):
    # Budget notifications are a list of objects: each is checked
    budget = _one(eu, "aws:budgets/budget:Budget")
    budget.inputs["notifications"][0]["subscriberEmails"] = ["x@example.com"]
    assert [p.split(": ")[0] for p in schema_problems(budget.type, budget.name, budget.inputs)] == [
        f"{budget.name}.notifications[0].subscriberEmails"]


def test_an_unknown_type_is_reported():
    assert schema_problems("aws:s3/bucketV3:BucketV3", "b", {}) == ["b: aws:s3/bucketV3:BucketV3 is not a pulumi-aws resource type"]


def test_a_list_for_an_object_or_an_object_for_a_list_is_found(eu):
    # nothing under a value of the wrong shape would be checked otherwise
    rule = _one(eu, "aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration", "storage-llm-checkpoints-lifecycle")
    as_object = copy.deepcopy(rule.inputs)
    as_object["rules"] = as_object["rules"][0]
    assert schema_problems(rule.type, rule.name, as_object) == [
        f"{rule.name}.rules: an object where BucketLifecycleConfigurationArgs takes a list of BucketLifecycleConfigurationRuleArgs"]
    as_list = copy.deepcopy(rule.inputs)
    as_list["rules"][0]["filter"] = [as_list["rules"][0]["filter"]]
    assert schema_problems(rule.type, rule.name, as_list) == [
        f"{rule.name}.rules[0].filter: a list where BucketLifecycleConfigurationRuleArgs takes one BucketLifecycleConfigurationRuleFilterArgs"]
