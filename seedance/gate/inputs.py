"""The gate input: ``{"document", "policy", "plan", "estimate", "budget_state", "facts"}``, validated.

Building it from a stack (synthesise, plan, estimate) is the only place the gate touches the other
areas; every failure there is an :class:`InvalidInputError`, so the gate ends undecided (exit 2).
"""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from seedance.gate.errors import InvalidInputError

log = logging.getLogger(__name__)

INPUT_KEYS = ("document", "policy", "plan", "estimate", "budget_state", "facts")
REQUIRED_KEYS = ("document", "policy")


@dataclass(frozen=True)
class GateInput:
    document: dict[str, Any]
    policy: dict[str, Any]
    plan: dict[str, Any] | None = None
    estimate: dict[str, Any] | None = None
    budget_state: dict[str, Any] | None = None
    facts: dict[str, Any] | None = None  # seedance.gate.facts.AwsFacts as JSON: what EC2 says (seedance check --lookup)
    # the estimate again, pricing through NAT the existing endpoints AWS says the VPC has none serving of
    # (service -> why); None for a whole gate input, whose estimate is given
    reestimate: Callable[[dict[str, str]], dict[str, Any]] | None = field(default=None, compare=False, repr=False)

    def to_json(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in INPUT_KEYS}

    @property
    def stack(self) -> str:
        return str(self.document.get("stack", "?"))

    def with_frameworks(self, frameworks: list[str]) -> GateInput:
        """The same input with ``frameworks`` forced on, in addition to the policy's own (e.g. both GDPR and MLPS)."""
        policy = json.loads(json.dumps(self.policy))
        compliance = policy.setdefault("compliance", {})
        compliance["frameworks"] = sorted({*compliance.get("frameworks", []), *frameworks})
        return GateInput(self.document, policy, self.plan, self.estimate, self.budget_state, self.facts, self.reestimate)

    def with_facts(self, facts: dict[str, Any] | None) -> GateInput:
        """The same input with ``facts``; when they show that the VPC has no serving endpoint for a
        service of network.existingEndpoints, with the estimate priced as its traffic goes: through the
        NAT (:func:`priced_for_facts`)."""
        return priced_for_facts(GateInput(self.document, self.policy, self.plan, self.estimate, self.budget_state, facts,
                                          self.reestimate))


def priced_for_facts(gate_input: GateInput) -> GateInput:
    """The budget rules judge the estimate: when the facts show that the VPC has no serving endpoint for
    a service of network.existingEndpoints (seedance.gate.facts.endpoint_unserved), the estimate must
    price its traffic through the NAT, not the policy's word. Re-estimated when the input was built from
    the policy; a given estimate (a whole gate input) must say it did so (``unserved_endpoints``), else
    the gate cannot decide on the budget (InvalidInputError)."""
    from seedance.gate.facts import endpoint_unserved

    unserved = endpoint_unserved(gate_input.policy, gate_input.facts, gate_input.stack)
    if not unserved or gate_input.estimate is None:
        return gate_input
    if gate_input.reestimate is not None:
        return GateInput(gate_input.document, gate_input.policy, gate_input.plan, gate_input.reestimate(unserved),
                         gate_input.budget_state, gate_input.facts, gate_input.reestimate)
    priced = gate_input.estimate.get("unserved_endpoints")
    left = sorted(set(unserved) - set(priced if isinstance(priced, dict) else {}))
    if left:
        raise InvalidInputError(
            f"the facts show no serving endpoint for {', '.join(left)} of network.existingEndpoints "
            f"({'; '.join(unserved[s] for s in left)}), but the given estimate prices "
            f"{'its' if len(left) == 1 else 'their'} traffic through the VPC's endpoint (no "
            "'unserved_endpoints' for it): the budget cannot be checked; estimate with those facts")
    return gate_input


def reestimator(loaded: Any, cluster: bool) -> Callable[[dict[str, str]], dict[str, Any]]:
    """The estimate of ``loaded`` again, pricing through NAT the existing endpoints none serves of
    (service -> why), recorded as ``unserved_endpoints``."""

    def estimate(unserved: dict[str, str]) -> dict[str, Any]:
        _, priced = plan_and_estimate(loaded, cluster=cluster, unserved_endpoints=unserved)
        return {**priced.to_json(), "unserved_endpoints": dict(sorted(unserved.items()))}

    return estimate


def _problems(exc: ValidationError, what: str) -> list[str]:
    out = []
    for err in exc.errors()[:20]:
        loc = ".".join(str(p) for p in err["loc"]) or "(top)"
        out.append(f"{what}: {loc}: {err['msg']}")
    return out


def validate_document(doc: Any, *, source: str = "document") -> dict[str, Any]:
    """Check the resource document against its model (seedance.synth.document.ResourceDocument)."""
    from seedance.synth.document import ResourceDocument

    from seedance.textfile import MAX_JSON_DEPTH, too_deep

    if not isinstance(doc, dict):
        raise InvalidInputError(f"{source}: expected a ResourceDocument object, got {type(doc).__name__}")
    if (where := too_deep(doc)) is not None:
        raise InvalidInputError(f"{source}: {where}: nested more than {MAX_JSON_DEPTH} levels deep; "
                                "a resource document nests a few dozen at most")
    try:
        checked = ResourceDocument.model_validate(doc)
    except ValidationError as exc:
        raise InvalidInputError("; ".join(_problems(exc, source))) from None
    urns = [r.urn for r in checked.resources]
    if len(urns) != len(set(urns)):
        twice = sorted({u for u in urns if urns.count(u) > 1})
        raise InvalidInputError(f"{source}: resource URN(s) listed more than once: {', '.join(twice[:3])}"
                                + (" ..." if len(twice) > 3 else ""))
    # a preview without --show-sames lists only what changes: rules would pass resources they never saw
    partial = [n for n in checked.notes if n.startswith("partial:")]
    if partial:
        raise InvalidInputError(f"{source}: the document does not show the whole stack as it is ({partial[0]})")
    return checked.to_json()


def validate_policy(policy: Any, *, source: str = "policy", cross_field: bool = True) -> dict[str, Any]:
    """The policy of a gate input, as strictly as a policy file: its types and, unless
    ``cross_field`` is off (engine parity tests, which want any schema-valid input), the cross-field
    rules of :mod:`seedance.policy.semantics`."""
    from seedance.policy.model import CostPolicy

    from seedance.policy import semantics

    if not isinstance(policy, dict):
        raise InvalidInputError(f"{source}: expected a CostPolicy object, got {type(policy).__name__}")
    try:  # as strictly as a policy file: "100000" is not a number, and the cross-field rules hold
        model = CostPolicy.model_validate_json(json.dumps(policy, allow_nan=False), strict=True)
    except ValidationError as exc:
        raise InvalidInputError("; ".join(_problems(exc, source))) from None
    except ValueError as exc:  # NaN or Infinity: not JSON
        raise InvalidInputError(f"{source}: {exc}") from None
    issues = semantics.check(model) if cross_field else []
    if issues:
        raise InvalidInputError("; ".join(f"{source}: {'.'.join(str(p) for p in loc) or '(top)'}: {msg}"
                                          for loc, msg, *_ in issues[:20]))
    return model.model_dump(mode="json", by_alias=True)


def _same_policy(policy: dict[str, Any], part: dict[str, Any] | None, key: str, source: str) -> None:
    """A plan or estimate in a whole gate input must be of its policy: the name and region it gives
    (the budget rules read only its figures) must be the policy's."""
    if part is None:
        return
    for name, want in (("policy", policy["metadata"]["name"]), ("region", policy["cloud"]["region"])):
        if name in part and part[name] != want:
            raise InvalidInputError(f"{source}: '{key}.{name}' is {part.get(name)!r}, the policy's is {want!r}: "
                                    f"the {key} must be of the gate input's policy")


def from_json(obj: Any, *, source: str) -> GateInput:
    """A whole gate input (object with 'document' and 'policy')."""
    if not isinstance(obj, dict) or "document" not in obj:
        raise InvalidInputError(f"{source}: expected a gate input with keys {', '.join(INPUT_KEYS)} "
                                f"({' and '.join(REQUIRED_KEYS)} required)")
    unknown = sorted(set(obj) - set(INPUT_KEYS))
    if unknown:
        raise InvalidInputError(f"{source}: unknown key(s) {', '.join(unknown)}; expected {', '.join(INPUT_KEYS)}")
    from seedance.textfile import MAX_JSON_DEPTH, too_deep

    if (where := too_deep(obj, MAX_JSON_DEPTH + 1)) is not None:  # + 1: the document sits one level down
        raise InvalidInputError(f"{source}: {where}: nested more than {MAX_JSON_DEPTH} levels deep")
    if obj.get("policy") is None:
        raise InvalidInputError(f"{source}: 'policy' is required (the CostPolicy as JSON)")
    for key in ("plan", "estimate", "budget_state"):
        if obj.get(key) is not None and not isinstance(obj[key], dict):
            raise InvalidInputError(f"{source}: '{key}' must be an object or null")
    # the figures the budget rules compare with the budget: a negative or non-finite one would pass them
    for key, fields in (("estimate", ("monthly_total",)), ("plan", ("monthly_cost",)),
                        ("budget_state", ("month_to_date", "forecast_monthly"))):
        for name in fields:
            value = (obj.get(key) or {}).get(name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int | float)
                                      or not math.isfinite(value) or value < 0):
                raise InvalidInputError(f"{source}: '{key}.{name}' must be a finite amount >= 0, got {value!r}")
    policy = validate_policy(obj["policy"], source=f"{source}: policy")
    validate_plan(obj.get("plan"), source=f"{source}: plan")
    for key in ("plan", "estimate"):
        _same_policy(policy, obj.get(key), key, source)
    return priced_for_facts(GateInput(
        validate_document(obj["document"], source=f"{source}: document"),
        policy,
        obj.get("plan"),
        obj.get("estimate"),
        obj.get("budget_state"),
        validate_facts(obj.get("facts"), source=f"{source}: facts"),
    ))


def validate_plan(plan: Any, *, source: str = "plan") -> None:
    """Check a gate input's plan as ``seedance estimate --plan`` checks a plan file
    (:func:`seedance.estimate.plan_json.plan_from_json`): every field of the JSON ``seedance plan``
    writes, counts whole numbers in range, weights >= 1 (the budget rules divide by them). None (no
    plan) is left to the rules (BUDGET-COST-1)."""
    from seedance.estimate.plan_json import plan_from_json
    from seedance.pricing.catalog import PricingError

    if plan is None:
        return
    try:
        plan_from_json(plan, origin=source)
    except PricingError as exc:
        raise InvalidInputError(str(exc)) from None


def validate_facts(facts: Any, *, source: str = "facts") -> dict[str, Any] | None:
    """Check facts read from AWS (seedance.gate.facts.AwsFacts); None when there are none."""
    from seedance.gate.facts import AwsFacts

    if facts is None:
        return None
    try:
        return AwsFacts.model_validate(facts).model_dump(mode="json")
    except ValidationError as exc:
        raise InvalidInputError("; ".join(_problems(exc, source))) from None


def read_json(path: Path) -> Any:
    from seedance.textfile import TextFileError, read_json_file

    try:
        return read_json_file(path)
    except TextFileError as exc:
        raise InvalidInputError(str(exc)) from None


@dataclass(frozen=True)
class StackSetup:
    """What a stack's Pulumi configuration tells the gate: its cost policy, and whether its fleets
    join a cluster (``seedance:clusterName``), which decides what the estimate prices."""

    policy_path: Path
    cluster: bool
    project: str = ""  # the project's name (Pulumi.yaml)


def stack_setup(project_dir: Path, stack: str) -> StackSetup:
    from seedance.synth.project import read_stack_config
    from seedance.synth.runtime import SynthError

    try:
        sc = read_stack_config(project_dir, stack)
    except SynthError as exc:
        raise InvalidInputError(str(exc)) from None
    cluster = bool(sc.config.get("seedance:clusterName"))
    if "seedance:policy" in sc.secure_keys:
        raise SecretPolicyError(f"{sc.origin.get('seedance:policy', sc.stack_file)}: config seedance:policy is a secure "
                                "(encrypted) value, which cannot be decrypted offline, so the cost policy it names "
                                "cannot be read", cluster=cluster, project=sc.project)
    rel = sc.config.get("seedance:policy")
    if not rel:
        raise InvalidInputError(f"{sc.stack_file}: no seedance:policy config naming the cost policy")
    # relative to the program's directory (Pulumi.yaml's main), where `pulumi up` runs the program
    return StackSetup(sc.base_dir / rel, cluster, sc.project)


class SecretPolicyError(InvalidInputError):
    """The stack's seedance:policy is encrypted: which policy it deploys cannot be read offline (its other
    settings, ``cluster`` among them, can)."""

    def __init__(self, message: str, *, cluster: bool, project: str) -> None:
        super().__init__(message)
        self.cluster = cluster
        self.project = project


def policy_path_for_stack(project_dir: Path, stack: str) -> Path:
    return stack_setup(project_dir, stack).policy_path


#: the tag that makes a group one the Cluster Autoscaler discovers (components.cluster)
_AUTOSCALER_TAG = "k8s.io/cluster-autoscaler/enabled"


def document_joins_cluster(document: dict[str, Any]) -> bool:
    """Whether a resource document (of a program that is not necessarily Seedance's) holds an Auto
    Scaling group the Cluster Autoscaler discovers, which then sizes it to demand."""
    for r in document.get("resources", []):
        if not isinstance(r, dict) or r.get("type") != "aws:autoscaling/group:Group":
            continue
        tags = (r.get("inputs") or {}).get("tags") if isinstance(r.get("inputs"), dict) else None
        if isinstance(tags, list) and any(isinstance(t, dict) and t.get("key") == _AUTOSCALER_TAG for t in tags):
            return True
    return False


def derived_parts(policy_path: Path, *, cluster: bool = True) -> tuple[Any, dict[str, Any], dict[str, Any] | None, dict[str, Any] | None]:
    """Load the policy and compute its plan and estimate with the bundled catalog (``cluster``:
    whether the stack's fleets join a cluster, see :func:`seedance.estimate.estimate_policy`)."""
    from seedance.policy import PolicyError, load_policy

    try:
        loaded = load_policy(policy_path)
    except PolicyError as exc:
        raise InvalidInputError("; ".join(str(p) for p in exc.problems)) from None
    plan, estimate = plan_and_estimate(loaded, cluster=cluster)
    return loaded, loaded.policy.model_dump(mode="json", by_alias=True), plan.to_json(), estimate.to_json()


def plan_and_estimate(loaded: Any, *, cluster: bool = True, unserved_endpoints: dict[str, str] | None = None) -> tuple[Any, Any]:
    """The plan and estimate the gate judges a loaded policy on (:func:`derived_parts`), with the
    bundled catalog and any refreshed prices; :class:`InvalidInputError` when they cannot be made."""
    from seedance.pricing.catalog import PricingError

    try:
        from seedance.estimate.estimate import estimate_policy
        from seedance.planner.planner import plan_policy
        from seedance.pricing import load_catalog
        from seedance.pricing.catalog import env_cache_dir

        catalog = load_catalog(cache_dir=env_cache_dir())  # the prices `seedance plan` and synth use
        plan = plan_policy(loaded, catalog, cluster=cluster)
        estimate = estimate_policy(loaded, catalog, plan, cluster=cluster, unserved_endpoints=unserved_endpoints)
    except PricingError as exc:  # prices that are missing or malformed: the message names the file
        raise InvalidInputError(f"{loaded.path}: cannot plan and estimate: {exc}") from None
    except Exception as exc:  # planning errors: the gate cannot decide on a budget without them
        raise InvalidInputError(f"{loaded.path}: cannot plan and estimate: {type(exc).__name__}: {exc}") from None
    return plan, estimate


def from_stack(stack: str, project_dir: Path) -> GateInput:
    """Synthesise ``stack`` of the Pulumi project, plan and estimate its policy."""
    from seedance.synth import SynthError, synthesize_stack

    setup = stack_setup(project_dir, stack)
    loaded, policy, plan, estimate = derived_parts(setup.policy_path, cluster=setup.cluster)
    planner_log = logging.getLogger("seedance.planner")
    level = planner_log.level
    # the program plans the same policy again: its planner warnings were just logged once
    planner_log.setLevel(logging.ERROR)
    try:
        document = synthesize_stack(stack, project_dir).document.to_json()
    except SynthError as exc:
        raise InvalidInputError(f"synth {stack}: {exc}") from None
    except Exception as exc:
        raise InvalidInputError(f"synth {stack}: {type(exc).__name__}: {exc}") from None
    finally:
        planner_log.setLevel(level)
    return GateInput(validate_document(document), policy, plan, estimate, None,
                     reestimate=reestimator(loaded, setup.cluster))


def from_document(path: Path, *, policy_path: Path | None, project_dir: Path) -> GateInput:
    """A resource document (or a whole gate input) read from JSON."""
    obj = read_json(path)
    if isinstance(obj, dict) and "document" in obj:
        if policy_path is not None:  # the file carries its own policy: a second one cannot apply
            raise InvalidInputError(f"--policy {policy_path}: {path} is a whole gate input with its own policy; "
                                    "--policy applies to a resource document")
        return from_json(obj, source=str(path))
    if isinstance(obj, dict) and obj.get("kind") != "ResourceDocument":
        if "steps" in obj or "changeSummary" in obj:
            raise InvalidInputError(f"{path}: a Pulumi preview, not a resource document: convert it with "
                                    f"`seedance synth --from-preview {path} --out DOC.json`, then check DOC.json")
        if "deployment" in obj or "checkpoint" in obj:
            raise InvalidInputError(f"{path}: a Pulumi stack export, not a resource document: convert it with "
                                    f"`seedance synth --from-export {path} --out DOC.json`, then check DOC.json")
    document = validate_document(obj, source=str(path))
    if policy_path is None:
        setup = stack_setup(project_dir, document["stack"])
        policy_path, cluster = setup.policy_path, setup.cluster
    else:  # no stack configuration to read: the document's groups say whether a cluster sizes them
        cluster = document_joins_cluster(document)
    loaded, policy, plan, estimate = derived_parts(policy_path, cluster=cluster)
    return GateInput(document, policy, plan, estimate, None, reestimate=reestimator(loaded, cluster))
