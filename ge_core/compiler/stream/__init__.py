"""Stream allocation and synchronisation (GE's compiler/graph/build/stream/).

    assign_streams(graph, options)            logical streams + sync nodes -> StreamReport
    split_streams(graph, task_count, options) physical split by task count -> SplitReport
    unordered_dependencies(graph)             cross-stream edges nothing orders (should be [])
"""
from ge_core.compiler.stream.happens_before import unordered_dependencies
from ge_core.compiler.stream.stream_allocator import StreamAllocator, assign_streams
from ge_core.compiler.stream.stream_options import MAX_TASK_COUNT, StreamOptions
from ge_core.compiler.stream.stream_report import SplitReport, StreamReport, StreamSplit
from ge_core.compiler.stream.stream_split import default_task_count, split_streams
from ge_core.compiler.stream.stream_utils import StreamAllocationError

__all__ = ["MAX_TASK_COUNT", "SplitReport", "StreamAllocationError", "StreamAllocator",
           "StreamOptions", "StreamReport", "StreamSplit", "assign_streams",
           "default_task_count", "split_streams", "unordered_dependencies"]
