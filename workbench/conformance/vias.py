"""The ways a conformance case can be executed ("vias"), by name.

A via takes the model (a path, or a ModelProto when the suite rewrote it) and the feeds by graph
input name, and returns the outputs in graph output order. The runner only looks names up here,
so a new path through GE (compile then host, the emulated device) is one more entry.
"""
from __future__ import annotations

from typing import Any, Callable

import onnx

from ge_core.compiler import CompileOptions, compile_graph
from ge_core.compiler.model_builder import build_model
from ge_core.executor import HostExecutor
from ge_core.om import om_bytes
from ge_core.parser import parse_onnx
from ge_core.runtime.v1 import GraphExecutor, GraphLoader
from npu_emu.world import World

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


def _compiled(model: str | onnx.ModelProto) -> Any:
    graph = parse_onnx(model)
    compile_graph(graph, CompileOptions(dump=None))
    return graph


@register_via("device-v2")
def run_on_device_v2(model: str | onnx.ModelProto, feeds: dict[str, Any]) -> list[Any]:
    """Parse, compile, build (unless some dims are unknown: such a graph is lowered as
    compiled), then GE's v2 runtime on the emulated device, in a world of its own."""
    # Imported here: the runtime packages are the heavy part, and other vias never need them.
    from ge_core.runtime.hybrid import is_need_hybrid_load
    from ge_core.runtime.v2 import execute_v2
    from npu_emu.world import World

    with World().entered():
        graph = _compiled(model)
        target = graph if is_need_hybrid_load(graph) else build_model(graph).ge_model
        return list(execute_v2(target, feeds).outputs.values())


@register_via("device-hybrid")
def run_on_device_hybrid(model: str | onnx.ModelProto, feeds: dict[str, Any]) -> list[Any]:
    """Parse, compile, then a HybridDavinciModel on the emulated device: every shape inferred
    at run time, host-scheduled node by node, in a world of its own."""
    from ge_core.runtime.hybrid import execute_hybrid
    from npu_emu.world import World

    with World().entered():
        return list(execute_hybrid(_compiled(model), feeds).outputs.values())



@register_via("device")
def run_on_device(model: str | onnx.ModelProto, feeds: dict[str, Any]) -> list[Any]:
    """What GE does with a model: compile; if every shape is static, build with GE's defaults,
    serialise to OM bytes and load them on a fresh emulated NPU (v1: DavinciModel, tasks sunk
    to the device); a model with unknown dims loads as a HybridDavinciModel instead."""
    from ge_core.runtime.hybrid import execute_hybrid, is_need_hybrid_load

    graph = _compiled(model)
    with World().entered() as world:
        if is_need_hybrid_load(graph):
            return list(execute_hybrid(graph, feeds).outputs.values())
        world.runtime.set_device(0)
        model_id = GraphLoader.load_model_from_data(om_bytes(build_model(graph).ge_model))
        try:
            return list(GraphExecutor.execute_graph(model_id, feeds).values())
        finally:
            GraphLoader.unload_model(model_id)
