"""The decision document: joins to METADATA, waivers, fail-closed checks (pure functions)."""

from __future__ import annotations

import datetime as dt

import pytest

from seedance.gate.decision import Waiver, decide
from seedance.gate.errors import EngineError

URN = "urn:pulumi:eu-prod::seedance-gpu::seedance:storage:StorageTiers$aws:s3/bucket:Bucket::storage-finetune-datasets"


def _raw(bundle, **extra):
    raw = {c.control_id: [] for c in bundle.controls}
    raw.update(extra)
    return raw


def _finding(control_id="GDPR-32.1c-1", severity="mandatory", message="personal-data bucket is not versioned"):
    return {
        "control_id": control_id,
        "severity": severity,
        "urn": URN,
        "resource_type": "aws:s3/bucket:Bucket",
        "resource_name": "storage-finetune-datasets",
        "message": message,
    }


def _decide(bundle, raw, waivers=()):
    return decide(raw, bundle, stack="eu-prod", frameworks=["gdpr"], waivers=list(waivers), as_of=dt.date(2026, 6, 1))


def test_finding_is_joined_to_its_metadata(bundle) -> None:
    d = _decide(bundle, _raw(bundle, **{"GDPR-32.1c-1": [_finding()]}))
    (f,) = d.findings
    assert (f.title, f.clause, f.framework, f.file, f.rule) == (
        "Backup and restore", "Art. 32(1)(c)", "gdpr", "gdpr/backup.rego", "data.gdpr.backup.violation",
    )
    assert f.remediation.startswith("Enable versioning on the bucket")
    assert (d.outcome, d.exit_code, d.counts()) == ("fail", 1, {"mandatory": 1, "advisory": 0, "waived": 0})


def test_advisory_findings_do_not_block(bundle) -> None:
    d = _decide(bundle, _raw(bundle, **{"GDPR-30-1": [_finding("GDPR-30-1", "advisory", "storage lacks tags")]}))
    assert (d.outcome, d.exit_code, d.counts()) == ("pass", 0, {"mandatory": 0, "advisory": 1, "waived": 0})


def test_active_waiver_marks_the_finding_waived_and_keeps_it(bundle) -> None:
    w = Waiver("GDPR-32.1c-1", "storage-finetune-*", "restored from the data lake", "dpo@example.com", "2026-06-01")
    d = _decide(bundle, _raw(bundle, **{"GDPR-32.1c-1": [_finding()]}), [w])
    (f,) = d.findings
    assert f.waived and f.waiver == w
    assert (d.outcome, d.exit_code, d.counts()) == ("pass", 0, {"mandatory": 0, "advisory": 0, "waived": 1})
    assert d.expired_waivers == [] and d.unused_waivers == []


def test_waiver_matches_urn_glob(bundle) -> None:
    w = Waiver("GDPR-32.1c-1", "urn:pulumi:eu-prod::*::storage-*", "restored from the data lake", "dpo@example.com", "2027-01-01")
    assert _decide(bundle, _raw(bundle, **{"GDPR-32.1c-1": [_finding()]}), [w]).findings[0].waived


def test_expired_waiver_is_ignored_and_reported(bundle) -> None:
    w = Waiver("GDPR-32.1c-1", "*", "restored from the data lake", "dpo@example.com", "2026-05-31")
    d = _decide(bundle, _raw(bundle, **{"GDPR-32.1c-1": [_finding()]}), [w])
    assert not d.findings[0].waived
    assert d.expired_waivers == [w]
    assert d.exit_code == 1
    assert d.to_json()["expiredWaivers"] == [
        {"control": "GDPR-32.1c-1", "resource": "*", "reason": "restored from the data lake", "approver": "dpo@example.com", "expires": "2026-05-31"}
    ]


def test_waiver_for_another_control_does_not_apply(bundle) -> None:
    w = Waiver("GDPR-32.1a-1", "*", "restored from the data lake", "dpo@example.com", "2027-01-01")
    d = _decide(bundle, _raw(bundle, **{"GDPR-32.1c-1": [_finding()]}), [w])
    assert not d.findings[0].waived and d.unused_waivers == [w]


def test_missing_rule_result_is_undecided(bundle) -> None:
    raw = _raw(bundle)
    del raw["GDPR-33-1"]
    with pytest.raises(EngineError, match="GDPR-33-1: the engine returned no result for data.gdpr.breach_detection.violation"):
        _decide(bundle, raw)


def test_finding_of_another_shape_is_undecided(bundle) -> None:
    with pytest.raises(EngineError, match="produced a finding without"):
        _decide(bundle, _raw(bundle, **{"GDPR-32.1c-1": [{"msg": "x"}]}))


def test_finding_with_wrong_control_id_is_undecided(bundle) -> None:
    with pytest.raises(EngineError, match="reports control 'GDPR-17-1' but its METADATA says 'GDPR-32.1c-1'"):
        _decide(bundle, _raw(bundle, **{"GDPR-32.1c-1": [_finding("GDPR-17-1")]}))


def test_decision_document_is_sorted_and_stable(bundle) -> None:
    raw = _raw(bundle, **{
        "GDPR-30-1": [_finding("GDPR-30-1", "advisory", "b")],
        "GDPR-32.1c-1": [_finding(message="z"), _finding(message="a")],
    })
    d = _decide(bundle, raw)
    assert [(f.severity, f.message) for f in d.findings] == [("mandatory", "a"), ("mandatory", "z"), ("advisory", "b")]
    assert d.to_json() == _decide(bundle, raw).to_json()


@pytest.mark.parametrize("zone", ["Etc/GMT+12", "Etc/GMT-14"])
def test_waivers_are_judged_on_the_utc_date_whatever_the_runner_s_zone(zone: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # 26 hours apart: at any moment one of the two zones is on another date than UTC; a waiver
    # expiring "yesterday" must not hold on one runner and not on another
    import time

    from seedance.clock import utc_today as today_utc

    monkeypatch.setenv("TZ", zone)
    time.tzset()
    try:
        before = dt.datetime.now(dt.UTC).date()
        today = today_utc()
        assert today in {before, dt.datetime.now(dt.UTC).date()}
        assert Waiver("C-1", "*", "r", "a@example.com", today.isoformat()).expired(today) is False
        assert Waiver("C-1", "*", "r", "a@example.com", (today - dt.timedelta(days=1)).isoformat()).expired(today) is True
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()
