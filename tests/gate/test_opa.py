"""The OPA server backend (opa-python-client).

Against a real OPA server when an ``opa`` binary is on PATH (skipped otherwise: there is none on our
machines); the client side (policy upload, data, per-rule queries, error mapping) is also checked
against a small local stand-in that speaks OPA's REST API and evaluates with regorus or with OPA's
own Go evaluator (tests/gate/conftest.py: opa_go).
"""

from __future__ import annotations

import datetime as dt
import json
import shutil
import socket
import subprocess
import threading
import time
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

import pytest
import regorus

from seedance.gate import OpaEngine, RegorusEngine
from seedance.gate.errors import EngineError, PolicyLoadError
from seedance.gate.inputs import GateInput
from seedance.gate.run import evaluate
from seedance.policy import load_policy

REPO = Path(__file__).resolve().parents[2]
SAMPLE = json.loads((REPO / "tests" / "synth" / "samples" / "eu-prod.json").read_text())
AS_OF = dt.date(2026, 6, 1)


def _input() -> GateInput:
    policy = load_policy(REPO / "stacks" / "policies" / "eu-prod.yaml").policy.model_dump(mode="json", by_alias=True)
    policy["compliance"]["frameworks"] = ["gdpr", "mlps-l3"]
    return GateInput(SAMPLE, policy, None, {"monthly_total": 1000.0, "currency": "USD"}, None)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class _StandIn(BaseHTTPRequestHandler):
    """Just enough of OPA's REST API: PUT policies and data, POST a rule with input.

    Served by one thread (a plain HTTPServer), which compiles the policies and data once after each
    change and evaluates every query on that engine, as OPA does (regorus engines stay on their thread).
    Evaluation is regorus's, or, with ``go`` set (``opa_bindings.OpaEngine``), OPA's own Go evaluator:
    then only the HTTP layer is a stand-in.
    """

    policies: dict[str, str] = {}
    data: dict = {}
    engine = None  # regorus.Engine or opa_bindings.OpaEngine, compiled from policies and data
    go = None  # the opa_bindings.OpaEngine class, when OPA's evaluator answers

    def _compile(self, pid: str, text: str) -> str | None:
        """The compile error of one policy (None when it compiles), from the evaluator in use."""
        if self.go is not None:
            from opa_bindings import OpaError

            try:
                self.go().add_policy(pid, text)
            except OpaError as exc:
                return exc.message
            return None
        try:
            regorus.Engine().add_policy(pid, text)
        except RuntimeError as exc:
            return str(exc).split("Stack backtrace")[0].strip()
        return None

    def _evaluate(self, rule: str, input_doc: dict) -> dict:
        if self.engine is None:
            engine = regorus.Engine() if self.go is None else self.go()
            for pid, text in self.policies.items():
                engine.add_policy(pid, text)
            if self.go is None:
                engine.add_data_json(json.dumps(self.data))
            else:
                engine.add_data(self.data)
            type(self).engine = engine
        if self.go is None:
            self.engine.set_input_json(json.dumps(input_doc))
            return {"result": json.loads(self.engine.eval_rule_as_json(rule))}
        from opa_bindings import OpaUndefinedError

        try:
            return {"result": self.engine.eval_document(rule.removeprefix("data."), input_doc)}
        except OpaUndefinedError:
            return {}  # OPA leaves "result" out for an undefined document

    def log_message(self, *args) -> None:  # keep pytest output clean
        pass

    def _reply(self, code: int, body: dict | None = None) -> None:
        raw = json.dumps(body or {}).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def _body(self) -> bytes:
        return self.rfile.read(int(self.headers.get("Content-Length", 0)))

    def do_GET(self) -> None:  # check_connection
        self._reply(200, {"result": [{"id": k} for k in self.policies]})

    def do_PUT(self) -> None:
        path = self.path.split("?")[0]
        if path.startswith("/v1/policies/"):
            text = self._body().decode()
            error = self._compile(path, text)
            if error is not None:
                self._reply(400, {"code": "invalid_parameter", "message": error})
                return
            self.policies[path.removeprefix("/v1/policies/")] = text
            type(self).engine = None
            self._reply(200)
        elif path == "/v1/data/seedance":
            type(self).data = {"seedance": json.loads(self._body())}
            type(self).engine = None
            self.send_response(204)
            self.end_headers()
        else:
            self._reply(404, {"code": "not_found", "message": path})

    forget: dict | None = None  # answer every query with this, as a stale replica or a server that is not OPA

    def do_POST(self) -> None:
        rule = "data." + self.path.split("?")[0].removeprefix("/v1/data/").replace("/", ".")
        if self.forget is not None:
            self._reply(200, self.forget)
            return
        self._reply(200, self._evaluate(rule, json.loads(self._body())["input"]))


@pytest.fixture(params=["regorus", "opa-go"])
def stand_in(request: pytest.FixtureRequest):
    _StandIn.go = request.getfixturevalue("opa_go") if request.param == "opa-go" else None
    _StandIn.policies = {}
    _StandIn.data = {}
    _StandIn.forget = None
    server = HTTPServer(("127.0.0.1", 0), _StandIn)

    def serve() -> None:
        try:
            server.serve_forever()
        finally:
            _StandIn.engine = None  # dropped on the thread that made it

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    thread.join(timeout=30)
    server.server_close()


def test_opa_backend_gives_the_embedded_decision_through_the_rest_api(stand_in, bundle) -> None:
    gi = _input()
    via_opa = evaluate(gi, bundle, OpaEngine(stand_in, timeout=30), as_of=AS_OF)
    embedded = evaluate(gi, bundle, RegorusEngine(), as_of=AS_OF)
    assert via_opa.to_json() == embedded.to_json()
    assert via_opa.findings, "the comparison must cover findings"
    assert set(_StandIn.policies) == {f"seedance/{f.path}" for f in bundle.modules()} | {"seedance/seedance_fingerprint.rego"}


def test_opa_backend_reports_policy_rejected_by_the_server(stand_in, bundle, tmp_path: Path) -> None:
    from seedance.gate import load_bundle

    root = tmp_path / "policies"
    shutil.copytree(REPO / "policies", root, ignore=shutil.ignore_patterns("pack"))
    path = root / "gdpr" / "backup.rego"
    path.write_text(path.read_text() + "\n_broken if {\n\tx := \n}\n")
    with pytest.raises(PolicyLoadError) as info:
        OpaEngine(stand_in, timeout=30).evaluate(load_bundle(root), _input().to_json())
    assert info.value.problems[0].startswith("gdpr/backup.rego: ")


@pytest.mark.parametrize("answer", [{}, {"result": []}])
def test_a_server_that_does_not_know_the_rules_is_undecided_not_a_pass(stand_in, bundle, answer) -> None:
    # OPA replicas behind a load balancer (the upload on one, the query on another) answer {}: "no
    # result" is not "no findings"; a server that answers [] to everything must not pass either
    _StandIn.forget = answer
    with pytest.raises(EngineError, match="does not answer with the uploaded policies"):
        evaluate(_input(), bundle, OpaEngine(stand_in, timeout=30), as_of=AS_OF)


def test_an_undefined_control_rule_is_undecided(bundle) -> None:
    fingerprint = OpaEngine.fingerprint(bundle)

    class Client:  # the fingerprint reads back, one control's rule does not
        def query_rule(self, input_data, package, rule=None):  # type: ignore[no-untyped-def]
            if package == OpaEngine.FINGERPRINT_PACKAGE:
                return {"result": fingerprint}
            return {} if package == "budget.spot_share" else {"result": []}

        def check_connection(self) -> None: ...
        def close_connection(self) -> None: ...

    engine = OpaEngine("http://127.0.0.1:1")
    engine._client = Client  # type: ignore[method-assign]
    engine._uploaded = fingerprint
    with pytest.raises(EngineError, match="BUDGET-SPOT-1: OPA at .* has no data.budget.spot_share.violation \\(undefined\\)"):
        engine.evaluate(bundle, _input().to_json())


def test_a_replica_holding_other_policies_is_undecided(stand_in, bundle, tmp_path: Path) -> None:
    # the policies went to one OPA; the queries reach another that holds an older set: its findings
    # would be the old rules' (or none), so the fingerprint read back must match
    from seedance.gate import load_bundle

    root = tmp_path / "policies"
    shutil.copytree(REPO / "policies", root, ignore=shutil.ignore_patterns("pack"))
    (root / "budget" / "monthly_budget.rego").write_text((root / "budget" / "monthly_budget.rego").read_text() + "\n# changed\n")
    older = load_bundle(root)
    assert OpaEngine.fingerprint(older) != OpaEngine.fingerprint(bundle)
    OpaEngine(stand_in, timeout=30).evaluate(older, _input().to_json())  # "replica" now holds the other set
    engine = OpaEngine(stand_in, timeout=30)
    engine._uploaded = OpaEngine.fingerprint(bundle)  # as if this process had uploaded elsewhere
    with pytest.raises(EngineError, match="does not answer with the uploaded policies"):
        engine.evaluate(bundle, _input().to_json())


@pytest.mark.parametrize(("url", "message"), [
    ("http://[::1", "expected http"),
    ("http://127.0.0.1:99999", "expected http"),
    ("http://opa.internal:8181/v1/data", "without a path"),
])
def test_bad_opa_urls(url: str, message: str) -> None:
    from seedance.gate.errors import OpaUnreachableError

    with pytest.raises(OpaUnreachableError, match=message):
        OpaEngine(url)


OPA = shutil.which("opa")


@pytest.mark.skipif(OPA is None, reason="no `opa` binary on PATH: the real-OPA parity test needs one (none is installed on our machines)")
def test_real_opa_gives_the_embedded_decision(bundle) -> None:
    port = _free_port()
    proc = subprocess.Popen([OPA, "run", "--server", "--addr", f"127.0.0.1:{port}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                    break
            except OSError:
                time.sleep(0.1)
        gi = _input()
        via_opa = evaluate(gi, bundle, OpaEngine(f"http://127.0.0.1:{port}", timeout=60), as_of=AS_OF)
        embedded = evaluate(gi, bundle, RegorusEngine(), as_of=AS_OF)
        assert via_opa.to_json() == embedded.to_json()
    finally:
        proc.terminate()
        proc.wait(timeout=10)



def test_an_unknown_collection_is_undecided_on_the_opa_backend_too(stand_in, bundle) -> None:
    """OPA reads a list that is unknown until apply as empty (tests/gate/test_opa_go.py): the backend
    checks the input locally first, so the deploy is blocked as on the embedded engine, not passed."""
    gi = _input()
    doc = json.loads(json.dumps(gi.document))
    # (a security group's unknown ingress list and a bucket encryption configuration's rules are
    # judged, not a type error: a ConfigMap's data still stops regorus)
    cm = next(r for r in doc["resources"] if r["type"] == "kubernetes:core/v1:ConfigMap")
    cm["inputs"]["data"] = "[unknown]"
    unknown = GateInput(doc, gi.policy, gi.plan, gi.estimate, None)
    with pytest.raises(EngineError, match=r"known only after apply.*found by the local check run before OPA"):
        evaluate(unknown, bundle, OpaEngine(stand_in, timeout=30), as_of=AS_OF)
    # the same engine still decides a known document afterwards
    assert evaluate(gi, bundle, OpaEngine(stand_in, timeout=30), as_of=AS_OF).findings
