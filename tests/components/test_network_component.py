"""CostAwareNetwork inputs per example stack."""

from __future__ import annotations

import json

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
