"""MemoryOptions: the switches of memory assignment (GE's options and env vars, plus lessons)."""
from __future__ import annotations

from dataclasses import dataclass

from ge_core.passes.not_ge import MARK

# Our assigners (greedy_mem_assigner.py), with what stands in GE's place: GE's assigners reuse
# whole blocks and never place a tensor across two freed ones.
NOT_GE: dict[str, str] = {
    "greedy_by_size": "GE has BinaryBlock and MaxBlock (hybrid_mem_assigner.cc)",
    "best_fit_search": "GE has BinaryBlock and MaxBlock (hybrid_mem_assigner.cc)",
}


def shown_assigner(name: str) -> str:
    """An assigner's name as a face shows it: ours carry the "(not GE)" mark."""
    return name + MARK if name in NOT_GE else name


@dataclass(frozen=True)
class MemoryOptions:
    disable_reuse: bool = False       # ge.exec.disableReuseMemory=1: every tensor its own block
    memory_priority: bool = False     # ge.exec.memoryOptimizationPolicy=MemoryPriority: the
                                      # hybrid adds the four range BinaryBlock variants
    offset_assigners: bool = False    # not GE: the hybrid adds our two offset assigners
    assigners: tuple[str, ...] | None = None  # exactly these (tests, benches); None: as the
                                             # two switches above say
    no_reuse_ops: tuple[str, ...] = ()  # GE's OP_NO_REUSE_MEM: op names or types never reused
