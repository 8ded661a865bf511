"""``seedance policy test``: run every ``test_`` rule under ``policies/`` with regorus, like ``opa test``.

Tests are found the way ``opa test`` finds them, from the parsed policies (regorus' AST), not from the
text: every rule whose head reference has a term starting with ``test_`` is a test, whatever its form
(``test_x if {...}``, ``test_x := true if {...}``, ``test_x = v``, ``test_x contains v``, ``default
test_x := v``, ``pkg.test_x if ...``, with ``else`` or not), in any module of the bundle.  Each
*definition* is one test, as in OPA: when a package defines a test several times (incremental
definitions, or chained bodies ``test_x if {...} {...}``), the second is ``test_x#01``, the third
``test_x#02`` and so on, and each passes or fails on its own.  To evaluate them separately the runner
gives the later definitions fresh rule names in the source it compiles (the files on disk are untouched).

A test passes when its value is ``true``; undefined or any other value fails; an evaluation error is
an error.  Forms regorus cannot judge like OPA are reported as errors rather than skipped: test
functions (OPA rejects them too) and test rules with a reference after the ``test_`` name
(``test_x[case]``, OPA's parameterised tests with one sub-result per case).  ``todo_test_`` rules are
skipped, as OPA skips them.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, replace
from pathlib import Path

from seedance.gate.bundle import PolicyBundle, RegoFile, load_bundle
from seedance.gate.engine import RegorusEngine, located_message
from seedance.gate.errors import PolicyLoadError

TEST_PREFIX = "test_"
SKIP_PREFIX = "todo_test_"
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class TestFilterError(PolicyLoadError):
    """The ``--run`` filter is not a valid regular expression (a usage error: nothing was run)."""

    __test__ = False  # not a pytest test class


@dataclass(frozen=True)
class TestCase:
    file: str
    package: str
    name: str  # as opa test names it: "test_x", "test_x#01" for a second definition, "a.test_x"
    line: int
    path: str = ""  # the rule evaluated (a later definition's fresh name); default: the query
    problem: str | None = None  # why the embedded runner cannot evaluate this test (reported as ERROR)

    @property
    def query(self) -> str:
        return f"data.{self.package}.{self.name}"

    @property
    def rule_path(self) -> str:
        return self.path or self.query


@dataclass(frozen=True)
class TestResult:
    case: TestCase
    status: str  # PASS | FAIL | ERROR
    error: str | None
    duration_s: float


@dataclass(frozen=True)
class TestReport:
    results: list[TestResult]

    @property
    def passed(self) -> int:
        return sum(r.status == "PASS" for r in self.results)

    @property
    def failed(self) -> int:
        return sum(r.status == "FAIL" for r in self.results)

    @property
    def errors(self) -> int:
        return sum(r.status == "ERROR" for r in self.results)

    @property
    def ok(self) -> bool:
        return bool(self.results) and self.passed == len(self.results)


def discover(bundle: PolicyBundle) -> list[TestCase]:
    """Every test of the bundle, in file order; raise PolicyLoadError (file:line:col) when a file does not parse."""
    cases, _ = _plan(bundle, _parse(bundle))
    return cases


def run_tests(root: Path | None = None, *, match: str | None = None, bundle: PolicyBundle | None = None) -> TestReport:
    """Run the tests whose ``package.name`` matches ``match`` (a regular expression, searched).

    Raise TestFilterError for an invalid ``match``, PolicyLoadError (file:line:col) when a policy or
    test does not load or parse.
    """
    pattern = _compile_filter(match)
    bundle = bundle or load_bundle(root)
    engine = RegorusEngine().prepare(bundle, tests=True)  # located parse errors
    cases, rewritten = _plan(bundle, _ast(engine))
    if rewritten:  # later definitions of a test under fresh names: compile that source instead
        files = tuple(rewritten.get(f.path, f) for f in bundle.files)
        engine = RegorusEngine().prepare(replace(bundle, files=files), tests=True)
    results = []
    for case in cases:
        if pattern is not None and not pattern.search(f"data.{case.package}.{case.name}"):  # as opa test --run
            continue
        start = time.perf_counter()
        if case.problem:
            status, error = "ERROR", f"{case.file}:{case.line}: {case.problem}"
        else:
            try:
                value = engine.clone().eval_rule(case.rule_path)
                status, error = ("PASS", None) if value is True else ("FAIL", None)
            except Exception as exc:  # a runtime error in the rule under test: reported, located
                status, error = "ERROR", located_message(str(exc))
        results.append(TestResult(case, status, error, time.perf_counter() - start))
    return TestReport(results)


def _compile_filter(match: str | None) -> re.Pattern[str] | None:
    if not match:
        return None
    try:
        return re.compile(match)
    except (re.error, OverflowError) as exc:  # OverflowError: a repeat count past what re allows (a{99999999999})
        raise TestFilterError([f"--run {match!r}: not a valid regular expression: {exc}"]) from None
    except RecursionError:  # groups nested deeper than re's parser recurses
        shown = match if len(match) <= 60 else match[:60] + "…"
        raise TestFilterError([f"--run {shown!r}: not a valid regular expression: nested too deeply to compile"]) from None


def _parse(bundle: PolicyBundle) -> list[dict]:
    """regorus' AST of every module (tests included)."""
    from seedance.gate.engine import compile_modules

    return _ast(compile_modules(bundle, tests=True))


def _ast(engine) -> list[dict]:
    try:
        return json.loads(engine.get_ast_as_json())
    except Exception as exc:  # regorus raises RuntimeError; fail closed with its message, not a traceback
        raise PolicyLoadError([f"cannot read the syntax tree of the policies: {located_message(str(exc))}"]) from None


# -- the AST -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Term:
    """One term of a rule head's reference."""

    name: str | None  # a var or string term; None for any other term
    ground: bool
    start: int = -1  # byte span of the name in the source (without quotes)
    end: int = -1


def _ref_terms(node: dict) -> list[_Term]:
    """The terms of a rule head reference (``a.b["c"][x]``), outermost first."""
    (kind, body), = node.items()
    if kind == "Var":
        return [_Term(body["value"], True, body["span"]["start"], body["span"]["end"])]
    if kind == "RefDot":
        span, name = body["field"]
        return [*_ref_terms(body["refr"]), _Term(name, True, span["start"], span["end"])]
    if kind == "RefBrack":
        (ikind, index), = body["index"].items()
        if ikind in ("String", "RawString"):
            term = _Term(index["value"], True, index["span"]["start"], index["span"]["end"])
        else:
            term = _Term(None, ikind in ("Number", "Bool", "Null"))
        return [*_ref_terms(body["refr"]), term]
    return [_Term(None, False)]


def _ref_text(names: list[str]) -> str:
    """A reference as Rego (and OPA's test names) write it: ``a.b["not-an-identifier"]``."""
    out = names[0]
    for n in names[1:]:
        out += f".{n}" if _IDENT.match(n) else f"[{json.dumps(n)}]"
    return out


@dataclass(frozen=True)
class _Definition:
    """One definition of a rule: OPA's unit (a rule with chained bodies is several)."""

    file: str
    package: str
    line: int
    terms: list[_Term]
    is_function: bool
    head: tuple[int, int]  # byte span of the rule head
    insert_at: int | None  # a chained body: where its own head goes when it is renamed


def _definitions(module: dict) -> list[_Definition]:
    file = module["source"]["file"]
    ast = module["ast"]
    package = ".".join(t.name or "" for t in _ref_terms(ast["package"]["refr"]))
    out = []
    for rule in ast["rules"]:
        (kind, body), = rule.items()
        if kind == "Default":
            span = body["span"]
            out.append(_Definition(file, package, span["line"], _ref_terms(body["refr"]), bool(body.get("args")),
                                   (span["start"], span["end"]), None))
            continue
        if kind != "Spec":
            continue
        (hkind, head), = body["head"].items()
        terms = _ref_terms(head["refr"])
        is_function = hkind == "Func"
        head_span = (head["span"]["start"], head["span"]["end"])
        out.append(_Definition(file, package, body["span"]["line"], terms, is_function, head_span, None))
        for chained in [b for b in body["bodies"] if not b["is_else"]][1:]:
            span = chained["span"]
            out.append(_Definition(file, package, span["line"], terms, is_function, head_span, span["start"]))
    return out


def _test_name(terms: list[_Term]) -> tuple[int, bool] | None:
    """The index of the head's test term (OPA: the first var or string term of the ground prefix that
    starts with ``test_``) and whether it is a test to skip (``todo_test_``); None for other rules."""
    for i, t in enumerate(terms):
        if not t.ground:
            return None
        if t.name is not None and (t.name.startswith(TEST_PREFIX) or t.name.startswith(SKIP_PREFIX)):
            return i, t.name.startswith(SKIP_PREFIX)
    return None


def _plan(bundle: PolicyBundle, modules: list[dict]) -> tuple[list[TestCase], dict[str, RegoFile]]:
    """The tests of the bundle, and the test files rewritten so that each later definition of a test
    has a fresh name of its own (only files that need it)."""
    by_path = {f.path: f for f in bundle.files}
    definitions = [d for m in sorted(modules, key=lambda m: m["source"]["file"]) for d in _definitions(m)]
    taken = "\n".join(f.text for f in bundle.files)
    counts: dict[tuple[str, ...], int] = {}
    cases: list[TestCase] = []
    edits: dict[str, list[tuple[int, int, str]]] = {}
    for d in definitions:
        found = _test_name(d.terms)
        if found is None or found[1]:
            continue
        at = found[0]
        names = [t.name or "" for t in d.terms[: at + 1]]
        key = tuple(d.package.split(".")) + tuple(names)  # OPA counts definitions by their full data path
        n = counts.get(key, 0)
        counts[key] = n + 1
        shown = names[:-1] + [names[-1] if n == 0 else f"{names[-1]}#{n:02d}"]
        problem = None
        if d.is_function:
            problem = f"{_ref_text(names)} is a function: a test rule takes no arguments"
        elif len(d.terms) > at + 1:
            problem = (f"{_ref_text(names)}: a test rule with a reference after its name (OPA's parameterised "
                       "tests) is not supported by the embedded runner; use opa test, or one test_ rule per case")
        path = ""
        if n and problem is None:
            fresh = _fresh_name(f"{names[-1]}__{n:02d}", taken)
            taken += "\n" + fresh
            path = f"data.{d.package}.{_ref_text(names[:-1] + [fresh])}"
            edits.setdefault(d.file, []).append(_rename(by_path[d.file].text, d, at, fresh))
        cases.append(TestCase(d.file, d.package, _ref_text(shown), d.line, path, problem))
    rewritten = {}
    for file, changes in edits.items():
        data = by_path[file].text.encode("utf-8")
        for start, end, text in sorted(changes, reverse=True):
            data = data[:start] + text.encode("utf-8") + data[end:]
        rewritten[file] = replace(by_path[file], text=data.decode("utf-8"))
    return cases, rewritten


def _fresh_name(base: str, taken: str) -> str:
    name = base
    while re.search(rf"\b{re.escape(name)}\b", taken):
        name += "_"
    return name


def _rename(text: str, d: _Definition, at: int, fresh: str) -> tuple[int, int, str]:
    """The edit (byte span, replacement) that gives definition ``d`` the name ``fresh``."""
    term = d.terms[at]
    if d.insert_at is None:  # its own head: rename the test term in place
        return term.start, term.end, fresh
    # a chained body shares the first body's head: give it a copy of the head, renamed, on the same line
    data = text.encode("utf-8")
    head = data[d.head[0]:term.start] + fresh.encode("utf-8") + data[term.end:d.head[1]]
    # on one line: a head that spans lines would move every later line and misplace reported errors
    return d.insert_at, d.insert_at, " ".join(head.decode("utf-8").split()) + " if "
