"""Subnet routing on documents Pulumi itself records: real pulumi-aws programs under the mock runtime.

The Rego tests give the routing rules hand-written documents; these check that the references a
program really makes (a subnet's VPC, a route on the VPC's main route table id, a DefaultRouteTable,
a MainRouteTableAssociation) are tied together the same way once Pulumi has recorded them.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

import pulumi
import pulumi_aws as aws

from seedance.gate import RegorusEngine
from seedance.gate.inputs import GateInput, validate_document
from seedance.gate.run import evaluate
from seedance.synth.runtime import run_program

CONTROLS = {"MLPS-L3-8.1.3.1a", "MLPS-L3-8.1.2.1c"}
PERSONAL = {"data-class": "personal"}


def _findings(program: Callable[[], None], stack_input, bundle) -> set[tuple[str, str, str]]:
    """The two controls' subnet findings, with the internet gateway's id shown as IGW."""
    doc = run_program(program, project="net", stack="t", config={"aws:region": "cn-north-1"}).document.to_json()
    base = stack_input("cn-prod")
    gi = GateInput(validate_document(doc), base.policy, base.plan, base.estimate, None)
    decision = evaluate(gi, bundle.only(CONTROLS), RegorusEngine(), as_of=dt.date(2026, 6, 1))
    # 8.1.3.1a's stack-wide findings (VPC endpoints) are not about subnets
    gateway_ids = [r["id"] for r in doc["resources"] if r["name"] == "gw"]
    return {(f.control_id, f.resource_name, f.message.replace(gateway_ids[0], "IGW") if gateway_ids else f.message)
            for f in decision.findings if not f.message.startswith("no VPC endpoint for ")}


def _vpc(name: str) -> aws.ec2.Vpc:
    return aws.ec2.Vpc(name, cidr_block="10.0.0.0/16")


def _subnet(name: str, vpc_id: pulumi.Input[str]) -> aws.ec2.Subnet:
    return aws.ec2.Subnet(name, vpc_id=vpc_id, cidr_block="10.0.1.0/24", tags=PERSONAL)


def _asg(subnets: list[aws.ec2.Subnet]) -> None:
    lt = aws.ec2.LaunchTemplate("train-lt", image_id="resolve:ssm:/aws/service/eks/optimized-ami/1.31/amazon-linux-2-gpu/recommended/image_id",
                                metadata_options={"http_tokens": "required"}, tags=PERSONAL)
    aws.autoscaling.Group("train", min_size=0, max_size=1, vpc_zone_identifiers=[s.id for s in subnets],
                          launch_template={"id": lt.id, "version": "$Latest"},
                          tags=[{"key": "data-class", "value": "personal", "propagate_at_launch": True}])


def public_main_tables() -> None:
    vpc_a = _vpc("vpc-a")
    igw = aws.ec2.InternetGateway("gw", vpc_id=vpc_a.id)  # its mock id does not start with igw-
    # a route added to the table AWS created with the VPC
    aws.ec2.Route("a-default", route_table_id=vpc_a.main_route_table_id, destination_cidr_block="0.0.0.0/0", gateway_id=igw.id)
    a = _subnet("a-1", vpc_a.id)
    # the same table, adopted by a DefaultRouteTable with an inline route
    vpc_b = _vpc("vpc-b")
    aws.ec2.DefaultRouteTable("b-default", default_route_table_id=vpc_b.default_route_table_id,
                              routes=[{"cidr_block": "0.0.0.0/0", "gateway_id": igw.id}])
    b = _subnet("b-1", vpc_b.id)
    # a VPC the stack is given by id
    c = _subnet("c-1", "vpc-0123456789abcdef0")
    _asg([a, b, c])


def private_main_tables() -> None:
    vpc = _vpc("vpc-a")
    igw = aws.ec2.InternetGateway("gw", vpc_id=vpc.id)
    aws.ec2.DefaultRouteTable("a-default", default_route_table_id=vpc.default_route_table_id,
                              routes=[{"cidr_block": "0.0.0.0/0", "gateway_id": igw.id}])
    private = aws.ec2.RouteTable("private-rt", vpc_id=vpc.id, routes=[{"cidr_block": "0.0.0.0/0", "nat_gateway_id": "nat-0123456789abcdef0"}])
    aws.ec2.MainRouteTableAssociation("a-main", vpc_id=vpc.id, route_table_id=private.id)
    a = _subnet("a-1", vpc.id)
    c = _subnet("c-1", "vpc-0123456789abcdef0")
    aws.ec2.RouteTableAssociation("c-assoc", subnet_id=c.id, route_table_id=private.id)
    _asg([a, c])


def test_subnets_on_public_or_unseen_main_route_tables_are_reported(stack_input, bundle) -> None:
    got = _findings(public_main_tables, stack_input, bundle)
    unseen = "no route table association of the stack names it, so it uses the main route table of VPC vpc-0123456789abcdef0, which the stack does not declare"
    assert got == {
        ("MLPS-L3-8.1.3.1a", "a-1", "data subnet routes 0.0.0.0/0 to an internet gateway (IGW, the main route table of VPC vpc-a)"),
        ("MLPS-L3-8.1.3.1a", "b-1", "data subnet routes 0.0.0.0/0 to an internet gateway (IGW, route table b-default)"),
        ("MLPS-L3-8.1.3.1a", "c-1", f"data subnet's routes cannot be checked: {unseen}"),
        ("MLPS-L3-8.1.2.1c", "train", "personal-data autoscaling group runs in subnet a-1, which is or may be public "
         "(the main route table of VPC vpc-a routes 0.0.0.0/0 to an internet gateway): sensitive data needs private subnets"),
        ("MLPS-L3-8.1.2.1c", "train", "personal-data autoscaling group runs in subnet b-1, which is or may be public "
         "(route table b-default routes 0.0.0.0/0 to an internet gateway): sensitive data needs private subnets"),
        ("MLPS-L3-8.1.2.1c", "train", "personal-data autoscaling group runs in subnet c-1, which is or may be public "
         f"({unseen}: it may route to an internet gateway): sensitive data needs private subnets"),
    }


def test_a_private_main_route_table_and_explicit_associations_pass(stack_input, bundle) -> None:
    assert _findings(private_main_tables, stack_input, bundle) == set()
