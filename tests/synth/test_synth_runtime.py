"""The mock-runtime runner: URNs as the engine forms them, normalised inputs, repeatable runs."""

from __future__ import annotations

import pulumi
import pulumi_aws as aws
import pytest

from seedance.synth.document import SECRET, UNKNOWN, normalise, split_provider_ref
from seedance.synth.runtime import run_program


class Box(pulumi.ComponentResource):
    def __init__(self, name: str, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("seedance:test:Box", name, None, opts)
        aws.ec2.LaunchTemplate(
            f"{name}-lt",
            metadata_options=aws.ec2.LaunchTemplateMetadataOptionsArgs(http_tokens="required", http_put_response_hop_limit=2),
            user_data=pulumi.Output.secret("c2VjcmV0"),
            tags={"team": pulumi.Config("seedance").require("team")},
            opts=pulumi.ResourceOptions(parent=self),
        )
        self.register_outputs({})


def program() -> None:
    provider = aws.Provider("aws", region="eu-west-1", allowed_account_ids=["111122223333"])
    Box("box", pulumi.ResourceOptions(providers=[provider]))
    pulumi.export("answer", 42)


def test_document_of_a_small_program():
    result = run_program(program, project="proj", stack="s1", config={"seedance:team": "ml"})
    doc = result.document
    assert sorted(r.type for r in doc.resources) == ["aws:ec2/launchTemplate:LaunchTemplate", "pulumi:providers:aws", "seedance:test:Box"]
    box, lt = doc.by_name("box"), doc.by_name("box-lt")
    # children of the root stack: no stack type in the URN and no parent, as the engine writes them
    assert box.urn == "urn:pulumi:s1::proj::seedance:test:Box::box"
    assert box.parent is None and box.custom is False and box.region is None
    assert lt.urn == "urn:pulumi:s1::proj::seedance:test:Box$aws:ec2/launchTemplate:LaunchTemplate::box-lt"
    assert lt.parent == box.urn
    assert lt.provider == "urn:pulumi:s1::proj::pulumi:providers:aws::aws"
    assert lt.region == "eu-west-1"
    # the mock hands 2 back as 2.0; the document has an int again; secrets are masked
    assert lt.inputs["metadataOptions"] == {"httpTokens": "required", "httpPutResponseHopLimit": 2}
    assert isinstance(lt.inputs["metadataOptions"]["httpPutResponseHopLimit"], int)
    assert lt.inputs["userData"] == SECRET
    assert lt.inputs["tags"] == {"team": "ml"}
    # the mock runtime's ids are kept for resources (what other resources' inputs refer to), not components
    assert lt.id and box.id is None
    assert result.outputs == {"answer": 42}


def test_runs_repeat_in_one_process_with_fresh_config():
    first = run_program(program, project="proj", stack="s1", config={"seedance:team": "a"})
    second = run_program(program, project="proj", stack="s2", config={"seedance:team": "b"})
    assert len(first.document.resources) == len(second.document.resources) == 3
    assert second.document.by_name("box-lt").inputs["tags"] == {"team": "b"}
    assert second.document.by_name("box").urn.startswith("urn:pulumi:s2::proj::")
    with pytest.raises(pulumi.ConfigMissingError):
        run_program(program, project="proj", stack="s3", config={})


def test_normalise():
    assert normalise({"a": 3.0, "b": 2.5, "c": [1.0, True], "__defaults": ["x"]}) == {"a": 3, "b": 2.5, "c": [1, True]}
    assert normalise("04da6b54-80e4-46f7-96ec-b56ff0331ba9") == UNKNOWN
    sig = "4dabf18193072939515e22adb298388d"
    assert normalise({sig: "1b47061264138c4ac30d75fd1eb44270", "ciphertext": "xyz"}) == SECRET
    assert normalise({sig: "5cf8f73096256a8f31e491e813e4eb8e", "urn": "urn:pulumi:s::p::t::n", "id": "i"}) == "urn:pulumi:s::p::t::n"
    assert normalise({sig: "d0e6a833031e9bbcd3f4e8bde6ca49a4", "value": 4.0}) == 4
    assert normalise({sig: "d0e6a833031e9bbcd3f4e8bde6ca49a4"}) == UNKNOWN
    assert split_provider_ref("urn:pulumi:s::p::pulumi:providers:aws::default_7_0_0::04da6b54-x") == "urn:pulumi:s::p::pulumi:providers:aws::default_7_0_0"


def _named(bucket: str, role: str, role_prefix: str | None = None) -> None:
    aws.s3.Bucket(bucket)
    aws.iam.Role(role, assume_role_policy="{}", name_prefix=role_prefix)


def test_a_name_pulumi_would_make_too_long_fails_as_a_preview_does():
    from seedance.synth.runtime import SynthError

    # NAME-xxxxxxx: a bucket of 55 characters + 8 fits S3's 63; one more does not
    ok = run_program(lambda: _named("b" * 55, "r" * 56), project="p", stack="s", default_region="eu-west-1")
    names = {r.type: r for r in ok.document.resources}
    assert ok.outputs == {} and len(names) == 2
    with pytest.raises(SynthError, match=r"aws:s3/bucket:Bucket 'b{56}': Pulumi would name it b{56}-xxxxxxx, 64 "
                                         r"characters; AWS allows at most 63"):
        run_program(lambda: _named("b" * 56, "r"), project="p", stack="s", default_region="eu-west-1")
    with pytest.raises(SynthError, match=r"aws:iam/role:Role 'r{57}': .* 65 characters; AWS allows at most 64"):
        run_program(lambda: _named("b", "r" * 57), project="p", stack="s", default_region="eu-west-1")
    # a prefix gets the provider's 26 characters instead
    run_program(lambda: _named("b", "r" * 57, role_prefix="short-"), project="p", stack="s", default_region="eu-west-1")


def _subnet_lookups() -> None:
    given = ["subnet-0000000000000000a", "subnet-0000000000000000b", "subnet-0000000000000000c"]
    zones = [aws.ec2.get_subnet_output(id=s).availability_zone for s in given]
    listed = aws.ec2.get_subnets_output(filters=[aws.ec2.GetSubnetsFilterArgs(name="subnet-id", values=given),
                                                 aws.ec2.GetSubnetsFilterArgs(name="availability-zone", values=["eu-west-1a"])]).ids
    pulumi.export("zones", pulumi.Output.all(*zones))
    pulumi.export("listed", listed)


def test_subnet_lookups_answer_offline_from_the_zones_given_else_a_zone_of_each_subnets_own():
    cfg = {"aws:region": "eu-west-1"}
    out = run_program(_subnet_lookups, project="p", stack="s", config=cfg).outputs
    # nothing given: three zones of their own, each counted as one of the zones asked for
    assert len(set(out["zones"])) == 3
    assert out["listed"] == ["subnet-0000000000000000a", "subnet-0000000000000000b", "subnet-0000000000000000c"]
    given = {"subnet-0000000000000000a": "eu-west-1b", "subnet-0000000000000000b": "eu-west-1a"}
    out = run_program(_subnet_lookups, project="p", stack="s", config=cfg, subnet_zones=given).outputs
    assert out["zones"][:2] == ["eu-west-1b", "eu-west-1a"]
    assert out["listed"] == ["subnet-0000000000000000b", "subnet-0000000000000000c"]
