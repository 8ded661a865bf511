"""`seedance init`: a new project that validates, synthesises and passes the gate as written."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import jsonschema
import pytest
import yaml

from seedance.cli import main
from seedance.policy import load_policy
from seedance.pricing import load_catalog
from seedance.scaffold import ScaffoldError, ScaffoldOptions, project_files, project_name, suggested_budget, write_project

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ["SEEDANCE_SHARED_DATA"]) if os.environ.get("SEEDANCE_SHARED_DATA") else REPO.parent / "shared" / "data"


def test_suggested_budget_by_hand() -> None:
    assert suggested_budget(3400) == 7600  # 3400 / 0.45 = 7,555.6, rounded up to two significant digits
    assert suggested_budget(51_000) == 120_000  # 113,333
    assert suggested_budget(45) == 100
    assert suggested_budget(0) == 100


def test_project_name_from_a_directory(tmp_path: Path) -> None:
    assert project_name(tmp_path / "My GPU platform!") == "My-GPU-platform"


def test_files_are_valid_pulumi_and_seedance(tmp_path: Path) -> None:
    files = project_files(ScaffoldOptions("gpu", "dev", "us-east-1", cost_center="CC-9"), load_catalog())
    assert set(files) == {"Pulumi.yaml", "Pulumi.dev.yaml", "__main__.py", "requirements.txt", "policies/dev.yaml",
                          "policy-pack/PulumiPolicy.yaml", "policy-pack/__main__.py", "policy-pack/requirements.txt"}
    # Pulumi.yaml against the official project schema (shared fixtures)
    schema = json.loads((SHARED / "fixtures" / "pulumi-schema" / "pulumi-project.schema.json").read_text())
    jsonschema.validate(yaml.safe_load(files["Pulumi.yaml"]), schema)
    assert yaml.safe_load(files["Pulumi.dev.yaml"])["config"] == {"aws:region": "us-east-1", "seedance:policy": "policies/dev.yaml"}
    compile(files["__main__.py"], "__main__.py", "exec")
    write_project(tmp_path, files)
    policy = load_policy(tmp_path / "policies" / "dev.yaml").policy
    assert policy.cloud.region == "us-east-1" and policy.compliance.frameworks == []
    assert policy.metadata.tags["cost-center"] == "CC-9"


@pytest.mark.parametrize(("region", "environment", "frameworks", "currency"), [
    ("us-east-1", "dev", [], "USD"),
    ("eu-central-1", "prod", ["gdpr"], "USD"),
    ("cn-north-1", "prod", ["mlps-l3"], "CNY"),
])
def test_a_new_project_passes_the_gate(tmp_path: Path, region: str, environment: str, frameworks: list[str],
                                       currency: str, capsys: pytest.CaptureFixture[str]) -> None:
    project = tmp_path / "platform"
    assert main(["init", str(project), "--region", region, "--environment", environment, "--cost-center", "CC-1",
                 "--account-id", "123456789012", "--cluster-name", "gpu"]) == 0
    out = capsys.readouterr().out
    assert "wrote" in out and re.search(rf"budget: [0-9,.]+ {currency} per month.*estimate is [0-9,.]+ {currency}\n", out)
    loaded = load_policy(project / "policies" / "dev.yaml")
    assert [f.value for f in loaded.policy.compliance.frameworks] == frameworks
    assert loaded.policy.budget.currency.value == currency
    # the default budget is the starter's own planned estimate plus 25%, rounded up
    from seedance.estimate.estimate import estimate_policy
    from seedance.planner.planner import plan_policy

    total = estimate_policy(loaded, load_catalog(), plan_policy(loaded, load_catalog())).total
    assert loaded.policy.budget.monthly_amount == suggested_budget(total)
    assert main(["check", "dev", "--project-dir", str(project), "-f", "json"]) == 0
    decision = json.loads(capsys.readouterr().out)
    # the controls that applied: the budget's and those of the starter's frameworks
    from seedance.gate.bundle import load_bundle

    applied = [c for c in load_bundle().controls if c.framework in ("budget", *frameworks)]
    assert decision["decision"] == "pass" and decision["counts"]["mandatory"] == 0
    assert decision["controlsEvaluated"] == len(applied) < len(load_bundle().controls)
    # the default budget trips no threshold: no budget finding, but for China, whose public data has
    # no service prices, the note that the estimate is a lower bound
    budget = [f["message"] for f in decision["findings"] if f["controlId"].startswith("BUDGET-")]
    if currency == "CNY":
        assert len(budget) == 1 and "component(s) unpriced" in budget[0] and "lower bound" in budget[0]
        # which a refresh cannot price (it fetches instance prices only): the remediation does not send there
        [fix] = [f["remediation"] for f in decision["findings"] if f["controlId"] == "BUDGET-COST-2"]
        assert fix.endswith("or reduce the plan's cost. Unpriced components have no price in the bundled data for the "
                            "region (a price refresh fetches EC2 instance prices only): the projection is a lower bound, "
                            "so keep the budget's margin for them.")
    else:
        assert budget == []


def test_without_a_cost_center_the_gate_blocks_on_tags_only(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    project = tmp_path / "p"
    assert main(["init", str(project), "--region", "us-west-2"]) == 0
    assert "warning: no --cost-center" in capsys.readouterr().err  # said up front, not only by the gate
    assert main(["check", "dev", "--project-dir", str(project), "-f", "json"]) == 1
    decision = json.loads(capsys.readouterr().out)
    mandatory = {f["controlId"] for f in decision["findings"] if f["severity"] == "mandatory" and not f["waived"]}
    assert mandatory == {"BUDGET-TAGS-1"}


def test_nothing_is_overwritten(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "Pulumi.yaml").write_text("name: mine\n")
    assert main(["init", str(tmp_path), "--region", "us-east-1"]) == 1
    assert "not overwriting existing file(s)" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["Pulumi.yaml"]
    assert (tmp_path / "Pulumi.yaml").read_text() == "name: mine\n"


def _usage_error(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    """Run ``seedance init ARGS``: a malformed command line exits 2 (as for every command), with a usage
    message and no traceback or internal error; the message is returned."""
    assert main(["init", *args]) == 2
    err = capsys.readouterr().err
    assert "Usage: seedance init" in err and "Traceback" not in err and "internal error" not in err
    return err


def test_bad_options_are_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    d = lambda name: str(tmp_path / name)  # noqa: E731
    err = _usage_error(capsys, d("a"), "--region", "eu-centrall-1")
    assert "Invalid value for --region" in err and "closest known: eu-central-1" in err
    err = _usage_error(capsys, d("b"), "--region", "us-east-1", "--stack", "bad name")
    assert "Invalid value for --stack: stack name 'bad name'" in err
    err = _usage_error(capsys, d("c"), "--region", "us-east-1", "--account-id", "12")
    assert "Invalid value for --account-id: account id '12': expected 12 digits" in err
    err = _usage_error(capsys, d("d"), "--region", "eu-west-1", "--framework", "mlps-l3")
    assert "Invalid value for --framework" in err and "eu-west-1 is not a China region" in err
    for budget in ("inf", "-inf", "nan", "-5", "0", "0.004"):
        err = _usage_error(capsys, d("e"), "--region", "us-east-1", "--budget", budget)
        assert "Invalid value for --budget: budget must be a positive amount (at least 0.01)" in err
    for budget in ("1e13", "1000000000000.001"):  # above the language's maximum: refused, not rounded
        err = _usage_error(capsys, d("e"), "--region", "us-east-1", "--budget", budget)
        assert "Invalid value for --budget: budget must be at most 1,000,000,000,000" in err
    err = _usage_error(capsys, d("e"), "--region", "us-east-1", "--budget", "0.009")  # below a cent: refused, not rounded
    assert "Invalid value for --budget: budget must be a positive amount (at least 0.01)" in err
    err = _usage_error(capsys, d("f"), "--region", "us-east-1", "--cluster-name", "my cluster: x")
    assert "Invalid value for --cluster-name: cluster name 'my cluster: x'" in err
    err = _usage_error(capsys, d("g"), "--region", "us-east-1", "--owner", "not an email")
    assert "Invalid value for '--owner': the starter policy would not validate: metadata.owner" in err
    assert "starter.yaml" not in err
    err = _usage_error(capsys, d("g"), "--region", "us-east-1", "--team", "x" * 300, "--cost-center", "a\x01b")
    assert "Invalid value for '--team' / '--cost-center'" in err
    assert "metadata.tags.team: expected at most 256 characters" in err and "metadata.tags.cost-center" in err
    for stack in ("a-", "a_", "a.", "x" * 64):  # the stack name is also a Kubernetes label value
        assert "also a Kubernetes label value" in _usage_error(capsys, d("h"), "--region", "us-east-1", "--stack", stack)
    err = _usage_error(capsys, d("i"), "--region", "us-east-1", "--account-id", "１２３４５６７８９０１２")
    assert "expected 12 digits" in err
    err = _usage_error(capsys, d("j"), "--region", "eu-central-1", "--framework", "gdpr", "--no-framework")
    assert "--no-framework and --framework exclude each other" in err
    err = _usage_error(capsys, d("k"), "--region", "us-east-1", "--project", "_k")
    assert "Invalid value for --project: project name '_k'" in err and "starting with a letter or digit" in err
    err = _usage_error(capsys, d("_l"), "--region", "us-east-1")  # the project's name comes from the directory's
    assert "Invalid value for DIRECTORY: project name '_l'" in err and "give the project a name with --project" in err
    assert not any((tmp_path / d).exists() for d in (*"abcdefghijk", "_l"))  # nothing written, not even a directory


def test_a_starter_problem_no_option_explains_still_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """Only problems in fields an option writes are usage errors; any other is the starter's own (exit 1)."""
    from seedance.policy.errors import Location, PolicyError, Problem

    def broken(text: str) -> None:
        raise PolicyError([Problem(Location("starter.yaml", 1, 1), "fleets[0].capacity", "broken template")])

    monkeypatch.setattr("seedance.scaffold.load_starter", broken)
    assert main(["init", str(tmp_path / "p"), "--region", "us-east-1"]) == 1
    assert "the starter policy would not validate: fleets[0].capacity: broken template" in capsys.readouterr().err
    assert not (tmp_path / "p").exists()


def test_a_dangling_symlink_is_not_overwritten(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "requirements.txt").symlink_to(tmp_path / "nowhere")
    assert main(["init", str(tmp_path), "--region", "us-east-1"]) == 1
    assert "not overwriting existing file(s)" in capsys.readouterr().err
    assert (tmp_path / "requirements.txt").is_symlink() and sorted(p.name for p in tmp_path.iterdir()) == ["requirements.txt"]


def test_files_follow_the_umask_and_frameworks_are_deduplicated(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    old = os.umask(0o022)
    try:
        assert main(["init", str(tmp_path / "p"), "--region", "eu-central-1", "--framework", "gdpr", "--framework", "gdpr",
                     "--budget", "1"]) == 0
    finally:
        os.umask(old)
    captured = capsys.readouterr()
    assert "warning: the budget is below the starter's estimate" in captured.err
    for f in (tmp_path / "p").rglob("*"):
        if f.is_file():
            assert f.stat().st_mode & 0o777 == 0o644, f
    assert [x.value for x in load_policy(tmp_path / "p" / "policies" / "dev.yaml").policy.compliance.frameworks] == ["gdpr"]


def test_odd_values_are_quoted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Numbers-as-text, YAML punctuation and big budgets survive the templates unchanged."""
    assert main(["init", str(tmp_path / "p"), "--region", "us-east-1", "--cost-center", "4120", "--team", "a: b",
                 "--budget", "1234567", "--cluster-name", "gpu_1"]) == 0
    policy = load_policy(tmp_path / "p" / "policies" / "dev.yaml").policy
    assert policy.metadata.tags["cost-center"] == "4120" and policy.metadata.tags["team"] == "a: b"
    assert policy.budget.monthly_amount == 1234567
    stack = yaml.safe_load((tmp_path / "p" / "Pulumi.dev.yaml").read_text())
    assert stack["config"]["seedance:clusterName"] == "gpu_1"
    with pytest.raises(ScaffoldError, match="budget must be a positive amount"):
        project_files(ScaffoldOptions("p", "dev", "us-east-1", budget=0), load_catalog())


def test_the_policy_pack_gates_the_new_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Run the written pack's __main__ with PolicyPack recording its arguments (the real one serves
    gRPC to the Pulumi engine): one policy per control, reading this project's stacks."""
    import runpy

    import pulumi_policy

    import seedance.gate.pack as pack
    from seedance.gate.bundle import load_bundle

    write_project(tmp_path, project_files(ScaffoldOptions("gpu", "dev", "us-east-1", cost_center="CC-9"), load_catalog()))
    seen: dict[str, object] = {}
    real = pack.make_policies

    def spy(*args: object, **kwargs: object) -> list:
        seen["project_dir"] = kwargs.get("project_dir")
        return real(*args, **kwargs)  # type: ignore[arg-type]

    class Recorder:
        def __init__(self, name: str, policies: list, enforcement_level: object = None) -> None:
            seen.update(name=name, policies=policies)

    monkeypatch.setattr(pack, "make_policies", spy)
    monkeypatch.setattr(pulumi_policy, "PolicyPack", Recorder)
    runpy.run_path(str(tmp_path / "policy-pack" / "__main__.py"), run_name="__main__")
    assert seen["name"] == "seedance-gate" and seen["project_dir"] == tmp_path.resolve()
    assert len(seen["policies"]) == len(load_bundle().controls) + 1  # type: ignore[arg-type] - and seedance-gate-inputs
    assert yaml.safe_load((tmp_path / "policy-pack" / "PulumiPolicy.yaml").read_text())["runtime"]["name"] == "python"


def _foreign_typed_keys(project_yaml: dict) -> list[str]:
    """Pulumi's project validation: a config key outside the project's namespace may not declare a type."""
    name = project_yaml["name"]
    out = []
    for key, spec in (project_yaml.get("config") or {}).items():
        namespace = key.split(":", 1)[0] if ":" in key else name
        if namespace != name and isinstance(spec, dict) and "type" in spec:
            out.append(key)
    return out


def test_project_files_declare_no_foreign_typed_config() -> None:
    files = project_files(ScaffoldOptions("gpu", "dev", "us-east-1"), load_catalog())
    for text in (files["Pulumi.yaml"], (REPO / "stacks" / "Pulumi.yaml").read_text()):
        assert _foreign_typed_keys(yaml.safe_load(text)) == []
    assert _foreign_typed_keys({"name": "p", "config": {"seedance:policy": {"type": "string"}}}) == ["seedance:policy"]


def test_the_starter_budget_follows_what_a_stack_without_a_cluster_deploys(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # no --cluster-name: no StorageClass volumes, backups or EKS to pay for, as the gate prices the stack
    from seedance.estimate.estimate import estimate_policy
    from seedance.planner.planner import plan_policy

    project = tmp_path / "solo"
    assert main(["init", str(project), "--region", "us-east-1", "--cost-center", "CC-1"]) == 0
    capsys.readouterr()
    loaded = load_policy(project / "policies" / "dev.yaml")
    catalog = load_catalog()
    plan = plan_policy(loaded, catalog, cluster=False)  # the groups run their desired size: planned on it
    alone = estimate_policy(loaded, catalog, plan, cluster=False).total
    assert loaded.policy.budget.monthly_amount == suggested_budget(alone)
    assert alone <= estimate_policy(loaded, catalog, plan).total


def test_a_region_only_a_refresh_cache_prices(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    # a refresh cache as `prices refresh` writes it for ap-south-1, which the bundled catalog lacks:
    # the Price List API gives no GPU model (here us-west-2's rows stand in for the API's answer)
    from seedance.pricing.catalog import _bundled_document
    from seedance.pricing.refresh import write_cache

    rows = [{**r, "region": "ap-south-1", "gpu_model": None} for r in _bundled_document()["instances"]
            if r["region"] == "us-west-2"]
    for r in rows:
        r.pop("interruption", None)
    write_cache({"region": "ap-south-1", "instances": rows}, tmp_path / "cache")
    project = tmp_path / "p"
    args = ["init", str(project), "--region", "ap-south-1", "--cost-center", "CC-1", "--cluster-name", "gpu"]
    assert main(args) == 2  # the bundled catalog does not know the region
    assert "ap-south-1" in capsys.readouterr().err
    monkeypatch.setenv("SEEDANCE_PRICE_CACHE", str(tmp_path / "cache"))  # read by init, prices show and check
    assert main(args) == 0
    assert main(["prices", "show", "ap-south-1", "g5.xlarge"]) == 0
    assert "1 x A10G" in capsys.readouterr().out  # the model, from the type's bundled record
    assert main(["check", "dev", "--project-dir", str(project), "-f", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["decision"] == "pass"


def _refresh_cache(cache: Path, region: str, like: str, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A refresh cache pricing ``region`` as the bundled catalog prices ``like`` (without Spot Advisor
    bands, as a refresh writes it); run from its directory, with no $SEEDANCE_PRICE_CACHE."""
    from seedance.pricing.catalog import _bundled_document
    from seedance.pricing.refresh import write_cache

    rows = [{**r, "region": region} for r in _bundled_document()["instances"] if r["region"] == like]
    for r in rows:
        r.pop("interruption", None)
    write_cache({"region": region, "instances": rows}, cache)
    monkeypatch.delenv("SEEDANCE_PRICE_CACHE", raising=False)
    monkeypatch.chdir(cache.parent)
    return cache


def test_the_next_step_of_a_region_only_the_cache_prices_exports_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                           capsys: pytest.CaptureFixture[str]) -> None:
    cache = _refresh_cache(tmp_path / "my cache", "ap-south-1", "us-west-2", monkeypatch)
    assert main(["init", "p", "--region", "ap-south-1", "--cost-center", "CC-1", "--cache-dir", "my cache"]) == 0
    out = capsys.readouterr().out
    assert (f"next: edit the 'yours:' lines of policies/dev.yaml, then `export SEEDANCE_PRICE_CACHE='{cache.resolve()}'` "
            "(ap-south-1 is priced only by that refresh cache), `seedance check dev --project-dir p` and `pulumi up` in p"
            ) in out
    assert main(["check", "dev", "--project-dir", "p", "-f", "json"]) == 2  # undecided: without the cache, no prices
    capsys.readouterr()
    monkeypatch.setenv("SEEDANCE_PRICE_CACHE", str(cache.resolve()))  # as the next step says
    assert main(["check", "dev", "--project-dir", "p", "-f", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["decision"] == "pass"
    # a region the bundled catalog prices needs no cache to be checked: the next step is the usual one
    monkeypatch.delenv("SEEDANCE_PRICE_CACHE")
    assert main(["init", "q", "--region", "us-west-2", "--cost-center", "CC-1", "--cache-dir", "my cache"]) == 0
    assert ("next: edit the 'yours:' lines of policies/dev.yaml, then `seedance check dev --project-dir q` and "
            "`pulumi up` in q") in capsys.readouterr().out


def test_a_price_cache_not_made_yet_is_no_reason_to_fail(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    # the variable may be set before the first `prices refresh` creates its directory
    monkeypatch.setenv("SEEDANCE_PRICE_CACHE", str(tmp_path / "later"))
    assert main(["init", str(tmp_path / "p"), "--region", "eu-central-1", "--cost-center", "CC-1"]) == 0
    assert "does not exist yet: using the bundled prices" in capsys.readouterr().err
    # given on the command line, a missing directory is a malformed option (exit 2, as for plan)
    assert main(["init", str(tmp_path / "q"), "--region", "eu-central-1", "--cache-dir", str(tmp_path / "later")]) == 2
    assert not (tmp_path / "q").exists()


def test_an_existing_trail_is_written_and_the_project_still_passes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    trail = "arn:aws:cloudtrail:us-east-1:999988887777:trail/org-trail"
    project = tmp_path / "p"
    assert main(["init", str(project), "--region", "eu-central-1", "--environment", "prod", "--cost-center", "CC-1",
                 "--existing-trail", trail]) == 0
    capsys.readouterr()
    existing = load_policy(project / "policies" / "dev.yaml").policy.compliance.existing_trail
    assert existing is not None and (existing.arn, existing.s3_data_events) == (trail, False)
    assert main(["check", "dev", "--project-dir", str(project), "-f", "json"]) == 0
    decision = json.loads(capsys.readouterr().out)
    assert decision["decision"] == "pass" and decision["given"]["trails"] == [trail]
    # without the option the starter only shows where it would go
    assert main(["init", str(tmp_path / "q"), "--region", "us-east-1"]) == 0
    text = (tmp_path / "q" / "policies" / "dev.yaml").read_text()
    assert "# existingTrail:" in text and load_policy(tmp_path / "q" / "policies" / "dev.yaml").policy.compliance.existing_trail is None


def test_an_existing_trail_of_another_partition_or_no_arn_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    err = _usage_error(capsys, str(tmp_path / "a"), "--region", "us-east-1", "--existing-trail", "org-trail")
    assert "Invalid value for --existing-trail: trail 'org-trail': expected a CloudTrail trail ARN" in err
    err = _usage_error(capsys, str(tmp_path / "b"), "--region", "us-east-1", "--existing-trail",
                       "arn:aws-cn:cloudtrail:cn-north-1:999988887777:trail/org-trail")
    assert "Invalid value for '--existing-trail'" in err and "expected a trail of the aws partition" in err
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()


def test_init_refuses_what_the_gate_would_block(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # the stack's own trail as the existing one: synth and check refused the project init wrote
    own = "arn:aws:cloudtrail:eu-central-1:111122223333:trail/seedance-prod"
    assert main(["init", str(tmp_path / "t"), "--region", "eu-central-1", "--stack", "prod", "--cost-center", "CC-1",
                 "--existing-trail", own]) == 2
    assert "is the trail stack 'prod' creates itself" in capsys.readouterr().err and not (tmp_path / "t").exists()
    # a team or cost center the gate reads as a missing tag
    for option, value in (("--team", "unknown"), ("--team", "unassigned"), ("--cost-center", "unknown")):
        assert main(["init", str(tmp_path / "v"), "--region", "eu-central-1", "--cost-center", "CC-1", option, value]) == 2
        assert "what the gate reads as a missing tag" in capsys.readouterr().err and not (tmp_path / "v").exists()
    # a project named "unknown" no longer makes the default team one
    assert main(["init", str(tmp_path / "unknown"), "--region", "eu-central-1", "--cost-center", "CC-1"]) == 0
    capsys.readouterr()
    assert load_policy(tmp_path / "unknown" / "policies" / "dev.yaml").policy.metadata.tags["team"] == "platform"
    assert main(["check", "dev", "--project-dir", str(tmp_path / "unknown"), "-f", "json"]) == 0
    text = (tmp_path / "unknown" / "policies" / "dev.yaml").read_text()
    assert "`seedance check dev --project-dir .` runs the deploy gate" in text  # runnable from the project
    assert re.search(r"emails: \[.*\]  # yours:", text)  # the alerts' address is one to edit


def test_a_cache_that_reprices_a_bundled_region_is_exported_in_the_next_step(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                              capsys: pytest.CaptureFixture[str]) -> None:
    # the budget was set on the cache's prices, the printed check priced on the bundled ones
    cache = _refresh_cache(tmp_path / "cache", "us-east-1", "us-east-1", monkeypatch)
    assert main(["init", "p", "--region", "us-east-1", "--cost-center", "CC-1", "--cache-dir", "cache"]) == 0
    assert (f"`export SEEDANCE_PRICE_CACHE={cache.resolve()}` (us-east-1 is priced from that refresh cache, as the "
            "budget was set)") in capsys.readouterr().out
