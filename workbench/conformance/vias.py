"""The ways a conformance case can be executed ("vias"), by name.

A via takes the model (a path, or a ModelProto when the suite rewrote it) and the feeds by graph
input name, and returns the outputs in graph output order. The runner only looks names up here,
so a new path through GE (compile then host, the emulated device) is one more entry.
"""
from __future__ import annotations

from typing import Any, Callable

import onnx

from ge_core.compiler import CompileOptions, compile_graph
from ge_core.executor import HostExecutor
from ge_core.parser import parse_onnx

Via = Callable[[str | onnx.ModelProto, dict[str, Any]], list[Any]]

VIAS: dict[str, Via] = {}


def register_via(name: str) -> Callable[[Via], Via]:
    def register(fn: Via) -> Via:
        VIAS[name] = fn
        return fn
    return register


@register_via("host")
def run_on_host(model: str | onnx.ModelProto, feeds: dict[str, Any]) -> list[Any]:
    """Parse, then run node by node on the host reference executor (no compile passes)."""
    return list(HostExecutor(parse_onnx(model)).run(feeds).values())


@register_via("optimized")
def run_optimized(model: str | onnx.ModelProto, feeds: dict[str, Any]) -> list[Any]:
    """Parse, run GE's optimisation stages, then run the optimised graph on the host."""
    graph = parse_onnx(model)
    compile_graph(graph, CompileOptions(dump=None))
    return list(HostExecutor(graph).run(feeds).values())
