"""ExecuteGraph: what lowering makes of a ComputeGraph (GE v2's ExecuteGraph), three graphs of
runtime-kernel nodes over one table of values.

    Init    create what every execution shares: streams, events, the memory allocator, weights
    Main    one execution: copy inputs in, [InferShape], AllocMemory, LaunchKernelWithHandle,
            FreeMemory per op, Synchronize, copy outputs out
    DeInit  release what Init created

A node names a kernel of the v2 kernel registry (``kernel/``) and the values it reads and writes
by id; a value is anything a kernel hands another (a stream, an event, a device tensor, a shape,
a host array). Values known when lowering (a static op's output shape) are constants of the
graph: that is GE's "InferShape precomputed". Init's values live until DeInit, Main's for one
execution. Nothing here runs: ModelV2Executor instantiates the graph on a stream.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ge_core.graph.dump import format_attr
from ge_core.runtime.v2 import not_ge_kernels
from npu_emu.base.counted import counted

INIT, MAIN, DEINIT = "Init", "Main", "DeInit"


class ExecuteGraphError(RuntimeError):
    """A node of an ExecuteGraph failed; the message names it."""


@dataclass(frozen=True, slots=True)
class TensorSpec:
    """A tensor's shape and dtype: what InferShape gives AllocMemory."""

    shape: tuple[int, ...]
    dtype: str   # numpy's name

    @property
    def nbytes(self) -> int:
        return math.prod(self.shape) * np.dtype(self.dtype).itemsize

    def __str__(self) -> str:
        return f"{self.dtype}{list(self.shape)}"


@dataclass
class ExeNode:
    id: int                      # index in creation order within its graph
    type: str                    # its runtime kernel: AllocMemory, LaunchKernelWithHandle ...
    name: str                    # "<compute node>/<type>", or the resource it makes
    inputs: tuple[int, ...]      # value ids read
    outputs: tuple[int, ...]     # value ids written
    attrs: dict[str, Any] = field(default_factory=dict)
    after: list[int] = field(default_factory=list)   # nodes it follows without reading from


@dataclass
class ExeGraph:
    """Init, Main or DeInit, or a subgraph of a control-flow node (an If branch, a While's cond
    or body: the node's ``subgraphs`` attr). ``nodes`` is the sequential executor's order (a
    topological one); ``dependencies`` are what the topological executor counts; a subgraph
    hands its parent node the values in ``results``."""

    name: str
    nodes: list[ExeNode] = field(default_factory=list)
    results: list[int] = field(default_factory=list)

    def add(self, type: str, name: str, inputs: tuple[int, ...] = (),
            outputs: tuple[int, ...] = (), attrs: dict[str, Any] | None = None,
            after: list[int] | None = None) -> ExeNode:
        node = ExeNode(len(self.nodes), type, name, tuple(inputs), tuple(outputs),
                       dict(attrs or {}), list(after or []))
        self.nodes.append(node)
        return node

    def dependencies(self) -> list[list[int]]:
        """For each node in ``nodes`` order, the positions of the nodes it waits for: the
        producers (in this graph) of the values it reads, and its ``after`` nodes."""
        position = {n.id: i for i, n in enumerate(self.nodes)}
        producer: dict[int, int] = {}
        for i, n in enumerate(self.nodes):
            for v in n.outputs:
                producer[v] = i
        deps = []
        for n in self.nodes:
            wait = {producer[v] for v in n.inputs if v in producer}
            wait.update(position[a] for a in n.after)
            deps.append(sorted(wait))
        return deps

    def count(self, type: str) -> int:
        return sum(n.type == type for n in self.nodes)


@dataclass
class ExecuteGraph:
    name: str
    init: ExeGraph = field(default_factory=lambda: ExeGraph(INIT))
    main: ExeGraph = field(default_factory=lambda: ExeGraph(MAIN))
    deinit: ExeGraph = field(default_factory=lambda: ExeGraph(DEINIT))
    value_names: list[str] = field(default_factory=list)   # value id -> name
    constants: dict[int, Any] = field(default_factory=dict)
    inputs: list[tuple[str, int]] = field(default_factory=list)    # feed name -> value id
    outputs: list[tuple[str, int]] = field(default_factory=list)   # output name -> value id
    own_stream: int = -1   # the value the executor binds its stream to (logical stream 0)

    def new_value(self, name: str) -> int:
        self.value_names.append(name)
        return len(self.value_names) - 1

    @property
    def graphs(self) -> tuple[ExeGraph, ExeGraph, ExeGraph]:
        return self.init, self.main, self.deinit

    def dump(self) -> str:
        """One line per node: ``[id] Type name (inputs) -> (outputs) {attrs}``, by graph; a
        control-flow node's subgraphs follow it, indented."""
        lines = [f"execute graph {self.name}: {len(self.value_names)} values"]
        for g in self.graphs:
            lines.append(f"{g.name} ({counted(len(g.nodes), 'node')})")
            self._dump_nodes(g, "  ", lines)
        return "\n".join(lines)

    def _dump_nodes(self, graph: ExeGraph, indent: str, lines: list[str]) -> None:
        for n in graph.nodes:
            lines.append(f"{indent}{self._line(n)}")
            for sub in n.attrs.get(SUBGRAPHS, ()):
                results = ", ".join(f"%{self.value_names[v]}" for v in sub.results)
                nodes = counted(len(sub.nodes), "node")
                lines.append(f"{indent}  subgraph {sub.name} ({nodes}) -> "
                             f"({results})")
                self._dump_nodes(sub, indent + "    ", lines)

    def _line(self, n: ExeNode) -> str:
        def value(v: int) -> str:
            return f"={format_attr(self.constants[v])}" if v in self.constants \
                else f"%{self.value_names[v]}"
        shown = {k: v for k, v in n.attrs.items() if k in SHOWN_ATTRS}
        attrs = " {" + ", ".join(f"{k}={format_attr(v)}" for k, v in sorted(shown.items())) \
            + "}" if shown else ""
        after = f" after {n.after}" if n.after else ""
        return (f"[{n.id}] {not_ge_kernels.shown(n.type)} {n.name}("
                f"{', '.join(map(value, n.inputs))}) -> "
                f"({', '.join(map(value, n.outputs))}){attrs}{after}")


SHOWN_ATTRS = frozenset({"stream", "event_id", "notify_id", "dtype"})
SUBGRAPHS = "subgraphs"   # a control-flow node's attr: its ExeGraphs, in the kernel's order
