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


def test_eu_interface_endpoint_only_for_ecr_dkr(eu):
    # eu-central-1, 3 AZs: break-even 0.012 x 730 x 3 / (0.052 - 0.01) = 625.7 GB/month;
    # declared: ecr.dkr 1500 (above), logs 600, ecr.api 5, kms 2, sts 1 (below)
    eps = endpoints(eu)
    interfaces = {n: i for n, i in eps.items() if i["vpcEndpointType"] == "Interface"}
    assert set(interfaces) == {"network-ecr-dkr-interface"}
    dkr = interfaces["network-ecr-dkr-interface"]
    assert dkr["serviceName"] == "com.amazonaws.eu-central-1.ecr.dkr"
    assert dkr["privateDnsEnabled"] is True
    assert dkr["subnetIds"] == list(eu.policy.cloud.subnet_ids)
    assert dkr["tags"]["seedance:break-even-gb"] == "625.7"
    policy = json.loads(dkr["policy"])
    assert policy["Statement"][0]["Condition"] == {"StringEquals": {"aws:PrincipalAccount": "111122223333"}}
    sg = eu.one("network-endpoints-sg").inputs
    assert [(r["protocol"], r["fromPort"], r["toPort"], r["cidrBlocks"]) for r in sg["ingress"]] == [("tcp", 443, 443, ["10.20.0.0/16"])]
    assert sg["egress"] == []
    assert len(dkr["securityGroupIds"]) == 1 and dkr["securityGroupIds"][0].startswith("sg-")
    assert "break-even 625.7 GB/month" in eu.outputs["endpointRationale"]["logs"]


def test_dev_stays_on_nat(dev):
    # dev: 0.01 x 730 x 2 / (0.045 - 0.01) = 417.1 GB; its largest declared flow is ecr.dkr 200 GB
    assert all(i["vpcEndpointType"] == "Gateway" for i in endpoints(dev).values())
    assert not [r for r in dev.doc.resources if r.name == "network-endpoints-sg"]
    assert "break-even 417.1 GB/month" in dev.outputs["endpointRationale"]["ecr.dkr"]


def test_cn_gets_the_listed_endpoints_whatever_the_price(cn):
    # cn-prod lists its endpoints (MLPS 8.1.3.1a); China endpoint prices are not in the data
    interfaces = {n for n, i in endpoints(cn).items() if i["vpcEndpointType"] == "Interface"}
    assert interfaces == {f"network-{s}-interface" for s in ("kms", "logs", "ecr-api", "ecr-dkr", "sts")}
    assert cn.one("network-endpoints-sg").inputs["ingress"][0]["cidrBlocks"] == ["10.30.0.0/16"]
    # in the China regions ECR, STS, EKS and CloudWatch take the cn. prefix; logs and kms do not
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
