"""``seedance check --lookup``: the subnets a stack is given, read from EC2 (a moto server over HTTP)."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import boto3
import pytest

from seedance.awsclient import client
from seedance.cli import main
from seedance.gate.facts import FactsError, given_subnet_ids, read_subnet_facts

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "tests" / "synth" / "samples" / "eu-prod.json"
POLICY = REPO / "stacks" / "policies" / "eu-prod.yaml"
REGION = "eu-central-1"  # eu-prod's
SAMPLE_SUBNETS = ("subnet-0a1b2c3d4e5f60001", "subnet-0a1b2c3d4e5f60002", "subnet-0a1b2c3d4e5f60003")


@pytest.fixture
def ec2(moto_endpoint: str, aws_env, monkeypatch: pytest.MonkeyPatch):
    """An EC2 client on the moto server; the CLI reaches the same server through AWS_ENDPOINT_URL_EC2."""
    monkeypatch.setenv("AWS_ENDPOINT_URL_EC2", moto_endpoint)
    return boto3.client("ec2", region_name=REGION, endpoint_url=moto_endpoint)


def _network(ec2) -> dict[str, str]:
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
        ids[name] = ec2.create_subnet(VpcId=vpc, CidrBlock=f"10.20.{i}.0/24", AvailabilityZone=f"{REGION}a")["Subnet"]["SubnetId"]
    ec2.associate_route_table(RouteTableId=public, SubnetId=ids["public"])
    ec2.associate_route_table(RouteTableId=private, SubnetId=ids["private"])
    ec2.associate_route_table(RouteTableId=private, SubnetId=ids["maps-ips"])
    ec2.modify_subnet_attribute(SubnetId=ids["maps-ips"], MapPublicIpOnLaunch={"Value": True})
    return {**ids, "vpc": vpc, "igw": igw, "main": main, "public-rt": public, "private-rt": private}


def test_read_subnet_facts(ec2) -> None:
    n = _network(ec2)
    facts = read_subnet_facts(client("ec2", REGION), [n["on-main"], n["public"], n["private"], n["maps-ips"], n["public"]], region=REGION)
    assert facts.region == REGION and sorted(facts.subnets) == sorted([n["on-main"], n["public"], n["private"], n["maps-ips"]])
    on_main, public, private, maps = (facts.subnets[n[k]] for k in ("on-main", "public", "private", "maps-ips"))
    assert (on_main.route_table_id, on_main.main_route_table) == (n["main"], True)
    assert (public.route_table_id, public.main_route_table) == (n["public-rt"], False)
    assert {(r.destination, r.target) for r in on_main.routes} == {("10.20.0.0/16", "local"), ("0.0.0.0/0", n["igw"])}
    assert {(r.destination, r.target) for r in public.routes} == {("10.20.0.0/16", "local"), ("0.0.0.0/0", n["igw"])}
    assert [(r.destination, r.target) for r in private.routes] == [("10.20.0.0/16", "local")]
    assert private.route_table_id == maps.route_table_id == n["private-rt"]
    assert (private.map_public_ip_on_launch, maps.map_public_ip_on_launch) == (False, True)
    assert all(f.vpc_id == n["vpc"] for f in facts.subnets.values())
    pair = read_subnet_facts(client("ec2", REGION), [n["on-main"], n["private"]], region=REGION).subnets
    assert (pair[n["on-main"]].main_route_table, pair[n["private"]].route_table_id) == (True, n["private-rt"])
    assert read_subnet_facts(client("ec2", REGION), [], region=REGION).subnets == {}


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


def test_given_subnet_ids_come_from_the_policy_and_the_document() -> None:
    doc = {"resources": [
        {"inputs": {"vpcZoneIdentifiers": ["subnet-0aaaaaaaaaaaaaaaa", "[unknown]", "net-a-0f0f0f0f"]}},
        {"inputs": {"networkInterfaces": [{"subnetId": "subnet-0bbbbbbbbbbbbbbbb"}, "x"], "subnetId": None}},
        {"inputs": {"subnetId": "subnet-0cccccccccccccccc"}},
        {"inputs": {"vpcZoneIdentifiers": "[unknown]"}},
    ]}
    policy = {"cloud": {"subnetIds": ["subnet-0dddddddddddddddd", "subnet-0aaaaaaaaaaaaaaaa"]}}
    assert given_subnet_ids(policy, doc) == ["subnet-0aaaaaaaaaaaaaaaa", "subnet-0bbbbbbbbbbbbbbbb", "subnet-0cccccccccccccccc",
                                            "subnet-0dddddddddddddddd"]


def _check(capsys, tmp_path: Path, subnets: list[str], *extra: str) -> tuple[int, dict | str, str]:
    """eu-prod's sample document and policy with its subnets replaced by ``subnets``, gated under MLPS."""
    text = SAMPLE.read_text()
    for old, new in zip(SAMPLE_SUBNETS, subnets, strict=True):
        text = text.replace(old, new)
    doc = tmp_path / "eu-prod.json"
    doc.write_text(text)
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
    code, report, err = _check(capsys, tmp_path, subnets)
    assert code == 1 and _zone_findings(report) == set()  # without --lookup the given subnets are not seen
    code, report, err = _check(capsys, tmp_path, subnets, "--lookup")
    assert code == 1 and f"read 3 subnet(s) from EC2 in {REGION}" in err
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


def test_check_lookup_passes_private_given_subnets(ec2, capsys, tmp_path: Path) -> None:
    n = _network(ec2)
    private = n["private"]
    other = ec2.create_subnet(VpcId=n["vpc"], CidrBlock="10.20.9.0/24")["Subnet"]["SubnetId"]
    ec2.associate_route_table(RouteTableId=n["private-rt"], SubnetId=other)
    third = ec2.create_subnet(VpcId=n["vpc"], CidrBlock="10.20.10.0/24")["Subnet"]["SubnetId"]
    ec2.associate_route_table(RouteTableId=n["private-rt"], SubnetId=third)
    _, report, _ = _check(capsys, tmp_path, [private, other, third], "--lookup")
    assert not [f for f in report["findings"] if f["controlId"] == "MLPS-L3-8.1.2.1c"]


def test_check_lookup_of_an_unknown_subnet_is_undecided(ec2, capsys, tmp_path: Path) -> None:
    n = _network(ec2)
    code, out, err = _check(capsys, tmp_path, [n["private"], n["public"], "subnet-0123456789abcdef0"], "--lookup")
    assert code == 2
    assert "--lookup: ec2 DescribeSubnets in eu-central-1: InvalidSubnetID.NotFound" in err


def test_the_policy_pack_reads_the_given_subnets_with_seedance_lookup(ec2, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, bundle) -> None:
    from types import SimpleNamespace

    from seedance.gate.pack import make_policies

    n = _network(ec2)
    (tmp_path / "Pulumi.yaml").write_text("name: seedance-gpu\nruntime: python\n")
    (tmp_path / "__main__.py").write_text("")  # the project's program (not run here)
    (tmp_path / "Pulumi.s1.yaml").write_text("config:\n  seedance:policy: policy.yaml\n")
    (tmp_path / "policy.yaml").write_text(f"apiVersion: seedance.io/v1\nkind: CostPolicy\nextends: {POLICY}\ncompliance:\n"
                                          f"  frameworks: [mlps-l3]\ncloud:\n  subnetIds: [{n['on-main']}, {n['private']}]\n")
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
        policies["mlps-l3-8-1-2-1c"].validate(asg, lambda message, urn=None: out.append(message))
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
