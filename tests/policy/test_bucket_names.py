"""Checkpoint bucket names short enough for the S3 names Pulumi gives their buckets (and their
off-site copies), checked where the policy names them rather than at `pulumi up`."""

from __future__ import annotations

from pathlib import Path

from seedance.awsnames import S3_BUCKET_NAME_MAX, checkpoint_bucket_name_max
from seedance.policy import PolicyError, load_policy

HEAD = (Path(__file__).parent / "valid" / "minimal.yaml").read_text()


def _problems(tmp_path: Path, extra: str) -> list[str]:
    path = tmp_path / "p.yaml"
    path.write_text(HEAD + extra)
    try:
        load_policy(path)
    except PolicyError as exc:
        return [f"{p.location.line}: {p.path}: {p.message}" for p in exc.problems]
    return []


def _bucket(name: str, data_class: str = "personal") -> str:
    return f"storage:\n  checkpointBuckets:\n    - {{name: {name}, dataClass: {data_class}}}\n"


def test_the_limits_follow_the_names_pulumi_gives() -> None:
    # storage-NAME-xxxxxxx within 63; the copy storage-NAME-replica-xxxxxxx too
    assert len(f"storage-{'b' * checkpoint_bucket_name_max(False)}-abcdef0") == S3_BUCKET_NAME_MAX
    assert len(f"storage-{'b' * checkpoint_bucket_name_max(True)}-replica-abcdef0") == S3_BUCKET_NAME_MAX


def test_a_bucket_name_pulumi_cannot_fit_is_refused_at_its_line(tmp_path: Path) -> None:
    longest = checkpoint_bucket_name_max(False)
    assert _problems(tmp_path, _bucket("b" * longest)) == []
    (problem,) = _problems(tmp_path, _bucket("b" * (longest + 1)))
    assert problem.startswith(f"{HEAD.count(chr(10)) + 3}: storage.checkpointBuckets[0].name: at most 47 characters, got 48: Pulumi names the bucket")


def test_a_replicated_personal_data_bucket_needs_room_for_its_copy(tmp_path: Path) -> None:
    mlps = "compliance: {frameworks: [mlps-l3]}\n"
    longest = checkpoint_bucket_name_max(True)
    name = "b" * (longest + 1)
    problems = _problems(tmp_path, mlps + _bucket(name))
    assert any(p.endswith(f"at most {longest} characters for a replicated personal-data bucket, got {longest + 1}: Pulumi "
                          f"names the bucket storage-{name}-xxxxxxx and its off-site copy storage-{name}-replica-xxxxxxx, "
                          f"and S3 bucket names hold at most 63 characters") for p in problems), problems
    # internal data is not copied off site: only its own name counts
    assert not any("checkpointBuckets" in p for p in _problems(tmp_path, mlps + _bucket(name, "internal")))


def test_a_bucket_named_as_another_ones_off_site_copy_is_refused_at_its_name(tmp_path: Path) -> None:
    # MLPS 2.0 level 3 copies the personal-data bucket "ckpt" off site as storage-ckpt-replica: a bucket
    # the policy names "ckpt-replica" would be a second storage-ckpt-replica (the synthesis stopped at
    # AccessLogArchiveArgs.sources, naming no policy field)
    mlps = "compliance: {frameworks: [mlps-l3]}\n"
    two = ("storage:\n  checkpointBuckets:\n    - {name: ckpt, dataClass: personal}\n"
           "    - {name: ckpt-replica, dataClass: internal}\n")
    line = HEAD.count("\n") + 5  # after the compliance, storage, checkpointBuckets and first bucket lines
    expected = (f"{line}: storage.checkpointBuckets[1].name: the off-site copy of bucket 'ckpt' takes this name "
                "(storage-ckpt-replica: MLPS 2.0 level 3 copies personal data off site to a bucket named after it and "
                "'-replica'); choose another name")
    assert expected in _problems(tmp_path, mlps + two)
    # no copy is made of internal data, nor without MLPS 2.0 level 3: the name is free
    assert not any("off-site copy" in p for p in _problems(tmp_path, mlps + two.replace("personal", "internal")))
    assert _problems(tmp_path, two) == []
