"""Render a decision: text (rich), JSON, SARIF 2.1.0, Markdown and PR comment (Jinja2 templates)."""

from __future__ import annotations

import dataclasses

import re
from pathlib import Path
from typing import Any
from urllib.parse import quote

from rich.console import Console
from rich.markup import escape

from seedance import jsonout
from seedance import __version__
from seedance.gate.decision import Decision
from seedance.templating import COMMENT_LIMIT, fit, get_template

SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
FORMATS = ("text", "json", "sarif", "markdown", "pr-comment")
#: The partialFingerprints key; its version changes whenever the scheme does (v3: identifiers keep
#: their digits, and findings that differ only in their figures are numbered).
FINGERPRINT_KEY = "seedanceFinding/v3"
# a number standing on its own (a cost, a count, days, a port): not one inside an identifier such as
# /dev/sdb1, eu-central-1 or p4d.24xlarge, whose digits name the thing the finding is about
_NUMBER = re.compile(r"(?<![A-Za-z_/])(?<![A-Za-z_/][-.])[0-9][0-9,.]*")
_DIGITS = re.compile(r"([0-9]+(?:\.[0-9]+)?)")
_BLANK_LINES = re.compile(r"\n{3,}")


def _context(decision: Decision) -> dict[str, Any]:
    counts = decision.counts()
    outcome = decision.outcome
    return {
        "decision": decision,
        "counts": counts,
        "groups": decision.by_severity(),
        "outcome_label": "blocked" if outcome == "fail" else "passed",
        "icon": "❌" if outcome == "fail" else "✅",
        "frameworks": ", ".join(decision.frameworks) or "none (budget rules only)",
        "summary_line": (
            f"**{counts['mandatory']} mandatory finding(s) block the deploy.**"
            if outcome == "fail"
            else "No mandatory finding: the deploy may proceed."
        ),
    }


def render_markdown(decision: Decision) -> str:
    return get_template("gate_report.md.j2").render(**_context(decision))


def render_pr_comment(decision: Decision, *, limit: int = COMMENT_LIMIT) -> str:
    """The PR comment, at most ``limit`` characters: the header and counts always, then as many
    lines as fit in this order: mandatory findings, what was not checked, advisory, then waived
    findings, then the expired waivers and the waivers that matched nothing; each list that is cut
    says how many it shows, and a note says how many findings were left out.

    The waiver lists never crowd out a finding: a policy with thousands of stale waivers still gets
    its mandatory findings in the comment."""
    template = get_template("gate_pr_comment.md.j2")
    context = _context(decision)
    groups = context.pop("groups")
    given = decision.given
    # (kind, text): the first names a command in a code span, the second is plain text
    not_checked = [(kind, line) for kind, line in ((("lookup", given.not_checked()), ("unseen", given.unseen()))
                                                   if given else ()) if line]
    ordered: list[tuple[str, Any]] = [("mandatory", f) for f in groups["mandatory"]]
    ordered += [("not_checked", i) for i in range(len(not_checked))]
    ordered += [(g, f) for g in ("advisory", "waived") for f in groups[g]]
    ordered += [("expired", w) for w in decision.expired_waivers] + [("unused", w) for w in decision.unused_waivers]

    def render_first(k: int) -> str:
        shown: dict[str, list] = {"mandatory": [], "advisory": [], "waived": [], "not_checked": [], "expired": [],
                                  "unused": []}
        for g, item in ordered[:k]:
            shown[g].append(item)
        not_shown = sum(1 for g, _ in ordered[k:] if g in ("mandatory", "advisory", "waived"))
        # the note may follow a list that ends in a newline or a block that does not: one blank line
        return _BLANK_LINES.sub("\n\n", template.render(
            **context, groups=shown, omitted=not_shown, not_checked=dict(not_checked[i] for i in shown["not_checked"]),
            not_checked_left=len(not_checked) - len(shown["not_checked"]), expired=shown["expired"],
            unused=shown["unused"]))

    return fit(render_first, len(ordered), limit)


def render_json(decision: Decision) -> str:
    return jsonout.dumps(decision.to_json(), indent=2, ensure_ascii=False) + "\n"


def _natural(text: str) -> list[Any]:
    """A sort key that orders numbers by value ("port 22" before "port 3389")."""
    return [(0, float(part), "") if i % 2 else (1, 0.0, part) for i, part in enumerate(_DIGITS.split(text.replace(",", "")))]


def fingerprints(findings: list) -> list[str]:
    """A stable key per finding, for SARIF ``partialFingerprints`` (code scanning merges results that share one).

    The key is the control, the resource's URN and the message with its free-standing numbers masked
    (a cost, a count, a number of days), so a finding whose figure moves stays the same alert. Findings
    that this leaves equal (one security group open on two port ranges) are numbered in the order of
    their messages' numbers: the first keeps ``…|0``, the next ``…|1``.
    """
    masked = [f"{f.control_id}|{f.urn}|{_NUMBER.sub('#', f.message)}" for f in findings]
    groups: dict[str, list[int]] = {}
    for i, key in enumerate(masked):
        groups.setdefault(key, []).append(i)
    out = [""] * len(findings)
    for key, members in groups.items():
        members.sort(key=lambda i: (_natural(findings[i].message), i))
        for n, i in enumerate(members):
            out[i] = f"{key}|{n}"
    return out


def render_sarif(decision: Decision, *, controls: list | None = None) -> str:
    """SARIF 2.1.0: one rule per control, one result per finding (waived ones carry a suppression)."""
    rules_by_id: dict[str, dict[str, Any]] = {}
    for c in controls or []:
        rules_by_id[c.control_id] = _sarif_rule(c.control_id, c.title, c.description, c.clause, c.framework, c.severity, c.remediation, c.related_resources)
    results = []
    prints = fingerprints(decision.findings)
    for i, f in enumerate(decision.findings):
        if f.control_id not in rules_by_id:
            rules_by_id[f.control_id] = _sarif_rule(f.control_id, f.title, f.title, f.clause, f.framework, f.severity, f.remediation, ())
        result: dict[str, Any] = {
            "ruleId": f.control_id,
            "level": "error" if f.severity == "mandatory" else "warning",
            "message": {"text": f"{f.message} ({f.urn})"},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": f"policies/{f.file}", "uriBaseId": "%SRCROOT%"},
                        "region": {"startLine": f.line},
                    },
                    "logicalLocations": [{"name": f.resource_name, "fullyQualifiedName": f.urn, "kind": "resource"}],
                }
            ],
            "partialFingerprints": {FINGERPRINT_KEY: prints[i]},
            "properties": {"severity": f.severity, "clause": f.clause, "resourceType": f.resource_type},
        }
        if f.waived and f.waiver is not None:
            result["suppressions"] = [
                {"kind": "external", "status": "accepted", "justification": f"{f.waiver.reason} (approved by {f.waiver.approver}, expires {f.waiver.expires})"}
            ]
        results.append(result)
    ordered = sorted(rules_by_id)
    index = {rid: i for i, rid in enumerate(ordered)}
    for r in results:
        r["ruleIndex"] = index[r["ruleId"]]
    sarif = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "seedance-gate",
                        "version": __version__,
                        "informationUri": "https://seedance.io/docs/gate",
                        "rules": [rules_by_id[r] for r in ordered],
                    }
                },
                "automationDetails": {"id": f"seedance-gate/{decision.stack}/"},
                "invocations": [{"executionSuccessful": True, "toolExecutionNotifications": [
                    {"level": level, "message": {"text": text}} for level, text in waiver_notices(decision)
                ]}],
                "results": results,
                "properties": {
                    "decision": decision.outcome,
                    "stack": decision.stack,
                    "asOf": decision.as_of,
                    "expiredWaivers": [dataclasses.asdict(w) for w in decision.expired_waivers],
                    "unusedWaivers": [dataclasses.asdict(w) for w in decision.unused_waivers],
                    **({"severityOverrides": dict(sorted(decision.severity_overrides.items()))}
                       if decision.severity_overrides else {}),
                    **({"given": decision.given.to_json()} if decision.given else {}),
                },
            }
        ],
    }
    return jsonout.dumps(sarif, indent=2, ensure_ascii=False) + "\n"


def waiver_notices(decision: Decision) -> list[tuple[str, str]]:
    """Waivers that did nothing this run, as (SARIF level, text), for the text report and SARIF alike:
    expired ones (a warning: the findings they covered count again) and ones that matched no finding."""
    return [
        ("warning", f"expired waiver ignored: {w.control} on {w.resource} (expired {w.expires})") for w in decision.expired_waivers
    ] + [("note", f"waiver matched nothing: {w.control} on {w.resource}") for w in decision.unused_waivers]


UNDECIDED_RULE = "SEEDANCE-UNDECIDED"


def render_sarif_undecided(stack: str, problems: list[str], *, artifact: str | None = None) -> str:
    """SARIF for a gate that could not decide: a failed invocation with the reasons, and one error result.

    A run with no results reads as "nothing found" (code scanning would show the stack as clean), so
    the run carries a single error-level result that says the gate did not decide. ``artifact``: the
    file the result points at (the stack's ``Pulumi.<stack>.yaml`` or the gated document).
    """
    uri = artifact or f"Pulumi.{stack}.yaml"
    location: dict[str, Any] = (
        {"uri": Path(uri).as_uri()} if Path(uri).is_absolute()
        else {"uri": quote(Path(uri).as_posix(), safe="/"), "uriBaseId": "%SRCROOT%"}  # a URI reference: %-encoded
    )
    why = "; ".join(problems) or "no reason given"
    rule = {
        "id": UNDECIDED_RULE,
        "name": "GateUndecided",
        "shortDescription": {"text": "The deploy gate could not decide"},
        "fullDescription": {"text": "The gate could not evaluate the stack (engine error, malformed policy, unreachable OPA "
                                    "or invalid input), so it blocks the deploy. Findings of earlier runs are not "
                                    "fixed: this run did not evaluate them."},
        "help": {"text": "Fix the problem the result names and run seedance check again."},
        "defaultConfiguration": {"level": "error"},
        "properties": {"tags": ["seedance", "undecided"]},
    }
    sarif = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {"driver": {"name": "seedance-gate", "version": __version__,
                                    "informationUri": "https://seedance.io/docs/gate", "rules": [rule]}},
                "automationDetails": {"id": f"seedance-gate/{stack}/"},
                "invocations": [
                    {
                        "executionSuccessful": False,
                        "exitCode": 2,
                        "toolExecutionNotifications": [{"level": "error", "message": {"text": p}} for p in problems],
                    }
                ],
                "results": [
                    {
                        "ruleId": UNDECIDED_RULE,
                        "ruleIndex": 0,
                        "level": "error",
                        "message": {"text": f"the gate could not decide for stack {stack}, so the deploy is blocked: {why}"},
                        "locations": [{"physicalLocation": {"artifactLocation": location, "region": {"startLine": 1}}}],
                        "partialFingerprints": {FINGERPRINT_KEY: f"{UNDECIDED_RULE}|{stack}"},
                    }
                ],
                "properties": {"decision": "undecided", "stack": stack},
            }
        ],
    }
    return jsonout.dumps(sarif, indent=2, ensure_ascii=False) + "\n"


def _sarif_rule(cid, title, description, clause, framework, severity, remediation, related) -> dict[str, Any]:
    rule: dict[str, Any] = {
        "id": cid,
        "name": "".join(w.capitalize() for w in str(title).replace("-", " ").split() if w.isalnum()) or cid,
        "shortDescription": {"text": str(title)},
        "fullDescription": {"text": str(description)},
        "help": {"text": str(remediation)},
        "defaultConfiguration": {"level": "error" if severity == "mandatory" else "warning"},
        "properties": {"clause": clause, "framework": framework, "severity": severity, "tags": [framework, "compliance"]},
    }
    if related:
        rule["helpUri"] = related[0]
    return rule


def print_text(out: Console, decision: Decision, *, engine: str) -> None:
    counts = decision.counts()
    groups = decision.by_severity()
    labels = {"mandatory": ("red", "MANDATORY"), "advisory": ("yellow", "ADVISORY"), "waived": ("dim", "WAIVED")}
    for group in ("mandatory", "advisory", "waived"):
        items = groups[group]
        if not items:
            continue
        colour, label = labels[group]
        out.print(f"[bold {colour}]{label}[/bold {colour}] ({len(items)})")
        for f in items:
            out.print(f"  [{colour}]{escape(f.control_id)}[/{colour}] {escape(f.clause)}  {escape(f.urn)}")
            out.print(f"    {escape(f.message)}")
            if f.waiver is not None:
                out.print(f"    [dim]waived until {f.waiver.expires} by {escape(f.waiver.approver)}: {escape(f.waiver.reason)}[/dim]")
            out.print(f"    [dim]fix: {escape(f.remediation)}[/dim]")
    for level, text in waiver_notices(decision):
        style = "yellow" if level == "warning" else "dim"
        out.print(f"[{style}]{escape(text)}[/{style}]")
    for cid, sev in sorted(decision.severity_overrides.items()):
        out.print(f"[yellow]severity override[/yellow]: {escape(cid)} is {escape(sev)} for this run (--severity)")
    given = decision.given
    if given and given.read_line():
        out.print(f"[dim]{escape(given.read_line())}[/dim]")
    if given and given.not_checked():
        out.print(f"[yellow]not checked[/yellow]: {escape(given.not_checked())}")
    if given and given.unseen():
        out.print(f"[yellow]not checked[/yellow]: {escape(given.unseen())}")
    verdict = "[bold red]✗ blocked[/bold red]" if decision.outcome == "fail" else "[bold green]✓ passed[/bold green]"
    out.print(
        f"{verdict} {escape(decision.stack)}: {counts['mandatory']} mandatory, {counts['advisory']} advisory, "
        f"{counts['waived']} waived; {decision.controls_evaluated} controls ({engine})"
    )


def render(decision: Decision, fmt: str, *, controls: list | None = None) -> str:
    if fmt == "json":
        return render_json(decision)
    if fmt == "sarif":
        return render_sarif(decision, controls=controls)
    if fmt == "markdown":
        return render_markdown(decision)
    if fmt == "pr-comment":
        return render_pr_comment(decision)
    raise ValueError(f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")
