"""StreamOptions: the GE options the stream build reads, as one frozen value.

    stream_max_parallel_num   ge.streamMaxParallelNum: new streams per engine, round-robin
    enable_single_stream      ge.enableSingleStream
    use_notify                ge.event=notify: notifies instead of events
    minimise_events           ours: drop the events the transitive reduction shows redundant
    max_task_count            rtGetMaxStreamAndTask's maxTaskNumPerStream (see MAX_TASK_COUNT)
    unlimited_stream_depth    FEATURE_TYPE_PERSISTENT_STREAM_UNLIMITED_DEPTH: the runtime splits
                              streams itself (AutoSplit), so GE's SplitStreams is skipped
    hcom_parallel             ge.hcomParallel: AllReduceParallel moves AllReduce's successors
"""
from __future__ import annotations

from dataclasses import dataclass, replace

# maxTaskNumPerStream per chip config (hicann/runtime src/runtime/config/*/dev_info_reg.cc).
MAX_TASK_COUNT = {"910B": 2013, "910_93": 2013, "cloud": 2042, "dc": 2042, "950": 2014,
                  "610_lite": 1024}


@dataclass(frozen=True)
class StreamOptions:
    stream_max_parallel_num: int = 1
    enable_single_stream: bool = False
    use_notify: bool = False
    minimise_events: bool = False
    max_task_count: int = MAX_TASK_COUNT["910B"]
    unlimited_stream_depth: bool = False
    hcom_parallel: bool = False

    def __post_init__(self) -> None:
        if self.stream_max_parallel_num < 1:
            raise ValueError(f"stream_max_parallel_num must be >= 1, "
                             f"got {self.stream_max_parallel_num}")

    @staticmethod
    def for_chip(chip: str, **options) -> "StreamOptions":
        if chip not in MAX_TASK_COUNT:
            raise ValueError(f"unknown chip {chip!r}; chips: {', '.join(MAX_TASK_COUNT)}")
        return replace(StreamOptions(**options), max_task_count=MAX_TASK_COUNT[chip])
