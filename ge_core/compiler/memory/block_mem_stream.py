"""Which op finishes before which starts, across streams (GE's depend-stream life).

A stream runs its tasks in topological order, and every cross-stream data or control edge gets an
event (record after the producer, wait before the consumer). So op ``a`` finishes before op ``b``
starts exactly when a chain of same-stream successions and graph edges leads from ``a`` to ``b``.
We keep that as a vector clock per op: ``clock[b][s]`` is the largest op index on stream ``s`` that
finishes before ``b`` starts; since stream ``s`` is sequential, every earlier op on ``s`` does too.

GE-local ops (stream -1) run no task: they finish as soon as what they wait for has finished,
so they pass their inputs' clocks through. A data edge through one (conv -> Reshape -> gemm on
another stream) is a real dependency the stream allocator must sync anyway.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np

from ge_core.graph import Node

NOT_ORDERED = -1  # a clock entry: nothing on that stream is known to have finished


@dataclass(frozen=True, eq=False)
class HappensBefore:
    """Plain data: each op's stream (by op index) and two vector clocks, one column per stream."""
    streams: tuple[int, ...]   # the distinct stream ids >= 0, in column order
    op_stream: tuple[int, ...]  # op index -> stream id (-1: no task)
    clock: np.ndarray          # [op, column]: the largest op index surely finished when op starts
    finish: np.ndarray         # [op, column]: the same once op has finished (itself included)

    def done(self, ops: Iterable[int]) -> np.ndarray:
        """The clock reached once every op in ``ops`` has finished."""
        rows = self.finish[list(ops)]
        return rows.max(axis=0) if len(rows) else np.full(len(self.streams), NOT_ORDERED)

    def start(self, ops: Iterable[int]) -> np.ndarray:
        """What has surely finished before any op in ``ops`` starts."""
        rows = self.clock[list(ops)]
        return rows.min(axis=0) if len(rows) else np.full(len(self.streams), NOT_ORDERED)

    def before(self, first: Sequence[int], then: Sequence[int]) -> bool:
        """Do all ops in ``first`` finish before any op in ``then`` starts?"""
        return bool((self.done(first) <= self.start(then)).all())


def build_happens_before(order: Sequence[Node], stream_of: Sequence[int]) -> HappensBefore:
    """``order``: the ops in topological order (position = op index); ``stream_of``: streams."""
    index = {n.name: i for i, n in enumerate(order)}
    streams = tuple(sorted({s for s in stream_of if s >= 0}))
    column = {s: c for c, s in enumerate(streams)}
    clock = np.full((len(order), len(streams)), NOT_ORDERED, dtype=np.int64)
    finish = clock.copy()
    last_on: dict[int, int] = {}  # the previous op on each stream: stream order is topo order
    for i, node in enumerate(order):
        s = stream_of[i]
        preds = [index[p.name] for p in node.in_nodes()]
        if s in last_on:
            preds.append(last_on[s])
        if preds:
            clock[i] = finish[preds].max(axis=0)
        finish[i] = clock[i]
        if s >= 0:
            finish[i, column[s]] = i
            last_on[s] = i
    clock.setflags(write=False)
    finish.setflags(write=False)
    return HappensBefore(streams, tuple(stream_of), clock, finish)
