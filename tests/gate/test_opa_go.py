"""The gate's Rego under OPA's own evaluator: the Go ``rego`` package of OPA v1.20.2, in process.

regorus is the embedded engine; OPA is the reference for Rego v1. There is no ``opa`` binary here,
but opa-golib-python-bindings ships OPA's Go evaluator as a shared library (``make test`` unpacks
it; these tests skip where it is missing). Every Rego test must hold under it, and every control
must give the same findings as the embedded engine: on the example stacks, on real Pulumi output
and on randomly changed documents.
"""

from __future__ import annotations

import copy
import dataclasses
import datetime as dt
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from seedance.gate import RegorusEngine
from seedance.gate.engine import _as_list, _sort_findings, control_query
from seedance.gate.errors import EngineError
from seedance.gate.inputs import GateInput, validate_document
from seedance.gate.run import evaluate
from seedance.gate.testrunner import discover, run_tests

AS_OF = dt.date(2026, 6, 1)
REPO = Path(__file__).resolve().parents[2]


class GoOpaEngine:
    """A gate engine on OPA's Go evaluator: the embedded engine's one query, the same result mapping."""

    name = "opa-go"

    def __init__(self, factory, bundle) -> None:  # noqa: ANN001 - opa_bindings.OpaEngine
        self.opa = factory()
        for f in bundle.modules():
            self.opa.add_policy(f.path, f.text)
        self.opa.add_data(bundle.data())

    def evaluate(self, bundle, gate_input: dict) -> dict[str, list[dict]]:  # noqa: ANN001
        rows = self.opa.eval_query(control_query(bundle), gate_input)
        if len(rows) != 1:
            raise EngineError(f"OPA gave {len(rows)} results instead of one")
        return {c.control_id: _sort_findings(_as_list(rows[0][f"v{i}"], c.query)) for i, c in enumerate(bundle.controls)}


@pytest.fixture(scope="module")
def go_engine(opa_go, bundle) -> GoOpaEngine:  # noqa: ANN001
    """One compiled OPA for this file's comparisons."""
    return GoOpaEngine(opa_go, bundle)


def test_every_rego_test_holds_under_opa(opa_go, bundle) -> None:
    opa = opa_go()
    for f in bundle.modules(tests=True):
        opa.add_policy(f.path, f.text)  # OPA's parser and compiler accept every file
    opa.add_data(bundle.data())
    cases = discover(bundle)
    assert len(cases) >= 100
    # one query for all tests (a query per test recompiles every module); a test whose rule is
    # false or undefined gives [] instead of [true]
    rows = opa.eval_query("\n".join(f"t{i} := [x | x := {c.query}]" for i, c in enumerate(cases)))
    assert len(rows) == 1
    failing = [f"{c.file}:{c.line} {c.name}" for i, c in enumerate(cases) if rows[0][f"t{i}"] != [True]]
    assert failing == []
    embedded = run_tests(bundle=bundle)
    assert embedded.ok and embedded.passed == len(cases)


def test_opa_rejects_what_regorus_rejects(opa_go) -> None:
    from opa_bindings import OpaError

    opa = opa_go()
    broken = "package seedance.broken\n\nimport rego.v1\n\nviolation contains x if {\n\tx := \n}\n"
    with pytest.raises(OpaError, match="rego_parse_error"):
        opa.add_policy("broken.rego", broken)
    import regorus

    with pytest.raises(RuntimeError):
        regorus.Engine().add_policy("broken.rego", broken)


@pytest.mark.parametrize("stack", ["eu-prod", "cn-prod", "dev"])
@pytest.mark.parametrize("frameworks", [None, ["gdpr", "mlps-l3"]])
def test_opa_gives_the_embedded_findings_on_the_example_stacks(go_engine, bundle, stack_input, stack: str,
                                                              frameworks: list[str] | None) -> None:
    gi = stack_input(stack)
    if frameworks is not None:  # every rule fires somewhere: the EU stack fails MLPS residency and so on
        policy = {**gi.policy, "compliance": {**gi.policy["compliance"], "frameworks": frameworks}}
        gi = dataclasses.replace(gi, policy=policy)
    via_opa = evaluate(gi, bundle, go_engine, as_of=AS_OF)
    embedded = evaluate(gi, bundle, RegorusEngine(), as_of=AS_OF)
    assert via_opa.to_json() == embedded.to_json()
    if frameworks is not None:
        assert len(via_opa.findings) > 10, "the comparison must cover findings"


STRINGS = ["", "eu-west-1", "cn-north-1", "us-east-1", "alias/aws/s3", "*", "AES256", "aws:kms", "[unknown]", "[secret]",
           "0.0.0.0/0", "false", "true"]


def _same_kind(old, data):  # noqa: ANN001, ANN202
    """A replacement of the kind the document can hold there: null (unset), or a value of the same JSON type."""
    if old is None:  # unset earlier in this example: its kind is unknown, so it stays unset
        return None
    if isinstance(old, list):
        return data.draw(st.sampled_from([None, [], old[:1], old + old[:1]]), label="list")
    if isinstance(old, dict):
        return data.draw(st.sampled_from([None, {}, {"Enabled": False}]), label="object")
    if isinstance(old, bool):
        return data.draw(st.sampled_from([None, True, False]), label="bool")
    if isinstance(old, (int, float)):
        return data.draw(st.sampled_from([None, 0, 1, -1, 10**6]), label="number")
    return data.draw(st.sampled_from([None, *STRINGS]), label="string")


def _set_deep(container, data) -> None:  # noqa: ANN001
    """Walk down a random path of objects and lists, then unset or replace what is there."""
    while True:
        keys = sorted(container) if isinstance(container, dict) else list(range(len(container)))
        if not keys:
            return
        key = data.draw(st.sampled_from(keys), label="step")
        child = container[key]
        if isinstance(child, (dict, list)) and child and data.draw(st.booleans(), label="deeper"):
            container = child
            continue
        new = _same_kind(child, data)
        if new is None and isinstance(container, list):
            del container[key]  # an unset list item is no item (Pulumi never sends null ones)
        else:
            container[key] = new
        return


# 60 fixed examples (derandomised: every run, CI's too, sees the same ones); SEEDANCE_FUZZ_SCALE=25
# runs 1,500 random ones instead, a deeper search for the two engines parting ways
SCALE = float(os.environ.get("SEEDANCE_FUZZ_SCALE", "1"))


@settings(max_examples=max(1, round(60 * SCALE)), deadline=None, derandomize=SCALE == 1, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_opa_and_regorus_agree_on_mutated_documents(go_engine, bundle, stack_input, data) -> None:
    """Missing fields, nulls, empty and foreign values, dropped resources: where two Rego engines could part ways.

    Replacements keep the JSON type the document holds (a list stays a list) or unset the value;
    a list or object replaced by a string is test_an_unknown_collection_blocks_the_embedded_gate.
    """
    engine = go_engine
    gi = stack_input(data.draw(st.sampled_from(["eu-prod", "cn-prod"]), label="stack"))
    doc = copy.deepcopy(gi.document)
    resources = doc["resources"]
    for _ in range(data.draw(st.integers(1, 12), label="mutations")):
        r = resources[data.draw(st.integers(0, len(resources) - 1), label="resource")]
        op = data.draw(st.sampled_from(["drop-key", "set-key", "set-nested", "set-deep", "region", "drop-resource"]), label="op")
        inputs = r.get("inputs") or {}
        keys = sorted(inputs)
        if op == "drop-resource" and len(resources) > 1:
            resources.remove(r)
        elif op == "region":
            r["region"] = data.draw(st.sampled_from([None, "eu-west-1", "cn-north-1", "us-east-1", "[unknown]"]), label="region")
        elif keys and op == "drop-key":
            del inputs[data.draw(st.sampled_from(keys), label="key")]
        elif keys and op == "set-key":
            key = data.draw(st.sampled_from(keys), label="key")
            inputs[key] = _same_kind(inputs[key], data)
        elif keys and op == "set-nested":
            key = data.draw(st.sampled_from(keys), label="key")
            if isinstance(inputs[key], dict) and inputs[key]:
                inner = data.draw(st.sampled_from(sorted(inputs[key])), label="inner")
                inputs[key][inner] = _same_kind(inputs[key][inner], data)
        elif op == "set-deep" and inputs:
            _set_deep(inputs, data)
    policy = {**gi.policy, "compliance": {**gi.policy["compliance"], "frameworks": ["gdpr", "mlps-l3"]}}
    # as `seedance check` does: the document is read through its model (which drops null inputs)
    gi = dataclasses.replace(gi, document=validate_document(doc), policy=policy)
    embedded = evaluate(gi, bundle, RegorusEngine(), as_of=AS_OF).to_json()
    assert evaluate(gi, bundle, engine, as_of=AS_OF).to_json() == embedded


def test_an_unknown_collection_blocks_the_embedded_gate(go_engine, bundle, stack_input) -> None:
    """A list the rules iterate, unknown until apply (the preview's placeholder string): regorus stops
    with a runtime error, so the embedded gate is undecided and blocks, naming the cause; OPA's own
    evaluator iterates nothing and decides (which is why the OPA backend checks such inputs locally
    first: tests/gate/test_opa.py)."""
    # (a security group's unknown ingress list and a bucket encryption configuration's rules no
    # longer stop it: they are judged at their worst; a ConfigMap's data still stops it)
    gi = stack_input("eu-prod")
    doc = copy.deepcopy(gi.document)
    cm = next(r for r in doc["resources"] if r["type"] == "kubernetes:core/v1:ConfigMap")
    cm["inputs"]["data"] = "[unknown]"
    gi = dataclasses.replace(gi, document=validate_document(doc))
    with pytest.raises(EngineError, match=r"lib/resources\.rego:\d+:\d+: .*\[unknown\].*known only after apply"):
        evaluate(gi, bundle, RegorusEngine(), as_of=AS_OF)
    # OPA reads the unknown data as empty: the same findings as with no data at all
    empty = copy.deepcopy(doc)
    next(r for r in empty["resources"] if r["urn"] == cm["urn"])["inputs"]["data"] = {}
    as_unknown = evaluate(gi, bundle, go_engine, as_of=AS_OF)
    as_empty = evaluate(dataclasses.replace(gi, document=validate_document(empty)), bundle, go_engine, as_of=AS_OF)
    assert [(f.control_id, f.urn, f.message) for f in as_unknown.findings] == \
        [(f.control_id, f.urn, f.message) for f in as_empty.findings]




def _shared_fixtures() -> Path:
    root = Path(os.environ["SEEDANCE_SHARED_DATA"]) if os.environ.get("SEEDANCE_SHARED_DATA") else REPO.parent / "shared" / "data"
    return root / "fixtures"


REAL_OUTPUTS = sorted((_shared_fixtures() / "pulumi-preview").glob("*.json")) + sorted(
    (_shared_fixtures() / "pulumi-stack-export").glob("*.json"))


def test_the_real_outputs_are_there() -> None:
    assert len(REAL_OUTPUTS) >= 5  # 4 previews and 1 export in the shared fixtures


@pytest.mark.parametrize("path", REAL_OUTPUTS, ids=lambda p: p.name)
def test_opa_gives_the_embedded_findings_on_real_pulumi_output(go_engine, bundle, path: Path) -> None:
    """Real `pulumi preview --json` and `pulumi stack export` output (one preview full of unknowns)."""
    from seedance.policy import load_policy
    from seedance.synth.ingest import load_export, load_preview

    doc = (load_preview if "preview" in path.parent.name else load_export)(path)
    policy = load_policy(REPO / "stacks" / "policies" / "eu-prod.yaml").policy.model_dump(mode="json", by_alias=True)
    policy["compliance"]["frameworks"] = ["gdpr", "mlps-l3"]
    gi = GateInput(validate_document(doc.to_json()), policy, None, {"monthly_total": 1000.0, "currency": "USD"}, None)
    embedded = evaluate(gi, bundle, RegorusEngine(), as_of=AS_OF)
    assert evaluate(gi, bundle, go_engine, as_of=AS_OF).to_json() == embedded.to_json()
    assert embedded.findings


@settings(max_examples=max(1, round(30 * SCALE)), deadline=None, derandomize=SCALE == 1, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_opa_and_regorus_agree_on_varied_policies(go_engine, bundle, stack_input, data) -> None:
    """The same documents under other compliance settings, budgets and spend: the rules' branches on
    jurisdiction, residency, retention and thresholds, and their arithmetic."""
    from seedance.gate.inputs import validate_policy

    engine = go_engine
    gi = stack_input(data.draw(st.sampled_from(["eu-prod", "cn-prod", "dev"]), label="stack"))
    policy = copy.deepcopy(gi.policy)
    c = policy["compliance"]
    c["frameworks"] = data.draw(st.lists(st.sampled_from(["gdpr", "mlps-l3"]), unique=True), label="frameworks")
    c["jurisdiction"] = data.draw(st.sampled_from(["eu", "cn", "other"]), label="jurisdiction")
    c["dataResidency"] = data.draw(st.lists(st.sampled_from(["eu-*", "cn-*", "us-east-1", "*", "eu-central-?"]),
                                            max_size=3), label="residency")
    c["logRetentionDays"] = data.draw(st.sampled_from([1, 30, 90, 180, 365, 400, 731, 3653]), label="retention")
    c["personalDataMaxDays"] = data.draw(st.sampled_from([None, 1, 90, 365, 1000]), label="max days")
    policy["budget"]["monthlyAmount"] = data.draw(st.sampled_from([0.01, 1, 1000, 5e4, 1e9]), label="budget")
    if data.draw(st.booleans(), label="overcommit"):
        policy.setdefault("scheduling", {})["overcommitCap"] = data.draw(st.sampled_from([1, 1.5, 4]), label="cap")
    estimate = gi.estimate and {**gi.estimate, "monthly_total": data.draw(
        st.sampled_from([0, 0.5, 999.99, 1000, 1e6]), label="estimate")}
    budget_state = data.draw(st.sampled_from([None, {"forecast_monthly": 2e9}, {"month_to_date": 10.0}]), label="state")
    gi = dataclasses.replace(gi, policy=validate_policy(policy, cross_field=False), estimate=estimate, budget_state=budget_state)
    embedded = evaluate(gi, bundle, RegorusEngine(), as_of=AS_OF).to_json()
    assert evaluate(gi, bundle, engine, as_of=AS_OF).to_json() == embedded


# Random networks: VPCs, subnets (data classes), route tables, DefaultRouteTables, routes,
# associations and main associations tied by mock ids, URNs, dependencies or not at all, autoscaling
# groups placed in them, and facts as `seedance check --lookup` gives them. The routing rules must not
# stop either engine and must find the same on both.
_NET = "aws:ec2/{}"


def _urn(type_: str, name: str) -> str:
    return f"urn:pulumi:s::p::{type_}::{name}"


def _ref(data, target_type: str, target: str, field: str, deps: dict, label: str) -> str:  # noqa: ANN001
    """How a resource names another: its mock id, its URN, unknown with a dependency, unknown and untied, an outside id."""
    how = data.draw(st.sampled_from(["mock", "urn", "deps", "unknown", "outside"]), label=label)
    if how == "mock":
        return f"{target}-0a1b2c3d"
    if how == "urn":
        return _urn(target_type, target)
    if how == "deps":
        deps[field] = [_urn(target_type, target)]
    return {"outside": "vpc-0123456789abcdef0" if "vpc" in field.lower() else "rtb-0123456789abcdef0"}.get(how, "[unknown]")


def _network_document(data) -> tuple[list[dict], dict]:  # noqa: ANN001
    resources: list[dict] = []

    def add(type_: str, name: str, inputs: dict, deps: dict) -> None:
        r = {"urn": _urn(type_, name), "type": type_, "name": name, "parent": None, "custom": True,
             "region": "cn-north-1", "inputs": inputs}
        if deps:
            r["property_dependencies"] = deps
        resources.append(r)

    vpcs = [f"vpc{i}" for i in range(data.draw(st.integers(0, 2), label="vpcs"))]
    for v in vpcs:
        add(_NET.format("vpc:Vpc"), v, {"cidrBlock": "10.0.0.0/16"}, {})
    targets = vpcs or ["vpcX"]
    tables = [f"rt{i}" for i in range(data.draw(st.integers(0, 3), label="tables"))]
    gateways = ["igw-0aaaaaaaaaaaaaaaa", "nat-0bbbbbbbbbbbbbbbb", "local", "[unknown]"]
    for t in tables:
        routes = data.draw(st.one_of(st.just("[unknown]"), st.lists(st.sampled_from(gateways), max_size=2)), label="routes")
        inline = routes if isinstance(routes, str) else [{"cidrBlock": "0.0.0.0/0", "gatewayId": g} for g in routes]
        kind = data.draw(st.sampled_from(["routeTable:RouteTable", "defaultRouteTable:DefaultRouteTable"]), label="kind")
        deps: dict = {}
        field = "vpcId" if kind.startswith("routeTable") else "defaultRouteTableId"
        ref = _ref(data, _NET.format("vpc:Vpc"), data.draw(st.sampled_from(targets), label="vpc"), field, deps, "tv")
        add(_NET.format(kind), t, {field: ref, "routes": inline}, deps)
    table_types = {t: r["type"] for t, r in zip(tables, resources[len(vpcs):], strict=True)}
    subnets = [f"sn{i}" for i in range(data.draw(st.integers(1, 3), label="subnets"))]
    for sn in subnets:
        deps = {}
        ref = _ref(data, _NET.format("vpc:Vpc"), data.draw(st.sampled_from(targets), label="svpc"), "vpcId", deps, "sv")
        inputs = {"vpcId": ref, "tags": {"data-class": data.draw(st.sampled_from(["personal", "internal", "public"]), label="class")}}
        if data.draw(st.booleans(), label="public-ip"):
            inputs["mapPublicIpOnLaunch"] = True
        add(_NET.format("subnet:Subnet"), sn, inputs, deps)

    def associate(kind: str, name: str, field: str, target_type: str, choices: list[str]) -> None:
        """A (main) route-table association: a subnet (a VPC) and a route table, each named some way."""
        deps: dict = {}
        ref = _ref(data, target_type, data.draw(st.sampled_from(choices), label=f"{name}-target"), field, deps, f"{name}-ref")
        t = data.draw(st.sampled_from(tables), label=f"{name}-table") if tables else "rtX"
        tref = _ref(data, table_types.get(t, _NET.format("routeTable:RouteTable")), t, "routeTableId", deps, f"{name}-rt")
        add(_NET.format(kind), name, {field: ref, "routeTableId": tref}, deps)

    for i in range(data.draw(st.integers(0, 3), label="associations")):
        associate("routeTableAssociation:RouteTableAssociation", f"assoc{i}", "subnetId", _NET.format("subnet:Subnet"), subnets)
    for i in range(data.draw(st.integers(0, 1), label="mains")):
        associate("mainRouteTableAssociation:MainRouteTableAssociation", f"main{i}", "vpcId", _NET.format("vpc:Vpc"), targets)
    for i in range(data.draw(st.integers(0, 2), label="routes")):
        deps = {}
        on = data.draw(st.sampled_from([*tables, *vpcs] or ["rtX"]), label="ron")
        rtype = _NET.format("vpc:Vpc") if on in vpcs else table_types.get(on, _NET.format("routeTable:RouteTable"))
        tref = _ref(data, rtype, on, "routeTableId", deps, "rrt")
        add(_NET.format("route:Route"), f"route{i}", {"routeTableId": tref, "destinationCidrBlock": "0.0.0.0/0",
                                                   "gatewayId": data.draw(st.sampled_from(gateways), label="rg")}, deps)
    given = ["subnet-0aaaaaaaaaaaaaaaa", "subnet-0bbbbbbbbbbbbbbbb"]
    placed = data.draw(st.lists(st.sampled_from([f"{s}-0a1b2c3d" for s in subnets] + given), min_size=1, max_size=3), label="placed")
    add("aws:autoscaling/group:Group", "asg", {"vpcZoneIdentifiers": placed, "tags": [
        {"key": "data-class", "value": data.draw(st.sampled_from(["personal", "internal", "public"]), label="asg-class"),
         "propagateAtLaunch": True}],
        "mixedInstancesPolicy": {"launchTemplate": {"overrides": [{"instanceType": "d2.xlarge"}, {"instanceType": "g5.xlarge"}]}}}, {})
    add("aws:ec2/launchTemplate:LaunchTemplate", "lt", {"vpcSecurityGroupIds": ["sg-0e0e0e0e0e0e0e0e0"], "tags": {"data-class": "internal"}}, {})
    facts = {"region": "cn-north-1", "subnets": {
        given[0]: {"vpc_id": "vpc-0123456789abcdef0", "map_public_ip_on_launch": data.draw(st.booleans(), label="g0ip"),
                   "route_table_id": "rtb-0aaaaaaaaaaaaaaaa", "main_route_table": data.draw(st.booleans(), label="g0m"),
                   "routes": [{"destination": "0.0.0.0/0", "target": data.draw(st.sampled_from(gateways), label="g0r"),
                               "state": data.draw(st.sampled_from(["active", "blackhole"]), label="g0s")}]},
    }, "security_groups": {"sg-0e0e0e0e0e0e0e0e0": {"name": "eks-cluster-sg-x", "vpc_id": None,
        "ingress": [{"protocol": "tcp", "from_port": 22, "to_port": 22, "cidrs": data.draw(st.sampled_from([[], ["0.0.0.0/0"]]), label="sgc")}],
        "egress": [{"protocol": "-1", "from_port": 0, "to_port": 65535, "cidrs": ["0.0.0.0/0"]}]}},
        "instance_types": {"d2.xlarge": {"instance_storage": True, "encryption_support": "unsupported"},
                           "g5.xlarge": {"instance_storage": True, "encryption_support": "required"}}}
    return resources, facts


@settings(max_examples=max(1, round(60 * SCALE)), deadline=None, derandomize=SCALE == 1, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_opa_and_regorus_agree_on_random_networks(go_engine, bundle, stack_input, data) -> None:
    resources, facts = _network_document(data)
    gi = stack_input("cn-prod")
    doc = {**gi.document, "resources": resources, "placeholders": {}}
    with_facts = data.draw(st.booleans(), label="facts")
    gi = GateInput(validate_document(doc), gi.policy, gi.plan, gi.estimate, None, facts if with_facts else None)
    embedded = evaluate(gi, bundle, RegorusEngine(), as_of=AS_OF).to_json()
    assert evaluate(gi, bundle, go_engine, as_of=AS_OF).to_json() == embedded


_CIDRS = ["0.0.0.0/1", "128.0.0.0/1", "0.0.0.0/2", "64.0.0.0/2", "10.0.0.0/8", "0.0.0.0/0", "::/1", "8000::/1",
          "2000::/4", "3000::/4", "2001:db8::/33", "[unknown]", "bad", "1.2.3.4", 5, None]
_PEERS = ["[unknown]", None, 7, {}, {"namespaceSelector": {}}, {"ipBlock": "[unknown]"},
          *({"ipBlock": {"cidr": c}} for c in _CIDRS), {"ipBlock": {"cidr": "0.0.0.0/0", "except": ["10.0.0.0/8"]}}]


def _cover_document(data) -> list[dict]:
    """Security groups, rule resources, NetworkPolicies beside a default deny, a LoadBalancer Service
    and an EKS cluster whose ranges may cover the internet only together, or hold values unknown
    until apply."""
    resources: list[dict] = []
    cidrs = st.lists(st.sampled_from(_CIDRS), max_size=4)

    def add(type_: str, name: str, inputs: dict, deps: dict | None = None) -> dict:
        r = {"urn": f"urn:pulumi:cn-prod::seedance-gpu::{type_}::{name}", "type": type_, "name": name, "custom": True,
             "inputs": inputs, "id": f"sg-{len(resources):017x}"}
        if deps:
            r["property_dependencies"] = deps
        resources.append(r)
        return r

    add("kubernetes:core/v1:Namespace", "train", {"metadata": {"name": "train", "labels": {"seedance.io/data-class": "internal"}}})
    add("kubernetes:networking.k8s.io/v1:NetworkPolicy", "deny", {"metadata": {"name": "deny", "namespace": "train"},
        "spec": {"podSelector": {}, "policyTypes": ["Ingress", "Egress"]}})
    groups = []
    for k in range(data.draw(st.integers(1, 3), label="groups")):
        port = data.draw(st.sampled_from([22, 443, "[unknown]"]), label="port")
        rules = [{"protocol": "tcp", "fromPort": port, "toPort": port, "cidrBlocks": data.draw(cidrs, label="sg-cidrs")}
                 for _ in range(data.draw(st.integers(0, 2), label="inline"))]
        groups.append(add("aws:ec2/securityGroup:SecurityGroup", f"sg{k}", {"ingress": rules, "egress": []}))
    for k in range(data.draw(st.integers(0, 3), label="rule-resources")):
        g = data.draw(st.sampled_from(groups), label="rule-group")
        ref = data.draw(st.sampled_from([g["id"], g["urn"], "[unknown]", "sg-0ffffffffffffffff"]), label="rule-ref")
        deps = {"securityGroupId": [g["urn"]]} if ref == "[unknown]" and data.draw(st.booleans(), label="deps") else None
        port = data.draw(st.sampled_from([22, 443]), label="rule-port")
        add("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule", f"rule{k}", {
            "securityGroupId": ref, "ipProtocol": "tcp", "fromPort": port, "toPort": port,
            "cidrIpv4": data.draw(st.sampled_from(_CIDRS), label="rule-cidr")}, deps)
    for k in range(data.draw(st.integers(0, 2), label="policies")):
        peers = st.lists(st.sampled_from(_PEERS), max_size=3)
        add("kubernetes:networking.k8s.io/v1:NetworkPolicy", f"np{k}", {
            "metadata": {"name": f"np{k}", "namespace": "train"},
            "spec": {"podSelector": {}, "policyTypes": ["Ingress", "Egress"],
                     "ingress": [{"from": data.draw(peers, label="from")}], "egress": [{"to": data.draw(peers, label="to")}]}})
    add("kubernetes:core/v1:Service", "svc", {"metadata": {"name": "svc", "namespace": "train"}, "spec": {
        "type": "LoadBalancer", "ports": [{"port": 22}], "loadBalancerSourceRanges": data.draw(cidrs, label="svc")}})
    add("aws:eks/cluster:Cluster", "eks", {"vpcConfig": {"publicAccessCidrs": data.draw(cidrs, label="eks")}})
    return resources


@settings(max_examples=max(1, round(40 * SCALE)), deadline=None, derandomize=SCALE == 1, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_opa_and_regorus_agree_on_ranges_that_cover_the_internet(go_engine, bundle, stack_input, data) -> None:
    gi = stack_input("cn-prod")
    doc = {**gi.document, "resources": _cover_document(data), "placeholders": {}}
    gi = GateInput(validate_document(doc), gi.policy, gi.plan, gi.estimate, None, None)
    embedded = evaluate(gi, bundle, RegorusEngine(), as_of=AS_OF).to_json()  # raises if regorus cannot decide
    assert evaluate(gi, bundle, go_engine, as_of=AS_OF).to_json() == embedded


_PROTOCOLS = ["HTTP", "HTTP", "HTTP", "HTTPS", "TLS", "TCP", "UDP", "example.com/quic", "[unknown]", None, 7]
_REDIRECT = {"filters": [{"type": "RequestRedirect", "requestRedirect": {"scheme": "https"}}]}
_RULES = [_REDIRECT, _REDIRECT, _REDIRECT, {"backendRefs": [{"name": "api", "port": 80}]}, "[unknown]", {"filters": "[unknown]"},
          {"filters": [{"type": "RequestRedirect", "requestRedirect": "[unknown]"}]}, {}]
_ROLES = ["system:node", "system:auth-delegator", "system:controller:job-controller", "system:coredns",
          "system:kube-scheduler", "edit", "view", "cluster-admin", "ops-role", "[unknown]",
          "system:controller:token-cleaner", "extension-apiserver-authentication-reader"]


def _kubernetes_extras_document(data) -> list[dict]:
    """Gateway API Gateways, ListenerSets and routes, network policies of other engines, Karpenter
    EC2NodeClasses, workloads (AI custom resources among them) and LimitRanges, and bindings to
    Kubernetes' own roles, in well-formed, odd and unknown-until-apply shapes."""
    resources: list[dict] = []

    def add(type_: str, name: str, inputs: object) -> None:
        resources.append({"urn": f"urn:pulumi:cn-prod::seedance-gpu::{type_}::{name}", "type": type_, "name": name,
                          "custom": True, "inputs": inputs})

    for ns, cls in (("edge", "internal"), ("data", "personal")):
        add("kubernetes:core/v1:Namespace", ns, {"metadata": {"name": ns, "labels": {"seedance.io/data-class": cls}}})
        add("kubernetes:networking.k8s.io/v1:NetworkPolicy", f"deny-{ns}", {"metadata": {"name": "deny", "namespace": ns},
            "spec": {"podSelector": {}, "policyTypes": ["Ingress", "Egress"]}})
    listener = st.one_of(st.just("[unknown]"), st.fixed_dictionaries(
        {"name": st.sampled_from(["http", "https", "web"]), "port": st.sampled_from([80, 443, 8080]),
         "protocol": st.sampled_from(_PROTOCOLS)},
        optional={"tls": st.sampled_from([{"mode": "Passthrough"}, "[unknown]"])}))
    for k in range(data.draw(st.integers(0, 2), label="gateways")):
        listeners = data.draw(st.one_of(st.just("[unknown]"), st.lists(listener, max_size=3)), label="listeners")
        group = data.draw(st.sampled_from(["gateway.networking.k8s.io/v1", "gateway.networking.k8s.io/v1beta1",
                                           "networking.istio.io/v1beta1"]), label="gw-group")
        kind = data.draw(st.sampled_from(["Gateway", "Gateway", "ListenerSet", "GatewayPatch"]), label="gw-kind")
        gw_spec = {"listeners": listeners}
        if data.draw(st.booleans(), label="default-gateway"):
            gw_spec["defaultScope"] = "All"
        add(f"kubernetes:{group}:{kind}", f"gw{k}", {"metadata": {"name": f"gw{k}", "namespace": "edge"}, "spec": gw_spec})
    parent = st.one_of(st.just("[unknown]"), st.fixed_dictionaries(
        {"name": st.sampled_from(["gw0", "gw0", "gw1", "[unknown]"])},
        optional={"sectionName": st.sampled_from(["http", "web"]), "port": st.sampled_from([80, 8080]),
                  "namespace": st.sampled_from(["edge", "data", "[unknown]"]),
                  "kind": st.sampled_from(["Gateway", "ListenerSet", "Service"])}))
    for k in range(data.draw(st.integers(0, 3), label="routes")):
        spec = data.draw(st.one_of(st.just("[unknown]"), st.fixed_dictionaries({
            "parentRefs": st.one_of(st.just("[unknown]"), st.lists(parent, max_size=2)),
            "rules": st.one_of(st.just("[unknown]"), st.lists(st.sampled_from(_RULES), max_size=2))},
            optional={"useDefaultGateway": st.just("All")})), label="route")
        kind = data.draw(st.sampled_from(["HTTPRoute", "HTTPRoute", "GRPCRoute"]), label="route-kind")
        add(f"kubernetes:gateway.networking.k8s.io/v1:{kind}", f"route{k}", {"metadata": {"name": f"route{k}", "namespace": "edge"},
                                                                           "spec": spec})
    rules = st.sampled_from([[{"fromEntities": ["world"]}], [], None, "[unknown]", [{}]])
    engine_spec = st.one_of(st.just("[unknown]"), st.none(), st.fixed_dictionaries(
        {}, optional={"ingress": rules, "egress": rules, "ingressDeny": rules}))
    for k in range(data.draw(st.integers(0, 2), label="other-engines")):
        type_ = data.draw(st.sampled_from(["kubernetes:cilium.io/v2:CiliumNetworkPolicy",
                                           "kubernetes:cilium.io/v2:CiliumClusterwideNetworkPolicy",
                                           "kubernetes:projectcalico.org/v3:GlobalNetworkPolicy"]), label="engine")
        inputs = {"metadata": {"name": f"pol{k}", "namespace": data.draw(st.sampled_from(["edge", "data"]), label="pol-ns")}}
        if data.draw(st.booleans(), label="specs"):
            inputs["specs"] = data.draw(st.one_of(st.just("[unknown]"), st.lists(engine_spec, max_size=2)), label="spec-list")
        else:
            inputs["spec"] = data.draw(engine_spec, label="spec")
        add(type_, f"pol{k}", inputs)
    mapping = st.one_of(st.just("[unknown]"), st.fixed_dictionaries({"deviceName": st.sampled_from(["/dev/xvda", "/dev/xvdb"])}, optional={
        "ebs": st.one_of(st.just("[unknown]"), st.fixed_dictionaries({}, optional={
            "encrypted": st.sampled_from([True, False, "[unknown]"]),
            "kmsKeyID": st.sampled_from(["arn:key", "alias/aws/ebs", "[unknown]"])})),
        "rootVolume": st.booleans()}))
    term = st.sampled_from([{"alias": "al2023@latest"}, {"alias": "bottlerocket@v1.20.0"}, {"id": "ami-0123456789abcdef0"},
                            {"name": "gpu-*", "owner": "amazon"}, {"ssmParameter": "/aws/service/eks/x"},
                            {"ssmParameter": "arn:aws:ssm:us-east-1::parameter/aws/service/eks/x"}, "[unknown]", {}])
    node_spec = st.one_of(st.just("[unknown]"), st.fixed_dictionaries({}, optional={
        "amiFamily": st.sampled_from(["AL2023", "Custom", "Bottlerocket", "[unknown]"]),
        "amiSelectorTerms": st.one_of(st.just("[unknown]"), st.lists(term, max_size=2)),
        "blockDeviceMappings": st.one_of(st.just("[unknown]"), st.lists(mapping, max_size=2)),
        "metadataOptions": st.one_of(st.just("[unknown]"), st.fixed_dictionaries({}, optional={
            "httpTokens": st.sampled_from(["required", "optional", "[unknown]"])})),
        "associatePublicIPAddress": st.sampled_from([True, False, "[unknown]"])}))
    for k in range(data.draw(st.integers(0, 2), label="node-classes")):
        version = data.draw(st.sampled_from(["v1", "v1beta1"]), label="nc-version")
        kind = data.draw(st.sampled_from(["EC2NodeClass", "EC2NodeClass", "EC2NodeClassPatch"]), label="nc-kind")
        add(f"kubernetes:karpenter.k8s.aws/{version}:{kind}", f"nc{k}", {"metadata": {"name": f"nc{k}"},
                                                                             "spec": data.draw(node_spec, label="nc-spec")})
    quantity = st.sampled_from(["500m", "1", "2", "4Gi", "16Gi", 3, "[unknown]", "0"])
    resource_list = st.one_of(st.just("[unknown]"), st.dictionaries(st.sampled_from(["cpu", "memory", "nvidia.com/gpu"]),
                                                                      quantity, max_size=2))
    flag = st.sampled_from([True, False, "[unknown]"])
    security = st.one_of(st.just("[unknown]"), st.fixed_dictionaries({}, optional={
        "privileged": flag, "readOnlyRootFilesystem": flag, "allowPrivilegeEscalation": flag, "runAsNonRoot": flag,
        "capabilities": st.one_of(st.just("[unknown]"), st.fixed_dictionaries({}, optional={
            "add": st.one_of(st.just("[unknown]"), st.lists(st.sampled_from(["NET_ADMIN", "NET_BIND_SERVICE"]), max_size=2)),
            "drop": st.one_of(st.just("[unknown]"), st.just(["ALL"]))})),
        "seccompProfile": st.sampled_from([{"type": "Unconfined"}, {"type": "RuntimeDefault"}, "[unknown]"]),
        "procMount": st.sampled_from(["Default", "Unmasked"])}))
    env = st.one_of(st.just("[unknown]"), st.lists(st.fixed_dictionaries(
        {"name": st.sampled_from(["HF_TOKEN", "MODE", "[unknown]"])}, optional={"value": st.just("x")}), max_size=2))
    container = st.fixed_dictionaries({"image": st.sampled_from(["x", "registry.example/x@sha256:" + "0" * 64])}, optional={
        "name": st.sampled_from(["app", "worker"]),
        "resources": st.one_of(st.just("[unknown]"), st.fixed_dictionaries({}, optional={"requests": resource_list,
                                                                                         "limits": resource_list})),
        "securityContext": security, "env": env,
        "volumeMounts": st.one_of(st.just("[unknown]"), st.lists(st.fixed_dictionaries(
            {"name": st.sampled_from(["h", "e", "[unknown]"]), "mountPath": st.just("/m")}), max_size=2)),
        "ports": st.lists(st.fixed_dictionaries({"containerPort": st.just(80)}, optional={"hostPort": st.just(8080)}), max_size=1)})
    pod_spec = st.one_of(st.just("[unknown]"), st.fixed_dictionaries({"containers": st.one_of(st.just("[unknown]"), st.lists(container, max_size=2))}, optional={
        "hostNetwork": flag, "hostIPC": flag, "automountServiceAccountToken": st.booleans(), "securityContext": security,
        "volumes": st.lists(st.sampled_from([{"name": "h", "hostPath": {"path": "/"}}, {"name": "e", "emptyDir": {}}, "[unknown]"]), max_size=2),
        "resources": st.fixed_dictionaries({}, optional={"limits": resource_list})}))
    template = st.fixed_dictionaries({"spec": pod_spec})
    workload_specs = {
        "kubernetes:core/v1:Pod": pod_spec,
        "kubernetes:apps/v1:Deployment": st.fixed_dictionaries({"template": template}),
        "kubernetes:kubeflow.org/v1:PyTorchJob": st.fixed_dictionaries({"pytorchReplicaSpecs": st.dictionaries(
            st.sampled_from(["Master", "Worker"]), st.fixed_dictionaries({"template": template}), max_size=2)}),
        "kubernetes:ray.io/v1:RayCluster": st.fixed_dictionaries({"headGroupSpec": st.fixed_dictionaries({"template": template}),
                                                                  "workerGroupSpecs": st.lists(st.fixed_dictionaries({"template": template}), max_size=2)}),
        "kubernetes:batch.volcano.sh/v1alpha1:Job": st.fixed_dictionaries({"tasks": st.lists(st.fixed_dictionaries({"template": template}), max_size=2)}),
        "kubernetes:nvidia.com/v1:ClusterPolicy": st.fixed_dictionaries({"dcgm": pod_spec}),
        "kubernetes:apps.kruise.io/v1alpha1:UnitedDeployment": st.fixed_dictionaries({
            "template": st.fixed_dictionaries({"cloneSetTemplate": st.fixed_dictionaries({"spec": st.fixed_dictionaries({"template": template})})}),
            "topology": st.fixed_dictionaries({"subsets": st.lists(st.fixed_dictionaries({"name": st.just("s")}, optional={
                "patch": st.one_of(st.just("[unknown]"), st.fixed_dictionaries({"spec": st.fixed_dictionaries({"template": template})}),
                                   st.fixed_dictionaries({"spec": pod_spec}))}),
                max_size=2)})}),
        "kubernetes:serving.kserve.io/v1beta1:InferenceService": st.fixed_dictionaries({"predictor": st.one_of(
            st.just("[unknown]"), st.fixed_dictionaries({}, optional={"model": st.one_of(st.just("[unknown]"), container),
                                                                      "containers": st.lists(container, max_size=1),
                                                                      "hostNetwork": flag}))}),
        "kubernetes:trainer.kubeflow.org/v1alpha1:ClusterTrainingRuntime": st.fixed_dictionaries({"template": st.fixed_dictionaries(
            {"spec": st.fixed_dictionaries({"replicatedJobs": st.lists(st.one_of(st.just("[unknown]"), st.fixed_dictionaries(
                {"template": st.fixed_dictionaries({"spec": st.fixed_dictionaries({"template": template})})})), max_size=2)})})}),
    }
    for k in range(data.draw(st.integers(0, 3), label="workloads")):
        type_ = data.draw(st.sampled_from(sorted(workload_specs)), label="workload-type")
        spec = data.draw(st.one_of(st.just("[unknown]"), workload_specs[type_]), label="workload-spec")
        add(type_, f"w{k}", {"metadata": {"name": f"w{k}", "namespace": data.draw(st.sampled_from(["edge", "data", "[unknown]"]), label="w-ns")},
                             "spec": spec})
    item = st.one_of(st.just("[unknown]"), st.fixed_dictionaries({"type": st.sampled_from(["Container", "Pod", "[unknown]"])}, optional={
        field: resource_list for field in ("default", "defaultRequest", "max", "min", "maxLimitRequestRatio")}))
    for k in range(data.draw(st.integers(0, 2), label="limit-ranges")):
        kind = data.draw(st.sampled_from(["LimitRange", "LimitRangePatch"]), label="lr-kind")
        add(f"kubernetes:core/v1:{kind}", f"lr{k}", {"metadata": {"name": f"lr{k}", "namespace": data.draw(st.sampled_from(["edge", "data"]), label="lr-ns")},
                                                    "spec": {"limits": data.draw(st.one_of(st.just("[unknown]"), st.lists(item, max_size=2)), label="lr-items")}})
    for k in range(data.draw(st.integers(0, 3), label="bindings")):
        kind = data.draw(st.sampled_from(["ClusterRoleBinding", "RoleBinding"]), label="binding-kind")
        add(f"kubernetes:rbac.authorization.k8s.io/v1:{kind}", f"b{k}", {
            "metadata": {"name": f"b{k}", "namespace": data.draw(st.sampled_from(["edge", "kube-system"]), label="b-ns")},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io",
                        "kind": data.draw(st.sampled_from(["ClusterRole", "Role"]), label="role-kind"),
                        "name": data.draw(st.sampled_from(_ROLES), label="role")},
            "subjects": [{"kind": "ServiceAccount", "name": "app", "namespace": "edge"}]})
    return resources


@settings(max_examples=max(1, round(40 * SCALE)), deadline=None, derandomize=SCALE == 1, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_opa_and_regorus_agree_on_kubernetes_extras(go_engine, bundle, stack_input, data) -> None:
    gi = stack_input("cn-prod").with_frameworks(["gdpr", "mlps-l3"])
    doc = {**gi.document, "resources": _kubernetes_extras_document(data), "placeholders": {}}
    gi = GateInput(validate_document(doc), gi.policy, gi.plan, gi.estimate, None, None)
    embedded = evaluate(gi, bundle, RegorusEngine(), as_of=AS_OF).to_json()  # raises if regorus cannot decide
    assert evaluate(gi, bundle, go_engine, as_of=AS_OF).to_json() == embedded


_FLIPS = {"required": "optional", "aws:kms": "AES256", "Deny": "Allow", "private": "public-read", "TLSv1.2_2021": "TLSv1"}


def _flipped(value):  # noqa: ANN001, ANN202
    """The value with every boolean negated and the usual secure settings swapped for weak ones."""
    if isinstance(value, dict):
        return {k: _flipped(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_flipped(v) for v in value]
    if isinstance(value, bool):
        return not value
    if isinstance(value, str):
        return _FLIPS.get(value, value)
    return value


@pytest.mark.parametrize("stack", ["eu-prod", "cn-prod", "dev"])
def test_opa_and_regorus_agree_when_every_setting_is_flipped(go_engine, bundle, stack_input, stack: str) -> None:
    """Every boolean negated and secure values made weak, in every resource: most rules then report
    something, so an engine that drops findings when controls share one query (regorus 0.13 once
    returned lib.checks.imdsv1 empty after other controls had run) parts from OPA here."""
    gi = stack_input(stack).with_frameworks(["gdpr", "mlps-l3"])
    doc = copy.deepcopy(gi.document)
    for r in doc["resources"]:
        r["inputs"] = _flipped(r.get("inputs") or {})
    gi = dataclasses.replace(gi, document=validate_document(doc))
    embedded = evaluate(gi, bundle, RegorusEngine(), as_of=AS_OF).to_json()
    assert embedded["findings"], "flipping every setting should give findings"
    assert evaluate(gi, bundle, go_engine, as_of=AS_OF).to_json() == embedded
