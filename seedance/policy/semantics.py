"""Cross-field rules of the language (layer four of validation).

Each rule returns the path of the offending field (YAML spelling) and a message, so the
loader can point at the exact line.  Compliance findings (a region outside the residency
list, a gold fleet without on-demand base, ...) are *not* here: they belong to the gate.
"""

from __future__ import annotations

import datetime as dt
import difflib
import fnmatch
import functools
import importlib.resources
import json
import logging
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import TypeAdapter, ValidationError

from seedance.awsnames import (
    CHECKPOINT_BUCKETS,
    IP_ADDRESS,
    REPLICA_SUFFIX,
    S3_BUCKET_NAME_MAX,
    TRAIL_NAME,
    budget_threshold_percent,
    checkpoint_bucket_name_max,
    partition,
)
from seedance.offsite import PARTNER_REGIONS
from seedance.gpus import NEURON_MODELS, GpuModel, mig_memory_sizes_of, mig_profiles
from seedance.textfile import path_kind
from seedance.policy.cron import CronError, Window, first_clash, format_minute_of_week, parse_window_cron
from seedance.policy.model import (
    BindingMode,
    Budget,
    Cloud,
    Compliance,
    CostPolicy,
    Currency,
    DataClass,
    EndpointService,
    Framework,
    LOG_RETENTION_DAYS,
    MAX_BUDGET_THRESHOLDS,
    MIN_BACKUP_RETENTION_DAYS,
    Fleet,
    Metadata,
    Network,
    ReservedMode,
    SERVING_WORKLOADS,
    Scheduling,
    Storage,
    TERM_YEARS,
    StorageTier,
    TagValue,
    Waiver,
    Workload,
    backed_up_classes,
    services_without_route,
)

log = logging.getLogger(__name__)

Loc = tuple[str | int, ...]
#: A problem at a field, with the message; a comparison also names the other field it compares,
#: which an overlay may set in another file than the field reported (the loader then says where)
Issue = tuple[Loc, str] | tuple[Loc, str, Loc]

# gp3's ranges as EC2's CreateVolume documents them in the installed botocore's service model
# (3,000-80,000 IOPS, 125-2,000 MiB/s, 1-65,536 GiB; raised from 16,000 and 1,000 in 2025)
GP3_MAX_IOPS = 80_000
GP3_MAX_THROUGHPUT = 2_000
GP3_BASELINE_IOPS = 3_000  # included with every gp3 volume, whatever its size
GP3_MAX_IOPS_PER_GIB = 500  # AWS: at most 500 provisioned IOPS per GiB
GP3_MAX_MIBPS_PER_IOPS = 0.25  # AWS: at most 0.25 MiB/s of throughput per provisioned IOPS
IO2_MAX_IOPS_PER_GIB = 1_000  # AWS: io2 Block Express, at most 1000 IOPS per GiB
IO2_MIN_SIZE_GIB = 4
#: AWS: at most 50 user tags per resource; keys starting with "aws:" are AWS's own.
AWS_MAX_TAGS = 50
#: The tag keys Seedance itself puts on a resource (components/common.py TagSet, the
#: ``seedance:spot-interruption`` tag of an Auto Scaling group): they count towards AWS's 50.
SEEDANCE_TAG_KEYS = (
    "environment", "owner", "team", "cost-center", "controller", "purpose", "data-class",
    "seedance:stack", "seedance:policy", "seedance:fleet", "seedance:sla", "seedance:spot-interruption",
)
#: tags Seedance sets per resource (components.common.TagSet.for_resource): a policy's value never applies
PER_RESOURCE_TAGS = {"purpose": "what the resource is for", "data-class": "the data class of what it holds"}
#: tags Seedance sets from the metadata field of their name (TagSet.from_policy): a policy tag may repeat, not
#: contradict, it
METADATA_TAGS = {"environment": lambda m: m.environment.value, "owner": lambda m: m.owner}
S3_MIN_DAYS_BEFORE_IA = 30  # S3 refuses a Standard-IA transition before 30 days
S3_MIN_DAYS_IN_IA = 30


def _dupes(names: list[str]) -> Iterator[int]:
    seen: set[str] = set()
    for i, n in enumerate(names):
        if n in seen:
            yield i
        seen.add(n)


@dataclass(frozen=True)
class Parts:
    """The parts of a policy that passed the schema, for the rules that need only them.

    A whole valid policy has every part; when the schema rejects some part, the loader still
    checks the others (so one document's errors come at once) and leaves out the rules that
    would need the rejected part.  ``fleets`` pairs each schema-valid fleet with its index in
    the document.
    """

    metadata: Metadata | None = None
    cloud: Cloud | None = None
    compliance: Compliance | None = None
    budget: Budget | None = None
    fleets: list[tuple[int, Fleet]] = field(default_factory=list)
    storage: Storage | None = None
    scheduling: Scheduling | None = None
    network: Network | None = None

    @classmethod
    def of(cls, p: CostPolicy) -> Parts:
        return cls(p.metadata, p.cloud, p.compliance, p.budget, list(enumerate(p.fleets)), p.storage, p.scheduling,
                   p.network)


def check(policy: CostPolicy, base_dir: Path | None = None) -> list[Issue]:
    """All cross-field problems of a schema-valid policy."""
    return check_parts(Parts.of(policy), base_dir)


def check_parts(parts: Parts, base_dir: Path | None = None) -> list[Issue]:
    """The cross-field problems of the parts given (see :class:`Parts`)."""
    out: list[Issue] = []
    if parts.metadata is not None:
        out += _metadata(parts.metadata)
    if parts.cloud is not None:
        out += _cloud(parts.cloud)
    if parts.compliance is not None:
        out += _compliance(parts.compliance)
    if parts.compliance is not None and parts.cloud is not None:
        out += _framework_regions(parts.compliance, parts.cloud)
        out += _existing_trail(parts.compliance, parts.cloud)
        out += _kms_key(parts.compliance, parts.cloud)
        out += _off_site(parts.compliance, parts.cloud, parts.storage)
    if parts.budget is not None:
        out += _budget(parts.budget, parts.cloud.region if parts.cloud is not None else None)
    out += _fleets(parts.fleets, base_dir)
    if parts.storage is not None:
        out += _storage(parts.storage)
    if parts.storage is not None and parts.compliance is not None:
        out += _backup_retention(parts.storage, parts.compliance)
        out += _bucket_names(parts.storage, parts.compliance)
    if parts.scheduling is not None:
        out += _scheduling(parts.scheduling)
    if parts.network is not None:
        out += _network(parts.network)
    return out


#: Why every node reaches the services of model.NODE_SERVICES
NODE_NEEDS = {EndpointService.ECR_API: "which every node needs for its image pull credentials",
              EndpointService.ECR_DKR: "which every node pulls images from",
              EndpointService.STS: "which IAM roles for service accounts need",
              EndpointService.EC2: "which every node's VPC CNI plugin assigns pod addresses through"}


def _network(n: Network) -> list[Issue]:
    """Existing endpoints (``network.existingEndpoints``): each service once, and none the stack is also
    told to create (``network.endpoints``): AWS refuses a second private-DNS interface endpoint for a
    service in one VPC, and a route table holds one gateway endpoint per service."""
    existing = [s.value for s in n.existing_endpoints]
    twice = set(_dupes(existing))
    out: list[Issue] = [(("network", "existingEndpoints", i), f"{existing[i]} listed twice") for i in sorted(twice)]
    stranded = services_without_route(n)
    if stranded:
        traffic = [s.value for s in stranded if n.monthly_traffic_gb.get(s, 0) > 0]
        reasons = ([f"{', '.join(traffic)} (traffic in network.monthlyTrafficGb)"] if traffic else []) + [
            f"{s.value} ({NODE_NEEDS[s]})" for s in stranded if s.value not in traffic]
        out.append((("network", "natGateways"),
                    f"expected at least 1: with no NAT gateway the nodes would have no route to {', '.join(reasons)}; "
                    f"add {'it' if len(stranded) == 1 else 'them'} to network.endpoints (or to network.existingEndpoints "
                    "where the VPC has an endpoint already), or set endpoints: auto, which takes an endpoint for each when "
                    "there is no NAT gateway", ("network", "endpoints")))
    if n.endpoints == "auto":
        return out
    listed = [s.value for s in n.endpoints]  # type: ignore[union-attr]
    for i, service in enumerate(existing):
        if service in listed and i not in twice:
            j = listed.index(service)
            out.append((("network", "existingEndpoints", i),
                        f"{service} is also listed in network.endpoints, which makes the stack create an endpoint of its "
                        f"own beside the VPC's (AWS refuses a second private-DNS interface endpoint for a service in one "
                        f"VPC, and a route table holds one gateway endpoint per service): remove {service} from "
                        f"network.endpoints to use the VPC's endpoint, or from network.existingEndpoints if the VPC has "
                        f"none", ("network", "endpoints", j)))
    return out


#: Checkpoint buckets a stack may hold: its trail's data-event selector and its access-log archive's
#: bucket policy name each one, and both have a limit (see _bucket_names); 50 keeps them well within.
MAX_CHECKPOINT_BUCKETS = 50


def _bucket_names(s: Storage, c: Compliance) -> list[Issue]:
    """Checkpoint bucket names short enough for the S3 names Pulumi gives their buckets (and the
    off-site copies MLPS 2.0 level 3 makes of personal data), and none that an off-site copy's takes."""
    out: list[Issue] = []
    if len(s.checkpoint_buckets) > MAX_CHECKPOINT_BUCKETS:
        out.append((("storage", "checkpointBuckets"),
                    f"expected at most {MAX_CHECKPOINT_BUCKETS} checkpoint buckets, got {len(s.checkpoint_buckets)}: "
                    "the stack's trail logs the data events of each personal-data bucket and its off-site copy "
                    "(CloudTrail takes at most 250 per trail), and the access-log archive's bucket policy names "
                    "every bucket it logs (S3 takes at most 20 KB: about 95 buckets of the longest names)"))
    mlps = Framework.MLPS_L3 in c.frameworks
    replicated_names = {b.name: j for j, b in enumerate(s.checkpoint_buckets)
                        if mlps and b.data_class is DataClass.PERSONAL}
    for i, b in enumerate(s.checkpoint_buckets):
        source = b.name.removesuffix(REPLICA_SUFFIX)
        if b.name.endswith(REPLICA_SUFFIX) and source in replicated_names:
            out.append((("storage", "checkpointBuckets", i, "name"),
                        f"the off-site copy of bucket {source!r} takes this name ({CHECKPOINT_BUCKETS}-{b.name}: MLPS "
                        f"2.0 level 3 copies personal data off site to a bucket named after it and {REPLICA_SUFFIX!r}); "
                        f"choose another name",
                        ("storage", "checkpointBuckets", replicated_names[source], "name")))
        replicated = mlps and b.data_class is DataClass.PERSONAL
        longest = checkpoint_bucket_name_max(replicated)
        if len(b.name) > longest:
            copy = f" and its off-site copy {CHECKPOINT_BUCKETS}-{b.name}{REPLICA_SUFFIX}-xxxxxxx" if replicated else ""
            out.append((("storage", "checkpointBuckets", i, "name"),
                        f"at most {longest} characters{' for a replicated personal-data bucket' if replicated else ''}, "
                        f"got {len(b.name)}: Pulumi names the bucket {CHECKPOINT_BUCKETS}-{b.name}-xxxxxxx{copy}, and S3 "
                        f"bucket names hold at most {S3_BUCKET_NAME_MAX} characters"))
    return out


#: The check metadata.tags values pass (model.TagValue: AWS's tag value characters, 1-256 of them)
_TAG_VALUE = TypeAdapter(TagValue)


def _metadata(m: Metadata) -> list[Issue]:
    out: list[Issue] = []
    try:  # the owner is the value of the owner (and, by default, controller) tag of every tagged resource
        _TAG_VALUE.validate_python(m.owner)
    except ValidationError:
        shown = repr(m.owner) if len(m.owner) <= 60 else repr(m.owner)[:57] + "...'"
        out.append((("metadata", "owner"), f"expected an address AWS takes as a tag value (Seedance tags every resource "
                    f"owner=<metadata.owner>): at most 256 letters, digits, spaces and _ . : / = + - @, got {shown} "
                    f"({len(m.owner)} characters)"))
    for key in m.tags:
        if key.lower().startswith("aws:"):
            out.append((("metadata", "tags", key), f"tag keys starting with 'aws:' are reserved for AWS, got {key!r}"))
        elif key.lower().startswith("seedance:"):
            out.append((("metadata", "tags", key), f"tag keys starting with 'seedance:' are set by Seedance itself, got {key!r}"))
        elif key in PER_RESOURCE_TAGS:
            out.append((("metadata", "tags", key), f"tag {key!r} is set by Seedance on each resource ("
                        f"{PER_RESOURCE_TAGS[key]}), so this value would never be applied; remove it"))
        elif key in METADATA_TAGS and m.tags[key] != METADATA_TAGS[key](m):
            out.append((("metadata", "tags", key), f"tag {key!r} is set by Seedance from metadata.{key} "
                        f"({METADATA_TAGS[key](m)!r}), so {m.tags[key]!r} would never be applied; remove it or set "
                        f"metadata.{key}"))
    ours = [k for k in SEEDANCE_TAG_KEYS if k not in m.tags]
    allowed = AWS_MAX_TAGS - len(ours)
    if len(m.tags) > allowed:
        out.append(
            (
                ("metadata", "tags"),
                f"expected at most {allowed} tags: AWS allows {AWS_MAX_TAGS} per resource and Seedance adds "
                f"{len(ours)} of its own ({', '.join(ours)}), got {len(m.tags)}",
            )
        )
    return out


@functools.cache
def aws_regions() -> frozenset[str]:
    """Every region of every AWS partition, as the installed botocore's partition data lists them
    (``botocore/data/partitions.json``, which the SDKs share); empty when it cannot be read, and
    then no region is refused."""
    return frozenset(region_partitions())


#: The partitions Seedance deploys to. Others lack what every stack needs: botocore's endpoint data
#: gives AWS Budgets (the stack's budget guard, `budget poll`) no endpoint in aws-us-gov or aws-eusc.
SUPPORTED_PARTITIONS = ("aws", "aws-cn")


@functools.cache
def region_partitions() -> dict[str, str]:
    """Region -> its partition, from the installed botocore's partition data (empty when unreadable)."""
    try:
        data = json.loads(importlib.resources.files("botocore").joinpath("data/partitions.json").read_text("utf-8"))
        return {r: p["id"] for p in data["partitions"] for r in p["regions"] if not r.endswith("-global")}
    except (ImportError, OSError, ValueError, KeyError, TypeError) as exc:
        log.warning("cannot read botocore's partition data (%s): regions are not checked", exc)
        return {}


def _cloud(c: Cloud) -> list[Issue]:
    out: list[Issue] = []
    known = aws_regions()
    if known and c.region not in known:
        close = difflib.get_close_matches(c.region, sorted(known), n=3, cutoff=0.6)
        hint = f"; closest: {', '.join(close)}" if close else ""
        out.append((("cloud", "region"), f"expected an AWS region, got {c.region!r}, which no AWS partition has{hint} "
                    "(the regions the installed botocore lists: upgrade boto3 for a newer one)"))
    partition = region_partitions().get(c.region)
    if partition is not None and partition not in SUPPORTED_PARTITIONS:
        out.append((("cloud", "region"), f"{c.region!r} is in the {partition} partition, which Seedance does not deploy "
                    f"to: AWS Budgets, which every stack's budget guard needs, has no endpoint there (the installed "
                    f"botocore's endpoint data); expected a region of {' or '.join(SUPPORTED_PARTITIONS)}"))
    for i, az in enumerate(c.availability_zones):
        if az[:-1] != c.region:
            out.append((("cloud", "availabilityZones", i), f"zone {az!r} is not in region {c.region!r}"))
    for i in _dupes(c.availability_zones):
        out.append((("cloud", "availabilityZones", i), "zone listed twice"))
    for i in _dupes(c.subnet_ids):  # an interface endpoint given one subnet twice is refused by EC2
        out.append((("cloud", "subnetIds", i), "subnet listed twice"))
    return out


def _compliance(c: Compliance) -> list[Issue]:
    out: list[Issue] = [(("compliance", "frameworks", i), "framework listed twice") for i in _dupes([f.value for f in c.frameworks])]
    if c.log_retention_days not in LOG_RETENTION_DAYS:
        above = [d for d in LOG_RETENTION_DAYS if d >= c.log_retention_days]
        hint = f" (the next one up is {above[0]})" if above else ""
        out.append((("compliance", "logRetentionDays"),
                    f"expected a retention CloudWatch Logs offers ({', '.join(map(str, LOG_RETENTION_DAYS))}){hint}, "
                    f"got {c.log_retention_days}"))
    return out


def _existing_trail(c: Compliance, cloud: Cloud) -> list[Issue]:
    """An existing trail is a trail CloudTrail could have named, in a region of the stack's partition
    (its home region may be any: a multi-region trail records them all). Its account may differ from
    the stack's (an organization trail lives in the management account); the gate checks that with
    ``--lookup``."""
    if c.existing_trail is None:
        return []
    loc = ("compliance", "existingTrail", "arn")
    _, arn_partition, _, arn_region, _, resource = c.existing_trail.arn.split(":", 5)
    name = resource.removeprefix("trail/")
    expected = region_partitions().get(cloud.region) or partition(cloud.region)
    if arn_partition != expected:
        return [(loc, f"expected a trail of the {expected} partition (the stack's region {cloud.region} is in it), "
                      f"got one of {arn_partition}", ("cloud", "region"))]
    known = region_partitions()
    if known and known.get(arn_region) != arn_partition:
        return [(loc, f"the trail's region {arn_region!r} is not a region of the {arn_partition} partition")]
    if not TRAIL_NAME.fullmatch(name) or IP_ADDRESS.fullmatch(name):
        return [(loc, f"trail name {name!r} is not one CloudTrail accepts (letters, digits and single '.', '_' or '-' "
                      "between them; not an IP address)")]
    return []


def _kms_key(c: Compliance, cloud: Cloud) -> list[Issue]:
    """The stack's KMS key encrypts its volumes, buckets and log groups, which take only a key of their
    own region (KMS keys are regional): a key of another region or partition fails the deploy."""
    if c.kms_key_arn is None:
        return []
    _, arn_partition, _, arn_region, _ = c.kms_key_arn.split(":", 4)
    expected = region_partitions().get(cloud.region) or partition(cloud.region)
    if arn_partition != expected:
        return [(("compliance", "kmsKeyArn"), f"expected a key of the {expected} partition (the stack's region "
                 f"{cloud.region} is in it), got one of {arn_partition}", ("cloud", "region"))]
    if arn_region != cloud.region:
        return [(("compliance", "kmsKeyArn"), f"expected a key in the stack's region {cloud.region} (EBS, S3 and "
                 f"CloudWatch Logs take only a KMS key of their own region), got one in {arn_region}",
                 ("cloud", "region"))]
    return []


def _off_site(c: Compliance, cloud: Cloud, storage: Storage | None) -> list[Issue]:
    """MLPS 2.0 level 3's off-site copies (8.1.4.9 b) go to the partner region: it must be known and
    inside ``dataResidency``, and the personal-data buckets replicated there need versioning."""
    if Framework.MLPS_L3 not in c.frameworks or not cloud.region.startswith("cn-"):
        return []  # a non-China MLPS stack is refused by _framework_regions
    partner = PARTNER_REGIONS.get(cloud.region)
    if partner is None:
        return [(("cloud", "region"), f"no off-site backup region is known for {cloud.region} (MLPS 2.0 level 3 "
                 "off-site backup of personal data)")]
    out: list[Issue] = []
    if c.data_residency and not any(fnmatch.fnmatchcase(partner, g) for g in c.data_residency):
        out.append((("compliance", "dataResidency"), f"expected the off-site backup region {partner} among "
                    f"{c.data_residency}: MLPS 2.0 level 3 copies personal data to it (add {partner!r})"))
    for i, b in enumerate(storage.checkpoint_buckets if storage is not None else []):
        if b.data_class is DataClass.PERSONAL and not b.versioning:
            out.append((("storage", "checkpointBuckets", i, "versioning"), f"expected true: bucket {b.name!r} holds "
                        f"personal data, which MLPS 2.0 level 3 copies off site to {partner}, and S3 replication needs "
                        "versioning on"))
    return out


def _framework_regions(c: Compliance, cloud: Cloud) -> list[Issue]:
    """MLPS 2.0 level 3 keeps data in mainland China (MLPS-L3-8.2.4-DIC-a): a stack of another region
    could never pass its gate, and its off-site copies would have no partner region to go to."""
    return [(("compliance", "frameworks", i), f"mlps-l3 keeps data in mainland China; {cloud.region} is not a China "
             f"region (MLPS 2.0 level 3 stacks deploy to cn-north-1 or cn-northwest-1)", ("cloud", "region"))
            for i, f in enumerate(c.frameworks) if f is Framework.MLPS_L3 and not cloud.region.startswith("cn-")]


def _budget(b: Budget, region: str | None) -> list[Issue]:
    out: list[Issue] = []
    expected = Currency.CNY if region is not None and region.startswith("cn-") else Currency.USD
    if region is not None and b.currency != expected:
        out.append(
            (
                ("budget", "currency"),
                f"region {region} is billed in {expected.value}; expected {expected.value}, got {b.currency.value}",
            )
        )
    if len(b.thresholds) > MAX_BUDGET_THRESHOLDS:
        out.append((("budget", "thresholds"),
                    f"expected at most {MAX_BUDGET_THRESHOLDS} thresholds (AWS Budgets allows {MAX_BUDGET_THRESHOLDS} "
                    f"notifications per budget, one per threshold), got {len(b.thresholds)}"))
    if region is not None and b.notify.sns_topic_arn:
        part = partition(region)
        if not b.notify.sns_topic_arn.startswith(f"arn:{part}:sns:"):
            out.append((("budget", "notify", "snsTopicArn"),
                        f"region {region} is in the {part} partition; expected an arn:{part}:sns: topic, "
                        f"got {b.notify.sns_topic_arn}"))
    prev = 0.0
    for i, t in enumerate(b.thresholds):
        if t.at <= prev:
            out.append(
                (("budget", "thresholds", i, "at"), f"thresholds must be strictly ascending: expected > {prev:g}, got {t.at:g}")
            )
        elif budget_threshold_percent(t.at) == budget_threshold_percent(prev):
            # AWS Budgets gets each threshold as a percentage with four decimals: two that round
            # alike would be the same notification twice (and 0% would be no threshold)
            pct = f"{budget_threshold_percent(t.at):g}%"
            out.append((("budget", "thresholds", i, "at"),
                        f"expected at least 0.000001 above the threshold before ({prev!r}): AWS Budgets gets both as "
                        f"{pct}, a percentage with four decimals, got {t.at!r}" if i else
                        f"expected at least 0.000001: AWS Budgets gets a threshold as a percentage with four decimals, "
                        f"and this one as {pct}, got {t.at!r}"))
        prev = max(prev, t.at)
    return out


#: Namespaces other software owns (besides ``default`` and ``kube-*``): a fleet must not take one over.
SYSTEM_NAMESPACES = frozenset({"gpu-operator", "amazon-cloudwatch", "cert-manager"})


#: GPUs the fleets' node image cannot drive: nodes would start and bill, and no GPU pod would run.
UNSUPPORTED_GPUS = {
    GpuModel.K80: "K80 (p2) nodes would boot the EKS-optimised AL2023 NVIDIA AMI, whose driver does not support "
                  "Kepler GPUs (NVIDIA's support ended with the R470 driver; EKS lists no p2 for the AMI): "
                  "choose T4 (g4dn) or newer",
}


def _fleets(fleets: list[tuple[int, Fleet]], base_dir: Path | None) -> list[Issue]:
    out: list[Issue] = []
    for k in _dupes([f.name for _, f in fleets]):
        i, f = fleets[k]
        out.append((("fleets", i, "name"), f"fleet name {f.name!r} is used twice"))
    for i, f in fleets:
        at = ("fleets", i)
        if f.name == "default" or f.name.startswith("kube-") or f.name in SYSTEM_NAMESPACES:
            out.append((at + ("name",), f"{f.name!r} is a namespace Kubernetes or the GPU operator owns, and each "
                        "fleet gets a namespace of its name with a default-deny network policy; choose another name"))
        if (f.gpu is None) == (f.cpu is None):
            out.append((at, "a fleet needs exactly one of 'gpu' or 'cpu'"))
        if f.gpu is not None and f.gpu.model in UNSUPPORTED_GPUS:
            out.append((at + ("gpu", "model"), UNSUPPORTED_GPUS[f.gpu.model]))
        c = f.capacity
        if c.min > c.desired:
            out.append((at + ("capacity", "desired"), f"expected min <= desired, got min {c.min} > desired {c.desired}",
                        at + ("capacity", "min")))
        if c.desired > c.max:
            out.append((at + ("capacity", "desired"), f"expected desired <= max, got desired {c.desired} > max {c.max}",
                        at + ("capacity", "max")))
        if c.max == 0 and f.autoscaling is not None:
            out.append((at + ("autoscaling",), "a disabled fleet (capacity.max 0) cannot autoscale: remove 'autoscaling'"))
        allowed = set(f.instance_types.allowed)
        if allowed:
            for j, t in enumerate(f.instance_types.preferred):
                if t not in allowed:
                    out.append((at + ("instanceTypes", "preferred", j), f"{t!r} is preferred but not in 'allowed'"))
        r = f.reserved
        if r.mode == ReservedMode.FIXED and r.units is None:
            out.append((at + ("reserved", "units"), "mode 'fixed' needs 'units'"))
        if r.mode != ReservedMode.FIXED and r.units is not None:
            out.append((at + ("reserved", "units"), f"'units' is only read when mode is 'fixed' (mode is {r.mode.value!r})"))
        if r.units is not None and r.units > c.max:
            out.append((at + ("reserved", "units"), f"expected at most capacity.max ({c.max}) units, got {r.units}",
                        at + ("capacity", "max")))
        for k, held in enumerate(r.held):
            if held.ends() is None:
                latest = dt.date.max.replace(year=dt.MAXYEAR - TERM_YEARS[held.term])
                out.append((at + ("reserved", "held", k, "purchased"),
                            f"expected a date whose {held.term.value} term ends by {dt.date.max} (on or before "
                            f"{latest}), got {held.purchased}"))
        if f.checkpoint is not None and isinstance(f.checkpoint.interval, int):
            if f.checkpoint.interval <= f.checkpoint.write_seconds:
                out.append(
                    (
                        at + ("checkpoint", "interval"),
                        f"interval must exceed the checkpoint write time ({f.checkpoint.write_seconds:g} s), got {f.checkpoint.interval}",
                    )
                )
        seen_taints: dict[str, str] = {}  # key -> the effect of its first taint
        for j, taint in enumerate(f.taints or []):
            effect = taint.effect.value
            if taint.key not in seen_taints:
                seen_taints[taint.key] = effect
            elif seen_taints[taint.key] == effect:
                out.append((at + ("taints", j), f"taint {taint.key}:{effect} is listed twice"))
            else:
                out.append((at + ("taints", j), f"taint key {taint.key} is listed twice (effects {seen_taints[taint.key]} "
                            f"and {effect}): the Cluster Autoscaler learns a group's taints from one "
                            f"k8s.io/cluster-autoscaler/node-template/taint/{taint.key} tag, which holds one value and "
                            "effect per key; keep one taint per key"))
        out += _off_peak(f, at)
        if f.autoscaling is not None and f.workload not in SERVING_WORKLOADS:
            out.append((at + ("autoscaling",), f"autoscaling applies to inference or api fleets (a HorizontalPodAutoscaler "
                        f"scales the fleet's Deployment), not {f.workload.value}"
                        + ("; a batch fleet's pods are Jobs, which an HPA cannot scale: size it with capacity and "
                           "offPeak windows" if f.workload is Workload.BATCH else "")))
        gs = f.gpu_sharing
        if gs is not None:
            if (gs.mig is None) == (gs.time_slicing is None):
                out.append((at + ("gpuSharing",), "give exactly one of 'mig' or 'timeSlicing'"))
            if f.gpu is None:
                out.append((at + ("gpuSharing",), "GPU sharing needs a 'gpu' requirement"))
            elif f.gpu.model in NEURON_MODELS:
                out.append((at + ("gpuSharing",), f"{f.gpu.model.value} has no GPU sharing (the Neuron device plugin "
                            "neither time-slices nor partitions); remove 'gpuSharing'"))
            elif gs.mig is not None:
                valid = mig_profiles(f.gpu.model, f.gpu.memory_gib)
                sizes = mig_memory_sizes_of(f.gpu.model)
                if not valid and sizes:  # a MIG GPU, but no such memory size of it
                    out.append(
                        (
                            at + ("gpuSharing", "mig"),
                            f"{f.gpu.model.value} has MIG profiles with {' or '.join(str(m) for m in sizes)} GiB per "
                            f"GPU, not {f.gpu.memory_gib}; fix gpu.memoryGib or use 'timeSlicing'",
                        )
                    )
                elif not valid:
                    out.append(
                        (
                            at + ("gpuSharing", "mig"),
                            f"{f.gpu.model.value} has no MIG support (A100 and H100 do); use 'timeSlicing' instead",
                        )
                    )
                elif gs.mig.profile not in valid:
                    mem = f" with {f.gpu.memory_gib} GiB" if f.gpu.memory_gib else ""
                    out.append(
                        (
                            at + ("gpuSharing", "mig", "profile"),
                            f"no MIG profile {gs.mig.profile!r} on {f.gpu.model.value}{mem}; expected one of: {', '.join(valid)}",
                        )
                    )
        if f.demand_history is not None and not f.demand_history.strip():
            out.append((at + ("demandHistory",), f"expected a path to a CSV file of hourly demand, got {f.demand_history!r}"))
        elif f.demand_history is not None and base_dir is not None:
            try:  # a NUL character or an overlong name cannot even be looked up
                kind = path_kind(base_dir / f.demand_history)
            except ValueError as exc:
                shown = repr(f.demand_history) if len(f.demand_history) <= 60 else repr(f.demand_history)[:57] + "...'"
                out.append((at + ("demandHistory",), f"expected a path to a CSV file of hourly demand, but {exc}; "
                                                       f"got {shown}"))
                kind = "unusable"
            if kind == "directory":
                out.append((at + ("demandHistory",), f"{f.demand_history} is a directory; expected a CSV file of hourly demand"))
            elif kind == "special":  # a device, FIFO or socket
                out.append((at + ("demandHistory",), f"{f.demand_history} is not a regular file; expected a CSV file "
                                                       f"of hourly demand"))
            elif kind == "missing":
                out.append((at + ("demandHistory",), f"file not found: {f.demand_history}"))
    return out


def _off_peak(f: Fleet, at: Loc) -> list[Issue]:
    """Off-peak windows: a weekly cron (seedance.policy.cron), a size within the group's bounds,
    and no two windows (or one window and its next start) overlapping or touching."""
    out: list[Issue] = []
    c = f.capacity
    windows: list[tuple[int, Window]] = []
    for j, w in enumerate(f.off_peak):
        if f.workload not in (Workload.BATCH, Workload.TRAINING, Workload.FINETUNE):
            out.append((at + ("offPeak", j), f"off-peak windows apply to batch, training or finetune fleets, not {f.workload.value}"))
        if w.desired > c.max:
            out.append((at + ("offPeak", j, "desired"), f"expected at most capacity.max ({c.max}), got {w.desired}",
                        at + ("capacity", "max")))
        elif w.desired < c.min:
            out.append(
                (
                    at + ("offPeak", j, "desired"),
                    f"expected at least capacity.min ({c.min}): a scheduled action cannot set the group below its "
                    f"minimum, got {w.desired}",
                    at + ("capacity", "min"),
                )
            )
        try:
            schedule = parse_window_cron(w.cron)
        except CronError as exc:
            out.append((at + ("offPeak", j, "cron"), f"{exc} (in {w.cron.strip()!r})"))
            continue
        windows.append((j, Window(schedule, w.hours, w.desired)))
    clash = first_clash(windows)
    if clash is not None:
        i, j, minute, touching = clash
        when = format_minute_of_week(minute)
        if i == j and touching:
            msg = (f"the window ends just as it starts again ({when}): both scheduled actions would fire at once, in no set "
                   f"order; use fewer hours, or change capacity.desired for a size that always holds")
        elif i == j:
            msg = (f"the window starts again ({when}) before its previous run ends ({f.off_peak[j].hours} h after it "
                   f"started): that run's end would cut the new one short; use fewer hours, or change capacity.desired "
                   f"for a size that always holds")
        elif touching:
            msg = (f"starts just as offPeak[{i}] ends ({when}): both scheduled actions would fire at once, in no set order; "
                   f"leave a gap or merge the windows")
        else:
            msg = (f"overlaps offPeak[{i}] ({f.off_peak[i].cron.strip()!r} for {f.off_peak[i].hours} h) at {when}: one "
                   f"window's end would cut the other short; expected windows that do not overlap")
        out.append((at + ("offPeak", j, "cron"), msg))
    return out


def _storage(s: Storage) -> list[Issue]:
    out: list[Issue] = []
    for i in _dupes([c.name for c in s.classes]):
        out.append((("storage", "classes", i, "name"), f"storage class {s.classes[i].name!r} is defined twice"))
    for i in _dupes([b.name for b in s.checkpoint_buckets]):
        out.append((("storage", "checkpointBuckets", i, "name"), f"bucket {s.checkpoint_buckets[i].name!r} is defined twice"))
    for i, c in enumerate(s.classes):
        at = ("storage", "classes", i)
        if not c.encrypted and c.data_class is not DataClass.PUBLIC:
            out.append((at + ("encrypted",), f"unencrypted volumes are only allowed for public data, got dataClass "
                                              f"{c.data_class.value}"))
        if c.tier == StorageTier.GP3:
            iops = c.iops if c.iops is not None else GP3_BASELINE_IOPS
            if c.iops is not None and c.iops > GP3_MAX_IOPS:
                out.append((at + ("iops",), f"gp3 allows at most {GP3_MAX_IOPS} IOPS, got {c.iops}"))
            elif c.iops is not None and c.iops < GP3_BASELINE_IOPS:
                out.append((at + ("iops",), f"gp3 includes 3000 IOPS; expected 3000..{GP3_MAX_IOPS}, got {c.iops}"))
            elif c.iops is not None and c.iops > max(GP3_BASELINE_IOPS, GP3_MAX_IOPS_PER_GIB * c.size_gib):
                most = max(GP3_BASELINE_IOPS, GP3_MAX_IOPS_PER_GIB * c.size_gib)
                out.append(
                    (
                        at + ("iops",),
                        f"gp3 allows at most {GP3_MAX_IOPS_PER_GIB} IOPS per GiB: expected at most {most} for "
                        f"{c.size_gib} GiB (or sizeGib >= {-(-c.iops // GP3_MAX_IOPS_PER_GIB)}), got {c.iops}",
                    )
                )
            if c.throughput_mibps is not None and c.throughput_mibps > GP3_MAX_THROUGHPUT:
                out.append((at + ("throughputMibps",), f"gp3 allows at most {GP3_MAX_THROUGHPUT} MiB/s, got {c.throughput_mibps}"))
            elif c.throughput_mibps is not None and c.throughput_mibps > GP3_MAX_MIBPS_PER_IOPS * iops:
                need = c.throughput_mibps * 4  # 0.25 MiB/s per IOPS: 4 IOPS per MiB/s
                out.append(
                    (
                        at + ("throughputMibps",),
                        f"gp3 allows at most {GP3_MAX_MIBPS_PER_IOPS:g} MiB/s per IOPS: expected at most "
                        f"{int(GP3_MAX_MIBPS_PER_IOPS * iops)} with {iops} IOPS (or iops >= {need}), got {c.throughput_mibps}",
                    )
                )
        elif c.tier == StorageTier.IO2:
            if c.iops is None:
                out.append((at + ("iops",), "io2 needs provisioned 'iops'"))
            elif c.iops > IO2_MAX_IOPS_PER_GIB * c.size_gib:
                out.append(
                    (
                        at + ("iops",),
                        f"io2 allows at most {IO2_MAX_IOPS_PER_GIB} IOPS per GiB: expected at most "
                        f"{IO2_MAX_IOPS_PER_GIB * c.size_gib} for {c.size_gib} GiB "
                        f"(or sizeGib >= {-(-c.iops // IO2_MAX_IOPS_PER_GIB)}), got {c.iops}",
                    )
                )
            if c.size_gib < IO2_MIN_SIZE_GIB:
                out.append((at + ("sizeGib",), f"io2 volumes are at least {IO2_MIN_SIZE_GIB} GiB, got {c.size_gib}"))
            if c.throughput_mibps is not None:
                out.append((at + ("throughputMibps",), "io2 throughput is not provisioned separately"))
        else:  # local NVMe
            if c.iops is not None or c.throughput_mibps is not None:
                out.append((at, "local-nvme volumes have no provisioned IOPS or throughput"))
            if c.binding_mode != BindingMode.WAIT_FOR_FIRST_CONSUMER:
                out.append((at + ("bindingMode",), "local-nvme needs bindingMode WaitForFirstConsumer"))
    for i, b in enumerate(s.checkpoint_buckets):
        at = ("storage", "checkpointBuckets", i)
        if b.warm_days is not None and b.hot_days < S3_MIN_DAYS_BEFORE_IA:
            out.append((at + ("hotDays",), f"S3 moves objects to Standard-IA no earlier than day {S3_MIN_DAYS_BEFORE_IA}, got {b.hot_days}"))
        if b.warm_days is not None and b.warm_days < S3_MIN_DAYS_IN_IA:
            out.append((at + ("warmDays",), f"objects must stay {S3_MIN_DAYS_IN_IA} days in Standard-IA, got {b.warm_days}"))
        if b.cold_days is not None and b.expire_days is not None:
            out.append((at + ("expireDays",), "give either 'coldDays' or 'expireDays', not both"))
        if b.expire_days is not None:
            first = b.hot_days + (b.warm_days or 0)
            if b.expire_days <= b.hot_days:
                out.append((at + ("expireDays",), f"expiry (day {b.expire_days}) must come after the hot tier (day {b.hot_days})"))
            elif b.warm_days is not None and b.expire_days <= first:
                # S3 refuses an expiration on or before a transition's day
                out.append(
                    (at + ("expireDays",), f"expiry (day {b.expire_days}) must come after the Glacier transition (day {first}); drop 'warmDays' or expire later")
                )
        # the default (30 days) simply does not apply to an unversioned bucket; only an explicit value is an error
        if b.noncurrent_expire_days is not None and not b.versioning and "noncurrent_expire_days" in b.model_fields_set:
            out.append((at + ("noncurrentExpireDays",), "noncurrent versions exist only with 'versioning: true'"))
    return out


def _backup_retention(s: Storage, c: Compliance) -> list[Issue]:
    """Backups of personal data are personal data: kept no longer than ``personalDataMaxDays`` (GDPR
    storage limitation), and at least the 7 days the gate requires of a backup."""
    limit = c.personal_data_max_days
    personal = [sc.name for sc in backed_up_classes(s, list(c.frameworks)) if sc.data_class is DataClass.PERSONAL]
    if not personal or limit is None or s.backup_retention_days <= limit:
        return []
    which = ("storage classes " if len(personal) > 1 else "storage class ") + ", ".join(repr(n) for n in personal)
    if limit < MIN_BACKUP_RETENTION_DAYS:
        return [(("compliance", "personalDataMaxDays"),
                 f"expected at least {MIN_BACKUP_RETENTION_DAYS}: the frameworks require backups of the personal-data EBS "
                 f"volumes ({which}) kept at least {MIN_BACKUP_RETENTION_DAYS} days, got {limit}")]
    return [(("storage", "backupRetentionDays"),
             f"expected at most compliance.personalDataMaxDays ({limit}): the backups hold personal data ({which}), "
             f"got {s.backup_retention_days}")]


def _scheduling(s: Scheduling) -> list[Issue]:
    p = s.priorities
    if not p.gold > p.silver > p.bronze:  # the tiers' PriorityClasses: gold pods preempt silver, silver bronze
        return [(("scheduling", "priorities"), f"expected gold > silver > bronze, got {p.gold}/{p.silver}/{p.bronze}")]
    d = s.descheduler
    # the targets bound the low thresholds only where they are used (LowNodeUtilization, no bin-packing)
    if not s.gpu_bin_packing and (d.cpu_below_pct > d.target_above_pct or d.memory_below_pct > d.target_above_pct):
        return [
            (
                ("scheduling", "descheduler", "targetAbovePct"),
                f"expected targetAbovePct >= the low thresholds ({d.cpu_below_pct}/{d.memory_below_pct}), got {d.target_above_pct}",
            )
        ]
    return []


def waiver_issues(waivers: list[Waiver], controls: frozenset[str] | None, on: dt.date) -> tuple[list[Issue], list[Issue]]:
    """The errors and the warnings of a policy's waivers (``seedance validate``; the gate itself only
    reports a waiver that matched nothing, or expired).  ``controls``: the control ids of the gate's
    policies (None: not known, so not checked); a waiver of another control never applies, so it is
    an error, with the nearest id.  A waiver that expired before ``on`` is a warning: the gate
    ignores it (and says so) from the day after its ``expires``."""
    errors: list[Issue] = []
    warnings: list[Issue] = []
    for i, w in enumerate(waivers):
        if controls is not None and w.control not in controls:
            hint = difflib.get_close_matches(w.control, sorted(controls), n=1, cutoff=0.6)
            if hint:
                tail = f"; did you mean '{hint[0]}'?"
            else:
                same = sorted(c for c in controls if c.split("-", 1)[0] == w.control.split("-", 1)[0])
                tail = f" ({', '.join(same[:6])}{', ...' if len(same) > 6 else ''})" if same else ""
            errors.append((("waivers", i, "control"), f"expected a control of the gate's policies, got "
                                                      f"'{w.control}'{tail}"))
        if w.expires < on:
            warnings.append((("waivers", i, "expires"), f"expired on {w.expires.isoformat()} (before "
                                                        f"{on.isoformat()}): the gate ignores it; renew or remove it"))
    return errors, warnings
