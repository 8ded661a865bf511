"""BudgetGuard: a monthly AWS cost budget on the stack's cost-allocation tag, with an ACTUAL and
a FORECASTED notification per threshold, to a KMS-encrypted SNS topic and the owner by email.

When the policy names an existing topic (``budget.notify.snsTopicArn``) that topic is used and
none is created. Email subscriptions on the topic go to ``budget.notify.emails`` (the owner
already gets the budget's own email).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

import pulumi
import pulumi_aws as aws

from components.common import child, partition, policy_json, require
from seedance.awsnames import budget_threshold_percent
from seedance.budget.status import budget_name  # the name `seedance budget respond` recognises
from seedance.policy.model import Budget

#: AWS Budgets allows five notifications per budget (CreateBudget: "A budget can have up to five
#: notifications").
MAX_NOTIFICATIONS = 5


def email_subscriptions(emails: list[str], owner: str) -> list[tuple[str, str, int]]:
    """(name suffix, address, position) of each email subscription on the topic: each address once
    (letters' case aside, as mail servers treat the domain), not the owner's (who gets the budget's own
    email). The suffix is 8 hex digits of the SHA-256 of the lower-cased address, so adding, removing or
    reordering addresses leaves the others' names, and so their confirmed subscriptions, alone (an SNS
    email subscription cannot change its endpoint: a new one waits for confirmation again). The position
    is the address's place in the list that named it before (each exact spelling once, not the owner's
    exact spelling), which ``BudgetGuard`` aliases."""
    before = [e for e in dict.fromkeys(emails) if e != owner]
    seen = {owner.lower()}
    out: list[tuple[str, str, int]] = []
    for email in before:
        if email.lower() not in seen:
            seen.add(email.lower())
            out.append((hashlib.sha256(email.lower().encode()).hexdigest()[:8], email, before.index(email)))
    return out


def notification_plan(ats: list[float]) -> list[tuple[float, str]]:
    """(threshold, ACTUAL|FORECASTED) per notification: an ACTUAL one for every threshold, then a
    FORECASTED one for the highest thresholds while the five notifications allow (an early warning
    that the month is heading past them), ascending by threshold."""
    ordered = sorted(ats)
    forecast = set(ordered[::-1][: max(0, MAX_NOTIFICATIONS - len(ordered))])
    return [(a, kind) for a in ordered for kind in ("ACTUAL", "FORECASTED") if kind == "ACTUAL" or a in forecast]


def budget_limit(amount: float) -> str:
    return f"{amount:.2f}"


def cost_filter_value(stack: str) -> str:
    """The TagKeyValue filter for the ``seedance:stack`` cost-allocation tag."""
    return f"user:seedance:stack${stack}"


def topic_policy(topic_arn: str, account_id: str) -> dict:
    return {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Sid": "BudgetsPublish",
                "Effect": "Allow",
                "Principal": {"Service": "budgets.amazonaws.com"},
                "Action": "SNS:Publish",
                "Resource": topic_arn,
                "Condition": {"StringEquals": {"aws:SourceAccount": account_id}},
            },
            {
                "Sid": "DenyInsecureTransport",
                "Effect": "Deny",
                "Principal": "*",
                "Action": "SNS:Publish",
                "Resource": topic_arn,
                "Condition": {"Bool": {"aws:SecureTransport": "false"}},
            },
        ],
    }


#: AWS Budgets' longest budget name (BudgetName)
BUDGET_NAME_MAX = 100


@dataclass
class BudgetGuardArgs:
    budget: Budget
    stack: str
    owner: str
    region: str
    account_id: pulumi.Input[str]
    kms_key_arn: pulumi.Input[str]
    tags: dict[str, str] = field(default_factory=dict)

    def validate(self) -> None:
        b = self.budget
        # no thresholds: a budget without notifications (nothing to respond to, but the spend is tracked)
        require(len(b.thresholds) <= MAX_NOTIFICATIONS, "budget.thresholds",
                f"expected at most {MAX_NOTIFICATIONS} thresholds (AWS Budgets allows {MAX_NOTIFICATIONS} notifications "
                f"per budget), got {len(b.thresholds)}")
        ats = [t.at for t in b.thresholds]
        require(len(ats) == len(set(ats)), "budget.thresholds", f"expected distinct 'at' values, got {ats}")
        # the name `seedance budget respond` matches alerts by (AWS Budgets: at most 100 characters)
        require(len(self.budget_name) <= BUDGET_NAME_MAX, "stack",
                f"expected a stack name of at most {BUDGET_NAME_MAX - len(budget_name(''))} characters: the stack's "
                f"AWS Budget is {self.budget_name!r} ({len(self.budget_name)} characters) and AWS Budgets allows "
                f"{BUDGET_NAME_MAX}")
        if b.notify.sns_topic_arn:
            part = partition(self.region)
            require(b.notify.sns_topic_arn.startswith(f"arn:{part}:sns:"), "budget.notify.snsTopicArn",
                    f"expected an SNS topic in partition {part}, got {b.notify.sns_topic_arn}")

    @property
    def budget_name(self) -> str:
        return budget_name(self.stack)


class BudgetGuard(pulumi.ComponentResource):
    budget_name: pulumi.Output[str]
    topic_arn: pulumi.Output[str]

    def __init__(self, name: str, args: BudgetGuardArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("seedance:budget:BudgetGuard", name, None, opts)
        args.validate()
        b = args.budget
        if b.notify.sns_topic_arn:
            topic_arn: pulumi.Output[str] = pulumi.Output.from_input(b.notify.sns_topic_arn)
        else:
            topic = aws.sns.Topic(
                f"{name}-topic",
                display_name=f"Seedance budget {args.stack}",
                kms_master_key_id=args.kms_key_arn,
                tags=args.tags,
                opts=child(self),
            )
            aws.sns.TopicPolicy(
                f"{name}-topic-policy",
                arn=topic.arn,
                policy=pulumi.Output.all(topic.arn, args.account_id).apply(lambda v: policy_json(topic_policy(v[0], v[1]))),
                opts=child(self),
            )
            topic_arn = topic.arn
        # SNS subscribes in the topic's region: a topic the policy names in another region is
        # subscribed to there, not through the stack's regional provider (Subscribe would fail)
        topic_region = b.notify.sns_topic_arn.split(":")[3] if b.notify.sns_topic_arn else args.region
        for suffix, email, position in email_subscriptions(b.notify.emails, args.owner):
            # the name a stack deployed before names were stable gave it, by position: the alias takes the
            # subscription over with nothing to change when the list is what that stack deployed
            was = pulumi.Alias(name=f"{name}-email-{position}")
            aws.sns.TopicSubscription(f"{name}-email-{suffix}", topic=topic_arn, protocol="email", endpoint=email,
                                      region=topic_region if topic_region != args.region else None,
                                      opts=child(self, aliases=[was]))

        notifications = [
            aws.budgets.BudgetNotificationArgs(
                comparison_operator="GREATER_THAN",
                notification_type=kind,
                threshold=budget_threshold_percent(at),
                threshold_type="PERCENTAGE",
                subscriber_sns_topic_arns=[topic_arn],
                subscriber_email_addresses=[args.owner],
            )
            for at, kind in notification_plan([t.at for t in b.thresholds])
        ]
        budget = aws.budgets.Budget(
            f"{name}-budget",
            name=args.budget_name,
            budget_type="COST",
            time_unit="MONTHLY",
            limit_amount=budget_limit(b.monthly_amount),
            limit_unit=b.currency.value,
            account_id=args.account_id,
            cost_filters=[aws.budgets.BudgetCostFilterArgs(name="TagKeyValue", values=[cost_filter_value(args.stack)])],
            # amortised, as the estimate and the gate price reservations: a reserved hour is then the
            # instance's, tagged with the stack (unblended, AWS's default, bills it on the reservation's
            # fee line, which carries no stack tag, and an all-upfront one as a lump in its first month)
            cost_types=aws.budgets.BudgetCostTypesArgs(use_amortized=True),
            notifications=notifications,
            tags=args.tags,
            opts=child(self),
        )
        self.budget_name = budget.name
        self.topic_arn = topic_arn
        self.register_outputs({"budget_name": self.budget_name, "topic_arn": self.topic_arn})
