"""What the stream build found, as plain data for the workbench and the lessons."""
from __future__ import annotations

from dataclasses import dataclass, replace

from ge_core.passes import PassRecord


@dataclass(frozen=True)
class StreamSplit:
    """SplitStreams started ``stream`` at ``first_node``: the old stream's last task before it
    was ``after_node``, which records event ``event_id`` that ``first_node`` waits for."""
    logical_stream: int
    stream: int
    first_node: str
    after_node: str
    event_id: int


@dataclass(frozen=True)
class SplitReport:
    skipped: bool                  # unlimited_stream_depth: the runtime splits (AutoSplit)
    max_task_count: int
    physical_streams: int
    tasks_per_stream: tuple[tuple[int, int], ...]  # (physical stream, tasks), ascending
    splits: tuple[StreamSplit, ...]
    head_streams: tuple[int, ...]


@dataclass(frozen=True)
class StreamReport:
    logical_streams: int
    physical_streams: int          # = logical until split_streams runs (see with_split)
    sync_kind: str                 # "event" or "notify"
    event_counts: tuple[tuple[str, int], ...]  # events left after each sync step
    events_minimum: int            # from the transitive reduction
    redundant_found: int           # left by GE's optimisations beyond the minimum
    redundant_removed: int         # dropped by OptimizeByTransitiveReduction (minimise_events)
    head_streams: tuple[int, ...]  # run from the model's start (BindModelStream: HEAD)
    activated_streams: tuple[int, ...]  # started by a StreamActive
    passes: tuple[PassRecord, ...] = ()
    splits: tuple[StreamSplit, ...] = ()

    @property
    def events_inserted(self) -> int:
        return dict(self.event_counts)["InsertSyncEvents"]

    @property
    def events_optimised(self) -> int:
        """After GE's own three optimisations."""
        return dict(self.event_counts)["OptimizeByStreamActivate"]

    @property
    def events(self) -> int:
        return self.event_counts[-1][1]

    def with_split(self, split: SplitReport) -> "StreamReport":
        return replace(self, physical_streams=split.physical_streams, splits=split.splits,
                       head_streams=split.head_streams)
