"""The decision document: raw findings joined to their METADATA, waivers applied.  Pure functions."""

from __future__ import annotations

import datetime as dt
import fnmatch
from dataclasses import asdict, dataclass, field

from seedance.gate.bundle import PolicyBundle
from seedance.gate.errors import EngineError
from seedance.gate.metadata import SEVERITIES

SEVERITY_ORDER = {"mandatory": 0, "advisory": 1}


@dataclass(frozen=True)
class Waiver:
    control: str
    resource: str  # glob over URNs or names
    reason: str
    approver: str
    expires: str  # ISO date, last day the waiver holds

    def matches(self, control_id: str, urn: str, name: str) -> bool:
        return self.control == control_id and (
            fnmatch.fnmatchcase(urn, self.resource) or fnmatch.fnmatchcase(name, self.resource)
        )

    def expired(self, as_of: dt.date) -> bool:
        return dt.date.fromisoformat(self.expires) < as_of


@dataclass(frozen=True)
class Finding:
    control_id: str
    severity: str
    framework: str
    clause: str
    title: str
    urn: str
    resource_type: str
    resource_name: str
    message: str
    remediation: str
    rule: str  # data.<package>.<rule>
    file: str
    line: int
    waived: bool = False
    waiver: Waiver | None = None


@dataclass(frozen=True)
class Given:
    """What the rules can only see when AWS is read (``seedance check --lookup``; then ``read``, in
    ``region``): the subnets and security groups a stack is given (not in its document), the
    instance types it launches (whether their instance store is encrypted), the VPC's endpoints the
    policy names (network.existingEndpoints) and the existing trail the policy relies on (as
    CloudTrail describes it)."""

    subnets: list[str]
    security_groups: list[str]
    read: bool
    region: str | None = None
    # security groups whose ids offline synthesis made up (id -> what it stands for): never read
    placeholders: dict[str, str] = field(default_factory=dict)
    instance_types: list[str] = field(default_factory=list)  # whose instance-store encryption EC2 tells
    read_at: str | None = None  # when EC2 was read (facts recorded earlier: seedance check --facts)
    missing: Given | None = None  # what the facts do not cover (recorded before the document named it)
    trails: list[str] = field(default_factory=list)  # the existing trail the policy relies on, which CloudTrail describes
    # the services whose endpoint the policy says the VPC already has (network.existingEndpoints): the
    # rules count them as present on the policy's word unless EC2 was read for them (checked_endpoints)
    endpoints: list[str] = field(default_factory=list)
    vpc: str | None = None  # the policy's cloud.vpcId, where those endpoints are said to be
    checked_endpoints: list[str] = field(default_factory=list)  # those of them whose endpoints EC2 described
    # those of them with an available gateway endpoint whose route tables were not matched with those of
    # every subnet of the stack (cloud.subnetIds): the facts hold none of the subnets (a gateway on any
    # route table counts), or not unmatched_subnets (matched with the others only)
    gateway_endpoints: list[str] = field(default_factory=list)
    unmatched_subnets: list[str] = field(default_factory=list)
    # those of them with an available gateway endpoint matched with the route tables of every one of the
    # stack's matched_subnets subnets (only one on each one's table serves)
    matched_gateways: list[str] = field(default_factory=list)
    matched_subnets: int = 0
    # those of them EC2 shows no serving endpoint for (service -> why): the estimate prices their traffic through NAT
    unserved_endpoints: dict[str, str] = field(default_factory=dict)
    # the facts describe endpoints of another VPC than the policy's (the policy's word is taken)
    facts_vpc: str | None = None

    @property
    def unchecked_endpoints(self) -> list[str]:
        """The existing endpoints taken on the policy's word (not read from EC2)."""
        return [e for e in self.endpoints if e not in self.checked_endpoints]

    def to_json(self) -> dict:
        return {"read": self.read, **({"region": self.region} if self.region else {}),
                **({"readAt": self.read_at} if self.read_at else {}),
                "subnets": self.subnets, "securityGroups": self.security_groups, "instanceTypes": self.instance_types,
                **({"trails": self.trails} if self.trails else {}),
                **({"existingEndpoints": {"services": self.endpoints, **({"vpc": self.vpc} if self.vpc else {}),
                                          "checked": not self.unchecked_endpoints,
                                          **({"pricedThroughNat": self.unserved_endpoints} if self.unserved_endpoints else {}),
                                          **({"factsVpc": self.facts_vpc} if self.facts_vpc else {}),
                                          **({"routeTablesMatched": self.matched_gateways} if self.matched_gateways else {}),
                                          **({"routeTablesNotMatched": self.gateway_endpoints}
                                             if self.gateway_endpoints else {}),
                                          **({"notChecked": self.unchecked_endpoints}
                                             if self.checked_endpoints and self.unchecked_endpoints else {})}}
                   if self.endpoints else {}),
                **({"placeholders": self.placeholders} if self.placeholders else {}),
                **({"notInFacts": {"subnets": self.missing.subnets, "securityGroups": self.missing.security_groups,
                                   "instanceTypes": self.missing.instance_types,
                                   **({"trails": self.missing.trails} if self.missing.trails else {})}}
                   if self.missing else {})}

    def read_line(self) -> str:
        """'Read from EC2 in R (and CloudTrail in H) at T: ...', or '' when AWS was not read."""
        if not (self.read and self.summary()):
            return ""
        return (f"Read from {self._sources()}{f' at {self.read_at}' if self.read_at else ''}: {self.summary()}"
                + (f". {self.priced_note()}" if self.unserved_endpoints else ""))

    def priced_note(self) -> str:
        """What the estimate the budget rules judge prices through NAT because EC2 shows no serving
        endpoint for a service of network.existingEndpoints, or ''."""
        if not self.unserved_endpoints:
            return ""
        whys = "; ".join(f"{s}: {why}" for s, why in sorted(self.unserved_endpoints.items()))
        return (f"network.existingEndpoints names {', '.join(sorted(self.unserved_endpoints))}, but EC2 shows no "
                f"serving endpoint ({whys}): the estimate the budget rules judge prices that traffic through NAT")

    def _sources(self, *, where: bool = True) -> str:
        """'EC2 in R', 'CloudTrail in H' (the trail's home region) or both; without ``where``, the services."""
        ec2 = bool(self.subnets or self.security_groups or self.instance_types or self.checked_endpoints) or not self.trails
        homes = ", ".join(sorted({t.split(":")[3] for t in self.trails if t.count(":") >= 5}))
        parts = ([f"EC2 in {self.region or '?'}" if where else "EC2"] if ec2 else []) + \
            ([f"CloudTrail in {homes or '?'}" if where else "CloudTrail"] if self.trails else [])
        return " and ".join(parts)

    def not_checked(self) -> str:
        """What the rules did not see, for a 'Not checked: ...' line, or ''."""
        if not self.read and self.summary():
            return f"{self.summary()} (`seedance check --lookup` reads them from {self._sources(where=False)})"
        if self.missing and self.missing.summary():
            return f"{self.missing.summary()} (not in the facts read earlier: `seedance check --lookup` reads them)"
        return ""

    def unseen(self) -> str:
        """What no lookup reads: the placeholders ('the cluster security group of EKS cluster X: offline
        synthesis cannot know its id ...'), an existing trail's log bucket, the VPC's existing endpoints
        the policy names that EC2 was not read for (``--lookup`` reads them) and whether a gateway one
        it was read for is on the route tables of the stack's subnets, when the facts do not hold them
        all; '' when there is none of them."""
        lines = []
        if self.placeholders:
            lines.append(f"{', '.join(sorted(self.placeholders.values()))}: offline synthesis cannot know "
                         f"{'its id' if len(self.placeholders) == 1 else 'their ids'} (a document converted from a "
                         "pulumi preview holds the real ones)")
        trails = sorted({*self.trails, *(self.missing.trails if self.missing else [])})
        if trails:
            lines.append(f"the log bucket of the existing trail {', '.join(trails)} (its retention, versioning, deletion "
                         "protection, off-site copy and region): it is its owner's, and Seedance does not read it")
        if unread := self.unchecked_endpoints:
            n = len(unread)
            lines.append(f"the VPC endpoint{'' if n == 1 else 's'} for {', '.join(unread)} that the policy says "
                         f"{self.vpc or 'the VPC'} already has (network.existingEndpoints), counted as present on the "
                         f"policy's word: whether {'it exists' if n == 1 else 'each exists'} and is available, has "
                         "private DNS (interface) or is on the stack's route tables (gateway), and what "
                         f"{'its' if n == 1 else 'their'} endpoint polic{'y allows' if n == 1 else 'ies allow'}, "
                         "Seedance did not read (" + ("not in the facts read earlier: " if self.read else "")
                         + f"`seedance check --lookup` reads {'it' if n == 1 else 'them'} from EC2)")
        if self.gateway_endpoints:
            n = len(self.gateway_endpoints)
            head = (f"whether the gateway endpoint{'' if n == 1 else 's'} for {', '.join(self.gateway_endpoints)} "
                    f"that {self.vpc or 'the VPC'} has (network.existingEndpoints, read from EC2) "
                    f"{'is' if n == 1 else 'are'} on the route tables of ")
            if self.unmatched_subnets:
                m = len(self.unmatched_subnets)
                lines.append(head + f"the stack's subnet{'' if m == 1 else 's'} {', '.join(self.unmatched_subnets)} "
                             "(cloud.subnetIds): the facts read earlier do not hold "
                             f"{'its' if m == 1 else 'their'} route table{'' if m == 1 else 's'}, so "
                             f"{'it was' if n == 1 else 'they were'} matched with the other subnets' only "
                             "(`seedance check --lookup` reads them)")
            else:
                lines.append(head + "the stack's subnets: the facts hold no subnet of cloud.subnetIds, so "
                             f"{'its' if n == 1 else 'their'} route tables were read, not matched with the subnets' "
                             f"(a gateway on any route table counts)")
        return "; ".join(lines)

    def summary(self) -> str:
        """'the 3 subnets and 1 security group the stack is given and the instance-store encryption of
        its 5 instance types' (what there is), or ''."""
        given = [f"{n} {what}{'' if n == 1 else 's'}" for n, what in ((len(self.subnets), "subnet"),
                                                                      (len(self.security_groups), "security group")) if n]
        parts = [f"the {' and '.join(given)} the stack is given"] if given else []
        if self.instance_types:
            n = len(self.instance_types)
            parts.append(f"the instance-store encryption of its {n} instance type{'' if n == 1 else 's'}")
        if self.checked_endpoints:
            n = len(self.checked_endpoints)
            parts.append(f"the endpoints of {self.vpc or 'the VPC'} for {', '.join(self.checked_endpoints)} "
                         "(network.existingEndpoints)")
        if self.matched_gateways:
            n, m = len(self.matched_gateways), self.matched_subnets
            parts.append(f"the route table{'' if m == 1 else 's'} of {'its' if m == 1 else f'its {m}'} "
                         f"subnet{'' if m == 1 else 's'} (cloud.subnetIds), matched with the gateway "
                         f"endpoint{'' if n == 1 else 's'} for {', '.join(self.matched_gateways)}")
        if self.trails:
            parts.append(f"the settings of the existing trail {', '.join(self.trails)} it relies on")
        return " and ".join(parts)


@dataclass(frozen=True)
class Decision:
    stack: str
    as_of: str
    frameworks: list[str]
    controls_evaluated: int
    findings: list[Finding]
    expired_waivers: list[Waiver] = field(default_factory=list)
    unused_waivers: list[Waiver] = field(default_factory=list)
    severity_overrides: dict[str, str] = field(default_factory=dict)  # control id -> severity forced for this run
    given: Given | None = None  # what only EC2 tells (given subnets, groups, instance types), and whether it was read

    @property
    def blocking(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "mandatory" and not f.waived]

    @property
    def outcome(self) -> str:
        return "fail" if self.blocking else "pass"

    @property
    def exit_code(self) -> int:
        return 1 if self.blocking else 0

    def counts(self) -> dict[str, int]:
        active = [f for f in self.findings if not f.waived]
        return {
            "mandatory": sum(f.severity == "mandatory" for f in active),
            "advisory": sum(f.severity == "advisory" for f in active),
            "waived": sum(f.waived for f in self.findings),
        }

    def by_severity(self) -> dict[str, list[Finding]]:
        groups: dict[str, list[Finding]] = {"mandatory": [], "advisory": [], "waived": []}
        for f in self.findings:
            groups["waived" if f.waived else f.severity].append(f)
        return groups

    def to_json(self) -> dict:
        return {
            "apiVersion": "seedance.io/v1",
            "kind": "GateDecision",
            "stack": self.stack,
            "asOf": self.as_of,
            "decision": self.outcome,
            "frameworks": self.frameworks,
            "controlsEvaluated": self.controls_evaluated,
            "counts": self.counts(),
            "findings": [_finding_json(f) for f in self.findings],
            "expiredWaivers": [asdict(w) for w in self.expired_waivers],
            "unusedWaivers": [asdict(w) for w in self.unused_waivers],
            # a downgraded control must leave a trace in every report of the run
            **({"severityOverrides": dict(sorted(self.severity_overrides.items()))} if self.severity_overrides else {}),
            **({"given": self.given.to_json()} if self.given else {}),
        }


def _finding_json(f: Finding) -> dict:
    d = asdict(f)
    return {
        "controlId": d["control_id"],
        "severity": d["severity"],
        "framework": d["framework"],
        "clause": d["clause"],
        "title": d["title"],
        "urn": d["urn"],
        "resourceType": d["resource_type"],
        "resourceName": d["resource_name"],
        "message": d["message"],
        "remediation": d["remediation"],
        "rule": d["rule"],
        "file": d["file"],
        "line": d["line"],
        "waived": d["waived"],
        "waiver": d["waiver"],
    }


def parse_waivers(policy_json: dict) -> list[Waiver]:
    out = []
    for w in policy_json.get("waivers") or []:
        out.append(Waiver(w["control"], w["resource"], w["reason"], w["approver"], str(w["expires"])))
    return out


_FINDING_KEYS = ("control_id", "severity", "urn", "resource_type", "resource_name", "message")
_FINDING_KEY_SET = frozenset(_FINDING_KEYS)


def decide(
    raw: dict[str, list[dict]],
    bundle: PolicyBundle,
    *,
    stack: str,
    frameworks: list[str],
    waivers: list[Waiver],
    as_of: dt.date,
) -> Decision:
    """Join raw findings to METADATA and apply waivers; a malformed finding makes the gate undecided."""
    active = [w for w in waivers if not w.expired(as_of)]
    expired = [w for w in waivers if w.expired(as_of)]
    used: set[int] = set()
    findings: list[Finding] = []
    for control in bundle.controls:
        if control.control_id not in raw:
            raise EngineError(f"{control.control_id}: the engine returned no result for {control.query}")
        for item in raw[control.control_id]:
            if not isinstance(item, dict) or not _FINDING_KEY_SET <= item.keys():
                raise EngineError(
                    f"{control.file}:{control.line}: {control.query} produced a finding without "
                    f"{', '.join(_FINDING_KEYS)} (build findings with lib.findings.finding): {item!r}"
                )
            if item["control_id"] != control.control_id:
                raise EngineError(
                    f"{control.file}:{control.line}: {control.query} reports control {item['control_id']!r} "
                    f"but its METADATA says {control.control_id!r}"
                )
            if item["severity"] not in SEVERITIES:
                raise EngineError(f"{control.query}: severity {item['severity']!r} is not one of {', '.join(SEVERITIES)}")
            waiver = (
                next((w for w in active if w.matches(control.control_id, str(item["urn"]), str(item["resource_name"]))), None)
                if active
                else None
            )
            if waiver is not None:
                used.add(id(waiver))
            findings.append(
                Finding(
                    control_id=control.control_id,
                    severity=item["severity"],
                    framework=control.framework,
                    clause=control.clause,
                    title=control.title,
                    urn=str(item["urn"]),
                    resource_type=str(item["resource_type"]),
                    resource_name=str(item["resource_name"]),
                    message=str(item["message"]),
                    remediation=control.remediation,
                    rule=control.query,
                    file=control.file,
                    line=control.line,
                    waived=waiver is not None,
                    waiver=waiver,
                )
            )
    findings.sort(key=lambda f: (f.waived, SEVERITY_ORDER[f.severity], f.control_id, f.urn, f.message))
    return Decision(
        stack=stack,
        as_of=as_of.isoformat(),
        frameworks=sorted(frameworks),
        # the controls that applied: the budget's always, a framework's when the stack names it
        controls_evaluated=sum(c.framework == "budget" or c.framework in frameworks for c in bundle.controls),
        findings=findings,
        expired_waivers=expired,
        unused_waivers=[w for w in active if id(w) not in used],
        severity_overrides=dict(bundle.severity_overrides),
    )
