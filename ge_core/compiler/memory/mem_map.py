"""The memory map: what memory assignment decided, as plain data.

One row per buffer (a tensor with the GE-local outputs that alias it, or a workspace) with its
logical address, size, lifetime in op indices, stream and segment; and the figures the TUI and
``info memory`` show. GE keeps the same figures in its MemoryStat (total_memory_size_,
theory_min_memory_size_, theory_no_reuse_memory_size_).
"""
from __future__ import annotations

from dataclasses import dataclass

from ge_core.compiler.memory.block_mem_stream import HappensBefore
from ge_core.compiler.memory.graph_mem_splitter import SubMemoryInfo

# Segments (hicann/ge compiler/graph/build/memory/):
# each has its own logical base (ge_core/om/logical_memory.py).
FEATURE_MAP = "feature_map"            # op outputs and workspaces, reused by lifetime
ZERO_COPY_INPUT = "zero_copy_input"    # graph inputs (Data outputs): the user's buffers
ZERO_COPY_OUTPUT = "zero_copy_output"  # what NetOutput returns: the user's buffers
WEIGHT = "weight"                      # Const outputs
VARIABLE = "variable"                  # Variable outputs


@dataclass(frozen=True, slots=True)
class MemRow:
    offset: int                 # logical address (segment base + offset in the segment)
    size: int                   # bytes the tensor needs (tensor_size), before 512 alignment
    first: int                  # op index that writes it
    last: int                   # op index of its last reader (itself if none)
    label: str                  # "node:idx" of the output that owns it, "node:ws0" a workspace
    stream: int                 # the writer's stream
    segment: str
    aliases: tuple[str, ...] = ()   # GE-local outputs sharing the buffer (Reshape, Flatten ...)
    accesses: tuple[int, ...] = ()  # op indices that write or read it, for happens-before
    within: str = ""            # the buffer this one is a slice of (a no-task Concat's input
                                # inside the Concat's output), which may share its bytes

    @property
    def end(self) -> int:
        return self.offset + self.size


@dataclass(frozen=True, eq=False)
class MemoryPlan:
    rows: tuple[MemRow, ...]          # by address
    op_names: tuple[str, ...]         # op index -> node name (topological order)
    order: HappensBefore              # which op finishes before which starts
    feature_map_bytes: int            # the chosen assigner's total
    lower_bound_bytes: int            # most bytes live at once (same alignment): no plan beats it
    no_reuse_bytes: int               # every feature-map tensor in its own block
    assigner: str                     # the assigner the hybrid kept
    assigner_totals: dict[str, int]   # every assigner tried -> its feature-map total
    weight_bytes: int
    variable_bytes: int
    zero_copy_bytes: int
    warnings: tuple[str, ...] = ()
    sub_memories: tuple[SubMemoryInfo, ...] = ()   # GraphMemSplitter's, fixed ones flagged

    def segment(self, name: str) -> list[MemRow]:
        return [r for r in self.rows if r.segment == name]

    def row(self, label: str) -> MemRow:
        """The row of an output ("node:idx"), found through aliases too."""
        for r in self.rows:
            if r.label == label or label in r.aliases:
                return r
        raise KeyError(f"no buffer for {label}")

    @property
    def fixed_feature_map_bytes(self) -> int:
        """What a user's fixed feature memory must hold (GE's fixed feature memory size)."""
        return sum(s.size for s in self.sub_memories if s.fixed)

    @property
    def mem_over_lower_bound(self) -> float:
        return self.feature_map_bytes / self.lower_bound_bytes if self.lower_bound_bytes else 1.0
