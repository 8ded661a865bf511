"""Run a Pulumi program in-process under the mock runtime and record what it registers.

Nothing leaves the process: the monitor is Pulumi's :class:`~pulumi.runtime.mocks.MockMonitor`
(extended to keep each registration's parent, provider and custom flag), the mocks answer with
deterministic ids and ARNs. Each run resets the runtime's root stack, config and pending outputs,
so runs can follow each other in one process; a lock keeps them from overlapping.
"""

from __future__ import annotations

import asyncio
import atexit
import base64
import hashlib
import json
import logging
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import pulumi
from pulumi.runtime import mocks as pmocks
from pulumi.runtime import rpc, settings
from pulumi.runtime import config as pconfig
from pulumi.runtime.stack import run_pulumi_func
from pulumi.runtime.sync_await import _sync_await

from seedance.synth.document import Resource, ResourceDocument, normalise, normalise_inputs, split_provider_ref
from seedance.awsnames import AUTO_NAME_SUFFIX, IAM_ROLE_NAME_MAX, S3_BUCKET_NAME_MAX, offline_zone

log = logging.getLogger(__name__)
_RUN_LOCK = threading.Lock()

DEFAULT_ACCOUNT = "123456789012"
STACK_TYPE = "pulumi:pulumi:Stack"


class SynthError(Exception):
    """The program could not be synthesised; the message says why."""


@dataclass
class Registration:
    urn: str
    type: str
    name: str
    parent: str
    provider: str
    custom: bool
    inputs: dict[str, Any]
    ignore_changes: list[str] = field(default_factory=list)
    id: str | None = None  # the mock runtime's id
    property_dependencies: dict[str, list[str]] = field(default_factory=dict)


class RecordingMonitor(pmocks.MockMonitor):
    """The mock monitor, keeping every registration in order."""

    def __init__(self, mocks: pmocks.Mocks) -> None:
        super().__init__(mocks)
        self.registrations: list[Registration] = []
        self.stack_urn: str | None = None

    def make_urn(self, parent: str, type_: str, name: str) -> str:
        # The engine leaves the root stack out of a child's qualified type
        # (``urn:pulumi:dev::proj::aws:s3/bucket:Bucket::b``); Pulumi's mock monitor does not.
        if parent and parent.split("::")[2].split("$")[-1] == STACK_TYPE:
            parent = ""
        return super().make_urn(parent, type_, name)

    def RegisterResource(self, request: Any) -> Any:  # noqa: N802 - gRPC method name
        response = super().RegisterResource(request)
        if request.type == STACK_TYPE:
            self.stack_urn = response.urn
            return response
        inputs = rpc.deserialize_properties(request.object, keep_unknowns=True)
        self.registrations.append(
            Registration(response.urn, request.type, request.name, request.parent, request.provider, bool(request.custom), inputs,
                         sorted(request.ignoreChanges), response.id or None,
                         {k: sorted(set(v.urns)) for k, v in request.propertyDependencies.items() if v.urns})
        )
        return response


def _short_hash(*parts: str, n: int = 8) -> str:
    return hashlib.sha256("/".join(parts).encode()).hexdigest()[:n]


#: the Kubernetes version of a joined EKS cluster offline when the stack pins none (seedance:eksVersion)
OFFLINE_CLUSTER_VERSION = "1.31"


class SeedanceMocks(pmocks.Mocks):
    """Deterministic ids and ARNs; region and account come from the resource's provider.

    ``subnet_zones`` (subnet id -> availability zone) answers the subnet lookups
    (``aws.ec2.getSubnet``, ``aws.ec2.getSubnets``) for the subnets it names; offline there is no
    EC2 to ask about any other, so each of those counts as in a zone of its own that is one of the
    zones asked for, as the gate counts given subnets without ``--lookup``.
    """

    def __init__(self, default_region: str | None = None, default_account: str = DEFAULT_ACCOUNT,
                 subnet_zones: Mapping[str, str] | None = None, cluster_version: str | None = None) -> None:
        self.default_region = default_region
        # what the EKS cluster lookup answers offline: the stack's seedance:eksVersion when it sets one
        # (the nodes' version, which the program holds against the cluster's), else the default
        self.cluster_version = cluster_version or OFFLINE_CLUSTER_VERSION
        self.default_account = default_account
        self.subnet_zones = dict(subnet_zones or {})
        self._providers: dict[str, tuple[str | None, str]] = {}  # provider id -> (region, account)
        self.placeholders: dict[str, str] = {}  # value made up for a lookup -> what it stands for
        self.worker_loops: set[asyncio.AbstractEventLoop] = set()

    def _note_loop(self) -> None:
        """Remember the event loop Pulumi's mock monitor made for this worker thread (it is reused by
        later runs in the thread); they are closed at exit, see :func:`_close_worker_loops`."""
        if threading.current_thread() is threading.main_thread():
            return
        try:
            self.worker_loops.add(asyncio.get_event_loop())
        except RuntimeError:
            pass

    def _where(self, provider_ref: str | None, inputs: Mapping[str, Any]) -> tuple[str, str, str]:
        region, account = self.default_region, self.default_account
        if provider_ref:
            region, account = self._providers.get(provider_ref.rpartition("::")[2], (region, account))
        region = inputs.get("region") or region or "us-east-1"
        part = "aws-cn" if region.startswith("cn-") else "aws"
        return region, account, part

    def new_resource(self, args: pmocks.MockResourceArgs) -> tuple[str | None, dict]:
        self._note_loop()
        state = dict(args.inputs)
        if args.typ.startswith("pulumi:providers:"):
            pid = f"{args.name}-provider-{_short_hash(args.typ, args.name)}"
            allowed = args.inputs.get("allowedAccountIds")
            if isinstance(allowed, str):  # provider config travels JSON-encoded
                try:
                    allowed = json.loads(allowed)
                except ValueError:
                    allowed = [allowed]
            account = allowed[0] if isinstance(allowed, list) and allowed else self.default_account
            self._providers[pid] = (args.inputs.get("region") or self.default_region, account)
            return pid, state
        if not args.typ.startswith("aws:"):
            return f"{args.name}-{_short_hash(args.typ, args.name)}", state
        region, account, part = self._where(args.provider, args.inputs)
        rid, extra = _aws_outputs(args.typ, args.name, dict(args.inputs), region, account, part)
        state.update(extra)
        return rid, state

    def call(self, args: pmocks.MockCallArgs) -> dict[str, Any]:
        self._note_loop()
        region, account, part = self._where(args.provider, args.args)
        if args.token == "aws:index/getCallerIdentity:getCallerIdentity":
            return {"accountId": account, "arn": f"arn:{part}:iam::{account}:user/seedance-synth", "userId": "SYNTH", "id": account}
        if args.token == "aws:index/getPartition:getPartition":
            return {"partition": part, "dnsSuffix": "amazonaws.com.cn" if part == "aws-cn" else "amazonaws.com", "id": part}
        if args.token == "aws:index/getRegion:getRegion":
            return {"name": region, "region": region, "id": region}
        if args.token == "aws:ec2/getRouteTables:getRouteTables":
            # offline there is no VPC to ask: one placeholder route table per VPC, stable across runs
            vpc = str(args.args.get("vpcId") or "")
            rtb = f"rtb-{_short_hash('route-table', vpc, n=17)}"
            self.placeholders[rtb] = f"the route tables of VPC {vpc}"
            return {"ids": [rtb], "vpcId": vpc, "id": region}
        if args.token == "aws:ec2/getSubnet:getSubnet":
            return _subnet(str(args.args.get("id") or ""), self.subnet_zones, region)
        if args.token == "aws:ec2/getSubnets:getSubnets":
            return {"ids": _subnets_in(args.args.get("filters"), self.subnet_zones), "id": region}
        if args.token == "aws:eks/getCluster:getCluster":
            cluster = _cluster(str(args.args.get("name") or ""), region, account, part, self.cluster_version)
            self.placeholders[cluster["vpcConfig"]["clusterSecurityGroupId"]] = f"the cluster security group of EKS cluster {cluster['name']}"
            return cluster
        log.warning("synth: no mock answer for invoke %s; returning an empty result", args.token)
        return {}


def _subnet(subnet_id: str, zones: Mapping[str, str], region: str) -> dict[str, Any]:
    """Offline answer to ``aws.ec2.getSubnet(id=...)``: its zone in ``zones``, else a made-up zone of
    its own (named after the subnet, so no two subnets share it)."""
    zone = zones.get(subnet_id) or offline_zone(region, subnet_id)
    return {"id": subnet_id, "availabilityZone": zone, "state": "available"}


def _subnets_in(filters: Any, zones: Mapping[str, str]) -> list[str]:
    """Offline answer to ``aws.ec2.getSubnets``: the ids its ``subnet-id`` filter names, in that
    order, less those ``zones`` places outside its ``availability-zone`` filter (a subnet ``zones``
    does not name is in one of the zones asked for). Without a ``subnet-id`` filter nothing is known."""
    by_name: dict[str, list[str]] = {}
    for f in filters if isinstance(filters, list) else []:
        if isinstance(f, dict):
            name = {"availabilityZone": "availability-zone"}.get(str(f.get("name")), str(f.get("name")))
            by_name[name] = [str(v) for v in f.get("values") or []]
    asked = by_name.get("availability-zone")
    return [s for s in dict.fromkeys(by_name.get("subnet-id", []))
            if asked is None or s not in zones or zones[s] in asked]


def _cluster(name: str, region: str, account: str, part: str, version: str = OFFLINE_CLUSTER_VERSION) -> dict[str, Any]:
    """Offline answer to ``aws.eks.getCluster``: placeholders with the real shapes (an endpoint, a
    base64 CA, a service CIDR, the cluster security group), stable across runs; ``version`` is the
    control plane's Kubernetes version."""
    h = _short_hash("eks", region, name, n=32).upper()
    suffix = "amazonaws.com.cn" if part == "aws-cn" else "amazonaws.com"
    sg = f"sg-{_short_hash('eks-sg', region, name, n=17)}"
    return {
        "id": name, "name": name, "arn": f"arn:{part}:eks:{region}:{account}:cluster/{name}",
        "endpoint": f"https://{h}.gr7.{region}.eks.{suffix}",
        "certificateAuthorities": [{"data": base64.b64encode(f"offline CA of {name}".encode()).decode()}],
        "kubernetesNetworkConfigs": [{"elasticLoadBalancings": [], "ipFamily": "ipv4",
                                      "serviceIpv4Cidr": "172.20.0.0/16", "serviceIpv6Cidr": ""}],
        "vpcConfig": {"clusterSecurityGroupId": sg, "controlPlaneEgressMode": "", "endpointPrivateAccess": True,
                      "endpointPublicAccess": False, "publicAccessCidrs": [], "securityGroupIds": [],
                      "subnetIds": [], "vpcId": ""},
        "status": "ACTIVE", "version": version,
    }


#: the longest physical names the AWS provider's auto-naming may produce (``name-`` + 7 random hex
#: digits; a longer one fails the preview), by resource type and the input holding the name
AUTO_NAME_MAX = {"aws:s3/bucket:Bucket": ("bucket", S3_BUCKET_NAME_MAX), "aws:iam/role:Role": ("name", IAM_ROLE_NAME_MAX)}


def _auto_name(typ: str, name: str, inputs: dict[str, Any], h: str) -> str:
    """The physical name the provider gives a resource that names none, as Pulumi auto-names it;
    one longer than the type allows is an error, as in a real preview."""
    field, longest = AUTO_NAME_MAX[typ]
    if inputs.get(field):
        return str(inputs[field])
    if inputs.get(f"{field}Prefix"):  # the provider adds 26 characters to a prefix
        return f"{inputs[f'{field}Prefix']}{_short_hash(typ, name, 'prefix', n=26)}"
    auto = f"{name}-{h[:AUTO_NAME_SUFFIX - 1]}"
    if len(auto) > longest:
        raise SynthError(f"{typ} {name!r}: Pulumi would name it {name}-xxxxxxx, {len(auto)} characters; "
                         f"AWS allows at most {longest}")
    return auto


def _aws_outputs(typ: str, name: str, inputs: dict[str, Any], region: str, account: str, part: str) -> tuple[str, dict[str, Any]]:
    h = _short_hash(typ, name)
    module = typ.split(":")[1].split("/")[0]
    if typ == "aws:s3/bucket:Bucket":
        bucket = _auto_name(typ, name, inputs, h)
        return bucket, {"bucket": bucket, "arn": f"arn:{part}:s3:::{bucket}", "region": region}
    if typ == "aws:kms/key:Key":
        key_id = f"{h}-0000-4000-8000-{h}{h[:4]}"
        return key_id, {"keyId": key_id, "arn": f"arn:{part}:kms:{region}:{account}:key/{key_id}"}
    if typ == "aws:cloudwatch/logGroup:LogGroup":
        lg = inputs.get("name") or f"{name}-{h[:7]}"
        return lg, {"name": lg, "arn": f"arn:{part}:logs:{region}:{account}:log-group:{lg}"}
    if typ == "aws:sns/topic:Topic":
        topic = inputs.get("name") or f"{name}-{h[:7]}"
        return f"arn:{part}:sns:{region}:{account}:{topic}", {"name": topic, "arn": f"arn:{part}:sns:{region}:{account}:{topic}"}
    if typ == "aws:iam/serviceLinkedRole:ServiceLinkedRole":  # AWS names it after the service and suffix
        service = str(inputs.get("awsServiceName") or "")
        base = {"autoscaling.amazonaws.com": "AWSServiceRoleForAutoScaling"}.get(service, f"AWSServiceRoleFor{name}")
        role = f"{base}_{inputs['customSuffix']}" if inputs.get("customSuffix") else base
        return role, {"name": role, "path": f"/aws-service-role/{service}/",
                      "arn": f"arn:{part}:iam::{account}:role/aws-service-role/{service}/{role}"}
    if typ == "aws:iam/role:Role":
        role = _auto_name(typ, name, inputs, h)
        return role, {"name": role, "arn": f"arn:{part}:iam::{account}:role/{role}"}
    if typ == "aws:iam/instanceProfile:InstanceProfile":
        profile = inputs.get("name") or f"{name}-{h[:7]}"
        return profile, {"name": profile, "arn": f"arn:{part}:iam::{account}:instance-profile/{profile}"}
    if typ == "aws:ec2/launchTemplate:LaunchTemplate":
        return f"lt-{h}{h[:9]}", {"latestVersion": 1, "arn": f"arn:{part}:ec2:{region}:{account}:launch-template/lt-{h}{h[:9]}"}
    if typ == "aws:ec2/securityGroup:SecurityGroup":
        return f"sg-{h}{h[:9]}", {"arn": f"arn:{part}:ec2:{region}:{account}:security-group/sg-{h}{h[:9]}"}
    if typ == "aws:ec2/vpc:Vpc":
        # the route table, security group and network ACL AWS creates with a VPC (the first route
        # table is its main one until a MainRouteTableAssociation changes that)
        rtb = f"rtb-{_short_hash('route-table', typ, name, n=17)}"
        return f"{name}-{h}", {"arn": f"arn:{part}:ec2:{region}:{account}:vpc/{name}-{h}", "ownerId": account,
                               "defaultRouteTableId": rtb, "mainRouteTableId": rtb,
                               "defaultSecurityGroupId": f"sg-{_short_hash('security-group', typ, name, n=17)}",
                               "defaultNetworkAclId": f"acl-{_short_hash('network-acl', typ, name, n=17)}"}
    if typ == "aws:autoscaling/group:Group":
        asg = inputs.get("name") or f"{name}-{h[:7]}"
        return asg, {"name": asg, "arn": f"arn:{part}:autoscaling:{region}:{account}:autoScalingGroup:{h}:autoScalingGroupName/{asg}"}
    if typ == "aws:cloudtrail/trail:Trail":
        trail = inputs.get("name") or f"{name}-{h[:7]}"
        return f"arn:{part}:cloudtrail:{region}:{account}:trail/{trail}", {"arn": f"arn:{part}:cloudtrail:{region}:{account}:trail/{trail}"}
    if typ == "aws:budgets/budget:Budget":
        budget = inputs.get("name") or f"{name}-{h[:7]}"
        return f"{account}:{budget}", {"name": budget, "arn": f"arn:{part}:budgets::{account}:budget/{budget}"}
    rid = f"{name}-{h}"
    return rid, {"arn": f"arn:{part}:{module}:{region}:{account}:{name}/{rid}"}


#: Event loops Pulumi's mock monitor created in its worker threads, over every run of this process.
_WORKER_LOOPS: set[asyncio.AbstractEventLoop] = set()


@atexit.register
def _close_worker_loops() -> None:
    """Close the worker threads' event loops while the interpreter is still whole: left to the
    garbage collector at shutdown, an open loop can print 'Exception ignored ... Invalid file
    descriptor' after its sockets are gone."""
    for loop in list(_WORKER_LOOPS):
        if not loop.is_running() and not loop.is_closed():
            loop.close()
    _WORKER_LOOPS.clear()


@dataclass
class SynthResult:
    document: ResourceDocument
    outputs: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0


def run_program(
    program: Callable[[], Any],
    *,
    project: str,
    stack: str,
    config: Mapping[str, str] | None = None,
    default_region: str | None = None,
    subnet_zones: Mapping[str, str] | None = None,
) -> SynthResult:
    """Run ``program`` (which registers resources) under the mock runtime; return its document.
    ``subnet_zones``: the zones the subnet lookups answer with (see :class:`SeedanceMocks`)."""
    cfg = dict(config or {})
    region = default_region or cfg.get("aws:region")
    with _RUN_LOCK:
        start = time.perf_counter()
        # offline there is no control plane to ask its version: the cluster runs the version the stack
        # pins its nodes to (seedance:eksVersion), so a pin is never refused against a made-up version
        mocks = SeedanceMocks(default_region=region, subnet_zones=subnet_zones,
                              cluster_version=cfg.get("seedance:eksVersion"))
        monitor = RecordingMonitor(mocks)
        _reset_runtime(cfg)
        pmocks.set_mocks(
            mocks, project=project, stack=stack, preview=False, logger=logging.getLogger("seedance.synth.pulumi"), monitor=monitor
        )
        outputs: dict[str, Any] = {}

        async def body() -> None:
            program()
            root = settings.get_root_resource()
            exported = getattr(root, "outputs", {}) or {}
            outputs.update(await pulumi.Output.from_input(exported).future() or {})

        try:
            _sync_await(run_pulumi_func(body))
        finally:
            settings.ROOT.set(None)
            _WORKER_LOOPS.update(mocks.worker_loops)
        document = _document(monitor, project=project, stack=stack, default_region=region)
        document.placeholders = dict(sorted(mocks.placeholders.items()))
        return SynthResult(document, normalise(outputs), time.perf_counter() - start)


def _reset_runtime(config: Mapping[str, str]) -> None:
    settings.ROOT.set(None)
    settings.SETTINGS.outputs.clear()
    pconfig.set_all_config({k: str(v) for k, v in config.items()}, secret_keys=[])


def _document(monitor: RecordingMonitor, *, project: str, stack: str, default_region: str | None) -> ResourceDocument:
    regs = monitor.registrations
    provider_region: dict[str, str | None] = {}
    for r in regs:
        if r.type == "pulumi:providers:aws":
            provider_region[r.urn] = r.inputs.get("region")
    resources = []
    for r in regs:
        provider = split_provider_ref(r.provider) if r.provider else None
        region: str | None = None
        if r.type.startswith("aws:") or r.type == "pulumi:providers:aws":
            region = r.inputs.get("region") or (provider_region.get(provider) if provider else None) or default_region
        resources.append(
            Resource(
                urn=r.urn,
                type=r.type,
                name=r.name,
                parent=None if not r.parent or r.parent == monitor.stack_urn else r.parent,
                custom=r.custom,
                region=region,
                provider=provider,
                id=r.id if r.custom else None,
                inputs=normalise_inputs(r.inputs),
                property_dependencies=r.property_dependencies,
                ignore_changes=r.ignore_changes,
            )
        )
    # registrations arrive in the order the async RPCs complete: sort for a stable document
    resources.sort(key=lambda r: r.urn)
    return ResourceDocument(stack=stack, project=project, source="synth", resources=resources)
