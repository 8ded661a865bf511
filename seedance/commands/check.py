"""``seedance check`` (the deploy gate) and ``seedance policy test`` (the Rego unit tests)."""

from __future__ import annotations

import datetime as dt
import logging
import re
from pathlib import Path

import click
from rich.markup import escape

from seedance import jsonout
from seedance.commands.outputs import NonEmptyPath
from seedance.gate.bundle import load_bundle
from seedance.gate.engine import make_engine
from seedance.atomic import write_text_atomically
from seedance.gate.errors import GateError, InvalidInputError, PolicyLoadError
from seedance.gate.facts import FactsError, lookup
from seedance.gate.inputs import GateInput
from seedance.gate.report import FORMATS, print_text, render, render_sarif_undecided
from seedance.templating import ReportTemplateError, fit, md_text

log = logging.getLogger(__name__)

EXIT_PASS, EXIT_FAIL, EXIT_UNDECIDED = 0, 1, 2


def _console(stderr: bool = False):
    from seedance.cli import console

    return console(stderr=stderr)


def _undecided(fmt: str, stack: str, problems: list[str], *, artifact: str | None = None) -> int:
    """Fail closed: say why, in the requested format, and never print a passing result.

    ``artifact``: the file a SARIF result points at (the stack's settings file or the document)."""
    if fmt == "json":
        click.echo(jsonout.dumps({"apiVersion": "seedance.io/v1", "kind": "GateDecision", "stack": stack,
                               "decision": "undecided", "errors": problems}, indent=2, ensure_ascii=False))
    elif fmt == "sarif":  # a CI step that uploads the file still gets SARIF: a run that did not complete
        click.echo(render_sarif_undecided(stack, problems, artifact=artifact), nl=False)
    elif fmt in ("markdown", "pr-comment"):
        head = f"⚠️ **Seedance gate — {md_text(stack)}: undecided** (the deploy is blocked)\n\n"
        lines = [f"- {md_text(p)}\n" for p in problems]
        click.echo(fit(lambda k: head + "".join(lines[:k]) + (f"\n_… {len(lines) - k:,} more problem(s) not shown: "
                                                                 "see stderr or `--format json`._\n" if k < len(lines) else ""),
                       len(lines)), nl=False)
    else:  # text: the report on stdout too, so a pipeline's `> report.txt` holds why the deploy is blocked
        out = _console()
        for p in problems:
            out.print(f"undecided {p}", markup=False, highlight=False)
        out.print(f"✗ undecided {stack}: the gate could not decide, so the deploy is blocked", markup=False,
                  highlight=False)
    err = _console(stderr=True)
    for p in problems:
        err.print(f"[red]undecided[/red] {escape(p)}")
    return EXIT_UNDECIDED


def _with_facts(gate_input: GateInput, *, save: Path | None) -> GateInput:
    """The gate input with what EC2 says of the subnets and security groups the stack is given and of
    its instance types (raises FactsError); written to ``save`` too when given."""
    facts = lookup(gate_input.policy, gate_input.document)
    _console(stderr=True).print(f"read {len(facts.subnets)} subnet(s), {len(facts.security_groups)} security group(s) and "
                                f"{len(facts.instance_types)} instance type(s) from EC2 in {escape(facts.region)}"
                                + (f", {sum(map(len, facts.vpc_endpoints.services.values()))} VPC endpoint(s) of "
                                   f"{escape(facts.vpc_endpoints.vpc_id)} for {escape(', '.join(facts.vpc_endpoints.services))}"
                                   if facts.vpc_endpoints else "")
                                + (f", and {len(facts.trails)} trail(s) from CloudTrail" if facts.trails else ""))
    as_json = facts.model_dump(mode="json")
    if save is not None:
        try:
            write_text_atomically(save, jsonout.dumps(as_json, indent=2, sort_keys=True) + "\n")
        except OSError as exc:
            raise FactsError(f"--save-facts {save}: cannot write: {exc.strerror}") from None
    return gate_input.with_facts(as_json)


def _with_recorded_facts(gate_input: GateInput, path: Path) -> GateInput:
    """The gate input with facts an earlier ``--lookup --save-facts`` wrote (raises InvalidInputError)."""
    from seedance.gate.inputs import read_json, validate_facts

    from seedance.gate.facts import existing_endpoint_services, existing_endpoint_vpc

    raw = read_json(path)
    if raw is None:  # `null` is no facts at all, not "nothing to say": as `[]`, the gate cannot decide on it
        raise InvalidInputError(f"{path}: holds null, not the facts an earlier --lookup --save-facts wrote")
    facts = validate_facts(raw, source=str(path))
    assert facts is not None
    region = gate_input.policy["cloud"]["region"]
    if facts["region"] != region:
        raise InvalidInputError(f"{path}: facts read in {facts['region']}, but the policy's region is {region}")
    read_vpc = (facts.get("vpc_endpoints") or {}).get("vpc_id")
    vpc = existing_endpoint_vpc(gate_input.policy)
    if existing_endpoint_services(gate_input.policy) and read_vpc is not None and read_vpc != vpc:
        raise InvalidInputError(f"{path}: the VPC endpoints were read in {read_vpc}, but the policy's network."
                                f"existingEndpoints are in {vpc}: the facts are of another VPC (run --lookup again)")
    return gate_input.with_facts(facts)


@click.command()
@click.argument("target")
@click.option("-f", "--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True, help="Report format.")
@click.option("--opa-url", metavar="URL", default=None, help="Evaluate on this OPA server instead of the embedded engine.")
@click.option("--policy", "policy_path", type=NonEmptyPath(path_type=Path), default=None, help="Cost policy for a DOCUMENT.json (default: the stack's seedance:policy).")
@click.option("--project-dir", type=NonEmptyPath(path_type=Path), default=Path("stacks"), show_default=True, help="Pulumi project of the stacks.")
@click.option("--policies", "policies_dir", type=NonEmptyPath(path_type=Path), default=None, help="Rego policy directory (default: the policies bundled with Seedance).")
@click.option("--framework", "frameworks", multiple=True, metavar="[gdpr|mlps-l3]", help="Force these frameworks on (repeatable).")
@click.option("--as-of", metavar="YYYY-MM-DD", default=None, help="Date for waiver expiry (default: today, UTC).")
@click.option("--severity", "severities", multiple=True, metavar="CONTROL=LEVEL", help="Override a control's severity (mandatory|advisory); repeatable.")
@click.option("--lookup", is_flag=True, help="Read from EC2, in the policy's region, the subnets and security groups the "
              "stack is given (cloud.subnetIds, and subnet and security-group ids its resources name) and its instance "
              "types' instance-store encryption and the VPC's endpoints for network.existingEndpoints, and from "
              "CloudTrail the existing trail the policy relies on (compliance.existingTrail), so the rules check them "
              "too; needs AWS credentials allowed ec2:DescribeSubnets, ec2:DescribeRouteTables, "
              "ec2:DescribeSecurityGroups and ec2:DescribeInstanceTypes (ec2:DescribeVpcEndpoints with existing "
              "endpoints; cloudtrail:GetTrail, GetTrailStatus and GetEventSelectors with an existing trail).")
@click.option("--save-facts", type=NonEmptyPath(path_type=Path), default=None, metavar="FILE",
              help="With --lookup: also write what AWS said to FILE (JSON), for --facts in runs without credentials.")
@click.option("--facts", "facts_path", type=NonEmptyPath(path_type=Path), default=None, metavar="FILE",
              help="Use facts an earlier --lookup --save-facts wrote instead of reading AWS (e.g. in pull-request "
              "checks); what they do not cover is reported as not checked.")
def check(target: str, fmt: str, opa_url: str | None, policy_path: Path | None, project_dir: Path,
          policies_dir: Path | None, frameworks: tuple[str, ...], as_of: str | None, severities: tuple[str, ...],
          lookup: bool, save_facts: Path | None, facts_path: Path | None) -> int:
    """Gate a deploy: evaluate STACK (synthesised) or DOCUMENT.json against the GDPR, MLPS and budget rules.

    Exit 0: no mandatory finding; 1: mandatory findings; 2: undecided (engine error, malformed policy,
    unreachable OPA, invalid input) — the gate fails closed.
    """
    from seedance.gate import inputs
    from seedance.gate.run import evaluate

    stack = Path(target).stem if target.endswith(".json") else target
    is_document = target.endswith(".json") or Path(target).is_file()
    if is_document:
        where = target
    else:
        from seedance.synth.project import stack_file_path

        where = str(stack_file_path(project_dir, target))  # in Pulumi.yaml's stackConfigDir when it names one
    # values click would refuse with a usage text on stderr: undecided in the requested format instead,
    # so a step that reads the report (a SARIF upload) gets one
    from seedance.policy.model import Framework

    choices = [f.value for f in Framework]
    unknown = [f for f in frameworks if f not in choices]
    if unknown:
        return _undecided(fmt, stack, [f"--framework {unknown[0]!r}: expected one of {', '.join(choices)}"], artifact=where)
    as_of_date = None
    if as_of is not None:
        try:
            if not re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", as_of):
                raise ValueError
            as_of_date = dt.date.fromisoformat(as_of)
        except ValueError:
            return _undecided(fmt, stack, [f"--as-of {as_of!r}: expected a date YYYY-MM-DD"], artifact=where)
    overrides: dict[str, str] = {}
    given: dict[str, str] = {}
    for item in severities:  # malformed: undecided (exit 2), in the requested format, like every usage problem here
        control, sep, level = item.partition("=")
        control, level = control.strip(), level.strip()
        if not sep:
            return _undecided(fmt, stack, [f"--severity {item!r}: expected CONTROL=mandatory or CONTROL=advisory"],
                              artifact=where)
        if not control:
            return _undecided(fmt, stack, [f"--severity {item!r}: expected CONTROL=mandatory or CONTROL=advisory: "
                                           "no control id before '='"], artifact=where)
        if control in overrides:  # one run, one severity per control: never silently the last one given
            return _undecided(fmt, stack, [f"--severity: control {control!r} is given twice ({given[control]!r} and "
                                           f"{item!r}); give each control once"], artifact=where)
        overrides[control] = level
        given[control] = item
    if facts_path is not None and lookup:
        return _undecided(fmt, stack, ["--facts and --lookup: give one (--lookup reads EC2 now, --facts reads a file "
                                       "an earlier --lookup --save-facts wrote)"], artifact=where)
    if save_facts is not None and not lookup:
        return _undecided(fmt, stack, ["--save-facts: needs --lookup (it writes what EC2 said)"], artifact=where)
    if Path(target).is_dir():
        return _undecided(fmt, stack, [f"{target}: is a directory; expected a STACK name (with --project-dir) "
                                       "or a DOCUMENT.json"], artifact=where)
    try:
        bundle = load_bundle(policies_dir, severity_overrides=overrides)
        if is_document:
            gate_input = inputs.from_document(Path(target), policy_path=policy_path, project_dir=project_dir)
        elif policy_path is not None:
            return _undecided(fmt, stack, [f"--policy {policy_path}: applies to a DOCUMENT.json; stack {target} is "
                                           f"gated with its own seedance:policy (Pulumi.{target}.yaml)"], artifact=where)
        else:
            gate_input = inputs.from_stack(target, project_dir)
        stack = gate_input.stack
        if frameworks:
            gate_input = gate_input.with_frameworks(list(frameworks))
        if lookup:
            gate_input = _with_facts(gate_input, save=save_facts)
        elif facts_path is not None:
            gate_input = _with_recorded_facts(gate_input, facts_path)
        engine = make_engine(opa_url)
        decision = evaluate(gate_input, bundle, engine, as_of=as_of_date)
    except PolicyLoadError as exc:
        return _undecided(fmt, stack, exc.problems, artifact=where)
    except FactsError as exc:
        return _undecided(fmt, stack, [f"--lookup: {exc}"], artifact=where)
    except GateError as exc:
        return _undecided(fmt, stack, [f"{type(exc).__name__}: {exc}"], artifact=where)
    except Exception as exc:  # fail closed on anything unexpected, without a traceback
        log.debug("gate failure", exc_info=True)
        return _undecided(fmt, stack, [f"internal error: {type(exc).__name__}: {exc}"], artifact=where)
    if fmt == "text":
        print_text(_console(), decision, engine=engine.name)
        return decision.exit_code
    try:
        report = render(decision, fmt, controls=list(bundle.controls))
    except ReportTemplateError as exc:  # no report, no decision: fail closed
        return _undecided(fmt, stack, [str(exc)], artifact=where)
    except Exception as exc:  # a broken template (syntax, undefined name): no report, no decision
        log.debug("report failure", exc_info=True)
        return _undecided(fmt, stack, [f"cannot render the {fmt} report: {type(exc).__name__}: {exc}"], artifact=where)
    click.echo(report, nl=False)  # byte-exact: no console markup, emoji codes or wrapping in a machine format
    return decision.exit_code


@click.group()
def policy() -> None:
    """Work with the gate's Rego policies."""


@policy.command("test")
@click.argument("directory", required=False, type=click.Path(path_type=Path))
@click.option("--run", "match", default=None, metavar="REGEX", help="Only tests whose data.package.name matches (as opa test --run).")
@click.option("-v", "--verbose", is_flag=True, help="List every test, not only failures.")
def policy_test(directory: Path | None, match: str | None, verbose: bool) -> int:
    """Run every test_ rule under DIRECTORY (default policies/) with the embedded engine, like `opa test`."""
    from seedance.gate.testrunner import run_tests

    out = _console()
    try:
        report = run_tests(directory, match=match)
    except PolicyLoadError as exc:
        err = _console(stderr=True)
        for p in exc.problems:
            err.print(f"[red]error[/red] {escape(p)}")
        return EXIT_UNDECIDED
    current = None
    for r in report.results:
        if not verbose and r.status == "PASS":
            continue
        if r.case.file != current:
            current = r.case.file
            out.print(f"{escape(r.case.file)}:")
        colour = {"PASS": "green", "FAIL": "red", "ERROR": "red"}[r.status]
        line = f"{escape(r.case.query)}: [{colour}]{r.status}[/{colour}] ({r.duration_s * 1000:.1f}ms)"
        out.print(line)
        if r.error:
            out.print(f"  {escape(r.error)}")
    out.print("-" * 80, markup=False)
    out.print(f"PASS: {report.passed}/{len(report.results)}", markup=False)
    if report.failed:
        out.print(f"FAIL: {report.failed}/{len(report.results)}", markup=False)
    if report.errors:
        out.print(f"ERROR: {report.errors}/{len(report.results)}", markup=False)
    if not report.results:  # nothing ran: a --run that matches no test, or a directory without tests
        _console(stderr=True).print("error: no tests found" + (f" matching --run {match!r}" if match else ""), markup=False)
        return EXIT_UNDECIDED
    return EXIT_PASS if report.ok else EXIT_FAIL
