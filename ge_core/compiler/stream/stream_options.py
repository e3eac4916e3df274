"""StreamOptions: the GE options the stream build reads, as one frozen value.

    stream_max_parallel_num   ge.streamMaxParallelNum: new streams per engine, round-robin
    enable_single_stream      ge.enableSingleStream
    use_notify                ge.event=notify: notifies instead of events
    minimise_events           ours: drop the events the transitive reduction shows redundant
    max_task_count            the tasks a stream may hold; None: ask the runtime
                              (rtGetMaxStreamAndTask's maxTaskNumPerStream, by chip: soc.py)
    unlimited_stream_depth    whether the runtime grows model streams itself (AutoSplit), so
                              GE's SplitStreams is skipped; None: ask the runtime
                              (FEATURE_TYPE_PERSISTENT_STREAM_UNLIMITED_DEPTH)
    hcom_parallel             ge.hcomParallel: AllReduceParallel moves AllReduce's successors
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class StreamOptions:
    stream_max_parallel_num: int = 1
    enable_single_stream: bool = False
    use_notify: bool = False
    minimise_events: bool = False
    max_task_count: int | None = None
    unlimited_stream_depth: bool | None = None
    hcom_parallel: bool = False

    def __post_init__(self) -> None:
        if self.stream_max_parallel_num < 1:
            raise ValueError(f"stream_max_parallel_num must be >= 1, "
                             f"got {self.stream_max_parallel_num}")
