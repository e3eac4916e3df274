"""BinaryBlockMemAssigner: buckets whose ceilings double (binary_block_mem_assigner.cc).

Sizes are sorted and cut into ranges at 512, 1K, 2K ... up to the largest size. A range with
fewer sizes than its share (count / number of ranges) merges into the next one, except the last
and ranges of large (>= 8 MiB) blocks; each range's largest size becomes a bucket ceiling. So a
common size gets its own bucket and rare sizes share the next one up.
"""
from __future__ import annotations

from ge_core.compiler.memory.block_mem_assigner import BlockMemAssigner
from ge_core.om.logical_memory import MEM_ALIGN_SIZE

RANGE_CEIL_INTERVAL = 2       # each range's ceiling doubles
LARGE_BLOCK_SIZE = 8 << 20    # ranges of blocks this large keep even a few members
LARGE_BLOCK_RANGE_SIZE = 2


class BinaryBlockMemAssigner(BlockMemAssigner):
    name = "binary-block"

    def memory_ranges(self, sizes: list[int]) -> list[int]:
        if not sizes:
            return [MEM_ALIGN_SIZE]
        # Offsets are 512-aligned anyway, so no range needs to end below 512.
        ceil = MEM_ALIGN_SIZE if sizes[-1] > MEM_ALIGN_SIZE else sizes[0]
        count = 1
        while ceil * RANGE_CEIL_INTERVAL ** count < sizes[-1]:
            count += 1
        limit = len(sizes) // count
        ranges: list[list[int]] = []
        rest = list(sizes)
        for _ in range(count):
            ceil *= RANGE_CEIL_INTERVAL
            cut = next((k for k, s in enumerate(rest) if s > ceil), len(rest))
            ranges.append(rest[:cut])
            rest = rest[cut:]
        return [r[-1] for r in _plan_ranges(ranges, limit)]


def _plan_ranges(ranges: list[list[int]], limit: int) -> list[list[int]]:
    """GE's PlanRanges: drop empty ranges and fold thin ones into the next, until stable."""
    changed = True
    while changed:
        changed = False
        kept: list[list[int]] = []
        carry: list[int] = []
        for k, r in enumerate(ranges):
            r, carry = sorted(r + carry), []
            last = k == len(ranges) - 1
            large = bool(r) and r[0] >= LARGE_BLOCK_SIZE and len(r) >= LARGE_BLOCK_RANGE_SIZE
            if not r or (len(r) < limit and not last and not large):
                carry, changed = r, True
                continue
            kept.append(r)
        ranges = kept
    return ranges
