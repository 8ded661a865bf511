"""Evaluate a gate input: engine -> raw findings -> decision document."""

from __future__ import annotations

import datetime as dt
import logging

from seedance.gate.bundle import PolicyBundle
import dataclasses

from seedance.clock import utc_today
from seedance.gate.decision import Decision, Given, decide, parse_waivers
from seedance.gate.engine import Engine
from seedance.gate.errors import EngineError, GateError
from seedance.gate.inputs import GateInput

log = logging.getLogger(__name__)


def evaluate(gate_input: GateInput, bundle: PolicyBundle, engine: Engine, *, as_of: dt.date | None = None) -> Decision:
    """Fail closed: any engine failure raises a GateError; nothing is returned as passing on an error."""
    try:
        raw = engine.evaluate(bundle, gate_input.to_json())
    except GateError:
        raise
    except Exception as exc:  # an engine bug must not look like a pass
        raise EngineError(f"{engine.name}: {type(exc).__name__}: {exc}") from None
    policy = gate_input.policy
    decision = decide(
        raw,
        bundle,
        stack=gate_input.stack,
        frameworks=list(policy.get("compliance", {}).get("frameworks", [])),
        waivers=parse_waivers(policy),
        as_of=as_of or utc_today(),  # waivers expire by the UTC date
    )
    return dataclasses.replace(decision, given=given(gate_input))


def given(gate_input: GateInput) -> Given | None:
    """What only AWS tells the rules about the stack, and whether (and when) it was read; None when
    there is nothing (or the document cannot be read for it)."""
    from seedance.gate.facts import (
        endpoint_unserved,
        existing_endpoint_services,
        existing_trail_arns,
        given_security_group_ids,
        given_subnet_ids,
        instance_types,
        placeholder_security_groups,
        references,
    )

    document = gate_input.document
    try:
        refs = references(document)
        made_up = placeholder_security_groups(document, refs)
        subnets, groups = given_subnet_ids(gate_input.policy, document, refs), given_security_group_ids(document, refs)
        types = instance_types(document, refs)
        trails = existing_trail_arns(gate_input.policy)
        endpoints = existing_endpoint_services(gate_input.policy)
        vpc = (gate_input.policy.get("cloud") or {}).get("vpcId")
    except (AttributeError, TypeError):  # a hand-written gate input of unexpected shape: nothing to report
        return None
    facts = gate_input.facts
    if facts is None:
        return (Given(subnets, groups, False, None, made_up, types, trails=trails, endpoints=endpoints,
                      vpc=vpc if isinstance(vpc, str) else None)
                if subnets or groups or made_up or types or trails or endpoints else None)
    have = {k: set(facts.get(k) or {}) for k in ("subnets", "security_groups", "instance_types", "trails")}
    missing = Given([s for s in subnets if s not in have["subnets"]], [g for g in groups if g not in have["security_groups"]],
                    False, instance_types=[t for t in types if t not in have["instance_types"]],
                    trails=[t for t in trails if t not in have["trails"]])
    read_endpoints = _read_endpoints(facts, vpc)
    return Given(sorted(have["subnets"]), sorted(have["security_groups"]), True, facts.get("region"), made_up,
                 sorted(have["instance_types"]), facts.get("read_at"), missing if missing.summary() else None,
                 sorted(have["trails"] & set(trails)), endpoints=endpoints, vpc=vpc if isinstance(vpc, str) else None,
                 checked_endpoints=[e for e in endpoints if e in read_endpoints],
                 **_gateway_matching(gate_input.policy, facts, endpoints, read_endpoints),
                 unserved_endpoints=endpoint_unserved(gate_input.policy, facts, gate_input.stack),
                 facts_vpc=_facts_vpc(facts, vpc) if endpoints else None)


def _gateway_matching(policy: dict, facts: dict, endpoints: list[str], read: dict[str, list[dict]]) -> dict:
    """The Given fields that say whether the listed services' available gateway endpoints were matched
    with the route tables of every subnet of ``cloud.subnetIds`` (the facts hold them all; the rules and
    the estimate then count a gateway only when it is on each one's table) or not (a gateway on any
    route table counts: ``gateway_endpoints``, with ``unmatched_subnets`` those whose tables the facts
    lack when they hold some)."""
    from seedance.gate.facts import subnet_route_tables

    gateways = [e for e in endpoints if any(f.get("type") == "Gateway" and str(f.get("state")).lower() == "available"
                                            for f in read.get(e) or [])]
    tables = subnet_route_tables(policy, facts)
    ids = (policy.get("cloud") or {}).get("subnetIds")
    unread = sorted({s for s in ids if isinstance(s, str) and s not in tables}) if isinstance(ids, list) else []
    if tables and not unread:
        return {"matched_gateways": gateways, "matched_subnets": len(tables)}
    return {"gateway_endpoints": gateways, "unmatched_subnets": unread if tables else []}


def _facts_vpc(facts: dict, vpc: object) -> str | None:
    """The VPC the facts' endpoints were read in, when it is not the policy's."""
    read = (facts.get("vpc_endpoints") or {}).get("vpc_id")
    return read if isinstance(read, str) and read != vpc else None


def _read_endpoints(facts: dict, vpc: object) -> dict[str, list[dict]]:
    """The VPC's endpoints by service as EC2 described them, when read for the policy's VPC (as the
    rules take them: facts of another VPC are not this one's)."""
    read = facts.get("vpc_endpoints") or {}
    return dict(read.get("services") or {}) if isinstance(vpc, str) and read.get("vpc_id") == vpc else {}
