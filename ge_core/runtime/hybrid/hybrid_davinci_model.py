"""HybridDavinciModel: a model with unknown dims (a dynamic batch, a variable sequence length),
which cannot be sunk - its tasks and memory depend on each execution's shapes.

GE registers it in ModelManager's hybrid_model_map (ModelManager::IsNeedHybridLoad chose it),
and its executor today is HybridModelRtV2Executor: the graph lowered to v2's ExecuteGraph and run
host-scheduled, node by node. Here likewise: lowering with every node's InferShape at run time
(on a per-execution copy of its descs, from the shapes actually fed) and one stream, so each
execution allocates each tensor's block for its real size, launches each kernel on the emulated
device, and frees blocks after their last use. Each launch costs the host its launch latency,
which an idle device shows as a gap between kernels - what TaskSink removes for static models.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from ge_core.compiler.host_cpu_ops import needs_host
from ge_core.graph import ComputeGraph
from ge_core.runtime.errors import GeError
from ge_core.runtime.v1.model_manager import ModelManager
from ge_core.runtime.v2 import (ExecuteResult, LoweringOptions, ModelV2Executor,
                                default_stream, lower_graph)
from npu_emu.stream import Stream

HYBRID_LOWERING = LoweringOptions(infer_at_run_time=True, single_stream=True)


def is_need_hybrid_load(graph: ComputeGraph) -> bool:
    """GE's ModelManager::IsNeedHybridLoad: some tensor's dims are known only at run time, or
    something runs on, or lives in, the host (strings, sequences, Scan), which a sunk model
    cannot reach."""
    return any(d.shape.is_unknown for n in graph.all_nodes() for d in n.op_desc.output_descs) \
        or needs_host(graph)


class HybridDavinciModel:
    def __init__(self, graph: ComputeGraph) -> None:
        self.graph = graph
        self.model_id: int | None = None
        self.executor: ModelV2Executor | None = None

    def init(self, stream: Stream | None = None, executor: str = "sequential") -> int:
        """Lower, load (Init: allocator, weights) on ``stream`` and register in the current
        world's ModelManager; returns the model id."""
        self.executor = ModelV2Executor(lower_graph(self.graph, HYBRID_LOWERING),
                                        stream or default_stream(), executor)
        self.executor.load()
        self.model_id = ModelManager.get_instance().add_hybrid_model(self)
        return self.model_id

    def execute(self, feeds: Mapping[str, Any] | Sequence[Any]) -> ExecuteResult:
        if self.executor is None:
            raise GeError(f"hybrid model {self.graph.name}: execute before init")
        return self.executor.execute(feeds)

    def unload(self) -> None:
        if self.executor is None:
            raise GeError(f"hybrid model {self.graph.name}: unload before init")
        self.executor.unload()
        self.executor = None
        ModelManager.get_instance().unload_hybrid_model(self.model_id)
