"""Run conformance cases through a via and report: one line per case, then every failure and
skip with its reason, then ``N passed, M failed, K skipped``.

A case's own error (the parser refusing an op, a kernel raising, a wrong shape) is that case's
FAIL reason in one line; it never stops the run or prints a traceback.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, Iterable

import numpy as np

from ge_core.parser import ParseError
from workbench.conformance import random_outputs
from workbench.conformance.compare import mismatch
from workbench.conformance.suites import SUITES, Case, Suite
from workbench.conformance.vias import VIAS, Via

PASS, FAIL, SKIP = "PASS", "FAIL", "SKIP"


class UnknownNameError(ValueError):
    """A suite or via name that does not exist; the message lists the ones that do."""


@dataclass(frozen=True)
class CaseResult:
    case: str  # "<suite>/<case name>"
    status: str  # PASS, FAIL or SKIP
    seconds: float
    reason: str = ""

    def line(self) -> str:
        return f"{self.case:<64} {self.status} {self.seconds:7.2f}s"


@dataclass
class SuiteReport:
    suite: str
    results: list[CaseResult] = field(default_factory=list)
    seconds: float = 0.0

    def count(self, status: str) -> int:
        return sum(r.status == status for r in self.results)

    def counts(self) -> str:
        return f"{self.count(PASS)} passed, {self.count(FAIL)} failed, {self.count(SKIP)} skipped"

    @property
    def failed(self) -> list[CaseResult]:
        return [r for r in self.results if r.status == FAIL]


def get_suite(name: str) -> Suite:
    if name not in SUITES:
        raise UnknownNameError(f"unknown suite {name!r}; valid: {', '.join([*SUITES, 'all'])}")
    return SUITES[name]


def get_via(name: str) -> Via:
    if name not in VIAS:
        raise UnknownNameError(f"unknown via {name!r}; valid: {', '.join(VIAS)}")
    return VIAS[name]


def run_suite(name: str, via: str = "host", seed: int = 0, keyword: str = "",
              on_result: Callable[[CaseResult], None] | None = None) -> SuiteReport:
    """Run the suite's cases whose id contains ``keyword``; ``on_result`` sees each as it ends."""
    suite, run = get_suite(name), get_via(via)
    report = SuiteReport(name)
    start = time.perf_counter()
    for case in suite.discover(seed):
        if keyword in case.id:
            result = run_case(case, run, suite.parse_error_skips)
            report.results.append(result)
            if on_result:
                on_result(result)
    report.seconds = time.perf_counter() - start
    return report


def run_case(case: Case, via: Via, parse_error_skips: bool = False) -> CaseResult:
    start = time.perf_counter()
    status, reason = PASS, ""
    try:
        data = case.load()
        for ds in data.data_sets:
            # Cases feed sqrt and pow negative numbers on purpose: the comparison judges the NaNs.
            with np.errstate(all="ignore"):
                outputs = via(data.model, ds.feeds)
            if data.random:
                reason = random_outputs.mismatch(data.model, ds.feeds, outputs, ds.expected)
            else:
                reason = mismatch(outputs, ds.expected, data.rtol, data.atol)
            reason = reason or ""
            if reason:
                status = FAIL
                break
    except ParseError as exc:
        status, reason = (SKIP, _first_line(exc)) if parse_error_skips \
            else (FAIL, f"ParseError: {_first_line(exc)}")
    except Exception as exc:  # the case's result, not the run's end
        status, reason = FAIL, f"{type(exc).__name__}: {_first_line(exc)}"
    return CaseResult(case.id, status, time.perf_counter() - start, reason)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else "(no message)"


def suite_names(name: str) -> list[str]:
    """``all`` expands to every suite in order; any other name must be a suite."""
    return list(SUITES) if name == "all" else [get_suite(name).name]


def summary(reports: Iterable[SuiteReport]) -> list[str]:
    """The closing lines: each failure and skip with its reason, then the counts."""
    merged = SuiteReport("all", [r for report in reports for r in report.results])
    return [f"{r.status} {r.case}: {r.reason}" for r in merged.results if r.status != PASS] \
        + [merged.counts()]
