"""Checkpoints: copies of a run's state at resumable positions, so reverse stepping re-executes
from the newest one before the target tick instead of from the start (docs/architecture.md, one
world per run). A copy is made when a run first passes a resumable position (a phase boundary, the
end of a compile stage, a place inside Partition or MergeSubgraph) at least ``gap`` ticks after
the previous copy. A re-run passing it again copies nothing: the store's choices do not depend on
where the user went back to, and a re-run never pays for copies (nor thins the store). Restoring
copies it again onto the new world's bus, so a checkpoint serves any number of re-runs.

The store holds at most ``limit`` copies and, by estimate, at most ``limit_mib`` MiB: a copy's
size is its objects (counted as it is made) times the bytes an object took in the store's first
copy, measured as that copy is made (debugger/collector.py: the objects it made, each once; what
it shares with the run, a node's attribute values and names, is not the copy's). ``mib`` walks
every object the copies reach, what they share counted once: sizing the first copy so took
0.2-0.9 s on bench_debugger's 5k-node compile (100-200k objects). Past either limit it drops the
copy whose neighbours are closest together: the stretches a re-run covers stay as even as the
positions allow. The newest copy is always kept, however large.
"""
from __future__ import annotations

import gc
import sys
import types
from bisect import bisect_left
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ge_core.graph.graph_clone import clone_graphs, deep_copy
from npu_emu.base.gc_pause import collector_paused
from npu_emu.base.trace import TraceBus
from workbench.debugger.collector import frozen_copy, thawed
from workbench.debugger.targets.program import Position, RunState
from workbench.debugger.tracker import Tracker

if TYPE_CHECKING:
    from workbench.debugger.run import Run

DEFAULT_GAP = 500   # ticks
# A copy costs about as much as re-running half a tick per node does (9 us a node against 18 us
# a tick, on bench_compile's 5k-node synthetic graph with the collector paused), and making or
# restoring it about 0.7-1 us an object it holds against 10-12 us a tick re-run (bench_debugger's
# 5k-node synthetic compile at tick 100k): RESTORE_TICKS_PER_OBJECT. Copies are kept at least as
# far apart as the last one cost, by nodes, and inside a stage's walk by objects too: there,
# where positions are dense (every 128 nodes), 1 / WALK_COPY_SHARE times as far as re-running
# the gap costs what a copy does. At a share of 1, bench_debugger's free-run overhead went
# from 0.34 to 0.74 and one F10 on a 20k-node graph took seconds of copying; at a quarter,
# copies take about a quarter of the forward time inside a walk, and going back re-runs at most
# four copies' worth. A stage's end keeps the node gap, as before positions inside stages were
# added. A copy inside Partition holds the graph and its subgraphs at once, three times the
# objects of one at its start (at 40k nodes, 2.1M objects: 4 s to restore): the copies there
# are further apart, and from a tick there the older, smaller copy can be the faster way back
# (``before``).
TICKS_PER_NODE = 0.5
RESTORE_TICKS_PER_OBJECT = 0.07
WALK_COPY_SHARE = 0.25   # of the forward time inside a walk, spent on copies at most
DEFAULT_LIMIT = 16   # copies kept: their memory is at most this many copies of the state
DEFAULT_MIB = 1024   # and about this much memory: 12 copies of a 40k-node compile's state


def clone_state(state: RunState, bus: TraceBus) -> RunState:
    # A copy allocates an object or more for each of the live objects it copies: with the
    # collector running, its full passes rescan them all (half the time of a restore, and most
    # of its jitter). Nothing parks in a copy, so pausing the process-wide collector is safe.
    with collector_paused():
        memo: dict[int, Any] = {}
        clone_graphs(state.graphs(), bus, memo)
        if state.pipeline is not None:   # the pass and stage records are frozen: shared
            result = state.pipeline.result
            memo.update((id(r), r) for r in [*result.passes, *result.stages])
        return deep_copy(state, memo)


@dataclass
class Checkpoint:
    tick: int
    position: Position
    state: RunState        # on a bus of its own that nothing listens to
    tracker: Tracker
    hasher: Any | None     # the trace hash so far, when the session keeps one
    objects: int = 0       # the objects the copy made (debugger/collector.py: frozen_copy)

    def restore(self, bus: TraceBus) -> RunState:
        return clone_state(self.state, bus)


def deep_bytes(roots: list) -> int:
    """sys.getsizeof over every object reachable from ``roots``, each once, numpy buffers
    included; code (modules, classes, functions) is shared with the program, not counted."""
    seen: set[int] = set()
    stack, total = list(roots), 0
    while stack:
        obj = stack.pop()
        if id(obj) in seen or isinstance(obj, (type, types.ModuleType, types.FunctionType,
                                                types.BuiltinFunctionType)):
            continue
        seen.add(id(obj))
        total += sys.getsizeof(obj)
        stack.extend(gc.get_referents(obj))
    return total


def _nodes(run: Run) -> int:
    state = run.state
    return sum(len(g) for g in state.graphs()) if state is not None and state.graph is not None \
        else 0


def _inside_stage(run: Run) -> bool:
    """The run is at a position inside a compile stage (a walk's), not at a stage's end."""
    pipeline = run.state.pipeline if run.state is not None else None
    return pipeline is not None and pipeline.stage is not None


def _roots(point: Checkpoint) -> tuple:
    return point.state, point.tracker, point.hasher


class CheckpointStore:
    def __init__(self, phases: int, gap: int | None = None, limit: int = DEFAULT_LIMIT,
                 limit_mib: float = DEFAULT_MIB) -> None:
        """``gap``: the fewest ticks between copies; None, by the graph's size. ``limit``: the
        most copies kept; ``limit_mib``: the most memory they hold, by estimate."""
        self.phases = phases
        self.gap = gap
        self.limit = limit
        self.limit_mib = limit_mib
        self.restore_ticks_per_object = RESTORE_TICKS_PER_OBJECT   # 0: always the newest copy
        self._object_bytes: float | None = None   # measured on the first copy
        self._ticks: list[int] = []
        self._points: dict[int, Checkpoint] = {}
        self._furthest = 0   # the furthest position offered: only past it are copies made
        self._nodes = 0   # the most nodes the run's graphs have had
        self._last_objects = 0   # the objects the last copy made held
        self._objects_per_node = 0.0   # in the last copy, per node of the run's graphs then

    def __len__(self) -> int:
        return len(self._ticks)

    def offer(self, run: Run, position: Position) -> None:
        """Called by a run at each resumable position (on its worker thread)."""
        tick = run.world.bus.tick
        if tick <= self._furthest or position[0] >= self.phases:
            return
        self._furthest = tick
        since = tick - (self._ticks[-1] if self._ticks else 0)
        inside = _inside_stage(run) and self.gap is None   # dense positions: see RESTORE_...
        # The gap only grows with the nodes counted now, so a position short of the gap the
        # nodes seen so far give is passed without counting them (inside Partition, a count
        # is a call per engine subgraph, thousands, at every position).
        if since < self._gap(self._nodes, 0, inside):
            return
        nodes = _nodes(run)
        self._nodes = max(self._nodes, nodes)   # the built model outlives the graph
        if since < self._gap(self._nodes, nodes, inside):
            return
        hasher = run.hasher.copy() if run.hasher is not None else None
        state, objects, size = frozen_copy(lambda: clone_state(run.state, TraceBus()),
                                           sized=self._object_bytes is None)
        self._last_objects = objects
        self._objects_per_node = objects / max(1, nodes)
        self._points[tick] = Checkpoint(tick, position, state, run.tracker.copy(), hasher,
                                        objects)
        self._ticks.append(tick)   # past every copy held
        if self._object_bytes is None:
            self._object_bytes = size / max(1, objects)
        while len(self._ticks) > 1 and (len(self._ticks) > self.limit
                                        or self.estimated_mib() > self.limit_mib):
            self._thin()

    def _gap(self, most_nodes: int, nodes: int, inside: bool) -> float:
        """The fewest ticks from the last copy to one at a position where the graphs have
        ``nodes`` nodes (``most_nodes`` at most so far); ``inside`` a stage's walk."""
        if self.gap is not None:
            return self.gap
        gap = max(DEFAULT_GAP, TICKS_PER_NODE * most_nodes)
        if inside:
            # what this copy would hold, by the last one's objects per node: inside Partition
            # the graph and its subgraphs are alive at once, three times a stage start's copy
            expected = max(self._last_objects, self._objects_per_node * nodes)
            gap = max(gap, RESTORE_TICKS_PER_OBJECT * expected / WALK_COPY_SHARE)
        return gap

    def _thin(self) -> None:
        """Drop the copy (never the newest) whose neighbours are closest: the one whose loss
        lengthens the longest re-run least."""
        ticks = self._ticks

        def merged(i: int) -> int:
            return ticks[i + 1] - (ticks[i - 1] if i else 0)
        drop = min(range(len(ticks) - 1), key=merged)
        thawed(self._points.pop(ticks.pop(drop)).objects)

    def release(self) -> None:
        """Drop every copy (the debugger is done with this store)."""
        for point in self._points.values():
            thawed(point.objects)
        self._points.clear()
        self._ticks.clear()

    def points(self) -> list[Checkpoint]:
        """The copies held, oldest first."""
        return [self._points[t] for t in self._ticks]

    def estimated_mib(self) -> float:
        """The memory the copies hold, by their objects (see above): what the limit counts."""
        return sum(c.objects for c in self._points.values()) * (self._object_bytes or 0) / 2**20

    def mib(self) -> float:
        """The memory the copies hold, what they share (weights) counted once. Walks every
        object they hold: about as long as making the copies took."""
        return deep_bytes([_roots(c) for c in self.points()]) / 2**20

    def before(self, tick: int) -> Checkpoint | None:
        """The checkpoint from which the event of ``tick`` is reached soonest: of those it is
        still ahead of, the one whose restore and re-run to it cost the fewest ticks. Only
        copies a re-run from the start would not beat are considered (the start costs none to
        restore)."""
        i = bisect_left(self._ticks, tick)
        weight = self.restore_ticks_per_object
        best, cost = None, tick   # from the start: every tick re-run, nothing restored
        for t in reversed(self._ticks[:i]):
            if tick - t >= cost:   # older ones re-run at least this much: none is cheaper
                break
            point = self._points[t]
            mine = tick - t + point.objects * weight
            if mine < cost:
                best, cost = point, mine
        return best
