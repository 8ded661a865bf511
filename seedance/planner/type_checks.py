"""The instance types a policy names, checked against the price catalog, with file:line:field.

``instanceTypes.allowed`` and ``preferred`` are plain strings to the policy language; only the
catalog knows whether ``g5.xlarg`` is a type of the stack's region and whether a type can hold a
fleet's unit. These checks run before a plan or estimate (and in ``seedance validate``), so a typo
or a type that cannot serve the fleet is reported where it is written, not as a planning failure
of the whole file.
"""

from __future__ import annotations

from seedance.planner.instances import describe_requirement, unit_weight
from seedance.planner.planner import offer_view, requirement
from seedance.policy.errors import Problem
from seedance.policy.loader import LoadedPolicy
from seedance.pricing.catalog import Catalog, UnknownPriceError, missing_region_message


def instance_type_problems(loaded: LoadedPolicy, catalog: Catalog) -> list[Problem]:
    """Every type of ``instanceTypes.allowed`` / ``preferred`` the catalog does not price in the
    policy's region, and every ``allowed`` list none of whose types can hold the fleet's unit (the
    fleet could not run at all). For a region the catalog does not price, that alone, at
    ``cloud.region``."""
    policy = loaded.policy
    region = policy.cloud.region
    if not catalog.has_region(region):
        return [Problem(loaded.location(("cloud", "region")), "cloud.region",
                        missing_region_message(region, catalog.regions()))]
    problems: list[Problem] = []
    for i, fleet in enumerate(policy.fleets):
        context = f"fleet {fleet.name!r}"
        usable: list[str] = []
        reasons: list[str] = []
        for key, types in (("allowed", fleet.instance_types.allowed), ("preferred", fleet.instance_types.preferred)):
            for j, name in enumerate(types):
                path = f"fleets[{i}].instanceTypes.{key}[{j}]"
                try:
                    offer = catalog.instance(region, name)
                except UnknownPriceError as exc:
                    problems.append(Problem(loaded.location(("fleets", i, "instanceTypes", key, j)), path, str(exc),
                                            context))
                    continue
                if key == "allowed":
                    weight, why = unit_weight(offer_view(offer), requirement(fleet))
                    if weight:
                        usable.append(name)
                    else:
                        reasons.append(f"{name}: {why}")
        if fleet.instance_types.allowed and not usable and reasons and fleet.capacity.max > 0:  # 0: disabled
            problems.append(Problem(
                loaded.location(("fleets", i, "instanceTypes", "allowed")), f"fleets[{i}].instanceTypes.allowed",
                "no allowed type can hold the fleet's unit, so the fleet cannot run: " + "; ".join(reasons), context))
        elif not fleet.instance_types.allowed:  # a disabled fleet's group still lists a type
            problem = _no_type_problem(loaded, catalog, i)
            if problem is not None:
                problems.append(problem)
    return problems


def _no_type_problem(loaded: LoadedPolicy, catalog: Catalog, i: int) -> Problem | None:
    """A problem at the fleet's ``gpu`` / ``cpu`` when no type of the catalog in the region can hold
    its unit (the planner would find nothing to run it on), naming why the nearest types cannot."""
    fleet = loaded.policy.fleets[i]
    region = loaded.policy.cloud.region
    req = requirement(fleet)
    near: list[str] = []
    for offer in catalog.instances(region):
        view = offer_view(offer)
        weight, why = unit_weight(view, req)
        if weight:
            return None
        if req.gpu_model is not None and view.gpu_model == req.gpu_model:
            near.append(f"{offer.instance_type}: {why}")
    field = "gpu" if fleet.gpu is not None else "cpu"
    what = describe_requirement(req)
    return Problem(loaded.location(("fleets", i, field)), f"fleets[{i}].{field}",
                   f"no instance type of the price catalog in {region} holds {what}, so the fleet cannot run"
                   + (f": {'; '.join(sorted(near)[:5])}" if near else ""), f"fleet {fleet.name!r}")


def check_instance_types(loaded: LoadedPolicy, catalog: Catalog) -> None:
    """Raise :class:`~seedance.policy.errors.PolicyValidationError` with every problem
    :func:`instance_type_problems` finds (the CLI prints each as file:line:column: field: message)."""
    from seedance.policy.errors import PolicyValidationError

    problems = instance_type_problems(loaded, catalog)
    if problems:
        raise PolicyValidationError(problems)
