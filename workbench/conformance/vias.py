"""The ways a conformance case can be executed ("vias"), by name.

A via takes the model (a path, or a ModelProto when the suite rewrote it) and the feeds by graph
input name, and returns the outputs in graph output order. The runner only looks names up here,
so a new path through GE (compile then host, the emulated device) is one more entry.
"""
from __future__ import annotations

from typing import Any, Callable

import onnx

from ge_core.compiler import CompileOptions
from ge_core.executor import HostExecutor
from ge_core.ge_options import RunMode
from ge_core.om import GeModel, load_om_bytes, om_bytes
from ge_core.session import GraphManager
from npu_emu.world import World

Via = Callable[[str | onnx.ModelProto, dict[str, Any]], list[Any]]

VIAS: dict[str, Via] = {}


def register_via(name: str) -> Callable[[Via], Via]:
    def register(fn: Via) -> Via:
        VIAS[name] = fn
        return fn
    return register


# Every via drives GraphManager's steps: parse, compile, build, load, execute.
MANAGER = GraphManager(CompileOptions(dump=None))


@register_via("host")
def run_on_host(model: str | onnx.ModelProto, feeds: dict[str, Any]) -> list[Any]:
    """Parse, then run node by node on the host reference executor (no compile passes)."""
    return list(HostExecutor(MANAGER.parse(model)).run(feeds).values())


@register_via("optimized")
def run_optimized(model: str | onnx.ModelProto, feeds: dict[str, Any]) -> list[Any]:
    """Parse, run GE's optimisation stages, then run the optimised graph on the host."""
    return list(HostExecutor(_compiled(model)).run(feeds).values())


def _compiled(model: str | onnx.ModelProto) -> Any:
    graph = MANAGER.parse(model)
    MANAGER.compile(graph)
    return graph


@register_via("device-v2")
def run_on_device_v2(model: str | onnx.ModelProto, feeds: dict[str, Any]) -> list[Any]:
    """Parse, compile, build (unless some dims are unknown or it has control flow: such a graph
    is lowered as compiled), then GE's v2 runtime on the emulated device, in a world of its
    own."""
    with World().entered():
        root = MANAGER.build_root_model(_compiled(model), RunMode.V2)
        return list(MANAGER.run(root, feeds, RunMode.V2).values())


@register_via("device-hybrid")
def run_on_device_hybrid(model: str | onnx.ModelProto, feeds: dict[str, Any]) -> list[Any]:
    """Parse, compile, then a HybridDavinciModel on the emulated device: every shape inferred
    at run time, host-scheduled node by node, in a world of its own."""
    with World().entered():
        return list(MANAGER.run(_compiled(model), feeds, RunMode.HYBRID).values())


@register_via("device")
def run_on_device(model: str | onnx.ModelProto, feeds: dict[str, Any]) -> list[Any]:
    """What GE does with a model: compile; if every shape is static, build with GE's defaults,
    serialise to OM bytes and load them on a fresh emulated NPU (v1: DavinciModel, tasks sunk
    to the device); ModelManager loads a model with unknown dims as a HybridDavinciModel."""
    graph = _compiled(model)
    with World().entered():
        root = MANAGER.build_root_model(graph)
        if isinstance(root, GeModel):   # a built model goes through its OM bytes
            root = load_om_bytes(om_bytes(root))
        return list(MANAGER.run(root, feeds).values())
