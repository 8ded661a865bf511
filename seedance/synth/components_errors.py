"""The domain errors a stack program can raise for bad input (reported without a traceback)."""

from __future__ import annotations


def component_errors() -> tuple[type[Exception], ...]:
    from components.common import ComponentArgsError
    from seedance.planner.demand import DemandError
    from seedance.planner.planner import PlanningError
    from seedance.pricing.catalog import PricingError
    from seedance.synth.program import StackConfigError

    return (ComponentArgsError, DemandError, PlanningError, PricingError, StackConfigError)


def domain_cause(exc: BaseException) -> Exception | None:
    """The domain error behind ``exc`` when Pulumi wrapped it: a component's check that runs in an
    ``Output.apply`` (e.g. the nodes' version against the cluster's, known once looked up) reaches the
    program as a ``ValueError`` naming the resource and input it was resolving, chained to the error."""
    domain = component_errors()
    seen: set[int] = set()
    cause: BaseException | None = exc
    while cause is not None and id(cause) not in seen:
        if isinstance(cause, domain):
            return cause  # type: ignore[return-value]
        seen.add(id(cause))
        cause = cause.__cause__
    return None
