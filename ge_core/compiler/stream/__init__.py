"""Stream allocation and synchronisation (GE's compiler/graph/build/stream/).

    assign_streams(graph, options)            logical streams + sync nodes -> StreamReport
    split_streams(graph, task_count, options) physical split by task count -> SplitReport
    unordered_dependencies(graph)             cross-stream edges nothing orders (should be [])

The names below load with their module on first use (PEP 562): a face reading a stream option's
default does not load the allocator.
"""
from ge_core.lazy_names import lazy_names

_WHERE = {"unordered_dependencies": "happens_before", "StreamAllocator": "stream_allocator",
          "assign_streams": "stream_allocator",
          "StreamOptions": "stream_options", "SplitReport": "stream_report",
          "StreamReport": "stream_report", "StreamSplit": "stream_report",
          "default_task_count": "stream_split", "split_streams": "stream_split",
          "StreamAllocationError": "stream_utils"}

__all__ = sorted(_WHERE)

__getattr__ = lazy_names(__name__, _WHERE)
