"""EbsBackup: the AWS Backup plan of the EBS volumes a framework requires backups of.

* a backup vault in the stack's region, encrypted with the stack's customer KMS key (AWS Backup uses
  the vault key for the resource types it fully manages; an EBS recovery point is an EBS snapshot,
  encrypted like its volume, which StorageTiers encrypts with the same key);
* a plan with one daily rule keeping recovery points ``retention_days`` (``storage.backupRetentionDays``);
* a selection of the EBS volumes of the region that carry the stack's backup tag (``seedance:backup``
  = the stack's name): every volume ARN (``arn:PARTITION:ec2:*:*:volume/*``, which assigns the resource
  type whatever the account's AWS Backup opt-in) narrowed by a ``StringEquals`` condition on the tag.
  StorageTiers puts the tag on the volumes of the StorageClasses that need backups through the EBS
  CSI driver's ``tagSpecification_N`` parameter;
* under MLPS 2.0 level 3, when the volumes hold personal data (8.1.4.9 b, off-site backup): a vault
  of the same name in the partner region (``copy_region``), encrypted with the stack's key there, and a
  copy action on the rule that copies every recovery point to it, kept as long. A cross-Region copy is
  encrypted with the destination vault's key (a key serves one Region only);
* the service role AWS Backup assumes (``backup.amazonaws.com``, in China too) with the AWS-managed
  ``AWSBackupServiceRolePolicyForBackup`` and ``AWSBackupServiceRolePolicyForRestores``, and an inline
  policy letting it use the stack key as EBS encryption requires (Amazon EBS guide, "Requirements for
  Amazon EBS encryption": kms:CreateGrant for AWS resources, Decrypt, DescribeKey,
  GenerateDataKeyWithoutPlaintext, ReEncrypt*), since the volumes' snapshots are encrypted with it.

The key's policy needs no statement for AWS Backup: the key the stack creates lets IAM policies of the
account grant its use (its account statement); a key the policy names (``compliance.kmsKeyArn``)
must do the same, and be named by its key ARN (IAM does not match a key by an alias ARN).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import pulumi
import pulumi_aws as aws

from components.common import child, name_safe_stack, partition, policy_json, require
from seedance.policy.model import MIN_BACKUP_RETENTION_DAYS

#: The tag that puts a volume under the stack's backup plan; its value is the stack's name.
BACKUP_TAG_KEY = "seedance:backup"
#: AWS-managed policies of an AWS Backup service role (AWS managed policy reference).
SERVICE_ROLE_POLICIES = ("AWSBackupServiceRolePolicyForBackup", "AWSBackupServiceRolePolicyForRestores")
SERVICE_PRINCIPAL = "backup.amazonaws.com"
#: Every day at 03:00 UTC (AWS Backup's cron form: minutes hours day-of-month month day-of-week year).
DAILY_SCHEDULE = "cron(0 3 * * ? *)"
#: CreateBackupVault: ^[a-zA-Z0-9\-\_]{2,50}$; backup plan, rule and selection names take '.' as well.
_VAULT_NAME = re.compile(r"^[a-zA-Z0-9_-]{2,50}$")
_NAME = re.compile(r"^[a-zA-Z0-9_.-]{1,50}$")


def backup_names(stack: str) -> dict[str, str]:
    """The AWS names of the vault, plan, rule and selection of a stack (deterministic). Plan and
    selection names take every character a Pulumi stack name may hold; a vault name takes no '.',
    so a stack named with one gets :func:`components.common.name_safe_stack`."""
    vault = f"seedance-{name_safe_stack(stack, max_len=50 - len('seedance--ebs'))}-ebs"
    return {"vault": vault, "plan": f"seedance-{stack}-ebs-daily", "rule": "daily",
            "selection": f"seedance-{stack}-ebs"}


def assume_policy() -> dict:
    return {
        "Version": "2012-10-17",
        "Statement": [{"Effect": "Allow", "Principal": {"Service": SERVICE_PRINCIPAL}, "Action": "sts:AssumeRole"}],
    }


def key_use_policy(*key_arns: str) -> dict:
    """What a principal needs to use KMS keys for EBS encryption (snapshots of encrypted volumes,
    their off-site copies and volumes restored from them), on those keys only; grants only for AWS
    services."""
    key_arn: str | list[str] = key_arns[0] if len(key_arns) == 1 else list(key_arns)
    return {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Sid": "EbsEncryptionWithStackKey",
                "Effect": "Allow",
                "Action": ["kms:Decrypt", "kms:DescribeKey", "kms:GenerateDataKeyWithoutPlaintext", "kms:ReEncrypt*"],
                "Resource": key_arn,
            },
            {
                "Sid": "GrantsForAwsServices",
                "Effect": "Allow",
                "Action": "kms:CreateGrant",
                "Resource": key_arn,
                "Condition": {"Bool": {"kms:GrantIsForAWSResource": "true"}},
            },
        ],
    }


def volume_arns(part: str) -> list[str]:
    """Every EBS volume, in any region and account (a selection only acts in its own region)."""
    return [f"arn:{part}:ec2:*:*:volume/*"]


@dataclass
class EbsBackupArgs:
    stack: str
    region: str
    kms_key_arn: pulumi.Input[str]
    retention_days: int
    tags: dict[str, str] = field(default_factory=dict)  # with the data class of what the vault holds
    schedule: str = DAILY_SCHEDULE
    copy_region: str | None = None  # the off-site region every recovery point is copied to
    copy_kms_key_arn: pulumi.Input[str] | None = None  # the key of the copies' vault, in copy_region

    def validate(self) -> None:
        require((self.copy_region is None) == (self.copy_kms_key_arn is None), "EbsBackupArgs.copy_region",
                "expected both an off-site region and a key there, or neither")
        require(self.copy_region != self.region, "EbsBackupArgs.copy_region",
                f"expected an off-site region other than the stack's {self.region}")
        require(self.retention_days >= MIN_BACKUP_RETENTION_DAYS, "storage.backupRetentionDays",
                f"expected at least {MIN_BACKUP_RETENTION_DAYS} days, got {self.retention_days}")
        names = backup_names(self.stack)
        require(bool(_VAULT_NAME.match(names["vault"])), "EbsBackupArgs.stack",
                f"expected a stack name that gives a backup vault name of at most 50 characters, got {self.stack!r}")
        require(all(_NAME.match(names[k]) for k in ("plan", "rule", "selection")), "EbsBackupArgs.stack",
                f"expected a stack name that gives backup plan and selection names of at most 50 characters, got {self.stack!r}")
        require("data-class" in self.tags, "EbsBackupArgs.tags", "expected the data-class tag of the volumes the vault holds")


class EbsBackup(pulumi.ComponentResource):
    vault_name: pulumi.Output[str]
    vault_arn: pulumi.Output[str]
    plan_id: pulumi.Output[str]
    role_arn: pulumi.Output[str]
    selection_tag: tuple[str, str]

    def __init__(self, name: str, args: EbsBackupArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("seedance:backup:EbsBackup", name, None, opts)
        args.validate()
        names = backup_names(args.stack)
        part = partition(args.region)
        self.selection_tag = (BACKUP_TAG_KEY, args.stack)

        vault = aws.backup.Vault(
            f"{name}-vault",
            name=names["vault"],
            kms_key_arn=args.kms_key_arn,
            tags=args.tags,
            opts=child(self),
        )
        copies: list[aws.backup.PlanRuleCopyActionArgs] = []
        self.copy_vault_arn: pulumi.Output[str] | None = None
        if args.copy_region is not None:
            copy_vault = aws.backup.Vault(
                f"{name}-copy-vault",
                name=names["vault"],
                region=args.copy_region,
                kms_key_arn=args.copy_kms_key_arn,
                tags=args.tags,
                opts=child(self),
            )
            copies.append(aws.backup.PlanRuleCopyActionArgs(
                destination_vault_arn=copy_vault.arn,
                lifecycle=aws.backup.PlanRuleCopyActionLifecycleArgs(delete_after=args.retention_days),
            ))
            self.copy_vault_arn = copy_vault.arn
        plan = aws.backup.Plan(
            f"{name}-plan",
            name=names["plan"],
            rules=[aws.backup.PlanRuleArgs(
                rule_name=names["rule"],
                target_vault_name=vault.name,
                schedule=args.schedule,
                lifecycle=aws.backup.PlanRuleLifecycleArgs(delete_after=args.retention_days),
                recovery_point_tags=args.tags,
                copy_actions=copies or None,
            )],
            tags=args.tags,
            opts=child(self),
        )
        role = aws.iam.Role(
            f"{name}-role",
            description=f"AWS Backup of the EBS volumes of Seedance stack {args.stack}",
            assume_role_policy=policy_json(assume_policy()),
            tags=args.tags,
            opts=child(self),
        )
        attachments = [
            aws.iam.RolePolicyAttachment(
                f"{name}-{policy}",
                role=role.name,
                policy_arn=f"arn:{part}:iam::aws:policy/service-role/{policy}",
                opts=child(self),
            )
            for policy in SERVICE_ROLE_POLICIES
        ]
        keys = [args.kms_key_arn] + ([args.copy_kms_key_arn] if args.copy_kms_key_arn is not None else [])
        attachments.append(aws.iam.RolePolicy(
            f"{name}-kms",
            role=role.name,
            policy=pulumi.Output.all(*keys).apply(lambda arns: policy_json(key_use_policy(*arns))),
            opts=child(self),
        ))
        key, value = self.selection_tag
        aws.backup.Selection(
            f"{name}-selection",
            name=names["selection"],
            plan_id=plan.id,
            iam_role_arn=role.arn,
            resources=volume_arns(part),
            conditions=[aws.backup.SelectionConditionArgs(
                string_equals=[aws.backup.SelectionConditionStringEqualArgs(key=f"aws:ResourceTag/{key}", value=value)],
            )],
            # the role holds its policies before a backup job assumes it
            opts=child(self, depends_on=attachments),
        )
        self.vault_name = vault.name
        self.vault_arn = vault.arn
        self.plan_id = plan.id
        self.role_arn = role.arn
        self.register_outputs({"vault_arn": self.vault_arn, "plan_id": self.plan_id, "role_arn": self.role_arn,
                               "copy_vault_arn": self.copy_vault_arn})
