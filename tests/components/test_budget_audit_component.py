"""BudgetGuard, AuditBaseline and the stack key per example stack."""

from __future__ import annotations

import json
import re

import pytest

from components.audit import AuditBaselineArgs
from components.common import ComponentArgsError

BUDGET = "aws:budgets/budget:Budget"


def test_budget_notifications(stack):
    (b,) = [r.inputs for r in stack.of_type(BUDGET)]
    policy = stack.policy.budget
    assert (b["budgetType"], b["timeUnit"], b["limitUnit"]) == ("COST", "MONTHLY", policy.currency.value)
    assert b["limitAmount"] == f"{policy.monthly_amount:.2f}"
    assert b["costFilters"] == [{"name": "TagKeyValue", "values": [f"user:seedance:stack${stack.stack}"]}]
    # amortised cost, the basis the estimate holds against the budget: a reserved hour counts as the
    # tagged instance's, not as the reservation's untagged fee (AWS's unblended default)
    assert b["costTypes"] == {"useAmortized": True}
    # base.yaml thresholds 0.5, 0.85, 0.95, 1.0 -> an ACTUAL notification each, and the fifth (the
    # most AWS Budgets allows) a FORECASTED one at 100%
    got = [(n["threshold"], n["notificationType"]) for n in b["notifications"]]
    assert got == [(50, "ACTUAL"), (85, "ACTUAL"), (95, "ACTUAL"), (100, "ACTUAL"), (100, "FORECASTED")]
    for n in b["notifications"]:
        assert n["subscriberEmailAddresses"] == ["ml-platform@example.com"]
        assert n["comparisonOperator"] == "GREATER_THAN" and n["thresholdType"] == "PERCENTAGE"


def test_budget_topic(eu, cn, dev):
    # eu and cn name an existing topic: no topic is created and the notifications use theirs
    for s, arn in ((eu, "arn:aws:sns:eu-central-1:111122223333:finops-alerts"), (cn, "arn:aws-cn:sns:cn-north-1:444455556666:finops-alerts")):
        assert s.of_type("aws:sns/topic:Topic") == []
        (b,) = s.of_type(BUDGET)
        assert {a for n in b.inputs["notifications"] for a in n["subscriberSnsTopicArns"]} == {arn}
        assert s.outputs["budgetTopicArn"] == arn  # what `budget respond --verify-signature` pins
    # dev: a KMS-encrypted topic with a policy that lets only Budgets of this account publish
    (topic,) = dev.of_type("aws:sns/topic:Topic")
    assert topic.inputs["kmsMasterKeyId"] == dev.kms_key_arn()
    assert dev.outputs["budgetTopicArn"].startswith("arn:aws:sns:us-east-1:")  # the created topic's (mock) ARN
    (tp,) = dev.of_type("aws:sns/topicPolicy:TopicPolicy")
    stmt = json.loads(tp.inputs["policy"])["Statement"]
    assert stmt[0]["Principal"] == {"Service": "budgets.amazonaws.com"}
    assert stmt[0]["Condition"] == {"StringEquals": {"aws:SourceAccount": "777788889999"}}
    # emails: finops@ by topic subscription; the owner gets the budget's own email
    subs = [r.inputs for r in dev.of_type("aws:sns/topicSubscription:TopicSubscription")]
    assert [(s["protocol"], s["endpoint"]) for s in subs] == [("email", "finops@example.com")]


def test_audit_baseline(stack):
    region = stack.policy.cloud.region
    part = "aws-cn" if region.startswith("cn-") else "aws"
    key = stack.kms_key_arn()
    trail = stack.one("audit-trail").inputs
    assert trail["isMultiRegionTrail"] is True
    assert trail["enableLogFileValidation"] is True
    assert trail["includeGlobalServiceEvents"] is True
    assert trail["kmsKeyId"] == key
    assert trail["name"] == f"seedance-{stack.stack}"
    assert trail["s3BucketName"].startswith("audit-trail-bucket-")
    assert stack.one("audit-trail-bucket-versioning").inputs["versioningConfiguration"] == {"status": "Enabled"}
    (sse,) = stack.one("audit-trail-bucket-sse").inputs["rules"]
    assert sse["applyServerSideEncryptionByDefault"] == {"sseAlgorithm": "aws:kms", "kmsMasterKeyId": key}
    pab = stack.one("audit-trail-bucket-public-access-block").inputs
    assert all(pab[k] is True for k in ("blockPublicAcls", "blockPublicPolicy", "ignorePublicAcls", "restrictPublicBuckets"))
    stmts = {s["Sid"]: s for s in json.loads(stack.one("audit-trail-bucket-policy").inputs["policy"])["Statement"]}
    assert stmts["DenyInsecureTransport"]["Condition"] == {"Bool": {"aws:SecureTransport": "false"}}
    account = stack.policy.cloud.account_id
    trail_arn = f"arn:{part}:cloudtrail:{region}:{account}:trail/seedance-{stack.stack}"
    assert stmts["CloudTrailWrite"]["Condition"]["StringEquals"]["aws:SourceArn"] == trail_arn
    assert stmts["CloudTrailWrite"]["Resource"].endswith(f"/AWSLogs/{account}/*")
    retention = stack.policy.compliance.log_retention_days
    lg = stack.one("audit-flow-logs").inputs
    assert (lg["retentionInDays"], lg["kmsKeyId"]) == (retention, key)
    fl = stack.one("audit-flow-log").inputs
    assert (fl["trafficType"], fl["logDestinationType"], fl["vpcId"]) == ("ALL", "cloud-watch-logs", stack.policy.cloud.vpc_id)
    (rule,) = stack.one("audit-trail-bucket-lifecycle").inputs["rules"]
    assert rule["expiration"] == {"days": retention}


def test_retention_by_stack(eu, cn, dev):
    assert [s.one("audit-flow-logs").inputs["retentionInDays"] for s in (eu, cn, dev)] == [90, 365, 30]


def test_the_autoscaling_role_suffix_fits_an_iam_role_name():
    from components.kms import AUTOSCALING_ROLE, autoscaling_role_suffix

    assert autoscaling_role_suffix("prod.eu") == "seedance-prod.eu"
    long_a, long_b = "a" * 40, "a" * 39 + "b"
    for stack in (long_a, long_b):
        assert len(f"{AUTOSCALING_ROLE}_{autoscaling_role_suffix(stack)}") == 64
    assert autoscaling_role_suffix(long_a) != autoscaling_role_suffix(long_b)


def test_audit_rejects_a_retention_cloudwatch_does_not_offer():
    args = AuditBaselineArgs(stack="s", region="eu-central-1", vpc_id="vpc-1", account_id="1", kms_key_arn="k", log_retention_days=45)
    with pytest.raises(ComponentArgsError, match=r"^compliance.logRetentionDays: expected a CloudWatch Logs retention value .* got 45$"):
        args.validate()


def test_stack_key_only_without_a_policy_key(eu, cn, dev):
    assert eu.of_type("aws:kms/key:Key") == []
    # cn names its key; the only key it creates is the off-site replicas' key in the partner region
    (replica_key,) = cn.of_type("aws:kms/key:Key")
    assert replica_key.name == "kms-replica-key" and replica_key.inputs["region"] == "cn-northwest-1"
    assert replica_key.region == "cn-northwest-1"
    (key,) = dev.of_type("aws:kms/key:Key")
    stmts = {s["Sid"]: s for s in json.loads(key.inputs["policy"])["Statement"]}
    assert stmts["AccountAdministration"]["Principal"] == {"AWS": "arn:aws:iam::777788889999:root"}
    # the stack's own Auto Scaling service-linked role, created with the key, is the principal itself:
    # the role's permissions do not reach customer-managed keys, so naming the account (root) with a
    # condition on the role would let no launch use the key
    (role,) = dev.of_type("aws:iam/serviceLinkedRole:ServiceLinkedRole")
    assert role.inputs["awsServiceName"] == "autoscaling.amazonaws.com" and role.inputs["customSuffix"] == "seedance-dev"
    assert role.parent == dev.one("kms").urn  # a child of the key's component
    asg_role = ("arn:aws:iam::777788889999:role/aws-service-role/autoscaling.amazonaws.com/"
                "AWSServiceRoleForAutoScaling_seedance-dev")
    assert stmts["AutoScalingEncryptedVolumes"]["Principal"] == {"AWS": asg_role}
    assert "kms:GenerateDataKey*" in stmts["AutoScalingEncryptedVolumes"]["Action"]
    assert stmts["AutoScalingGrants"]["Principal"] == {"AWS": asg_role}
    assert stmts["AutoScalingGrants"]["Condition"] == {"Bool": {"kms:GrantIsForAWSResource": "true"}}
    # every group launches under that role; with a key the policy names, under the account's default
    for group in dev.of_type("aws:autoscaling/group:Group"):
        assert group.inputs["serviceLinkedRoleArn"] == asg_role
    for stack in (eu, cn):
        assert stack.of_type("aws:iam/serviceLinkedRole:ServiceLinkedRole") == []
        assert all("serviceLinkedRoleArn" not in g.inputs for g in stack.of_type("aws:autoscaling/group:Group"))
    assert "AutoScalingGrants" not in {s["Sid"] for s in json.loads(cn.one("kms-replica-key").inputs["policy"])["Statement"]}
    assert stmts["CloudWatchLogs"]["Principal"] == {"Service": "logs.us-east-1.amazonaws.com"}
    assert dev.one("kms-alias").inputs["name"] == "alias/seedance-dev"
    # CloudTrail encrypts under its trails' encryption context; describing the key and decrypting
    # for the trail bucket's S3 Bucket Key carry none, so those name the account's trails by source
    trails = "arn:aws:cloudtrail:*:777788889999:trail/*"
    assert stmts["CloudTrailEncryptLogs"]["Action"] == "kms:GenerateDataKey*"
    assert stmts["CloudTrailEncryptLogs"]["Condition"] == {"StringLike": {"kms:EncryptionContext:aws:cloudtrail:arn": trails}}
    describe = stmts["CloudTrailDescribeAndBucketKey"]
    assert describe["Principal"] == {"Service": "cloudtrail.amazonaws.com"}
    assert set(describe["Action"]) == {"kms:DescribeKey", "kms:Decrypt"}
    assert describe["Condition"] == {"StringLike": {"aws:SourceArn": trails}}


def test_mlps_off_site_copies(cn):
    # MLPS L3 8.1.4.9 b): personal-data buckets (finetune-datasets; the trail bucket and the S3 access-log
    # archive, since the stack holds personal data) replicate to cn-northwest-1, the other mainland region
    configs = {r.name: r.inputs for r in cn.of_type("aws:s3/bucketReplicationConfig:BucketReplicationConfig")}
    assert set(configs) == {"storage-finetune-datasets-replication", "audit-trail-bucket-replication", "access-logs-bucket-replication"}
    replica_key = cn.one("kms-replica-key")
    for name, cfg in configs.items():
        base = name.removesuffix("-replication")
        (rule,) = cfg["rules"]
        assert rule["status"] == "Enabled"
        assert rule["deleteMarkerReplication"] == {"status": "Enabled"}
        assert rule["sourceSelectionCriteria"] == {"sseKmsEncryptedObjects": {"status": "Enabled"}}
        assert rule["destination"]["bucket"].startswith(f"arn:aws-cn:s3:::{base}-replica-")
        replica = cn.one(f"{base}-replica")
        assert replica.inputs["region"] == replica.region == "cn-northwest-1"
        (sse,) = cn.one(f"{base}-replica-sse").inputs["rules"]
        key_arn = sse["applyServerSideEncryptionByDefault"]["kmsMasterKeyId"]
        assert key_arn.startswith("arn:aws-cn:kms:cn-northwest-1:444455556666:key/")
        assert rule["destination"]["encryptionConfiguration"] == {"replicaKmsKeyId": key_arn}
        assert cn.one(f"{base}-replica-versioning").inputs["versioningConfiguration"] == {"status": "Enabled"}
        # the copy expires with the source
        assert cn.one(f"{base}-replica-lifecycle").inputs["rules"] == cn.one(f"{base}-lifecycle").inputs["rules"]
        assert replica_key.inputs["enableKeyRotation"] is True
    assert "storage-llm-checkpoints-replication" not in configs  # internal data: no copy


def test_no_copies_without_mlps(eu, dev):
    for s in (eu, dev):
        assert s.of_type("aws:s3/bucketReplicationConfig:BucketReplicationConfig") == []


def test_backup_region(cn, eu):
    from components.platform import backup_region

    assert backup_region(cn.policy) == "cn-northwest-1"
    assert backup_region(eu.policy) is None
    pinned = cn.policy.model_copy(update={"compliance": cn.policy.compliance.model_copy(update={"data_residency": ["cn-north-1"]})})
    with pytest.raises(ComponentArgsError, match=r"^compliance.dataResidency: the off-site backup region cn-northwest-1 is outside \['cn-north-1'\]$"):
        backup_region(pinned)


def test_trail_bucket_refuses_deletion_and_trail_records_personal_buckets(eu):
    stmts = {s["Sid"]: s for s in json.loads(eu.one("audit-trail-bucket-policy").inputs["policy"])["Statement"]}
    deny = stmts["DenyObjectDeletion"]
    assert (deny["Effect"], deny["Action"], "Condition" in deny) == ("Deny", ["s3:DeleteObject", "s3:DeleteObjectVersion"], False)
    (selector,) = eu.one("audit-trail").inputs["eventSelectors"]
    assert selector["includeManagementEvents"] is True and selector["readWriteType"] == "All"
    (data,) = selector["dataResources"]
    # finetune-datasets is eu-prod's only personal-data bucket
    assert data["type"] == "AWS::S3::Object"
    assert len(data["values"]) == 1 and data["values"][0].startswith("arn:aws:s3:::storage-finetune-datasets-") and data["values"][0].endswith("/")


def test_a_budget_without_thresholds_deploys_without_notifications():
    # a policy may declare no thresholds (validation allows it): the budget still tracks the spend
    from components.budget import BudgetGuardArgs
    from seedance.policy.model import Budget

    args = BudgetGuardArgs(budget=Budget.model_validate({"monthlyAmount": 1000}), stack="s", owner="o@example.com", region="us-east-1",
                           account_id="111122223333", kms_key_arn="k")
    args.validate()  # no "at least one threshold"
    too_many = Budget.model_validate({"monthlyAmount": 1000, "thresholds": [{"at": a / 10, "action": "notify"} for a in range(1, 7)]})
    with pytest.raises(ComponentArgsError, match="expected at most 5 thresholds \\(AWS Budgets allows 5 notifications"):
        BudgetGuardArgs(budget=too_many, stack="s", owner="o@example.com", region="us-east-1",
                        account_id="111122223333", kms_key_arn="k").validate()


def test_the_stack_s_budget_name_fits_aws_budgets():
    from components.budget import BudgetGuardArgs, budget_name
    from seedance.policy.model import Budget

    def args(stack: str) -> BudgetGuardArgs:
        return BudgetGuardArgs(budget=Budget.model_validate({"monthlyAmount": 1000}), stack=stack, owner="o@example.com",
                               region="us-east-1", account_id="111122223333", kms_key_arn="k")

    longest = "s" * (100 - len(budget_name("")))  # seedance-STACK-monthly within BudgetName's 100
    args(longest).validate()
    assert len(args(longest).budget_name) == 100
    # and the topic it notifies is in the stack's partition
    china = Budget.model_validate({"monthlyAmount": 1000, "notify": {"snsTopicArn": "arn:aws:sns:cn-north-1:111122223333:t"}})
    with pytest.raises(ComponentArgsError, match=r"^budget.notify.snsTopicArn: expected an SNS topic in partition aws-cn"):
        BudgetGuardArgs(budget=china, stack="s", owner="o@example.com", region="cn-north-1", account_id="111122223333",
                        kms_key_arn="k").validate()
    with pytest.raises(ComponentArgsError, match=r"^stack: expected a stack name of at most 83 characters: the stack's "
                                                 r"AWS Budget is 'seedance-s{84}-monthly' \(101 characters\)"):
        args(longest + "s").validate()


@pytest.mark.parametrize(("ats", "expected"), [
    ([], []),
    ([1.0], [(1.0, "ACTUAL"), (1.0, "FORECASTED")]),
    ([0.5, 1.0], [(0.5, "ACTUAL"), (0.5, "FORECASTED"), (1.0, "ACTUAL"), (1.0, "FORECASTED")]),
    ([0.95, 0.5, 0.85], [(0.5, "ACTUAL"), (0.85, "ACTUAL"), (0.85, "FORECASTED"), (0.95, "ACTUAL"), (0.95, "FORECASTED")]),
    ([0.2, 0.4, 0.6, 0.8, 1.0], [(a, "ACTUAL") for a in (0.2, 0.4, 0.6, 0.8, 1.0)]),
])
def test_notifications_fit_the_five_aws_allows(ats, expected):
    from components.budget import MAX_NOTIFICATIONS, notification_plan

    got = notification_plan(ats)
    assert got == expected and len(got) <= MAX_NOTIFICATIONS


@pytest.mark.parametrize("stack", ["dev", "eu.prod", "team_a-prod", "x", "dev_", "dev--x", "a._b", "prod."])
def test_the_trail_name_is_one_cloudtrail_takes(stack: str) -> None:
    import re

    from components.audit import trail_name

    name = trail_name(stack)
    # CreateTrail's rules: 3-128 letters, digits, '.', '_', '-'; a letter or digit first and last; no
    # two of '.', '_', '-' side by side
    assert 3 <= len(name) <= 128 and re.fullmatch(r"[A-Za-z0-9]+(?:[._-][A-Za-z0-9]+)*", name), name
    if re.fullmatch(r"[A-Za-z0-9]+(?:[._-][A-Za-z0-9]+)*", stack):
        assert name == f"seedance-{stack}"  # the names deployed so far are kept
    assert trail_name("dev--x") != trail_name("dev-x") and trail_name("dev_") != trail_name("dev")


@pytest.mark.parametrize(("topic_region", "expected"), [("us-east-1", "us-east-1"), ("eu-central-1", None)])
def test_a_topic_in_another_region_is_subscribed_to_there(topic_region, expected):
    # SNS Subscribe must be called in the topic's region; the stack's provider is eu-central-1
    from components.budget import BudgetGuard, BudgetGuardArgs
    from seedance.policy.model import Budget
    from seedance.synth.runtime import run_program

    budget = Budget.model_validate({"monthlyAmount": 1000, "notify": {
        "snsTopicArn": f"arn:aws:sns:{topic_region}:111122223333:finops", "emails": ["finops@example.com"]}})
    args = BudgetGuardArgs(budget=budget, stack="s", owner="o@example.com", region="eu-central-1",
                           account_id="111122223333", kms_key_arn="k")
    doc = run_program(lambda: BudgetGuard("budget", args), project="p", stack="s", default_region="eu-central-1").document
    (sub,) = doc.of_type("aws:sns/topicSubscription:TopicSubscription")
    assert sub.inputs["topic"] == f"arn:aws:sns:{topic_region}:111122223333:finops"
    assert sub.inputs.get("region") == expected



ORG_TRAIL = "arn:aws:cloudtrail:us-east-1:999988887777:trail/org-trail"


def _with_existing_trail(tmp_path, stack: str, s3_data_events: bool):
    import shutil
    from pathlib import Path

    from seedance.synth.project import synthesize_stack

    stacks_dir = Path(__file__).resolve().parents[2] / "stacks"

    project = tmp_path / "stacks"
    shutil.copytree(stacks_dir, project, ignore=shutil.ignore_patterns("__pycache__"))
    path = project / "policies" / f"{stack}.yaml"
    text = path.read_text()
    assert "\ncompliance:\n" in text
    path.write_text(text.replace("\ncompliance:\n", f"\ncompliance:\n  existingTrail: {{arn: '{ORG_TRAIL}', "
                                                      f"s3DataEvents: {str(s3_data_events).lower()}}}\n", 1))
    return synthesize_stack(stack, project)


def test_an_existing_trail_leaves_the_stack_a_trail_for_its_personal_data_events_only(tmp_path, eu):
    result = _with_existing_trail(tmp_path, "eu-prod", s3_data_events=False)
    (trail,) = result.document.of_type("aws:cloudtrail/trail:Trail")
    (selector,) = trail.inputs["eventSelectors"]
    # management events are the existing trail's: a second copy would be billed
    assert selector["includeManagementEvents"] is False
    assert selector["dataResources"] == eu.one("audit-trail").inputs["eventSelectors"][0]["dataResources"]
    assert trail.inputs["isMultiRegionTrail"] is True and trail.inputs["enableLogFileValidation"] is True
    # its bucket is protected as before; flow logs are the stack's whatever the trail
    assert result.document.by_name("audit-trail-bucket-policy")
    assert result.document.of_type("aws:ec2/flowLog:FlowLog")


def test_an_existing_trail_that_records_the_data_events_leaves_no_trail_nor_trail_bucket(tmp_path, eu):
    result = _with_existing_trail(tmp_path, "eu-prod", s3_data_events=True)
    assert result.document.of_type("aws:cloudtrail/trail:Trail") == []
    buckets = {r.name for r in result.document.of_type("aws:s3/bucket:Bucket")} or {
        r.name for r in result.document.of_type("aws:s3/bucketV2:BucketV2")}
    assert buckets and not any(n.startswith("audit-trail-bucket") for n in buckets)
    assert any(r.name.startswith("audit-trail-bucket") for r in eu.doc.resources)
    assert result.outputs["trail"] == ORG_TRAIL
    assert len(result.document.of_type("aws:ec2/flowLog:FlowLog")) == 1


@pytest.mark.parametrize(("existing", "data_buckets", "recorded", "own", "management"), [
    (None, [], False, True, True),  # no existing trail: the stack's records everything
    (None, ["arn:aws:s3:::b"], False, True, True),
    (ORG_TRAIL, [], False, False, False),  # nothing the existing trail leaves out
    (ORG_TRAIL, ["arn:aws:s3:::b"], False, True, False),  # data events only
    (ORG_TRAIL, ["arn:aws:s3:::b"], True, False, False),
])
def test_what_the_stack_s_own_trail_records(existing, data_buckets, recorded, own, management):
    args = AuditBaselineArgs(stack="s", region="us-east-1", vpc_id="vpc-1", account_id="111122223333", kms_key_arn="k",
                             log_retention_days=90, data_event_bucket_arns=data_buckets, existing_trail_arn=existing,
                             existing_trail_s3_data_events=recorded)
    assert (args.own_trail, args.own_management_events) == (own, management)


def test_the_stack_s_own_trail_is_not_an_existing_trail():
    from components.common import ComponentArgsError

    args = AuditBaselineArgs(stack="eu-prod", region="eu-central-1", vpc_id="vpc-1", account_id="111122223333", kms_key_arn="k",
                             log_retention_days=90, existing_trail_arn="arn:aws:cloudtrail:eu-central-1:111122223333:trail/seedance-eu-prod")
    with pytest.raises(ComponentArgsError, match=r"^compliance.existingTrail.arn: names this stack's own trail seedance-eu-prod"):
        args.validate()



def _subscriptions(emails: list[str], owner: str = "o@example.com") -> dict[str, str]:
    """Name -> endpoint of the email subscriptions BudgetGuard makes for ``emails`` (under mocks)."""
    from components.budget import BudgetGuard, BudgetGuardArgs
    from seedance.policy.model import Budget
    from seedance.synth.runtime import run_program

    budget = Budget.model_validate({"monthlyAmount": 1000, "notify": {"emails": emails}})
    args = BudgetGuardArgs(budget=budget, stack="s", owner=owner, region="eu-central-1",
                           account_id="111122223333", kms_key_arn="k")
    doc = run_program(lambda: BudgetGuard("budget", args), project="p", stack="s", default_region="eu-central-1").document
    return {r.name: r.inputs["endpoint"] for r in doc.of_type("aws:sns/topicSubscription:TopicSubscription")}


def test_email_subscriptions_are_named_by_address_so_inserting_one_replaces_none():
    before = _subscriptions(["finops@example.com", "cfo@example.com"])
    after = _subscriptions(["new@example.com", "cfo@example.com", "finops@example.com"])
    assert set(before.values()) == {"finops@example.com", "cfo@example.com"}
    # every address keeps its name (and so its confirmed subscription) whatever its place in the list
    assert {v: k for k, v in after.items() if v in before.values()} == {v: k for k, v in before.items()}
    assert all(re.fullmatch(r"budget-email-[0-9a-f]{8}", n) for n in after)
    # an address is one subscription whatever its letters' case, and the owner's (who gets the budget's
    # own email) none, in any case
    assert sorted(_subscriptions(["A@Example.com", "a@example.com", "O@example.com"]).values()) == ["A@Example.com"]


def test_email_subscriptions_alias_the_names_their_positions_gave_them_before():
    from components.budget import email_subscriptions

    # the old names were budget-email-<position in the list without repeats and the owner's exact spelling>
    got = email_subscriptions(["x@example.com", "o@example.com", "y@example.com", "x@example.com", "Y@example.com"],
                              "o@example.com")
    assert [(email, position) for _, email, position in got] == [("x@example.com", 0), ("y@example.com", 1)]


def test_budget_guard_gives_each_subscription_its_old_name_as_an_alias(monkeypatch):
    import pulumi_aws as aws

    seen: list[tuple[str, list[str]]] = []
    real = aws.sns.TopicSubscription

    def spy(name, *a, opts=None, **kw):
        seen.append((name, [alias.name for alias in opts.aliases]))
        return real(name, *a, opts=opts, **kw)

    monkeypatch.setattr(aws.sns, "TopicSubscription", spy)
    names = _subscriptions(["finops@example.com", "cfo@example.com"])
    by_endpoint = {v: k for k, v in names.items()}
    assert sorted(seen) == sorted([(by_endpoint["finops@example.com"], ["budget-email-0"]),
                                   (by_endpoint["cfo@example.com"], ["budget-email-1"])])


def test_the_trail_records_the_off_site_replicas_of_personal_buckets_too(cn):
    # red team: cn-prod copies finetune-datasets off site (MLPS 2.0 level 3), and the replica, tagged
    # personal like its source, got no S3 data events
    trail = next(r for r in cn.of_type("aws:cloudtrail/trail:Trail"))
    values = [v for s in trail.inputs["eventSelectors"] for d in s.get("dataResources", []) for v in d["values"]]
    replica = next(r for r in cn.of_type("aws:s3/bucket:Bucket") if r.name.endswith("finetune-datasets-replica"))
    source = next(r for r in cn.of_type("aws:s3/bucket:Bucket") if r.name.endswith("finetune-datasets"))
    assert replica.inputs["tags"]["data-class"] == "personal" and trail.inputs["isMultiRegionTrail"] is True
    assert len(values) == 2 and {v.split(":::")[1].rstrip("/").rsplit("-", 1)[0] for v in values} == {source.name, replica.name}
