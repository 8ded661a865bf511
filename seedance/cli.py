"""The ``seedance`` command line: parsing and dispatch only; the work lives in the library."""

from __future__ import annotations

import datetime as dt
import io
import logging
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import click
from rich.console import Console

from seedance import jsonout
from seedance import __version__
from seedance.commands.outputs import NonEmptyPath
from seedance.policy import LoadedPolicy, PolicyError, Problem, json_schema, load_policy
from seedance.summary import policy_summary, render_summary
from seedance.templating import ReportTemplateError

log = logging.getLogger("seedance")

FORMATS = click.Choice(["text", "json"])


#: exit status when the reader of the output goes away early (`seedance check | head`): 128 + SIGPIPE,
#: as a shell reports a command SIGPIPE ended; never 0 or 1, which are decisions
EXIT_OUTPUT_CLOSED = 141


class OutputClosed(Exception):
    """The reader of the command's output closed it before everything was written."""


class _Console(Console):
    def on_broken_pipe(self) -> None:  # rich's default exits 1, which reads as "invalid" or "blocked"
        raise OutputClosed


def console(stderr: bool = False) -> Console:
    # soft_wrap keeps file:line:column messages on one line whatever the terminal width
    # emoji=False: ":x:" or ":cloud:" in a user's string (a waiver reason, a resource type) stays as written
    return _Console(stderr=stderr, soft_wrap=True, highlight=False, emoji=False,
                    width=None if sys.stdout.isatty() else 160)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="seedance", message="%(prog)s %(version)s")
@click.option("-v", "--verbose", is_flag=True, help="Log progress to stderr.")
def app(verbose: bool) -> None:
    """Declarative cost policies for AI/GPU compute: validate, plan, estimate, synthesise and gate deploys."""
    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING, format="%(levelname)s %(name)s: %(message)s")


@app.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("-f", "--format", "fmt", type=FORMATS, default="text", show_default=True, help="Output format.")
@click.option("--cache-dir", type=NonEmptyPath(path_type=Path, file_okay=False), default=None, envvar="SEEDANCE_PRICE_CACHE",
              help="Check instance types against prices refreshed into this cache too (default: $SEEDANCE_PRICE_CACHE "
                   "if set; else the bundled catalog only), as plan and estimate do.")
@click.option("--policies", "policies_dir", type=NonEmptyPath(path_type=Path, exists=True, file_okay=False), default=None,
              help="The gate's Rego policy directory whose controls waivers may name, as for `seedance check "
                   "--policies` (default: $SEEDANCE_POLICIES if set; else the policies bundled with Seedance).")
@click.option("--as-of", type=click.DateTime(formats=["%Y-%m-%d"]), default=None,
              help="The day waivers are held against: one that expired before it is a warning (default: today, UTC).")
def validate(paths: tuple[Path, ...], fmt: str, cache_dir: Path | None, policies_dir: Path | None,
             as_of: dt.datetime | None) -> int:
    """Validate cost policies; exit 0 when all are valid, 1 otherwise."""
    from seedance.commands.plan import check_cache_dir

    check_cache_dir(cache_dir)
    out = console()
    results = []
    for path, loaded, problems, warnings in _validate_each(paths, cache_dir, policies_dir, as_of):
        if loaded is None:
            results.append({"path": str(path), "valid": False, "errors": [str(p) for p in problems],
                            "warnings": [str(w) for w in warnings]})
            if fmt == "text":
                _print_problems(out, problems)
                _print_problems(out, warnings, "[yellow]warning[/yellow]")
                out.print(f"[red]✗ {_esc(str(path))}: {len(problems)} error(s)[/red]")
            continue
        summary = policy_summary(loaded.policy)
        results.append({"path": str(path), "valid": True, "errors": [], "warnings": [str(w) for w in warnings],
                         "summary": summary})
        if fmt == "text":
            _print_problems(out, warnings, "[yellow]warning[/yellow]")
            out.print(f"[green]✓[/green] {_esc(str(path))}: valid ({_esc(summary['headline'])})")
    ok = all(r["valid"] for r in results)
    if fmt == "json":
        out.print(jsonout.dumps(results, indent=2), markup=False)
    return 0 if ok else 1


@app.command()
@click.option("--reference", is_flag=True, help="Print the Markdown reference (as embedded in the README) instead.")
def schema(reference: bool) -> int:
    """Print the JSON Schema of the cost policy language."""
    if reference:
        from seedance.policy.reference import reference_markdown

        click.echo(reference_markdown(), nl=False)
    else:
        click.echo(jsonout.dumps(json_schema(), indent=2))
    return 0


@app.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
def summary(paths: tuple[Path, ...]) -> int:
    """Validate policies (as `seedance validate` does) and print a summary table of each."""
    out = console()
    ok = True
    for path, loaded, problems, warnings in _validate_each(paths):
        _print_problems(out, problems)
        _print_problems(out, warnings, "[yellow]warning[/yellow]")
        if loaded is None:
            ok = False
        else:
            render_summary(out, str(path), loaded.policy)
    return 0 if ok else 1


# Commands of the other areas live in seedance/commands/<area>.py as click commands or groups;
# each is registered here with one line (explicit, greppable; no import side effects).
_EXTRA_COMMANDS: list[tuple[str, str]] = [
    # ("seedance.commands.<module>", "<attribute>"),
    ("seedance.commands.prices", "prices"),
    ("seedance.commands.estimate", "estimate"),
    ("seedance.commands.diff", "diff"),
    ("seedance.commands.init", "init"),
    ("seedance.commands.plan", "plan"),
    ("seedance.commands.synth", "synth"),
    ("seedance.commands.check", "check"),
    ("seedance.commands.check", "policy"),
    ("seedance.commands.budget", "budget"),
]


def _register_extra_commands() -> None:
    import importlib

    for module, attribute in _EXTRA_COMMANDS:
        app.add_command(getattr(importlib.import_module(module), attribute))


_register_extra_commands()


def _validate_each(paths: tuple[Path, ...], cache_dir: Path | None = None, policies_dir: Path | None = None,
                   as_of: dt.datetime | None = None) -> Iterator[tuple[Path, LoadedPolicy | None, list[Problem], list[Problem]]]:
    """Each path with its loaded policy (None when it has errors), its errors and its warnings: those
    of :func:`_load_each`, then its waivers' against the gate's controls on ``as_of`` (default today)."""
    from seedance.clock import utc_today

    controls = _gate_controls(policies_dir)
    on = as_of.date() if as_of is not None else utc_today()
    for path, loaded, problems in _load_each(paths, cache_dir):
        warnings: list[Problem] = []
        if loaded is not None:
            problems, warnings = _waiver_problems(loaded, controls, on)
            if problems:
                loaded = None
            else:
                warnings += _cluster_warnings(loaded)
        yield path, loaded, problems, warnings


def _cluster_warnings(loaded: LoadedPolicy) -> list[Problem]:
    """What the stack program refuses, before any resource, for a stack of this policy that joins a
    cluster (``seedance:clusterName``, a stack setting the policy does not hold, so a warning): a
    group whose Cluster Autoscaler tags do not fit beside the stack's."""
    from components.common import TagSet
    from components.platform import group_tag_issues
    from seedance.policy.loader import locate

    out = []
    for loc, where, what in group_tag_issues(loaded.policy, TagSet.from_policy(loaded.policy, "stack"), "cluster"):
        hit = locate(loaded.tree, loc)
        out.append(Problem(hit.location, hit.path, "a stack of this policy that joins a cluster (seedance:clusterName) "
                           f"fails before any resource: {where}: {what}", hit.context))
    return out


def _load_each(paths: tuple[Path, ...], cache_dir: Path | None = None) -> Iterator[tuple[Path, LoadedPolicy | None, list[Problem]]]:
    """Each path with its loaded policy, or None and its problems: the language's, then the instance
    types it names that the bundled price catalog (or ``$SEEDANCE_PRICE_CACHE``) cannot serve, and
    the demand histories the planner could not read."""
    from seedance.planner.demand import history_problems
    from seedance.planner.type_checks import instance_type_problems
    from seedance.pricing.catalog import PricingError, load_catalog

    catalog = None
    for path in paths:
        try:
            loaded = load_policy(path)
        except PolicyError as exc:
            yield path, None, exc.problems
            continue
        if catalog is None:
            try:
                catalog = load_catalog(cache_dir=cache_dir)
            except PricingError as exc:  # the instance types cannot be checked: not valid, as plan would fail too
                raise click.ClickException(f"prices: {exc}; the instance types the policies name cannot be checked") from None
        problems = instance_type_problems(loaded, catalog) + history_problems(loaded)
        yield (path, None, problems) if problems else (path, loaded, [])


def _print_problems(out: Console, problems: list[Problem], label: str = "[red]error[/red]") -> None:
    for problem in problems:
        out.print(f"{label} {_esc(str(problem))}")


def _gate_controls(policies_dir: Path | None) -> frozenset[str] | None:
    """The control ids waivers may name: those of ``policies_dir``, else of the policies the gate uses
    by default (None, with a warning, when there are none to read: waivers are then not checked)."""
    from seedance.policy.controls import control_ids
    from seedance.resources import ResourceNotFoundError, policies_dir as default_policies_dir

    try:
        root = policies_dir if policies_dir is not None else default_policies_dir()
    except ResourceNotFoundError as exc:
        log.warning("waivers' controls not checked: %s", exc)
        return None
    found = control_ids(root)
    if not found and policies_dir is not None:  # named on the command line: not a gate policy directory
        raise click.BadParameter(f"{policies_dir} holds no control rule (gdpr/, mlps/, budget/ with METADATA "
                                 "blocks); expected a gate policy directory laid out like policies/",
                                 param_hint="--policies")
    if not found:
        log.warning("waivers' controls not checked: %s holds no control rule (gdpr/, mlps/, budget/)", root)
        return None
    return found


def _waiver_problems(loaded: LoadedPolicy, controls: frozenset[str] | None,
                     on: dt.date) -> tuple[list[Problem], list[Problem]]:
    """The errors and warnings of the policy's waivers, at their lines (see semantics.waiver_issues)."""
    from seedance.policy.loader import locate
    from seedance.policy.semantics import waiver_issues

    def at(issues: list) -> list[Problem]:
        hits = [(locate(loaded.tree, loc), message) for loc, message, *_ in issues]
        return [Problem(hit.location, hit.path, message, hit.context) for hit, message in hits]

    errors, warnings = waiver_issues(loaded.policy.waivers, controls, on)
    return at(errors), at(warnings)


def _esc(text: str) -> str:
    from rich.markup import escape

    return escape(text)


def main(argv: list[str] | None = None) -> int:
    """Entry point with one error boundary: never a raw traceback."""
    _buffer_stdout()
    try:
        # click's own main() would turn a broken pipe into exit 1; the context is run here instead, so
        # that every outcome, a closed output included, gets this boundary's exit status
        with app.make_context("seedance", list(sys.argv[1:] if argv is None else argv)) as ctx:
            rv = app.invoke(ctx)
        return rv if isinstance(rv, int) else 0
    except click.exceptions.Exit as exc:
        return int(exc.exit_code or 0)
    except click.exceptions.Abort:
        _say(lambda: console(stderr=True).print("aborted", markup=False))
        return 1
    except click.ClickException as exc:
        _say(exc.show)
        return 2 if isinstance(exc, click.UsageError) else 1
    except PolicyError as exc:
        err = console(stderr=True)
        _say(lambda e=exc: [err.print(f"error {problem}", markup=False) for problem in e.problems])
        return 1
    except (ReportTemplateError, jsonout.NonFiniteNumberError) as exc:
        _say(lambda e=exc: console(stderr=True).print(f"error: {e}", markup=False))
        return 1
    except KeyboardInterrupt:
        return 130
    except (OutputClosed, BrokenPipeError):
        _silence_stdout()
        return EXIT_OUTPUT_CLOSED
    except Exception as exc:  # the error boundary: a short message, details in the log
        _say(lambda e=exc: console(stderr=True).print(
            f"internal error: {type(e).__name__}: {e} (run with -v for details)", markup=False))
        if logging.getLogger().isEnabledFor(logging.INFO):
            log.exception("traceback")
        return 2


def _buffer_stdout() -> None:
    """Give an unbuffered stdout (``PYTHONUNBUFFERED``, ``python -u``) a buffer. Its text layer writes
    to the file descriptor directly and drops what a short write leaves, which is what a pipe whose
    reader has gone away returns first: the output was cut with exit 0, never a broken pipe (141). A
    buffered writer writes the rest and so meets the closed pipe. Lines still go out as written. Only
    the interpreter's own stdout is replaced (not a stream a caller, such as a test runner, put there)."""
    stream = sys.stdout
    raw = getattr(stream, "buffer", None)
    if stream is sys.__stdout__ and isinstance(raw, io.RawIOBase):
        sys.stdout = io.TextIOWrapper(io.BufferedWriter(raw), encoding=stream.encoding, errors=stream.errors,
                                      line_buffering=True)


def _say(report: Callable[[], object]) -> None:
    """Print an error's message; a reader of stderr that has gone away does not change the exit
    status the error has (a usage error stays 2, a policy error 1)."""
    try:
        report()
    except (OutputClosed, BrokenPipeError):
        _silence_stdout()


def _silence_stdout() -> None:
    try:  # nothing more reaches a closed pipe, not even the interpreter's last flush
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.dup2(devnull, sys.stderr.fileno())
    except (OSError, ValueError):
        pass


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
