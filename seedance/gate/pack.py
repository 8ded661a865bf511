"""The gate as a Pulumi policy pack: the same Rego, run by ``pulumi preview/up --policy-pack policies/pack``.

Controls whose findings depend only on one resource's own properties run as resource validations
(on a document holding just that resource); controls that need the rest of the stack (a bucket
without its public access block, a VPC without a flow log, the budget) run as stack validations
on the whole stack.  Mandatory controls map to ``EnforcementLevel.MANDATORY``, advisory ones to
``ADVISORY``.  Waivers from the cost policy apply: a waived finding is not reported.
"""

from __future__ import annotations

import datetime as dt
import logging
import os
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from seedance.gate.bundle import PolicyBundle, load_bundle
from seedance.clock import utc_today
from seedance.gate.decision import Finding, decide, parse_waivers
from seedance.gate.engine import RegorusEngine
from seedance.gate.errors import GateError
from seedance.gate.metadata import ControlMeta
from seedance.resources import CHECKOUT_DIR
from seedance.synth.document import UNKNOWN, urn_name, without_nulls

log = logging.getLogger(__name__)

PROJECT_DIR_ENV = "SEEDANCE_PROJECT_DIR"
#: Set to 1 to read from EC2 the subnets each stack is given and its plan's instance types (as
#: ``seedance check --lookup`` does; not the security groups, see README).
LOOKUP_ENV = "SEEDANCE_LOOKUP"

#: Controls decided from a single resource's properties (resource validations). None: every rule
#: reads more than the resource - its provider's default tags (the data class), region and
#: Kubernetes namespace, and for several the resources it joins (replication rules, aggregated
#: roles, a namespace's LimitRange, a group's launch template) - so every control is a stack
#: validation on the whole stack, the document `seedance check` reads. (A red team found the
#: per-resource evaluation dropping provider tags, namespaces and unknown regions, and missing
#: joins.) ``resource_validator`` stays for a control that is truly local.
RESOURCE_LOCAL: frozenset[str] = frozenset()


@dataclass(frozen=True)
class StackContext:
    """What the pack knows about the stack being deployed: its cost policy, plan and estimate."""

    stack: str
    project: str
    policy: dict[str, Any]
    plan: dict[str, Any] | None
    estimate: dict[str, Any] | None
    as_of: dt.date
    facts: dict[str, Any] | None = None  # given subnets and plan instance types as EC2 describes them (SEEDANCE_LOOKUP=1)


def stack_of(urn: str) -> tuple[str, str]:
    """``urn:pulumi:STACK::PROJECT::...`` -> (STACK, PROJECT)."""
    parts = urn.split("::")
    return parts[0].removeprefix("urn:pulumi:"), parts[1]


def load_context(stack: str, project: str, project_dir: Path) -> StackContext:
    from seedance.gate.inputs import derived_parts, stack_setup

    setup = stack_setup(project_dir, stack)
    if setup.project != project:  # another project's stack of the same name: its policy is not this one's
        from seedance.gate.errors import InvalidInputError

        raise InvalidInputError(f"{project_dir}/Pulumi.yaml is project {setup.project!r}, the stack being deployed "
                                f"belongs to project {project!r}: set {PROJECT_DIR_ENV} to that project's directory")
    loaded, policy, plan, estimate = derived_parts(setup.policy_path, cluster=setup.cluster)
    facts = None
    if os.environ.get(LOOKUP_ENV, "").strip() == "1":
        from seedance.gate.facts import endpoint_unserved, lookup  # the policy's subnets and the plan's instance types
        from seedance.gate.inputs import reestimator

        facts = lookup(policy, plan=plan).model_dump(mode="json")
        # an existing endpoint EC2 shows none serving of: its traffic goes through the NAT, priced so
        if unserved := endpoint_unserved(policy, facts, stack):
            estimate = reestimator(loaded, setup.cluster)(unserved)
    return StackContext(stack, project, policy, plan, estimate, utc_today(), facts)


def _target(value: Any) -> Any:
    """What a ``pulumi_policy`` proxy wraps (the policy server hands validators ``props`` wrapped in
    proxies that raise on unknown values when read; asking for ``"__target"`` returns the wrapped
    value unchecked), or ``value`` itself when it is not such a proxy."""
    try:
        return value["__target"]
    except (KeyError, TypeError, IndexError):
        return value


def _plain(value: Any, depth: int = 0) -> Any:
    """Plain JSON from resource properties, proxies unwrapped: a value Pulumi does not know yet (its
    unknown sentinels, an output) becomes the placeholder, a null is dropped as unset (as the
    resource document does)."""
    from pulumi_policy.proxy import _is_unknown  # the sentinels preview puts where values are unknown

    if depth > 200:
        return UNKNOWN
    if isinstance(value, str):
        return UNKNOWN if _is_unknown(value) else value
    if value is None or isinstance(value, bool | int | float):
        return value
    if isinstance(value, Mapping):
        target = _target(value)
        return {str(k): _plain(v, depth + 1) for k, v in (target.items() if isinstance(target, Mapping) else [])}
    if isinstance(value, Sequence) and not isinstance(value, bytes | bytearray):
        return [_plain(v, depth + 1) for v in _target(value)]
    return UNKNOWN


def _jsonable(value: Any) -> Any:
    return without_nulls(_plain(value))


def _region(props: dict[str, Any], provider: Any) -> str | None:
    """A resource's region as the resource document gives it: its own ``region`` (pulumi-aws 7) or ARN,
    else its provider's; ``[unknown]`` when either is unknown until apply, or the provider is an
    explicit one without a region (it reads its environment); None (the stack's region) for the
    default provider without one."""
    from seedance.synth.ingest import own_region

    # the server hands over inputs and outputs as one: the region input, or an existing resource's ARN
    own = own_region({"inputs": props, "outputs": props})
    if own:
        return own
    provider_props = _plain(getattr(provider, "props", None) or {})
    region = provider_props.get("region") if isinstance(provider_props, dict) else None
    if isinstance(region, str) and region:
        return region
    kind = getattr(provider, "resource_type", None)
    if kind in ("pulumi:providers:aws", "pulumi:providers:aws-native") and not _is_default_provider(provider):
        return UNKNOWN
    return None


def _is_default_provider(provider: Any) -> bool:
    """One Pulumi made itself, named as the converter reads such names."""
    from seedance.synth.ingest import is_default_provider_name

    name = getattr(provider, "name", None)
    if not isinstance(name, str):
        urn = getattr(provider, "urn", None)
        name = urn_name(urn) if isinstance(urn, str) else ""
    return is_default_provider_name(name)


def _provider_entries(resources: list[Any]) -> list[dict[str, Any]]:
    """The providers of ``resources`` as document entries (their default tags, region, namespace),
    each once; those ``resources`` already hold are left to them."""
    held = {getattr(r, "urn", None) for r in resources}
    out: dict[str, dict[str, Any]] = {}
    for r in resources:
        provider = getattr(r, "provider", None)
        urn = getattr(provider, "urn", None)
        if not isinstance(urn, str) or urn in held or urn in out:
            continue
        kind = getattr(provider, "resource_type", None) or urn.split("::")[2]
        out[urn] = as_resource(kind, urn, getattr(provider, "name", None) or urn_name(urn),
                               getattr(provider, "props", None))
    return list(out.values())


def as_resource(resource_type: str, urn: str, name: str, props: Any, parent_urn: str | None = None,
                provider: Any = None, property_dependencies: Any = None) -> dict[str, Any]:
    """A Pulumi policy resource as a resource-document entry (inputs keep the engine's camelCase names;
    ``property_dependencies``, a stack policy's, maps an input to the policy resources it came from)."""
    inputs = _jsonable(props or {})
    inputs = inputs if isinstance(inputs, dict) else {}
    out: dict[str, Any] = {
        "urn": urn,
        "type": resource_type,
        "name": name,
        "parent": parent_urn,
        "custom": not resource_type.startswith("seedance:"),
        "region": _region(inputs, provider),
        "inputs": inputs,
    }
    provider_urn = getattr(provider, "urn", None)
    if isinstance(provider_urn, str) and provider_urn:
        out["provider"] = provider_urn  # the rules read its default tags and namespace
    deps = {str(k): [u for u in (getattr(r, "urn", None) for r in v or []) if isinstance(u, str)]
            for k, v in (property_dependencies or {}).items()}
    if any(deps.values()):
        out["property_dependencies"] = {k: v for k, v in deps.items() if v}
    return out


def findings(ctx: StackContext, bundle: PolicyBundle, engine: RegorusEngine, control_id: str, resources: list[dict[str, Any]]) -> list[Finding]:
    """Unwaived findings of one control on a document of ``resources``."""
    narrowed = bundle.only({control_id})
    gate_input = {
        "document": {"apiVersion": "seedance.io/v1", "kind": "ResourceDocument", "stack": ctx.stack,
                     "project": ctx.project, "source": "preview", "resources": resources},
        "policy": ctx.policy,
        "plan": ctx.plan,
        "estimate": ctx.estimate,
        "budget_state": None,
        "facts": ctx.facts,
    }
    raw = engine.evaluate(narrowed, gate_input)
    decision = decide(raw, narrowed, stack=ctx.stack, frameworks=list(ctx.policy.get("compliance", {}).get("frameworks", [])),
                      waivers=parse_waivers(ctx.policy), as_of=ctx.as_of)
    return [f for f in decision.findings if not f.waived]


ReportViolation = Callable[..., None]


def undecided(control: ControlMeta, exc: Exception) -> str:
    """The violation a control reports when it cannot decide (raising would lose every other
    policy's results in the same call; a mandatory control still blocks the deploy)."""
    return f"{control.control_id} cannot decide, so it reports a violation: {exc} [{control.control_id} {control.clause}]"


def resource_validator(control: ControlMeta, bundle: PolicyBundle, engine: RegorusEngine,
                       context: Callable[[str], StackContext]) -> Callable[[Any, ReportViolation], None]:
    def validate(args: Any, report_violation: ReportViolation) -> None:
        try:
            ctx = context(args.urn)
        except GateError:
            return  # the stack's policy cannot be read: the mandatory seedance-gate policy reports it
        resource = as_resource(args.resource_type, args.urn, args.name, args.props,
                               provider=getattr(args, "provider", None))
        try:
            found = findings(ctx, bundle, engine, control.control_id, [resource, *_provider_entries([args])])
        except GateError as exc:  # e.g. a whole list preview does not know yet: reported, not raised
            report_violation(undecided(control, exc))
            return
        for f in found:
            report_violation(f"{f.message} [{f.control_id} {f.clause}] fix: {f.remediation}")

    return validate


def stack_validator(control: ControlMeta, bundle: PolicyBundle, engine: RegorusEngine,
                    context: Callable[[str], StackContext]) -> Callable[[Any, ReportViolation], None]:
    def validate(args: Any, report_violation: ReportViolation) -> None:
        if not args.resources:
            return
        try:
            ctx = context(args.resources[0].urn)
        except GateError:
            return  # reported by the mandatory seedance-gate policy
        resources = [
            as_resource(r.resource_type, r.urn, r.name, r.props, getattr(getattr(r, "parent", None), "urn", None),
                        provider=getattr(r, "provider", None), property_dependencies=getattr(r, "property_dependencies", None))
            for r in args.resources
        ] + _provider_entries(args.resources)
        known = {r["urn"] for r in resources}
        try:
            found = findings(ctx, bundle, engine, control.control_id, resources)
        except GateError as exc:  # reported, not raised: a raise loses every other policy's results
            report_violation(undecided(control, exc))
            return
        for f in found:
            text = f"{f.message} [{f.control_id} {f.clause}] fix: {f.remediation}"
            if f.urn in known:
                report_violation(text, f.urn)
            else:  # a stack-wide finding (something missing)
                report_violation(text)

    return validate


GATE_POLICY = "seedance-gate-inputs"


def gate_validator(context: Callable[[str], StackContext]) -> Callable[[Any, ReportViolation], None]:
    """The pack's own mandatory check: the stack's cost policy, plan and estimate can be read. When they
    cannot, no control can decide, so the deploy is blocked with the reason (fail closed)."""
    def validate(args: Any, report_violation: ReportViolation) -> None:
        if not args.resources:
            return
        try:
            context(args.resources[0].urn)
        except GateError as exc:
            report_violation(f"the Seedance gate cannot decide, so the deploy is blocked: {exc}")

    return validate


def default_project_dir(cwd: Path | None = None) -> Path:
    """The Pulumi project whose ``Pulumi.<stack>.yaml`` names each stack's cost policy.

    ``$SEEDANCE_PROJECT_DIR`` if set; else the current directory if it holds a ``Pulumi.yaml``; else
    the checkout's example project ``stacks/``.  Pulumi starts a policy pack in the pack's own
    directory, so a pack run by ``pulumi up --policy-pack`` outside this repository needs
    ``SEEDANCE_PROJECT_DIR`` (Pulumi passes its environment on to the pack).
    """
    env = os.environ.get(PROJECT_DIR_ENV, "").strip()
    if env:
        return Path(env).expanduser()
    here = cwd or Path.cwd()
    if (here / "Pulumi.yaml").is_file():
        return here
    return CHECKOUT_DIR / "stacks"


def make_policies(bundle: PolicyBundle | None = None, *, project_dir: Path | None = None) -> list[Any]:
    """One policy per control, enforcement from its severity.

    ``bundle`` defaults to :func:`~seedance.gate.bundle.load_bundle` (the default policies);
    ``project_dir`` to :func:`default_project_dir` (``$SEEDANCE_PROJECT_DIR``, else the current
    directory if it holds a ``Pulumi.yaml``, else the checkout's ``stacks/``).
    """
    from pulumi_policy import EnforcementLevel, PolicyComplianceFramework, ResourceValidationPolicy, StackValidationPolicy

    bundle = bundle or load_bundle()
    engine = RegorusEngine()
    project_dir = project_dir or default_project_dir()
    log.info("policy pack: stacks' cost policies from the Pulumi project %s", project_dir)
    contexts: dict[tuple[str, str], StackContext | GateError] = {}
    loading = threading.Lock()  # the server calls validators from a pool of threads

    def context(urn: str) -> StackContext:
        """The stack's context, read once: a failure is kept too (every policy of the run reports it,
        none reads the policy or EC2 again)."""
        key = stack_of(urn)
        with loading:
            if key not in contexts:
                try:
                    contexts[key] = load_context(key[0], key[1], project_dir)
                except GateError as exc:
                    contexts[key] = exc
            got = contexts[key]
        if isinstance(got, GateError):
            raise got
        return got

    policies: list[Any] = [StackValidationPolicy(
        name=GATE_POLICY,
        description="The Seedance gate can read the stack's cost policy, plan and estimate (else it blocks).",
        enforcement_level=EnforcementLevel.MANDATORY,
        validate=gate_validator(context),
    )]
    for c in bundle.controls:
        level = EnforcementLevel.MANDATORY if bundle.severity_overrides.get(c.control_id, c.severity) == "mandatory" else EnforcementLevel.ADVISORY
        common = dict(
            name=policy_name(c.control_id),
            description=f"{c.title}: {c.description}",
            enforcement_level=level,
            framework=PolicyComplianceFramework(name=c.framework, reference=c.clause),
            remediation_steps=c.remediation,
            url=c.related_resources[0] if c.related_resources else None,
        )
        if c.control_id in RESOURCE_LOCAL:
            policies.append(ResourceValidationPolicy(validate=resource_validator(c, bundle, engine, context), **common))
        else:
            policies.append(StackValidationPolicy(validate=stack_validator(c, bundle, engine, context), **common))
    return policies


def policy_name(control_id: str) -> str:
    """Pulumi policy names: lowercase letters, digits and dashes."""
    return "".join(ch if ch.isalnum() else "-" for ch in control_id.lower())


def split(bundle: PolicyBundle) -> tuple[list[str], list[str]]:
    """(resource-validated, stack-validated) control ids."""
    ids: Iterable[str] = (c.control_id for c in bundle.controls)
    local, stack = [], []
    for cid in ids:
        (local if cid in RESOURCE_LOCAL else stack).append(cid)
    return local, stack
