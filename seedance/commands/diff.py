"""``seedance diff BASE HEAD``: what a policy change does to the monthly bill (for PR review)."""

from __future__ import annotations

import datetime as dt
import logging
import os
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import click

from seedance import jsonout
from seedance.clock import utc_today
from seedance.commands.outputs import NonEmptyPath
from seedance.commands.stack_option import joins_cluster, project_dir_option, stack_name
from seedance.pricing.catalog import PricingError

if TYPE_CHECKING:
    from seedance.planner.demand import DemandHistory
    from seedance.policy.loader import LoadedPolicy


def _histories(loaded: LoadedPolicy, on: dt.date) -> dict[str, tuple[str, DemandHistory]]:
    """Each fleet's demand history as the planner reads it (the file the policy names, relative to the
    policy's file, up to ``on``), with the file as the command line's path to the policy leads to it."""
    from seedance.planner.demand import read_demand_csv

    cutoff = dt.datetime(on.year, on.month, on.day, tzinfo=dt.UTC)
    return {f.name: (_shown(loaded.base_dir / f.demand_history),
                     read_demand_csv(loaded.base_dir / f.demand_history).before(cutoff))
            for f in loaded.policy.fleets if f.demand_history}


def _shown(path: Path) -> str:
    """``path`` as a report shows it: relative to the working directory when it is under it (a checkout
    and its base worktree are named relatively in a PR comment), else as the command line led to it."""
    shown = os.path.normpath(path)
    cwd = os.getcwd()
    if os.path.isabs(shown) and os.path.commonpath([cwd, shown]) == cwd:
        return os.path.relpath(shown, cwd)
    return shown


def missing_files(base_path: Path, head_path: Path, base_absent: bool = False) -> list[str]:
    """An error line for each policy file the diff reads that does not exist (a file that exists but
    cannot be read is the loader's to report): a missing BASE is what a pull request that adds the
    policy gives, which --base-absent compares with nothing."""
    out = []
    if not base_absent and not base_path.exists():
        out.append(f"{base_path}: BASE does not exist (no such file); if the change adds this policy, give "
                   "--base-absent to compare HEAD with nothing")
    if not head_path.exists():
        out.append(f"{head_path}: HEAD does not exist (no such file); expected the changed policy")
    return out


class _OncePerMessage(logging.Filter):
    """Lets a warning through once: the base and the head log the same one when they share an input."""

    def __init__(self) -> None:
        super().__init__()
        self._first: dict[tuple[str, str], logging.LogRecord] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        # one filter on every handler: the record that came first passes each of them
        return self._first.setdefault((record.name, record.getMessage()), record) is record


@click.command("diff")
@click.argument("base_path", metavar="BASE", type=click.Path(path_type=Path))
@click.argument("head_path", metavar="HEAD", type=click.Path(path_type=Path))
@click.option("-f", "--format", "fmt", type=click.Choice(["text", "json", "markdown"]), default="text", show_default=True,
              help="Output format (markdown: a pull-request comment).")
@click.option("--no-plan", is_flag=True, help="Compare the policies' explicit values instead of planning both.")
@click.option("--base-absent", is_flag=True,
              help="BASE does not exist (a pull request that adds the policy): compare HEAD with nothing, every line "
                   "an addition and the base total 0. BASE must then not exist.")
@click.option("--as-of", type=click.DateTime(formats=["%Y-%m-%d"]), default=None,
              help="Decision date for both plans (default: today, UTC). Each side reads the demand histories its own "
                   "policy names, relative to its file: a note says when a fleet's differ.")
@click.option("--cache-dir", type=NonEmptyPath(path_type=Path, file_okay=False), default=None, envvar="SEEDANCE_PRICE_CACHE",
              help="Overlay prices refreshed into this cache (default: $SEEDANCE_PRICE_CACHE if set).")
@click.option("--stack", default=None, callback=stack_name,
              help="Pulumi stack that deploys both: the value of the seedance:stack cost-allocation tag; its "
                   "Pulumi.STACK.yaml in --project-dir must exist: when it names no seedance:clusterName, both are "
                   "planned and priced as deployed without a cluster (groups at their desired size; no StorageClass "
                   "volumes, backups or EKS).")
@project_dir_option
def diff(base_path: Path, head_path: Path, fmt: str, no_plan: bool, base_absent: bool, as_of: dt.datetime | None, cache_dir: Path | None,
         stack: str | None, project_dir: Path) -> int:
    """Compare the monthly estimate of BASE (e.g. the policy on main) with HEAD (the changed policy).

    Both are planned with the same prices and decision date (unless --no-plan) and estimated
    offline; the report shows the total, budget share, fleets, services and resources that changed
    and the planner decisions that moved. Exit 0, or 1 if either policy is invalid or does not
    exist (see --base-absent).
    """
    from seedance.cli import console
    from seedance.commands.plan import check_cache_dir, unplannable_fleets
    from seedance.estimate.diff import (ABSENT_BASE_NOTE, cached_regions, compare, compare_network, compare_with_nothing,
                                        demand_notes, fleet_types, held_after_removal)
    from seedance.estimate.estimate import estimate_policy
    from seedance.estimate.report import diff_markdown, render_diff_text
    from seedance.planner.demand import DemandError
    from seedance.planner.planner import PlanningError, plan_policy
    from seedance.policy import load_policy
    from seedance.planner.type_checks import check_instance_types
    from seedance.pricing.catalog import load_catalog

    check_cache_dir(cache_dir)  # usage errors first, as for `seedance plan`: exit 2
    if base_absent and (base_path.exists() or base_path.is_symlink()):
        raise click.UsageError(f"--base-absent: {base_path} exists; leave --base-absent out to compare with it")
    read = [head_path] if base_absent else [base_path, head_path]
    cluster = joins_cluster(project_dir, stack, read, must_exist=True)  # a --stack without its file: exit 2
    missing = missing_files(base_path, head_path, base_absent)
    if missing:  # bad input (exit 1), never taken as an empty policy
        for line in missing:
            console(stderr=True).print(f"error: {line}", markup=False)
        return 1
    # PolicyError is reported by the CLI's error boundary
    base = None if base_absent else load_policy(base_path)
    head = load_policy(head_path)
    sides = [("head", head)] if base is None else [("base", base), ("head", head)]
    # one date for both sides (default today, UTC, as `seedance plan`), recorded in the report
    when = as_of.date() if as_of else utc_today()
    repeats = _OncePerMessage()  # both sides plan from the same histories: one warning says it for both
    handlers = list(logging.getLogger().handlers)  # a logger's filter would not see its children's records
    for handler in handlers:
        handler.addFilter(repeats)
    data_notes: list[str] = []
    try:
        catalog = load_catalog(cache_dir=cache_dir)
        for _, loaded in sides:
            check_instance_types(loaded, catalog)  # PolicyError: reported by the CLI's error boundary
        plans = {side: None if no_plan else plan_policy(loaded, catalog, as_of=when, cluster=cluster)
                 for side, loaded in sides}
        base_plan, head_plan = plans.get("base"), plans["head"]
        # a fleet no instance type can serve costs nothing in its estimate: the difference would be a
        # saving (or an increase) that is not real
        stuck = [f"{side}: {line}" for side, p in plans.items() if p is not None for line in unplannable_fleets(p)]
        if not stuck:
            ests = {side: estimate_policy(loaded, catalog, plans[side], as_of=when, stack=stack, cluster=cluster)
                    for side, loaded in sides}
            base_est, head_est = ests.get("base"), ests["head"]
            if no_plan:  # without plans, the estimate says which fleets no instance type can serve
                stuck = [f"{side}: fleet {u['resource']!r} cannot be priced: {u['reason']}"
                         for side, est in ests.items() for u in est.unpriced
                         if "no matching type" in u["component"]]
        if stuck:
            for line in stuck:
                console(stderr=True).print(f"error: {line}", markup=False)
            return 1
        if base is None or base_est is None:  # --base-absent: HEAD against nothing
            result = compare_with_nothing(head_est, head_plan)
        else:
            result = compare(base_est, head_est, base_plan, head_plan)
            # the network's routes too: an endpoint the stack stops declaring is deleted, whatever it costs
            result = replace(result, decisions=[*result.decisions, *compare_network(base.policy, head.policy, catalog)])
            if base_plan is not None and cluster:  # the planner reads the histories (a stack without a cluster: none)
                data_notes = demand_notes(_histories(base, when), _histories(head, when), when)
    except (PricingError, DemandError, PlanningError) as exc:
        console(stderr=True).print(f"error: {exc}", markup=False)
        return 1
    finally:
        for handler in handlers:
            handler.removeFilter(repeats)
    if base is None:
        notes = [ABSENT_BASE_NOTE]
    else:
        notes = [f"the {what} changes from {a} to {b}"
                 for what, a, b in (("region", base.policy.cloud.region, head.policy.cloud.region),
                                    ("policy", base.policy.metadata.name, head.policy.metadata.name),
                                    ("environment", base.policy.metadata.environment.value,
                                     head.policy.metadata.environment.value))
                 if a != b]  # a move, not only a change of size
        notes += held_after_removal(base.policy, head.policy, when, fleet_types(base_est), fleet_types(head_est))
        notes += data_notes
    regions = [loaded.policy.cloud.region for _, loaded in sides]
    result = replace(result, notes=notes, as_of=when.isoformat(),
                     price_cache_regions=cached_regions(catalog.refreshed_regions, *regions))
    if fmt != "text":  # the text report prints them itself: on stderr too, a terminal would show each twice
        for note in notes:  # in the JSON or markdown report, and on stderr, where a reader sees them
            console(stderr=True).print(f"note: {note}", markup=False)
    out = console()
    if fmt == "json":
        out.print(jsonout.dumps(result.to_json(), indent=2), markup=False)
    elif fmt == "markdown":
        # a missing template: clean error, exit 1; the estimates say which lines have no price
        out.print(diff_markdown(result, base=base_est, head=head_est), markup=False, end="")
    else:
        render_diff_text(out, result, base=base_est, head=head_est)
    return 0
