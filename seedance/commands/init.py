"""``seedance init DIR``: a new Pulumi project that runs Seedance, with a starter cost policy."""

from __future__ import annotations

import dataclasses
import shlex
from pathlib import Path

import click

from seedance.commands.outputs import NonEmptyPath
from seedance.policy.model import Environment, Framework

#: The command-line option each field of ScaffoldOptions comes from (a malformed one is a usage error, exit 2).
_OPTIONS = {"stack": "--stack", "region": "--region", "frameworks": "--framework", "budget": "--budget",
            "cluster_name": "--cluster-name", "account_id": "--account-id", "existing_trail": "--existing-trail"}
#: The starter policy's fields an option is written to: a problem there is the option's.
_POLICY_FIELDS = (("metadata.owner", "--owner"), ("budget.notify.emails", "--owner"),
                  ("metadata.tags.team", "--team"), ("metadata.tags.cost-center", "--cost-center"),
                  ("budget.monthlyAmount", "--budget"), ("compliance.existingTrail", "--existing-trail"))


def _option_of(path: str | None) -> str | None:
    """The option whose value the starter policy's field ``path`` holds, if any."""
    for field, option in _POLICY_FIELDS:
        if path == field or (path or "").startswith((f"{field}.", f"{field}[")):
            return option
    return None


@click.command("init")
@click.argument("directory", type=click.Path(path_type=Path, file_okay=False))
@click.option("--stack", default="dev", show_default=True, help="First stack of the project.")
@click.option("--region", required=True, help="AWS region of the stack (one the price catalog knows).")
@click.option("--environment", type=click.Choice([e.value for e in Environment]), default="dev", show_default=True)
@click.option("--framework", "frameworks", multiple=True, type=click.Choice([f.value for f in Framework]),
              help="Compliance framework (repeatable). Default: gdpr for prod in eu-*, mlps-l3 for prod in cn-*, else none.")
@click.option("--no-framework", is_flag=True, help="No compliance framework, whatever the region.")
@click.option("--account-id", default=None, help="AWS account id (12 digits) the stack may deploy to.")
@click.option("--owner", default="platform-team@example.com", show_default=True, help="Mailbox that owns the spend.")
@click.option("--budget", type=float, default=None,
              help="Monthly budget in the region's currency (default: the starter's estimate at most 45% of it).")
@click.option("--team", default=None, help="Cost-allocation tag 'team' (default: the project name).")
@click.option("--cost-center", default="unassigned", show_default=True,
              help="Cost-allocation tag 'cost-center'; the gate blocks until a real one is set.")
@click.option("--cluster-name", default=None, help="EKS cluster the nodes join (seedance:clusterName).")
@click.option("--project", "project", default=None, help="Pulumi project name (default: the directory's name).")
@click.option("--existing-trail", default=None, metavar="ARN",
              help="A CloudTrail trail that already records the account (an organization trail): the stack creates "
                   "no management-events trail of its own (compliance.existingTrail).")
@click.option("--cache-dir", type=NonEmptyPath(path_type=Path, file_okay=False), default=None, envvar="SEEDANCE_PRICE_CACHE",
              help="Prices refreshed into this cache too, for a region only `seedance prices refresh` prices "
                   "(default: $SEEDANCE_PRICE_CACHE, else the bundled catalog).")
def init(directory: Path, stack: str, region: str, environment: str, frameworks: tuple[str, ...], no_framework: bool,
         account_id: str | None, owner: str, budget: float | None, team: str | None, cost_center: str,
         cluster_name: str | None, project: str | None, existing_trail: str | None, cache_dir: Path | None) -> int:
    """Write a Pulumi project into DIRECTORY: Pulumi.yaml, Pulumi.STACK.yaml, __main__.py,
    requirements.txt and a starter policy in policies/STACK.yaml that validates and passes the gate.

    Nothing is overwritten: if any of the files exists, nothing is written (exit 1). A malformed
    option (a bad name, account id or budget, an unknown region, a framework the region cannot have)
    exits 2 and writes nothing.
    """
    from seedance.cli import console
    from seedance.planner.planner import PlanningError
    from seedance.policy import PolicyError
    from seedance.pricing.catalog import PricingError, UnknownRegionError, load_catalog, read_caches
    from seedance.scaffold import (
        ScaffoldError,
        ScaffoldOptionError,
        ScaffoldOptions,
        check_free,
        load_starter,
        project_files,
        project_name,
        starter_estimate,
        suggested_budget,
        write_project,
    )

    err = console(stderr=True)
    if cache_dir is not None and not cache_dir.exists():
        if click.get_current_context().get_parameter_source("cache_dir") is not click.core.ParameterSource.ENVIRONMENT:
            raise click.BadParameter(f"{cache_dir} does not exist: expected a price cache directory (`seedance prices "
                                     "refresh --cache-dir DIR` makes one)", param_hint="--cache-dir")  # exit 2, as plan's
        # $SEEDANCE_PRICE_CACHE may be set before the first `prices refresh` creates it
        err.print(f"warning: $SEEDANCE_PRICE_CACHE names {cache_dir}, which does not exist yet: using the bundled "
                  "prices", markup=False)
        cache_dir = None
    if no_framework and frameworks:
        raise click.UsageError("--no-framework and --framework exclude each other: give one of them")
    chosen = () if no_framework else (tuple(Framework(f) for f in dict.fromkeys(frameworks)) if frameworks else None)
    opts = ScaffoldOptions(project=project or project_name(directory), stack=stack, region=region,
                           environment=Environment(environment), frameworks=chosen, account_id=account_id,
                           owner=owner, budget=budget, cluster_name=cluster_name, team=team, cost_center=cost_center,
                           existing_trail=existing_trail)
    try:
        catalog = load_catalog(cache_dir=cache_dir)
        files = project_files(opts, catalog)
        check_free(directory, files)
        policy_file = f"policies/{stack}.yaml"
        loaded = load_starter(files[policy_file])  # the starter must load before anything is written
        estimate = starter_estimate(loaded, catalog, cluster=cluster_name is not None)
        if budget is None:  # give the starter a budget no threshold trips on
            opts = dataclasses.replace(opts, budget=suggested_budget(estimate))
            files = project_files(opts, catalog)
            load_starter(files[policy_file])
        written = write_project(directory, files)
    except ScaffoldOptionError as exc:
        if exc.option == "project" and not project:  # the name came from DIRECTORY
            raise click.BadParameter(f"{exc} (the directory's name); give the project a name with --project",
                                     param_hint="DIRECTORY") from None
        raise click.BadParameter(str(exc), param_hint=_OPTIONS.get(exc.option, "--project")) from None
    except UnknownRegionError as exc:  # the only region asked about is --region's
        raise click.BadParameter(str(exc), param_hint="--region") from None
    except (ScaffoldError, PricingError, PlanningError, UnicodeError) as exc:
        err.print(f"error: {exc}", markup=False)
        return 1
    except PolicyError as exc:  # the options made a starter that does not validate
        options = [_option_of(problem.path) for problem in exc.problems]
        if exc.problems and all(options):  # every problem is an option's value (--owner, --team, --cost-center)
            raise click.BadParameter(
                "the starter policy would not validate: "
                + "; ".join(f"{problem.path}: {problem.message}" for problem in exc.problems),
                param_hint=list(dict.fromkeys(o for o in options if o))) from None
        for problem in exc.problems:
            where = problem.path or "(document)"
            err.print(f"error: the starter policy would not validate: {where}: {problem.message}", markup=False)
        return 1
    out = console()
    for p in written:
        out.print(f"wrote {p}", markup=False)
    assert opts.budget is not None
    note = " (the starter's estimate at most 45% of it, rounded up: below every threshold)" if budget is None else ""
    cur = loaded.policy.budget.currency
    out.print(f"budget: {opts.budget:,.2f} {cur} per month{note}; the starter's estimate is {estimate:,.2f} {cur}",
              markup=False)
    if estimate > opts.budget:
        err.print("warning: the budget is below the starter's estimate: `seedance check` will block until one of them "
                  "changes", markup=False)
    if cost_center == "unassigned":
        err.print("warning: no --cost-center: the policy's cost-center tag is 'unassigned', and `seedance check` "
                  "blocks the deploy until it names a real cost center (metadata.tags.cost-center)", markup=False)
    where = shlex.quote(str(directory))
    then = ""
    if cache_dir is not None and any(doc.get("region") == region for doc in read_caches(cache_dir)):
        # the gate must price as the starter's budget was set: from the cache
        cache = shlex.quote(str(cache_dir.resolve()))
        why = "priced only by that refresh cache" if not load_catalog().has_region(region) else \
            "priced from that refresh cache, as the budget was set"
        then = f"`export SEEDANCE_PRICE_CACHE={cache}` ({region} is {why}), "
    out.print(f"next: edit the 'yours:' lines of policies/{stack}.yaml, then {then}"
              f"`seedance check {shlex.quote(stack)} --project-dir {where}` and `pulumi up` in {where}", markup=False)
    return 0
