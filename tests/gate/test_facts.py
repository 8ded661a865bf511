"""``seedance check --lookup``: the subnets a stack is given, read from EC2 (a moto server over HTTP)."""

from __future__ import annotations

import datetime as dt
import json
import os
import socket
import uuid
from pathlib import Path

import boto3
import pytest

from seedance.awsclient import client
from seedance.cli import main
from seedance.gate.facts import (
    FactsError,
    _records_management_events,
    _s3_data_event_arns,
    given_security_group_ids,
    given_subnet_ids,
    endpoint_service_names,
    read_endpoint_facts,
    read_instance_type_facts,
    read_security_group_facts,
    read_subnet_facts,
    read_trail_facts,
    references,
)

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "tests" / "synth" / "samples" / "eu-prod.json"
POLICY = REPO / "stacks" / "policies" / "eu-prod.yaml"
CN_POLICY = REPO / "stacks" / "policies" / "cn-prod.yaml"
REGION = "eu-central-1"  # eu-prod's
SAMPLE_SUBNETS = ("subnet-0a1b2c3d4e5f60001", "subnet-0a1b2c3d4e5f60002", "subnet-0a1b2c3d4e5f60003")
SAMPLE_CLUSTER_SG = "sg-64bd28cd048509155"  # offline synthesis's placeholder for the EKS cluster security group
SAMPLE_TYPES = ["g4dn.2xlarge", "g4dn.xlarge", "g5.12xlarge", "g5.2xlarge", "g5.xlarge", "p4d.24xlarge", "p4de.24xlarge"]


@pytest.fixture
def ec2(moto_endpoint: str, aws_env, monkeypatch: pytest.MonkeyPatch):
    """An EC2 client on the moto server; the CLI reaches the same server through AWS_ENDPOINT_URL_EC2."""
    monkeypatch.setenv("AWS_ENDPOINT_URL_EC2", moto_endpoint)
    return boto3.client("ec2", region_name=REGION, endpoint_url=moto_endpoint)


def _network(ec2, region: str = REGION) -> dict[str, str]:
    """A VPC whose main route table routes to its internet gateway, and four subnets: one on the main
    table, one associated with a public table, one with a private table, one mapping public IPs."""
    vpc = ec2.create_vpc(CidrBlock="10.20.0.0/16")["Vpc"]["VpcId"]
    igw = ec2.create_internet_gateway()["InternetGateway"]["InternetGatewayId"]
    ec2.attach_internet_gateway(InternetGatewayId=igw, VpcId=vpc)
    main = ec2.describe_route_tables(Filters=[{"Name": "vpc-id", "Values": [vpc]},
                                              {"Name": "association.main", "Values": ["true"]}])["RouteTables"][0]["RouteTableId"]
    ec2.create_route(RouteTableId=main, DestinationCidrBlock="0.0.0.0/0", GatewayId=igw)
    public = ec2.create_route_table(VpcId=vpc)["RouteTable"]["RouteTableId"]
    ec2.create_route(RouteTableId=public, DestinationCidrBlock="0.0.0.0/0", GatewayId=igw)
    private = ec2.create_route_table(VpcId=vpc)["RouteTable"]["RouteTableId"]
    ids = {}
    for i, name in enumerate(("on-main", "public", "private", "maps-ips")):
        ids[name] = ec2.create_subnet(VpcId=vpc, CidrBlock=f"10.20.{i}.0/24", AvailabilityZone=f"{region}a")["Subnet"]["SubnetId"]
    ec2.associate_route_table(RouteTableId=public, SubnetId=ids["public"])
    ec2.associate_route_table(RouteTableId=private, SubnetId=ids["private"])
    ec2.associate_route_table(RouteTableId=private, SubnetId=ids["maps-ips"])
    ec2.modify_subnet_attribute(SubnetId=ids["maps-ips"], MapPublicIpOnLaunch={"Value": True})
    # the cluster security group as EKS creates it: all traffic from itself, and (EC2's default) all egress
    cluster_sg = ec2.create_security_group(GroupName="eks-cluster-sg-gpu-eu-prod-1", Description="EKS created security group",
                                           VpcId=vpc)["GroupId"]
    ec2.authorize_security_group_ingress(GroupId=cluster_sg, IpPermissions=[{"IpProtocol": "-1", "UserIdGroupPairs": [{"GroupId": cluster_sg}]}])
    return {**ids, "vpc": vpc, "igw": igw, "main": main, "public-rt": public, "private-rt": private, "cluster-sg": cluster_sg}


def test_read_subnet_facts(ec2) -> None:
    n = _network(ec2)
    facts = read_subnet_facts(client("ec2", REGION), [n["on-main"], n["public"], n["private"], n["maps-ips"], n["public"]], region=REGION)
    assert sorted(facts) == sorted([n["on-main"], n["public"], n["private"], n["maps-ips"]])
    on_main, public, private, maps = (facts[n[k]] for k in ("on-main", "public", "private", "maps-ips"))
    assert (on_main.route_table_id, on_main.main_route_table) == (n["main"], True)
    assert (public.route_table_id, public.main_route_table) == (n["public-rt"], False)
    assert {(r.destination, r.target) for r in on_main.routes} == {("10.20.0.0/16", "local"), ("0.0.0.0/0", n["igw"])}
    assert {(r.destination, r.target) for r in public.routes} == {("10.20.0.0/16", "local"), ("0.0.0.0/0", n["igw"])}
    assert [(r.destination, r.target) for r in private.routes] == [("10.20.0.0/16", "local")]
    assert private.route_table_id == maps.route_table_id == n["private-rt"]
    assert (private.map_public_ip_on_launch, maps.map_public_ip_on_launch) == (False, True)
    assert all((f.vpc_id, f.availability_zone) == (n["vpc"], f"{REGION}a") for f in facts.values())
    pair = read_subnet_facts(client("ec2", REGION), [n["on-main"], n["private"]], region=REGION)
    assert (pair[n["on-main"]].main_route_table, pair[n["private"]].route_table_id) == (True, n["private-rt"])
    assert read_subnet_facts(client("ec2", REGION), [], region=REGION) == {}


def test_a_subnet_ec2_does_not_know_is_an_error(ec2) -> None:
    n = _network(ec2)
    with pytest.raises(FactsError, match=r"ec2 DescribeSubnets in eu-central-1: InvalidSubnetID.NotFound"):
        read_subnet_facts(client("ec2", REGION), [n["private"], "subnet-0123456789abcdef0"], region=REGION)


def test_an_unreachable_endpoint_is_an_error(aws_env, monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setenv("AWS_ENDPOINT_URL_EC2", f"http://127.0.0.1:{port}")
    with pytest.raises(FactsError, match=r"^ec2 DescribeSubnets in eu-central-1: Could not connect"):
        read_subnet_facts(client("ec2", REGION), ["subnet-0123456789abcdef0"], region=REGION)


def test_read_security_group_facts(ec2) -> None:
    n = _network(ec2)
    ssh = ec2.create_security_group(GroupName="bastion", Description="ssh", VpcId=n["vpc"])["GroupId"]
    ec2.authorize_security_group_ingress(GroupId=ssh, IpPermissions=[
        {"IpProtocol": "tcp", "FromPort": 22, "ToPort": 22, "IpRanges": [{"CidrIp": "0.0.0.0/0"}], "Ipv6Ranges": [{"CidrIpv6": "::/0"}]}])
    ec2.revoke_security_group_egress(GroupId=ssh, IpPermissions=[{"IpProtocol": "-1", "IpRanges": [{"CidrIp": "0.0.0.0/0"}]}])
    groups = read_security_group_facts(client("ec2", REGION), [n["cluster-sg"], ssh, ssh], region=REGION)
    cluster, bastion = groups[n["cluster-sg"]], groups[ssh]
    assert (cluster.name, cluster.vpc_id, bastion.name) == ("eks-cluster-sg-gpu-eu-prod-1", n["vpc"], "bastion")
    assert [(r.protocol, r.from_port, r.to_port, r.cidrs, r.groups) for r in cluster.ingress] == [("-1", 0, 65535, [], [n["cluster-sg"]])]
    assert [(r.protocol, r.from_port, r.to_port, r.cidrs) for r in cluster.egress] == [("-1", 0, 65535, ["0.0.0.0/0"])]
    assert [(r.protocol, r.from_port, r.to_port, r.cidrs) for r in bastion.ingress] == [("tcp", 22, 22, ["0.0.0.0/0", "::/0"])]
    assert bastion.egress == []
    with pytest.raises(FactsError, match=r"ec2 DescribeSecurityGroups in eu-central-1: InvalidGroup.NotFound"):
        read_security_group_facts(client("ec2", REGION), [ssh, "sg-0123456789abcdef0"], region=REGION)


def test_read_instance_type_facts(ec2) -> None:
    types = read_instance_type_facts(client("ec2", REGION), ["g5.xlarge", "d2.xlarge", "m5.large", "g5.xlarge"], region=REGION)
    assert {t: (f.instance_storage, f.encryption_support) for t, f in types.items()} == {
        "g5.xlarge": (True, "required"), "d2.xlarge": (True, "unsupported"), "m5.large": (False, None)}
    with pytest.raises(FactsError, match=r"ec2 DescribeInstanceTypes in eu-central-1: .*x9\.huge"):
        read_instance_type_facts(client("ec2", REGION), ["g5.xlarge", "x9.huge"], region=REGION)


def test_an_unencrypted_instance_store_is_reported_with_lookup(ec2, capsys, tmp_path: Path) -> None:
    """A fleet override with an instance type whose instance store EC2 does not encrypt (d2: HDD)."""
    n = _network(ec2)
    doc = json.loads(SAMPLE.read_text())
    asg = next(r for r in doc["resources"] if r["name"] == "eval-asg")
    asg["inputs"]["mixedInstancesPolicy"]["launchTemplate"]["overrides"].append({"instanceType": "d2.xlarge"})
    sample = tmp_path / "sample.json"
    sample.write_text(json.dumps(doc))
    policy = tmp_path / "policy.yaml"
    policy.write_text(f"apiVersion: seedance.io/v1\nkind: CostPolicy\nextends: {POLICY}\ncloud:\n"
                      f"  subnetIds: [{n['private']}]\n")
    text = sample.read_text()
    for old in SAMPLE_SUBNETS:
        text = text.replace(old, n["private"])
    sample.write_text(text)
    code = main(["check", str(sample), "--policy", str(policy), "--framework", "mlps-l3", "--format", "json", "--lookup"])
    report = json.loads(capsys.readouterr().out)
    assert {(f["resourceName"], f["message"]) for f in report["findings"] if "instance store" in f["message"]} == {
        ("eval-asg", "instance type d2.xlarge has an instance store that is not always encrypted (EC2: encryption support "
                     "unsupported), so released blocks may be readable")}
    assert code == 1


def test_given_security_groups_are_those_no_resource_of_the_document_is() -> None:
    doc = {"resources": [
        {"id": "sg-0aaaaaaaaaaaaaaaa", "inputs": {}},
        {"inputs": {"vpcSecurityGroupIds": ["sg-0aaaaaaaaaaaaaaaa", "sg-0bbbbbbbbbbbbbbbb", "[unknown]"]}},
        {"inputs": {"networkInterfaces": [{"securityGroups": ["sg-0cccccccccccccccc"]}], "securityGroups": ["default", "sg-0dddddddddddddddd"]}},
    ]}
    assert given_security_group_ids(doc) == ["sg-0bbbbbbbbbbbbbbbb", "sg-0cccccccccccccccc", "sg-0dddddddddddddddd"]


def test_given_subnet_ids_come_from_the_policy_and_the_document() -> None:
    doc = {"resources": [
        {"inputs": {"vpcZoneIdentifiers": ["subnet-0aaaaaaaaaaaaaaaa", "[unknown]", "net-a-0f0f0f0f"]}},
        {"inputs": {"networkInterfaces": [{"subnetId": "subnet-0bbbbbbbbbbbbbbbb"}, "x"], "subnetId": None}},
        {"inputs": {"subnetId": "subnet-0cccccccccccccccc"}},
        {"inputs": {"vpcZoneIdentifiers": "[unknown]"}},
        {"id": "subnet-0eeeeeeeeeeeeeeee", "inputs": {}},  # the stack's own subnet, as a preview records it
        {"inputs": {"subnetId": "subnet-0eeeeeeeeeeeeeeee"}},
    ]}
    policy = {"cloud": {"subnetIds": ["subnet-0dddddddddddddddd", "subnet-0aaaaaaaaaaaaaaaa"]}}
    assert given_subnet_ids(policy, doc) == ["subnet-0aaaaaaaaaaaaaaaa", "subnet-0bbbbbbbbbbbbbbbb", "subnet-0cccccccccccccccc",
                                            "subnet-0dddddddddddddddd"]


def test_fleets_name_what_ec2_describes() -> None:
    """A spot fleet's launch specifications and a fleet's template overrides name subnets, security
    groups and types; a subnetId may list several subnets, separated by commas (EC2 API)."""
    doc = {"resources": [{"inputs": {"launchSpecifications": [
        {"subnetId": "subnet-0aaaaaaaaaaaaaaaa, subnet-0bbbbbbbbbbbbbbbb", "vpcSecurityGroupIds": ["sg-0aaaaaaaaaaaaaaaa"],
         "instanceType": "g5.xlarge"},
        {"subnetId": "subnet-0cccccccccccccccc", "instanceType": "g6.xlarge"},
        "[unknown]",
    ], "targetCapacity": 2}}, {"inputs": {"launchTemplateConfigs": [  # an EC2 Fleet's template overrides
        {"launchTemplateSpecification": {"launchTemplateId": "lt-0123456789abcdef0", "version": "$Latest"},
         "overrides": [{"subnetId": "subnet-0dddddddddddddddd, subnet-0eeeeeeeeeeeeeeee", "instanceType": "p4d.24xlarge"}, "[unknown]"]},
    ]}}]}
    refs = references(doc)
    assert refs.subnets == {"subnet-0aaaaaaaaaaaaaaaa", "subnet-0bbbbbbbbbbbbbbbb", "subnet-0cccccccccccccccc",
                            "subnet-0dddddddddddddddd", "subnet-0eeeeeeeeeeeeeeee"}
    assert (refs.security_groups, refs.instance_types) == ({"sg-0aaaaaaaaaaaaaaaa"}, {"g5.xlarge", "g6.xlarge", "p4d.24xlarge"})


def test_node_groups_name_their_subnets() -> None:
    """An EKS managed node group launches its nodes in its subnetIds; other resources' subnetIds (a
    VPC endpoint's, a DB subnet group's) place no compute and are not read."""
    doc = {"resources": [
        {"type": "aws:eks/nodeGroup:NodeGroup", "inputs": {"subnetIds": ["subnet-0aaaaaaaaaaaaaaaa", "[unknown]"],
                                                           "instanceTypes": ["g5.xlarge"]}},
        {"type": "aws-native:eks:Nodegroup", "inputs": {"subnets": ["subnet-0bbbbbbbbbbbbbbbb"]}},
        {"type": "aws:ec2/vpcEndpoint:VpcEndpoint", "inputs": {"subnetIds": ["subnet-0cccccccccccccccc"]}},
    ]}
    refs = references(doc)
    assert (refs.subnets, refs.instance_types) == ({"subnet-0aaaaaaaaaaaaaaaa", "subnet-0bbbbbbbbbbbbbbbb"}, {"g5.xlarge"})
    assert given_subnet_ids({}, doc) == ["subnet-0aaaaaaaaaaaaaaaa", "subnet-0bbbbbbbbbbbbbbbb"]


def _check(capsys, tmp_path: Path, subnets: list[str], cluster_sg: str, *extra: str) -> tuple[int, dict | str, str]:
    """eu-prod's sample document and policy with its subnets and cluster security group replaced, gated under MLPS."""
    text = SAMPLE.read_text()
    assert SAMPLE_CLUSTER_SG in text
    for old, new in (*zip(SAMPLE_SUBNETS, subnets, strict=True), (SAMPLE_CLUSTER_SG, cluster_sg)):
        text = text.replace(old, new)
    # as a document converted from a real preview: the lookups' answers are real, none is made up
    preview = json.loads(text)
    preview.pop("placeholders")
    doc = tmp_path / "eu-prod.json"
    doc.write_text(json.dumps(preview))
    policy = tmp_path / "policy.yaml"
    policy.write_text(f"apiVersion: seedance.io/v1\nkind: CostPolicy\nextends: {POLICY}\ncloud:\n"
                      f"  subnetIds: [{', '.join(subnets)}]\n")
    code = main(["check", str(doc), "--policy", str(policy), "--framework", "mlps-l3", "--format", "json", *extra])
    out = capsys.readouterr()
    try:
        return code, json.loads(out.out), out.err
    except json.JSONDecodeError:
        return code, out.out, out.err


def _zone_findings(report: dict) -> set[tuple[str, str]]:
    return {(f["resourceName"], f["message"]) for f in report["findings"]
            if f["controlId"] == "MLPS-L3-8.1.2.1c" and "EC2 describes" in f["message"]}


def test_check_lookup_blocks_sensitive_fleets_in_given_public_subnets(ec2, capsys, tmp_path: Path) -> None:
    n = _network(ec2)
    subnets = [n["private"], n["on-main"], n["maps-ips"]]
    code, report, err = _check(capsys, tmp_path, subnets, n["cluster-sg"])
    assert code == 1 and _zone_findings(report) == set()  # without --lookup the given subnets are not seen
    assert not [f for f in report["findings"] if "read from EC2" in f["message"]]
    # the report says what the stack is given and that it was not read
    assert report["given"] == {"read": False, "subnets": sorted(subnets), "securityGroups": [n["cluster-sg"]],
                               "instanceTypes": SAMPLE_TYPES}
    code, report, err = _check(capsys, tmp_path, subnets, n["cluster-sg"], "--lookup")
    assert code == 1 and f"read 3 subnet(s), 1 security group(s) and 7 instance type(s) from EC2 in {REGION}" in err
    read_at = report["given"].pop("readAt")
    assert dt.datetime.fromisoformat(read_at).tzinfo is not None  # when EC2 was read, in UTC
    assert report["given"] == {"read": True, "region": REGION, "subnets": sorted(subnets), "securityGroups": [n["cluster-sg"]],
                               "instanceTypes": SAMPLE_TYPES}
    # every GPU type here has an NVMe instance store, which EC2 encrypts: nothing to report
    assert not [f for f in report["findings"] if "instance store" in f["message"]]
    on_main = (f"{n['on-main']}, which EC2 describes as public (its VPC's main route table {n['main']} routes 0.0.0.0/0 "
               f"to internet gateway {n['igw']})")
    maps = f"{n['maps-ips']}, which EC2 describes as public (it maps public IPs on launch)"
    expected = set()
    for asg, cls in (("batch-embed-asg", "internal"), ("eval-asg", "internal"), ("finetune-asg", "personal"),
                     ("inference-asg", "personal"), ("llm-train-asg", "internal")):
        for where in (on_main, maps):
            expected.add((asg, f"{cls}-data autoscaling group runs in subnet {where}: sensitive data needs private subnets"))
    assert _zone_findings(report) == expected
    assert all(f["severity"] == "mandatory" for f in report["findings"] if f["controlId"] == "MLPS-L3-8.1.2.1c")
    # the nodes' launch templates carry the cluster security group: its all-port egress is reported on them
    group = f"its security group {n['cluster-sg']} (eks-cluster-sg-gpu-eu-prod-1, read from EC2)"
    egress = {(f["resourceName"], f["severity"]) for f in report["findings"]
              if f["controlId"] == "MLPS-L3-8.1.3.1c" and f["message"] == f"{group} allows all-port egress to the internet"}
    assert egress == {(f"{fleet}-lt", "advisory") for fleet in ("batch-embed", "eval", "finetune", "inference", "llm-train")}
    every_port = {(f["resourceName"], f["message"]) for f in report["findings"] if f["controlId"] == "MLPS-L3-8.1.3.2c" and group in f["message"]}
    assert every_port == {(f"{fleet}-lt", f"{d} rule of {group} allows every protocol or port")
                          for fleet in ("batch-embed", "eval", "finetune", "inference", "llm-train") for d in ("ingress", "egress")}


def test_check_lookup_passes_private_given_subnets(ec2, capsys, tmp_path: Path) -> None:
    n = _network(ec2)
    private = n["private"]
    other = ec2.create_subnet(VpcId=n["vpc"], CidrBlock="10.20.9.0/24")["Subnet"]["SubnetId"]
    ec2.associate_route_table(RouteTableId=n["private-rt"], SubnetId=other)
    third = ec2.create_subnet(VpcId=n["vpc"], CidrBlock="10.20.10.0/24")["Subnet"]["SubnetId"]
    ec2.associate_route_table(RouteTableId=n["private-rt"], SubnetId=third)
    _, report, _ = _check(capsys, tmp_path, [private, other, third], n["cluster-sg"], "--lookup")
    assert not [f for f in report["findings"] if f["controlId"] == "MLPS-L3-8.1.2.1c"]


def _single_zone_findings(report: dict) -> set[str]:
    return {f["resourceName"] for f in report["findings"]
            if f["controlId"] == "MLPS-L3-8.1.2.1e" and "availability zone" in f["message"] and "are all in" in f["message"]}


def test_check_lookup_counts_the_zones_of_given_subnets(ec2, capsys, tmp_path: Path) -> None:
    """Three private subnets in one zone are one zone once EC2 says where they sit; without the
    lookup each given subnet counts as a zone of its own."""
    n = _network(ec2)

    def private_subnet(cidr: str, zone: str) -> str:
        sid = ec2.create_subnet(VpcId=n["vpc"], CidrBlock=cidr, AvailabilityZone=f"{REGION}{zone}")["Subnet"]["SubnetId"]
        ec2.associate_route_table(RouteTableId=n["private-rt"], SubnetId=sid)
        return sid

    one_zone = [n["private"], private_subnet("10.20.20.0/24", "a"), private_subnet("10.20.21.0/24", "a")]
    spread = [private_subnet(f"10.20.{30 + i}.0/24", zone) for i, zone in enumerate("abc")]
    asgs = {"batch-embed-asg", "eval-asg", "finetune-asg", "inference-asg", "llm-train-asg"}
    _, report, _ = _check(capsys, tmp_path, one_zone, n["cluster-sg"])
    assert _single_zone_findings(report) == set()
    _, report, _ = _check(capsys, tmp_path, one_zone, n["cluster-sg"], "--lookup")
    assert _single_zone_findings(report) == asgs
    assert {f["message"] for f in report["findings"] if f["resourceName"] == "eval-asg" and "are all in" in f["message"]} == {
        f"autoscaling group's 3 subnets are all in availability zone {REGION}a; at least 2 availability zones required"}
    _, report, _ = _check(capsys, tmp_path, spread, n["cluster-sg"], "--lookup")
    assert _single_zone_findings(report) == set()
    assert _idle_reservations(report) == set()
    # the sample's inference fleet reserves its on-demand base in the three listed zones: with every
    # subnet in the first, the other two reservations are never used (an audit)
    _, report, _ = _check(capsys, tmp_path, one_zone, n["cluster-sg"], "--lookup")
    assert _idle_reservations(report) == {"inference-odcr-eu-central-1b", "inference-odcr-eu-central-1c"}
    _, report, _ = _check(capsys, tmp_path, one_zone, n["cluster-sg"])
    assert _idle_reservations(report) == set()  # without the lookup the zones are not known


def _idle_reservations(report: dict) -> set[str]:
    return {f["resourceName"] for f in report["findings"]
            if f["controlId"] == "BUDGET-FLEET-1" and "where none of its groups launches" in f["message"]}


def test_check_lookup_of_an_unknown_subnet_is_undecided(ec2, capsys, tmp_path: Path) -> None:
    n = _network(ec2)
    code, out, err = _check(capsys, tmp_path, [n["private"], n["public"], "subnet-0123456789abcdef0"], n["cluster-sg"], "--lookup")
    assert code == 2
    assert "--lookup: ec2 DescribeSubnets in eu-central-1: InvalidSubnetID.NotFound" in err
    code, out, err = _check(capsys, tmp_path, [n["private"], n["public"], n["on-main"]], "sg-0123456789abcdef0", "--lookup")
    assert code == 2
    assert "--lookup: ec2 DescribeSecurityGroups in eu-central-1: InvalidGroup.NotFound" in err


def test_the_policy_pack_reads_the_given_subnets_with_seedance_lookup(ec2, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, bundle) -> None:
    from types import SimpleNamespace

    from seedance.gate.pack import make_policies

    # an MLPS stack (cn-prod's policy, without the fleet whose p3.16xlarge moto's EC2 does not
    # describe) whose subnets EC2 in cn-north-1 describes
    n = _network(boto3.client("ec2", region_name="cn-north-1", endpoint_url=os.environ["AWS_ENDPOINT_URL_EC2"]), "cn-north-1")
    (tmp_path / "Pulumi.yaml").write_text("name: seedance-gpu\nruntime: python\n")
    (tmp_path / "__main__.py").write_text("")  # the project's program (not run here)
    (tmp_path / "Pulumi.s1.yaml").write_text("config:\n  seedance:policy: policy.yaml\n")
    (tmp_path / "policy.yaml").write_text(f"apiVersion: seedance.io/v1\nkind: CostPolicy\nextends: {CN_POLICY}\n"
                                          f"cloud:\n  subnetIds: [{n['on-main']}, {n['private']}]\n"
                                          "fleets:\n  - name: llm-train\n    $remove: true\n")
    asg = SimpleNamespace(resource_type="aws:autoscaling/group:Group", name="train",
                          urn="urn:pulumi:s1::seedance-gpu::aws:autoscaling/group:Group::train",
                          props={"vpcZoneIdentifiers": [n["on-main"], n["private"]],
                                 "tags": [{"key": "data-class", "value": "personal", "propagateAtLaunch": True}]})

    def violations(env: str | None) -> list[str]:
        if env is None:
            monkeypatch.delenv("SEEDANCE_LOOKUP", raising=False)
        else:
            monkeypatch.setenv("SEEDANCE_LOOKUP", env)
        policies = {p.name: p for p in make_policies(bundle, project_dir=tmp_path)}
        out: list[str] = []
        policies["mlps-l3-8-1-2-1c"].validate(SimpleNamespace(resources=[asg]), lambda message, urn=None: out.append(message))
        return out

    assert violations(None) == []
    (found,) = violations("1")
    assert found.startswith(f"personal-data autoscaling group runs in subnet {n['on-main']}, which EC2 describes as public "
                            f"(its VPC's main route table {n['main']} routes 0.0.0.0/0 to internet gateway {n['igw']})")
    # EC2 cannot be read: the pack's mandatory input check blocks the deploy, naming the reason
    (tmp_path / "policy.yaml").write_text((tmp_path / "policy.yaml").read_text().replace(n["private"], "subnet-0123456789abcdef0"))
    monkeypatch.setenv("SEEDANCE_LOOKUP", "1")
    policies = {p.name: p for p in make_policies(bundle, project_dir=tmp_path)}
    out: list[str] = []
    policies["seedance-gate-inputs"].validate(SimpleNamespace(resources=[asg]), lambda message, urn=None: out.append(message))
    assert len(out) == 1 and "InvalidSubnetID.NotFound" in out[0] and out[0].startswith("the Seedance gate cannot decide")


def test_offline_placeholders_are_reported_and_never_looked_up(ec2, capsys, tmp_path: Path) -> None:
    """Offline synthesis answers the EKS cluster lookup with a made-up security group id: --lookup
    does not ask EC2 for it (it does not exist), and every report says it was not checked."""
    n = _network(ec2)
    text = SAMPLE.read_text()
    for old, new in zip(SAMPLE_SUBNETS, [n["private"], n["on-main"], n["maps-ips"]], strict=True):
        text = text.replace(old, new)
    assert json.loads(text)["placeholders"][SAMPLE_CLUSTER_SG] == "the cluster security group of EKS cluster gpu-eu-prod"
    # the moto subnets are all in one zone: the sample's reservations elsewhere would be refused by the
    # program (and reported by BUDGET-FLEET-1), so they are left out
    doc = json.loads(text)
    doc["resources"] = [r for r in doc["resources"] if r["type"] != "aws:ec2/capacityReservation:CapacityReservation"
                        or r["inputs"]["availabilityZone"] == f"{REGION}a"]
    text = json.dumps(doc)
    (tmp_path / "eu-prod.json").write_text(text)
    policy = tmp_path / "policy.yaml"
    policy.write_text(f"apiVersion: seedance.io/v1\nkind: CostPolicy\nextends: {POLICY}\ncloud:\n"
                      f"  subnetIds: [{n['private']}, {n['on-main']}, {n['maps-ips']}]\n")
    base = [str(tmp_path / "eu-prod.json"), "--policy", str(policy), "--lookup"]
    code = main(["check", *base, "--format", "json"])
    out = capsys.readouterr()
    assert code == 0 and "read 3 subnet(s), 0 security group(s) and 7 instance type(s)" in out.err
    given = json.loads(out.out)["given"]
    assert given["read"] is True and given["securityGroups"] == []
    assert given["placeholders"] == {SAMPLE_CLUSTER_SG: "the cluster security group of EKS cluster gpu-eu-prod"}
    main(["check", *base, "--format", "text"])
    assert ("not checked: the cluster security group of EKS cluster gpu-eu-prod: offline synthesis cannot know its id"
            in " ".join(capsys.readouterr().out.split()))


def test_recorded_facts_serve_runs_without_credentials(ec2, capsys, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """--lookup --save-facts writes what EC2 said; --facts uses it where EC2 cannot be read (a pull-request
    check), with the same findings, and reports what the recorded facts do not cover."""
    n = _network(ec2)
    saved = tmp_path / "facts.json"
    code, live, err = _check(capsys, tmp_path, [n["private"], n["on-main"], n["maps-ips"]], n["cluster-sg"], "--lookup",
                             "--save-facts", str(saved))
    recorded = json.loads(saved.read_text())
    assert recorded["region"] == REGION and recorded["read_at"] and sorted(recorded["subnets"]) == sorted(
        [n["private"], n["on-main"], n["maps-ips"]])
    monkeypatch.setenv("AWS_ENDPOINT_URL_EC2", "http://127.0.0.1:9")  # nothing answers there: EC2 is not read
    code2, offline, _ = _check(capsys, tmp_path, [n["private"], n["on-main"], n["maps-ips"]], n["cluster-sg"], "--facts", str(saved))
    assert (code2, offline["findings"]) == (code, live["findings"])
    assert offline["given"]["read"] is True and offline["given"]["readAt"] == recorded["read_at"]
    assert "notInFacts" not in offline["given"]
    # a subnet the facts predate is not checked, and the report says so
    code3, newer, _ = _check(capsys, tmp_path, [n["private"], n["on-main"], "subnet-0fffffffffffffff0"], n["cluster-sg"],
                             "--facts", str(saved))
    assert newer["given"]["notInFacts"] == {"subnets": ["subnet-0fffffffffffffff0"], "securityGroups": [], "instanceTypes": []}
    capsys.readouterr()
    doc = tmp_path / "eu-prod.json"
    main(["check", str(doc), "--policy", str(tmp_path / "policy.yaml"), "--facts", str(saved)])
    assert ("not checked: the 1 subnet the stack is given (not in the facts read earlier"
            in " ".join(capsys.readouterr().out.split()))


def test_recorded_facts_that_cannot_serve_are_undecided(ec2, capsys, tmp_path: Path) -> None:
    n = _network(ec2)
    subnets = [n["private"], n["on-main"], n["maps-ips"]]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"region": REGION, "subnets": {"subnet-0aaaaaaaaaaaaaaaa": {"vpc_id": "vpc-1"}}}))
    code, out, err = _check(capsys, tmp_path, subnets, n["cluster-sg"], "--facts", str(bad))
    assert code == 2 and f"{bad}: subnets.subnet-0aaaaaaaaaaaaaaaa.map_public_ip_on_launch: Field required" in err
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_text(json.dumps({"region": "eu-west-1"}))
    code, out, err = _check(capsys, tmp_path, subnets, n["cluster-sg"], "--facts", str(elsewhere))
    assert code == 2 and "facts read in eu-west-1, but the policy's region is eu-central-1" in err
    code, out, err = _check(capsys, tmp_path, subnets, n["cluster-sg"], "--facts", str(elsewhere), "--lookup")
    assert code == 2 and "--facts and --lookup: give one" in err


# ---------------------------------------------------------------- compliance.existingTrail: the trail
# the policy relies on instead of its own, read from CloudTrail in the trail's home region

TRAIL_HOME = "us-east-1"


@pytest.fixture
def cloudtrail(moto_endpoint: str, aws_env, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("AWS_ENDPOINT_URL_CLOUDTRAIL", moto_endpoint)
    monkeypatch.setenv("AWS_ENDPOINT_URL_EC2", moto_endpoint)
    s3 = boto3.client("s3", region_name=TRAIL_HOME, endpoint_url=moto_endpoint)
    ct = boto3.client("cloudtrail", region_name=TRAIL_HOME, endpoint_url=moto_endpoint)

    def make(*, validation: bool = True, multi_region: bool = True, logging: bool = True, data: list[str] | None = None,
             management: bool = True) -> str:
        name = f"org-{uuid.uuid4().hex[:10]}"
        s3.create_bucket(Bucket=f"{name}-logs")
        arn = ct.create_trail(Name=name, S3BucketName=f"{name}-logs", IsMultiRegionTrail=multi_region,
                              IncludeGlobalServiceEvents=True, EnableLogFileValidation=validation)["TrailARN"]
        ct.put_event_selectors(TrailName=arn, EventSelectors=[{
            "ReadWriteType": "All", "IncludeManagementEvents": management,
            "DataResources": [{"Type": "AWS::S3::Object", "Values": data}] if data else []}])
        if logging:
            ct.start_logging(Name=arn)
        return arn

    return make


def _client_of(region: str):  # noqa: ANN202
    return client("cloudtrail", region)


def test_read_trail_facts(cloudtrail) -> None:
    good = cloudtrail(data=["arn:aws:s3:::datasets/"])
    bad = cloudtrail(validation=False, multi_region=False, logging=False, management=False)
    facts = read_trail_facts(_client_of, [good, bad, good])
    assert sorted(facts) == sorted([good, bad])
    g, b = facts[good], facts[bad]
    assert (g.multi_region, g.log_file_validation, g.logging, g.management_events, g.s3_data_events) == (
        True, True, True, True, ["arn:aws:s3:::datasets/"])
    assert (b.multi_region, b.log_file_validation, b.logging, b.management_events, b.s3_data_events) == (
        False, False, False, False, [])
    assert g.home_region == TRAIL_HOME and g.s3_bucket == good.rsplit("/", 1)[1] + "-logs"


def test_a_trail_cloudtrail_does_not_know_is_an_error(cloudtrail) -> None:
    missing = f"arn:aws:cloudtrail:{TRAIL_HOME}:123456789012:trail/nowhere-{uuid.uuid4().hex[:6]}"
    with pytest.raises(FactsError, match=rf"^cloudtrail GetTrail in {TRAIL_HOME}: TrailNotFoundException"):
        read_trail_facts(_client_of, [missing])


def test_selectors_are_read_as_cloudtrail_applies_them() -> None:
    # no selector at all: management events only
    assert _records_management_events([], []) is True
    assert _records_management_events([{"IncludeManagementEvents": False}], []) is False
    # a basic selector that excludes a source's management events (KMS) leaves them out, as an
    # advanced filter on eventSource does; an empty exclusion list excludes nothing
    assert _records_management_events([{"IncludeManagementEvents": True, "ExcludeManagementEventSources": ["kms.amazonaws.com"]}], []) is False
    assert _records_management_events([{"IncludeManagementEvents": True, "ExcludeManagementEventSources": []}], []) is True
    # advanced selectors replace the basic ones
    data_only = [{"FieldSelectors": [{"Field": "eventCategory", "Equals": ["Data"]},
                                     {"Field": "resources.type", "Equals": ["AWS::S3::Object"]}]}]
    assert _records_management_events([{"IncludeManagementEvents": True}], data_only) is False
    assert _s3_data_event_arns([], data_only, "aws") == ["arn:aws:s3"]  # every bucket
    narrowed = [{"FieldSelectors": [*data_only[0]["FieldSelectors"],
                                    {"Field": "resources.ARN", "StartsWith": ["arn:aws:s3:::datasets/", "arn:aws:s3:::datasets/tmp/"]}]}]
    assert _s3_data_event_arns([], narrowed, "aws") == ["arn:aws:s3:::datasets/"]  # a prefix covers part of a bucket
    one_object = [{"FieldSelectors": [*data_only[0]["FieldSelectors"],
                                      {"Field": "resources.ARN", "Equals": ["arn:aws:s3:::datasets/readme.txt"]}]}]
    assert _s3_data_event_arns([], one_object, "aws") == []
    # reads only (or writes only) is not recording a bucket's data events, nor the account's management events
    reads = [{"FieldSelectors": [*data_only[0]["FieldSelectors"], {"Field": "readOnly", "Equals": ["true"]}]},
             {"FieldSelectors": [{"Field": "eventCategory", "Equals": ["Management"]}, {"Field": "readOnly", "Equals": ["true"]}]}]
    assert _s3_data_event_arns([], reads, "aws") == [] and _records_management_events([], reads) is False
    basic_reads = [{"ReadWriteType": "ReadOnly", "IncludeManagementEvents": True,
                    "DataResources": [{"Type": "AWS::S3::Object", "Values": ["arn:aws:s3"]}]}]
    assert _s3_data_event_arns(basic_reads, [], "aws") == [] and _records_management_events(basic_reads, []) is False
    # reads by one selector and writes by another record both
    split = [{"ReadWriteType": "ReadOnly", "DataResources": [{"Type": "AWS::S3::Object", "Values": ["arn:aws:s3:::datasets/"]}]},
             {"ReadWriteType": "WriteOnly", "DataResources": [{"Type": "AWS::S3::Object", "Values": ["arn:aws:s3:::datasets/"]}]}]
    assert _s3_data_event_arns(split, [], "aws") == ["arn:aws:s3:::datasets/"] and _records_management_events(split, []) is True
    advanced_split = [{"FieldSelectors": [{"Field": "eventCategory", "Equals": ["Management"]}, {"Field": "readOnly", "Equals": [v]}]}
                      for v in ("true", "false")]
    assert _records_management_events([], advanced_split) is True
    assert _records_management_events([], advanced_split[:1]) is False
    whole = [{"ReadWriteType": "All", "DataResources": [{"Type": "AWS::S3::Object", "Values": [
        "arn:aws:s3:::datasets/", "arn:aws:s3:::other", "arn:aws:s3:::datasets/tmp/", "arn:aws:s3:::"]}]}]
    assert _s3_data_event_arns(whole, [], "aws") == ["arn:aws:s3:::", "arn:aws:s3:::datasets/", "arn:aws:s3:::other"]
    # which buckets a NotStartsWith leaves out cannot be read off it: counted as none
    excluding = [{"FieldSelectors": [*data_only[0]["FieldSelectors"],
                                     {"Field": "resources.ARN", "NotStartsWith": ["arn:aws:s3:::datasets/"]}]}]
    assert _s3_data_event_arns([], excluding, "aws") == []
    assert _s3_data_event_arns([{"DataResources": [{"Type": "AWS::Lambda::Function", "Values": ["arn:aws:lambda"]}]}],
                               [], "aws") == []



RED_TEAM_SOURCES = ["iam.amazonaws.com", "sts.amazonaws.com", "ec2.amazonaws.com", "eks.amazonaws.com", "kms.amazonaws.com",
                    "s3.amazonaws.com"]


def test_selectors_that_narrow_the_events_are_not_counted() -> None:
    """An advanced selector with a filter the gate cannot follow (eventSource, eventName, a not-operator)
    records neither management events nor a bucket's data events, as policies/lib/audit.rego judges it."""
    mgmt = {"FieldSelectors": [{"Field": "eventCategory", "Equals": ["Management"]}]}
    assert _records_management_events([], [mgmt]) is True
    filtered = {"FieldSelectors": [*mgmt["FieldSelectors"], {"Field": "eventSource", "NotEquals": RED_TEAM_SOURCES}]}
    assert _records_management_events([], [filtered]) is False
    data = [{"Field": "eventCategory", "Equals": ["Data"]}, {"Field": "resources.type", "Equals": ["AWS::S3::Object"]}]
    for extra in ({"Field": "eventName", "Equals": ["GetObject"]},
                  {"Field": "eventName", "NotStartsWith": ["Put", "Delete", "Copy"]},
                  {"Field": "eventSource", "Equals": ["nothing.amazonaws.com"]},
                  {"Field": "readOnly", "NotEquals": ["true"]},
                  {"Field": "resources.ARN", "StartsWith": ["arn:aws:s3:::datasets/"], "NotStartsWith": ["arn:aws:s3:::datasets/x"]}):
        assert _s3_data_event_arns([], [{"FieldSelectors": [*data, extra]}], "aws") == [], extra
    # a prefix after the bucket's '/' covers part of it, in a basic selector as in an advanced one
    prefix = [{"ReadWriteType": "All", "DataResources": [{"Type": "AWS::S3::Object", "Values": ["arn:aws-cn:s3:::datasets/tmp/"]}]}]
    assert _s3_data_event_arns(prefix, [], "aws-cn") == []
    starts = [{"FieldSelectors": [*data, {"Field": "resources.ARN", "StartsWith": ["arn:aws-cn:s3:::datasets/tmp/", "arn:aws-cn:s3:::ds"]}]}]
    assert _s3_data_event_arns([], starts, "aws-cn") == ["arn:aws-cn:s3:::ds"]

def _check_trail(capsys, tmp_path: Path, ec2, arn: str, *extra: str) -> tuple[int, dict, str]:  # noqa: ANN001
    """eu-prod's sample in subnets EC2 knows, its policy relying on the trail ``arn``."""
    private = _network(ec2)["private"]
    sample = tmp_path / "sample.json"
    text = SAMPLE.read_text()
    for old in SAMPLE_SUBNETS:
        text = text.replace(old, private)
    sample.write_text(text)
    policy = tmp_path / "policy.yaml"
    policy.write_text(f"apiVersion: seedance.io/v1\nkind: CostPolicy\nextends: {POLICY}\ncloud:\n"
                      f"  subnetIds: [{private}]\ncompliance:\n"
                      f"  existingTrail: {{arn: '{arn}', s3DataEvents: true}}\n")
    code = main(["check", str(sample), "--policy", str(policy), "--format", "json", *extra])
    out, err = capsys.readouterr()
    return code, json.loads(out), err


def test_check_reads_the_existing_trail_with_lookup(cloudtrail, ec2, capsys, tmp_path: Path) -> None:
    arn = cloudtrail(logging=False)
    code, report, _ = _check_trail(capsys, tmp_path, ec2, arn)
    mine = [f for f in report["findings"] if "existing trail" in f["message"]]
    assert mine == []  # not read: the policy's word is taken, and the report says what was not checked
    assert report["given"]["read"] is False and report["given"]["trails"] == [arn]
    code, report, err = _check_trail(capsys, tmp_path, ec2, arn, "--lookup")
    assert "1 trail(s) from CloudTrail" in err
    assert report["given"]["read"] is True and report["given"]["trails"] == [arn]
    # moto's trail is in its default account, not eu-prod's, and is no organization trail
    assert {(f["controlId"], f["message"]) for f in report["findings"] if "existing trail" in f["message"]} == {
        ("GDPR-33-1", f"existing trail {arn} is not recording (logging is stopped) (read from CloudTrail)"),
        ("GDPR-33-1", f"existing trail {arn} is a trail of account 123456789012 and not an organization trail, so it "
                      "does not record account 111122223333 (read from CloudTrail)")}
    assert code == 1
    # the text report says where each was read, and that the trail's log bucket was not
    main(["check", str(tmp_path / "sample.json"), "--policy", str(tmp_path / "policy.yaml"), "--lookup"])
    text = " ".join(capsys.readouterr().out.split())
    assert f"Read from EC2 in eu-central-1 and CloudTrail in {TRAIL_HOME} at " in text
    assert "not checked: " in text and f"the log bucket of the existing trail {arn} (its retention" in text


def test_a_lookup_that_cannot_read_the_trail_is_undecided(cloudtrail, ec2, capsys, tmp_path: Path) -> None:
    missing = f"arn:aws:cloudtrail:{TRAIL_HOME}:123456789012:trail/nowhere-{uuid.uuid4().hex[:6]}"
    code, report, _ = _check_trail(capsys, tmp_path, ec2, missing, "--lookup")
    assert code == 2 and report["decision"] == "undecided"
    assert "TrailNotFoundException" in json.dumps(report)


def test_a_cloudtrail_answer_of_another_shape_is_an_error_not_a_crash() -> None:
    class Garbled:
        def get_trail(self, **_: object) -> dict:
            return {"Trail": {"IsMultiRegionTrail": True, "KmsKeyId": ["not", "a", "key"]}}

        def get_trail_status(self, **_: object) -> dict:
            return {"IsLogging": True}

        def get_event_selectors(self, **_: object) -> dict:
            return {"EventSelectors": [{"ReadWriteType": "All", "DataResources": "garbage"}]}

    arn = "arn:aws:cloudtrail:us-east-1:123456789012:trail/org"
    with pytest.raises(FactsError, match=r"^cloudtrail in us-east-1: unreadable answer for arn:aws:cloudtrail:us-east-1:123456789012:trail/org"):
        read_trail_facts(lambda region: Garbled(), [arn])



# ---------------------------------------------------------------- network.existingEndpoints: the
# VPC's endpoints for the services the policy says it already has (DescribeVpcEndpoints)

_RESTRICTED = json.dumps({"Statement": [{"Effect": "Allow", "Principal": "*", "Action": "*", "Resource": "*",
                                         "Condition": {"StringEquals": {"aws:PrincipalAccount": "111122223333"}}}]})


def _endpoints(ec2, region: str = REGION) -> dict[str, str]:
    """A VPC with an interface endpoint for kms (private DNS, a restricted policy), one for logs without
    private DNS, an S3 gateway on a route table, an ecr.api endpoint since deleted; another VPC with an
    sts endpoint."""
    vpc = ec2.create_vpc(CidrBlock="10.30.0.0/16")["Vpc"]["VpcId"]
    other = ec2.create_vpc(CidrBlock="10.31.0.0/16")["Vpc"]["VpcId"]
    subnet = ec2.create_subnet(VpcId=vpc, CidrBlock="10.30.0.0/24", AvailabilityZone=f"{region}a")["Subnet"]["SubnetId"]
    table = ec2.create_route_table(VpcId=vpc)["RouteTable"]["RouteTableId"]

    def make(service: str, kind: str, vpc_id: str = vpc, **kwargs: object) -> str:
        return ec2.create_vpc_endpoint(VpcId=vpc_id, ServiceName=f"com.amazonaws.{region}.{service}", VpcEndpointType=kind,
                                       **kwargs)["VpcEndpoint"]["VpcEndpointId"]

    ids = {
        "vpc": vpc, "other": other, "table": table,
        "kms": make("kms", "Interface", SubnetIds=[subnet], PrivateDnsEnabled=True, PolicyDocument=_RESTRICTED),
        "logs": make("logs", "Interface", SubnetIds=[subnet], PrivateDnsEnabled=False),
        "s3": make("s3", "Gateway", RouteTableIds=[table]),
        "ecr.api": make("ecr.api", "Interface", SubnetIds=[subnet], PrivateDnsEnabled=True),
        "sts": make("sts", "Interface", other),
    }
    ec2.delete_vpc_endpoints(VpcEndpointIds=[ids["ecr.api"]])
    return ids


def test_read_endpoint_facts(ec2) -> None:
    n = _endpoints(ec2)
    read = read_endpoint_facts(client("ec2", REGION), n["vpc"], ["kms", "logs", "s3", "ecr.api", "sts", "dynamodb", "kms"],
                               region=REGION)
    assert read.vpc_id == n["vpc"]
    facts = read.services
    assert sorted(facts) == ["dynamodb", "ecr.api", "kms", "logs", "s3", "sts"]
    assert facts["dynamodb"] == [] and facts["sts"] == []  # none; another VPC's is not counted
    [kms], [logs], [s3], [ecr] = facts["kms"], facts["logs"], facts["s3"], facts["ecr.api"]
    assert (kms.id, kms.type, kms.state, kms.private_dns_enabled) == (n["kms"], "Interface", "available", True)
    assert kms.service_name == f"com.amazonaws.{REGION}.kms"
    assert kms.policy == json.loads(_RESTRICTED)
    assert (logs.id, logs.type, logs.private_dns_enabled) == (n["logs"], "Interface", False)
    assert logs.policy["Statement"][0]["Principal"] == "*"  # EC2's default policy: full access
    assert (s3.id, s3.type, s3.state, s3.route_table_ids) == (n["s3"], "Gateway", "available", [n["table"]])
    assert (ecr.id, ecr.state) == (n["ecr.api"], "deleted")
    assert read_endpoint_facts(client("ec2", REGION), n["other"], ["sts"], region=REGION).services["sts"][0].id == n["sts"]
    assert read_endpoint_facts(client("ec2", REGION), n["vpc"], [], region=REGION).services == {}


def test_endpoint_service_names() -> None:
    assert endpoint_service_names("kms", "eu-central-1") == ["com.amazonaws.eu-central-1.kms"]
    assert endpoint_service_names("ecr.dkr", "cn-north-1") == ["cn.com.amazonaws.cn-north-1.ecr.dkr",
                                                              "com.amazonaws.cn-north-1.ecr.dkr"]


def test_china_endpoint_names_are_read_in_either_spelling(moto_endpoint: str, aws_env, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_ENDPOINT_URL_EC2", moto_endpoint)
    cn = boto3.client("ec2", region_name="cn-north-1", endpoint_url=moto_endpoint)
    vpc = cn.create_vpc(CidrBlock="10.40.0.0/16")["Vpc"]["VpcId"]
    sts = cn.create_vpc_endpoint(VpcId=vpc, ServiceName="cn.com.amazonaws.cn-north-1.sts", VpcEndpointType="Interface",
                                 PrivateDnsEnabled=True)["VpcEndpoint"]["VpcEndpointId"]
    kms = cn.create_vpc_endpoint(VpcId=vpc, ServiceName="com.amazonaws.cn-north-1.kms", VpcEndpointType="Interface",
                                 PrivateDnsEnabled=True)["VpcEndpoint"]["VpcEndpointId"]
    ec2 = cn.create_vpc_endpoint(VpcId=vpc, ServiceName="cn.com.amazonaws.cn-north-1.ec2", VpcEndpointType="Interface",
                                 PrivateDnsEnabled=True)["VpcEndpoint"]["VpcEndpointId"]
    facts = read_endpoint_facts(client("ec2", "cn-north-1"), vpc, ["sts", "kms", "ec2"], region="cn-north-1").services
    assert [f.id for f in facts["sts"]] == [sts] and [f.id for f in facts["kms"]] == [kms]
    assert [f.id for f in facts["ec2"]] == [ec2]


def test_a_vpc_without_endpoints_reads_none_and_errors_name_the_call(ec2, monkeypatch: pytest.MonkeyPatch) -> None:
    # DescribeVpcEndpoints filters: a VPC without endpoints (or one EC2 does not know) has none
    assert read_endpoint_facts(client("ec2", REGION), "vpc-0123456789abcdef0", ["kms"], region=REGION).services == {"kms": []}
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setenv("AWS_ENDPOINT_URL_EC2", f"http://127.0.0.1:{port}")
    with pytest.raises(FactsError, match=r"^ec2 DescribeVpcEndpoints in eu-central-1: Could not connect"):
        read_endpoint_facts(client("ec2", REGION), "vpc-0123456789abcdef0", ["kms"], region=REGION)
