"""The domain errors a stack program can raise for bad input (reported without a traceback)."""

from __future__ import annotations


def component_errors() -> tuple[type[Exception], ...]:
    from components.common import ComponentArgsError
    from seedance.planner.demand import DemandError
    from seedance.planner.planner import PlanningError
    from seedance.pricing.catalog import PricingError
    from seedance.synth.program import StackConfigError

    return (ComponentArgsError, DemandError, PlanningError, PricingError, StackConfigError)
