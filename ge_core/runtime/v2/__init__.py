"""GE's v2 runtime: a ComputeGraph lowered to an ExecuteGraph and run by a minimal loop.

Entry point (what `gewb exec --mode v2` calls):

    execute_v2(model, feeds, executor="sequential", stream=None) -> ExecuteResult
        model     a GeModel (built: its streams and Send/Recv events are honoured) or a
                  ComputeGraph (compiled; unknown dims are inferred at run time, If, Case
                  and Loop run as control-flow kernels over their subgraphs)
        feeds     {input name: array} or arrays in input order
        executor  "sequential" or "topological"
        stream    the npu_emu stream to run on (default: the current runtime's default stream,
                  device 0 set if none is)
        -> ExecuteResult(outputs={output name: array}, emulated_ns=device time of the run)

    It runs in the current World's runtime: lower_graph -> ModelV2Executor.load (Init) ->
    execute (Main) -> unload (DeInit).

Pieces, named after GE's:
    lowering/               lower_graph (GraphConverter) + one NodeConverter per kind of node;
                            lower_subgraph for an If branch or a Loop body
    execute_graph.py        ExecuteGraph: Init / Main / DeInit graphs of runtime-kernel nodes
    kernel/                 the runtime kernels those nodes run (AllocMemory,
                            LaunchKernelWithHandle ...; GE's kernel names)
    caching_mem_allocator   the stream-ordered allocator behind AllocMemory / FreeMemory
    sequential_executor, topological_executor
    model_v2_executor.py    ModelV2Executor: load / execute / unload
    stream_executor.py      StreamExecutor: one ModelV2Executor per stream
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from ge_core.graph import ComputeGraph
from ge_core.om.ge_model import GeModel
from ge_core.runtime.v2.execute_graph import ExecuteGraph, ExecuteGraphError, TensorSpec
from ge_core.runtime.v2.lowering import LoweringError, LoweringOptions, lower_graph
from ge_core.runtime.v2.model_v2_executor import EXECUTORS, ExecuteResult, ModelV2Executor
from ge_core.runtime.v2.stream_executor import StreamExecutor
from npu_emu.core.stream import Stream
from npu_emu.world import current_runtime


def default_stream() -> Stream:
    """The current runtime's default stream (setting device 0 if no device is set)."""
    rt = current_runtime()
    if rt.current_context is None:
        rt.set_device(0)
    return rt.default_stream()


def execute_v2(model: GeModel | ComputeGraph, feeds: Mapping[str, Any] | Sequence[Any],
               executor: str = "sequential", stream: Stream | None = None,
               timeout_ms: int | None = None) -> ExecuteResult:
    graph = model.graph if isinstance(model, GeModel) else model
    v2 = ModelV2Executor(lower_graph(graph), stream or default_stream(), executor)
    v2.load()
    try:
        return v2.execute(feeds, timeout_ms)
    finally:
        v2.unload()


__all__ = ["EXECUTORS", "ExecuteGraph", "ExecuteGraphError", "ExecuteResult", "LoweringError",
           "LoweringOptions", "ModelV2Executor", "StreamExecutor", "TensorSpec",
           "default_stream", "execute_v2", "lower_graph"]
