"""``seedance init``: a new Pulumi project that runs Seedance, with a starter cost policy.

:func:`project_files` is pure: options in, ``{relative path: text}`` out, rendered from
``templates/init/``.  :func:`write_project` refuses to overwrite anything and writes either every
file or none.  The starter policy is valid as written and passes the deploy gate; its VPC, subnet
and owner values are placeholders marked ``yours:``.
"""

from __future__ import annotations

import math
import os
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path

from seedance import __version__
from seedance.atomic import write_text_atomically
from seedance.policy.loader import LoadedPolicy
from seedance.policy.model import MAX_BUDGET, MIN_BUDGET, TRAIL_ARN_PATTERN, Environment, Framework, Jurisdiction
from seedance.pricing.catalog import Catalog
from seedance.templating import get_template

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$")
#: A stack name is also a Kubernetes label value (seedance.io/stack): at most 63, alphanumeric at both ends.
_STACK = re.compile(r"^[A-Za-z0-9]([A-Za-z0-9_.-]{0,61}[A-Za-z0-9])?$")
_CLUSTER = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$")
#: Endpoints MLPS 2.0 level 3 wants whatever the traffic (the China data has no endpoint prices).
MLPS_ENDPOINTS = ("s3", "dynamodb", "kms", "logs", "ecr.api", "ecr.dkr", "sts")
INFERENCE_GPU = ("A10G", 1)
TRAINING_GPU = ("A10G", 4)


class ScaffoldError(ValueError):
    """The options cannot make a project (unknown region, bad name, files already there)."""


class ScaffoldOptionError(ScaffoldError):
    """One of the options is malformed or does not fit the others; ``option`` names its field of
    :class:`ScaffoldOptions` (``project``, ``stack``, ``region``, ``frameworks``, ``budget``, ...)."""

    def __init__(self, option: str, message: str) -> None:
        super().__init__(message)
        self.option = option


@dataclass(frozen=True)
class ScaffoldOptions:
    project: str
    stack: str
    region: str
    environment: Environment = Environment.DEV
    frameworks: tuple[Framework, ...] | None = None  # None: from the region and environment
    account_id: str | None = None
    owner: str = "platform-team@example.com"
    budget: float | None = None  # None: the starter's own estimate plus 25%, see suggested_budget
    cluster_name: str | None = None
    team: str | None = None  # default: the project name
    cost_center: str = "unassigned"  # the gate blocks until a real one is set
    existing_trail: str | None = None  # compliance.existingTrail.arn: a trail that records the account already

    def resolved_frameworks(self) -> tuple[Framework, ...]:
        if self.frameworks is not None:
            return self.frameworks
        if self.environment is not Environment.PROD:
            return ()
        if self.region.startswith("eu-"):
            return (Framework.GDPR,)
        if self.region.startswith("cn-"):
            return (Framework.MLPS_L3,)
        return ()


def project_name(directory: Path) -> str:
    """A Pulumi project name from a directory name (letters, digits, ``-``, ``_``, ``.``)."""
    name = re.sub(r"[^A-Za-z0-9_.-]+", "-", directory.resolve().name).strip("-.") or "seedance-project"
    return name[:100]


#: Tag values the gate reads as a missing cost-allocation tag (missing_values, policies/lib/budget.rego)
_PLACEHOLDER_TAGS = frozenset({"", "unassigned", "unknown", "[unknown]"})


def _default_team(project: str) -> str:
    """The team tag when none is given: the project's name as a DNS label, unless that is a value the
    gate reads as a missing tag (a project named ``unknown``): then ``platform``."""
    team = _dns_label(project)
    return "platform" if team in _PLACEHOLDER_TAGS else team


def project_files(opts: ScaffoldOptions, catalog: Catalog) -> dict[str, str]:
    """Every file of the new project, rendered (pure)."""
    if not _NAME.match(opts.project):
        raise ScaffoldOptionError("project", f"project name {opts.project!r}: expected letters, digits, '-', '_' "
                                  "or '.', starting with a letter or digit (at most 100)")
    if not _STACK.match(opts.stack):
        raise ScaffoldOptionError("stack", f"stack name {opts.stack!r}: expected letters, digits, '-', '_' or '.', "
                                  "at most 63, starting and ending with a letter or digit (it is also a Kubernetes "
                                  "label value)")
    if opts.budget is not None and not (math.isfinite(opts.budget) and MIN_BUDGET <= opts.budget <= MAX_BUDGET):
        raise ScaffoldOptionError("budget", f"budget must be a positive amount (at least 0.01), got {opts.budget}"
                                  if not (math.isfinite(opts.budget) and opts.budget >= MIN_BUDGET) else
                                  f"budget must be at most {MAX_BUDGET:,.0f} (the policy language's bound), got {opts.budget!r}")
    if opts.cluster_name is not None and not _CLUSTER.match(opts.cluster_name):
        raise ScaffoldOptionError("cluster_name", f"cluster name {opts.cluster_name!r}: expected an EKS cluster name "
                                  "(letters, digits, '-', '_')")
    if opts.existing_trail is not None and not re.fullmatch(TRAIL_ARN_PATTERN, opts.existing_trail):
        raise ScaffoldOptionError("existing_trail", f"trail {opts.existing_trail!r}: expected a CloudTrail trail ARN, "
                                  "arn:PARTITION:cloudtrail:REGION:ACCOUNT:trail/NAME")
    if opts.existing_trail is not None:
        from components.audit import trail_name  # the program's own name for the stack's trail

        if opts.existing_trail.rpartition(":trail/")[2] == trail_name(opts.stack):
            raise ScaffoldOptionError("existing_trail", f"trail {opts.existing_trail!r} is the trail stack "
                                      f"{opts.stack!r} creates itself ({trail_name(opts.stack)}), which a stack with an "
                                      "existing trail stops recording management events: name a trail the stack does "
                                      "not manage")
    for option, value in (("team", opts.team), ("cost_center", opts.cost_center)):
        if value is not None and value in _PLACEHOLDER_TAGS and not (
                option == "cost_center" and value == "unassigned"):  # the default: init warns, check blocks
            raise ScaffoldOptionError(option, f"{option.replace('_', '-')} {value!r} is what the gate reads as a "
                                      "missing tag (BUDGET-TAGS-1 blocks the deploy): give a real one")
    if opts.account_id is not None and not re.fullmatch(r"[0-9]{12}", opts.account_id):
        raise ScaffoldOptionError("account_id", f"account id {opts.account_id!r}: expected 12 digits")
    currency = catalog.currency(opts.region)  # UnknownRegionError names the closest known regions
    offers = {(o.gpu_model.value, o.gpus) for o in catalog.instances(opts.region) if o.gpu_model is not None}
    for gpu in (INFERENCE_GPU, TRAINING_GPU):
        if gpu not in offers:
            raise ScaffoldOptionError("region",
                                      f"the price catalog has no {gpu[1]} x {gpu[0]} instance in {opts.region}")
    frameworks = opts.resolved_frameworks()
    if Framework.MLPS_L3 in frameworks and not opts.region.startswith("cn-"):
        raise ScaffoldOptionError("frameworks",
                                  f"mlps-l3 keeps data in mainland China; {opts.region} is not a China region")
    jurisdiction = (Jurisdiction.EU if opts.region.startswith("eu-") else
                    Jurisdiction.CN if opts.region.startswith("cn-") else Jurisdiction.OTHER)
    mlps = Framework.MLPS_L3 in frameworks
    gdpr = Framework.GDPR in frameworks
    context = {
        "project": opts.project,
        "stack": opts.stack,
        "region": opts.region,
        "name": _dns_label(f"{opts.project}-{opts.stack}"),
        "environment": opts.environment.value,
        "owner": opts.owner,
        "team": opts.team or _default_team(opts.project),
        "cost_center": opts.cost_center,
        "zones": [f"{opts.region}a", f"{opts.region}b"],
        "account_id": opts.account_id,
        "frameworks": [f.value for f in frameworks],
        "jurisdiction": jurisdiction.value,
        "residency": {"eu": "eu-*", "cn": "cn-*"}.get(jurisdiction.value) if frameworks else None,
        "log_retention_days": 365 if mlps else 90 if gdpr else 30,
        "budget": f"{opts.budget if opts.budget is not None else 1:.2f}",
        "currency": currency,
        "endpoints": list(MLPS_ENDPOINTS) if mlps else [],
        "inference_gpu": INFERENCE_GPU[0],
        "training_gpu": TRAINING_GPU[0],
        "training_gpus": TRAINING_GPU[1],
        "cluster_name": opts.cluster_name,
        "existing_trail": opts.existing_trail,
        "version": __version__,
    }
    render = lambda name: get_template(f"init/{name}").render(**context)  # noqa: E731
    return {
        "Pulumi.yaml": render("Pulumi.yaml.j2"),
        f"Pulumi.{opts.stack}.yaml": render("Pulumi.stack.yaml.j2"),
        "__main__.py": render("__main__.py.j2"),
        "requirements.txt": render("requirements.txt.j2"),
        f"policies/{opts.stack}.yaml": render("policy.yaml.j2"),
        "policy-pack/PulumiPolicy.yaml": render("policy-pack/PulumiPolicy.yaml.j2"),
        "policy-pack/__main__.py": render("policy-pack/__main__.py.j2"),
        "policy-pack/requirements.txt": render("policy-pack/requirements.txt.j2"),
    }


#: The starter's first budget threshold (notify); a new project's estimate stays below it.
FIRST_THRESHOLD = 0.5


def suggested_budget(monthly_estimate: float) -> float:
    """The starter's budget: large enough that its own estimate sits at 90% of the first threshold
    (45% of the budget), so a new project trips no threshold; rounded up to two significant digits."""
    want = monthly_estimate / (0.9 * FIRST_THRESHOLD)
    if want <= 0:
        return 100.0
    step = 10 ** (math.floor(math.log10(want)) - 1)
    return float(math.ceil(want / step) * step)


def _dns_label(text: str) -> str:
    """Lowercase letters, digits and '-', at most 63 characters (policy names, tag and label values)."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:63].rstrip("-") or "seedance"


def check_free(directory: Path, files: dict[str, str]) -> None:
    """:class:`ScaffoldError` naming every file of ``files`` that already exists under ``directory``."""
    existing = sorted(str(directory / rel) for rel in files if os.path.lexists(directory / rel))
    if existing:
        raise ScaffoldError(f"not overwriting existing file(s): {', '.join(existing)}")


def write_project(directory: Path, files: dict[str, str]) -> list[Path]:
    """Write ``files`` under ``directory``: nothing is overwritten, and on any error nothing is left."""
    check_free(directory, files)
    targets = {rel: directory / rel for rel in files}
    created_dirs: list[Path] = []
    written: list[Path] = []
    current = directory
    try:
        for rel, path in targets.items():
            for parent in reversed(path.parents):
                if not parent.exists():
                    current = parent
                    parent.mkdir()
                    created_dirs.append(parent)
            current = path
            write_text_atomically(path, files[rel])
            written.append(path)
    except (OSError, UnicodeError) as exc:
        for p in written:
            p.unlink(missing_ok=True)
        for d in reversed(created_dirs):
            try:
                d.rmdir()
            except OSError:
                pass
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise ScaffoldError(f"cannot write {current}: {why}") from None
    return written


def load_starter(policy_text: str) -> LoadedPolicy:
    """Load a rendered starter policy (from a scratch file) before anything is written."""
    from seedance.policy import load_policy

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "starter.yaml"
        path.write_text(policy_text, encoding="utf-8")
        return load_policy(path)


def starter_estimate(loaded: LoadedPolicy, catalog: Catalog, *, cluster: bool = True) -> float:
    """The planned monthly estimate of a starter policy, as the gate prices its stack (``cluster``:
    whether the stack names a cluster)."""
    from seedance.estimate.estimate import estimate_policy
    from seedance.planner.planner import plan_policy

    return estimate_policy(loaded, catalog, plan_policy(loaded, catalog, cluster=cluster), cluster=cluster).total
