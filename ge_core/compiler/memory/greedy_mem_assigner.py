"""Our feature-map assigners: offsets over the conflict graph, not GE's blocks.

Two items conflict unless one is entirely done before the other is first written
(happens-before, so items on unordered streams always conflict). Items that may never share sit
at the bottom, side by side; the rest go into gaps between the conflicting items already placed,
so a tensor can straddle what two earlier tensors used - which blocks cannot do.

- GreedyBySizeMemAssigner: largest first, each into the tightest gap that fits (or on top).
- BestFitSearchMemAssigner: in birth order within a capacity, starting at the lower bound: the
  tightest gap, at the end that touches the longer-lived neighbour (so the space next to the
  short-lived one merges into a bigger hole when it dies); backtracks when an item fits nowhere,
  and grows the capacity when a search budget runs out. Growing tensors (DenseNet's concats)
  need their homes to alternate between the ends of memory, which greedy-by-size cannot see.
"""
from __future__ import annotations

import numpy as np

from ge_core.compiler.memory.mem_assigner import FmLayout
from ge_core.compiler.memory.mem_assist_info import MemAssistInfo
from ge_core.om.logical_memory import align

FOREVER = 1 << 62          # the life of the segment's ends, and of items never reused
SEARCH_BUDGET = 10         # placements tried per item before the capacity grows
CAPACITY_STEP = 1.0025     # capacity growth when a search gives up
CANDIDATES = 4             # positions tried per item while backtracking


def _rows(rows: list) -> np.ndarray:
    return np.array(rows).reshape(len(rows), -1) if rows else np.zeros((0, 0), dtype=np.int64)


class _Placement:
    """Items placed so far: their address ranges, and who conflicts with whom."""

    def __init__(self, info: MemAssistInfo) -> None:
        items = info.items
        n = len(items)
        self.items = items
        self.size = np.array([i.aligned for i in items], dtype=np.int64)
        self.death = np.array([i.last if info.can_reuse(i) else FOREVER for i in items])
        hb = info.hb
        # One row per item; a graph whose tensors are all zero-copy I/O has no rows at all.
        self.done = _rows([hb.done(i.accesses) for i in items])
        self.start = _rows([hb.start(i.writers) for i in items])
        self.lo = np.zeros(n, dtype=np.int64)
        self.never_shared = np.array([not info.can_reuse(i) for i in items], dtype=bool)
        self.reusable = [k for k, i in enumerate(items) if info.can_reuse(i)]
        self.reset()

    def reset(self) -> None:
        """Only the items that are never shared placed: one after another at the bottom."""
        self.placed = np.zeros(len(self.items), dtype=bool)
        self.base = 0
        for k in np.flatnonzero(self.never_shared):
            self.put(int(k), self.base)
            self.base += int(self.size[k])

    def put(self, k: int, offset: int) -> None:
        self.lo[k] = offset
        self.placed[k] = True

    def gaps(self, k: int, capacity: int) -> list[tuple[int, int, int, int]]:
        """Free ranges (start, end, life below, life above) that can hold item k among the
        placed items it conflicts with, tightest first."""
        before = (self.done[k] <= self.start).all(axis=1)
        after = (self.done <= self.start[k]).all(axis=1)
        clash = np.flatnonzero(self.placed & (self.never_shared | (~before & ~after)))
        clash = clash[np.argsort(self.lo[clash], kind="stable")]
        size, out, end, below = int(self.size[k]), [], 0, FOREVER
        for j in clash:
            lo, hi = int(self.lo[j]), int(self.lo[j] + self.size[j])
            if lo - end >= size:
                out.append((end, lo, below, int(self.death[j])))
            if hi > end:
                end, below = hi, int(self.death[j])
        if capacity - end >= size:
            out.append((end, capacity, below, FOREVER))
        return sorted(out, key=lambda g: (g[1] - g[0], g[0]))

    def layout(self, name: str) -> FmLayout:
        top = int((self.lo + self.size)[self.placed].max()) if self.placed.any() else 0
        return FmLayout(name, top, {self.items[k].key: int(self.lo[k])
                                    for k in range(len(self.items))})


class GreedyBySizeMemAssigner:
    name = "greedy_by_size"

    def assign(self, info: MemAssistInfo) -> FmLayout:
        p = _Placement(info)
        items = info.items
        for k in sorted(p.reusable, key=lambda k: (-p.size[k], items[k].first, k)):
            gaps = p.gaps(k, capacity=FOREVER)
            p.put(k, gaps[0][0])  # the unbounded gap on top is always there
        return p.layout(self.name)


class BestFitSearchMemAssigner:
    name = "best_fit_search"

    def assign(self, info: MemAssistInfo) -> FmLayout:
        items = info.items
        order = sorted(range(len(items)), key=lambda k: (items[k].first, -items[k].aligned, k))
        capacity = info.lower_bound_bytes()
        reusable = {k for k, i in enumerate(items) if info.can_reuse(i)}
        order = [k for k in order if k in reusable]
        p = _Placement(info)
        while capacity < info.no_reuse_bytes():
            if self._search(p, order, capacity):
                return p.layout(self.name)
            capacity = align(int(capacity * CAPACITY_STEP))
            p.reset()
        p.reset()  # no capacity below "no reuse" worked: give each its own place
        for k in order:
            p.put(k, p.base)
            p.base += int(p.size[k])
        return p.layout(self.name)

    @staticmethod
    def _search(p: _Placement, order: list[int], capacity: int) -> bool:
        """Depth-first over the positions of each item in turn; False when the budget ends."""
        budget = SEARCH_BUDGET * len(order)
        choices: list[list[int]] = []  # per depth: positions not tried yet
        depth = 0
        while depth < len(order):
            k = order[depth]
            if len(choices) == depth:
                choices.append(_positions(p, k, capacity))
            if not choices[depth]:  # nowhere left for k: undo the item before it
                choices.pop()
                depth -= 1
                if depth < 0:
                    return False
                p.placed[order[depth]] = False
                continue
            budget -= 1
            if budget < 0:
                return False
            p.put(k, choices[depth].pop(0))
            depth += 1
        return True


def _positions(p: _Placement, k: int, capacity: int) -> list[int]:
    """Where item k may go, best first: each gap's end by the longer-lived neighbour, then its
    other end."""
    out: list[int] = []
    for start, end, below, above in p.gaps(k, capacity):
        ends = [start, end - int(p.size[k])]
        for offset in (ends if below >= above else ends[::-1]):
            if offset not in out:
                out.append(offset)
    return out[:CANDIDATES]
