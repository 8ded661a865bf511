"""What EC2 says about what a stack's document lacks: the subnets and security groups the stack is
given, and whether its instance types encrypt their instance store.

The subnets and security groups a stack creates are in its resource document; the ones it is given
are not: the policy's ``cloud.subnetIds``, subnet ids a program names, and security groups its
launch templates or instances name by id (the EKS cluster security group that nodes joining a
cluster carry). ``seedance check --lookup`` reads them from EC2 (``DescribeSubnets``,
``DescribeRouteTables`` of their VPCs, ``DescribeSecurityGroups``, ``DescribeInstanceTypes``) and
passes them to the rules as ``input.facts``: for each subnet, whether it maps public IPs on launch
its zone and the routes of the route table that routes it (its own association, else its VPC's main
route table); for each security group, its ingress and egress rules; for each instance type the stack
launches, whether it has an instance store and whether that is encrypted. A trail the policy relies
on instead of its own (``compliance.existingTrail``) is read from CloudTrail (``GetTrail``,
``GetTrailStatus``, ``GetEventSelectors``, in the trail's home region): its settings, whether it is
recording, and which management and S3 data events it records. The endpoints the policy says the VPC
already has (``network.existingEndpoints``) are read from EC2 (``DescribeVpcEndpoints`` in the
policy's ``cloud.vpcId``, by the region's service names): each one's type, state, private DNS, policy
and (a gateway's) route tables.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import functools
import json
import logging
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from seedance.gate.errors import GateError
from seedance.policy.model import INSTANCE_TYPE_PATTERN

log = logging.getLogger(__name__)

SUBNET_ID = re.compile(r"^subnet-[0-9a-f]{8,17}$")
SECURITY_GROUP_ID = re.compile(r"^sg-[0-9a-f]{8,17}$")
INSTANCE_TYPE = re.compile(INSTANCE_TYPE_PATTERN)

#: Where a route leads, in the order DescribeRouteTables may name it (one is set per route).
_TARGETS = ("GatewayId", "NatGatewayId", "TransitGatewayId", "VpcPeeringConnectionId", "NetworkInterfaceId",
            "InstanceId", "EgressOnlyInternetGatewayId", "CarrierGatewayId", "LocalGatewayId", "CoreNetworkArn")
_DESTINATIONS = ("DestinationCidrBlock", "DestinationIpv6CidrBlock", "DestinationPrefixListId")


class _Fact(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class RouteFact(_Fact):
    destination: str
    target: str = Field(description="The gateway, NAT gateway, interface ... the route leads to (igw-... for an internet gateway).")
    state: str = Field(default="active", description="active, or blackhole when its target is gone.")


class SubnetFact(_Fact):
    vpc_id: str
    map_public_ip_on_launch: bool
    route_table_id: str
    main_route_table: bool = Field(description="The subnet has no association of its own: its VPC's main route table routes it.")
    routes: list[RouteFact]
    availability_zone: str | None = Field(default=None, description="The zone it sits in (eu-central-1a ...).")


class RuleFact(_Fact):
    protocol: str = Field(description="tcp, udp, icmp ... or -1 for every protocol.")
    from_port: int
    to_port: int
    cidrs: list[str] = Field(default_factory=list, description="IPv4 and IPv6 ranges it admits (ingress) or reaches (egress).")
    groups: list[str] = Field(default_factory=list, description="Security groups it admits or reaches.")
    prefix_lists: list[str] = Field(default_factory=list)


class SecurityGroupFact(_Fact):
    name: str
    vpc_id: str | None = None
    ingress: list[RuleFact]
    egress: list[RuleFact]


class InstanceTypeFact(_Fact):
    instance_storage: bool = Field(description="The type has instance-store volumes.")
    encryption_support: str | None = Field(
        default=None, description="Whether its instance store is encrypted: required (always, by the hardware), "
        "supported or unsupported; none without an instance store.")


class TrailFact(_Fact):
    """An existing trail the policy relies on (``compliance.existingTrail``), as CloudTrail describes it
    (``GetTrail``, ``GetTrailStatus``, ``GetEventSelectors`` in the trail's home region)."""

    multi_region: bool
    include_global_service_events: bool
    log_file_validation: bool
    kms_key_id: str | None = Field(default=None, description="The KMS key its log files are encrypted with; none: SSE-S3 only.")
    logging: bool = Field(description="Whether it is recording now (GetTrailStatus IsLogging).")
    management_events: bool = Field(description="Whether its event selectors record management events.")
    s3_data_events: list[str] = Field(default_factory=list, description="The S3 object ARNs (prefixes) whose data events "
                                      "it records, as its selectors give them; 'arn:aws:s3' (or aws-cn) for every bucket.")
    organization: bool = False
    home_region: str | None = None
    s3_bucket: str | None = Field(default=None, description="The bucket its log files go to (not the stack's: not checked).")


class EndpointFact(_Fact):
    """One VPC endpoint of a service the policy says the VPC already has, as ``DescribeVpcEndpoints`` gives it."""

    id: str
    service_name: str = Field(description="com.amazonaws.REGION.SERVICE (some services cn.com.amazonaws... in China).")
    type: str = Field(description="Interface, Gateway or GatewayLoadBalancer.")
    state: str = Field(description="available, pending, deleting, deleted, rejected, failed ... (only an available one serves).")
    private_dns_enabled: bool = False
    policy: dict[str, Any] | None = Field(default=None, description="Its endpoint policy (the policy document, parsed).")
    route_table_ids: list[str] = Field(default_factory=list, description="A gateway endpoint's route tables.")
    tags: dict[str, str] = Field(default_factory=dict, description="Its tags (seedance:stack names the Seedance stack "
                                 "that created it).")

    @field_validator("type")
    @classmethod
    def _known_type(cls, value: str) -> str:
        """EC2's spelling of the type (a hand-edited 'interface' is Interface), and only a type EC2 has."""
        canonical = _ENDPOINT_TYPES.get(value.strip().lower())
        if canonical is None:
            raise ValueError(f"unknown endpoint type {value!r}: expected one of {', '.join(_ENDPOINT_TYPES.values())}")
        return canonical


_ENDPOINT_TYPES = {t.lower(): t for t in ("Interface", "Gateway", "GatewayLoadBalancer", "Resource", "ServiceNetwork")}

#: The tag Seedance puts on every resource of a stack (components.common), its value the stack's name.
STACK_TAG = "seedance:stack"


class VpcEndpointsFact(_Fact):
    """The endpoints of ``vpc_id`` for each service of ``network.existingEndpoints``: none is an empty list."""

    vpc_id: str
    services: dict[str, list[EndpointFact]] = Field(default_factory=dict)


class AwsFacts(_Fact):
    region: str
    read_at: str | None = Field(default=None, description="When EC2 was read (ISO 8601, UTC).")
    subnets: dict[str, SubnetFact] = Field(default_factory=dict)
    security_groups: dict[str, SecurityGroupFact] = Field(default_factory=dict)
    instance_types: dict[str, InstanceTypeFact] = Field(default_factory=dict)
    trails: dict[str, TrailFact] = Field(default_factory=dict, description="The existing trail the policy names, by ARN.")
    vpc_endpoints: VpcEndpointsFact | None = Field(default=None, description="The VPC's endpoints for the services of "
                                                   "network.existingEndpoints (none when the policy lists none).")


class FactsError(GateError):
    """EC2 could not be read, or does not know a subnet or security group: the gate cannot decide (exit 2)."""


@dataclass(frozen=True)
class References:
    """What a document's resources name that EC2 describes, from one pass over the resources: the
    literal subnet and security-group ids they are placed in or carry, and the instance types they
    launch."""

    subnets: frozenset[str]
    security_groups: frozenset[str]
    instance_types: frozenset[str]
    own_ids: frozenset[str]  # ids of the document's own resources (a preview of a deployed stack records them)


#: The inputs :func:`references` reads (a resource with none of them names nothing EC2 describes).
_REFERRING = frozenset({"subnetId", "vpcZoneIdentifiers", "networkInterfaces", "vpcSecurityGroupIds", "securityGroups",
                        "mixedInstancesPolicy", "instanceType", "instanceTypes", "launchSpecifications",
                        "launchTemplateConfigs", "subnetIds", "subnets"})

#: EKS managed node groups and the input that names the subnets they launch their nodes in
NODE_GROUP_SUBNETS = {"aws:eks/nodeGroup:NodeGroup": "subnetIds", "aws-native:eks:Nodegroup": "subnets"}


def references(document: dict[str, Any]) -> References:
    """One pass over ``document``'s resources (see :class:`References`)."""
    subnets: set[str] = set()
    groups: set[str] = set()
    types: set[str] = set()
    own: set[str] = set()
    for r in document.get("resources") or []:
        if isinstance(rid := r.get("id"), str):
            own.add(rid)
        inputs = r.get("inputs") or {}
        if not isinstance(inputs, dict) or not _REFERRING.intersection(inputs):
            continue
        if (field := NODE_GROUP_SUBNETS.get(r.get("type"))) is not None:  # an EKS managed node group's nodes
            subnets.update(v for v in _list(inputs.get(field)) if isinstance(v, str) and SUBNET_ID.match(v))
        # a spot fleet request's launch specifications are each an instance's settings, and a
        # spot fleet's or EC2 Fleet's launch template overrides name subnets and types
        overrides = [o for c in _list(inputs.get("launchTemplateConfigs")) if isinstance(c, dict)
                     for o in _list(c.get("overrides"))]
        for spec in (s for s in (*_list(inputs.get("launchSpecifications")), *overrides) if isinstance(s, dict)):
            _collect(spec, subnets, groups, types)
        _collect(inputs, subnets, groups, types)
    return References(frozenset(subnets), frozenset(groups), frozenset(types), frozenset(own))


def _collect(inputs: dict[str, Any], subnets: set[str], groups: set[str], types: set[str]) -> None:
    """Add the subnet ids, security-group ids and instance types that one resource's (or one launch
    specification's) ``inputs`` name."""
    interfaces = [n for n in _list(inputs.get("networkInterfaces")) if isinstance(n, dict)]
    for v in (*_subnet_ids(inputs.get("subnetId")), *_list(inputs.get("vpcZoneIdentifiers")),
              *(n.get("subnetId") for n in interfaces)):
        if isinstance(v, str) and SUBNET_ID.match(v):
            subnets.add(v)
    for v in (*_list(inputs.get("vpcSecurityGroupIds")), *_list(inputs.get("securityGroups")),
              *(g for n in interfaces for g in _list(n.get("securityGroups")))):
        if isinstance(v, str) and SECURITY_GROUP_ID.match(v):
            groups.add(v)
    mixed = inputs.get("mixedInstancesPolicy")
    overrides = ((mixed.get("launchTemplate") or {}).get("overrides")) if isinstance(mixed, dict) else None
    for v in (inputs.get("instanceType"), *_list(inputs.get("instanceTypes")),
              *(o.get("instanceType") for o in _list(overrides) if isinstance(o, dict))):
        if isinstance(v, str) and INSTANCE_TYPE.match(v):
            types.add(v)


def _subnet_ids(value: Any) -> list[Any]:
    """A ``subnetId``: one id, or (a spot fleet launch specification's, a fleet override's) several
    separated by commas."""
    return [part.strip() for part in value.split(",")] if isinstance(value, str) else [value]


def given_subnet_ids(policy: dict[str, Any], document: dict[str, Any], refs: References | None = None) -> list[str]:
    """The subnet ids a stack is given: the policy's ``cloud.subnetIds`` and the literal subnet ids
    its resources are placed in (autoscaling groups, launch templates, instances, EKS node groups), other than the
    ids of its own subnets (a preview of a deployed stack records them)."""
    refs = refs or references(document)
    ids = set((policy.get("cloud") or {}).get("subnetIds") or []) | refs.subnets
    return sorted(ids - refs.own_ids)


def given_security_group_ids(document: dict[str, Any], refs: References | None = None) -> list[str]:
    """The security groups a stack's launch templates, instances and spot requests name by id
    (``vpcSecurityGroupIds``, ``securityGroups``, a network interface's ``securityGroups``) that are
    not resources of its document, nor placeholders offline synthesis made up (see
    :func:`placeholder_security_groups`)."""
    refs = refs or references(document)
    return sorted(refs.security_groups - refs.own_ids - set(document.get("placeholders") or {}))


def placeholder_security_groups(document: dict[str, Any], refs: References | None = None) -> dict[str, str]:
    """The security groups the resources name whose ids offline synthesis made up (id -> what it
    stands for, e.g. an EKS cluster's security group): no lookup can read them; a preview document
    holds the real ids."""
    made_up = document.get("placeholders") or {}
    refs = refs or references(document)
    return {sg: made_up[sg] for sg in sorted(refs.security_groups & set(made_up))}


def instance_types(document: dict[str, Any], refs: References | None = None) -> list[str]:
    """The EC2 instance types the stack's resources launch: launch templates, instances and spot
    requests (``instanceType``), autoscaling groups' mixed-instances overrides, EKS node groups."""
    return sorted((refs or references(document)).instance_types)


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def read_subnet_facts(ec2: Any, subnet_ids: Iterable[str], *, region: str) -> dict[str, SubnetFact]:
    """Read the subnets from EC2 (``ec2`` is a boto3 EC2 client of ``region``).

    Raises FactsError naming the call and AWS's error when a call fails (no credentials, access
    denied, a subnet that does not exist in the region).
    """
    ids = sorted(set(subnet_ids))
    if not ids:
        return {}
    subnets = _call(ec2, region, "describe_subnets", "Subnets", paginate=False, SubnetIds=ids)
    missing = sorted(set(ids) - {s["SubnetId"] for s in subnets})
    if missing:
        raise FactsError(f"ec2 DescribeSubnets in {region}: subnet(s) not found: {', '.join(missing)}")
    # every route table of their VPCs, matched here: a subnet's own association, else the main table
    vpcs = sorted({s["VpcId"] for s in subnets})
    own: dict[str, dict[str, Any]] = {}
    main: dict[str, dict[str, Any]] = {}
    for table in _call(ec2, region, "describe_route_tables", "RouteTables", Filters=[{"Name": "vpc-id", "Values": vpcs}]):
        for assoc in table.get("Associations") or []:
            if (assoc.get("AssociationState") or {}).get("State", "associated") != "associated":
                continue
            if assoc.get("Main"):
                main[table["VpcId"]] = table
            elif assoc.get("SubnetId") in ids:
                own[assoc["SubnetId"]] = table
    facts: dict[str, SubnetFact] = {}
    for s in subnets:
        sid, vpc = s["SubnetId"], s["VpcId"]
        table = own.get(sid) or main.get(vpc)
        if table is None:
            raise FactsError(f"ec2 DescribeRouteTables in {region}: no route table routes {sid} (VPC {vpc} has no main route table)")
        facts[sid] = SubnetFact(
            vpc_id=vpc,
            map_public_ip_on_launch=bool(s.get("MapPublicIpOnLaunch")),
            route_table_id=table["RouteTableId"],
            main_route_table=sid not in own,
            routes=[_route(r) for r in table.get("Routes") or []],
            availability_zone=s.get("AvailabilityZone"),
        )
    log.info("read %d subnet(s) from EC2 in %s", len(facts), region)
    return facts


def read_security_group_facts(ec2: Any, group_ids: Iterable[str], *, region: str) -> dict[str, SecurityGroupFact]:
    """Read security groups' rules from EC2 (raises FactsError, e.g. for a group that does not exist)."""
    ids = sorted(set(group_ids))
    if not ids:
        return {}
    groups = _call(ec2, region, "describe_security_groups", "SecurityGroups", GroupIds=ids)
    missing = sorted(set(ids) - {g["GroupId"] for g in groups})
    if missing:
        raise FactsError(f"ec2 DescribeSecurityGroups in {region}: security group(s) not found: {', '.join(missing)}")
    return {g["GroupId"]: SecurityGroupFact(
        name=g.get("GroupName") or g["GroupId"],
        vpc_id=g.get("VpcId"),
        ingress=[_rule(p) for p in g.get("IpPermissions") or []],
        egress=[_rule(p) for p in g.get("IpPermissionsEgress") or []],
    ) for g in groups}


def _rule(permission: dict[str, Any]) -> RuleFact:
    # EC2 gives no ports for a rule of every protocol: it covers them all
    every = str(permission.get("IpProtocol")) == "-1"
    return RuleFact(
        protocol=str(permission.get("IpProtocol", "-1")),
        from_port=0 if every else int(permission.get("FromPort", 0)),
        to_port=65535 if every else int(permission.get("ToPort", 65535)),
        cidrs=[r["CidrIp"] for r in permission.get("IpRanges") or [] if r.get("CidrIp")]
        + [r["CidrIpv6"] for r in permission.get("Ipv6Ranges") or [] if r.get("CidrIpv6")],
        groups=[p["GroupId"] for p in permission.get("UserIdGroupPairs") or [] if p.get("GroupId")],
        prefix_lists=[p["PrefixListId"] for p in permission.get("PrefixListIds") or [] if p.get("PrefixListId")],
    )


def read_instance_type_facts(ec2: Any, types: Iterable[str], *, region: str) -> dict[str, InstanceTypeFact]:
    """Whether each instance type has an instance store and whether it is encrypted (raises
    FactsError, e.g. for a type the region does not offer)."""
    names = sorted(set(types))
    out: dict[str, InstanceTypeFact] = {}
    for start in range(0, len(names), 100):  # DescribeInstanceTypes takes at most 100 names per call
        for t in _call(ec2, region, "describe_instance_types", "InstanceTypes", InstanceTypes=names[start:start + 100]):
            storage = t.get("InstanceStorageInfo") or {}
            out[t["InstanceType"]] = InstanceTypeFact(instance_storage=bool(t.get("InstanceStorageSupported")),
                                                      encryption_support=storage.get("EncryptionSupport"))
    missing = sorted(set(names) - set(out))
    if missing:
        raise FactsError(f"ec2 DescribeInstanceTypes in {region}: instance type(s) not found: {', '.join(missing)}")
    return out


def existing_trail_arns(policy: dict[str, Any]) -> list[str]:
    """The trail the policy relies on instead of one of its own (``compliance.existingTrail.arn``)."""
    arn = (((policy.get("compliance") or {}).get("existingTrail")) or {}).get("arn")
    return [arn] if isinstance(arn, str) else []


def existing_endpoint_services(policy: dict[str, Any]) -> list[str]:
    """The services whose endpoint the policy says the VPC already has (``network.existingEndpoints``),
    which the rules count as present on the policy's word unless ``--lookup`` read them
    (:func:`read_endpoint_facts`)."""
    listed = ((policy.get("network") or {}).get("existingEndpoints")) or []
    return sorted({s for s in listed if isinstance(s, str)}) if isinstance(listed, list) else []


def existing_endpoint_vpc(policy: dict[str, Any]) -> str | None:
    """The VPC whose endpoints ``network.existingEndpoints`` names (the policy's ``cloud.vpcId``)."""
    vpc = (policy.get("cloud") or {}).get("vpcId")
    return vpc if isinstance(vpc, str) else None


# Some services' endpoint names carry a ``cn.`` prefix in the China regions (see
# ``components.network.service_name``): both names are asked for there, so either spelling is found.
def endpoint_service_names(service: str, region: str) -> list[str]:
    """The names ``DescribeVpcEndpoints`` may give ``service``'s endpoint in ``region``:
    com.amazonaws.REGION.SERVICE, and in China cn.com.amazonaws.REGION.SERVICE too."""
    names = [f"com.amazonaws.{region}.{service}"]
    return [f"cn.{names[0]}", *names] if region.startswith("cn-") else names


def read_endpoint_facts(ec2: Any, vpc_id: str, services: Iterable[str], *, region: str) -> VpcEndpointsFact:
    """Read the endpoints of ``vpc_id`` for ``services`` (``DescribeVpcEndpoints`` filtered by vpc-id and
    the services' names; ``ec2`` a boto3 EC2 client of ``region``). Every service asked for has an entry,
    an empty list when the VPC has no endpoint for it. Raises FactsError naming the call and AWS's error."""
    wanted = sorted(set(services))
    by_name = {name: s for s in wanted for name in endpoint_service_names(s, region)}
    out: dict[str, list[EndpointFact]] = {s: [] for s in wanted}
    if not wanted:
        return VpcEndpointsFact(vpc_id=vpc_id, services=out)
    found = _call(ec2, region, "describe_vpc_endpoints", "VpcEndpoints",
                  Filters=[{"Name": "vpc-id", "Values": [vpc_id]}, {"Name": "service-name", "Values": sorted(by_name)}])
    for ep in found:
        service = by_name.get(ep.get("ServiceName"))
        if service is None or ep.get("VpcId", vpc_id) != vpc_id:  # filters a server ignored: not counted
            continue
        try:
            fact = _endpoint_fact(ep)
        except (AttributeError, TypeError, ValueError, KeyError) as exc:  # an answer of another shape than EC2's
            raise FactsError(f"ec2 DescribeVpcEndpoints in {region}: unreadable answer for {ep.get('VpcEndpointId', '?')} "
                             f"({type(exc).__name__}: {exc})") from None
        out[service].append(fact)
    for facts in out.values():
        facts.sort(key=lambda f: f.id)
    log.info("read %d VPC endpoint(s) of %s from EC2 in %s", sum(map(len, out.values())), vpc_id, region)
    return VpcEndpointsFact(vpc_id=vpc_id, services=out)


def _endpoint_fact(ep: dict[str, Any]) -> EndpointFact:
    document = ep.get("PolicyDocument")
    policy = json.loads(document) if isinstance(document, str) and document.strip() else None
    if policy is not None and not isinstance(policy, dict):
        raise ValueError("its policy document is not a JSON object")
    return EndpointFact(
        id=ep["VpcEndpointId"],
        service_name=ep["ServiceName"],
        type=str(ep.get("VpcEndpointType") or "Gateway"),
        state=str(ep.get("State") or "?"),
        private_dns_enabled=bool(ep.get("PrivateDnsEnabled")),
        policy=policy,
        route_table_ids=[t for t in ep.get("RouteTableIds") or [] if isinstance(t, str)],
        tags={str(t["Key"]): str(t.get("Value", "")) for t in ep.get("Tags") or [] if isinstance(t, dict) and "Key" in t},
    )


def endpoint_unserved(policy: dict[str, Any], facts: dict[str, Any] | None, stack: str) -> dict[str, str]:
    """The services of ``network.existingEndpoints`` that EC2's facts (``AwsFacts`` as JSON) show the
    VPC has no endpoint serving, each with why: none at all; none available; an interface one without
    private DNS (clients resolve the public name, through NAT; an available S3 gateway serves anyway);
    a gateway one on no route table, or (when the facts hold the subnets of ``cloud.subnetIds``) not on
    the route table of each of them (:func:`gateway_misses`) unless gateways together are
    (:func:`gateways_cover`); or only this stack's own (tagged
    ``seedance:stack`` = ``stack``: the stack no longer declaring it, the deploy deletes it). Pure; {}
    when the facts are not of the policy's VPC or do not cover a service (the policy's word is taken:
    the reports say so). The same judgement as policies/lib/endpoints.rego ``serving``, which the rules
    judge; this one prices."""
    read = (facts or {}).get("vpc_endpoints") or {}
    vpc = existing_endpoint_vpc(policy)
    if not isinstance(read, dict) or vpc is None or read.get("vpc_id") != vpc:
        return {}
    services = read.get("services") or {}
    tables = subnet_route_tables(policy, facts)
    out: dict[str, str] = {}
    for service in existing_endpoint_services(policy):
        eps = services.get(service)
        if not isinstance(eps, list):
            continue
        if any(_serves(ep, tables, stack) for ep in eps) or gateways_cover(eps, tables, stack):
            continue
        why = ", ".join(sorted(_why_not(ep, tables, stack) for ep in eps))
        out[service] = f"{vpc} has no endpoint for it that serves" + (f" ({why})" if why else " (none at all)")
    return out


def subnet_route_tables(policy: dict[str, Any], facts: dict[str, Any] | None) -> dict[str, str]:
    """The route table (subnet id -> route table id) of each subnet of the policy's ``cloud.subnetIds``
    that the facts describe (its own association, else its VPC's main table: :func:`read_subnet_facts`).
    A gateway endpoint serves the stack only when it is on every one's table; {} (no subnets to
    match: a gateway on any route table counts) when the facts hold none of them. Pure; the same as
    policies/lib/endpoints.rego ``subnet_tables``."""
    ids = (policy.get("cloud") or {}).get("subnetIds")
    subnets = (facts or {}).get("subnets")
    if not isinstance(ids, list) or not isinstance(subnets, dict):
        return {}
    out: dict[str, str] = {}
    for sid in ids:
        fact = subnets.get(sid) if isinstance(sid, str) else None
        if isinstance(fact, dict) and isinstance(table := fact.get("route_table_id"), str):
            out[sid] = table
    return out


def gateway_misses(ep: dict[str, Any], tables: dict[str, str]) -> dict[str, str]:
    """The subnets of ``tables`` (:func:`subnet_route_tables`, subnet id -> route table id) whose route
    table the gateway endpoint ``ep`` is not on: their traffic to its service goes through NAT."""
    on = set(ep.get("route_table_ids") or [])
    return {sid: table for sid, table in sorted(tables.items()) if table not in on}


def gateways_cover(eps: list[Any], tables: dict[str, str], stack: str) -> bool:
    """Whether two or more available gateway endpoints of a service (not the stack's own, each on some
    route table) are together on the route table of every subnet of ``tables``: a route table holds one
    gateway endpoint per service, so a VPC may split its subnets' tables between two of them."""
    gateways = [ep for ep in eps if isinstance(ep, dict) and ep.get("type") == "Gateway" and _up(ep, stack)
                and ep.get("route_table_ids")]
    on = [t for ep in gateways for t in ep["route_table_ids"]]
    return len(gateways) > 1 and not gateway_misses({"route_table_ids": on}, tables)


def _own(ep: dict[str, Any], stack: str) -> bool:
    return (ep.get("tags") or {}).get(STACK_TAG) == stack


def _up(ep: dict[str, Any], stack: str) -> bool:
    """Available, and not this stack's own."""
    return not _own(ep, stack) and str(ep.get("state", "")).lower() == "available"


def _serves(ep: dict[str, Any], tables: dict[str, str], stack: str) -> bool:
    if not _up(ep, stack):
        return False
    if ep.get("type") == "Gateway":
        return bool(ep.get("route_table_ids")) and not gateway_misses(ep, tables)
    if ep.get("type") == "Interface":
        # without private DNS clients resolve the public name; S3's gateway, when one serves, takes it
        return ep.get("private_dns_enabled") is True
    return False


def _why_not(ep: dict[str, Any], tables: dict[str, str], stack: str) -> str:
    eid = ep.get("id", "?")
    if _own(ep, stack):
        return (f"{eid} is this stack's own, tagged {STACK_TAG}={stack}: listing it in existingEndpoints makes this "
                "deploy delete it")
    if str(ep.get("state", "")).lower() != "available":
        return f"{eid} is {ep.get('state')}"
    if ep.get("type") == "Gateway":
        if not ep.get("route_table_ids"):
            return f"{eid} is a gateway on no route table"
        misses = gateway_misses(ep, tables)
        s = "" if len(misses) == 1 else "s"
        return (f"{eid} is a gateway not on the route table{s} of the stack's subnet{s} "
                + ", ".join(f"{sid} ({table})" for sid, table in misses.items()))
    if ep.get("type") == "Interface":
        return f"{eid} has private DNS off"
    return f"{eid} is of type {ep.get('type')}"


def read_trail_facts(client_of: Any, arns: Iterable[str]) -> dict[str, TrailFact]:
    """Describe each trail in its home region (the region its ARN names; ``client_of(region)`` gives a
    boto3 CloudTrail client there). Raises FactsError naming the call and AWS's error, e.g. for a
    trail this account cannot see."""
    out: dict[str, TrailFact] = {}
    for arn in sorted(set(arns)):
        region = arn.split(":")[3]
        ct = client_of(region)
        trail = _one(ct, region, "get_trail", "Trail", Name=arn)
        status = _answer(ct, region, "cloudtrail", "get_trail_status", Name=arn)
        selectors = _answer(ct, region, "cloudtrail", "get_event_selectors", TrailName=arn)
        basic = [s for s in selectors.get("EventSelectors") or [] if isinstance(s, dict)]
        advanced = [s for s in selectors.get("AdvancedEventSelectors") or [] if isinstance(s, dict)]
        try:
            fact = _trail_fact(trail, status, basic, advanced, region, arn)
        except (AttributeError, TypeError, ValueError) as exc:  # an answer of another shape than CloudTrail's
            raise FactsError(f"cloudtrail in {region}: unreadable answer for {arn} ({type(exc).__name__}: {exc})") from None
        out[arn] = fact
    if out:
        log.info("read %d trail(s) from CloudTrail", len(out))
    return out


def _trail_fact(trail: dict[str, Any], status: dict[str, Any], basic: list[dict[str, Any]], advanced: list[dict[str, Any]],
                region: str, arn: str) -> TrailFact:
    return TrailFact(
        multi_region=bool(trail.get("IsMultiRegionTrail")),
        include_global_service_events=bool(trail.get("IncludeGlobalServiceEvents")),
        log_file_validation=bool(trail.get("LogFileValidationEnabled")),
        kms_key_id=trail.get("KmsKeyId") or None,
        logging=bool(status.get("IsLogging")),
        management_events=_records_management_events(basic, advanced),
        s3_data_events=_s3_data_event_arns(basic, advanced, arn.split(":")[1]),
        organization=bool(trail.get("IsOrganizationTrail")),
        home_region=trail.get("HomeRegion") or region,
        s3_bucket=trail.get("S3BucketName"),
    )


def _kinds(sel: dict[str, Any], advanced: bool) -> set[str]:
    """What a selector records of each event: {'read', 'write'} for both; a basic one by its ReadWriteType,
    an advanced one by its readOnly field (absent: both)."""
    if advanced:
        values = {str(v).lower() for fs in sel.get("FieldSelectors") or [] if isinstance(fs, dict) and fs.get("Field") == "readOnly"
                  for v in fs.get("Equals") or []}
        if not any(isinstance(fs, dict) and fs.get("Field") == "readOnly" for fs in sel.get("FieldSelectors") or []):
            return {"read", "write"}
        return {k for v, k in (("true", "read"), ("false", "write")) if v in values}
    return {"All": {"read", "write"}, "ReadOnly": {"read"}, "WriteOnly": {"write"}}.get(sel.get("ReadWriteType", "All"), set())


#: The advanced field selectors that do not narrow the events, with the one operator each may use
#: (as policies/lib/audit.rego selector_narrowing): eventCategory, readOnly (reads or writes, judged
#: apart) and, in a Data selector, resources.type by Equals and resources.ARN by StartsWith (values
#: judged one by one: only whole buckets count).
_UNDERSTOOD = {"Management": {"eventCategory": "Equals", "readOnly": "Equals"},
               "Data": {"eventCategory": "Equals", "readOnly": "Equals", "resources.type": "Equals", "resources.ARN": "StartsWith"}}


def _advanced_narrows(sel: dict[str, Any], category: str) -> bool:
    """Whether an advanced selector narrows the events in a way the gate cannot follow: any other
    field (eventName, eventSource, userIdentity.arn, errorCode...), any other operator (NotEquals,
    NotStartsWith, EndsWith...) or a field given twice. Such a selector is not counted (fail closed)."""
    understood = _UNDERSTOOD[category]
    seen: set[str] = set()
    for fs in sel.get("FieldSelectors") or []:
        if not isinstance(fs, dict):
            return True
        field = fs.get("Field")
        if field not in understood or field in seen:
            return True
        seen.add(field)
        operators = {k for k, v in fs.items() if k != "Field" and v not in (None, [])}
        if operators - {understood[field]}:
            return True
    return False


def _selects(sel: dict[str, Any], field: str, value: str) -> bool:
    return any(isinstance(fs, dict) and fs.get("Field") == field and value in (fs.get("Equals") or [])
               for fs in sel.get("FieldSelectors") or [])


def _records_management_events(basic: list[dict[str, Any]], advanced: list[dict[str, Any]]) -> bool:
    """As CloudTrail applies selectors: none at all records management events; advanced selectors
    (which replace the basic ones) must select the Management category without narrowing it (a filter
    on eventSource, say, leaves events out: such a selector is not counted); a basic one must not
    leave them out, nor exclude the events of any source (ExcludeManagementEventSources, as
    policies/lib/audit.rego reads it: kms.amazonaws.com drops every Decrypt). Reads and writes must
    both be recorded, by one selector or between them (a read-only trail misses every change)."""
    if advanced:
        kinds = {k for sel in advanced
                 if _selects(sel, "eventCategory", "Management") and not _advanced_narrows(sel, "Management")
                 for k in _kinds(sel, True)}
    elif not basic:
        return True
    else:
        kinds = {k for sel in basic
                 if sel.get("IncludeManagementEvents", True) is not False and not sel.get("ExcludeManagementEventSources")
                 for k in _kinds(sel, False)}
    return kinds >= {"read", "write"}


#: A data-resource value that covers whole buckets: every bucket (arn:P:s3, arn:P:s3:::) or one bucket,
#: with or without the trailing '/' of an empty object prefix. A value with an object prefix after the
#: '/' covers only part of the bucket. The same rule as policies/lib/audit.rego whole_bucket_value.
_WHOLE_BUCKETS = re.compile(r"^arn:aws(-cn|-us-gov)?:s3(:::([a-zA-Z0-9._-]+/?)?)?$")


def _s3_data_event_arns(basic: list[dict[str, Any]], advanced: list[dict[str, Any]], partition: str) -> list[str]:
    """The S3 buckets whose data events, reads and writes (by one selector or between them), the
    selectors record, as ARNs ('arn:PARTITION:s3' for every bucket). Only whole buckets count: a value
    with an object prefix covers part of one, an advanced ``Equals`` on resources.ARN one object. An
    advanced selector that narrows by anything but StartsWith on resources.ARN (and readOnly) is not
    counted: which events it leaves out (NotStartsWith, an eventName filter, say) cannot be read off it."""
    seen: dict[str, set[str]] = {}
    if not advanced:
        for sel in basic:
            for dr in sel.get("DataResources") or []:
                if dr.get("Type") == "AWS::S3::Object":
                    for v in dr.get("Values") or []:
                        if isinstance(v, str) and _WHOLE_BUCKETS.match(v):
                            seen.setdefault(v, set()).update(_kinds(sel, False))
    for sel in advanced:
        if not (_selects(sel, "eventCategory", "Data") and _selects(sel, "resources.type", "AWS::S3::Object")):
            continue
        if _advanced_narrows(sel, "Data"):
            continue
        arn_selector = next((fs for fs in sel.get("FieldSelectors") or [] if fs.get("Field") == "resources.ARN"), None)
        if arn_selector is None:
            values = [f"arn:{partition}:s3"]
        else:
            values = [v for v in arn_selector.get("StartsWith") or [] if isinstance(v, str) and _WHOLE_BUCKETS.match(v)]
        for v in values:
            seen.setdefault(v, set()).update(_kinds(sel, True))
    return sorted(v for v, kinds in seen.items() if kinds >= {"read", "write"})


def _one(client: Any, region: str, method: str, key: str, **kwargs: Any) -> dict[str, Any]:
    value = _answer(client, region, "cloudtrail", method, **kwargs).get(key)
    if not isinstance(value, dict):
        operation = "".join(part.capitalize() for part in method.split("_"))
        raise FactsError(f"cloudtrail {operation} in {region}: no {key} in the answer")
    return value


def _answer(client: Any, region: str, service: str, method: str, **kwargs: Any) -> dict[str, Any]:
    with _aws_errors(service, method, region):
        answer = getattr(client, method)(**kwargs)
    return answer if isinstance(answer, dict) else {}


@contextlib.contextmanager
def _aws_errors(service: str, method: str, region: str) -> Iterator[None]:
    """Turn botocore's errors of one call into a FactsError naming the service, the call and AWS's answer."""
    from botocore.exceptions import BotoCoreError, ClientError

    operation = "".join(part.capitalize() for part in method.split("_"))
    try:
        yield
    except ClientError as exc:
        error = exc.response.get("Error") or {}
        raise FactsError(f"{service} {operation} in {region}: {error.get('Code', '?')}: {error.get('Message', exc)}") from None
    except BotoCoreError as exc:
        raise FactsError(f"{service} {operation} in {region}: {exc}") from None


def _client(service: str, region: str) -> Any:
    """A boto3 client, or a FactsError when botocore cannot build one (e.g. a malformed endpoint setting)."""
    from seedance.awsclient import client

    try:
        return client(service, region)
    except Exception as exc:
        raise FactsError(f"{service} in {region}: {type(exc).__name__}: {exc}") from None


def plan_instance_types(plan: dict[str, Any] | None) -> list[str]:
    """The instance types a plan's fleets run (``seedance.planner`` JSON)."""
    return sorted({t["instance_type"] for f in (plan or {}).get("fleets") or [] for t in f.get("instance_types") or []
                   if isinstance(t, dict) and isinstance(t.get("instance_type"), str)})


def lookup(policy: dict[str, Any], document: dict[str, Any] | None = None, plan: dict[str, Any] | None = None) -> AwsFacts:
    """Read from EC2, in the policy's region, the subnets and security groups the stack is given and
    the instance types its document (and plan) launch and the VPC's endpoints for the services of
    ``network.existingEndpoints``, and from CloudTrail the existing trail the policy relies on
    (raises FactsError)."""
    region = str(policy["cloud"]["region"])
    document = document or {}
    refs = references(document)
    ec2 = _client("ec2", region)
    return AwsFacts(
        region=region,
        read_at=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        subnets=read_subnet_facts(ec2, given_subnet_ids(policy, document, refs), region=region),
        security_groups=read_security_group_facts(ec2, given_security_group_ids(document, refs), region=region),
        instance_types=read_instance_type_facts(ec2, [*instance_types(document, refs), *plan_instance_types(plan)], region=region),
        trails=read_trail_facts(functools.partial(_client, "cloudtrail"), existing_trail_arns(policy)),
        vpc_endpoints=read_endpoint_facts(ec2, vpc, services, region=region)
        if (services := existing_endpoint_services(policy)) and (vpc := existing_endpoint_vpc(policy)) else None,
    )


def _route(route: dict[str, Any]) -> RouteFact:
    destination = next((route[k] for k in _DESTINATIONS if route.get(k)), "?")
    target = next((route[k] for k in _TARGETS if route.get(k)), "?")
    return RouteFact(destination=destination, target=target, state=route.get("State") or "active")


def _call(ec2: Any, region: str, method: str, key: str, *, paginate: bool = True, **kwargs: Any) -> list[dict[str, Any]]:
    with _aws_errors("ec2", method, region):
        if not paginate:
            return list(getattr(ec2, method)(**kwargs).get(key) or [])
        return [item for page in ec2.get_paginator(method).paginate(**kwargs) for item in page.get(key) or []]
