"""One small engine interface, two backends (embedded regorus, OPA server) with identical raw results.

``Engine.evaluate(bundle, gate_input)`` returns ``{control_id: [finding, ...]}`` with each rule's
findings sorted; the decision document is built from that by :func:`seedance.gate.decision.decide`.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import threading
from json.encoder import encode_basestring_ascii as _encode  # json.dumps' own string encoder
from typing import Protocol
from urllib.parse import urlparse

from seedance.gate.bundle import PolicyBundle
from seedance.gate.errors import EngineError, GateError, OpaUnreachableError, PolicyLoadError
from seedance.synth.document import SECRET, UNKNOWN

log = logging.getLogger(__name__)

_LOCATION = re.compile(r"-->\s*(?P<loc>[^\s]+:\d+:\d+)")
_ERROR_LINE = re.compile(r"^\s*error:\s*(?P<msg>.+)$", re.M)


def located_message(raw: str) -> str:
    """Reduce a regorus error (source excerpt + Rust backtrace) to ``file:line:col: message``."""
    text = raw.split("Stack backtrace:")[0]
    loc = _LOCATION.search(text)
    err = _ERROR_LINE.search(text)
    msg = err.group("msg").strip() if err else next((ln.strip() for ln in text.splitlines() if ln.strip()), "error")
    if len(msg) > 300:  # regorus can dump whole scopes into a message
        msg = msg[:300] + " ..."
    return f"{loc.group('loc')}: {msg}" if loc else msg


_FINDING_KEYS = ("control_id", "message", "resource_name", "resource_type", "severity", "urn")  # sorted


def _sort_findings(findings: list) -> list:
    """Findings in the order of their JSON text (keys sorted), the same for both backends.

    Findings of the one helper (six string fields) are compared field by field on each field's JSON
    encoding, which orders them exactly as the whole JSON text would, at a fraction of the cost of
    ``json.dumps`` per finding (thousands of findings on large documents); anything else falls back
    to the JSON text itself.
    """
    if all(isinstance(f, dict) and len(f) == len(_FINDING_KEYS) for f in findings):
        try:
            return sorted(findings, key=lambda f: tuple(_encode(f[k]) for k in _FINDING_KEYS))
        except (KeyError, TypeError):
            pass
    return sorted(findings, key=lambda f: json.dumps(f, sort_keys=True))


class Engine(Protocol):
    name: str

    def evaluate(self, bundle: PolicyBundle, gate_input: dict) -> dict[str, list[dict]]:
        """Findings of every control of ``bundle`` (a bundle narrowed with :meth:`PolicyBundle.only` evaluates fewer)."""
        ...


def control_query(bundle: PolicyBundle) -> str:
    """One query for every control, one binding (``v<i>``) each: the helper indexes (rules) are then
    built once per evaluation instead of once per control; one line per binding (regorus caps lines)."""
    return "\n".join(f"v{i} := {c.query}" for i, c in enumerate(bundle.controls))


def quiet_library_backtraces() -> None:
    """Stop Rust library code from capturing a stack trace for every error value it makes.

    regorus makes error values in the normal course of evaluating rules, and with ``RUST_BACKTRACE=1``
    in the environment (common on developers' machines and in CI) each one walks the stack: measured
    with callgrind on the 10,000-resource benchmark document, 3% of the query's instructions and 10%
    of those of loading the policies and the input. The traces are never shown (regorus returns the
    error's message; with the traces off it no longer appends one to it). ``RUST_LIB_BACKTRACE``
    governs these captures alone (panics still follow ``RUST_BACKTRACE``), is read once per process
    at the first capture, and is left as it is when the user has set it.
    """
    os.environ.setdefault("RUST_LIB_BACKTRACE", "0")


def compile_modules(bundle: PolicyBundle, *, tests: bool = False):  # -> regorus.Engine
    """A regorus engine holding the bundle's modules (and tests); every parse error, located, at once."""
    quiet_library_backtraces()
    import regorus

    engine = regorus.Engine()
    problems = []
    for f in bundle.modules(tests=tests):
        try:
            engine.add_policy(f.path, f.text)
        except RuntimeError as exc:
            problems.append(located_message(str(exc)))
    if problems:
        raise PolicyLoadError(problems)
    return engine


class RegorusEngine:
    """The embedded engine (default)."""

    name = "regorus"

    def __init__(self) -> None:
        # regorus engines are bound to the thread that made them (pyo3 "unsendable": touching one
        # from another thread panics), and a clone loses the prepared rules, so that its first query
        # costs as much as a new engine.  Each thread therefore keeps its own compiled engine, made
        # once and reused for every evaluation: the Pulumi policy pack calls the validators from a
        # pool of gRPC threads, once per control and resource.
        self._local = threading.local()

    def _cached(self, bundle: PolicyBundle):
        held = getattr(self._local, "compiled", None)
        # narrowed bundles share the files (and so the compiled policies) of the bundle they came from
        return held[1] if held is not None and held[0] is bundle.files else None

    def prepare(self, bundle: PolicyBundle, *, tests: bool = False):
        """Compile the bundle's policies (and tests); without tests, evaluate() reuses the result."""
        engine = compile_modules(bundle, tests=tests)
        try:
            engine.add_data_json(json.dumps(bundle.data()))
        except RuntimeError as exc:  # pragma: no cover - our own data is valid JSON
            raise EngineError(located_message(str(exc))) from None
        if not tests:
            self._local.compiled = (bundle.files, engine)
        return engine

    def evaluate(self, bundle: PolicyBundle, gate_input: dict) -> dict[str, list[dict]]:
        engine = self._cached(bundle)
        if engine is None:
            engine = self.prepare(bundle)
        try:
            # regorus converts the Python objects directly: on 10,000 resources this is half the
            # time of json.dumps + set_input_json, and the gate input holds JSON types only.
            # set_input replaces the previous evaluation's input as a whole.
            engine.set_input(gate_input)
        except (TypeError, ValueError) as exc:
            self._local.compiled = None  # start the next evaluation from a new engine
            raise EngineError(f"input is not JSON-serialisable: {exc}") from None
        query = control_query(bundle)
        try:
            result = json.loads(engine.eval_query_as_json(query))
        except Exception as exc:  # regorus raises RuntimeError; anything else is a failure too
            self._local.compiled = None
            raise EngineError(located_message(str(exc)) + _placeholder_hint(str(exc), gate_input)) from None
        rows = result.get("result") or []
        if len(rows) != 1:
            raise EngineError(f"the control rules gave {len(rows)} results instead of one (undefined or conflicting)")
        bindings = rows[0].get("bindings", {})
        out: dict[str, list[dict]] = {}
        for i, c in enumerate(bundle.controls):
            if f"v{i}" not in bindings:
                raise EngineError(f"{c.control_id}: no result for {c.query}")
            out[c.control_id] = _sort_findings(_as_list(bindings[f"v{i}"], c.query))
        return out


class OpaEngine:
    """An OPA server reached with opa-python-client: uploads the policies and data, queries each control rule."""

    name = "opa"

    def __init__(self, url: str, *, timeout: float = 5.0) -> None:
        try:
            parsed = urlparse(url)
            port = parsed.port
        except ValueError as exc:  # "http://[::1", a port out of range
            raise OpaUnreachableError(f"--opa-url {url!r}: {exc}; expected http(s)://HOST[:PORT]") from None
        if parsed.scheme not in ("http", "https") or not parsed.hostname:
            raise OpaUnreachableError(f"--opa-url {url!r}: expected http(s)://HOST[:PORT]")
        if parsed.path not in ("", "/") or parsed.query or parsed.fragment:
            raise OpaUnreachableError(f"--opa-url {url!r}: expected http(s)://HOST[:PORT] without a path "
                                      "(OPA's REST API is at the server's root)")
        self.url = url
        self.host = parsed.hostname
        self.port = port or (443 if parsed.scheme == "https" else 8181)
        self.ssl = parsed.scheme == "https"
        self.timeout = timeout
        self._uploaded: str | None = None  # the fingerprint of the bundle last uploaded
        self._local = RegorusEngine()  # for the pre-flight, see _preflight

    def _client(self):
        from opa_client.opa import OpaClient

        return OpaClient(host=self.host, port=self.port, ssl=self.ssl, timeout=self.timeout, retries=0)

    def _upload(self, client, bundle: PolicyBundle) -> None:
        problems = []
        for f in bundle.modules():
            try:
                client.update_policy_from_string(f.text, f"seedance/{f.path}", rego_compat=False)
            except Exception as exc:  # opa_client raises its own error types with OPA's message
                problems.append(f"{f.path}: {_opa_message(exc)}")
        if problems:
            raise PolicyLoadError(problems)
        client.update_or_create_data(bundle.data()["seedance"], "seedance")

    FINGERPRINT_PACKAGE = "seedance_fingerprint"

    @staticmethod
    def fingerprint(bundle: PolicyBundle) -> str:
        """A hash of every module and the data the gate uploads: what the server must hold."""
        digest = hashlib.sha256()
        for f in bundle.modules():
            digest.update(f.path.encode() + b"\0" + f.text.encode() + b"\0")
        digest.update(json.dumps(bundle.data(), sort_keys=True).encode())
        return digest.hexdigest()

    def _canary(self, client, fingerprint: str) -> None:
        """Read back the fingerprint uploaded with the policies: a server that answers every query with
        an empty result (not OPA), or one holding other policies (a stale replica behind a load
        balancer), must not pass every control for want of findings."""
        try:
            resp = client.query_rule({}, self.FINGERPRINT_PACKAGE, "value")
        except Exception as exc:
            raise EngineError(f"OPA at {self.url}: the check query failed: {_opa_message(exc)}") from None
        value = resp.get("result") if isinstance(resp, dict) else None
        if value != fingerprint:
            raise EngineError(f"OPA at {self.url} does not answer with the uploaded policies (their fingerprint "
                              f"{fingerprint[:12]} reads back as {str(value)[:40]!r}): another replica or a server "
                              "that is not OPA")

    def _preflight(self, bundle: PolicyBundle, gate_input: dict) -> None:
        """Fail closed where OPA would not: a list or object the rules iterate that is unknown until
        apply (a preview's placeholder string) reads as empty to OPA, so every check over it would
        pass, while regorus stops there. The same policies (OPA holds exactly the uploaded ones, see
        _canary) are evaluated locally first, and such an input is undecided on this backend too.
        Another local failure is left to OPA's own evaluation to decide."""
        try:
            self._local.evaluate(bundle, gate_input)
        except GateError as exc:  # e.g. policies regorus cannot compile: OPA's upload reports its own view
            if isinstance(exc, EngineError) and any(json.dumps(p) in str(exc) for p in (UNKNOWN, SECRET)):
                raise EngineError(f"{exc} (found by the local check run before OPA, which would read the value as "
                                  "empty)") from None
            log.debug("local pre-flight failed, OPA decides: %s", exc)

    def evaluate(self, bundle: PolicyBundle, gate_input: dict) -> dict[str, list[dict]]:
        import requests

        self._preflight(bundle, gate_input)
        client = self._client()
        try:
            try:
                client.check_connection()
            except Exception:
                raise OpaUnreachableError(f"OPA server at {self.url} is unreachable") from None
            fingerprint = self.fingerprint(bundle)
            if self._uploaded != fingerprint:
                self._upload(client, bundle)
                module = f'package {self.FINGERPRINT_PACKAGE}\n\nvalue := "{fingerprint}"\n'
                try:
                    client.update_policy_from_string(module, f"seedance/{self.FINGERPRINT_PACKAGE}.rego", rego_compat=False)
                except Exception as exc:
                    raise EngineError(f"OPA at {self.url}: cannot upload the fingerprint module: {_opa_message(exc)}") from None
                self._uploaded = fingerprint
            self._canary(client, fingerprint)
            out: dict[str, list[dict]] = {}
            for c in bundle.controls:
                try:
                    resp = client.query_rule(gate_input, c.package, c.rule)
                except requests.exceptions.ConnectionError:
                    raise OpaUnreachableError(f"OPA server at {self.url} went away") from None
                except Exception as exc:
                    raise EngineError(f"{c.control_id} ({c.query}) on OPA: {_opa_message(exc)}") from None
                if not isinstance(resp, dict) or "result" not in resp:
                    # a partial set rule is always defined (empty when nothing is found), so an answer
                    # without "result" means OPA does not have the rule: another replica, a lost upload
                    raise EngineError(f"{c.control_id}: OPA at {self.url} has no {c.query} (undefined): "
                                      "the policies it evaluates are not the ones uploaded")
                out[c.control_id] = _sort_findings(_as_list(resp["result"], c.query))
            return out
        except GateError:
            raise
        except Exception as exc:
            raise EngineError(f"OPA backend: {type(exc).__name__}: {exc}") from None
        finally:
            client.close_connection()


_MAX_NAMED = 5  # hidden lists/objects named in an engine error's hint


def _placeholder_hint(message: str, gate_input: dict | None = None) -> str:
    """Why a rule met a placeholder ("[unknown]", "[secret]") where it expected a list or an object,
    when that is the cause: the gate could not evaluate the document (undecided, exit 2). Names the
    resources and properties holding such a placeholder where a list or object may be expected (a
    property whose name is plural or a known container), else every property holding one, up to a few."""
    found = [ph for ph in (UNKNOWN, SECRET) if json.dumps(ph) in message]
    if not found:
        return ""
    ph = found[0]
    why = "known only after apply" if ph == UNKNOWN else "secret (hidden from the gate)"
    where = _placeholder_places(gate_input, ph)
    named = ""
    if where:
        more = f" and {len(where) - _MAX_NAMED} more" if len(where) > _MAX_NAMED else ""
        named = f" (held by {', '.join(where[:_MAX_NAMED])}{more})"
    hint = (f"; the gate could not evaluate the document: a rule met the placeholder {ph} for a value {why} where it "
            f"expects a list or an object{named}, so this check cannot be decided")
    if ph == UNKNOWN:
        hint += ": gate the synthesised document (seedance check STACK) or a preview where it is known"
    return hint


def _placeholder_places(gate_input: dict | None, placeholder: str) -> list[str]:
    """``resource 'NAME' (TYPE) PATH`` for each property of the document's resources that is the
    placeholder, the likeliest culprits first: those where another resource of the type holds a list or
    an object (list items matched whatever their index), then those whose name or neighbours suggest
    one (a plural or container name, objects beside it in a list), then the rest (among them those
    where other resources of the type hold a scalar, such as an id or a number of days)."""
    try:
        resources = gate_input["document"]["resources"]  # type: ignore[index]
    except (KeyError, TypeError):
        return []
    resources = [r for r in resources if isinstance(r, dict)] if isinstance(resources, list) else []
    shapes: dict[tuple[str, tuple], set[bool]] = {}  # (type, path with list indices as "*") -> container?
    found: list[tuple[dict, list, bool]] = []  # (resource, path, hinted by its name or neighbours)

    def walk(value, path: list, r: dict) -> None:
        if value == placeholder and path:
            last = path[-1]  # an item of a list (rules iterate lists of objects), or a container's name
            hinted = isinstance(last, int) or last in _CONTAINERS or (
                last.endswith("s") and not last.endswith(_SCALAR_ENDINGS))
            found.append((r, path, hinted))
            return
        if value is not None and not (isinstance(value, str) and value in _PLACEHOLDERS):
            shapes.setdefault((str(r.get("type")), _shape(path)), set()).add(isinstance(value, (dict, list)))
        if isinstance(value, dict):
            for k, v in value.items():
                walk(v, [*path, k], r)
        elif isinstance(value, list):
            for i, v in enumerate(value):
                walk(v, [*path, i], r)

    for r in resources:
        walk(r.get("inputs"), ["inputs"], r)
    tiers: tuple[list[str], list[str], list[str]] = ([], [], [])
    for r, path, hinted in found:
        seen = shapes.get((str(r.get("type")), _shape(path)), set())
        tier = 0 if True in seen else 2 if seen == {False} or not hinted else 1
        tiers[tier].append(f"resource '{r.get('name', '?')}' ({r.get('type', '?')}) {'.'.join(str(p) for p in path)}")
    return [*tiers[0], *tiers[1], *tiers[2]]


def _shape(path: list) -> tuple:
    return tuple("*" if isinstance(p, int) else p for p in path)


_PLACEHOLDERS = {UNKNOWN, SECRET}
# plural-looking property names that hold a scalar (ids, ARNs, a number of days ...)
_SCALAR_ENDINGS = ("Ids", "Arns", "Names", "Days", "Seconds", "Minutes", "Hours", "Bytes", "Address", "Status")


# property names that hold an object or a list without ending in s
_CONTAINERS = {"spec", "data", "metadata", "replicationConfiguration", "serverSideEncryptionConfiguration",
               "objectLockConfiguration", "rule", "defaultRetention", "scaleTargetRef", "environment",
               "mixedInstancesPolicy", "launchTemplate", "destination"}


def _opa_message(exc: Exception) -> str:
    msg = getattr(exc, "message", None) or str(exc)
    return str(msg).strip()


def _as_list(value, query: str) -> list:
    if isinstance(value, list):
        return value
    raise EngineError(f"{query}: expected a set of findings, got {type(value).__name__}")


def make_engine(opa_url: str | None = None) -> Engine:
    return OpaEngine(opa_url) if opa_url else RegorusEngine()
