"""EbsBackup: the AWS Backup vault, plan, selection and role of the EBS StorageClasses a framework
requires backups of, and the backup tag StorageTiers gives those classes' volumes."""

from __future__ import annotations

import json
import re

import pytest

from components.backup import BACKUP_TAG_KEY, EbsBackup, EbsBackupArgs, backup_names
from components.common import ComponentArgsError, TagSet
from components.storage import StorageTiersArgs
from seedance.policy.model import CostPolicy
from seedance.synth.runtime import run_program

SC = "kubernetes:storage.k8s.io/v1:StorageClass"
KEY = "arn:aws:kms:eu-central-1:111122223333:key/k"


def _parts(s) -> dict:
    (component,) = s.of_type("seedance:backup:EbsBackup")
    children = [r for r in s.doc.resources if r.parent == component.urn]
    return {"component": component, "children": children, **{r.name.removeprefix("backup-"): r for r in children}}


def test_backup_only_where_a_framework_needs_it(eu, cn, dev):
    assert len(eu.of_type("seedance:backup:EbsBackup")) == 1
    assert len(cn.of_type("seedance:backup:EbsBackup")) == 1
    # no framework (and no cluster, so no StorageClasses): nothing to back up
    assert dev.of_type("seedance:backup:EbsBackup") == []
    assert [r for r in dev.doc.resources if r.type.startswith("aws:backup/")] == []


def test_vault_plan_selection_and_role(clustered):
    s = clustered
    p = _parts(s)
    names = backup_names(s.stack)
    part = "aws-cn" if s.stack == "cn-prod" else "aws"
    off_site = s.stack == "cn-prod"  # MLPS: personal-data recovery points are copied off site
    assert sorted(r.type for r in p["children"]) == sorted([
        "aws:backup/plan:Plan", "aws:backup/selection:Selection", "aws:backup/vault:Vault", "aws:iam/role:Role",
        "aws:iam/rolePolicy:RolePolicy", "aws:iam/rolePolicyAttachment:RolePolicyAttachment",
        "aws:iam/rolePolicyAttachment:RolePolicyAttachment",
    ] + (["aws:backup/vault:Vault"] if off_site else []))
    # the vault: in the stack's region, encrypted with the stack's customer key
    vault = p["vault"]
    assert vault.inputs["name"] == names["vault"] == f"seedance-{s.stack}-ebs"
    assert vault.inputs["kmsKeyArn"] == s.kms_key_arn()
    assert vault.region == s.policy.cloud.region
    assert "forceDestroy" not in vault.inputs or vault.inputs["forceDestroy"] is False
    # the plan: one daily rule into the vault, kept storage.backupRetentionDays
    (rule,) = p["plan"].inputs["rules"]
    assert ("copyActions" in rule) is off_site
    assert rule["schedule"] == "cron(0 3 * * ? *)"
    assert rule["targetVaultName"] == vault.inputs["name"]
    assert rule["lifecycle"] == {"deleteAfter": s.policy.storage.backup_retention_days} == {"deleteAfter": 7}
    # the vault and plan hold personal data (both stacks back up a personal-data class)
    for r in (vault, p["plan"]):
        assert r.inputs["tags"]["data-class"] == "personal" and r.inputs["tags"]["purpose"] == "backup"
    # the selection: every EBS volume of the region tagged seedance:backup=STACK, under that plan
    sel = p["selection"]
    assert sel.inputs["resources"] == [f"arn:{part}:ec2:*:*:volume/*"]
    assert sel.inputs["conditions"] == [{"stringEquals": [{"key": f"aws:ResourceTag/{BACKUP_TAG_KEY}", "value": s.stack}]}]
    assert sel.inputs["planId"].startswith(f"{p['plan'].name}-")  # the mock runtime's id of the plan
    assert sel.inputs["iamRoleArn"].startswith(f"arn:{part}:iam::") and sel.region == s.policy.cloud.region
    # the role: assumed by AWS Backup, with the AWS-managed backup and restore policies
    trust = json.loads(p["role"].inputs["assumeRolePolicy"])
    assert trust["Statement"] == [{"Effect": "Allow", "Principal": {"Service": "backup.amazonaws.com"}, "Action": "sts:AssumeRole"}]
    assert sorted(r.inputs["policyArn"] for r in p["children"] if r.type.endswith("RolePolicyAttachment")) == [
        f"arn:{part}:iam::aws:policy/service-role/AWSBackupServiceRolePolicyForBackup",
        f"arn:{part}:iam::aws:policy/service-role/AWSBackupServiceRolePolicyForRestores",
    ]
    # and the use of the stack key (only it) that snapshots of encrypted EBS volumes need
    use, grants = json.loads(p["kms"].inputs["policy"])["Statement"]
    if off_site:  # and of the partner region's key, which encrypts the copies
        assert use["Resource"] == grants["Resource"] == [s.kms_key_arn(), p["copy-vault"].inputs["kmsKeyArn"]]
    else:
        assert use["Resource"] == grants["Resource"] == s.kms_key_arn()
    assert use["Action"] == ["kms:Decrypt", "kms:DescribeKey", "kms:GenerateDataKeyWithoutPlaintext", "kms:ReEncrypt*"]
    assert (grants["Action"], grants["Condition"]) == ("kms:CreateGrant", {"Bool": {"kms:GrantIsForAWSResource": "true"}})
    assert p["kms"].inputs["role"] == p["role"].inputs.get("name", sel.inputs["iamRoleArn"].rsplit("/", 1)[1])


def test_personal_recovery_points_are_copied_off_site_under_mlps(cn, eu):
    # MLPS 2.0 level 3, 8.1.4.9 b: cn-prod's personal EBS class is backed up, and each recovery point
    # copied to a vault of the same name in the partner region, encrypted with the stack's key there
    p = _parts(cn)
    copy = p["copy-vault"]
    assert copy.region == "cn-northwest-1" != cn.policy.cloud.region
    assert copy.inputs["name"] == p["vault"].inputs["name"]
    replica_keys = [r for r in cn.doc.resources if r.type == "aws:kms/key:Key" and r.region == "cn-northwest-1"]
    assert len(replica_keys) == 1 and copy.inputs["kmsKeyArn"].startswith("arn:aws-cn:kms:cn-northwest-1:")
    (rule,) = p["plan"].inputs["rules"]
    assert rule["copyActions"] == [{"destinationVaultArn": rule["copyActions"][0]["destinationVaultArn"],
                                    "lifecycle": {"deleteAfter": cn.policy.storage.backup_retention_days}}]
    assert rule["copyActions"][0]["destinationVaultArn"].startswith("arn:aws-cn:backup:cn-northwest-1:")
    assert copy.inputs["tags"]["data-class"] == "personal"
    # GDPR asks for no off-site copy: eu-prod keeps its recovery points in its region
    assert "copy-vault" not in _parts(eu) and "copyActions" not in _parts(eu)["plan"].inputs["rules"][0]


def test_storage_classes_that_need_backups_tag_their_volumes(eu, cn):
    def params(s) -> dict[str, dict]:
        return {r.inputs["metadata"]["name"]: r.inputs.get("parameters") for r in s.of_type(SC)}

    # GDPR: the personal-data class only
    eu_params = params(eu)
    assert eu_params["general"]["tagSpecification_1"] == "seedance:backup=eu-prod"
    assert "tagSpecification_1" not in eu_params["fast-ckpt"]  # internal data
    # MLPS level 3: personal and internal data; local NVMe is instance store, not EBS
    cn_params = params(cn)
    assert cn_params["general"]["tagSpecification_1"] == "seedance:backup=cn-prod"
    assert cn_params["fast-ckpt"]["tagSpecification_1"] == "seedance:backup=cn-prod"
    assert cn_params["scratch"] is None


def _policy(retention: int | None = None, frameworks: tuple[str, ...] = ("gdpr",)) -> CostPolicy:
    storage: dict = {"classes": [{"name": "general", "tier": "gp3", "dataClass": "personal"},
                                 {"name": "ckpt", "tier": "io2", "iops": 1000, "dataClass": "internal"},
                                 {"name": "nvme", "tier": "local-nvme", "dataClass": "personal"},
                                 {"name": "www", "tier": "gp3", "dataClass": "public"}]}
    if retention is not None:
        storage["backupRetentionDays"] = retention
    return CostPolicy.model_validate({
        "apiVersion": "seedance.io/v1", "kind": "CostPolicy",
        "metadata": {"name": "p", "environment": "prod", "owner": "o@example.com"},
        "cloud": {"region": "eu-central-1", "availabilityZones": ["eu-central-1a"], "vpcId": "vpc-0123456789abcdef0",
                  "subnetIds": ["subnet-0123456789abcdef0"]},
        "compliance": {"frameworks": list(frameworks)},
        "budget": {"monthlyAmount": 1000},
        "storage": storage,
    })


def test_the_frameworks_name_the_classes_to_back_up():
    # EBS tiers only (local NVMe is instance store); GDPR personal data, MLPS personal and internal data
    assert [c.name for c in _policy().backed_up_classes()] == ["general"]
    assert [c.name for c in _policy(frameworks=("mlps-l3",)).backed_up_classes()] == ["general", "ckpt"]
    assert [c.name for c in _policy(frameworks=("gdpr", "mlps-l3")).backed_up_classes()] == ["general", "ckpt"]
    assert _policy(frameworks=()).backed_up_classes() == []
    assert _policy().storage.backup_retention_days == 7  # the default


def test_retention_comes_from_the_policy():
    def program() -> None:
        EbsBackup("b", EbsBackupArgs(stack="s", region="eu-central-1", kms_key_arn=KEY,
                                     retention_days=_policy(30).storage.backup_retention_days,
                                     tags={"data-class": "personal"}))

    doc = run_program(program, project="p", stack="s", default_region="eu-central-1").document
    (rule,) = doc.by_name("b-plan").inputs["rules"]
    assert rule["lifecycle"] == {"deleteAfter": 30}
    assert doc.by_name("b-vault").inputs["tags"] == {"data-class": "personal"}


def test_backup_names_are_deterministic_and_valid():
    assert backup_names("eu-prod") == {"vault": "seedance-eu-prod-ebs", "plan": "seedance-eu-prod-ebs-daily", "rule": "daily",
                                       "selection": "seedance-eu-prod-ebs"}
    # vault names take no '.'; a stack named with one gets a suffix of its own, so team.prod and
    # team-prod (both valid Pulumi stack names, in one account) never share a vault
    dotted, dashed = backup_names("team.prod"), backup_names("team-prod")
    assert re.fullmatch(r"seedance-team-prod-[0-9a-f]{8}-ebs", dotted["vault"])
    assert dashed["vault"] == "seedance-team-prod-ebs"
    # plan and selection names take '.': the stack's own name, as short as it can be
    assert (dotted["plan"], dotted["selection"]) == ("seedance-team.prod-ebs-daily", "seedance-team.prod-ebs")
    # a 31-character dotted stack name still fits AWS Backup's 50 (the hash made its plan name 51)
    long = backup_names("team.gpu-training-prod1-abcdefg")
    assert all(len(v) <= 50 for v in long.values()), long
    assert backup_names("team.prod") == dotted


def _args(**kw) -> EbsBackupArgs:
    base = dict(stack="eu-prod", region="eu-central-1", kms_key_arn=KEY, retention_days=7, tags={"data-class": "personal"})
    return EbsBackupArgs(**(base | kw))


@pytest.mark.parametrize(("kw", "message"), [
    (dict(retention_days=6), r"^storage.backupRetentionDays: expected at least 7 days, got 6$"),
    (dict(stack="s" * 40), r"^EbsBackupArgs.stack: expected a stack name that gives a backup vault name of at most 50 characters"),
    (dict(stack="s" * 35), r"^EbsBackupArgs.stack: expected a stack name that gives backup plan and selection names of at most 50"),
    (dict(tags={}), r"^EbsBackupArgs.tags: expected the data-class tag of the volumes the vault holds$"),
    (dict(copy_region="eu-west-1"), r"^EbsBackupArgs.copy_region: expected both an off-site region and a key there"),
    (dict(copy_region="eu-central-1", copy_kms_key_arn=KEY), r"^EbsBackupArgs.copy_region: expected an off-site region other"),
])
def test_backup_args_are_validated(kw, message):
    with pytest.raises(ComponentArgsError, match=message):
        _args(**kw).validate()
    _args().validate()


def _tiers(**kw) -> StorageTiersArgs:
    policy = _policy()
    base = dict(region="eu-central-1", availability_zones=["eu-central-1a"], kms_key_arn=KEY,
                tag_set=TagSet.from_policy(policy, "s"), classes=list(policy.storage.classes))
    return StorageTiersArgs(**(base | kw))


@pytest.mark.parametrize(("kw", "message"), [
    (dict(backup_tag=("k", "v"), backup_classes=["nvme"]),
     r"^StorageTiersArgs.backup_classes: expected EBS storage classes \(\['ckpt', 'general', 'www'\]\), got \['nvme'\]$"),
    (dict(backup_classes=["general"]), r"^StorageTiersArgs.backup_tag: expected the tag a backup selection selects on"),
    (dict(backup_tag=("a=b", "v"), backup_classes=["general"]), r"^StorageTiersArgs.backup_tag: expected a tag key without '='"),
    (dict(backup_tag=("", "v"), backup_classes=["general"]), r"^StorageTiersArgs.backup_tag: expected a tag key without '='"),
])
def test_storage_backup_args_are_validated(kw, message):
    with pytest.raises(ComponentArgsError, match=message):
        _tiers(**kw).validate()
    _tiers(backup_tag=(BACKUP_TAG_KEY, "s"), backup_classes=["general"]).validate()
    _tiers().validate()
