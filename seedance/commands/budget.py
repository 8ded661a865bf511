"""``seedance budget respond``: turn an AWS Budgets alert into the policy's threshold actions."""

from __future__ import annotations

import datetime as dt
import math
import os
import sys
from datetime import timedelta
from contextlib import nullcontext
from pathlib import Path
from dataclasses import dataclass, replace
from typing import Any

import click
import yaml
import logging

from seedance import jsonout
from seedance.atomic import write_text_atomically
from seedance.clock import utc_now
from seedance.commands.outputs import NonEmptyPath
from seedance.overlaylock import LockError, LockUnavailable, exclusive_lock
from seedance.budget.events import (
    MAX_EVENT_BYTES,
    BudgetAlert,
    BudgetEventError,
    alert_from_message,
    read_envelope,
)
from seedance.budget.report import (
    not_a_budget_alert_json,
    render_markdown,
    render_not_a_budget_alert,
    render_text,
    to_json,
)
from seedance.budget.wiring import lift_hint, stack_wiring, wiring_warnings
from seedance.budget.response import (
    BudgetResponse,
    BudgetResponseError,
    Change,
    OverlayStamp,
    Projection,
    alert_month,
    answered_budget,
    percent,
    respond,
    restored_changes,
    weaker_than,
)
from seedance.budget.wiring import OVERLAY_HEADER, overlay_budget, overlay_extends
from seedance.commands.stack_option import project_dir_option, stack_joins_cluster, stack_name
from seedance.policy.model import ThresholdAction
from seedance.budget import signature
from seedance.budget.signature import Verified
from seedance.policy import PolicyError, load_policy
from seedance.policy.loader import LoadedPolicy


log = logging.getLogger(__name__)


@click.group("budget")
def budget() -> None:
    """Budget-triggered redeploys: apply the policy's thresholds to an AWS Budgets alert."""


def _load(policy: Path) -> LoadedPolicy | None:
    """The policy, or None after printing its problems (file:line:column: field: message)."""
    from seedance.cli import console

    try:
        return load_policy(policy)
    except PolicyError as exc:
        for problem in exc.problems:
            console(stderr=True).print(f"error {problem}", markup=False)
        return None



#: The largest ``--max-age``: a year (366 days, leap years included) in hours.  Amazon SNS gives up
#: redelivering a message within days, so a signed alert older than a year is a replay whatever the
#: pipeline; a bound also keeps the age a ``timedelta`` can hold (``inf`` or ``1e12`` hours cannot).
MAX_AGE_HOURS = 366 * 24


def _max_age(ctx: click.Context, param: click.Parameter, value: float) -> float:
    """``--max-age`` in hours: the range is checked by its type, NaN (in no range) here."""
    if math.isnan(value):
        raise click.BadParameter(f"expected a number of hours above 0 and at most {MAX_AGE_HOURS:,}, got nan")
    return value


def _check_out(out: Path | None, policy: Path, loaded: LoadedPolicy) -> None:
    """``--out`` must not be the policy or a file it extends (usage error, before anything is read)."""
    if out is None:
        return
    resolved = out.resolve()  # symlinks followed
    if resolved in {p.resolve() for p in (policy, *loaded.chain)}:
        raise click.BadParameter(f"{out}: that is the policy or a file it extends; the overlay must be a new file",
                                 param_hint="--out")


def _overlay_of_another(text: str, out: Path, policy: Path) -> str | None:
    """The ``extends`` of an overlay at ``out`` when it names a file other than ``policy`` (the overlay
    of another policy); None when it extends ``policy`` (or names nothing readable: an overlay this
    command wrote always names one)."""
    ext, extends_policy = overlay_extends(text, out, policy)
    return None if ext is None or extends_policy else ext


def _is_overlay(path: Path) -> bool:
    """Whether ``path`` is an overlay an earlier budget response wrote (so replacing it is expected)."""
    try:
        with path.open("rb") as fh:
            return fh.read(len(OVERLAY_HEADER)) == OVERLAY_HEADER.encode()
    except OSError:
        return False


def _live_groups(loaded: LoadedPolicy, stack: str | None) -> dict[str, Any]:
    """The stack's fleet groups now (raises LiveSizeError; boto3's usual credentials and endpoints)."""
    from seedance import awsclient
    from botocore.exceptions import BotoCoreError, ClientError

    from seedance.budget.live import LiveSizeError, fetch_live_groups

    if not stack:
        raise LiveSizeError("--live-sizes needs --stack: the groups are found by their seedance:stack tag")
    try:
        return fetch_live_groups(awsclient.client("autoscaling", loaded.policy.cloud.region), stack)
    except (BotoCoreError, ClientError) as exc:
        raise LiveSizeError(f"cannot read the Auto Scaling groups of stack {stack}: {exc}") from None


def _restored(overlay: Path, loaded: LoadedPolicy, month: str) -> list[Change]:
    """The fleet fields the overlay in place sets differently from the policy: what lifting it gives back.

    Read before the overlay is rewritten; an overlay that no longer loads gives no list (a note in
    the report already says it is replaced)."""
    try:
        earlier = load_policy(overlay)
    except (PolicyError, OSError):
        return []
    return restored_changes(earlier.policy, earlier.base_dir, loaded.policy, loaded.base_dir, month)


def _earlier_caps(text: str) -> dict[str, int]:
    """The ``capacity.max`` an earlier overlay sets above 0 per fleet (a freeze's caps; degrade's 0 is no cap)."""
    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError:
        return {}
    caps: dict[str, int] = {}
    for f in (doc.get("fleets") if isinstance(doc, dict) else None) or []:
        cap = (f.get("capacity") or {}).get("max") if isinstance(f, dict) and isinstance(f.get("capacity"), dict) else None
        if isinstance(f, dict) and isinstance(f.get("name"), str) and isinstance(cap, int) and not isinstance(cap, bool) \
                and cap > 0:
            caps[f["name"]] = cap
    return caps


def sizes_text(groups: dict[str, Any], units: dict[str, int | None] | None) -> str:
    """The live group sizes, each with its unit: a weighted group's desired capacity counts units, any
    other group's instances (with the units they hold when the plan gives their weight)."""
    def one(name: str, g: Any) -> str:
        if g.weighted:
            return f"{name} {g.desired} unit(s)"
        held = None if units is None else units.get(name)
        return f"{name} {g.desired} instance(s)" + ("" if held is None else f" = {held} unit(s)")

    return ", ".join(one(k, g) for k, g in sorted(groups.items())) or "no group found"


def _stale_fleets(text: str, stamp: OverlayStamp, loaded: LoadedPolicy) -> str | None:
    """What an earlier overlay (its ``text`` and ``stamp``) misses of the policy as it is now: fleets
    its response would change that it does not name (added since), or fleets it names that the
    policy no longer has; None when it covers the policy."""
    from seedance.budget.coverage import uncovered_fleets

    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError:
        doc = None
    named = {f["name"] for f in ((doc.get("fleets") if isinstance(doc, dict) else None) or [])
             if isinstance(f, dict) and isinstance(f.get("name"), str)}
    missing = uncovered_fleets(loaded.policy, named, stamp)
    gone = sorted(named - {f.name for f in loaded.policy.fleets})
    parts = ([f"does not cover fleet(s) {', '.join(missing)}"] if missing else []) + \
        ([f"names fleet(s) {', '.join(gone)} the policy no longer has"] if gone else [])
    return " and ".join(parts) or None


def budget_month_now() -> str:
    """The budget month now (UTC, YYYY-MM): an alert of an earlier month answers a budget that has
    started over since, and is not acted on."""
    return utc_now().strftime("%Y-%m")


def _planned_response(loaded: LoadedPolicy, alert: BudgetAlert, *, ref: str, stack: str | None, cluster: bool,
                      groups: dict[str, Any] | None, earlier_caps: dict[str, int]) -> tuple[BudgetResponse, str | None]:
    """The response, with the policy planned as the gate plans it when an action changes fleets: the
    live sizes in units, the reservations a freeze keeps, and the overlay's projected cost (raises
    BudgetResponseError). A policy or overlay that cannot be planned does not stop the response: it
    acts without the plan (instance-counting groups keep their maximum) and a note says so."""
    from seedance.budget.live import live_units
    from seedance.gate.inputs import InvalidInputError, plan_and_estimate

    now_month = budget_month_now()
    first = respond(loaded.policy, alert, policy_ref=ref, stack=stack, cluster=cluster, now_month=now_month)
    freezing = ThresholdAction.FREEZE in first.actions
    if first.ignored is not None or not (first.changes or (freezing and (groups is not None or earlier_caps))):
        return first, None  # nothing to plan: live sizes and earlier caps only matter to a freeze
    try:
        plan, before = plan_and_estimate(loaded, cluster=cluster)
    except InvalidInputError as exc:  # the response must not wait on the planner: act without it, and say so
        # weighted groups count units; groups that count instances cannot be counted without the plan
        sizes = None if groups is None else {k: g.desired if g.weighted else None for k, g in groups.items()}
        response = respond(loaded.policy, alert, policy_ref=ref, stack=stack, live_sizes=sizes,
                           earlier_caps=earlier_caps, cluster=cluster, now_month=now_month)
        why = (f"the policy could not be planned ({exc}), so no projected cost is given"
               + ("; the caps from live sizes are not rounded to whole instances (the plan gives their weights)"
                  if groups is not None and any(g.weighted for g in groups.values()) else ""))
        return replace(response, notes=[*response.notes, why]), None
    units = None if groups is None else live_units(groups, plan)
    shown = None if groups is None else sizes_text(groups, units)
    response = respond(loaded.policy, alert, policy_ref=ref, stack=stack, live_sizes=units, earlier_caps=earlier_caps,
                       now_month=now_month,
                       planned_reserved={f.name: f.reserved_units for f in plan.fleets}, cluster=cluster,
                       weights={f.name: f.node_weight for f in plan.fleets})
    if not response.changes:
        return response, shown
    try:
        _, after = plan_and_estimate(replace(loaded, policy=response.effective), cluster=cluster)
    except InvalidInputError as exc:
        return replace(response, notes=[*response.notes, f"the overlay could not be planned ({exc}): check it before "
                                        "redeploying; no projected cost is given"]), shown
    budget = loaded.policy.budget
    projection = Projection(round(before.total, 2), round(after.total, 2), budget.monthly_amount, budget.currency.value)
    return replace(response, projection=projection, notes=[*response.notes, *projection.warnings()]), shown


def _joins_cluster(project_dir: Path, stack: str | None) -> bool | None:
    """Whether the stack joins a cluster, read from its project files; None after printing why they
    cannot be read (FILE:LINE: what was expected): a broken project file is bad input, exit 1, not a
    malformed option."""
    from seedance.cli import console
    from seedance.gate.inputs import InvalidInputError

    try:
        return stack_joins_cluster(project_dir, stack)
    except InvalidInputError as exc:
        console(stderr=True).print(f"error {exc}; nothing was written", markup=False)
        return None


def _respond_and_report(loaded: LoadedPolicy, policy: Path, alert: BudgetAlert, *, stack: str | None, out: Path | None,
                        fmt: str, source: str, command: str, project_dir: Path, live: bool = False,
                        cluster: bool = True) -> int:
    """Apply the thresholds, write the overlay (``--out``) when something changed, print the report."""
    from seedance.budget.live import LiveSizeError
    from seedance.cli import console

    err = console(stderr=True)
    # the overlay as the user named it (absolute, symlinks kept): what seedance:policy is told to name
    out_named = None if out is None else Path(os.path.abspath(out))
    if out is not None:
        out = out.resolve()  # one path for the overlay's `extends` and for the write, symlinks followed
        if out.is_dir():  # --out is dir_okay=False: one made since the command line was read
            err.print(f"error --out {out}: is a directory; expected a file path", markup=False)
            return 1

    def waiting(lock: Path) -> None:
        err.print(f"waiting for {out}: another seedance budget run is writing it (lock {lock.name})", markup=False)

    # writers of one --out take turns, from reading the overlay in place through the rename of the new
    # one: a second run decides against what the first wrote, as if they had run one after the other
    def decide(lock: Any) -> _Outcome | int:
        with lock:
            # the live sizes are read under the lock too: a run that waited decides on the groups as
            # they are when it goes on, not as they were when it started
            groups: dict[str, Any] | None = None
            if live:
                try:
                    groups = _live_groups(loaded, stack)
                except LiveSizeError as exc:
                    err.print(f"error --live-sizes: {exc}", markup=False)
                    return 1
            return _decide_and_write(loaded, policy, alert, stack=stack, out=out, fmt=fmt, source=source,
                                     command=command, cluster=cluster, project_dir=project_dir, groups=groups,
                                     out_named=out_named)

    try:
        outcome = decide(nullcontext() if out is None else exclusive_lock(out, on_wait=waiting))
    except LockUnavailable as exc:
        # no run can lock this path (a read-only directory, say): decide as before locks existed; a
        # run with nothing to write still ends 0, and a write fails as it would have
        err.print(f"warning --out {out}: {exc}; deciding without the lock (a concurrent run on this file is not "
                  "serialised with this one)", markup=False)
        outcome = decide(nullcontext())
    except LockError as exc:
        err.print(f"error --out {out}: cannot write: {exc}; nothing was written", markup=False)
        return 1
    if isinstance(outcome, int):
        return outcome
    if outcome.markdown is not None:
        click.echo(outcome.markdown, nl=False)
    elif fmt == "json":
        click.echo(jsonout.dumps(to_json(outcome.response, outcome.overlay_path, **outcome.extras), indent=2))
    else:
        render_text(console(), outcome.response, outcome.overlay_path, **outcome.shown)
    return 0


@dataclass(frozen=True)
class _Outcome:
    """What a response decided and wrote, for the report."""

    response: BudgetResponse
    overlay_path: str | None
    extras: dict[str, Any]
    shown: dict[str, Any]
    markdown: str | None


def _decide_and_write(loaded: LoadedPolicy, policy: Path, alert: BudgetAlert, *, stack: str | None, out: Path | None,
                      fmt: str, source: str, command: str, cluster: bool, project_dir: Path,
                      groups: dict[str, Any] | None, out_named: Path | None = None) -> _Outcome | int:
    """Read the overlay in place, decide the response against it and write the new one (``--out``,
    resolved); an exit status after printing the error when something is wrong. Called with the
    overlay's lock held."""
    from seedance.cli import console

    err = console(stderr=True)
    if out is not None:
        if out.exists() and not out.is_file():  # a FIFO or device: reading it to recognise an overlay would block
            err.print(f"error --out {out}: is not a regular file; expected the overlay's file path", markup=False)
            return 1
        if out.exists() and not _is_overlay(out):
            err.print(f"error --out {out}: exists and is not an overlay written by seedance budget; not overwriting it",
                      markup=False)
            return 1
    month = alert_month(alert, dt.datetime.now(dt.UTC).strftime("%Y-%m"))
    earlier_text = out.read_text(encoding="utf-8", errors="replace") if out is not None and out.exists() else ""
    if earlier_text and out is not None and (other := _overlay_of_another(earlier_text, out, policy)) is not None:
        # its stamp (month, spend, fired thresholds) is another policy's: deciding against it, or
        # replacing it, would answer one stack's alert with another's response
        err.print(f"error --out {out}: is the budget overlay of another policy (it extends {other}), not of {policy}; "
                  "not overwriting it: give each policy its own --out", markup=False)
        return 1
    answered = overlay_budget(earlier_text) if out is not None else None
    if answered is not None and (ours := answered_budget(alert, stack)) is not None and answered != ours:
        # two stacks deploying one policy and naming one --out: the stamp (month, spend, freeze caps) is
        # the other stack's, and so would be the response kept or replaced
        err.print(f"error --out {out}: is the budget overlay of another budget (it answers {answered}), not of "
                  f"{ours}; not overwriting it: give each stack its own --out", markup=False)
        return 1
    earlier = OverlayStamp.parse(earlier_text)
    # a later freeze of the same budget month never lowers the caps an earlier one set (no ratchet
    # down to a momentary low of the live sizes)
    earlier_caps = _earlier_caps(earlier_text) if earlier is not None and earlier.month == month else {}
    try:
        ref = os.path.relpath(policy.resolve(), (out or policy).resolve().parent)
        response, shown = _planned_response(loaded, alert, ref=ref, stack=stack, cluster=cluster, groups=groups,
                                            earlier_caps=earlier_caps)
    except BudgetResponseError as exc:
        err.print(f"error {source}: {exc}", markup=False)
        return 1
    if groups is not None:
        err.print(f"live group sizes of stack {stack}: "
                  + (shown or sizes_text(groups, None)),
                  markup=False)
    # what the stack deploys, read before the overlay is written (paths compared as the files they name)
    wiring = stack_wiring(project_dir, stack, policy=policy, overlay=out_named or out)
    restored: list[Change] = []
    if out is not None and out.exists() and response.ignored is None and earlier is not None \
            and earlier.month == month and weaker_than(earlier, response, month, loaded.policy) \
            and (stale := _stale_fleets(earlier_text, earlier, loaded)):
        # the stronger response in place leaves fleets out (added to the policy since, or gone from it):
        # it is applied again, to the policy as it is now, at the earlier alert's spend
        spend = earlier.fired.amount if earlier.fired is not None else earlier.fraction * loaded.policy.budget.monthly_amount
        try:
            response, shown = _planned_response(loaded, replace(alert, alert_type=earlier.alert_type, amount=spend),
                                                ref=ref, stack=stack, cluster=cluster, groups=groups,
                                                earlier_caps=earlier_caps)
        except BudgetResponseError as exc:
            err.print(f"error {source}: {exc}", markup=False)
            return 1
        response.notes.append(
            f"{out} answers an earlier alert this month ({earlier.alert_type}, {percent(earlier.fraction)} of budget) "
            f"that crossed more thresholds, and a later, lower alert never undoes a stronger response; but it "
            f"{stale}, so that response is applied again to the policy as it is now")
    elif out is not None and out.exists() and response.ignored is None:
        if earlier is not None and weaker_than(earlier, response, month, loaded.policy):
            response.notes.append(
                f"kept {out}: it answers an alert of {earlier.month}, a later month than this alert's ({month})"
                if month < earlier.month else
                f"kept {out}: an earlier alert this month ({earlier.alert_type}, {percent(earlier.fraction)} of budget) "
                "crossed more thresholds, and a later, lower alert never undoes a stronger response; "
                + lift_hint(wiring)
            )
            response = replace(response, overlay={}, changes=[], projection=None)
        elif not response.overlay and earlier is not None and month > earlier.month:
            # the month's budget starts over: its first alert that fires no action lifts last month's response
            response = replace(response, overlay={"apiVersion": "seedance.io/v1", "kind": "CostPolicy", "extends": ref})
            restored = _restored(out, loaded, month)
            response.notes.append(f"a new budget month ({month}): the response of {earlier.month} is lifted; "
                                  f"{out} now only extends the policy")
        elif not response.overlay:
            response.notes.append(f"the overlay {out} from an earlier alert is left as it is; {lift_hint(wiring)}")
    overlay_path = str(out) if out is not None and response.overlay else None
    kept = str(out) if out is not None and not response.overlay and out.exists() else None
    if response.ignored is None:
        warnings = wiring_warnings(wiring, policy, overlay_written=overlay_path is not None)
        response.notes.extend(warnings)
        if fmt != "text":  # the text report prints them; a pipeline's log shows them too
            for w in warnings:
                log.warning("%s", w)
    extras: dict[str, Any] = {"month": None if response.ignored else month, "restored": restored}
    shown = {**extras, "policy_path": str(policy), "kept_overlay": kept, "wiring": wiring,
             "where": {**_steps_context(project_dir, stack), "named": out_named}}
    extras["stack"] = None if wiring is None else wiring.to_json(
        (out_named or out) if overlay_path is not None else None, policy)
    markdown = None
    if fmt == "markdown":  # rendered before the overlay is written: a missing template changes nothing
        markdown = render_markdown(response, overlay_path, **shown)
    if out is not None and response.overlay:
        header = (f"{OVERLAY_HEADER}{alert.budget_name} ({alert.alert_type}, {percent(response.fraction)} of budget); "
                  f"generated by seedance budget {command}\n")
        stamp = OverlayStamp.of(response, month).comment()
        try:
            write_text_atomically(out, header + stamp + yaml.safe_dump(response.overlay, sort_keys=False),
                                  check=_loads_as(out))
        except OSError as exc:
            err.print(f"error --out {out}: cannot write: {exc.strerror or exc}", markup=False)
            return 1
        except _OverlayInvalid as exc:
            err.print(f"error --out {out}: the overlay would not load, so nothing was written: {exc}", markup=False)
            return 1
    return _Outcome(response, overlay_path, extras, shown, markdown)


def _steps_context(project_dir: Path, stack: str | None) -> dict[str, Any]:
    """What the report's steps know without the stack's config: the stack, the project directory and,
    when it holds a Pulumi project, the directory seedance:policy is relative to."""
    from seedance.synth.project import project_layout

    base = project_layout(project_dir).program_dir if (project_dir / "Pulumi.yaml").is_file() else None
    return {"stack": stack, "project_dir": project_dir if base is not None else None, "base": base}


def _verify(message: dict[str, Any], signing_cert: Path | None, topic_arns: tuple[str, ...], max_age: timedelta) -> Verified:
    """Verify ``message`` (raises BudgetEventError or OSError); the certificate is fetched unless given."""
    url = signature.signing_cert_url(message)
    pem = signing_cert.read_bytes() if signing_cert is not None else signature.fetch_certificate(url)
    return signature.verify(message, pem, now=signature.now_utc(), max_age=max_age, topic_arns=topic_arns)


def _read_event(event: Path) -> bytes:
    """EVENT's bytes (``-``: stdin), at most one byte more than an SNS message can hold (OSError)."""
    if str(event) == "-":
        return sys.stdin.buffer.read(MAX_EVENT_BYTES + 1)
    with event.open("rb") as fh:  # not read_bytes(): /dev/zero or a huge file must not fill the memory
        return fh.read(MAX_EVENT_BYTES + 1)


class _OverlayInvalid(Exception):
    pass


def _loads_as(out: Path) -> Any:
    """A check for the overlay's temporary file: it must load as a policy (its extends chain included),
    as the pipeline will load it from ``out``; problems name ``out``, not the temporary file."""

    def check(tmp: Path) -> None:
        from seedance.planner.type_checks import check_instance_types
        from seedance.pricing.catalog import PricingError, load_catalog

        try:
            loaded = load_policy(tmp)
            try:
                catalog = load_catalog()
            except PricingError:  # no usable catalog: the language alone is checked, as `validate` does
                return
            check_instance_types(loaded, catalog)
        except PolicyError as exc:
            raise _OverlayInvalid(str(exc).replace(str(tmp), str(out)).replace(tmp.name, out.name)) from exc

    return check


@budget.command("respond")
@click.argument("policy", type=click.Path(path_type=Path))
@click.argument("event", type=click.Path(path_type=Path, allow_dash=True))
@click.option("--stack", default=None, callback=stack_name,
              help="Stack name, to check the alert is for this stack's budget.")
@click.option("--out", "out", type=NonEmptyPath(path_type=Path, dir_okay=False), default=None,
              help="Write the overlay policy here when something changes.")
@click.option("-f", "--format", "fmt", type=click.Choice(["text", "json", "markdown"]), default="text", show_default=True)
@click.option("--verify-signature", "verify", is_flag=True,
              help="Act only on a message signed by Amazon SNS: its signature (certificate from its SigningCertURL), age and topic.")
@click.option("--signing-cert", type=NonEmptyPath(path_type=Path, dir_okay=False), default=None,
              help="PEM certificate to verify with instead of fetching SigningCertURL (implies --verify-signature).")
@click.option("--topic-arn", "topic_arns", multiple=True,
              help="Accept only this topic (repeatable; implies --verify-signature; default: the policy's budget.notify.snsTopicArn).")
@click.option("--max-age", type=click.FloatRange(min=0, min_open=True, max=MAX_AGE_HOURS), default=24.0,
              show_default=True, callback=_max_age,
              help=f"Hours after which a signed message is refused as a replay (above 0, at most "
                   f"{MAX_AGE_HOURS:,}: a year).")
@click.option("--live-sizes", "live", is_flag=True,
              help="Read each fleet's live group size from AWS (needs --stack), so a freeze caps fleets where they run.")
@project_dir_option
def respond_cmd(policy: Path, event: Path, stack: str | None, out: Path | None, fmt: str, verify: bool,
                signing_cert: Path | None, topic_arns: tuple[str, ...], max_age: float, live: bool,
                project_dir: Path) -> int:
    """Read EVENT (an SNS notification, its HTTP POST or a Lambda SNS event; - for stdin) and respond for POLICY.

    Exit 0 when the response was computed (whether or not anything changed), 1 on bad input (a broken
    Pulumi project file of --stack among it) or a message that fails verification (nothing is
    written), 2 for a malformed option.
    """
    from seedance.cli import console

    if live and not stack:
        raise click.UsageError("--live-sizes needs --stack: the groups are found by their seedance:stack tag")
    err = console(stderr=True)
    loaded = _load(policy)
    if loaded is None:
        return 1
    _check_out(out, policy, loaded)
    verify = verify or signing_cert is not None or bool(topic_arns)
    try:
        raw = _read_event(event)
        message = read_envelope(raw)
        if verify:
            if not topic_arns and loaded.policy.budget.notify.sns_topic_arn:
                topic_arns = (loaded.policy.budget.notify.sns_topic_arn,)
            if not topic_arns:  # Amazon signs every topic's messages, an attacker's own included
                err.print(f"error {event}: --verify-signature needs the topic the alert must come from: pass --topic-arn "
                          "(the stack's budgetTopicArn output) or set budget.notify.snsTopicArn", markup=False)
                return 1
            checked = _verify(message, signing_cert, topic_arns, timedelta(hours=max_age))
            err.print(f"{event}: signed by Amazon SNS (SignatureVersion {checked.signature_version}, "
                      f"{checked.cert_subject}), topic {checked.topic_arn}, sent {checked.timestamp:%Y-%m-%dT%H:%M:%SZ}",
                      markup=False)
        alert = alert_from_message(message)
    except IsADirectoryError:
        err.print(f"error {event}: is a directory; expected an event file (JSON, or an HTTP POST with a JSON body)",
                  markup=False)
        return 1
    except OSError as exc:
        err.print(f"error {exc.filename or event}: cannot read: {exc.strerror or exc}", markup=False)
        return 1
    except BudgetEventError as exc:
        err.print(f"error {event}: {exc}", markup=False)
        return 1
    if alert is None:
        err.print(f"{event}: not an AWS Budgets notification: nothing to do", markup=False)
        if fmt == "json":  # a consumer piping into jq still gets a document
            click.echo(jsonout.dumps(not_a_budget_alert_json(), indent=2))
        elif fmt == "markdown":  # and a pipeline posting the report posts one that says why nothing happened
            click.echo(render_not_a_budget_alert(str(event)), nl=False)
        return 0
    cluster = _joins_cluster(project_dir, stack)
    if cluster is None:
        return 1
    return _respond_and_report(loaded, policy, alert, stack=stack, out=out, fmt=fmt, source=str(event), command="respond",
                               project_dir=project_dir, live=live, cluster=cluster)


def _caller_account(sts: Any) -> str:
    """The account of the credentials (``sts:GetCallerIdentity``); BudgetStatusError for an answer that is not STS's."""
    from seedance.awsclient import unreadable_answer_errors
    from seedance.budget.status import BudgetStatusError

    try:
        account = sts.get_caller_identity().get("Account")
    except unreadable_answer_errors() as exc:
        raise BudgetStatusError(f"GetCallerIdentity: the answer is not an AWS STS response ({type(exc).__name__}: "
                                f"{exc}); pass --account-id or set cloud.accountId") from None
    if not isinstance(account, str) or not account:
        raise BudgetStatusError("GetCallerIdentity: the answer names no account; pass --account-id or set "
                                "cloud.accountId")
    return account


@budget.command("poll")
@click.argument("policy", type=click.Path(path_type=Path))
@click.option("--stack", required=True, callback=stack_name, help="Stack name: its budget is seedance-STACK-monthly.")
@click.option("--account-id", default=None, help="AWS account of the budget (default: the policy's cloud.accountId, else the caller's).")
@click.option("--forecasted", is_flag=True, help="Respond to the forecasted spend instead of the actual spend.")
@click.option("--out", "out", type=NonEmptyPath(path_type=Path, dir_okay=False), default=None,
              help="Write the overlay policy here when something changes.")
@click.option("-f", "--format", "fmt", type=click.Choice(["text", "json", "markdown"]), default="text", show_default=True)
@click.option("--live-sizes", "live", is_flag=True,
              help="Read each fleet's live group size from AWS (needs --stack), so a freeze caps fleets where they run.")
@project_dir_option
def poll_cmd(policy: Path, stack: str, account_id: str | None, forecasted: bool, out: Path | None, fmt: str,
             live: bool, project_dir: Path) -> int:
    """Read the stack's AWS Budget now (DescribeBudget) and respond for POLICY as an alert would.

    For pipelines that run on a schedule instead of receiving SNS. Uses the usual boto3 credentials
    and endpoint settings. Exit 0 when the response was computed, 1 when the budget or the stack's
    Pulumi project files cannot be read, 2 for a malformed option.
    """
    from seedance import awsclient
    from botocore.exceptions import BotoCoreError, ClientError

    from seedance.budget.status import BudgetStatusError, alert_from_budget, budget_name, budgets_region, fetch_budget
    from seedance.cli import console

    if account_id is not None and not (len(account_id) == 12 and account_id.isascii() and account_id.isdigit()):
        raise click.BadParameter(f"{account_id!r}: expected a 12-digit AWS account id", param_hint="--account-id")
    err = console(stderr=True)
    loaded = _load(policy)
    if loaded is None:
        return 1
    _check_out(out, policy, loaded)
    region = budgets_region(loaded.policy.cloud.region)
    declared = loaded.policy.cloud.account_id
    if account_id is not None and declared and account_id != declared:
        raise click.BadParameter(f"{account_id}: the policy's cloud.accountId is {declared}; its budget lives in "
                                 "that account", param_hint="--account-id")
    try:
        account = account_id or declared
        if not account:
            account = _caller_account(awsclient.client("sts", region))
        raw = fetch_budget(awsclient.client("budgets", region), account, budget_name(stack))
        alert = alert_from_budget(raw, alert_type="FORECASTED" if forecasted else "ACTUAL", account=account)
    except (BudgetStatusError, BotoCoreError, ClientError) as exc:
        err.print(f"error {budget_name(stack)}: {exc}", markup=False)
        return 1
    cluster = _joins_cluster(project_dir, stack)
    if cluster is None:
        return 1
    return _respond_and_report(loaded, policy, alert, stack=stack, out=out, fmt=fmt, source=budget_name(stack), command="poll",
                               project_dir=project_dir, live=live, cluster=cluster)
