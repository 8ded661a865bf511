"""Gaps an audit found in validation: YAML tags and merge keys, bounds, all errors at once, overlays."""

from __future__ import annotations

from pathlib import Path

import pytest

from seedance.policy import PolicyError, PolicySyntaxError, load_policy, load_policy_text
from seedance.policy.yamlsrc import parse

MINIMAL = (Path(__file__).parent / "valid" / "minimal.yaml").read_text()


def _problems(text: str) -> list[str]:
    with pytest.raises(PolicyError) as exc:
        load_policy_text(text, file="p.yaml")
    return [str(p) for p in exc.value.problems]


# ---------------------------------------------------------------- YAML layer


@pytest.mark.parametrize(
    ("old", "new", "tag", "kind"),
    [
        ("metadata:\n", "metadata: !custom\n", "!custom", "mapping"),
        ("cloud:\n", "cloud: !!python/object:foo\n", "!!python/object:foo", "mapping"),
        ("availabilityZones: [us-east-1a]", "availabilityZones: !!set [us-east-1a]", "!!set", "list"),
        ("availabilityZones: [us-east-1a]", "availabilityZones: !!omap [{a: 1}]", "!!omap", "list"),
        ("metadata:\n", "metadata: !!set\n", "!!set", "mapping"),
    ],
)
def test_tags_on_mappings_and_lists_are_refused(old: str, new: str, tag: str, kind: str) -> None:
    with pytest.raises(PolicySyntaxError) as exc:
        load_policy_text(MINIMAL.replace(old, new, 1), file="p.yaml")
    assert f"YAML tag '{tag}' is not allowed on a {kind}" in str(exc.value)


def test_standard_map_and_seq_tags_are_fine() -> None:
    text = MINIMAL.replace("metadata:\n", "metadata: !!map\n").replace("[us-east-1a]", "!!seq [us-east-1a]")
    assert load_policy_text(text).metadata.name == "minimal"


def test_duplicate_merge_keys_are_refused() -> None:
    text = "a: &a {x: 1}\nb: &b {y: 2}\nc:\n  <<: *a\n  <<: *b\n"
    with pytest.raises(PolicySyntaxError) as exc:
        parse("m.yaml", text.encode())
    assert str(exc.value) == "m.yaml:5:3: c: duplicate merge key '<<' (first at line 4); merge several mappings with one key: '<<: [*a, *b]'"
    assert parse("m.yaml", b"a: &a {x: 1}\nb: &b {y: 2}\nc:\n  <<: [*a, *b]\n")["c"] == {"x": 1, "y": 2}


def test_a_key_given_twice_in_a_mapping_only_merged_is_refused() -> None:
    # the anchored mapping is only ever merged, never read itself: its second 'sla' was dropped and the
    # first kept, with no word (PyYAML alone keeps the last)
    text = b"a:\n  <<: &d\n    sla: silver\n    sla: gold\n  name: x\nb: {<<: *d, name: y}\n"
    with pytest.raises(PolicySyntaxError) as exc:
        parse("m.yaml", text)
    assert str(exc.value) == "m.yaml:4:5: a.sla: duplicate key 'sla' (first defined at line 3)"
    with pytest.raises(PolicySyntaxError, match=r"m\.yaml:1:30: budget\.currency: duplicate key 'currency'"):
        parse("m.yaml", b"budget: {<<: {currency: USD, currency: CNY}, monthlyAmount: 6000}\n")


@pytest.mark.parametrize("key", ["!custom name", "!!python/name:os.system name", "!!binary bmFtZQ=="])
def test_tags_on_keys_are_refused(key: str) -> None:
    with pytest.raises(PolicySyntaxError) as exc:
        parse("m.yaml", f"metadata:\n  {key}: x\n".encode())
    assert "is not allowed on a key" in str(exc.value) and str(exc.value).startswith("m.yaml:2:3: metadata: ")
    assert parse("m.yaml", b"metadata:\n  !!str name: x\n  2024: y\n") == {"metadata": {"name": "x", "2024": "y"}}


def test_an_aliased_mapping_with_a_merge_key_reads_the_same_twice() -> None:
    tree = parse("m.yaml", b"base: &b {k: 1, j: 2}\na: &x {<<: *b, k: 3}\nc: *x\n")
    assert tree["a"] == tree["c"] == {"k": 3, "j": 2}


def test_an_impossible_date_is_a_field_error_among_the_others() -> None:
    text = MINIMAL.replace("monthlyAmount: 1000", "monthlyAmount: -1") + (
        "waivers:\n  - {control: GDPR-44-1, resource: '*', reason: migration in progress, approver: a@example.com, "
        "expires: 2024-13-45}\n"
    )
    problems = _problems(text)
    assert len(problems) == 2
    assert problems[1].endswith("waivers[0].expires: expected a date (YYYY-MM-DD), got '2024-13-45'")


# ---------------------------------------------------------------- all errors at once


def test_semantic_errors_of_valid_fleets_come_with_schema_errors_of_others() -> None:
    text = MINIMAL + (
        "  - name: api\n    workload: api\n    sla: silver\n    cpu: {vcpu: 4, memoryGib: 16}\n"
        "    capacity: {min: 1, desired: 9, max: 4}\n"
        "  - name: both\n    workload: api\n    sla: silver\n    cpu: {vcpu: 4, memoryGib: 16}\n"
        "    capacity: {min: 5, desired: two, max: 4}\n"
    )
    text = text.replace("capacity: {min: 1, desired: 2, max: 4}\n", "capacity: {min: 1, desired: 2, max: 4}\n    spot: {maxShare: 1.5}\n", 1)
    problems = _problems(text)
    assert [p.split(": ", 1)[1] for p in problems] == [
        "fleets[0].spot.maxShare (fleet 'web'): expected a number in [0, 1], got 1.5",
        "fleets[1].capacity.desired (fleet 'api'): expected desired <= max, got desired 9 > max 4",
        # the fleet the schema rejected gets no cross-field errors on top (min 5 > max 4 is not repeated)
        "fleets[2].capacity.desired (fleet 'both'): expected an integer, got 'two'",
    ]


def test_rules_needing_a_rejected_part_are_left_out() -> None:
    # the currency rule needs the region: with a broken cloud block it does not run
    text = MINIMAL.replace("region: us-east-1", "region: mars").replace("monthlyAmount: 1000", "monthlyAmount: 1000\n  currency: CNY")
    problems = _problems(text)
    assert len(problems) == 1 and "cloud.region" in problems[0]
    # with the cloud valid it does
    problems = _problems(MINIMAL.replace("monthlyAmount: 1000", "monthlyAmount: 1000\n  currency: CNY").replace("sla: silver", "sla: platinum"))
    assert [p.split(": ", 2)[1] for p in problems] == ["budget.currency", "fleets[0].sla (fleet 'web')"]


# ---------------------------------------------------------------- bounds and limits


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("max: 4}", "max: 100001}", "expected an integer in [0, 100000], got 100001"),
        ("monthlyAmount: 1000", "monthlyAmount: 1.0e-300", "expected a number in [0.01, 1e+12], got 1e-300"),
        ("monthlyAmount: 1000", "monthlyAmount: 2.0e+12", "expected a number in [0.01, 1e+12], got 2e+12"),
        ("monthlyAmount: 1000", "monthlyAmount: 1000\nstorage:\n  checkpointBuckets: [{name: ck, expireDays: 100000000000000000000}]",
         "expected an integer in (0, 36500], got 100000000000000000000"),
    ],
)
def test_sane_upper_and_lower_bounds(old: str, new: str, message: str) -> None:
    assert any(p.endswith(message) for p in _problems(MINIMAL.replace(old, new)))


def test_largest_allowed_fleet_is_valid() -> None:
    text = MINIMAL.replace("capacity: {min: 1, desired: 2, max: 4}", "capacity: {min: 1, desired: 2, max: 100000}")
    assert load_policy_text(text).fleets[0].capacity.max == 100_000


def _storage(classes: str) -> str:
    return MINIMAL + "storage:\n  classes:\n" + classes


@pytest.mark.parametrize(
    ("cls", "message"),
    [
        ("{name: a, tier: gp3, sizeGib: 1, iops: 16000}", "gp3 allows at most 500 IOPS per GiB: expected at most 3000 for 1 GiB (or sizeGib >= 32), got 16000"),
        ("{name: a, tier: gp3, sizeGib: 10, iops: 6000}", "expected at most 5000 for 10 GiB (or sizeGib >= 12), got 6000"),
        ("{name: a, tier: gp3, iops: 3000, throughputMibps: 1000}", "gp3 allows at most 0.25 MiB/s per IOPS: expected at most 750 with 3000 IOPS (or iops >= 4000), got 1000"),
        ("{name: a, tier: gp3, throughputMibps: 800}", "expected at most 750 with 3000 IOPS (or iops >= 3200), got 800"),
        ("{name: a, tier: io2, sizeGib: 4, iops: 256000}", "io2 allows at most 1000 IOPS per GiB: expected at most 4000 for 4 GiB (or sizeGib >= 256), got 256000"),
        ("{name: a, tier: io2, sizeGib: 2, iops: 100}", "io2 volumes are at least 4 GiB, got 2"),
        # gp3's ranges as the installed botocore's CreateVolume documents them
        ("{name: a, tier: gp3, sizeGib: 1000, iops: 80001}", "gp3 allows at most 80000 IOPS, got 80001"),
    ],
)
def test_ebs_ratio_limits(cls: str, message: str) -> None:
    assert any(p.endswith(message) for p in _problems(_storage(f"    - {cls}\n")))


@pytest.mark.parametrize(
    "cls",
    [
        "{name: a, tier: gp3, sizeGib: 1}",  # 3000 IOPS are included whatever the size
        "{name: a, tier: gp3, sizeGib: 32, iops: 16000, throughputMibps: 1000}",
        "{name: a, tier: gp3, sizeGib: 200, iops: 6000, throughputMibps: 250}",
        "{name: a, tier: io2, sizeGib: 2000, iops: 20000}",
        "{name: a, tier: gp3, sizeGib: 1000, iops: 80000, throughputMibps: 2000}",  # gp3's 2025 maximums
    ],
)
def test_ebs_volumes_within_the_ratios_are_valid(cls: str) -> None:
    assert load_policy_text(_storage(f"    - {cls}\n")).storage.classes[0].name == "a"


def _tags(lines: str) -> str:
    return MINIMAL.replace("  owner: dev@example.com\n", "  owner: dev@example.com\n  tags:\n" + lines)


def test_reserved_tag_prefixes() -> None:
    problems = _problems(_tags("    aws:createdBy: me\n    AWS:x: y\n    seedance:fleet: web\n    team: ml\n"))
    assert [p.split(": ", 2)[2] for p in problems] == [
        "tag keys starting with 'aws:' are reserved for AWS, got 'aws:createdBy'",
        "tag keys starting with 'aws:' are reserved for AWS, got 'AWS:x'",
        "tag keys starting with 'seedance:' are set by Seedance itself, got 'seedance:fleet'",
    ]


def test_tag_count_leaves_room_for_seedance_tags() -> None:
    fits = "".join(f"    t{i}: v\n" for i in range(38))
    assert len(load_policy_text(_tags(fits)).metadata.tags) == 38
    # the user's own team/cost-center replace Seedance's defaults, so they cost no extra room
    assert len(load_policy_text(_tags(fits + "    team: ml\n    cost-center: CC-1\n")).metadata.tags) == 40
    (problem,) = _problems(_tags(fits + "    one-more: v\n"))
    assert "metadata.tags: expected at most 38 tags: AWS allows 50 per resource and Seedance adds 12 of its own" in problem
    assert problem.endswith("got 39")


def test_an_empty_tag_value_is_refused() -> None:
    # CloudTrail refuses it (TagValue min 1) and the provider drops an empty default tag
    (problem,) = _problems(_tags("    legacy-id: ''\n"))
    assert "metadata.tags.legacy-id" in problem and "at least 1 character" in problem
    assert load_policy_text(_tags("    legacy-id: x\n")).metadata.tags == {"legacy-id": "x"}


def _windows(n: int) -> str:
    # n one-hour windows two hours apart through the week: none overlaps or touches another
    crons = [f"0 {h} * * {d}" for d in range(7) for h in range(0, 24, 2)][:n]
    windows = "".join(f"      - {{cron: '{c}', hours: 1, desired: 1}}\n" for c in crons)
    return MINIMAL.replace("workload: api", "workload: batch") + "    offPeak:\n" + windows


def test_off_peak_windows_fit_the_groups_125_scheduled_actions() -> None:
    assert len(load_policy_text(_windows(62)).fleets[0].off_peak) == 62
    (problem,) = _problems(_windows(63))
    assert "fleets[0].offPeak" in problem and "at most 62" in problem


@pytest.mark.parametrize(("expire", "valid"), [(60, False), (61, True)])
def test_expiry_must_come_after_the_glacier_transition(expire: int, valid: bool) -> None:
    # S3 refuses an expiration on the day of a transition: 30 days hot + 30 warm -> Glacier on day 60
    text = MINIMAL + f"storage:\n  checkpointBuckets: [{{name: ck, hotDays: 30, warmDays: 30, expireDays: {expire}}}]\n"
    if valid:
        assert load_policy_text(text).storage.checkpoint_buckets[0].expire_days == expire
    else:
        (problem,) = _problems(text)
        assert problem.endswith("expiry (day 60) must come after the Glacier transition (day 60); drop 'warmDays' or expire later")


@pytest.mark.parametrize(("model", "valid"), [("K80", False), ("T4", True)])
def test_a_gpu_the_node_image_cannot_drive_is_refused(model: str, valid: bool) -> None:
    text = MINIMAL.replace("cpu: {vcpu: 4, memoryGib: 16}", f"gpu: {{model: {model}, count: 1}}")
    if valid:
        assert load_policy_text(text).fleets[0].gpu.model.value == model
    else:
        (problem,) = _problems(text)
        assert "fleets[0].gpu.model" in problem and "does not support Kepler GPUs" in problem


@pytest.mark.parametrize("region", ["us-gov-west-1", "us-gov-east-1"])
def test_a_region_of_a_partition_without_aws_budgets_is_refused(region: str) -> None:
    text = MINIMAL.replace("us-east-1", region)
    (problem,) = _problems(text)
    assert f"cloud.region: '{region}' is in the aws-us-gov partition, which Seedance does not deploy to" in problem
    assert "AWS Budgets" in problem


def test_mlps_outside_china_is_refused_where_it_is_declared() -> None:
    # the gate could only ever block it, and its off-site copies would have no China partner region
    text = MINIMAL.replace("budget:\n", "compliance:\n  frameworks: [mlps-l3]\nbudget:\n")
    (problem,) = _problems(text)
    assert "compliance.frameworks[0]: mlps-l3 keeps data in mainland China; us-east-1 is not a China region" in problem


@pytest.mark.parametrize(("arn", "error"), [
    ("arn:aws:cloudtrail:us-east-1:999988887777:trail/org-trail", None),  # an organization trail of another account
    ("arn:aws-cn:cloudtrail:cn-north-1:999988887777:trail/org-trail",
     "compliance.existingTrail.arn: expected a trail of the aws partition (the stack's region us-east-1 is in it), got one of aws-cn"),
    ("arn:aws:cloudtrail:us-east-1:999988887777:org-trail", "compliance.existingTrail.arn"),  # no trail/ resource
    ("arn:aws:cloudtrail:us-east-1:999988887777:trail/ab", "compliance.existingTrail.arn"),  # CloudTrail's 3-character minimum
    ("arn:aws:cloudtrail:cn-north-1:999988887777:trail/org-trail",
     "compliance.existingTrail.arn: the trail's region 'cn-north-1' is not a region of the aws partition"),
    ("arn:aws:cloudtrail:mars-east-9:999988887777:trail/org-trail", "'mars-east-9' is not a region of the aws partition"),
    ("arn:aws:cloudtrail:us-east-1:999988887777:trail/a._b_.c", "trail name 'a._b_.c' is not one CloudTrail accepts"),
    ("arn:aws:cloudtrail:us-east-1:999988887777:trail/192.168.1.1", "trail name '192.168.1.1' is not one CloudTrail accepts"),
])
def test_an_existing_trail_is_a_trail_arn_of_the_stack_s_partition(arn: str, error: str | None) -> None:
    text = MINIMAL.replace("budget:\n", f"compliance:\n  existingTrail: {{arn: '{arn}'}}\nbudget:\n")
    if error is None:
        trail = load_policy_text(text).compliance.existing_trail
        assert trail is not None and trail.arn == arn and trail.s3_data_events is False
    else:
        (problem,) = _problems(text)
        assert error in problem


# ---------------------------------------------------------------- messages


def test_float_for_an_integer_shows_the_float() -> None:
    (problem,) = _problems(MINIMAL.replace("max: 4}", "max: 4.0}"))
    assert problem.endswith("fleets[0].capacity.max (fleet 'web'): expected an integer, got 4.0")


def test_threshold_given_as_a_percentage_gets_a_hint() -> None:
    (problem,) = _problems(MINIMAL.replace("monthlyAmount: 1000", "monthlyAmount: 1000\n  thresholds:\n    - {at: 80, action: notify}"))
    assert problem.endswith("expected a number in (0, 1], got 80 (thresholds are fractions of the monthly budget: write 0.8 for 80%)")


def test_at_most_fifty_checkpoint_buckets() -> None:
    # an audit: 130 personal-data buckets under MLPS put 262 values in the trail's data-event selector
    # (CloudTrail takes 250) and 26 KB in the access-log archive's bucket policy (S3 takes 20 KB)
    def policy(n: int) -> str:
        buckets = "".join(f"\n    - {{name: b{i}, dataClass: personal}}" for i in range(n))
        return MINIMAL + f"storage:\n  checkpointBuckets:{buckets}\n"
    (problem,) = _problems(policy(51))
    assert problem.endswith("storage.checkpointBuckets: expected at most 50 checkpoint buckets, got 51: the stack's trail "
                            "logs the data events of each personal-data bucket and its off-site copy (CloudTrail takes at "
                            "most 250 per trail), and the access-log archive's bucket policy names every bucket it logs "
                            "(S3 takes at most 20 KB: about 95 buckets of the longest names)")
    assert len(load_policy_text(policy(50)).storage.checkpoint_buckets) == 50


def test_thresholds_aws_would_round_alike_are_refused() -> None:
    # BudgetGuard creates each notification at the threshold's percentage with four decimals (an
    # audit): 0.5 and 0.5000001 were both 50%, one notification twice, and 1e-07 was 0%
    thresholds = "\n  thresholds:\n    - {at: 0.0000001, action: notify}\n    - {at: 0.5, action: notify}\n" \
                 "    - {at: 0.5000001, action: degrade}\n    - {at: 0.500002, action: freeze}"
    first, second = _problems(MINIMAL.replace("monthlyAmount: 1000", "monthlyAmount: 1000" + thresholds))
    assert first.endswith("budget.thresholds[0].at: expected at least 0.000001: AWS Budgets gets a threshold as a "
                          "percentage with four decimals, and this one as 0%, got 1e-07")
    assert second.endswith("budget.thresholds[2].at: expected at least 0.000001 above the threshold before (0.5): AWS "
                           "Budgets gets both as 50%, a percentage with four decimals, got 0.5000001")


@pytest.mark.parametrize("written", ["2:00", "010", "0x4", "0o4", "0b100", "1_0", "1:30.5", "1_000.5"])
def test_yaml_1_1_number_forms_are_not_numbers(written: str) -> None:
    # YAML 1.1 reads 2:00 as 120 (base 60) and 010 as 8: a policy takes plain decimals only
    (problem,) = _problems(MINIMAL.replace("max: 4}", f"max: {written}}}"))
    assert problem.endswith(f"fleets[0].capacity.max (fleet 'web'): expected an integer, got '{written}' (a policy reads "
                            "plain decimal numbers only (no base 60, octal, hex, binary or '_'))")


@pytest.mark.parametrize(("written", "hint"), [("1e3", "1.0e+3"), ("1.5e3", "1.5e+3"), ("1.e3", "1.0e+3"),
                                             ("5e-1", "5.0e-1"), ("2.5E2", "2.5e+2")])
def test_an_exponent_without_a_dot_or_a_sign_gets_a_hint(written: str, hint: str) -> None:
    # YAML 1.1 reads a float only with a point and a signed exponent: 1.5e3 is text as 1e3 is
    (problem,) = _problems(MINIMAL.replace("monthlyAmount: 1000", f"monthlyAmount: {written}"))
    assert problem.endswith(f"expected a number, got '{written}' (YAML reads an exponent without a decimal point or a "
                            f"sign as text: write {hint})")
    assert load_policy_text(MINIMAL.replace("monthlyAmount: 1000", f"monthlyAmount: {hint}")).budget.monthly_amount > 0


def test_an_explicit_float_tag_is_a_number() -> None:
    for written in ("!!float 1000", "!!float '1000'", "!!float 1e3"):
        assert load_policy_text(MINIMAL.replace("monthlyAmount: 1000", f"monthlyAmount: {written}")).budget.monthly_amount == 1000


def test_plain_decimals_are_numbers() -> None:
    text = MINIMAL.replace("max: 4}", "max: +4}").replace("monthlyAmount: 1000", "monthlyAmount: 1000.50")
    policy = load_policy_text(text)
    assert (policy.fleets[0].capacity.max, policy.budget.monthly_amount) == (4, 1000.5)


@pytest.mark.parametrize(
    ("autoscaling", "message"),
    [
        ("{metric: http_requests/second, target: 1}", "expected a metric name kubernetes takes (no '/' or '%', not '.' or '..'), got 'http_requests/second'"),
        ("{metric: '..', target: 1}", "got '..'"),
        ("{metric: rps, target: 0.0000001}", "expected a number in [1e-06, 1e+15], got 1e-07"),
    ],
)
def test_hpa_metric_names_and_targets_kubernetes_takes(autoscaling: str, message: str) -> None:
    # the API server refuses a metric name with '/' or '%' (a path segment) and a target of 0
    (problem,) = _problems(MINIMAL + f"    autoscaling: {autoscaling}\n")
    assert "fleets[0].autoscaling." in problem and message in problem.lower(), problem


@pytest.mark.parametrize(
    ("key", "message"),
    [
        ("a" * 64 + ".com/x", "expected a Kubernetes key"),
        (".".join(["b" * 60] * 5) + "/x", "expected a prefix of at most 253 characters before '/' (a DNS subdomain), got 304"),
    ],
)
def test_taint_keys_kubernetes_refuses(key: str, message: str) -> None:
    # each DNS label of the prefix is at most 63 characters, the prefix at most 253
    (problem,) = _problems(MINIMAL + f"    taints: [{{key: '{key}', value: v, effect: NoSchedule}}]\n")
    assert "fleets[0].taints[0].key" in problem and message in problem, problem


def test_a_date_and_time_stays_as_written() -> None:
    # a tag value is the text written, not Python's form of it; a date field's error quotes it too
    text = MINIMAL.replace("  owner: dev@example.com\n", "  owner: dev@example.com\n  tags:\n    release: 2024-01-01 10:00:00Z\n")
    assert load_policy_text(text).metadata.tags["release"] == "2024-01-01 10:00:00Z"
    waiver = "waivers:\n  - {control: GDPR-44-1, resource: x, reason: vendor migration, approver: a@example.com, expires: 2030-01-01 10:00:00}\n"
    (problem,) = _problems(MINIMAL + waiver)
    assert problem.endswith("got '2030-01-01 10:00:00'"), problem


def test_unquoted_yaml_boolean_word_gets_a_hint() -> None:
    (problem,) = _problems(MINIMAL.replace("environment: dev", "environment: NO"))
    assert problem.endswith("got false (YAML reads an unquoted yes/no/on/off/true/false as a boolean; quote the value)")


# ---------------------------------------------------------------- overlays


def test_an_empty_list_in_an_overlay_is_an_error_naming_remove(tmp_path: Path) -> None:
    (tmp_path / "base.yaml").write_text(MINIMAL)
    p = tmp_path / "prod.yaml"
    p.write_text("apiVersion: seedance.io/v1\nkind: CostPolicy\nextends: base.yaml\nfleets: []\n")
    with pytest.raises(PolicyError) as exc:
        load_policy(p)
    assert str(exc.value) == (
        f"{p}:4:9: fleets: an empty list does not clear the base policy's items ('web'): items merge by name; "
        "drop one with {name: X, $remove: true}"
    )


def test_an_empty_overlay_list_over_an_empty_or_plain_list_is_fine(tmp_path: Path) -> None:
    (tmp_path / "base.yaml").write_text(MINIMAL + "waivers: []\n")
    p = tmp_path / "prod.yaml"
    p.write_text("apiVersion: seedance.io/v1\nkind: CostPolicy\nextends: base.yaml\nwaivers: []\ncloud:\n  subnetIds: [subnet-0123456789abcdef1]\n")
    assert load_policy(p).policy.cloud.subnet_ids == ["subnet-0123456789abcdef1"]


@pytest.mark.parametrize(("text", "expected"), [
    # a chain of merges keeps the nearest value: c merges big, which overrides what it merges from base
    (b"base: &base {k: 1, j: 1}\nbig: &big {<<: *base, k: 2}\nc: {<<: *big}\n", {"k": 2, "j": 1}),
    (b"base: &base {k: 1}\nbig: &big {<<: *base, k: 2}\nc: {<<: *big, k: 3}\n", {"k": 3}),
    # earlier mappings of a merge list win over later ones, each with its own merges behind it
    (b"a: &a {k: 1}\nb: &b {<<: *a, k: 2, j: 2}\nc: {<<: [*a, *b]}\n", {"k": 1, "j": 2}),
    # an inline anchored mapping that merges, merged again and aliased: no false duplicate
    (b"z: &z {x: 0}\nc: {<<: &a {x: 1, <<: *z}}\nd: *a\n", {"x": 1}),
])
def test_chained_merges_resolve_by_precedence(text: bytes, expected: dict) -> None:
    tree = parse("m.yaml", text)
    assert tree["c"] == expected


@pytest.mark.parametrize(("text", "message"), [
    (b"a: &a {x: 1}\nc: {<<: !custom {y: 2}}\n", "YAML tag '!custom' is not allowed on a mapping"),
    (b"c: {<<: [1, 2]}\n", "invalid merge key: '<<' takes a mapping or a list of mappings"),
    (b"c: {<<: {<<: {x: 1}, <<: {y: 1}}}\n", "duplicate merge key '<<'"),
])
def test_merge_sources_are_checked(text: bytes, message: str) -> None:
    with pytest.raises(PolicyError) as exc:
        parse("m.yaml", text)
    assert message in str(exc.value)


def test_an_unversioned_bucket_needs_no_noncurrent_setting() -> None:
    """The default noncurrent expiry does not apply to an unversioned bucket (an explicit one is an
    error: tests/policy/invalid/noncurrent_without_versioning.yaml), and none is deployed."""
    from components.storage import lifecycle_days

    text = MINIMAL + "\nstorage:\n  checkpointBuckets:\n    - {name: ckpt, versioning: false}\n"
    (bucket,) = load_policy_text(text).storage.checkpoint_buckets
    assert lifecycle_days(bucket).noncurrent_expire is None
    versioned = load_policy_text(text.replace("versioning: false", "versioning: true")).storage.checkpoint_buckets[0]
    assert lifecycle_days(versioned).noncurrent_expire == 30


@pytest.mark.parametrize(("cidr", "expected"), [
    ("300.0.0.0/16", "expected an IPv4 CIDR such as 10.0.0.0/16 (each address byte 0-255, prefix 0-32), got '300.0.0.0/16'"),
    ("10.0.0.0/99", "expected an IPv4 CIDR such as 10.0.0.0/16 (each address byte 0-255, prefix 0-32), got '10.0.0.0/99'"),
    ("10.0.0.0/8", "expected a VPC block from /16 to /28 (the sizes AWS allows for a VPC), got '10.0.0.0/8'"),
    ("10.0.0.0/29", "expected a VPC block from /16 to /28 (the sizes AWS allows for a VPC), got '10.0.0.0/29'"),
    ("10.0.0.1/8", "expected a VPC block from /16 to /28 (the sizes AWS allows for a VPC), got '10.0.0.1/8'"),
    ("10.1.2.0/16", "expected the network address with its host bits zero (10.1.0.0/16), got '10.1.2.0/16'"),
])
def test_vpc_cidr_is_a_network_aws_accepts_for_a_vpc(cidr: str, expected: str) -> None:
    # it becomes the interface endpoints' security-group rule: a malformed one only fails at apply
    text = MINIMAL.replace("cloud:\n", f"cloud:\n  vpcCidr: {cidr}\n", 1)
    assert [p.split(": ", 2)[-1] for p in _problems(text)] == [expected]


@pytest.mark.parametrize("cidr", ["10.0.0.0/16", "172.31.0.0/16", "192.168.4.0/24", "10.8.0.16/28"])
def test_vpc_cidr_accepts_vpc_networks(cidr: str) -> None:
    policy = load_policy_text(MINIMAL.replace("cloud:\n", f"cloud:\n  vpcCidr: {cidr}\n", 1), file="p.yaml")
    assert policy.cloud.vpc_cidr == cidr


# ---------------------------------------------------------------- rules the components also enforce (red team)


def test_tags_seedance_sets_are_refused_unless_they_repeat_its_value() -> None:
    problems = _problems(_tags("    owner: finops\n    environment: prod\n    purpose: training\n    data-class: public\n"))
    assert [p.split(": ", 2)[1:] for p in problems] == [
        ["metadata.tags.owner", "tag 'owner' is set by Seedance from metadata.owner ('dev@example.com'), so 'finops' "
                                "would never be applied; remove it or set metadata.owner"],
        ["metadata.tags.environment", "tag 'environment' is set by Seedance from metadata.environment ('dev'), so 'prod' "
                                      "would never be applied; remove it or set metadata.environment"],
        ["metadata.tags.purpose", "tag 'purpose' is set by Seedance on each resource (what the resource is for), so "
                                  "this value would never be applied; remove it"],
        ["metadata.tags.data-class", "tag 'data-class' is set by Seedance on each resource (the data class of what it "
                                     "holds), so this value would never be applied; remove it"],
    ]
    # repeating the metadata's own value is harmless
    assert load_policy_text(_tags("    owner: dev@example.com\n    environment: dev\n")).metadata.tags["owner"] == \
        "dev@example.com"


@pytest.mark.parametrize(("arn", "error"), [
    ("arn:aws:kms:us-east-1:111122223333:key/7f1c2a4e-0d1b-4c55-9a31-2b6f0e8d1c10", None),
    ("arn:aws:kms:us-east-1:111122223333:alias/platform", None),
    ("arn:aws:kms:eu-central-1:111122223333:key/7f1c2a4e-0d1b-4c55-9a31-2b6f0e8d1c10",
     "compliance.kmsKeyArn: expected a key in the stack's region us-east-1 (EBS, S3 and CloudWatch Logs take only a "
     "KMS key of their own region), got one in eu-central-1"),
    ("arn:aws-cn:kms:cn-north-1:111122223333:key/7f1c2a4e-0d1b-4c55-9a31-2b6f0e8d1c10",
     "compliance.kmsKeyArn: expected a key of the aws partition (the stack's region us-east-1 is in it), got one of aws-cn"),
])
def test_the_kms_key_is_of_the_stack_s_region(arn: str, error: str | None) -> None:
    text = MINIMAL.replace("budget:\n", f"compliance:\n  kmsKeyArn: {arn}\nbudget:\n")
    if error is None:
        assert load_policy_text(text).compliance.kms_key_arn == arn
    else:
        (problem,) = _problems(text)
        assert error in problem


def test_priorities_must_rank_the_tiers() -> None:
    text = MINIMAL + "scheduling:\n  priorities: {gold: 1000, silver: 100000, bronze: 1000000}\n"
    (problem,) = _problems(text)
    assert problem.endswith("scheduling.priorities: expected gold > silver > bronze, got 1000/100000/1000000")
    assert load_policy_text(MINIMAL + "scheduling:\n  priorities: {gold: 3, silver: 2, bronze: 1}\n").scheduling.priorities.gold == 3


def test_unencrypted_volumes_only_for_public_data() -> None:
    (problem,) = _problems(_storage("    - {name: scratch, tier: gp3, encrypted: false}\n"))
    assert "storage.classes[0].encrypted (storage class 'scratch'): unencrypted volumes are only allowed for public " \
           "data, got dataClass internal" in problem
    assert load_policy_text(_storage("    - {name: scratch, tier: gp3, encrypted: false, dataClass: public}\n"))


_CN = (MINIMAL.replace("us-east-1", "cn-north-1").replace("monthlyAmount: 1000", "monthlyAmount: 1000\n  currency: CNY")
       .replace("budget:\n", "compliance:\n  frameworks: [mlps-l3]\n  dataResidency: [cn-north-1]\nbudget:\n"))


def test_mlps_off_site_copies_need_their_region_allowed_and_versioned_buckets() -> None:
    # MLPS 2.0 level 3 copies personal data to the partner region (cn-northwest-1): synthesis refused
    # these, so the gate was undecided where validate said valid
    (problem,) = _problems(_CN)
    assert "compliance.dataResidency: expected the off-site backup region cn-northwest-1 among ['cn-north-1']" in problem
    ok = _CN.replace("dataResidency: [cn-north-1]", "dataResidency: ['cn-*']")
    assert load_policy_text(ok).compliance.data_residency == ["cn-*"]
    bucket = ok + ("storage:\n  checkpointBuckets:\n    - {name: datasets, dataClass: personal, versioning: false, "
                   "noncurrentExpireDays: null}\n")
    (problem,) = _problems(bucket)
    assert "storage.checkpointBuckets[0].versioning (bucket 'datasets'): expected true: bucket 'datasets' holds " \
           "personal data, which MLPS 2.0 level 3 copies off site to cn-northwest-1" in problem
    assert load_policy_text(bucket.replace("dataClass: personal", "dataClass: internal"))


@pytest.mark.parametrize("ch", ["\u2028", "\u2029", "\x85"])
def test_a_line_break_only_yaml_sees_is_refused_at_the_line_editors_show(ch: str) -> None:
    # PyYAML breaks lines at these; every later line number would be one off what an editor shows
    text = MINIMAL.replace("  environment: dev\n", f"  environment: dev  # a comment{ch}with a break\n")
    with pytest.raises(PolicySyntaxError) as exc:
        load_policy_text(text, file="p.yaml")
    (problem,) = exc.value.problems
    assert (problem.location.line, problem.location.column) == (5, 32)
    assert f"U+{ord(ch):04X}" in problem.message and "YAML reads it as a line break" in problem.message
    assert load_policy_text(text.replace(ch, " ")).metadata.environment.value == "dev"


@pytest.mark.parametrize(("owner", "valid"), [
    ("josé@example.com", True),            # a precomposed letter: AWS takes it
    ("jose\u0301@example.com", False),     # the same name decomposed: a combining mark AWS refuses
    ("राम@example.com", False),            # a Devanagari vowel sign (a mark)
    ("a\u200db@example.com", False),       # a zero-width joiner
    ("x\u203fy@example.com", False),       # connector punctuation other than _
    ("山田@example.jp", True),
])
def test_owner_and_tags_take_only_what_aws_takes_in_a_tag(owner: str, valid: bool) -> None:
    # IAM's and CloudWatch Logs' tag pattern is [\p{L}\p{Z}\p{N}_.:/=+\-@]*; \w also matched marks and
    # joiners, so such an owner passed validation and failed at deploy (the owner tags roles and log groups)
    text = MINIMAL.replace("  owner: dev@example.com\n", f"  owner: '{owner}'\n")
    if valid:
        assert load_policy_text(text).metadata.owner == owner
    else:
        (problem,) = _problems(text)
        assert "metadata.owner" in problem
    tagged = _tags(f"    contact: '{owner}'\n")
    if valid:
        assert load_policy_text(tagged).metadata.tags["contact"] == owner
    else:
        (problem,) = _problems(tagged)
        assert "metadata.tags.contact" in problem


@pytest.mark.parametrize(("text", "error"), [
    # a quote never closed: found at the end of the file, started on line 2
    (b"a: 1\nb: \"unclosed\nc: 2\n", "m.yaml:4:1: (document): YAML syntax error: found unexpected end of stream (while scanning a "
                                     "quoted scalar that starts at line 2, column 4)"),
    # 'owner:x' with no space is a plain scalar, found out on the next line
    (b"metadata:\n  name: x\n  owner:a@example.com\ncloud: {}\n",
     "m.yaml:4:1: (document): YAML syntax error: could not find expected ':' (while scanning a simple key that starts "
     "at line 3, column 3)"),
])
def test_a_yaml_syntax_error_names_where_its_construct_starts(text: bytes, error: str) -> None:
    with pytest.raises(PolicySyntaxError) as exc:
        parse("m.yaml", text)
    assert str(exc.value) == error


def test_every_key_given_twice_is_reported_at_once() -> None:
    # the first stopped the reading: a second and a third were found one fix at a time
    text = b"a: 1\nb:\n  c: 1\n  c: 2\na: 3\nd: [ {x: 1, x: 2} ]\n"
    with pytest.raises(PolicySyntaxError) as exc:
        parse("m.yaml", text)
    assert [str(p) for p in exc.value.problems] == [
        "m.yaml:4:3: b.c: duplicate key 'c' (first defined at line 3)",
        "m.yaml:5:1: a: duplicate key 'a' (first defined at line 1)",
        "m.yaml:6:13: d[0].x: duplicate key 'x' (first defined at line 6)",
    ]
