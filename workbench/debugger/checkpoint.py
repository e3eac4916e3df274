"""Checkpoints: points of a run to go back to, so reverse stepping re-executes from the newest
one before the target tick instead of from the start (docs/architecture.md, one world per run). A
checkpoint is made when a run first passes a resumable position (a phase boundary, the end of a
compile stage, a place inside a walk, Partition or MergeSubgraph) at least ``gap`` ticks after the
previous one, counting with the ticks the work done between events (``TraceBus.work``: a pattern
fusion tries every node of the graph within one). Where the gap is the store's to choose, ticks
and work are corrected by what the run's CPU time says they cost, at NOMINAL_TICK_S a tick (a
checkpoint's ``reach``): Partition's ticks cost 40 us and OptimizeSubgraph's 10, so spaced by
ticks alone a step back over Partition re-ran 180 ms where one over the fusions re-ran 20; and
a stage's start counts 200k ticks of work at 40k nodes that re-run in well under a second.

A checkpoint holds no copy of the graph. It is a mark in the store's journal (ge_core/graph/
journal.py: from the mark on, the first write to each graph object saves what it was) and a copy
of the rest of the run's state (a walk's queue, the pipeline's records, the tracker), which shares
the graph objects. Going back to it (``resume``) rewinds the journal, so the live graph is as it
was at the mark, at the cost of what changed since, and copies the rest again for the new run.
The current run's line of re-runs all use the one live graph: resuming from a checkpoint drops the
checkpoints after it (their marks are undone) and the re-run makes its own as it passes them
again. A run that must not disturb the current one (a look at an earlier tick, ``materialise``)
gets a full copy of the graph as it was at the mark, and the journal is redone to the present.

The store holds at most ``limit`` checkpoints and, by estimate, at most ``limit_mib`` MiB: the
objects of their copies times the bytes an object took in the first copies (SIZED_OBJECTS of
them), the slots of the containers they copied one level, the journal's entries times what a
sample of them holds of its own (sampled again each time it doubles), and the tensors only the
journal keeps alive (``HeldTensors``: weights a fusion replaced). Past the count it drops the
checkpoint whose neighbours are closest together in reach, so the stretches a re-run covers stay
even; past the memory, the oldest, whose journal goes with it. The newest is always
kept.
"""
from __future__ import annotations

import gc
import sys
import time
import types
from bisect import bisect_left, bisect_right
from contextlib import contextmanager
from dataclasses import dataclass
from operator import itemgetter
from typing import TYPE_CHECKING, Any, Iterator

from ge_core.graph.compute_graph import ComputeGraph, ReplacedTable
from ge_core.graph.graph_clone import ITEMS, clone_graphs, deep_copy
from ge_core.graph.journal import JOURNALED, SHARED, Journal
from npu_emu.base.gc_pause import collector_paused
from npu_emu.base.trace import TraceBus
from workbench.debugger.collector import frozen
from workbench.debugger.held_tensors import HeldTensors
from workbench.debugger.targets.program import Position, RunState
from workbench.debugger.tracker import Tracker

if TYPE_CHECKING:
    from workbench.debugger.run import Run

DEFAULT_GAP = 500   # ticks
MAX_GAP = 4_000     # ticks the items may ask for: some ticks cost 30 us (40k nodes asked 8k)
# A checkpoint's copy (what a run holds besides its graph) costs about 1 us an object to make
# and as much again to restore, against 2.5-12 us a tick re-run: RESTORE_TICKS_PER_OBJECT.
# Checkpoints are kept at least as far apart as re-running the gap costs 1 / COPY_SHARE times
# what the last copy did, so copies take at most a quarter of the forward time. A checkpoint
# also costs by the items its copy copies one level (a walk's sets of nodes, a cut's maps by
# name: graph_clone.ITEMS) and by the root graph's nodes (the objects a walk writes are saved
# again in each epoch it writes them in): TICKS_PER_ITEM. Stepping a 20k-node graph's
# OptimizeStage1_2 (95k ticks) takes 163 ms with no checkpoint, 213 ms with one every 0.07
# ticks an item (~1.5k ticks), 205 at 0.1 (~2k), as each copy now shares the walk's nodes seen
# (e02d7bc) and no longer counts them as items. A gap is only the least distance: the stretch a
# re-run covers ends at the next position past it, and some ticks cost 30 us, so the long loops
# have positions inside (CSE, ConstantFuseSame, EnginePlacer, Partition's constants); the worst
# step back over the 30 widest stretches of that graph's compile through Partition took 96 ms
# at 0.1 (148 before that sharing, at 0.07). In OptimizeSubgraph, where the root is
# empty and each walk is of a small engine subgraph, they are 500 ticks apart, and going back
# is quick however large.
RESTORE_TICKS_PER_OBJECT = 0.1
COPY_SHARE = 0.25
TICKS_PER_ITEM = 0.1
# A container copied one level holds its items in as many slots (a list's 8 bytes, a set's
# or dict's 2-3 times that): a walk's sets of nodes, CSE's dict of keys seen (0.5 MiB at 10k)
ITEM_BYTES = 24
SIZED_OBJECTS = 1_000   # copies are measured until this many objects (a first of 4 read 2.8x)
SIZED_ENTRIES = 500   # a journal's size is measured again each time it has doubled from this
SAMPLED = 30          # entries of each kind sized, spread over the journal
SEEN = 2_000          # entries whose kinds are counted, spread over it
DEFAULT_LIMIT = 256   # checkpoints kept: a re-run covers at most 1/256th of the run's ticks
# The CPU time a tick takes to re-run that the gaps above count in (restoring an object costs a
# tenth of one): a stretch of the run counts as its CPU time in such ticks.
NOMINAL_TICK_S = 10e-6
# A journal entry's put-back when a re-run rewinds past it: ~1 us (a stretch that writes most
# of the graph, as InferShape does, rewinds 30-60 ms before it re-runs).
RESTORE_TICKS_PER_ENTRY = 0.1
DEFAULT_MIB = 1024    # and about this much memory


@dataclass
class Checkpoint:
    tick: int
    position: Position
    state: RunState        # the run's state but its graph, on a bus of its own nothing hears
    tracker: Tracker
    hasher: Any | None     # the trace hash so far, when the session keeps one
    objects: int = 0       # the objects the copy made
    mark: int = 0          # in the store's journal
    bus: TraceBus | None = None    # the copy's bus
    kept: tuple = ()       # objects besides the graph's that the copy shares with the run
    nodes: int = 0         # the run's graphs' then (they are the live graph's now)
    items: int = 0         # the items its copy copied one level (graph_clone.ITEMS)
    work: int = 0          # the run's bus's work then (TraceBus.work)
    extra: int = 0         # what the run's CPU time then said its ticks and work cost more (+)
                           # or less (-) than at NOMINAL_TICK_S a tick
    spacing: float = DEFAULT_GAP   # the least reach to the next, by what its copy cost (_spacing)

    @property
    def reach(self) -> int:
        """How far into the run it is, as the store spaces its checkpoints: ticks, plus work,
        as the CPU time corrected them (in ticks alone where a gap is given)."""
        return self.tick + self.work + self.extra


def deep_bytes(roots: list, shared: tuple = ()) -> int:
    """sys.getsizeof over every object reachable from ``roots``, each once, numpy buffers
    included, less what is reachable from ``shared`` (a run's state, whose immutable values a
    copy shares: a build's weights); code (modules, classes, functions) is shared with the
    program, and the graph's objects and buses with the run (a journal's saved states are
    counted, the objects they are of not)."""
    seen: set[int] = set()
    total = 0
    for counted, stack in ((False, list(shared)), (True, list(roots))):
        while stack:
            obj = stack.pop()
            if id(obj) in seen or type(obj) in JOURNALED or isinstance(
                    obj, (type, types.ModuleType, types.FunctionType,
                          types.BuiltinFunctionType, TraceBus)):
                continue
            seen.add(id(obj))
            total += counted and sys.getsizeof(obj)
            stack.extend(gc.get_referents(obj))
    return total


def _own_bytes(x: object, depth: int = 0) -> int:
    """What a journal entry holds of its own: its tuples, lists and dicts, not the values in
    them (attribute values, descs, nodes: the run's, shared). The containers inside a long one
    are sized by a sample of its items."""
    size = sys.getsizeof(x)
    if depth < 3 and isinstance(x, (tuple, list, dict, set)):
        items = [*x.keys(), *x.values()] if isinstance(x, dict) else list(x)
        step = max(1, len(items) // SAMPLED)
        size += sum(_own_bytes(v, depth + 1) for v in items[::step]
                    if isinstance(v, (tuple, list, dict, set))) * step
    return size


def _entry_bytes(entries: list) -> float:
    """What a journal entry holds of its own, on average: each kind of entry by a sample of
    it, the kinds counted in a sample of every entry (a walk's journal holds 100k entries).
    A graph's logged change is a name, but a reorder's holds the whole node table it
    replaced: those few are found (by C loops) and sized each (one in the sample counted as
    many as the sample's stride: 66 MB for 28)."""
    classes = list(map(type, map(itemgetter(1), entries)))
    tables, i = [], -1
    for _ in range(classes.count(ReplacedTable)):
        i = classes.index(ReplacedTable, i + 1)
        tables.append(entries[i])
    seen = [e for e in entries[::max(1, len(entries) // SEEN)]
            if e[1].__class__ is not ReplacedTable]
    # kinds by the object's class and the state's first item: a graph's saved state (a dict
    # first, its cached order in it) apart from its logged changes (a function first)
    kinds: dict[tuple[type, type], list] = {}
    for obj, state in seen:
        head = type(state[0]) if state.__class__ is tuple else type(state)
        kinds.setdefault((type(obj), head), []).append((obj, state))
    total = 0.0
    for some in kinds.values():
        sample = some[::max(1, len(some) // SAMPLED)]
        total += sum(map(_own_bytes, sample)) * len(some) / len(sample)
    rest = len(entries) - len(tables)
    return (sum(map(_own_bytes, tables)) + total / max(1, len(seen)) * rest) \
        / max(1, len(entries))


def _roots(point: Checkpoint) -> tuple:
    return point.state, point.tracker, point.hasher


def clone_state(state: RunState, bus: TraceBus, memo: dict[int, Any] | None = None
                ) -> RunState:
    """A copy of ``state`` of its own, graph and all, on ``bus`` (``memo``: what else maps)."""
    memo = {} if memo is None else memo
    with collector_paused():   # a copy's allocations would set off full collections
        clone_graphs(state.graphs(), bus, memo)
        if state.pipeline is not None:
            memo.update(state.pipeline.copy_memo(shares_graph=False))
        return deep_copy(state, memo)


def _shared_memo(state: RunState, kept: tuple) -> dict[int, Any]:
    """The memo of a copy of ``state`` that shares its graph (and ``kept``, and what its
    pipeline never changes in place)."""
    memo: dict[Any, Any] = {SHARED: True}
    memo.update((id(k), k) for k in kept)
    if state.pipeline is not None:
        memo.update(state.pipeline.copy_memo(shares_graph=True))
    return memo


def _watched(state: RunState) -> tuple:
    """What the root graph's edit watch notes into (EditCounts.touched; the build watches its
    edits across GenTask and the split): the watcher holds it too, and the journal puts it
    back in place, so a copy shares it."""
    touched = state.graph.edits.touched if state.graph is not None else None
    return () if touched is None else (touched,)


def _spacing(objects: int, items: int) -> float:
    """The least reach between two checkpoints after a copy that made ``objects`` and copied
    ``items`` one level (with the root graph's nodes): see RESTORE_TICKS_PER_OBJECT above."""
    return max(DEFAULT_GAP, RESTORE_TICKS_PER_OBJECT * objects / COPY_SHARE,
               min(MAX_GAP, TICKS_PER_ITEM * items))


class CheckpointStore:
    def __init__(self, phases: int, gap: int | None = None, limit: int = DEFAULT_LIMIT,
                 limit_mib: float = DEFAULT_MIB) -> None:
        """``gap``: the fewest ticks between checkpoints; None, by what the last copy cost.
        ``limit``: the most kept; ``limit_mib``: the most memory they hold, by estimate."""
        self.phases = phases
        self.gap = gap
        self.limit = limit
        self.limit_mib = limit_mib
        self.restore_ticks_per_object = RESTORE_TICKS_PER_OBJECT   # 0: always the newest
        self.journal = Journal()   # the current run's line's: its runs record into it
        self._object_bytes: float | None = None   # measured on the first copies
        self._sized_objects = [0, 0]   # their bytes and objects
        self._entry_bytes: float | None = None    # a journal entry's, by the last sample
        self._sized_at = 0   # the journal's entries then
        self._held = HeldTensors()   # the tensors only the journal keeps
        self._ticks: list[int] = []
        self._points: dict[int, Checkpoint] = {}
        self._furthest = 0   # the furthest position offered: only past it are copies made
        # (tick, reach) of the checkpoints the re-runs' resumes dropped, in order, not yet passed
        # again: a re-run makes no copy less than a gap before one (see resume)
        self._replaced: list[tuple[int, int]] = []
        self._drift = 0   # the re-run's reach less the line's, at the last of them it passed
        self._line: RunState | None = None   # the live state of the line's latest run
        self._bin: list | None = None   # while ``freeing_later``: what a resume lets go
        self._extra = 0   # the line's reach less its ticks and work, as of the last position
        self._measured = (0.0, 0, 0)   # the worker's CPU time, ticks + work, entries then

    def __len__(self) -> int:
        return len(self._ticks)

    def offer(self, run: Run, position: Position) -> None:
        """Called by a run of the current line at each resumable position (on its worker)."""
        tick, work = run.world.bus.tick, run.world.bus.work
        if tick <= self._furthest or position[0] >= self.phases:
            return
        self._furthest = tick
        self._measure(tick + work)
        reach, gap = tick + work + self._extra, self._gap()
        replaced = self._replaced
        at_one = False   # where the line had a checkpoint: a copy is as good here as it was
        if replaced and replaced[0][0] <= tick:   # passed again
            passed = bisect_right(replaced, tick, key=itemgetter(0))
            if replaced[passed - 1][0] == tick:   # the next is as far from here as it was
                self._drift, at_one = reach - replaced[passed - 1][1], True
            del replaced[:passed]
        last = self._points[self._ticks[-1]] if self._ticks else None
        if reach - (last.reach if last else 0) < gap or \
                (not at_one and replaced and replaced[0][1] + self._drift - reach < gap):
            return
        hasher = run.hasher.copy() if run.hasher is not None else None
        bus, kept = TraceBus(), _watched(run.state)
        memo = _shared_memo(run.state, kept)
        memo[id(run.world.bus)] = bus
        with collector_paused():   # nothing parks in a copy: the process-wide pause is safe
            before = gc.get_count()[0]   # paused: allocations less frees
            state = deep_copy(run.state, memo)
            objects = max(0, gc.get_count()[0] - before)
            root = run.state.graph
            items = memo.get(ITEMS, 0)
            spacing = _spacing(objects, items + (len(root) if root is not None else 0))
            frozen()   # the graph so far, out of the collector's scans (collector.py)
        point = Checkpoint(tick, position, state, run.tracker.copy(), hasher, objects,
                           self.journal.mark(), bus, kept, sum(map(len, run.state.graphs())),
                           items, work, self._extra, spacing)
        sized = self._sized_objects
        # (not a copy inside the parse: its few objects say little, and the walk over the run's
        # state they share, the model's node fields, descs and protos, costs ~100 ms at 40k
        # nodes, where a compile's copies are sized within 15)
        if sized[1] < SIZED_OBJECTS and run.state.parsing is None:
            sized[0] += deep_bytes([state], (run.state,))
            sized[1] += objects
            self._object_bytes = sized[0] / max(1, sized[1])
        if len(self.journal) >= max(SIZED_ENTRIES, 2 * self._sized_at):
            self._entry_bytes = _entry_bytes(self.journal.entries)
            self._sized_at = len(self.journal)
        self._points[tick] = point
        self._ticks.append(tick)   # past every checkpoint held
        while len(self._ticks) > self.limit:
            self._thin()
        while len(self._ticks) > 1 and self.estimated_mib() > self.limit_mib:
            self._drop_oldest()
        self._measure_from(tick + work)   # the copying is no re-run's

    def _measure_from(self, reached: int) -> None:
        """Measure the next stretch from here: the worker's CPU time now, ``reached`` (ticks
        plus work) and the journal's entries."""
        self._measured = (time.thread_time(), reached, len(self.journal))

    def _measure(self, reached: int) -> None:
        """Correct the reach by the worker's CPU time since the last measure: the ticks and work
        since (``reached``: the ticks plus work now) count as what that time is at
        NOMINAL_TICK_S a tick; only where the store chooses the gap (a gap given is in ticks
        alone, and so is the spacing)."""
        then, before, logged = self._measured
        self._measure_from(reached)
        now, _, entries = self._measured
        if self.gap is None:
            cost = (now - then) / NOMINAL_TICK_S + (entries - logged) * RESTORE_TICKS_PER_ENTRY
            self._extra += round(cost) - (reached - before)

    def _gap(self) -> float:
        # by the newest checkpoint's copy: after a resume, the one resumed from, so a re-run is
        # spaced where it is, not where the line was (the thinning never drops the newest)
        if self.gap is not None:
            return self.gap
        return self._points[self._ticks[-1]].spacing if self._ticks else DEFAULT_GAP

    def resume(self, point: Checkpoint, bus: TraceBus) -> RunState:
        """The state to go on from ``point`` on ``bus``, for a run of the current line: the live
        graph rewound to the mark (the checkpoints after it dropped), the rest copied."""
        self.journal.rewind(point.mark, drops=self._bin)
        self._held.rewound(point.mark)
        i = bisect_left(self._ticks, point.tick) + 1
        later = [self._points.pop(t) for t in self._ticks[i:]]
        del self._ticks[i:]
        # A step back re-runs to a tick before the next checkpoint: a copy on the way there,
        # just before where the line had one, costs the step the user waits for (20-50 ms at
        # tick 1M of a 40k-node compile, where the stretch re-run took as long) and spares a
        # later step little; where the line had one, the re-run makes its own. A stretch the
        # thinning widened gets one in its middle still.
        if later:
            self._replaced = sorted({**dict(self._replaced), **{c.tick: c.reach for c in later}}
                                    .items())
        self._drift = 0   # the re-run's CPU time may differ: as far as the line's, from here
        if self._bin is not None:
            self._bin.append(later)
        self._furthest = point.tick
        memo = _shared_memo(point.state, point.kept)
        memo[id(point.bus)] = bus
        with collector_paused():
            state = deep_copy(point.state, memo)
        for graph in state.family():   # what a re-run emits, its bus hears
            graph.bus = bus
        self._line = state
        self._extra = point.extra
        self._measure_from(point.tick + point.work)
        return state

    @contextmanager
    def freeing_later(self) -> Iterator[list]:
        """Meanwhile, what a resume lets go (the rewind's Dropped, the checkpoints after the
        one resumed from) goes into the list given, for a Reaper to free once the stop is
        shown; else a resume frees it at once (a reverse-continue's scans, one after another)."""
        self._bin = garbage = []
        try:
            yield garbage
        finally:
            self._bin = None

    def begin_line(self, state: RunState) -> None:
        """A run from the start (the store released before it) begins a line on ``state``."""
        self._line = state
        self._extra = 0
        self._measure_from(0)

    def materialise(self, point: Checkpoint, bus: TraceBus) -> RunState:
        """A state of its own as it was at ``point``, on ``bus``, for a run beside the current
        line (a look at an earlier tick): the graph copied as it was at the mark, and the
        journal redone, so the current run's graph is as it was."""
        redo = self.journal.rewind(point.mark, keep=True)
        try:
            return clone_state(point.state, bus, {id(point.bus): bus})
        finally:
            self.journal.redo(redo)

    def _thin(self) -> None:
        """Drop the checkpoint (never the newest) whose neighbours are closest in ticks plus
        work: the one whose loss lengthens the longest re-run least."""
        ticks, points = self._ticks, self._points

        def merged(i: int) -> int:
            return points[ticks[i + 1]].reach - (points[ticks[i - 1]].reach if i else 0)
        drop = min(range(len(ticks) - 1), key=merged)
        if drop == 0:
            self._drop_oldest()
        else:
            del self._points[ticks.pop(drop)]

    def _drop_oldest(self) -> None:
        del self._points[self._ticks.pop(0)]
        self.journal.drop_before(self._points[self._ticks[0]].mark)

    def release(self) -> None:
        """Drop every checkpoint and the journal, and the line's graph: its reference cycles
        broken (ComputeGraph.discard), so reference counting frees it although a checkpoint
        froze it out of the collector's scans (collector.py). The debugger is done with the
        line: closed, retargeted, or gone back to before its first checkpoint."""
        self._points.clear()
        self._ticks.clear()
        self._furthest, self._replaced = 0, []
        self.journal, self._sized_at = Journal(), 0
        self._held = HeldTensors()
        line, self._line = self._line, None
        if line is not None:
            line.discard()

    def points(self) -> list[Checkpoint]:
        """The checkpoints held, oldest first."""
        return [self._points[t] for t in self._ticks]

    def estimated_mib(self) -> float:
        """The memory the checkpoints hold, by their objects (see above): what the limit
        counts."""
        points = self._points.values()
        copies = sum(c.objects for c in points) * (self._object_bytes or 0) \
            + sum(c.items for c in points) * ITEM_BYTES
        return (copies + len(self.journal) * (self._entry_bytes or 0)) / 2**20 + self.held_mib()

    def held_mib(self) -> float:
        """The memory of the tensors only the journal keeps alive (HeldTensors)."""
        return self._held.bytes(self.journal) / 2**20

    def mib(self) -> float:
        """The memory the checkpoints hold, what they share (weights) counted once, the graph
        they share with the run not at all. Walks every object they hold: the descs of the
        nodes the journal alone keeps (a logged removal's) with them, graph objects though
        they are."""
        gone = [n.op_desc.attrs for n in map(ComputeGraph.removed_node,
                                             map(itemgetter(1), self.journal.entries))
                if n is not None and n.op_desc.node is None]
        return deep_bytes([*map(_roots, self.points()), self.journal, gone]) / 2**20

    def before(self, tick: int) -> Checkpoint | None:
        """The checkpoint from which the event of ``tick`` is reached soonest: of those it is
        still ahead of, the one whose restore and re-run to it cost the least reach (the
        target's work and extra are at least the newest candidate's: a pattern fusion between
        it and an older one is 2 ticks and a graph's worth of work). Only checkpoints a re-run
        from the start would not beat are considered (the start costs none to restore)."""
        i = bisect_left(self._ticks, tick)
        weight = self.restore_ticks_per_object
        newest = self._points[self._ticks[i - 1]] if i else None
        target = tick + (newest.reach - newest.tick if newest else 0)
        best, cost = None, target   # from the start: everything re-run, nothing restored
        for t in reversed(self._ticks[:i]):
            point = self._points[t]
            rerun = target - point.reach
            if rerun >= cost:   # older ones re-run at least this much: none is cheaper
                break
            mine = rerun + point.objects * weight
            if mine < cost:
                best, cost = point, mine
        return best
