"""The cost policy language (``apiVersion: seedance.io/v1``, ``kind: CostPolicy``).

One pydantic model per element; extra keys are forbidden everywhere; YAML keys are camelCase
(``maxShare``), Python attributes snake_case.  The JSON Schema is generated from these models
(``seedance schema``), never written by hand.  Cross-field rules that need several fields at
once live in :mod:`seedance.policy.semantics` so each error can point at the exact field.
"""

from __future__ import annotations

import datetime as dt
import ipaddress
from enum import StrEnum
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StringConstraints
from pydantic.alias_generators import to_camel

from seedance.gpus import GpuModel, device_resource

API_VERSION = "seedance.io/v1"
KIND = "CostPolicy"


class _Model(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        alias_generator=to_camel,
        populate_by_name=False,
        frozen=True,
        use_enum_values=False,
        validate_default=True,
        allow_inf_nan=False,
    )


Name = Annotated[str, StringConstraints(pattern=r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")]
Region = Annotated[str, StringConstraints(pattern=r"^[a-z]{2}(-gov)?-[a-z]+-[0-9]$")]
Fraction = Annotated[float, Field(ge=0.0, le=1.0)]
PositiveInt = Annotated[int, Field(gt=0)]
NonNegInt = Annotated[int, Field(ge=0)]
#: A number of days something is kept: at most a century, far above any real retention (S3 and
#: AWS Backup take 32-bit day counts; 10**20 days reached the estimate and the stack).
MAX_DAYS = 36_500
Days = Annotated[int, Field(gt=0, le=MAX_DAYS)]
#: Upper bound of every node count (capacity, off-peak sizes, reserved units): far above any real
#: fleet, low enough that a typo (an extra digit run) fails validation instead of planning 1e26 nodes.
MAX_NODES = 100_000
NodeCount = Annotated[int, Field(ge=0, le=MAX_NODES)]
#: Upper bound of every monthly data volume (network.monthlyTrafficGb, checkpointBuckets[].monthlyIngestGb):
#: an exabyte a month, far above any real stack, low enough that the estimate's totals stay finite
#: and readable (1e308 GB priced to infinity, 1e300 to 300-digit totals).
MAX_MONTHLY_GB = 1_000_000_000
MonthlyGb = Annotated[float, Field(ge=0, le=MAX_MONTHLY_GB)]
#: Bounds of budget.monthlyAmount (in the budget's currency).
MIN_BUDGET, MAX_BUDGET = 0.01, 1_000_000_000_000  # a cent (or fen) .. a trillion
#: AWS's tag key and value characters (IAM's and CloudWatch Logs' tagKeyType / tagValueType: letters,
#: separators and numbers of any script, and _ . : / = + - @). Not ``\w``, which also takes combining
#: marks (a decomposed é, most Indic vowel signs), joiners and connector punctuation that AWS refuses.
AWS_TAG_PATTERN = r"^[\p{L}\p{Z}\p{N}_.:/=+\-@]+$"
#: The JSON Schema's looser form of it (Python's re, which JSON Schema validators such as jsonschema
#: use, has no \p{..} classes); validation holds the policy to AWS_TAG_PATTERN.
_SCHEMA_TAG = {"pattern": r"^[\w .:/=+\-@]+$"}
TagKey = Annotated[str, StringConstraints(min_length=1, max_length=128, pattern=AWS_TAG_PATTERN),
                   Field(json_schema_extra=_SCHEMA_TAG)]
#: Tag values are not empty: CloudTrail refuses one (TagValue: min 1) and an empty default tag is
#: dropped or diffs forever in the provider, taking the cost allocation with it.
TagValue = Annotated[str, StringConstraints(min_length=1, max_length=256, pattern=AWS_TAG_PATTERN),
                     Field(json_schema_extra=_SCHEMA_TAG)]
Email = Annotated[str, StringConstraints(pattern=r"^[^@\s]+@[^@\s]+\.[^@\s]+$")]
Cron = Annotated[
    str,
    StringConstraints(pattern=r"^\s*(\S+\s+){4}\S+\s*$"),
    Field(
        description="Weekly start time, five-field cron in UTC: one minute (0-59), one hour (0-23), '*', '*', and "
        "day-of-week '*' or numbers 0-7 (0 and 7 are Sunday) in lists and low-high ranges, e.g. '0 22 * * 1-5'."
    ),
]
#: An EC2 instance type name (family, generation and attributes, a dot, the size): g5.xlarge.
INSTANCE_TYPE_PATTERN = r"^[a-z][a-z0-9-]*\.[0-9a-z]+$"
InstanceType = Annotated[str, StringConstraints(pattern=INSTANCE_TYPE_PATTERN)]
# Kubernetes qualified names (an optional DNS-subdomain prefix and a 63-character name) and label values.
# Each DNS label is at most 63 characters, the whole prefix at most 253.
QUALIFIED_NAME_PATTERN = r"^([a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?(\.[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$"
LABEL_VALUE_PATTERN = r"^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$"
#: A Kubernetes metric name: a path segment (no '/' or '%', not '.' or '..').
METRIC_NAME_PATTERN = r"^([^/%.][^/%]*|\.[^/%.][^/%]*|\.\.[^/%]+)$"


def _dns_prefix(value: str) -> str:
    prefix, slash, _ = value.rpartition("/")
    if slash and len(prefix) > 253:
        raise ValueError(f"expected a prefix of at most 253 characters before '/' (a DNS subdomain), got {len(prefix)}")
    return value


QualifiedName = Annotated[str, StringConstraints(max_length=317, pattern=QUALIFIED_NAME_PATTERN), AfterValidator(_dns_prefix)]
LabelValue = Annotated[str, StringConstraints(pattern=LABEL_VALUE_PATTERN)]


class Environment(StrEnum):
    DEV = "dev"
    STAGING = "staging"
    PROD = "prod"


class DataClass(StrEnum):
    PERSONAL = "personal"
    INTERNAL = "internal"
    PUBLIC = "public"


class Framework(StrEnum):
    GDPR = "gdpr"
    MLPS_L3 = "mlps-l3"


class Jurisdiction(StrEnum):
    EU = "eu"
    CN = "cn"
    OTHER = "other"


class Currency(StrEnum):
    USD = "USD"
    CNY = "CNY"


class ThresholdAction(StrEnum):
    NOTIFY = "notify"
    DEGRADE = "degrade"  # disable non-core fleets
    NONPROD_SPOT_ONLY = "nonprod-spot-only"
    FREEZE = "freeze"


class Workload(StrEnum):
    TRAINING = "training"
    FINETUNE = "finetune"
    INFERENCE = "inference"
    BATCH = "batch"
    API = "api"


#: Workloads made of jobs, which end (training, fine-tuning, batch), as against services.
JOB_WORKLOADS = (Workload.TRAINING, Workload.FINETUNE, Workload.BATCH)
#: The serving fleets: their pods are a Deployment, which the HorizontalPodAutoscaler of ``autoscaling`` scales
SERVING_WORKLOADS = (Workload.INFERENCE, Workload.API)


class SlaTier(StrEnum):
    GOLD = "gold"
    SILVER = "silver"
    BRONZE = "bronze"


#: The largest spot share above the on-demand base the gate allows each SLA tier by default (the
#: ``sla_spot_cap`` setting of ``policies/lib/frameworks.rego``; a test keeps the two equal).
SLA_SPOT_CAP: dict[SlaTier, float] = {SlaTier.GOLD: 0.5, SlaTier.SILVER: 1.0, SlaTier.BRONZE: 1.0}


class Tolerance(StrEnum):
    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"


class AllocationStrategy(StrEnum):
    PRICE_CAPACITY_OPTIMIZED = "price-capacity-optimized"
    CAPACITY_OPTIMIZED = "capacity-optimized"
    CAPACITY_OPTIMIZED_PRIORITIZED = "capacity-optimized-prioritized"
    LOWEST_PRICE = "lowest-price"


class ReservedMode(StrEnum):
    AUTO = "auto"
    NONE = "none"
    FIXED = "fixed"


class Term(StrEnum):
    ONE_YEAR = "1y"
    THREE_YEARS = "3y"


class PaymentOption(StrEnum):
    NO_UPFRONT = "no-upfront"
    ALL_UPFRONT = "all-upfront"


class StorageTier(StrEnum):
    GP3 = "gp3"
    IO2 = "io2"
    LOCAL_NVME = "local-nvme"


class ReclaimPolicy(StrEnum):
    DELETE = "Delete"
    RETAIN = "Retain"


class BindingMode(StrEnum):
    IMMEDIATE = "Immediate"
    WAIT_FOR_FIRST_CONSUMER = "WaitForFirstConsumer"


class TaintEffect(StrEnum):
    NO_SCHEDULE = "NoSchedule"
    PREFER_NO_SCHEDULE = "PreferNoSchedule"
    NO_EXECUTE = "NoExecute"


class WhenUnsatisfiable(StrEnum):
    DO_NOT_SCHEDULE = "DoNotSchedule"
    SCHEDULE_ANYWAY = "ScheduleAnyway"


# --------------------------------------------------------------------------- metadata / cloud


class Metadata(_Model):
    name: Name = Field(description="Policy (and stack) name, DNS-label style.")
    environment: Environment
    owner: Email = Field(description="Accountable owner; receives budget notifications.")
    tags: dict[TagKey, TagValue] = Field(
        default_factory=dict,
        description="Cost-allocation tags put on every taggable resource (team, cost-center, ...).",
    )


def _vpc_cidr(value: str) -> str:
    """An IPv4 network AWS accepts as a VPC's block: /16 to /28, written with its host bits zero."""
    try:
        net = ipaddress.IPv4Network(value, strict=False)
    except ValueError:
        raise ValueError("expected an IPv4 CIDR such as 10.0.0.0/16 (each address byte 0-255, prefix 0-32)") from None
    if not 16 <= net.prefixlen <= 28:
        raise ValueError("expected a VPC block from /16 to /28 (the sizes AWS allows for a VPC)")
    if str(net) != value:
        raise ValueError(f"expected the network address with its host bits zero ({net})")
    return value


class Cloud(_Model):
    provider: Literal["aws"] = "aws"
    region: Region
    availability_zones: list[Annotated[str, StringConstraints(pattern=r"^[a-z]{2}(-gov)?-[a-z]+-[0-9][a-z]$")]] = (
        Field(min_length=1, max_length=6)
    )
    vpc_id: Annotated[str, StringConstraints(pattern=r"^vpc-[0-9a-f]{8,17}$")]
    subnet_ids: list[Annotated[str, StringConstraints(pattern=r"^subnet-[0-9a-f]{8,17}$")]] = Field(min_length=1)
    vpc_cidr: Annotated[str, StringConstraints(pattern=r"^[0-9]{1,3}(\.[0-9]{1,3}){3}/[0-9]{1,2}$"),
                        AfterValidator(_vpc_cidr)] = Field(
        default="10.0.0.0/16",
        description="CIDR of the VPC (an IPv4 network from /16 to /28, as AWS allows a VPC block); "
                    "interface-endpoint security groups admit only it.",
    )
    account_id: Annotated[str, StringConstraints(pattern=r"^[0-9]{12}$")] | None = None


# --------------------------------------------------------------------------- compliance


#: The retention values CloudWatch Logs accepts (days).
LOG_RETENTION_DAYS = (1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288,
                      3653)

#: AWS Budgets allows 5 notifications per budget; each threshold gets an ACTUAL one (and the highest a
#: FORECASTED one while notifications remain).
MAX_BUDGET_THRESHOLDS = 5


#: Allow-list entries (MLPS-L3-8.1.4.5-6). Prefixes end with '/' so that 'nvcr.io/' cannot match
#: 'nvcr.io.example.com/', nor '/golden/' the parameter '/golden-copy/...'.
AMI_ID_PATTERN = r"^ami-([0-9a-f]{8}|[0-9a-f]{17})$"
AMI_PARAMETER_PATTERN = r"^/([A-Za-z0-9_.-]+/)+$"
REGISTRY_PATTERN = r"^[a-z0-9]([a-z0-9.-]*[a-z0-9])?(:[0-9]+)?/([a-z0-9._-]+/)*$"


class Trusted(_Model):
    """Software the stack trusts beyond the gate's defaults (MLPS 2.0 8.1.4.5 / 8.1.4.6: software
    from controlled sources). Entries are added to the defaults, never removing one."""

    registries: list[Annotated[str, StringConstraints(pattern=REGISTRY_PATTERN)]] = Field(
        default_factory=list, description="Container registry prefixes, ending with '/', e.g. "
        "'registry.example.com/ml/' (the account's own ECR, public.ecr.aws/, nvcr.io/ and registry.k8s.io/ "
        "are trusted already)."
    )
    ami_parameters: list[Annotated[str, StringConstraints(pattern=AMI_PARAMETER_PATTERN)]] = Field(
        default_factory=list, description="SSM parameter path prefixes, ending with '/', under which only your "
        "organisation publishes AMI ids, e.g. '/golden/gpu/': an image given as resolve:ssm:PATH under one is "
        "trusted (AWS's /aws/service/ is already)."
    )
    amis: list[Annotated[str, StringConstraints(pattern=AMI_ID_PATTERN)]] = Field(
        default_factory=list, description="AMI ids your organisation built or vetted, e.g. ami-0123456789abcdef0."
    )


#: A CloudTrail trail's ARN (CreateTrail names: letters, digits, '.', '_', '-', 3 to 128 characters).
TRAIL_ARN_PATTERN = r"^arn:aws(-cn)?:cloudtrail:[a-z0-9-]+:[0-9]{12}:trail/[A-Za-z0-9][A-Za-z0-9._-]{1,126}[A-Za-z0-9]$"


class ExistingTrail(_Model):
    """A trail that already records the account (an organization trail, Control Tower's, or the
    account's own): the stack then creates no management-events trail of its own."""

    arn: Annotated[str, StringConstraints(pattern=TRAIL_ARN_PATTERN)] = Field(
        description="The trail's ARN, e.g. arn:aws:cloudtrail:us-east-1:111122223333:trail/org-trail. It must be "
        "multi-region, validate its log files, encrypt them with KMS and record management events "
        "(`seedance check --lookup` reads it and reports what it lacks)."
    )
    s3_data_events: bool = Field(
        default=False, description="The trail also records S3 object-level data events on the stack's personal-data "
        "buckets and their off-site replicas (e.g. on every bucket). When false, the stack keeps a trail of its own for "
        "those data events only "
        "(no management events, so they are not billed twice); a stack without personal-data buckets creates none."
    )


class Compliance(_Model):
    frameworks: list[Framework] = Field(default_factory=list)
    jurisdiction: Jurisdiction = Jurisdiction.OTHER
    data_residency: list[Annotated[str, StringConstraints(pattern=r"^[a-z0-9*?\-]+$")]] = Field(
        default_factory=list, description="Region globs where data may live, e.g. ['eu-*']."
    )
    log_retention_days: Days = Field(
        default=365, description="Retention of the stack's log groups: a value CloudWatch Logs offers (1, 3, 5, 7, 14, "
        "30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288 or 3653 days)."
    )
    personal_data_max_days: Days | None = Field(
        default=None, description="GDPR storage limitation: the longest personal data (and its logs) may be kept."
    )
    kms_key_arn: Annotated[str, StringConstraints(pattern=r"^arn:aws(-cn|-us-gov)?:kms:[a-z0-9-]+:[0-9]{12}:(key|alias)/.+$")] | None = None
    trusted: Trusted = Field(default_factory=Trusted)
    existing_trail: ExistingTrail | None = Field(
        default=None, description="Rely on a trail that already records the account instead of creating one per stack "
        "(CloudTrail allows 5 trails a region, and bills every copy of management events after the first)."
    )


# --------------------------------------------------------------------------- budget


class Threshold(_Model):
    at: Annotated[float, Field(gt=0.0, le=1.0, description="Fraction of the monthly budget, in (0, 1].")]
    action: ThresholdAction


class Notify(_Model):
    emails: list[Email] = Field(default_factory=list)
    sns_topic_arn: Annotated[str, StringConstraints(pattern=r"^arn:aws(-cn|-us-gov)?:sns:[a-z0-9-]+:[0-9]{12}:[\w-]+$")] | None = None


class Budget(_Model):
    monthly_amount: Annotated[float, Field(ge=MIN_BUDGET, le=MAX_BUDGET, description="Monthly budget in the budget's currency.")]
    currency: Currency = Currency.USD
    thresholds: list[Threshold] = Field(
        default_factory=list,
        description="At most 5 (AWS Budgets allows 5 notifications per budget: an ACTUAL one for each threshold, "
        "and a FORECASTED one for the highest thresholds while notifications remain).",
    )
    notify: Notify = Field(default_factory=Notify)


# --------------------------------------------------------------------------- fleets


class GpuRequirement(_Model):
    model: GpuModel
    count: Annotated[int, Field(ge=1, le=16, description="GPUs per node.")] = 1
    memory_gib: Annotated[int, Field(ge=1, le=1024, description="Memory per GPU, GiB (minimum).")] | None = None


class CpuRequirement(_Model):
    vcpu: Annotated[int, Field(ge=1, le=448)]
    memory_gib: Annotated[float, Field(gt=0, le=24576)]


class InstanceTypes(_Model):
    allowed: list[InstanceType] = Field(default_factory=list, description="Only these types may be used.")
    preferred: list[InstanceType] = Field(default_factory=list, description="Ranked first when they qualify.")


class Capacity(_Model):
    min: NodeCount = 0
    desired: NodeCount = Field(description="The group's size. When the stack joins a cluster this is the size at creation only: the Cluster Autoscaler owns it after that, and redeploys apply min and max.")
    max: NodeCount = Field(description="0 disables the fleet: no node runs and no autoscaler can start one.")


class Spot(_Model):
    max_share: Fraction = Field(description="Largest share of capacity above the reserved base that may run on spot.")
    interruption_tolerance: Tolerance = Field(default=Tolerance.MEDIUM, description=(
        "The Spot Advisor interruption bands a type may run spot in: low up to 5-10%, medium up to 15-20%, "
        "high every band including >20%. A type in a higher band runs on-demand only."))
    allocation_strategy: AllocationStrategy = AllocationStrategy.PRICE_CAPACITY_OPTIMIZED


#: Years each reservation term runs.
TERM_YEARS: dict[Term, int] = {Term.ONE_YEAR: 1, Term.THREE_YEARS: 3}


def term_end(purchased: dt.date, term: Term) -> dt.date | None:
    """The day a reservation bought on ``purchased`` for ``term`` ends: the same day ``term`` years on
    (28 February for one bought on 29 February when that year has none); None when that day is past
    9999-12-31, the last date there is (validation refuses such a purchase)."""
    year = purchased.year + TERM_YEARS[term]
    if year > dt.MAXYEAR:
        return None
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    day = 28 if (purchased.month, purchased.day) == (2, 29) and not leap else purchased.day
    return purchased.replace(year=year, day=day)


class Commitment(_Model):
    """A reservation already held (re-planning never recommends fewer)."""

    units: Annotated[int, Field(gt=0, le=MAX_NODES)]
    term: Term
    purchased: dt.date = Field(description="Day the reservation was bought; its term must end by 9999-12-31.")

    def ends(self) -> dt.date | None:
        """The day the term ends (see :func:`term_end`); None only on a model built without validation."""
        return term_end(self.purchased, self.term)


class Reserved(_Model):
    mode: ReservedMode = ReservedMode.AUTO
    units: NodeCount | None = Field(default=None, description="Units to reserve when mode is 'fixed'.")
    term: Term = Term.ONE_YEAR
    payment: PaymentOption = PaymentOption.NO_UPFRONT
    held: list[Commitment] = Field(default_factory=list)


#: Seconds an interruption costs beyond the work since the last checkpoint when the policy does
#: not say: replacing the node and loading the model (the planner's assumption for every fleet).
DEFAULT_RESTART_SECONDS = 300.0


class Checkpoint(_Model):
    write_seconds: Annotated[float, Field(gt=0, le=86400)]
    restart_seconds: Annotated[float, Field(ge=0, le=86400)] = Field(
        default=DEFAULT_RESTART_SECONDS,
        description="Seconds an interruption costs beyond the lost work: replacing the node, loading the model and "
                    "the checkpoint.",
    )
    interval: Literal["auto"] | Annotated[int, Field(ge=60, le=604800)] = Field(
        default="auto", description="'auto' (Young/Daly optimum) or a fixed interval in seconds."
    )


class Autoscaling(_Model):
    metric: Annotated[str, StringConstraints(min_length=1, max_length=253, pattern=METRIC_NAME_PATTERN)]
    # a quantity Kubernetes can hold exactly enough: at least one millionth (written with the u suffix)
    target: Annotated[float, Field(ge=1e-6, le=1e15)]


#: Each off-peak window is two scheduled actions; EC2 Auto Scaling allows 125 per group (not adjustable).
MAX_OFF_PEAK_WINDOWS = 62


class OffPeakWindow(_Model):
    """Two scheduled actions: at `cron` the group goes to `desired` (within capacity min..max), `hours`
    later back to capacity.desired (a group a Cluster Autoscaler manages is left to it from there).
    Windows of a fleet must not overlap or touch; a window may span days (a weekend: 60 h from
    Friday 18:00)."""

    cron: Cron
    hours: Annotated[int, Field(ge=1, le=167, description="How long the window lasts, 1 to 167 hours (under a week).")]
    desired: NodeCount


class Mig(_Model):
    profile: Annotated[str, StringConstraints(pattern=r"^[0-9]+g\.[0-9]+gb$")]


class TimeSlicing(_Model):
    replicas: Annotated[int, Field(ge=2, le=64)]


class GpuSharing(_Model):
    mig: Mig | None = None
    time_slicing: TimeSlicing | None = None


class Taint(_Model):
    """A taint every node of the fleet registers with (pods need a matching toleration)."""

    key: QualifiedName
    value: LabelValue = ""
    effect: TaintEffect = TaintEffect.NO_SCHEDULE


class Fleet(_Model):
    name: Name
    workload: Workload
    sla: SlaTier
    core: bool = False
    data_class: DataClass = DataClass.INTERNAL
    gpu: GpuRequirement | None = None
    cpu: CpuRequirement | None = None
    instance_types: InstanceTypes = Field(default_factory=InstanceTypes)
    capacity: Capacity
    spot: Spot | None = Field(default=None, description="Absent: no spot at all.")
    reserved: Reserved = Field(default_factory=Reserved)
    checkpoint: Checkpoint | None = None
    demand_history: str | None = Field(
        default=None, description="CSV of hourly demand in nodes (columns: hour, demand), relative to this file."
    )
    autoscaling: Autoscaling | None = None
    off_peak: list[OffPeakWindow] = Field(
        default_factory=list, max_length=MAX_OFF_PEAK_WINDOWS,
        description=f"At most {MAX_OFF_PEAK_WINDOWS} windows: each is two scheduled actions on the fleet's group, "
        "and AWS allows 125 per group.")
    gpu_sharing: GpuSharing | None = None
    taints: list[Taint] | None = Field(
        default=None,
        description="Node taints. Absent: accelerator fleets get their device resource as a NoSchedule taint "
        "(nvidia.com/gpu=true, or aws.amazon.com/neuron=true for Inferentia/Trainium; on EKS, pods that request "
        "the resource tolerate it automatically; a pod that asks only for aws.amazon.com/neuroncore must tolerate "
        "aws.amazon.com/neuron itself), CPU fleets none; [] for none.",
    )

    def node_taints(self) -> list[Taint]:
        """The taints the fleet's nodes register with (the default when ``taints`` is absent)."""
        if self.taints is not None:
            return list(self.taints)
        return [Taint(key=device_resource(self.gpu.model), value="true")] if self.gpu is not None else []


# --------------------------------------------------------------------------- network


class EndpointService(StrEnum):
    S3 = "s3"
    DYNAMODB = "dynamodb"
    ECR_API = "ecr.api"
    ECR_DKR = "ecr.dkr"
    LOGS = "logs"
    STS = "sts"
    KMS = "kms"
    SSM = "ssm"
    MONITORING = "monitoring"
    EKS = "eks"
    EC2 = "ec2"
    AUTOSCALING = "autoscaling"
    ELASTICLOADBALANCING = "elasticloadbalancing"


#: The services every node reaches whatever traffic the policy declares: ECR's API and registry for the
#: kubelet's image credentials and pulls, STS for IAM roles for service accounts, EC2 for the VPC CNI
#: plugin (aws-node), which attaches network interfaces and assigns pod addresses through it (S3, for
#: image layers, has the stack's gateway endpoint). Without a NAT gateway only an endpoint reaches them.
#: Auto Scaling (autoscaling) and Elastic Load Balancing are not among them: the stack deploys nothing
#: in the cluster that calls them (it tags groups for a Cluster Autoscaler, but does not run one); a
#: cluster that runs a Cluster Autoscaler or the AWS Load Balancer Controller lists them itself.
NODE_SERVICES: tuple[EndpointService, ...] = (EndpointService.ECR_API, EndpointService.ECR_DKR, EndpointService.STS,
                                              EndpointService.EC2)
#: Services with a gateway endpoint, which the stack always creates (unless the VPC has one)
GATEWAY_ENDPOINT_SERVICES: tuple[EndpointService, ...] = (EndpointService.S3, EndpointService.DYNAMODB)


def needs_route(service: str, gb: float | None) -> bool:
    """Whether the nodes reach ``service`` (an endpoint service's name), so that in a VPC without a NAT
    gateway it needs an endpoint: it carries declared traffic (``gb``, GB a month) or every node
    reaches it (:data:`NODE_SERVICES`)."""
    return (gb or 0) > 0 or service in NODE_SERVICES


def services_without_route(network: Network) -> list[EndpointService]:
    """With no NAT gateway (``natGateways: 0``) and an explicit ``endpoints`` list, the services that
    would have no route: those with declared traffic or that every node reaches (:data:`NODE_SERVICES`),
    neither listed, nor the VPC's (``existingEndpoints``), nor a gateway service. Empty with a NAT
    gateway, or with ``auto``, which then takes an endpoint for each of them."""
    if network.nat_gateways or network.endpoints == "auto":
        return []
    served = {*network.endpoints, *network.existing_endpoints, *GATEWAY_ENDPOINT_SERVICES}
    return [s for s in EndpointService if needs_route(s, network.monthly_traffic_gb.get(s)) and s not in served]


class Network(_Model):
    endpoints: Literal["auto"] | list[EndpointService] = Field(
        default="auto", description="'auto': interface endpoints where traffic makes them cheaper than NAT."
    )
    existing_endpoints: list[EndpointService] = Field(
        default_factory=list,
        description="Services for which the VPC already has an endpoint the stack's traffic uses (another stack's "
        "in the same VPC, or the landing zone's): the stack creates none for them (AWS refuses a second "
        "private-DNS interface endpoint for a service in one VPC, and a route table holds one gateway endpoint "
        "per service), `auto` never chooses one, and their traffic is priced neither as NAT processing nor as "
        "the stack's endpoint (the endpoint's owner pays). Not in an explicit `endpoints` list. Offline the gate "
        "takes them on the policy's word: it counts them as present and reports their state, private DNS and "
        "endpoint policy as not checked; `seedance check --lookup` reads them from EC2 (DescribeVpcEndpoints in "
        "`cloud.vpcId`) and checks those.",
    )
    monthly_traffic_gb: dict[EndpointService, MonthlyGb] = Field(
        default_factory=dict, description="Expected GB a month through each service.")
    nat_gateways: Annotated[int, Field(ge=0, le=100)] = Field(default=1, description="NAT gateways the VPC runs (one per AZ for HA). With fewer than "
        "the zones the nodes run in (`cloud.availabilityZones`, at most one per `cloud.subnetIds` entry), the traffic of the zones without one crosses to a gateway in another zone: the "
        "estimate prices that transfer (out and in) and the endpoint break-even counts it. With 0 the nodes reach AWS "
        "services only through endpoints: `auto` then takes one for ecr.api, ecr.dkr, sts and ec2 (which every node reaches) "
        "and for every service with traffic, whatever it costs; an explicit `endpoints` list (with "
        "`existingEndpoints`) must name each of them. A Cluster Autoscaler reaches autoscaling, and the AWS Load "
        "Balancer Controller elasticloadbalancing; the stack deploys neither, so a cluster that runs one names its "
        "service in `endpoints` or `existingEndpoints` (or gives it traffic, with `auto`).")


# --------------------------------------------------------------------------- storage


class StorageClass(_Model):
    name: Name
    tier: StorageTier
    size_gib: Annotated[int, Field(ge=1, le=65536)] = 100
    iops: Annotated[int, Field(ge=100, le=256000)] | None = None
    throughput_mibps: Annotated[int, Field(ge=125, le=2000)] | None = None
    encrypted: bool = True
    reclaim_policy: ReclaimPolicy = ReclaimPolicy.DELETE
    binding_mode: BindingMode = BindingMode.WAIT_FOR_FIRST_CONSUMER
    data_class: DataClass = DataClass.INTERNAL
    volumes: Annotated[int, Field(ge=0, le=1_000_000)] = Field(default=0, description="Expected claims of this class (for the estimate).")


class CheckpointBucket(_Model):
    name: Name
    hot_days: Days = Field(default=30, description="Days in S3 Standard before the next tier.")
    warm_days: Days | None = Field(
        default=60, description="Days in Standard-IA before Glacier; null: no Standard-IA tier (Standard -> Glacier at hotDays)."
    )
    cold_days: Days | None = Field(
        default=None, description="Days in Glacier before expiry; null with no expireDays: kept in Glacier."
    )
    expire_days: Days | None = Field(default=None, description="Object age at expiry (days).")
    noncurrent_expire_days: Days | None = Field(default=30, description=(
        "Days a replaced (noncurrent) version is kept; versioned buckets only (the default does not apply "
        "when versioning is false)."))
    versioning: bool = True
    data_class: DataClass = DataClass.INTERNAL
    monthly_ingest_gb: MonthlyGb = Field(default=0, description="GB written to the bucket a month.")


#: The shortest time AWS Backup may keep the recovery points of a volume that must be backed up (days):
#: the gate's GDPR-32.1c-1 and MLPS-L3-8.1.4.9a do not count a backup rule that deletes them sooner.
MIN_BACKUP_RETENTION_DAYS = 7

#: The tiers that are EBS volumes (local NVMe is instance store: nothing to back up).
EBS_TIERS = frozenset({StorageTier.GP3, StorageTier.IO2})


class Storage(_Model):
    classes: list[StorageClass] = Field(default_factory=list)
    checkpoint_buckets: list[CheckpointBucket] = Field(
        default_factory=list,
        description="S3 buckets for checkpoints and datasets; at most 50 (the stack's trail and its access-log "
                    "archive's bucket policy name each one, within CloudTrail's and S3's limits).",
    )
    backup_retention_days: Annotated[int, Field(ge=MIN_BACKUP_RETENTION_DAYS, le=MAX_DAYS)] = Field(
        default=MIN_BACKUP_RETENTION_DAYS,
        description=(
            "Days AWS Backup keeps the daily recovery points of the EBS volumes a framework requires backups of "
            "(GDPR: storage classes of personal data; MLPS 2.0 level 3: personal and internal data). At least 7; "
            "when the backups hold personal data, at most compliance.personalDataMaxDays."
        ),
    )


#: The data classes whose EBS volumes each framework requires under a backup plan, as the gate checks
#: them: GDPR Art. 32(1)(c) (GDPR-32.1c-1) personal data, MLPS 2.0 level 3 8.1.4.9 a) personal and
#: internal ("important") data.
BACKUP_CLASSES: dict[Framework, frozenset[DataClass]] = {
    Framework.GDPR: frozenset({DataClass.PERSONAL}),
    Framework.MLPS_L3: frozenset({DataClass.PERSONAL, DataClass.INTERNAL}),
}


def backup_classes(frameworks: list[Framework]) -> frozenset[DataClass]:
    """The data classes whose EBS volumes ``frameworks`` require under a backup plan."""
    return frozenset().union(*(BACKUP_CLASSES[f] for f in frameworks))


def backed_up_classes(storage: Storage, frameworks: list[Framework]) -> list[StorageClass]:
    """The EBS StorageClasses of ``storage`` whose volumes ``frameworks`` require under a backup plan."""
    needed = backup_classes(frameworks)
    return [sc for sc in storage.classes if sc.tier in EBS_TIERS and sc.data_class in needed]


# --------------------------------------------------------------------------- scheduling


class TopologySpread(_Model):
    max_skew: Annotated[int, Field(ge=1, le=100)] = 1
    when_unsatisfiable: WhenUnsatisfiable = WhenUnsatisfiable.SCHEDULE_ANYWAY


class Descheduler(_Model):
    cpu_below_pct: Annotated[int, Field(ge=0, le=100, description=(
        "A node whose requested CPU is below this percentage is under-used. With gpuBinPacking the descheduler "
        "(HighNodeUtilization) evicts the pods of under-used nodes (never those of training, fine-tuning and batch fleets) so they repack onto busy ones and the "
        "autoscaler removes the empty node; without it (LowNodeUtilization) pods move from over-used nodes "
        "(above targetAbovePct) onto under-used ones."))] = 20
    memory_below_pct: Annotated[int, Field(ge=0, le=100, description="As cpuBelowPct, for requested memory.")] = 20
    gpu_below_pct: Annotated[int, Field(ge=0, le=100, description=(
        "As cpuBelowPct, for requested accelerators (nvidia.com/gpu); used with gpuBinPacking."))] = 20
    target_above_pct: Annotated[int, Field(ge=0, le=100, description=(
        "Without gpuBinPacking: nodes above this percentage of requested CPU and memory give pods to "
        "under-used ones. Not used with gpuBinPacking."))] = 50
    pod_lifetime_hours: Annotated[int, Field(gt=0, le=87_600)] | None = Field(default=None, description=(
        "Evict pods of inference and api fleets older than this (PodLifeTime), so long-lived replicas are "
        "rescheduled onto cheaper or fuller nodes; the pods of training, fine-tuning and batch fleets are never evicted (for age or for repacking)."))


class Priorities(_Model):
    gold: Annotated[int, Field(ge=0, le=1_000_000_000)] = 1_000_000
    silver: Annotated[int, Field(ge=0, le=1_000_000_000)] = 100_000
    bronze: Annotated[int, Field(ge=0, le=1_000_000_000)] = 1_000


class Scheduling(_Model):
    gpu_bin_packing: bool = True
    topology_spread: TopologySpread = Field(default_factory=TopologySpread)
    descheduler: Descheduler = Field(default_factory=Descheduler)
    priorities: Priorities = Field(default_factory=Priorities)
    overcommit_cap: Annotated[float, Field(ge=1.0, le=10.0)] = 1.0


# --------------------------------------------------------------------------- waivers


class Waiver(_Model):
    control: Annotated[str, StringConstraints(pattern=r"^(GDPR|MLPS|BUDGET)-[A-Za-z0-9.\-]+$")]
    resource: Annotated[str, StringConstraints(min_length=1)] = Field(
        description="Glob over resource URNs or names ('*' for the whole stack). A name matches every resource "
        "of that name whatever its type (Pulumi names are unique per type only): to waive one of several, "
        "give its URN or a glob ending in its type and name ('*aws:dynamodb/table:Table::store')."
    )
    reason: Annotated[str, StringConstraints(strip_whitespace=True, min_length=10)]
    approver: Email
    expires: dt.date


# --------------------------------------------------------------------------- document


class CostPolicy(_Model):
    api_version: Literal["seedance.io/v1"]
    kind: Literal["CostPolicy"]
    extends: str | None = Field(default=None, description="Base policy this one overlays (path relative to this file).")
    metadata: Metadata
    cloud: Cloud
    compliance: Compliance = Field(default_factory=Compliance)
    budget: Budget
    fleets: list[Fleet] = Field(default_factory=list)
    network: Network = Field(default_factory=Network)
    storage: Storage = Field(default_factory=Storage)
    scheduling: Scheduling = Field(default_factory=Scheduling)
    waivers: list[Waiver] = Field(default_factory=list)

    def backed_up_classes(self) -> list[StorageClass]:
        """The EBS StorageClasses whose volumes the policy's frameworks require under a backup plan."""
        return backed_up_classes(self.storage, list(self.compliance.frameworks))

    def fleet(self, name: str) -> Fleet:
        for f in self.fleets:
            if f.name == name:
                return f
        raise KeyError(name)


def json_schema() -> dict:
    """The JSON Schema of the language, generated from the models."""
    schema = CostPolicy.model_json_schema(by_alias=True, mode="validation")
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = "https://seedance.io/schemas/costpolicy-v1.json"
    schema["title"] = "Seedance CostPolicy (seedance.io/v1)"
    return schema
