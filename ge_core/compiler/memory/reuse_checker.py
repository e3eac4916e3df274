"""The reuse checker: no two buffers that may be alive together share a byte (GE's
checker/reuse_checker.cc, over our memory map).

Two feature-map buffers may overlap only if one is done - every op that writes or reads it has
finished - before the other is first written, under happens-before (stream order plus the events
on cross-stream edges). Buffers on unordered streams therefore count as alive at once. Buffers
outside the feature map (weights, variables, zero-copy I/O) are never reused, so they may
overlap nothing. Used by the tests, and by the debugger after a plan is made.
"""
from __future__ import annotations

from dataclasses import dataclass

from ge_core.compiler.memory.mem_map import FEATURE_MAP, MemoryPlan, MemRow


@dataclass(frozen=True)
class Overlap:
    a: MemRow
    b: MemRow
    why: str

    def __str__(self) -> str:
        return (f"{self.a.label} [{self.a.offset:#x}, {self.a.end:#x}) ops {self.a.first}-"
                f"{self.a.last} s{self.a.stream} and {self.b.label} [{self.b.offset:#x}, "
                f"{self.b.end:#x}) ops {self.b.first}-{self.b.last} s{self.b.stream}: {self.why}")


class MemoryOverlapError(AssertionError):
    def __init__(self, overlaps: list[Overlap]) -> None:
        super().__init__(f"{len(overlaps)} overlapping buffer pair(s):\n" +
                         "\n".join(str(o) for o in overlaps[:20]))
        self.overlaps = overlaps


def find_overlaps(plan: MemoryPlan) -> list[Overlap]:
    rows = sorted((r for r in plan.rows if r.size > 0), key=lambda r: (r.offset, r.label))
    hb = plan.order
    out: list[Overlap] = []
    active: list[MemRow] = []  # rows that start at or before the current one and may reach it
    for row in rows:
        active = [r for r in active if r.end > row.offset]
        for other in active:
            if row.within == other.label or other.within == row.label:
                continue   # a slice of the buffer it lies in
            if FEATURE_MAP not in (row.segment, other.segment) or row.segment != other.segment:
                out.append(Overlap(other, row, "a buffer outside the feature map is shared"))
            elif not (hb.before(other.accesses, (row.first,)) or
                      hb.before(row.accesses, (other.first,))):
                out.append(Overlap(other, row, "alive at the same time"))
        active.append(row)
    return out


def check_no_overlap(plan: MemoryPlan) -> None:
    """Raise MemoryOverlapError naming the pairs if any two live buffers share memory."""
    overlaps = find_overlaps(plan)
    if overlaps:
        raise MemoryOverlapError(overlaps)
