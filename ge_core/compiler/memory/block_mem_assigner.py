"""BlockMemAssigner: GE's feature-map assignment with reuse (block_mem_assigner.cc).

Walk the ops in topological order (lifetime = op index). Each output or workspace asks for a
block of its size rounded up to a bucket (GetMemoryRanges, which subclasses define); a released
block of that bucket on the same memory type and stream is taken from the pool, the last
released first, else a new block opens. An output's ref count is its number of consuming edges;
each consumer decrements it after its own outputs are placed (so an op never writes over its
input), and at 0 the block returns to its stream's pool if every consumer ran on that stream.
Workspaces go back after their op. Continuous and no-reuse blocks never return (zero-copy
tensors are not in the feature map at all).

Then ReuseBlocksByLifeTime nests blocks into bigger ones whose tensors are all done before
theirs start, which is how blocks on different streams share (only where events order them).
Last, every block shrinks to its largest tensor (Resize) and blocks are laid end to end.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ge_core.compiler.memory.mem_assigner import FmLayout
from ge_core.compiler.memory.mem_assist_info import CONTINUOUS, MemAssistInfo, MemItem
from ge_core.om.logical_memory import MEM_ALIGN_SIZE, align


@dataclass(frozen=True)
class ReuseStrategy:
    """How a request picks a released block (GE's ReuseStrategy)."""
    use_range: bool = False            # any block of at least the bucket size fits, not only
                                       # blocks of exactly that bucket
    ascending_sort: bool = True        # with use_range: the smallest fitting block first
    reuse_first_release: bool = False  # among equals: the earliest released (GE: the latest)


class MemoryBlock:
    __slots__ = ("bucket", "stream", "reusable", "continuous", "items", "children", "deleted",
                 "size")

    def __init__(self, bucket: int, stream: int, reusable: bool, continuous: bool) -> None:
        self.bucket = bucket          # what it was opened as; matching compares this
        self.stream = stream
        self.reusable = reusable
        self.continuous = continuous
        self.items: list[MemItem] = []
        self.children: list[MemoryBlock] = []  # nested by lifetime, laid side by side
        self.deleted = False          # nested into a parent
        self.size = 0                 # after resize

    def align_size(self) -> int:
        """GE's AlignSize: its own largest tensor, aligned."""
        return align(max(i.size for i in self.items))

    def child_offset(self) -> int:
        return sum(c.align_size() for c in self.children)

    def resize(self) -> None:
        for c in self.children:
            c.resize()
        self.size = max(self.align_size(), sum(c.size for c in self.children))


class BlockMemAssigner:
    name = "block"

    def __init__(self, strategy: ReuseStrategy = ReuseStrategy(), name: str = "") -> None:
        self.strategy = strategy
        self.name = name or self.name

    def memory_ranges(self, sizes: list[int]) -> list[int]:
        """GE's GetMemoryRanges: the bucket ceilings, ascending."""
        raise NotImplementedError

    def assign(self, info: MemAssistInfo) -> FmLayout:
        ranges = self.memory_ranges(sorted(i.size for i in info.items if i.size > 0))
        blocks, block_of = self._assign_with_reuse(info, ranges)
        # GE skips this with one bucket (MaxBlock): equal blocks reuse all they can on one
        # stream. Across streams it is the only way to share, so MaxBlock loses there.
        if len(ranges) > 1:
            _reuse_blocks_by_life_time(info, blocks)
        return self._layout(blocks, block_of)

    # -- AssignMemoryWithReuse -----------------------------------------------------------------
    def _assign_with_reuse(self, info: MemAssistInfo, ranges: list[int]
                           ) -> tuple[list[MemoryBlock], dict[str, MemoryBlock]]:
        blocks: list[MemoryBlock] = []
        block_of: dict[str, MemoryBlock] = {}
        pools: dict[tuple[int, int], list[MemoryBlock]] = {}  # released, in release order
        refs = {i.key: len(i.readers) for i in info.items}
        opened: dict[int, list[MemItem]] = {}
        consumed: dict[int, list[MemItem]] = {}  # op index -> an item per edge it reads
        for item in info.items:
            opened.setdefault(item.first, []).append(item)
            for r in item.readers:
                consumed.setdefault(r, []).append(item)

        def release(item: MemItem) -> None:
            if info.can_reuse(item) and item.same_stream:
                block = block_of[item.key]
                pools.setdefault((item.mem_type, block.stream), []).append(block)

        for i in range(len(info.order)):
            for item in opened.get(i, []):
                bucket = _block_size(item.size, ranges)
                block = None
                # a block released on a stream is free only to what that stream runs after
                # its readers: not to a no-task Concat's input written on another stream
                if info.can_reuse(item) and item.stream >= 0 and \
                        all(info.op_stream[w] == item.stream for w in item.writers):
                    block = self._take(pools.get((item.mem_type, item.stream), []), bucket)
                if block is None:
                    block = MemoryBlock(bucket, item.stream, info.can_reuse(item),
                                        item.kind == CONTINUOUS)
                    blocks.append(block)
                block.items.append(item)
                block_of[item.key] = block
            for item in consumed.get(i, []):  # GE's ReleaseInputNodeOutMemory
                refs[item.key] -= 1
                if refs[item.key] == 0:
                    release(item)
            for item in opened.get(i, []):
                if not item.readers:  # workspaces and unread outputs die with their op
                    release(item)
        return blocks, block_of

    def _take(self, pool: list[MemoryBlock], bucket: int) -> MemoryBlock | None:
        s = self.strategy
        order = list(range(len(pool)))
        if not s.reuse_first_release:
            order.reverse()
        if s.use_range:
            fits = [k for k in order if pool[k].bucket >= bucket]
            fits.sort(key=lambda k: pool[k].bucket if s.ascending_sort else -pool[k].bucket)
        else:
            fits = [k for k in order if pool[k].bucket == bucket]
        return pool.pop(fits[0]) if fits else None

    # -- Resize and lay out --------------------------------------------------------------------
    def _layout(self, blocks: list[MemoryBlock], block_of: dict[str, MemoryBlock]) -> FmLayout:
        offset_of: dict[int, int] = {}
        offset = 0
        for block in blocks:
            if block.deleted:
                continue
            block.resize()
            _place(block, offset, offset_of)
            offset += block.size
        return FmLayout(self.name, offset,
                        {key: offset_of[id(b)] for key, b in block_of.items()})


def _place(block: MemoryBlock, offset: int, offset_of: dict[int, int]) -> None:
    """A block and its children from ``offset``: children side by side from the block's head
    (they live after the block's own tensors, so may overlay them; GE's SetHeadOffset)."""
    offset_of[id(block)] = offset
    for child in block.children:
        _place(child, offset, offset_of)
        offset += child.size


def _block_size(size: int, ranges: list[int]) -> int:
    """GE's GetBlockSize: the first bucket ceiling that holds ``size``."""
    return next((r for r in ranges if size <= r), size)


def _reuse_blocks_by_life_time(info: MemAssistInfo, blocks: list[MemoryBlock]) -> None:
    """Nest a block into another when every tensor of the earlier one is done before any of the
    later one's is written (happens-before: stream order plus the events on cross-stream edges)
    and it fits, with the 512 bytes of slack GE allows (802816+802816 bytes fit in 1606144+512).
    """
    hb = info.hb
    done = [hb.done(a for i in b.items for a in i.accesses) for b in blocks]
    start = [hb.start(w for i in b.items for w in i.writers) for b in blocks]

    def usable(b: MemoryBlock) -> bool:
        return b.reusable and not b.deleted and not b.continuous

    for i, this in enumerate(blocks):
        for j in range(i + 1, len(blocks)):
            if not usable(this):
                break
            other = blocks[j]
            if not usable(other) or not bool(np.all(done[i] <= start[j])):
                continue
            if not other.children and \
                    this.child_offset() + other.align_size() <= this.align_size() + MEM_ALIGN_SIZE:
                this.children.append(other)
                other.deleted = True
            elif not this.children and \
                    other.child_offset() + this.align_size() <= other.align_size() + MEM_ALIGN_SIZE:
                other.children.append(this)
                this.deleted = True
