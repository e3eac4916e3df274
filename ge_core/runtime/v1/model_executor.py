"""ModelExecutor: a session's execution coordinator (GE's model_executor.cc).

It holds the session's graph nodes (a graph id -> the graph, its built GeModel, the model it is
loaded as) and decides loading: a graph is loaded on its first run, and when the device lacks
room for it, the session's other loaded models are unloaded in graph id order (GE walks its
graph_nodes_ map), skipping any with HCCL tasks (a collective's peers expect it to stay), until
it fits: CheckAndReleaseMemory, then CheckAndReleaseStream and CheckAndReleaseEvent. Short of
memory the load is tried anyway; short of streams or events it fails, as GE's does. An unloaded
graph loads again on its next run.

Runs go through GraphExecutor: ``run_graph`` is NnExecute on the caller's thread;
``run_graph_async`` queues for the model's Run loop, which executes when the session waits
(``wait``) or before any later call that drives the device, so work happens in one order.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Sequence

from ge_core.graph import ComputeGraph
from ge_core.om.ge_model import GeModel
from ge_core.runtime.errors import GeError
from ge_core.runtime.model_io import DeviceBuffer
from ge_core.runtime.model_memory import FEATURE_MAP, WEIGHT, fixed_feature_bytes, segment_sizes
from ge_core.runtime.v1.data_inputer import Callback, Inputs, Outputs
from ge_core.runtime.v1.graph_executor import GraphExecutor
from ge_core.runtime.v1.graph_loader import GraphLoader
from ge_core.runtime.v1.model_manager import ModelManager
from npu_emu.scheduler.task_scheduler import SLOT
from npu_emu.world import current_runtime

if TYPE_CHECKING:
    from ge_core.runtime.v1.davinci_model import DavinciModel
    from npu_emu.core.stream import Stream

MAX_STREAMS = SLOT + 1   # the task scheduler's stream slots on a device
STREAM_SYNC_TIMEOUT = "ge.exec.streamSyncTimeout"   # ms of device time an execution may take


@dataclass
class GraphNode:
    """A graph of the session (GE's GraphNode)."""

    graph_id: int
    graph: ComputeGraph
    options: dict[str, str]
    ge_model: GeModel | None = None           # once built (shared by forks)
    model_id: int | None = None               # while loaded
    load_seq: int = 0                         # when it was loaded: oldest is released first
    feature_map_base: int | None = None       # memory the user provides
    const_memory_base: int | None = None
    fixed_feature_map_base: int | None = None

    @property
    def built(self) -> bool:
        return self.ge_model is not None


class ModelExecutor:
    def __init__(self, session_id: int) -> None:
        self.session_id = session_id
        self.graph_nodes: dict[int, GraphNode] = {}
        self._loads = 0

    def graph_node(self, graph_id: int) -> GraphNode:
        node = self.graph_nodes.get(graph_id)
        if node is None:
            known = ", ".join(map(str, sorted(self.graph_nodes))) or "none"
            raise GeError(f"graph {graph_id} was never added (graphs: {known})")
        return node

    def model(self, node: GraphNode) -> DavinciModel:
        return ModelManager.get_instance().get_model(node.model_id)

    # -- loading -------------------------------------------------------------------------------
    def load_graph(self, node: GraphNode) -> int:
        if node.model_id is not None:
            return node.model_id
        if not node.built:
            raise GeError(f"graph {node.graph_id} is not built: build or compile it first")
        self.check_and_release_memory(node)
        self.check_and_release_stream(node)
        self.check_and_release_event(node)
        node.model_id = GraphLoader.load_model_online(node.ge_model, self.session_id,
                                                      node.feature_map_base,
                                                      node.const_memory_base,
                                                      node.fixed_feature_map_base)
        self._loads += 1
        node.load_seq = self._loads
        self.model(node).stream_sync_timeout_ms = int(node.options.get(STREAM_SYNC_TIMEOUT, -1))
        return node.model_id

    def unload_graph(self, node: GraphNode) -> None:
        if node.model_id is not None:
            model_id, node.model_id = node.model_id, None
            GraphLoader.unload_model(model_id)

    def check_and_release_memory(self, node: GraphNode) -> None:
        sizes = segment_sizes(node.ge_model)
        if node.feature_map_base is not None:
            sizes[FEATURE_MAP] = 0
        elif node.fixed_feature_map_base is not None:
            sizes[FEATURE_MAP] -= fixed_feature_bytes(node.ge_model)
        if node.const_memory_base is not None:
            sizes[WEIGHT] = 0
        need = sum(sizes.values())
        memory = current_runtime().device().memory
        self._release_until(node, lambda: need <= memory.free_bytes())

    def check_and_release_stream(self, node: GraphNode) -> None:
        need = node.ge_model.stream_num + 1   # and its execution stream

        def available() -> int:
            return MAX_STREAMS - self._held(lambda m: len(m.streams) + 1)
        if not self._release_until(node, lambda: need <= available()):
            raise GeError(f"graph {node.graph_id}: check and release stream failed, "
                          f"{need} streams required, {available()} available")

    def check_and_release_event(self, node: GraphNode) -> None:
        need = node.ge_model.task_def.event_num
        limit = current_runtime().config.max_events

        def available() -> int:
            return limit - self._held(lambda m: len(m.events))
        if not self._release_until(node, lambda: need <= available()):
            raise GeError(f"graph {node.graph_id}: check and release event failed, "
                          f"{need} events required, {available()} available")

    def _held(self, count: Callable[["DavinciModel"], int]) -> int:
        return sum(count(m) for m in ModelManager.get_instance().model_map.values())

    def _release_until(self, loading: GraphNode, fits: Callable[[], bool]) -> bool:
        """Unload this session's loaded graphs in graph id order, never one with HCCL tasks,
        until ``fits()``; answers whether it fits at the end."""
        for _, node in sorted(self.graph_nodes.items()):
            if fits():
                return True
            if node.model_id is not None and node is not loading \
                    and not self.model(node).has_hccl_task:
                self.unload_graph(node)
        return fits()

    # -- running -------------------------------------------------------------------------------
    def run_graph(self, graph_id: int, inputs: Inputs, timeout_ms: int | None = None) -> Outputs:
        self.wait()
        node = self.graph_node(graph_id)
        return GraphExecutor.execute_graph(self.load_graph(node), inputs, timeout_ms=timeout_ms)

    def run_graph_async(self, graph_id: int, inputs: Inputs, callback: Callback | None) -> int:
        node = self.graph_node(graph_id)
        if node.model_id is None:
            self.wait()   # loading drives the device: queued work goes first
        return GraphExecutor.execute_graph_async(self.load_graph(node), inputs, callback)

    def run_graph_with_stream(self, graph_id: int, stream: Stream, inputs: Inputs,
                              outputs: Sequence[DeviceBuffer]) -> None:
        self.wait()
        node = self.graph_node(graph_id)
        GraphExecutor.execute_graph_with_stream(self.load_graph(node), stream, inputs, outputs)

    def wait(self) -> None:
        """Let every queued asynchronous run execute (graph id order); return when done."""
        for _, node in sorted(self.graph_nodes.items()):
            if node.model_id is not None:
                loop = self.model(node).run_loop
                if loop is not None:
                    loop.join()

    def finalize(self) -> None:
        """Finish queued runs, then unload every graph of the session."""
        try:
            self.wait()
        finally:
            for _, node in sorted(self.graph_nodes.items()):
                self.unload_graph(node)
