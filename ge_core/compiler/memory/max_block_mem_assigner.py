"""MaxBlockMemAssigner: one bucket, the largest size (max_block_mem_assigner.cc).

Every block opens at the largest size, so any released block fits any request: the most reuse
by count, paid for when a block that once held a big tensor is sized for it (Resize keeps its
largest tensor).
"""
from __future__ import annotations

from ge_core.compiler.memory.block_mem_assigner import BlockMemAssigner
from ge_core.om.logical_memory import MEM_ALIGN_SIZE


class MaxBlockMemAssigner(BlockMemAssigner):
    name = "max-block"

    def memory_ranges(self, sizes: list[int]) -> list[int]:
        return [sizes[-1] if sizes else MEM_ALIGN_SIZE]
