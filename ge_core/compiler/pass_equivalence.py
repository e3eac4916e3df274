"""Pass equivalence: did a pass keep the numbers?

The host reference executor runs the graph on a fixed random input before the first pass; after
every pass that changed the graph it runs again and compares. Engine subgraphs cannot run alone,
so each is fed its cut edges from a whole-graph run made just before partitioning and its End
values are compared with that same run. The first pass that breaks the numbers is named.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ge_core.executor import HostExecutor, random_feeds
from ge_core.executor.host_executor import Value
from ge_core.graph import ComputeGraph


@dataclass
class Mismatch:
    stage: str
    pass_name: str
    graph: str
    tensor: str
    detail: str

    def __str__(self) -> str:
        return (f"pass {self.pass_name} (stage {self.stage}, graph {self.graph}) changed "
                f"{self.tensor}: {self.detail}")


@dataclass
class EquivalenceReport:
    checks: int = 0
    mismatches: list[Mismatch] = field(default_factory=list)

    @property
    def first(self) -> Mismatch | None:
        return self.mismatches[0] if self.mismatches else None


def compare(expected: Value, actual: Value, rtol: float, atol: float) -> str | None:
    """None when close; else what differs. atol scales with the tensor's magnitude, because
    folding BN into weights reorders float rounding in proportion to the values. A sequence (a
    list) compares element by element, an optional may be empty (None): numpy made one array of
    a sequence of tensors of two shapes ("setting an array element with a sequence")."""
    if isinstance(expected, list) or isinstance(actual, list):
        if not (isinstance(expected, list) and isinstance(actual, list)):
            return f"{_kind(expected)} -> {_kind(actual)}"
        if len(expected) != len(actual):
            return f"a sequence of {len(expected)} -> {len(actual)}"
        for i, (want, got) in enumerate(zip(expected, actual)):
            why = compare(want, got, rtol, atol)
            if why:
                return f"element {i}: {why}"
        return None
    if expected is None or actual is None:
        return None if expected is actual else f"{_kind(expected)} -> {_kind(actual)}"
    expected, actual = np.asarray(expected), np.asarray(actual)
    if expected.shape != actual.shape:
        return f"shape {list(expected.shape)} -> {list(actual.shape)}"
    if expected.dtype != actual.dtype:
        return f"dtype {expected.dtype} -> {actual.dtype}"
    if expected.size == 0 or expected.dtype.kind not in "fc":
        return None if np.array_equal(expected, actual) else "values differ"
    scale = float(np.max(np.abs(expected))) or 1.0
    if np.allclose(actual, expected, rtol=rtol, atol=atol * scale, equal_nan=True):
        return None
    err = float(np.max(np.abs(actual.astype(np.float64) - expected)))
    return f"max abs error {err:.3g} (values up to {scale:.3g})"


def _kind(value: Value) -> str:
    return "a sequence" if isinstance(value, list) else "an empty optional" if value is None \
        else "a tensor"


class EquivalenceChecker:
    def __init__(self, graph: ComputeGraph, seed: int = 0, rtol: float = 1e-4,
                 atol: float = 1e-5) -> None:
        self.feeds = random_feeds(graph, seed)
        self.rtol, self.atol = rtol, atol
        self.expected = HostExecutor(graph).run(self.feeds)
        self.cut_values: dict[str, np.ndarray] = {}
        self.report = EquivalenceReport()

    def check_graph(self, graph: ComputeGraph, stage: str, pass_name: str) -> None:
        outputs = HostExecutor(graph).run(self.feeds)
        self._compare(self.expected, outputs, stage, pass_name, graph.name)

    def before_partition(self, graph: ComputeGraph) -> None:
        executor = HostExecutor(graph, keep_values=True)
        executor.run(self.feeds)
        self.cut_values = executor.values or {}

    def check_partition(self, part: ComputeGraph, stage: str, pass_name: str) -> None:
        ends = HostExecutor(part).run_partition(self.cut_values)
        self._compare({k: self.cut_values[k] for k in ends}, ends, stage, pass_name, part.name)

    def _compare(self, expected, actual, stage: str, pass_name: str, graph: str) -> None:
        self.report.checks += 1
        for name, want in expected.items():
            if name not in actual:
                self.report.mismatches.append(Mismatch(stage, pass_name, graph, name, "missing"))
                continue
            why = compare(want, actual[name], self.rtol, self.atol)
            if why:
                self.report.mismatches.append(Mismatch(stage, pass_name, graph, name, why))
