"""``seedance policy test``: run every ``test_`` rule under ``policies/`` with regorus, like ``opa test``."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from pathlib import Path

from seedance.gate.bundle import PolicyBundle, load_bundle
from seedance.gate.engine import RegorusEngine, located_message

_TEST_RULE = re.compile(r"^(test_\w+)\s+if\b", re.M)


@dataclass(frozen=True)
class TestCase:
    file: str
    package: str
    name: str
    line: int

    @property
    def query(self) -> str:
        return f"data.{self.package}.{self.name}"


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
    cases = []
    for f in bundle.files:
        if not f.is_test:
            continue
        seen = set()
        for m in _TEST_RULE.finditer(f.text):
            if m.group(1) in seen:  # several bodies of one test rule are one test, as in OPA
                continue
            seen.add(m.group(1))
            cases.append(TestCase(f.path, f.package, m.group(1), f.text.count("\n", 0, m.start()) + 1))
    return cases


def run_tests(root: Path | None = None, *, match: str | None = None, bundle: PolicyBundle | None = None) -> TestReport:
    """Raise PolicyLoadError (file:line:col) when a policy or test does not parse."""
    bundle = bundle or load_bundle(root)
    engine = RegorusEngine().prepare(bundle, tests=True)
    results = []
    for case in discover(bundle):
        if match and not re.search(match, f"{case.package}.{case.name}"):
            continue
        start = time.perf_counter()
        try:
            value = engine.clone().eval_rule(case.query)
            status, error = ("PASS", None) if value is True else ("FAIL", None)
        except Exception as exc:  # a runtime error in the rule under test: reported, located
            status, error = "ERROR", located_message(str(exc))
        results.append(TestResult(case, status, error, time.perf_counter() - start))
    return TestReport(results)
