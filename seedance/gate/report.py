"""Render a decision: text (rich), JSON, SARIF 2.1.0, Markdown and PR comment (Jinja2 templates)."""

from __future__ import annotations

import json
import re
from typing import Any

from rich.console import Console
from rich.markup import escape

from seedance import __version__
from seedance.gate.decision import Decision
from seedance.templating import get_template

SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
FORMATS = ("text", "json", "sarif", "markdown", "pr-comment")
_NUMBER = re.compile(r"[0-9][0-9,.]*")


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


def render_pr_comment(decision: Decision) -> str:
    return get_template("gate_pr_comment.md.j2").render(**_context(decision))


def render_json(decision: Decision) -> str:
    return json.dumps(decision.to_json(), indent=2, ensure_ascii=False) + "\n"


def render_sarif(decision: Decision, *, controls: list | None = None) -> str:
    """SARIF 2.1.0: one rule per control, one result per finding (waived ones carry a suppression)."""
    rules_by_id: dict[str, dict[str, Any]] = {}
    for c in controls or []:
        rules_by_id[c.control_id] = _sarif_rule(c.control_id, c.title, c.description, c.clause, c.framework, c.severity, c.remediation, c.related_resources)
    results = []
    for f in decision.findings:
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
            # numbers (costs, counts, days) masked: a finding whose figure moves stays the same alert
            "partialFingerprints": {"seedanceFinding/v2": f"{f.control_id}|{f.urn}|{_NUMBER.sub('#', f.message)}"},
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
                "results": results,
                "properties": {
                    "decision": decision.outcome,
                    "stack": decision.stack,
                    "asOf": decision.as_of,
                    **({"severityOverrides": dict(sorted(decision.severity_overrides.items()))}
                       if decision.severity_overrides else {}),
                },
            }
        ],
    }
    return json.dumps(sarif, indent=2, ensure_ascii=False) + "\n"


def render_sarif_undecided(stack: str, problems: list[str]) -> str:
    """SARIF for a gate that could not decide: a run whose invocation failed, with the reasons, no results."""
    sarif = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {"driver": {"name": "seedance-gate", "version": __version__,
                                    "informationUri": "https://seedance.io/docs/gate", "rules": []}},
                "automationDetails": {"id": f"seedance-gate/{stack}/"},
                "invocations": [
                    {
                        "executionSuccessful": False,
                        "exitCode": 2,
                        "toolExecutionNotifications": [{"level": "error", "message": {"text": p}} for p in problems],
                    }
                ],
                "results": [],
                "properties": {"decision": "undecided", "stack": stack},
            }
        ],
    }
    return json.dumps(sarif, indent=2, ensure_ascii=False) + "\n"


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
    for w in decision.expired_waivers:
        out.print(f"[yellow]expired waiver ignored[/yellow]: {escape(w.control)} on {escape(w.resource)} (expired {w.expires})")
    for w in decision.unused_waivers:
        out.print(f"[dim]waiver matched nothing: {escape(w.control)} on {escape(w.resource)}[/dim]")
    for cid, sev in sorted(decision.severity_overrides.items()):
        out.print(f"[yellow]severity override[/yellow]: {escape(cid)} is {escape(sev)} for this run (--severity)")
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
