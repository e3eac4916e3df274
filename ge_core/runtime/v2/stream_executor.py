"""StreamExecutor: one ModelV2Executor per stream for one lowered model (GE's
streams_to_executor_, keyed by the aclrtStream an execution is asked to run on).

Asynchronous callers may run the same model on several streams at once; each stream's executor
keeps its own state - value table, allocator, the streams and events its Init made, iteration
count - so executions on different streams never share a block or an event. The ExecuteGraph is
lowered once and instantiated per stream, loaded on the stream's first execution.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from ge_core.runtime.v2.execute_graph import ExecuteGraph
from ge_core.runtime.v2.model_v2_executor import ExecuteResult, ModelV2Executor, executor_class
from npu_emu.core.stream import Stream


class StreamExecutor:
    def __init__(self, execute_graph: ExecuteGraph, executor: str = "sequential") -> None:
        executor_class(executor)   # an unknown name fails here, not at the first execution
        self.graph = execute_graph
        self.executor = executor
        self.executors: dict[int, ModelV2Executor] = {}   # by stream id

    def get_or_create(self, stream: Stream) -> ModelV2Executor:
        executor = self.executors.get(stream.id)
        if executor is None:
            executor = ModelV2Executor(self.graph, stream, self.executor)
            executor.load()
            self.executors[stream.id] = executor
        return executor

    def execute(self, feeds: Mapping[str, Any] | Sequence[Any], stream: Stream) -> ExecuteResult:
        return self.get_or_create(stream).execute(feeds)

    def erase(self, stream: Stream) -> None:
        """Unload the stream's executor (the stream is going away)."""
        executor = self.executors.pop(stream.id, None)
        if executor is not None:
            executor.unload()

    def unload_all(self) -> None:
        for stream_id in sorted(self.executors):
            self.executors.pop(stream_id).unload()
