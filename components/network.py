"""CostAwareNetwork: VPC endpoints where they pay for themselves.

S3 and DynamoDB get gateway endpoints (free). A service whose endpoint the VPC already has
(``network.existingEndpoints``: another stack's, the landing zone's; route ``existing``) gets none,
gateway or interface, nor a security group or policy for one: AWS refuses a second private-DNS
interface endpoint for a service in one VPC, and a route table holds one gateway endpoint per
service. A gateway endpoint only carries traffic from
the route tables it is attached to: ``route_table_ids`` when given, else every route table of the
VPC, looked up at deploy time (``aws.ec2.getRouteTables``), so S3 traffic leaves the NAT gateways
by default. A route table can hold one gateway endpoint per service: if the VPC already has an S3 or
DynamoDB gateway endpoint, list the route tables to use explicitly. An interface endpoint is created only for
the services :func:`seedance.planner.endpoints.decide_endpoints` routed to ``interface`` (traffic
above break-even, or listed explicitly): private DNS on, a security group admitting only the VPC
CIDR on 443, and an endpoint policy that admits only principals of the stack's account.

AWS places an interface endpoint in at most one subnet per availability zone (``CreateVpcEndpoint``
refuses two: ``DuplicateSubnetsInSameZone``), and only EC2 knows a given subnet's zone: the component
asks it at deploy time (``aws.ec2.getSubnets`` for the given subnets in the policy's zones,
``aws.ec2.getSubnet`` for each one's zone) and :func:`endpoint_subnets` keeps the first given subnet
of each listed zone. Offline synthesis answers both lookups (see :mod:`seedance.synth.runtime`).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field

import pulumi
import pulumi_aws as aws

from components.common import ComponentArgsError, child, partition, policy_json, require
from seedance.planner.endpoints import EndpointDecision, Route
from seedance.policy.model import EndpointService

#: Services whose interface endpoint name carries the ``cn.`` prefix in the China regions
#: (``cn.com.amazonaws.cn-north-1.sts``, ``cn.com.amazonaws.cn-north-1.ec2``; logs, kms, ssm,
#: elasticloadbalancing and the S3 / DynamoDB gateways keep ``com.amazonaws``), as
#: ``DescribeVpcEndpointServices`` lists them in cn-north-1 and cn-northwest-1.
_CN_PREFIXED = frozenset({EndpointService.ECR_API, EndpointService.ECR_DKR, EndpointService.STS,
                          EndpointService.MONITORING, EndpointService.EKS, EndpointService.EC2,
                          EndpointService.AUTOSCALING})


def service_name(service: EndpointService, region: str) -> str:
    prefix = "cn.com.amazonaws" if region.startswith("cn-") and service in _CN_PREFIXED else "com.amazonaws"
    return f"{prefix}.{region}.{service.value}"


def endpoint_policy(account_id: str, service: EndpointService | None = None, region: str = "") -> dict:
    """Only principals of ``account_id`` may use the endpoint, with two exceptions the nodes need:

    * S3: image layers that ECR serves are fetched from an AWS-owned bucket
      (``prod-REGION-starport-layer-bucket``) with a presigned URL of an ECR account, so the account
      condition would block every image pull; reading (only) from that bucket is allowed.
    * STS: ``AssumeRoleWithWebIdentity`` (IAM roles for service accounts) is signed by a token, not
      by a principal of the account; the role's trust policy decides, so the call is allowed.
    """
    statements: list[dict] = [
        {
            "Sid": "AccountPrincipalsOnly",
            "Effect": "Allow",
            "Principal": "*",
            "Action": "*",
            "Resource": "*",
            "Condition": {"StringEquals": {"aws:PrincipalAccount": account_id}},
        }
    ]
    if service is EndpointService.S3:
        part = partition(region)
        statements.append({
            "Sid": "EcrImageLayers",
            "Effect": "Allow",
            "Principal": "*",
            "Action": "s3:GetObject",
            "Resource": f"arn:{part}:s3:::prod-{region}-starport-layer-bucket/*",
        })
    if service is EndpointService.STS:
        statements.append({
            "Sid": "ServiceAccountRoles",
            "Effect": "Allow",
            "Principal": "*",
            "Action": "sts:AssumeRoleWithWebIdentity",
            "Resource": "*",
        })
    return {"Version": "2012-10-17", "Statement": statements}


def endpoint_subnets(subnet_ids: Sequence[str], in_listed_zones: Collection[str], zone_of: Mapping[str, str]) -> list[str]:
    """The subnets of an interface endpoint: of the given ``subnet_ids`` that are in a listed zone
    (``in_listed_zones``), the first of each zone (``zone_of``: subnet -> zone), in the given order.

    Raises :class:`ComponentArgsError` when no given subnet is in a listed zone (the endpoint would
    have nowhere to go).
    """
    chosen: dict[str, str] = {}  # zone -> its first subnet
    for subnet in subnet_ids:
        if subnet in in_listed_zones:
            chosen.setdefault(zone_of[subnet], subnet)
    if not chosen:
        raise ComponentArgsError("CostAwareNetworkArgs.subnet_ids", f"none of the subnets {', '.join(subnet_ids)} (cloud.subnetIds) "
                                 "is in an availability zone of cloud.availabilityZones: an interface endpoint needs one")
    return list(chosen.values())


@dataclass
class CostAwareNetworkArgs:
    region: str
    vpc_id: str
    vpc_cidr: str
    subnet_ids: list[str]
    # the zones the stack runs in (the policy's cloud.availabilityZones): interface endpoints take
    # one given subnet in each of them
    availability_zones: list[str]
    account_id: pulumi.Input[str]
    decisions: list[EndpointDecision]
    # route tables for the gateway endpoints; None = every route table of the VPC (looked up)
    route_table_ids: list[str] | None = None
    tags: dict[str, str] = field(default_factory=dict)

    def validate(self) -> None:
        require(bool(self.subnet_ids), "CostAwareNetworkArgs.subnet_ids", "expected at least one subnet")
        require(bool(self.availability_zones), "CostAwareNetworkArgs.availability_zones", "expected at least one availability zone")
        require("/" in self.vpc_cidr, "CostAwareNetworkArgs.vpc_cidr", f"expected a CIDR, got {self.vpc_cidr!r}")
        seen = [d.service for d in self.decisions]
        require(len(seen) == len(set(seen)), "CostAwareNetworkArgs.decisions", f"expected one decision per service, got {seen}")


class CostAwareNetwork(pulumi.ComponentResource):
    gateway_endpoint_ids: pulumi.Output[dict[str, str]]
    interface_endpoint_ids: pulumi.Output[dict[str, str]]
    endpoint_security_group_id: pulumi.Output[str] | None
    rationale: dict[str, str]

    def __init__(self, name: str, args: CostAwareNetworkArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("seedance:network:CostAwareNetwork", name, None, opts)
        args.validate()
        account = pulumi.Output.from_input(args.account_id)

        def policy(service: EndpointService) -> pulumi.Output[str]:
            return account.apply(lambda acct: policy_json(endpoint_policy(acct, service, args.region)))

        gateways: dict[str, pulumi.Output[str]] = {}
        interfaces: dict[str, pulumi.Output[str]] = {}
        self.rationale = {d.service.value: d.rationale for d in args.decisions}

        route_tables: pulumi.Input[list[str]] = []
        if any(d.route is Route.GATEWAY for d in args.decisions):
            if args.route_table_ids is None:
                route_tables = aws.ec2.get_route_tables_output(
                    vpc_id=args.vpc_id, opts=pulumi.InvokeOutputOptions(parent=self)
                ).ids
            else:
                route_tables = list(args.route_table_ids)
                if not route_tables:
                    pulumi.log.warn("no route tables given: the S3 / DynamoDB gateway endpoints carry no traffic", self)
        for d in args.decisions:
            if d.route is Route.GATEWAY:
                ep = aws.ec2.VpcEndpoint(
                    f"{name}-{d.service.value.replace('.', '-')}-gateway",
                    vpc_id=args.vpc_id,
                    service_name=service_name(d.service, args.region),
                    vpc_endpoint_type="Gateway",
                    route_table_ids=route_tables,
                    policy=policy(d.service),
                    tags={**args.tags, "seedance:endpoint-decision": "gateway"},
                    opts=child(self),
                )
                gateways[d.service.value] = ep.id

        wanted = [d for d in args.decisions if d.route is Route.INTERFACE]
        self.endpoint_security_group_id = None
        if wanted:
            sg = aws.ec2.SecurityGroup(
                f"{name}-endpoints-sg",
                description="Seedance interface endpoints: HTTPS from the VPC only",
                vpc_id=args.vpc_id,
                ingress=[
                    aws.ec2.SecurityGroupIngressArgs(
                        protocol="tcp", from_port=443, to_port=443, cidr_blocks=[args.vpc_cidr], description="HTTPS from the VPC"
                    )
                ],
                egress=[],
                revoke_rules_on_delete=True,
                tags=args.tags,
                opts=child(self),
            )
            self.endpoint_security_group_id = sg.id
            subnets = self._endpoint_subnets(args)
            for d in wanted:
                be = "unknown" if d.break_even_gb is None else f"{d.break_even_gb:.1f}"
                ep = aws.ec2.VpcEndpoint(
                    f"{name}-{d.service.value.replace('.', '-')}-interface",
                    vpc_id=args.vpc_id,
                    service_name=service_name(d.service, args.region),
                    vpc_endpoint_type="Interface",
                    private_dns_enabled=True,
                    subnet_ids=subnets,
                    security_group_ids=[sg.id],
                    policy=policy(d.service),
                    tags={**args.tags, "seedance:endpoint-decision": "interface", "seedance:break-even-gb": be},
                    opts=child(self),
                )
                interfaces[d.service.value] = ep.id

        self.gateway_endpoint_ids = pulumi.Output.from_input(gateways)
        self.interface_endpoint_ids = pulumi.Output.from_input(interfaces)
        self.register_outputs(
            {
                "gateway_endpoint_ids": self.gateway_endpoint_ids,
                "interface_endpoint_ids": self.interface_endpoint_ids,
                "rationale": self.rationale,
            }
        )

    def _endpoint_subnets(self, args: CostAwareNetworkArgs) -> pulumi.Output[list[str]]:
        """Ask EC2 which given subnets are in the listed zones and each one's zone; choose with
        :func:`endpoint_subnets`."""
        ids = list(dict.fromkeys(args.subnet_ids))
        opts = pulumi.InvokeOutputOptions(parent=self)
        listed = aws.ec2.get_subnets_output(
            filters=[aws.ec2.GetSubnetsFilterArgs(name="subnet-id", values=ids),
                     aws.ec2.GetSubnetsFilterArgs(name="availability-zone", values=list(args.availability_zones))],
            opts=opts,
        ).ids
        zones = [aws.ec2.get_subnet_output(id=subnet, opts=opts).availability_zone for subnet in ids]
        return pulumi.Output.all(listed, *zones).apply(
            lambda found: endpoint_subnets(ids, set(found[0] or []), dict(zip(ids, found[1:], strict=True)))
        )
