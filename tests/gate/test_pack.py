"""The Pulumi policy pack's validators, called directly (the pack's gRPC server needs the Pulumi CLI)."""

from __future__ import annotations

import datetime as dt
import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import SimpleNamespace

import pytest
from pulumi_policy import EnforcementLevel, ResourceValidationPolicy, StackValidationPolicy

from seedance.gate import RegorusEngine
from seedance.gate.inputs import GateInput
from seedance.gate.pack import RESOURCE_LOCAL, StackContext, make_policies, policy_name, resource_validator, stack_validator
from seedance.gate.run import evaluate
from seedance.policy import load_policy

REPO = Path(__file__).resolve().parents[2]
SAMPLE = json.loads((REPO / "tests" / "synth" / "samples" / "eu-prod.json").read_text())
AS_OF = dt.date(2026, 6, 1)


def _context(frameworks: list[str]) -> StackContext:
    policy = load_policy(REPO / "stacks" / "policies" / "eu-prod.yaml").policy.model_dump(mode="json", by_alias=True)
    policy["compliance"]["frameworks"] = frameworks
    return StackContext("eu-prod", "seedance-gpu", policy, None, {"monthly_total": 1000.0, "currency": "USD"}, AS_OF)


class Collector:
    def __init__(self) -> None:
        self.violations: list[tuple[str, str | None]] = []

    def __call__(self, message: str, urn: str | None = None) -> None:
        self.violations.append((message, urn))


def _lt(http_tokens: str) -> SimpleNamespace:
    return SimpleNamespace(
        resource_type="aws:ec2/launchTemplate:LaunchTemplate",
        urn="urn:pulumi:eu-prod::seedance-gpu::aws:ec2/launchTemplate:LaunchTemplate::lt",
        name="lt",
        props={"metadataOptions": {"httpTokens": http_tokens}, "tags": {"data-class": "internal"}},
    )


def test_enforcement_levels_follow_severity(bundle) -> None:
    policies = {p.name: p for p in make_policies(bundle)}
    assert len(policies) == len(bundle.controls) + 1  # and the pack's own seedance-gate check
    assert policies["seedance-gate-inputs"].enforcement_level == EnforcementLevel.MANDATORY
    assert policies["gdpr-32-1b-1"].enforcement_level == EnforcementLevel.MANDATORY
    assert policies["gdpr-30-1"].enforcement_level == EnforcementLevel.ADVISORY
    assert policies["mlps-l3-8-2-4-kms"].enforcement_level == EnforcementLevel.ADVISORY
    # every control reads more than one resource (its provider's tags, region and namespace, the
    # resources it joins): all are stack validations, on the document `seedance check` reads
    assert RESOURCE_LOCAL == frozenset()
    assert not any(isinstance(p, ResourceValidationPolicy) for p in policies.values())
    assert isinstance(policies["gdpr-44-1"], StackValidationPolicy)
    assert isinstance(policies["gdpr-25-2-1"], StackValidationPolicy)
    # the controls that judge launch templates report groups whose template the stack lacks
    assert isinstance(policies["gdpr-32-1b-1"], StackValidationPolicy)
    assert isinstance(policies["mlps-l3-8-1-4-10"], StackValidationPolicy)
    assert policy_name("MLPS-L3-8.1.4.5-6") == "mlps-l3-8-1-4-5-6"
    assert RESOURCE_LOCAL <= {c.control_id for c in bundle.controls}


def test_resource_validator_reports_imdsv1(bundle) -> None:
    ctx = _context(["gdpr"])
    validate = resource_validator(bundle.control("GDPR-32.1b-1"), bundle, RegorusEngine(), lambda urn: ctx)
    bad, good = Collector(), Collector()
    validate(_lt("optional"), bad)
    validate(_lt("required"), good)
    assert bad.violations == [(
        "launch template allows IMDSv1 (metadataOptions.httpTokens is \"optional\", not \"required\") "
        "[GDPR-32.1b-1 Art. 32(1)(b)] fix: Scope IAM actions and resources; list the roles iam:PassRole may pass; "
        "set metadataOptions.httpTokens \"required\" on the launch template; name the principals a role trusts "
        "(or add an aws:PrincipalOrgID / aws:SourceAccount condition) and condition a web-identity trust on "
        "the provider's :sub.",
        None,
    )]
    assert good.violations == []


def test_null_properties_are_unset_not_an_engine_error(bundle) -> None:
    # resource outputs (what stack validations see) carry null for every unset property
    ctx = _context(["gdpr"])
    lt = _lt("optional")
    lt.props.update({"blockDeviceMappings": None, "networkInterfaces": None, "tagSpecifications": None})
    validate = resource_validator(bundle.control("GDPR-32.1b-1"), bundle, RegorusEngine(), lambda urn: ctx)
    out = Collector()
    validate(lt, out)
    assert [m.split(" [")[0] for m, _ in out.violations] == [
        "launch template allows IMDSv1 (metadataOptions.httpTokens is \"optional\", not \"required\")"]
    doc = json.loads(json.dumps(SAMPLE))
    for r in doc["resources"]:
        r["inputs"]["tags"] = None
        r["inputs"].pop("defaultTags", None)  # nor default tags from the provider
    stack = stack_validator(bundle.control("BUDGET-TAGS-1"), bundle, RegorusEngine(), lambda urn: ctx)
    out = Collector()
    stack(_stack_args(doc), out)  # raised "object.union expects object argument" before
    assert out.violations and all("missing cost-allocation tag(s)" in m for m, _ in out.violations)


def test_resource_validator_respects_frameworks(bundle) -> None:
    validate = resource_validator(bundle.control("GDPR-32.1b-1"), bundle, RegorusEngine(), lambda urn: _context([]))
    out = Collector()
    validate(_lt("optional"), out)
    assert out.violations == []


def _stack_args(doc: dict) -> SimpleNamespace:
    return SimpleNamespace(resources=[
        SimpleNamespace(resource_type=r["type"], urn=r["urn"], name=r["name"], props=r["inputs"], parent=SimpleNamespace(urn=r["parent"]) if r["parent"] else None)
        for r in doc["resources"]
    ])


def test_stack_validator_reports_missing_pieces_on_the_stack_and_resources(bundle) -> None:
    doc = json.loads(json.dumps(SAMPLE))
    bucket = next(r for r in doc["resources"] if r["name"] == "storage-finetune-datasets")
    doc["resources"] = [r for r in doc["resources"] if r["type"] != "aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock" or not r["name"].startswith("storage-finetune-datasets")]
    validate = stack_validator(bundle.control("GDPR-25.2-1"), bundle, RegorusEngine(), lambda urn: _context(["gdpr"]))
    out = Collector()
    validate(_stack_args(doc), out)
    assert [(m.split(" [")[0], u) for m, u in out.violations] == [("bucket has no public access block", bucket["urn"])]


def test_stack_validator_stack_wide_finding_has_no_urn(bundle) -> None:
    ctx = _context(["gdpr"])
    ctx = StackContext(ctx.stack, ctx.project, ctx.policy, None, {"monthly_total": 999999999.0, "currency": "USD"}, AS_OF)
    validate = stack_validator(bundle.control("BUDGET-COST-1"), bundle, RegorusEngine(), lambda urn: ctx)
    out = Collector()
    validate(_stack_args(SAMPLE), out)
    ((message, urn),) = out.violations
    assert urn is None and message.startswith("projected monthly cost 999999999.00 USD exceeds the budget")


def _as_served(r: dict, wrap: bool) -> SimpleNamespace:
    """A resource as the policy server hands it over: props (and the provider's) wrapped in
    pulumi_policy's proxies, which raise on unknown values when read."""
    from pulumi_policy.proxy import unknown_checking_proxy

    inputs = r["inputs"]
    if r["type"] == "aws:ec2/launchTemplate:LaunchTemplate" and r.get("id"):
        # the server hands over a resource's outputs, without its id: a launch template's ARN ends with it
        inputs = {**inputs, "arn": f"arn:aws:ec2:{r['region']}:111122223333:launch-template/{r['id']}"}
    props = unknown_checking_proxy(inputs) if wrap else inputs
    provider_props = {"region": r["region"]} if r.get("region") else {}
    provider = SimpleNamespace(props=unknown_checking_proxy(provider_props) if wrap else provider_props)
    # a stack policy's property dependencies name the policy resources each input came from
    deps = {k: [SimpleNamespace(urn=u) for u in urns] for k, urns in r.get("property_dependencies", {}).items()}
    return SimpleNamespace(resource_type=r["type"], urn=r["urn"], name=r["name"], props=props, provider=provider,
                           parent=SimpleNamespace(urn=r["parent"]) if r["parent"] else None, property_dependencies=deps)


@pytest.mark.parametrize(("frameworks", "wrap"), [(["gdpr", "mlps-l3"], False), (["gdpr", "mlps-l3"], True)])
def test_pack_reports_exactly_what_the_gate_reports(bundle, frameworks, wrap) -> None:
    """Resource validations on each resource plus stack validations give the gate's (unwaived) findings,
    with props as plain dicts and as the policy server wraps them."""
    ctx = _context(frameworks)
    engine = RegorusEngine()
    reported: set[tuple[str, str | None, str]] = set()
    for c in bundle.controls:
        if c.control_id in RESOURCE_LOCAL:
            validate = resource_validator(c, bundle, engine, lambda urn: ctx)
            for r in SAMPLE["resources"]:
                out = Collector()
                validate(_as_served(r, wrap), out)
                reported |= {(c.control_id, r["urn"], m.split(" [")[0]) for m, _ in out.violations}
        else:
            out = Collector()
            stack_validator(c, bundle, engine, lambda urn: ctx)(
                SimpleNamespace(resources=[_as_served(r, wrap) for r in SAMPLE["resources"]]), out)
            stack_urn = "urn:pulumi:eu-prod::seedance-gpu::pulumi:pulumi:Stack::seedance-gpu-eu-prod"
            reported |= {(c.control_id, u or stack_urn, m.split(" [")[0]) for m, u in out.violations}
    gate = evaluate(GateInput(SAMPLE, ctx.policy, None, ctx.estimate, None), bundle, engine, as_of=AS_OF)
    expected = {(f.control_id, f.urn, f.message) for f in gate.findings if not f.waived}
    assert expected and reported == expected


def test_values_preview_does_not_know_do_not_skip_the_check(bundle) -> None:
    # an unknown top-level value made reading the wrapped props raise, and pulumi_policy then skips
    # the check during preview; the pack reads them unchecked, unknowns as the placeholder
    from pulumi_policy.proxy import UNKNOWN_STRING_VALUE, unknown_checking_proxy

    ctx = _context(["gdpr"])
    (c,) = [c for c in bundle.controls if c.control_id == "GDPR-32.1b-1"]
    lt = _lt("optional")
    lt.props = unknown_checking_proxy({**lt.props, "imageId": UNKNOWN_STRING_VALUE})
    out = Collector()
    resource_validator(c, bundle, RegorusEngine(), lambda urn: ctx)(lt, out)
    assert len(out.violations) == 1 and "IMDSv1" in out.violations[0][0]


def test_a_resource_in_another_region_breaks_residency_as_in_check(bundle) -> None:
    ctx = _context(["gdpr"])
    (c,) = [c for c in bundle.controls if c.control_id == "GDPR-44-1"]
    bucket = next(r for r in SAMPLE["resources"]
                  if r["type"] == "aws:s3/bucket:Bucket" and (r["inputs"].get("tags") or {}).get("data-class") == "personal")
    moved = {**bucket, "region": "us-east-1"}
    served = _as_served(moved, True)
    out = Collector()
    validate = resource_validator(c, bundle, RegorusEngine(), lambda urn: ctx) if c.control_id in RESOURCE_LOCAL else None
    if validate is not None:
        validate(served, out)
    else:
        stack_validator(c, bundle, RegorusEngine(), lambda urn: ctx)(SimpleNamespace(resources=[served]), out)
    assert any("us-east-1" in m for m, _ in out.violations), out.violations


def test_a_stack_whose_policy_cannot_be_read_is_blocked_by_a_mandatory_violation(bundle, tmp_path: Path) -> None:
    policies = {p.name: p for p in make_policies(bundle, project_dir=tmp_path / "nowhere")}
    resources = SimpleNamespace(resources=[_as_served(r, True) for r in SAMPLE["resources"][:5]])
    out = Collector()
    policies["seedance-gate-inputs"].validate(resources, out)
    ((message, _),) = out.violations
    assert message.startswith("the Seedance gate cannot decide, so the deploy is blocked:") and "no Pulumi project" in message
    quiet = Collector()  # the controls themselves do not fail with an error (one clear violation instead)
    policies["budget-cost-1"].validate(resources, quiet)
    policies["gdpr-44-1"].validate(resources, quiet)
    assert quiet.violations == []


def test_validators_run_from_a_pool_of_threads_like_the_pack_server(bundle) -> None:
    """Pulumi's policy server calls validators from gRPC worker threads (a pool of four).

    A regorus engine may only be touched by the thread that made it, so one engine shared by the
    pool panics; each thread must compile and keep its own, and give the same findings.
    """
    ctx = _context(["gdpr", "mlps-l3"])
    engine = RegorusEngine()
    chosen = ["GDPR-32.1b-1", "GDPR-44-2", "MLPS-L3-8.1.3.1c", "MLPS-L3-8.1.4.2d", "GDPR-30-1", "BUDGET-COST-1"]
    validators = [stack_validator(bundle.control(c), bundle, engine, lambda urn: ctx) for c in chosen]
    stack = SimpleNamespace(resources=[_as_served(r, False) for r in SAMPLE["resources"]])

    def run(job: tuple[int, int]) -> list[str]:
        out = Collector()
        validators[job[0]](stack, out)
        return [m for m, _ in out.violations]

    # every validator twice, in a shuffled order
    jobs = [(v, k) for k in range(2) for v in range(len(validators))][::-1]
    serial = [run(j) for j in jobs]  # the main thread's engine is made first
    with ThreadPoolExecutor(max_workers=4) as pool:
        pooled = list(pool.map(run, jobs))
    assert pooled == serial and sum(map(bool, serial)) >= 3


def test_a_control_that_cannot_decide_reports_instead_of_raising(bundle) -> None:
    # a whole list preview does not know yet ("[unknown]") stops the engine on a rule that iterates it
    from pulumi_policy.proxy import UNKNOWN_STRING_VALUE, unknown_checking_proxy

    ctx = _context(["gdpr", "mlps-l3"])
    engine = RegorusEngine()
    cm = next(r for r in SAMPLE["resources"] if r["type"] == "kubernetes:core/v1:ConfigMap")
    served = _as_served(cm, True)
    # (unknown tags no longer stop it: they count as missing tags and an unknown, so personal, data class;
    # nor unknown lifecycle, encryption or replication rules: judged at their worst. A ConfigMap's data
    # still does: README, Known limits)
    served.props = unknown_checking_proxy({**cm["inputs"], "data": UNKNOWN_STRING_VALUE})
    reported: list[str] = []
    for c in bundle.controls:
        if c.control_id in RESOURCE_LOCAL:
            continue
        out = Collector()
        stack_validator(c, bundle, engine, lambda urn: ctx)(SimpleNamespace(resources=[served]), out)  # never raises
        reported += [m for m, _ in out.violations if "cannot decide" in m]
    assert reported and all(m.split(" cannot decide")[0].startswith(("GDPR", "MLPS", "BUDGET")) for m in reported)


def _provider(name: str, props: dict, kind: str = "aws") -> SimpleNamespace:
    return SimpleNamespace(resource_type=f"pulumi:providers:{kind}", urn=f"urn:pulumi:eu-prod::seedance-gpu::pulumi:providers:{kind}::{name}",
                           name=name, props=props)


def _bucket(name: str, provider: SimpleNamespace, inputs: dict) -> SimpleNamespace:
    urn = f"urn:pulumi:eu-prod::seedance-gpu::aws:s3/bucket:Bucket::{name}"
    return SimpleNamespace(resource_type="aws:s3/bucket:Bucket", urn=urn, name=name, props={"bucket": name, **inputs},
                           provider=provider, parent=None, property_dependencies={})


def _messages(bundle, control: str, resources: list) -> list[str]:  # type: ignore[no-untyped-def]
    out = Collector()
    stack_validator(bundle.control(control), bundle, RegorusEngine(), lambda urn: _context(["gdpr"]))(
        SimpleNamespace(resources=resources), out)
    return [m for m, _ in out.violations]


def test_the_pack_reads_each_resource_s_provider_as_check_does(bundle) -> None:
    # red team: the pack's documents held no provider link, so a data class from the provider's
    # default tags was lost, and with two providers each resource got both providers' tags
    personal = _provider("personal", {"region": "eu-central-1", "defaultTags": {"tags": {"data-class": "personal"}}})
    public = _provider("public", {"region": "eu-central-1", "defaultTags": {"tags": {"data-class": "public"}}})
    stray = {"region": "us-east-1"}
    found = _messages(bundle, "GDPR-44-1", [_bucket("p-us", personal, stray), _bucket("q-us", public, stray)])
    assert len(found) == 1 and "us-east-1" in found[0], found
    # an explicit provider without a region reads its environment: the region is not shown
    bare = _provider("elsewhere", {"defaultTags": {"tags": {"data-class": "personal"}}})
    (unknown,) = _messages(bundle, "GDPR-44-1", [_bucket("p-env", bare, {})])
    assert "a region the document does not show ([unknown])" in unknown
    # the default provider without a region is the stack's (the policy's region here); a provider a
    # program names default_eu is the program's own
    default = _provider("default_6_0_0", {"defaultTags": {"tags": {"data-class": "personal"}}})
    assert _messages(bundle, "GDPR-44-1", [_bucket("p-default", default, {})]) == []
    named = _provider("default_eu", {"defaultTags": {"tags": {"data-class": "personal"}}})
    assert len(_messages(bundle, "GDPR-44-1", [_bucket("p-named", named, {})])) == 1
    # an existing resource's ARN names its region, as check reads it
    assert _messages(bundle, "GDPR-44-1", [_bucket("p-arn", bare, {"arn": "arn:aws:s3:eu-central-1::p-arn"})]) == []


def test_another_project_s_stack_of_the_same_name_is_undecided(tmp_path: Path) -> None:
    # red team: started outside the project, the pack read the checkout's example stack of the same
    # name (another project's policy) and passed
    from seedance.gate.errors import GateError
    from seedance.gate.pack import load_context

    with pytest.raises(GateError) as exc:
        load_context("dev", "myproj", REPO / "stacks")
    assert "project 'seedance-gpu'" in str(exc.value) and "'myproj'" in str(exc.value) and "SEEDANCE_PROJECT_DIR" in str(exc.value)
