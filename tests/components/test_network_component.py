"""CostAwareNetwork inputs per example stack."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from seedance.synth.project import synthesize_stack

STACKS_DIR = Path(__file__).resolve().parents[2] / "stacks"

EP = "aws:ec2/vpcEndpoint:VpcEndpoint"


def endpoints(s):
    return {r.name: r.inputs for r in s.of_type(EP)}


def test_gateway_endpoints_always(stack):
    eps = endpoints(stack)
    region = stack.policy.cloud.region
    for svc in ("s3", "dynamodb"):
        gw = eps[f"network-{svc}-gateway"]
        assert gw["vpcEndpointType"] == "Gateway"
        assert gw["serviceName"] == f"com.amazonaws.{region}.{svc}"
        assert gw["vpcId"] == stack.policy.cloud.vpc_id


def test_eu_interface_endpoints_for_ecr_dkr_and_logs(eu):
    # eu-central-1, 3 AZs and 2 NAT gateways, so a third of the NAT traffic crosses zones (0.01 USD/GB
    # out and in): break-even 0.012 x 730 x 3 / (0.052 + 2 x 0.01 / 3 - 0.01) = 540.0 GB/month;
    # declared: ecr.dkr 1500, logs 600 (above), ecr.api 5, kms 2, sts 1 (below)
    eps = endpoints(eu)
    interfaces = {n: i for n, i in eps.items() if i["vpcEndpointType"] == "Interface"}
    assert set(interfaces) == {"network-ecr-dkr-interface", "network-logs-interface"}
    dkr = interfaces["network-ecr-dkr-interface"]
    assert dkr["serviceName"] == "com.amazonaws.eu-central-1.ecr.dkr"
    assert dkr["privateDnsEnabled"] is True
    assert dkr["subnetIds"] == list(eu.policy.cloud.subnet_ids)
    assert dkr["tags"]["seedance:break-even-gb"] == "540.0"
    policy = json.loads(dkr["policy"])
    assert policy["Statement"][0]["Condition"] == {"StringEquals": {"aws:PrincipalAccount": "111122223333"}}
    sg = eu.one("network-endpoints-sg").inputs
    assert [(r["protocol"], r["fromPort"], r["toPort"], r["cidrBlocks"]) for r in sg["ingress"]] == [("tcp", 443, 443, ["10.20.0.0/16"])]
    assert sg["egress"] == []
    assert len(dkr["securityGroupIds"]) == 1 and dkr["securityGroupIds"][0].startswith("sg-")
    assert "break-even 540.0 GB/month" in eu.outputs["endpointRationale"]["logs"]
    assert "(0.052 + 0.00667 cross-zone - 0.01) USD/GB" in eu.outputs["endpointRationale"]["logs"]


def test_dev_stays_on_nat(dev):
    # dev: 2 AZs, 1 NAT gateway: 0.01 x 730 x 2 / (0.045 + 2 x 0.01 / 2 - 0.01) = 324.4 GB; its largest
    # declared flow is ecr.dkr 200 GB
    assert all(i["vpcEndpointType"] == "Gateway" for i in endpoints(dev).values())
    assert not [r for r in dev.doc.resources if r.name == "network-endpoints-sg"]
    assert "break-even 324.4 GB/month" in dev.outputs["endpointRationale"]["ecr.dkr"]


def test_cn_gets_the_listed_endpoints_whatever_the_price(cn):
    # cn-prod lists its endpoints (MLPS 8.1.3.1a); China endpoint prices are not in the data
    interfaces = {n for n, i in endpoints(cn).items() if i["vpcEndpointType"] == "Interface"}
    assert interfaces == {f"network-{s}-interface" for s in ("kms", "logs", "ecr-api", "ecr-dkr", "sts")}
    assert cn.one("network-endpoints-sg").inputs["ingress"][0]["cidrBlocks"] == ["10.30.0.0/16"]
    # in the China regions ECR, STS, EKS, CloudWatch, EC2 and Auto Scaling take the cn. prefix; logs and kms do not
    names = {n: i["serviceName"] for n, i in endpoints(cn).items()}
    assert names["network-sts-interface"] == "cn.com.amazonaws.cn-north-1.sts"
    assert names["network-ecr-api-interface"] == "cn.com.amazonaws.cn-north-1.ecr.api"
    assert names["network-logs-interface"] == "com.amazonaws.cn-north-1.logs"
    assert names["network-kms-interface"] == "com.amazonaws.cn-north-1.kms"


@pytest.mark.parametrize(("service", "region", "name"), [
    ("eks", "cn-northwest-1", "cn.com.amazonaws.cn-northwest-1.eks"),
    ("monitoring", "cn-north-1", "cn.com.amazonaws.cn-north-1.monitoring"),
    ("ssm", "cn-north-1", "com.amazonaws.cn-north-1.ssm"),
    ("sts", "eu-central-1", "com.amazonaws.eu-central-1.sts"),
    # EC2 and Auto Scaling take the cn. prefix in both China regions, Elastic Load Balancing does not
    ("ec2", "eu-central-1", "com.amazonaws.eu-central-1.ec2"),
    ("ec2", "cn-north-1", "cn.com.amazonaws.cn-north-1.ec2"),
    ("ec2", "cn-northwest-1", "cn.com.amazonaws.cn-northwest-1.ec2"),
    ("autoscaling", "us-east-1", "com.amazonaws.us-east-1.autoscaling"),
    ("autoscaling", "cn-northwest-1", "cn.com.amazonaws.cn-northwest-1.autoscaling"),
    ("elasticloadbalancing", "cn-north-1", "com.amazonaws.cn-north-1.elasticloadbalancing"),
])
def test_service_names(service: str, region: str, name: str) -> None:
    from components.network import service_name
    from seedance.policy.model import EndpointService

    assert service_name(EndpointService(service), region) == name


def test_endpoint_policies_let_nodes_pull_images_and_service_accounts_assume_roles(eu, cn):
    # S3: ECR serves image layers from an AWS-owned bucket through a presigned URL of an ECR account,
    # which the account condition would refuse; STS: web-identity calls are signed by a token
    for stack, part, region in ((eu, "aws", "eu-central-1"), (cn, "aws-cn", "cn-north-1")):
        s3 = json.loads(endpoints(stack)["network-s3-gateway"]["policy"])["Statement"]
        assert s3[0]["Sid"] == "AccountPrincipalsOnly"
        assert s3[1] == {"Sid": "EcrImageLayers", "Effect": "Allow", "Principal": "*", "Action": "s3:GetObject",
                         "Resource": f"arn:{part}:s3:::prod-{region}-starport-layer-bucket/*"}
        dynamo = json.loads(endpoints(stack)["network-dynamodb-gateway"]["policy"])["Statement"]
        assert [st["Sid"] for st in dynamo] == ["AccountPrincipalsOnly"]
    sts = json.loads(endpoints(cn)["network-sts-interface"]["policy"])["Statement"]
    assert [(st["Sid"], st["Action"]) for st in sts] == [("AccountPrincipalsOnly", "*"),
                                                         ("ServiceAccountRoles", "sts:AssumeRoleWithWebIdentity")]


def test_gateway_endpoints_attach_to_the_vpcs_route_tables_by_default(stack):
    # no seedance:routeTableIds in the example stacks: the component asks for the VPC's route
    # tables (aws.ec2.getRouteTables, answered offline by the synth runtime) so the free
    # endpoints actually carry the S3 / DynamoDB traffic instead of the NAT gateways
    eps = endpoints(stack)
    tables = [eps[f"network-{svc}-gateway"]["routeTableIds"] for svc in ("s3", "dynamodb")]
    assert tables[0] == tables[1]
    assert len(tables[0]) == 1 and tables[0][0].startswith("rtb-")


def _with_route_tables(tmp_path, value: str):
    project = tmp_path / "stacks"
    shutil.copytree(STACKS_DIR, project, ignore=shutil.ignore_patterns("__pycache__"))
    cfg = project / "Pulumi.dev.yaml"
    cfg.write_text(cfg.read_text() + f"  seedance:routeTableIds: {value}\n")
    return {r.name: r.inputs for r in synthesize_stack("dev", project).document.of_type(EP)}


def test_route_tables_from_config_are_used_as_given(tmp_path):
    eps = _with_route_tables(tmp_path, "[rtb-0a1b2c3d, rtb-4e5f6a7b]")
    for svc in ("s3", "dynamodb"):
        assert eps[f"network-{svc}-gateway"]["routeTableIds"] == ["rtb-0a1b2c3d", "rtb-4e5f6a7b"]


def test_an_empty_route_table_list_attaches_nothing(tmp_path):
    eps = _with_route_tables(tmp_path, "[]")
    assert eps["network-s3-gateway"].get("routeTableIds", []) == []


@pytest.mark.parametrize("value", ["abc", 5, ["rtb-1", 7], [""]])
def test_route_table_ids_must_be_a_list_under_pulumi_up_too(value) -> None:  # type: ignore[no-untyped-def]
    # `pulumi up` runs the program without synth's config check: a JSON string must not become
    # ['a', 'b', 'c'] route tables
    from components.common import ComponentArgsError
    from components.stack import _route_table_ids

    class Config:
        def get_object(self, key: str) -> object:
            assert key == "routeTableIds"
            return value

    with pytest.raises(ComponentArgsError, match="seedance:routeTableIds: expected a list of route table ids"):
        _route_table_ids(Config())  # type: ignore[arg-type]


# --- interface endpoints: one subnet per availability zone -------------------------------------
# AWS refuses an interface endpoint two subnets of one zone (DuplicateSubnetsInSameZone), which
# offline synthesis cannot see; the component asks EC2 for the zones (aws.ec2.getSubnets,
# aws.ec2.getSubnet) and the mock runtime answers, from subnet_zones where a test gives them.

EU_SUBNETS = ("subnet-0a1b2c3d4e5f60001", "subnet-0a1b2c3d4e5f60002", "subnet-0a1b2c3d4e5f60003")
CN_SUBNETS = ("subnet-0c1b2c3d4e5f60001", "subnet-0c1b2c3d4e5f60002")


@pytest.mark.parametrize(("subnets", "zones", "listed", "chosen"), [
    # public and private subnets per zone: the first of each zone, in the policy's order
    (["pub-a", "pub-b", "priv-a", "priv-b"], {"pub-a": "z-a", "priv-a": "z-a", "pub-b": "z-b", "priv-b": "z-b"},
     {"pub-a", "pub-b", "priv-a", "priv-b"}, ["pub-a", "pub-b"]),
    # two private subnets per zone, grouped by zone
    (["a1", "a2", "b1", "b2"], {"a1": "z-a", "a2": "z-a", "b1": "z-b", "b2": "z-b"}, {"a1", "a2", "b1", "b2"}, ["a1", "b1"]),
    # a subnet outside the policy's zones is left out; the next one of the zone stands in
    (["x", "a1", "a2"], {"x": "z-x", "a1": "z-a", "a2": "z-a"}, {"a1", "a2"}, ["a1"]),
    (["a2", "a1", "b"], {"a1": "z-a", "a2": "z-a", "b": "z-b"}, {"a1", "a2", "b"}, ["a2", "b"]),
    # each in its own zone: all of them, as given
    (["s1", "s2", "s3"], {"s1": "z-1", "s2": "z-2", "s3": "z-3"}, {"s1", "s2", "s3"}, ["s1", "s2", "s3"]),
])
def test_endpoint_subnets_one_per_listed_zone(subnets, zones, listed, chosen) -> None:  # type: ignore[no-untyped-def]
    from components.network import endpoint_subnets

    assert endpoint_subnets(subnets, listed, zones) == chosen


def test_endpoint_subnets_refuse_when_no_subnet_is_in_a_listed_zone() -> None:
    from components.common import ComponentArgsError
    from components.network import endpoint_subnets

    with pytest.raises(ComponentArgsError, match=r"none of the subnets s1, s2 \(cloud.subnetIds\) is in an availability zone"):
        endpoint_subnets(["s1", "s2"], set(), {"s1": "z-x", "s2": "z-y"})


def _listing(tmp_path: Path, stack: str, listed: list[str]) -> Path:
    """A copy of the example project whose ``stack`` lists the zones ``listed`` (cloud.availabilityZones):
    the gold fleets' capacity reservations go in the listed zones, each of which must hold one of the
    subnets (components.fleet.reservation_zone)."""
    project = tmp_path / "stacks"
    shutil.copytree(STACKS_DIR, project, ignore=shutil.ignore_patterns("__pycache__"))
    policy = project / "policies" / f"{stack}.yaml"
    text = policy.read_text()
    line = next(ln for ln in text.splitlines() if ln.strip().startswith("availabilityZones:"))
    policy.write_text(text.replace(line, f"{line.split(':')[0]}: [{', '.join(listed)}]", 1))
    return project


def _interfaces(stack: str, zones: dict[str, str], project: Path = STACKS_DIR) -> dict[str, list[str]]:
    doc = synthesize_stack(stack, project, subnet_zones=zones).document
    return {r.name: r.inputs["subnetIds"] for r in doc.of_type(EP) if r.inputs["vpcEndpointType"] == "Interface"}


def test_two_subnets_in_one_zone_give_the_endpoint_one_of_them(tmp_path: Path) -> None:
    s1, s2, s3 = EU_SUBNETS
    project = _listing(tmp_path, "eu-prod", ["eu-central-1a", "eu-central-1b"])
    zones = {s1: "eu-central-1a", s2: "eu-central-1a", s3: "eu-central-1b"}
    assert _interfaces("eu-prod", zones, project) == {"network-ecr-dkr-interface": [s1, s3], "network-logs-interface": [s1, s3]}
    # the same answer in the other order: still the policy's first subnet of each zone
    assert _interfaces("eu-prod", {s1: "eu-central-1b", s2: "eu-central-1a", s3: "eu-central-1a"}, project) == {
        "network-ecr-dkr-interface": [s1, s2], "network-logs-interface": [s1, s2]}


def test_every_interface_endpoint_of_a_stack_takes_the_same_subnets_and_groups_keep_them_all(tmp_path: Path) -> None:
    s1, s2 = CN_SUBNETS
    project = _listing(tmp_path, "cn-prod", ["cn-north-1a"])
    doc = synthesize_stack("cn-prod", project, subnet_zones={s1: "cn-north-1a", s2: "cn-north-1a"}).document
    interfaces = [r for r in doc.of_type(EP) if r.inputs["vpcEndpointType"] == "Interface"]
    assert len(interfaces) == 5 and all(r.inputs["subnetIds"] == [s1] for r in interfaces)
    # an autoscaling group may have several subnets of a zone: its subnets are the policy's
    groups = doc.of_type("aws:autoscaling/group:Group")
    assert groups and all(g.inputs["vpcZoneIdentifiers"] == [s1, s2] for g in groups)


def test_a_subnet_outside_the_policys_zones_gets_no_endpoint_interface(tmp_path: Path) -> None:
    s1, s2 = CN_SUBNETS
    # the stack lists cn-north-1b only; cn-north-1d is not the stack's
    project = _listing(tmp_path, "cn-prod", ["cn-north-1b"])
    assert set(map(tuple, _interfaces("cn-prod", {s1: "cn-north-1d", s2: "cn-north-1b"}, project).values())) == {(s2,)}


def test_offline_each_given_subnet_is_a_listed_zone_of_its_own(stack) -> None:  # type: ignore[no-untyped-def]
    # without subnet_zones the mock runtime answers as the gate counts given subnets without
    # --lookup: each in a zone of its own, one the policy lists, so every given subnet is kept
    # (the example stacks' documents are unchanged)
    for name, inputs in endpoints(stack).items():
        if inputs["vpcEndpointType"] == "Interface":
            assert inputs["subnetIds"] == list(stack.policy.cloud.subnet_ids), name


def test_fewer_subnets_than_zones_price_and_decide_on_the_zones_the_endpoint_is_in(tmp_path) -> None:  # type: ignore[no-untyped-def]
    # eu-prod given two subnets for its three zones: an interface endpoint is in two zones at most, and
    # the nodes too, each with one of the 2 NAT gateways (nothing crosses zones), so the break-even is
    # 0.012 x 730 x 2 / (0.052 - 0.01) = 417.1 GB/month
    from seedance.estimate import estimate_policy
    from seedance.policy import load_policy
    from seedance.pricing.catalog import load_catalog

    project = tmp_path / "stacks"
    shutil.copytree(STACKS_DIR, project, ignore=shutil.ignore_patterns("__pycache__"))
    policy = project / "policies" / "eu-prod.yaml"
    policy.write_text(policy.read_text().replace(f", {EU_SUBNETS[2]}]", "]"))
    eps = {r.name: r.inputs for r in synthesize_stack("eu-prod", project).document.of_type(EP)}
    interfaces = {n: i for n, i in eps.items() if i["vpcEndpointType"] == "Interface"}
    assert set(interfaces) == {"network-ecr-dkr-interface", "network-logs-interface"}
    assert all(i["subnetIds"] == list(EU_SUBNETS[:2]) for i in interfaces.values())
    assert {i["tags"]["seedance:break-even-gb"] for i in interfaces.values()} == {"417.1"}
    est = estimate_policy(load_policy(policy), load_catalog())
    hours = {c.name: c.monthly_quantity for r in est.resources if r.kind == "network" for c in r.components
             if c.name.startswith("Interface endpoint (")}
    assert hours == {"Interface endpoint (ecr.dkr)": 2 * 730, "Interface endpoint (logs)": 2 * 730}


# --- endpoints the VPC already has (network.existingEndpoints) ---------------------------------
# AWS refuses a second private-DNS interface endpoint for a service in one VPC (a second stack in
# the VPC, a landing zone's endpoints), and a route table holds one gateway endpoint per service.

def _with_existing(tmp_path, stack: str, network: str):  # type: ignore[no-untyped-def]
    project = tmp_path / "stacks"
    shutil.copytree(STACKS_DIR, project, ignore=shutil.ignore_patterns("__pycache__"))
    policy = project / "policies" / f"{stack}.yaml"
    text = policy.read_text()
    if "\nnetwork:\n" in text:  # cn-prod: replace its network section's endpoints line
        text = "\n".join(ln for ln in text.splitlines() if not ln.startswith("  endpoints:")) + "\n"
        text = text.replace("\nnetwork:\n", f"\nnetwork:\n{network}", 1)
    else:
        text += f"network:\n{network}"
    policy.write_text(text)
    return synthesize_stack(stack, project)


def test_no_endpoint_for_a_service_the_vpc_already_has(tmp_path) -> None:  # type: ignore[no-untyped-def]
    # eu-prod would create ecr.dkr and logs interface endpoints (above break-even) and the s3 gateway
    result = _with_existing(tmp_path, "eu-prod", "  existingEndpoints: [ecr.dkr, logs, s3]\n")
    eps = {r.name: r.inputs for r in result.document.of_type(EP)}
    assert set(eps) == {"network-dynamodb-gateway"}
    # no interface endpoint left: no endpoint security group either
    assert not [r for r in result.document.resources if r.name == "network-endpoints-sg"]
    rationale = result.outputs["endpointRationale"]
    assert "the VPC's existing endpoint is used" in rationale["ecr.dkr"]
    assert "the VPC's existing endpoint is used" in rationale["s3"]
    assert result.outputs["interfaceEndpoints"] == {}


def test_explicit_list_beside_existing_endpoints(tmp_path) -> None:  # type: ignore[no-untyped-def]
    # a second MLPS stack in cn-prod's VPC: the first stack's kms, logs and sts endpoints are used,
    # its own list keeps the rest
    result = _with_existing(tmp_path, "cn-prod", "  endpoints: [s3, dynamodb, ecr.api, ecr.dkr]\n"
                                                 "  existingEndpoints: [kms, logs, sts]\n")
    eps = {r.name: r.inputs for r in result.document.of_type(EP)}
    assert set(eps) == {"network-s3-gateway", "network-dynamodb-gateway", "network-ecr-api-interface",
                        "network-ecr-dkr-interface"}
    assert all(not n.startswith(("network-kms", "network-logs", "network-sts")) for n in eps)
    assert [r.name for r in result.document.resources if r.name == "network-endpoints-sg"] == ["network-endpoints-sg"]
    assert set(result.outputs["endpointRationale"]) >= {"kms", "logs", "sts"}


def test_without_nat_the_nodes_get_an_ec2_endpoint_in_either_partition(tmp_path) -> None:  # type: ignore[no-untyped-def]
    # every node's VPC CNI plugin calls EC2: with no NAT gateway, 'auto' (eu-prod) creates its interface
    # endpoint, and cn-prod's explicit list names it; in the China regions its name takes the cn. prefix
    eu = _with_existing(tmp_path / "eu", "eu-prod", "  natGateways: 0\n")
    cn = _with_existing(tmp_path / "cn", "cn-prod", "  endpoints: [s3, dynamodb, kms, logs, ecr.api, ecr.dkr, sts, ec2]\n"
                                                   "  natGateways: 0\n")
    for result, name in ((eu, "com.amazonaws.eu-central-1.ec2"), (cn, "cn.com.amazonaws.cn-north-1.ec2")):
        eps = {r.name: r.inputs for r in result.document.of_type(EP)}
        ec2 = eps["network-ec2-interface"]
        assert (ec2["serviceName"], ec2["vpcEndpointType"], ec2["privateDnsEnabled"]) == (name, "Interface", True)
        assert ec2["securityGroupIds"] == eps["network-ecr-api-interface"]["securityGroupIds"]
        assert json.loads(ec2["policy"])["Statement"][0]["Sid"] == "AccountPrincipalsOnly"
        assert "network-autoscaling-interface" not in eps  # the stack runs no Cluster Autoscaler
    assert "every node reaches it" in eu.outputs["endpointRationale"]["ec2"]
    assert "listed in network.endpoints" in cn.outputs["endpointRationale"]["ec2"]
