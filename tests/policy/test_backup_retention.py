"""storage.backupRetentionDays: the retention of the AWS Backup recovery points of the EBS classes a
framework requires backups of; bounded by compliance.personalDataMaxDays only when they hold personal data."""

from __future__ import annotations

from pathlib import Path

import pytest

from seedance.policy import PolicyError, load_policy

HEAD = (Path(__file__).parent / "valid" / "minimal.yaml").read_text()


def _load(tmp_path: Path, extra: str):  # noqa: ANN202 - LoadedPolicy
    path = tmp_path / "p.yaml"
    head = HEAD
    if "mlps-l3" in extra:  # MLPS stacks are in mainland China, billed in CNY
        head = head.replace("us-east-1", "cn-north-1").replace("monthlyAmount: 1000", "monthlyAmount: 1000\n  currency: CNY")
    path.write_text(head + extra)
    return load_policy(path)


def _errors(tmp_path: Path, extra: str) -> list[str]:
    with pytest.raises(PolicyError) as exc:
        _load(tmp_path, extra)
    return [f"{p.path}: {p.message}" for p in exc.value.problems]


def test_default_and_explicit_retention(tmp_path: Path) -> None:
    assert _load(tmp_path, "").policy.storage.backup_retention_days == 7
    loaded = _load(tmp_path, "compliance: {frameworks: [gdpr], personalDataMaxDays: 30}\n"
                             "storage:\n  backupRetentionDays: 30\n  classes: [{name: g, tier: gp3, dataClass: personal}]\n")
    assert loaded.policy.storage.backup_retention_days == 30  # at the maximum is fine


@pytest.mark.parametrize("extra", [
    # no framework asks for backups
    "compliance: {personalDataMaxDays: 5}\nstorage:\n  classes: [{name: g, tier: gp3, dataClass: personal}]\n",
    # GDPR backs up personal data only: internal backups are not bounded by the personal-data maximum
    "compliance: {frameworks: [gdpr], personalDataMaxDays: 5}\nstorage:\n  backupRetentionDays: 90\n"
    "  classes: [{name: c, tier: io2, iops: 1000, dataClass: internal}]\n",
    # MLPS backs up internal data: still not personal data
    "compliance: {frameworks: [mlps-l3], personalDataMaxDays: 5}\nstorage:\n  backupRetentionDays: 90\n"
    "  classes: [{name: c, tier: io2, iops: 1000, dataClass: internal}]\n",
    # local NVMe is instance store: nothing to back up
    "compliance: {frameworks: [gdpr], personalDataMaxDays: 5}\nstorage:\n  classes: [{name: n, tier: local-nvme, dataClass: personal}]\n",
    # no maximum declared
    "compliance: {frameworks: [gdpr]}\nstorage:\n  backupRetentionDays: 3650\n  classes: [{name: g, tier: gp3, dataClass: personal}]\n",
])
def test_retention_unbounded_without_personal_backups(tmp_path: Path, extra: str) -> None:
    _load(tmp_path, extra)


def test_personal_backups_kept_no_longer_than_personal_data(tmp_path: Path) -> None:
    extra = ("compliance: {frameworks: [gdpr, mlps-l3], personalDataMaxDays: 30}\nstorage:\n  backupRetentionDays: 31\n"
             "  classes: [{name: a, tier: gp3, dataClass: personal}, {name: b, tier: io2, iops: 1000, dataClass: personal}]\n")
    assert _errors(tmp_path, extra) == [
        "storage.backupRetentionDays: expected at most compliance.personalDataMaxDays (30): the backups hold personal data "
        "(storage classes 'a', 'b'), got 31"
    ]


def test_a_personal_maximum_below_the_backup_minimum(tmp_path: Path) -> None:
    extra = "compliance: {frameworks: [gdpr], personalDataMaxDays: 6}\nstorage:\n  classes: [{name: g, tier: gp3, dataClass: personal}]\n"
    assert _errors(tmp_path, extra) == [
        "compliance.personalDataMaxDays: expected at least 7: the frameworks require backups of the personal-data EBS volumes "
        "(storage class 'g') kept at least 7 days, got 6"
    ]
