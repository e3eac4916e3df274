"""HybridDavinciModel: a model with unknown dims (a dynamic batch, a variable sequence length),
which cannot be sunk - its tasks and memory depend on each execution's shapes.

GE's ModelManager loads it when IsNeedHybridLoad says so and keeps it in hybrid_model_map
(v1/model_manager.py); its executor today is HybridModelRtV2Executor: the graph lowered to v2's
ExecuteGraph and run host-scheduled, node by node. Here likewise: lowering with every node's
InferShape at run time (on a per-execution copy of its descs, from the shapes actually fed) and
one stream, so each execution allocates each tensor's block for its real size, launches each
kernel on the emulated device, and frees blocks after their last use. Each launch costs the host
its launch latency, which an idle device shows as a gap between kernels - what TaskSink removes
for static models.

Control flow: GE's hybrid executor runs If and While through its control-op node executor
(IfOpNodeTask, WhileOpNodeTask), which picks a branch or loops and executes the subgraph node
by node. With the v2 executor that is the lowering's If and While kernels (v2/lowering/
if_case_converter.py, while_converter.py): the host reads the condition, then runs the chosen
branch's or the body's ExeGraph node by node, each node's shapes inferred from that iteration's
inputs.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from ge_core.graph import ComputeGraph
from ge_core.runtime.errors import GeError
from ge_core.runtime.v2 import (ExecuteResult, LoweringOptions, ModelV2Executor,
                                default_stream, lower_graph)
from npu_emu.core.stream import Stream

HYBRID_LOWERING = LoweringOptions(infer_at_run_time=True, single_stream=True)


class HybridDavinciModel:
    def __init__(self, graph: ComputeGraph, model_id: int = 0) -> None:
        self.graph = graph
        self.model_id = model_id
        self.executor: ModelV2Executor | None = None
        self.last_execute_ns = 0    # device time of the last execution

    def init(self, stream: Stream | None = None, executor: str = "sequential") -> None:
        """Lower, then load (Init: allocator, weights) on ``stream``."""
        self.executor = ModelV2Executor(lower_graph(self.graph, HYBRID_LOWERING),
                                        stream or default_stream(), executor)
        self.executor.load()

    def execute(self, feeds: Mapping[str, Any] | Sequence[Any],
                timeout_ms: int | None = None) -> ExecuteResult:
        if self.executor is None:
            raise GeError(f"hybrid model {self.graph.name}: execute before init")
        result = self.executor.execute(feeds, timeout_ms)
        self.last_execute_ns = result.emulated_ns
        return result

    def unload(self) -> None:
        if self.executor is None:
            raise GeError(f"hybrid model {self.graph.name}: unload before init")
        self.executor.unload()
        self.executor = None
