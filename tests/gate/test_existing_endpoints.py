"""Endpoints the VPC already has (network.existingEndpoints): present on the policy's word, and every
report says they were not checked."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from seedance.cli import main
from seedance.gate.decision import Given
from seedance.gate.facts import existing_endpoint_services

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "tests" / "synth" / "samples" / "eu-prod.json"  # eu-prod synthesised: no kms or logs endpoint
POLICY = REPO / "stacks" / "policies" / "eu-prod.yaml"
NOT_CHECKED = ("the VPC endpoints for kms, logs that the policy says vpc-0e1a2b3c4d5e6f701 already has "
               "(network.existingEndpoints), counted as present on the policy's word")


def _check(capsys, tmp_path: Path, fmt: str, existing: str | None) -> tuple[int, str]:  # noqa: ANN001
    policy = tmp_path / "policy.yaml"
    policy.write_text(f"apiVersion: seedance.io/v1\nkind: CostPolicy\nextends: {POLICY}\n"
                      + (f"network:\n  existingEndpoints: {existing}\n" if existing else ""))
    code = main(["check", str(SAMPLE), "--policy", str(policy), "--format", fmt])
    return code, capsys.readouterr().out


def _no_endpoint(report: dict) -> set[str]:
    return {f["message"] for f in report["findings"] if f["controlId"] == "GDPR-44-2" and f["message"].startswith("no VPC endpoint")}


def test_existing_endpoints_count_as_present_and_are_reported_unchecked(capsys, tmp_path: Path) -> None:  # noqa: ANN001
    _, out = _check(capsys, tmp_path, "json", None)
    before = json.loads(out)
    # logs (600 GB a month) takes the stack's interface endpoint; kms (2 GB) stays on NAT
    assert _no_endpoint(before) == {"no VPC endpoint for kms: its traffic leaves through NAT"}
    assert "existingEndpoints" not in before["given"]
    code, out = _check(capsys, tmp_path, "json", "[kms, logs]")
    report = json.loads(out)
    assert _no_endpoint(report) == set()
    assert report["given"]["existingEndpoints"] == {"services": ["kms", "logs"], "vpc": "vpc-0e1a2b3c4d5e6f701",
                                                    "checked": False}
    # the other findings are the same, but for the budget share: kms's traffic is no longer NAT
    # processing the stack pays, nor logs' its interface endpoint
    def others(r: dict) -> list[tuple[str, str]]:
        return [(f["controlId"], f["message"]) for f in r["findings"]
                if f["message"] not in _no_endpoint(before) and not f["controlId"].startswith("BUDGET-COST")]

    assert others(report) == others(before)
    share = [float(re.search(r"is ([0-9.]+)% of the budget", f["message"])[1])  # type: ignore[index]
             for r in (before, report) for f in r["findings"] if f["controlId"] == "BUDGET-COST-2"]
    assert len(share) == 2 and share[1] < share[0]
    assert code == 0


@pytest.mark.parametrize("fmt", ["text", "markdown", "pr-comment"])
def test_every_report_says_the_existing_endpoints_were_not_checked(capsys, tmp_path: Path, fmt: str) -> None:  # noqa: ANN001
    _, out = _check(capsys, tmp_path, fmt, "[logs, kms]")
    text = " ".join(out.split())
    assert "not checked" in text.lower() and NOT_CHECKED in text
    assert "no VPC endpoint for kms" not in text
    _, out = _check(capsys, tmp_path, fmt, None)
    assert "network.existingEndpoints)" not in " ".join(out.split())


def test_sarif_carries_them_in_the_runs_given(capsys, tmp_path: Path) -> None:  # noqa: ANN001
    _, out = _check(capsys, tmp_path, "sarif", "[kms]")
    given = json.loads(out)["runs"][0]["properties"]["given"]
    assert given["existingEndpoints"]["services"] == ["kms"] and given["existingEndpoints"]["checked"] is False


def test_one_existing_endpoint_reads_in_the_singular() -> None:
    g = Given([], [], False, endpoints=["kms"], vpc="vpc-1")
    assert g.unseen() == ("the VPC endpoint for kms that the policy says vpc-1 already has (network.existingEndpoints), "
                          "counted as present on the policy's word: whether it exists and is available, has private DNS "
                          "(interface) or is on the stack's route tables (gateway), and what its endpoint policy allows, "
                          "Seedance did not read (`seedance check --lookup` reads it from EC2)")
    assert g.not_checked() == "" and g.summary() == ""  # reported among what was not read, on its own line


@pytest.mark.parametrize(("policy", "services"), [
    ({"network": {"existingEndpoints": ["logs", "kms", "kms"]}}, ["kms", "logs"]),
    ({"network": {"existingEndpoints": "kms"}}, []),  # a hand-written gate input of another shape
    ({"network": None}, []),
    ({}, []),
])
def test_existing_endpoint_services(policy: dict, services: list[str]) -> None:
    assert existing_endpoint_services(policy) == services


# ---------------------------------------------------------------- with --lookup (and --facts): the
# VPC's endpoints read from EC2 (DescribeVpcEndpoints, a moto server over HTTP)

REGION = "eu-central-1"
SAMPLE_SUBNETS = ("subnet-0a1b2c3d4e5f60001", "subnet-0a1b2c3d4e5f60002", "subnet-0a1b2c3d4e5f60003")
SAMPLE_VPC = "vpc-0e1a2b3c4d5e6f701"
ACCOUNT_ONLY = json.dumps({"Statement": [{"Effect": "Allow", "Principal": "*", "Action": "*", "Resource": "*",
                                          "Condition": {"StringEquals": {"aws:PrincipalAccount": "111122223333"}}}]})


@pytest.fixture
def ec2(moto_endpoint: str, aws_env, monkeypatch: pytest.MonkeyPatch):  # noqa: ANN001, ANN201
    import boto3

    monkeypatch.setenv("AWS_ENDPOINT_URL_EC2", moto_endpoint)
    return boto3.client("ec2", region_name=REGION, endpoint_url=moto_endpoint)


def _vpc(ec2) -> tuple[str, str]:  # noqa: ANN001
    """A VPC with one private subnet (no endpoint yet)."""
    vpc = ec2.create_vpc(CidrBlock="10.20.0.0/16")["Vpc"]["VpcId"]
    subnet = ec2.create_subnet(VpcId=vpc, CidrBlock="10.20.1.0/24", AvailabilityZone=f"{REGION}a")["Subnet"]["SubnetId"]
    return vpc, subnet


def _endpoint(ec2, vpc: str, subnet: str, service: str, *, private_dns: bool = True, policy: str | None = ACCOUNT_ONLY) -> str:  # noqa: ANN001
    return ec2.create_vpc_endpoint(VpcId=vpc, ServiceName=f"com.amazonaws.{REGION}.{service}", VpcEndpointType="Interface",
                                   SubnetIds=[subnet], PrivateDnsEnabled=private_dns,
                                   **({"PolicyDocument": policy} if policy else {}))["VpcEndpoint"]["VpcEndpointId"]


def _case(tmp_path: Path, vpc: str, subnet: str, existing: str, extra_yaml: str = "") -> tuple[Path, Path]:
    """eu-prod's sample moved into the moto VPC and subnet, and a policy naming EXISTING as the VPC's
    (the sample's own interface endpoints for them left out, as the stack would create none)."""
    text = SAMPLE.read_text().replace(SAMPLE_VPC, vpc)
    for old in SAMPLE_SUBNETS:
        text = text.replace(old, subnet)
    doc = json.loads(text)
    names = {f"network-{s.strip().replace('.', '-')}-interface" for s in existing.strip("[]").split(",")}
    doc["resources"] = [r for r in doc["resources"] if r["name"] not in names and not _idle_reservation(r, {f"{REGION}a"})]
    (tmp_path / "sample.json").write_text(json.dumps(doc))
    policy = tmp_path / "policy.yaml"
    policy.write_text(f"apiVersion: seedance.io/v1\nkind: CostPolicy\nextends: {POLICY}\ncloud:\n  vpcId: {vpc}\n"
                      f"  subnetIds: [{subnet}]\nnetwork:\n  existingEndpoints: {existing}\n{extra_yaml}")
    return tmp_path / "sample.json", policy


def _idle_reservation(r: dict, zones: set[str]) -> bool:
    """A capacity reservation of the sample outside ``zones``, those of the moto subnets the sample is moved
    into: the program would refuse it (BUDGET-FLEET-1 reports it with --lookup), so it is left out."""
    return r["type"] == "aws:ec2/capacityReservation:CapacityReservation" and r["inputs"]["availabilityZone"] not in zones


def _check_in(capsys, tmp_path: Path, vpc: str, subnet: str, *extra: str, fmt: str = "json") -> tuple[int, str, str]:  # noqa: ANN001
    """The sample in the moto VPC, its policy naming kms and logs as the VPC's."""
    sample, policy = _case(tmp_path, vpc, subnet, "[kms, logs]")
    code = main(["check", str(sample), "--policy", str(policy), "--format", fmt, *extra])
    out, err = capsys.readouterr()
    return code, out, err


def _endpoint_findings(report: dict) -> set[tuple[str, str]]:
    return {(f["controlId"], f["message"]) for f in report["findings"]
            if "VPC endpoint" in f["message"] or "private DNS" in f["message"]}


def test_check_lookup_reads_the_existing_endpoints(ec2, capsys, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: ANN001
    """kms's endpoint is there, with private DNS and a policy of the account: no finding; logs' is not."""
    vpc, subnet = _vpc(ec2)
    _endpoint(ec2, vpc, subnet, "kms")
    other, other_subnet = _vpc(ec2)
    _endpoint(ec2, other, other_subnet, "logs")  # another VPC's: not counted
    _, out, _ = _check_in(capsys, tmp_path, vpc, subnet)
    assert _endpoint_findings(json.loads(out)) == set()  # offline: the policy's word
    saved = tmp_path / "facts.json"
    code, out, err = _check_in(capsys, tmp_path, vpc, subnet, "--lookup", "--save-facts", str(saved))
    report = json.loads(out)
    assert f"1 VPC endpoint(s) of {vpc} for kms, logs" in " ".join(err.split())
    logs_missing = ("GDPR-44-2", f"no VPC endpoint for logs: network.existingEndpoints names it, but DescribeVpcEndpoints "
                                 f"shows {vpc} has none that serves: its traffic leaves through NAT")
    assert _endpoint_findings(report) == {logs_missing}
    assert report["given"]["existingEndpoints"] == {
        "services": ["kms", "logs"], "vpc": vpc, "checked": True,
        "pricedThroughNat": {"logs": f"{vpc} has no endpoint for it that serves (none at all)"}}
    assert code == 0  # GDPR-44-2 is advisory
    # the recorded facts serve a run that cannot reach EC2, with the same findings
    recorded = json.loads(saved.read_text())["vpc_endpoints"]
    assert recorded["vpc_id"] == vpc and recorded["services"]["logs"] == []
    assert [(e["type"], e["state"], e["private_dns_enabled"]) for e in recorded["services"]["kms"]] == [("Interface", "available", True)]
    monkeypatch.setenv("AWS_ENDPOINT_URL_EC2", "http://127.0.0.1:9")
    code2, out, _ = _check_in(capsys, tmp_path, vpc, subnet, "--facts", str(saved))
    assert (code2, _endpoint_findings(json.loads(out))) == (code, {logs_missing})
    # the text report no longer lists them as not checked, and says they were read
    _, out, _ = _check_in(capsys, tmp_path, vpc, subnet, "--facts", str(saved), fmt="text")
    text = " ".join(out.split())
    assert "counted as present on the policy's word" not in text
    assert f"the endpoints of {vpc} for kms, logs (network.existingEndpoints)" in text
    assert "no VPC endpoint for logs: network.existingEndpoints names it" in text


def test_check_lookup_judges_the_existing_endpoints_private_dns_and_policy(ec2, capsys, tmp_path: Path) -> None:  # noqa: ANN001
    vpc, subnet = _vpc(ec2)
    kms = _endpoint(ec2, vpc, subnet, "kms", private_dns=False, policy=None)  # EC2's default policy: full access
    logs = _endpoint(ec2, vpc, subnet, "logs")
    code, out, _ = _check_in(capsys, tmp_path, vpc, subnet, "--lookup", "--framework", "mlps-l3")
    report = json.loads(out)
    mine = {(c, m) for c, m in _endpoint_findings(report) if kms in m or logs in m or "for kms" in m or "for logs" in m}
    assert mine == {
        ("GDPR-44-2", f"no VPC endpoint for kms: network.existingEndpoints names it, but DescribeVpcEndpoints shows {vpc} "
                      f"has none that serves ({kms} has private DNS off): its traffic leaves through NAT"),
        ("MLPS-L3-8.1.3.1a", f"no VPC endpoint for kms: network.existingEndpoints names it, but DescribeVpcEndpoints shows "
                             f"{vpc} has none that serves ({kms} has private DNS off): its traffic crosses the internet "
                             "boundary through NAT"),
        ("GDPR-44-2", f"VPC endpoint {kms} for kms (network.existingEndpoints, read from EC2) has no policy restricting it "
                      "to the organisation or account"),
        ("MLPS-L3-8.1.2.2", f"interface VPC endpoint {kms} for kms (network.existingEndpoints, read from EC2) has private "
                            "DNS off: clients still resolve the public endpoint"),
    }
    assert code == 1


def test_endpoint_facts_of_another_vpc_are_undecided(ec2, capsys, tmp_path: Path) -> None:  # noqa: ANN001
    """Facts read for another VPC (the policy's vpcId changed since): the gate cannot decide on them
    (red team: they passed on the policy's word, silently)."""
    vpc, subnet = _vpc(ec2)
    saved = tmp_path / "facts.json"
    _check_in(capsys, tmp_path, vpc, subnet, "--lookup", "--save-facts", str(saved))
    facts = json.loads(saved.read_text())
    facts["vpc_endpoints"]["vpc_id"] = "vpc-0fffffffffffffff0"
    saved.write_text(json.dumps(facts))
    code, out, _ = _check_in(capsys, tmp_path, vpc, subnet, "--facts", str(saved))
    assert code == 2
    assert "the VPC endpoints were read in vpc-0fffffffffffffff0" in json.loads(out)["errors"][0]


def test_facts_recorded_before_the_policy_listed_endpoints_are_reported_unchecked(ec2, capsys, tmp_path: Path) -> None:  # noqa: ANN001
    vpc, subnet = _vpc(ec2)
    saved = tmp_path / "facts.json"
    _check_in(capsys, tmp_path, vpc, subnet, "--lookup", "--save-facts", str(saved))
    facts = json.loads(saved.read_text())
    facts["vpc_endpoints"] = None
    saved.write_text(json.dumps(facts))
    _, out, _ = _check_in(capsys, tmp_path, vpc, subnet, "--facts", str(saved))
    report = json.loads(out)
    assert _endpoint_findings(report) == set()
    assert report["given"]["existingEndpoints"]["checked"] is False
    _, out, _ = _check_in(capsys, tmp_path, vpc, subnet, "--facts", str(saved), fmt="text")
    assert ("Seedance did not read (not in the facts read earlier: `seedance check --lookup` reads them from EC2)"
            in " ".join(out.split()))


@pytest.mark.parametrize("content", ["null", "[]"])
def test_facts_file_of_null_is_undecided(capsys, tmp_path: Path, content: str) -> None:  # noqa: ANN001
    """red team: a --facts file holding null passed offline as if there were no facts."""
    saved = tmp_path / "facts.json"
    saved.write_text(content)
    policy = tmp_path / "policy.yaml"
    policy.write_text(f"apiVersion: seedance.io/v1\nkind: CostPolicy\nextends: {POLICY}\n")
    code = main(["check", str(SAMPLE), "--policy", str(policy), "--format", "json", "--facts", str(saved)])
    assert code == 2
    assert json.loads(capsys.readouterr().out)["decision"] == "undecided"


def test_partly_read_endpoints_and_gateways_are_reported() -> None:
    g = Given([], [], True, "eu-central-1", endpoints=["kms", "logs", "s3"], vpc="vpc-1", checked_endpoints=["kms", "s3"],
              gateway_endpoints=["s3"])
    assert g.to_json()["existingEndpoints"] == {"services": ["kms", "logs", "s3"], "vpc": "vpc-1", "checked": False,
                                                "routeTablesNotMatched": ["s3"], "notChecked": ["logs"]}
    assert g.summary() == "the endpoints of vpc-1 for kms, s3 (network.existingEndpoints)"
    assert g.unseen().startswith("the VPC endpoint for logs that the policy says vpc-1 already has")
    assert g.unseen().endswith("whether the gateway endpoint for s3 that vpc-1 has (network.existingEndpoints, read from "
                               "EC2) is on the route tables of the stack's subnets: the facts hold no subnet of "
                               "cloud.subnetIds, so its route tables were read, not matched with the subnets' (a gateway "
                               "on any route table counts)")


def test_gateway_route_tables_matched_with_some_or_all_of_the_subnets_are_reported() -> None:
    """Facts holding some of cloud.subnetIds: the gateway was matched with those only, and the report
    names the others; holding them all: matched, read, and no longer among what was not checked."""
    partly = Given(["subnet-1"], [], True, "eu-central-1", endpoints=["s3"], vpc="vpc-1", checked_endpoints=["s3"],
                   gateway_endpoints=["s3"], unmatched_subnets=["subnet-2", "subnet-3"])
    assert partly.unseen() == ("whether the gateway endpoint for s3 that vpc-1 has (network.existingEndpoints, read from "
                               "EC2) is on the route tables of the stack's subnets subnet-2, subnet-3 (cloud.subnetIds): "
                               "the facts read earlier do not hold their route tables, so it was matched with the other "
                               "subnets' only (`seedance check --lookup` reads them)")
    matched = Given(["subnet-1", "subnet-2"], [], True, "eu-central-1", endpoints=["dynamodb", "s3"], vpc="vpc-1",
                    checked_endpoints=["dynamodb", "s3"], matched_gateways=["dynamodb", "s3"], matched_subnets=2)
    assert matched.unseen() == ""
    assert matched.summary() == ("the 2 subnets the stack is given and the endpoints of vpc-1 for dynamodb, s3 "
                                 "(network.existingEndpoints) and the route tables of its 2 subnets (cloud.subnetIds), "
                                 "matched with the gateway endpoints for dynamodb, s3")
    assert matched.to_json()["existingEndpoints"] == {"services": ["dynamodb", "s3"], "vpc": "vpc-1", "checked": True,
                                                      "routeTablesMatched": ["dynamodb", "s3"]}


# red team: the budget rules judged an estimate that took the policy's word for an endpoint EC2 shows
# is not there (no NAT processing priced); the stack's own endpoint was taken for the VPC's

def _budget_check(capsys, tmp_path: Path, vpc: str, subnet: str, existing: str, *extra: str, budget: int = 84000,
                  fmt: str = "json") -> tuple[int, str]:  # noqa: ANN001
    sample, policy = _case(tmp_path, vpc, subnet, existing, f"budget:\n  monthlyAmount: {budget}\n")
    code = main(["check", str(sample), "--policy", str(policy), "--format", fmt, *extra])
    return code, capsys.readouterr().out


def _budget_findings(report: dict) -> list[str]:
    return [f["message"] for f in report["findings"] if f["controlId"] == "BUDGET-COST-1"]


def test_existing_endpoint_ec2_lacks_is_priced_through_nat(ec2, capsys, tmp_path: Path) -> None:  # noqa: ANN001
    vpc, subnet = _vpc(ec2)
    code, out = _budget_check(capsys, tmp_path, vpc, subnet, "[s3]")
    assert _budget_findings(json.loads(out)) == []  # offline: the policy's word (98.99% of 84,000)
    code, out = _budget_check(capsys, tmp_path, vpc, subnet, "[s3]", "--lookup")
    report = json.loads(out)
    over = [m for m in _budget_findings(report) if m.startswith("projected monthly cost")]
    assert code == 1 and len(over) == 1
    cost = float(re.search(r"projected monthly cost ([0-9.]+) USD", over[0]).group(1))
    # the offline estimate (on the policy's word), read from the finding a budget of 1 USD gives
    _, low = _budget_check(capsys, tmp_path, vpc, subnet, "[s3]", budget=1)
    (offline,) = [m for m in _budget_findings(json.loads(low)) if m.startswith("projected monthly cost")]
    offline_cost = float(re.search(r"projected monthly cost ([0-9.]+) USD", offline).group(1))
    # plus the S3 traffic through NAT processing (40,000 GB x 0.052); one given subnet, so one zone:
    # none of it crosses zones
    assert cost - offline_cost == pytest.approx(40_000 * 0.052, abs=0.02)
    assert report["given"]["existingEndpoints"]["pricedThroughNat"] == {"s3": f"{vpc} has no endpoint for it that serves (none at all)"}
    for fmt in ("text", "markdown", "pr-comment"):
        _, out = _budget_check(capsys, tmp_path, vpc, subnet, "[s3]", "--lookup", fmt=fmt)
        assert "the estimate the budget rules judge prices that traffic through NAT" in " ".join(out.split()), fmt
    # an available S3 gateway on a route table that does not route the stack's subnet (it uses the
    # VPC's main table): its S3 traffic still goes through NAT
    table = ec2.create_route_table(VpcId=vpc)["RouteTable"]["RouteTableId"]
    gateway = ec2.create_vpc_endpoint(VpcId=vpc, ServiceName=f"com.amazonaws.{REGION}.s3", VpcEndpointType="Gateway",
                                      RouteTableIds=[table])["VpcEndpoint"]["VpcEndpointId"]
    code, out = _budget_check(capsys, tmp_path, vpc, subnet, "[s3]", "--lookup")
    assert code == 1 and len(_budget_findings(json.loads(out))) == 1
    assert f"{gateway} is a gateway not on the route table of the stack's subnet {subnet} (rtb-" in \
        json.loads(out)["given"]["existingEndpoints"]["pricedThroughNat"]["s3"]
    # on the subnet's own table it serves: the policy's figure holds
    ec2.associate_route_table(RouteTableId=table, SubnetId=subnet)
    code, out = _budget_check(capsys, tmp_path, vpc, subnet, "[s3]", "--lookup")
    assert _budget_findings(json.loads(out)) == []
    assert "pricedThroughNat" not in json.loads(out)["given"]["existingEndpoints"]


def test_every_listed_service_is_priced_from_the_facts(ec2, capsys, tmp_path: Path) -> None:  # noqa: ANN001
    """dynamodb and sts, which no rule requires, are verified too: priced through NAT and said so."""
    vpc, subnet = _vpc(ec2)
    _endpoint(ec2, vpc, subnet, "sts", private_dns=False)
    code, out = _budget_check(capsys, tmp_path, vpc, subnet, "[dynamodb, sts]", "--lookup", budget=1_000_000)
    given = json.loads(out)["given"]["existingEndpoints"]
    assert given["checked"] is True
    assert sorted(given["pricedThroughNat"]) == ["dynamodb", "sts"]
    assert "has private DNS off" in given["pricedThroughNat"]["sts"]


def test_check_lookup_matches_the_vpcs_ec2_endpoint(ec2, capsys, tmp_path: Path) -> None:  # noqa: ANN001
    """The EC2 endpoint every node's VPC CNI plugin needs without a NAT gateway, listed as the VPC's own:
    --lookup finds it by its service name; a second VPC's, without private DNS, serves nothing."""
    vpc, subnet = _vpc(ec2)
    found = _endpoint(ec2, vpc, subnet, "ec2")
    saved = tmp_path / "facts.json"
    _, out = _budget_check(capsys, tmp_path, vpc, subnet, "[ec2]", "--lookup", "--save-facts", str(saved), budget=1_000_000)
    assert json.loads(out)["given"]["existingEndpoints"] == {"services": ["ec2"], "vpc": vpc, "checked": True}
    [fact] = json.loads(saved.read_text())["vpc_endpoints"]["services"]["ec2"]
    assert (fact["id"], fact["service_name"], fact["type"], fact["private_dns_enabled"]) == (
        found, f"com.amazonaws.{REGION}.ec2", "Interface", True)
    other, other_subnet = _vpc(ec2)
    _endpoint(ec2, other, other_subnet, "ec2", private_dns=False)
    _, out = _budget_check(capsys, tmp_path, other, other_subnet, "[ec2]", "--lookup", budget=1_000_000)
    assert "has private DNS off" in json.loads(out)["given"]["existingEndpoints"]["pricedThroughNat"]["ec2"]


def test_the_stacks_own_endpoint_is_not_an_existing_one(ec2, capsys, tmp_path: Path) -> None:  # noqa: ANN001
    vpc, subnet = _vpc(ec2)
    table = ec2.create_route_table(VpcId=vpc)["RouteTable"]["RouteTableId"]
    own = ec2.create_vpc_endpoint(VpcId=vpc, ServiceName=f"com.amazonaws.{REGION}.s3", VpcEndpointType="Gateway",
                                  RouteTableIds=[table], TagSpecifications=[{"ResourceType": "vpc-endpoint", "Tags": [
                                      {"Key": "seedance:stack", "Value": "eu-prod"}]}])["VpcEndpoint"]["VpcEndpointId"]
    code, out = _budget_check(capsys, tmp_path, vpc, subnet, "[s3]", "--lookup", budget=1_000_000)
    report = json.loads(out)
    assert code == 1
    assert (f"network.existingEndpoints names s3, but its VPC endpoint {own} in {vpc} is this stack's own (tagged "
            "seedance:stack=eu-prod by an earlier deploy): listing it in existingEndpoints makes this deploy delete it, "
            "and its traffic then goes through NAT") in _budget_findings(report)
    assert "listing it in existingEndpoints makes this deploy delete it" in report["given"]["existingEndpoints"]["pricedThroughNat"]["s3"]


def test_endpoint_type_is_normalised_and_unknown_types_refused() -> None:
    """red team: a hand-edited 'interface' disabled the private DNS check."""
    from seedance.gate.facts import EndpointFact

    base = {"id": "vpce-1", "service_name": "com.amazonaws.eu-central-1.kms", "state": "available"}
    assert EndpointFact.model_validate({**base, "type": "interface"}).type == "Interface"
    assert EndpointFact.model_validate({**base, "type": "GATEWAY"}).type == "Gateway"
    with pytest.raises(ValueError, match="unknown endpoint type"):
        EndpointFact.model_validate({**base, "type": "Interfaces"})


def test_endpoint_unserved_is_judged_from_the_facts() -> None:
    from seedance.gate.facts import endpoint_unserved

    policy = {"cloud": {"vpcId": "vpc-1"}, "network": {"existingEndpoints": ["s3", "kms", "logs", "sts"]}}

    def ep(i: str, type_: str, **kw: object) -> dict:
        return {"id": i, "type": type_, "state": kw.pop("state", "available"), "private_dns_enabled": kw.pop("dns", True),
                "route_table_ids": kw.pop("tables", ["rtb-1"] if type_ == "Gateway" else []), "tags": kw.pop("tags", {})}

    facts = {"vpc_endpoints": {"vpc_id": "vpc-1", "services": {
        "s3": [ep("vpce-s3i", "Interface", dns=False), ep("vpce-s3g", "Gateway")],  # the gateway serves
        "kms": [ep("vpce-k", "Interface", tags={"seedance:stack": "other"})],  # another stack's: the VPC's
        "logs": [ep("vpce-l", "Interface", tags={"seedance:stack": "prod"}), ep("vpce-l2", "Interface", state="deleting")],
        "sts": [ep("vpce-g", "Gateway", tables=[])],
    }}}
    assert endpoint_unserved(policy, facts, "prod") == {
        "logs": "vpc-1 has no endpoint for it that serves (vpce-l is this stack's own, tagged seedance:stack=prod: listing "
                "it in existingEndpoints makes this deploy delete it, vpce-l2 is deleting)",
        "sts": "vpc-1 has no endpoint for it that serves (vpce-g is a gateway on no route table)",
    }
    assert endpoint_unserved(policy, {"vpc_endpoints": {**facts["vpc_endpoints"], "vpc_id": "vpc-2"}}, "prod") == {}
    assert endpoint_unserved(policy, None, "prod") == {}


def test_a_gateway_serves_only_on_the_route_table_of_every_given_subnet() -> None:
    """With the subnets of cloud.subnetIds in the facts, an S3 gateway must be on each one's route table
    (its own association or the VPC's main table, as read_subnet_facts records it); a subnet the facts
    do not hold, or one the policy does not give, is not matched; without any, any route table counts."""
    from seedance.gate.facts import endpoint_unserved, gateway_misses, subnet_route_tables

    def subnet(table: str) -> dict:
        return {"vpc_id": "vpc-1", "map_public_ip_on_launch": False, "route_table_id": table, "main_route_table": True,
                "routes": []}

    subnets = {"subnet-1": subnet("rtb-1"), "subnet-2": subnet("rtb-2"), "subnet-4": subnet("rtb-4")}
    policy = {"cloud": {"vpcId": "vpc-1", "subnetIds": ["subnet-2", "subnet-1", "subnet-3"]},
              "network": {"existingEndpoints": ["s3"]}}
    tables = subnet_route_tables(policy, {"subnets": subnets})
    assert tables == {"subnet-2": "rtb-2", "subnet-1": "rtb-1"}  # subnet-3 not in the facts; subnet-4 not given
    gw = {"id": "vpce-g", "type": "Gateway", "state": "available", "route_table_ids": ["rtb-1", "rtb-9"]}
    assert gateway_misses(gw, tables) == {"subnet-2": "rtb-2"}
    assert gateway_misses({**gw, "route_table_ids": ["rtb-2", "rtb-1"]}, tables) == {}

    def unserved(facts_subnets: dict, ep: dict, pol: dict = policy) -> dict[str, str]:
        return endpoint_unserved(pol, {"subnets": facts_subnets, "vpc_endpoints": {"vpc_id": "vpc-1", "services": {"s3": [ep]}}},
                                 "prod")

    assert unserved(subnets, gw) == {"s3": "vpc-1 has no endpoint for it that serves (vpce-g is a gateway not on the "
                                           "route table of the stack's subnet subnet-2 (rtb-2))"}
    assert unserved(subnets, {**gw, "route_table_ids": ["rtb-9"]}) == {
        "s3": "vpc-1 has no endpoint for it that serves (vpce-g is a gateway not on the route tables of the stack's "
              "subnets subnet-1 (rtb-1), subnet-2 (rtb-2))"}
    assert unserved(subnets, {**gw, "route_table_ids": ["rtb-1", "rtb-2"]}) == {}
    # no subnet facts, or no cloud.subnetIds: on any route table it serves, on none it does not
    assert unserved({}, {**gw, "route_table_ids": ["rtb-9"]}) == {}
    assert unserved(subnets, {**gw, "route_table_ids": ["rtb-9"]}, {**policy, "cloud": {"vpcId": "vpc-1"}}) == {}
    assert subnet_route_tables(policy, None) == {} and subnet_route_tables({"cloud": {"subnetIds": "subnet-1"}}, {"subnets": subnets}) == {}
    assert unserved({}, {**gw, "route_table_ids": []}) == {"s3": "vpc-1 has no endpoint for it that serves (vpce-g is a "
                                                                "gateway on no route table)"}
    # two gateways that split the subnets' tables serve together; not when one is down or the stack's own
    other = {**gw, "id": "vpce-h", "route_table_ids": ["rtb-2"]}
    two = {"subnets": subnets, "vpc_endpoints": {"vpc_id": "vpc-1", "services": {"s3": [gw, other]}}}
    assert endpoint_unserved(policy, two, "prod") == {}
    for spoilt in ({**other, "state": "pending"}, {**other, "tags": {"seedance:stack": "prod"}}, {**other, "route_table_ids": ["rtb-9"]}):
        facts = {"subnets": subnets, "vpc_endpoints": {"vpc_id": "vpc-1", "services": {"s3": [gw, spoilt]}}}
        assert set(endpoint_unserved(policy, facts, "prod")) == {"s3"}


def test_a_given_estimate_that_ignores_the_facts_is_undecided() -> None:
    """A whole gate input whose estimate takes the policy's word for an endpoint its facts show missing."""
    from seedance.gate.errors import InvalidInputError
    from seedance.gate.inputs import GateInput, priced_for_facts

    policy = {"cloud": {"vpcId": "vpc-1"}, "network": {"existingEndpoints": ["s3"]}}
    facts = {"vpc_endpoints": {"vpc_id": "vpc-1", "services": {"s3": []}}}
    gate = GateInput({"stack": "prod"}, policy, None, {"monthly_total": 1.0}, None, facts)
    with pytest.raises(InvalidInputError, match="no serving endpoint for s3"):
        priced_for_facts(gate)
    priced = GateInput({"stack": "prod"}, policy, None, {"monthly_total": 2.0, "unserved_endpoints": {"s3": "none"}}, None, facts)
    assert priced_for_facts(priced) is priced


# The judgement "does an endpoint serve" lives twice: in Python (endpoint_unserved, which prices a
# service none serves through NAT) and in Rego (lib.endpoints.unavailable, which the rules judge).
# They must agree on every combination of what EC2 can say of one or two endpoints, with and without
# the route tables of the stack's subnets (subnet-1 on rtb-1, subnet-2 and subnet-3 on rtb-2), and
# give the same reasons.
_ENDPOINT_KINDS = [
    {"type": t, "state": s, "private_dns_enabled": dns, "route_table_ids": tables, "tags": tags}
    for t in ("Gateway", "Interface")
    for s in ("available", "pending", "deleting")
    for dns in (True, False)
    for tables in ([], ["rtb-1"], ["rtb-2"], ["rtb-2", "rtb-1"], ["rtb-other"])
    for tags in ({}, {"seedance:stack": "prod"}, {"seedance:stack": "other"})
]

_SUBNETS = {sid: {"vpc_id": "vpc-1", "map_public_ip_on_launch": False, "route_table_id": table, "main_route_table": False,
                  "routes": []} for sid, table in (("subnet-1", "rtb-1"), ("subnet-2", "rtb-2"), ("subnet-3", "rtb-2"))}


@pytest.mark.parametrize(("subnet_ids", "subnets"), [
    (["subnet-1", "subnet-2", "subnet-3"], _SUBNETS),  # matched with every subnet's route table
    (["subnet-1", "subnet-9"], _SUBNETS),  # with the one the facts hold
    (["subnet-1", "subnet-2"], {}),  # facts without the subnets: on any route table
    (None, _SUBNETS),  # a policy without cloud.subnetIds: on any route table
])
def test_python_and_rego_agree_on_which_listed_services_no_endpoint_serves(subnet_ids: list[str] | None, subnets: dict) -> None:
    import itertools
    import json as _json

    from seedance.gate.bundle import load_bundle
    from seedance.gate.engine import compile_modules
    from seedance.gate.facts import endpoint_unserved

    engine = compile_modules(load_bundle())
    # one endpoint each, and a sample of pairs (every 7th, to keep the test quick)
    groups = [[a] for a in _ENDPOINT_KINDS] + [list(p) for p in itertools.islice(
        itertools.combinations(_ENDPOINT_KINDS, 2), 0, None, 7)] + [[]]
    services = [f"svc{i}" for i in range(len(groups))]
    policy = {"cloud": {"vpcId": "vpc-1", **({"subnetIds": subnet_ids} if subnet_ids else {})},
              "network": {"existingEndpoints": services}}
    facts = {"subnets": subnets, "vpc_endpoints": {"vpc_id": "vpc-1", "services": {
        s: [{**ep, "id": f"vpce-{s}-{j}"} for j, ep in enumerate(g)] for s, g in zip(services, groups)}}}
    engine.set_input({"policy": policy, "facts": facts, "document": {"stack": "prod", "resources": []}})
    rego = _json.loads(engine.eval_query_as_json(
        'x := {s: data.lib.endpoints.missing_message(s, "NAT") | some s in input.policy.network.existingEndpoints; '
        "data.lib.endpoints.unavailable(s)}"))["result"][0]["bindings"]["x"]
    python = endpoint_unserved(policy, facts, "prod")
    assert len(python) > len(services) // 2  # most combinations serve nothing: the cases are not all one way
    assert set(rego) == set(python)
    # the same reasons: Rego's "... has none that serves (WHY): NAT", Python's "... that serves (WHY)"
    assert {s: re.search(r"serves(?: \((.*)\))?: NAT$", m)[1] or "none at all" for s, m in rego.items()} == \
        {s: re.search(r"serves \((.*)\)$", why)[1] for s, why in python.items()}  # type: ignore[index]
    # a gateway on some route tables but not every matched subnet's is among them (the cases exercise it)
    misses = [why for why in python.values() if "is a gateway not on the route table" in why]
    assert bool(misses) == bool(subnets and subnet_ids)


def test_every_endpoint_service_name_the_stack_creates_is_read_back_by_the_lookup_and_the_rules() -> None:
    """For each service (ec2, autoscaling and elasticloadbalancing among them) and partition, the name the
    stack gives its endpoint (components.network.service_name) is one --lookup asks EC2 for and the one
    policies/lib/endpoints.rego reads the service from."""
    import json as _json

    from components.network import service_name
    from seedance.gate.bundle import load_bundle
    from seedance.gate.engine import compile_modules
    from seedance.gate.facts import endpoint_service_names
    from seedance.policy.model import EndpointService

    engine = compile_modules(load_bundle())
    names = {(s.value, region): service_name(s, region)
             for s in EndpointService for region in ("eu-central-1", "cn-north-1", "cn-northwest-1", "us-gov-west-1")}
    assert names[("ec2", "cn-north-1")] == "cn.com.amazonaws.cn-north-1.ec2"
    for (service, region), name in names.items():
        assert name in endpoint_service_names(service, region), (service, region)
    engine.set_input({"names": sorted(set(names.values()))})
    read = _json.loads(engine.eval_query_as_json(
        'x := {n: data.lib.endpoints.service({"inputs": {"serviceName": n}}) | some n in input.names}'))
    assert read["result"][0]["bindings"]["x"] == {name: service for (service, _), name in names.items()}


def test_check_lookup_matches_a_gateway_with_the_route_tables_of_every_subnet(ec2, capsys, tmp_path: Path,  # noqa: ANN001
                                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """red team: an S3 gateway endpoint on the route table of one of the stack's two subnets only. The
    other subnet's nodes send their S3 traffic (personal data) through NAT: GDPR-44-2 names that subnet
    and its table, the estimate prices the traffic through NAT (over the budget: exit 1), and the
    reports say the route tables were matched. Facts without the subnets fall back to any route table."""
    vpc = ec2.create_vpc(CidrBlock="10.30.0.0/16")["Vpc"]["VpcId"]
    a, b = (ec2.create_subnet(VpcId=vpc, CidrBlock=f"10.30.{i}.0/24", AvailabilityZone=f"{REGION}{z}")["Subnet"]["SubnetId"]
            for i, z in ((1, "a"), (2, "b")))
    table_a, table_b = (ec2.create_route_table(VpcId=vpc)["RouteTable"]["RouteTableId"] for _ in range(2))
    ec2.associate_route_table(RouteTableId=table_a, SubnetId=a)
    ec2.associate_route_table(RouteTableId=table_b, SubnetId=b)
    gateway = ec2.create_vpc_endpoint(VpcId=vpc, ServiceName=f"com.amazonaws.{REGION}.s3", VpcEndpointType="Gateway",
                                      RouteTableIds=[table_a], PolicyDocument=ACCOUNT_ONLY)["VpcEndpoint"]["VpcEndpointId"]
    text = SAMPLE.read_text().replace(SAMPLE_VPC, vpc)
    for old, new in zip(SAMPLE_SUBNETS, (a, b, a)):
        text = text.replace(old, new)
    document = json.loads(text)  # as synthesised with s3 the VPC's: the stack creates no S3 gateway of its own
    document["resources"] = [r for r in document["resources"]
                             if r["name"] != "network-s3-gateway" and not _idle_reservation(r, {f"{REGION}a", f"{REGION}b"})]
    for r in document["resources"]:  # the AWS Budget guards the policy's budget below (no other mandatory finding)
        if r["type"] == "aws:budgets/budget:Budget":
            r["inputs"]["limitAmount"] = "84000.00"
    sample = tmp_path / "sample.json"
    sample.write_text(json.dumps(document))
    policy = tmp_path / "policy.yaml"
    policy.write_text(f"apiVersion: seedance.io/v1\nkind: CostPolicy\nextends: {POLICY}\ncloud:\n  vpcId: {vpc}\n"
                      f"  subnetIds: [{a}, {b}]\nnetwork:\n  existingEndpoints: [s3]\nbudget:\n  monthlyAmount: 84000\n")

    def check(*extra: str, fmt: str = "json") -> tuple[int, str]:
        code = main(["check", str(sample), "--policy", str(policy), "--format", fmt, *extra])
        return code, capsys.readouterr().out

    saved = tmp_path / "facts.json"
    code, out = check("--lookup", "--save-facts", str(saved))
    report = json.loads(out)
    why = f"{gateway} is a gateway not on the route table of the stack's subnet {b} ({table_b})"
    assert ("GDPR-44-2", f"no VPC endpoint for s3: network.existingEndpoints names it, but DescribeVpcEndpoints shows "
                         f"{vpc} has none that serves ({why}): its traffic leaves through NAT") in _endpoint_findings(report)
    given = report["given"]["existingEndpoints"]
    assert given["pricedThroughNat"] == {"s3": f"{vpc} has no endpoint for it that serves ({why})"}
    assert given["routeTablesMatched"] == ["s3"] and "routeTablesNotMatched" not in given
    assert [m for m in _budget_findings(report) if m.startswith("projected monthly cost")]
    assert code == 1 and {f["controlId"] for f in report["findings"] if f["severity"] == "mandatory"} == {"BUDGET-COST-1"}
    for fmt in ("text", "markdown", "pr-comment"):
        _, out = check("--facts", str(saved), fmt=fmt)
        flat = " ".join(out.split())
        assert "the route tables of its 2 subnets (cloud.subnetIds), matched with the gateway endpoint for s3" in flat, fmt
        assert "not matched" not in flat and "is on the route tables of" not in flat, fmt
    # on both subnets' tables it serves: no finding for s3, nothing priced through NAT, within the budget
    ec2.modify_vpc_endpoint(VpcEndpointId=gateway, AddRouteTableIds=[table_b])
    code, out = check("--lookup")
    report = json.loads(out)
    assert not [m for _, m in _endpoint_findings(report) if "for s3" in m]
    assert "pricedThroughNat" not in report["given"]["existingEndpoints"]
    assert [f["message"] for f in report["findings"] if f["severity"] == "mandatory"] == [] and code == 0
    # facts recorded without the subnets: the gateway on table_a counts (any route table), and the
    # reports say its route tables were not matched
    facts = json.loads(saved.read_text())
    facts["subnets"] = {}
    saved.write_text(json.dumps(facts))
    monkeypatch.setenv("AWS_ENDPOINT_URL_EC2", "http://127.0.0.1:9")
    code, out = check("--facts", str(saved))
    report = json.loads(out)
    assert not [m for _, m in _endpoint_findings(report) if "for s3" in m]
    assert report["given"]["existingEndpoints"]["routeTablesNotMatched"] == ["s3"]
    _, out = check("--facts", str(saved), fmt="text")
    assert ("the facts hold no subnet of cloud.subnetIds, so its route tables were read, not matched with the subnets' "
            "(a gateway on any route table counts)") in " ".join(out.split())
