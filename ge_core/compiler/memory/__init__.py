"""Memory assignment (GE's compiler/graph/build/memory): where every tensor lives.

``assign_memory(graph, options)`` plans the feature map with lifetime reuse (the smallest of
several assigners, as GE's HybridMemAssigner), lays out weights, variables and zero-copy I/O,
writes ``output_offset``/``input_offset``/``workspace`` on each node, and returns a MemoryPlan
(the memory map as plain data). ``check_no_overlap(plan)`` proves no two live buffers collide.
"""
from ge_core.compiler.memory.hybrid_mem_assigner import ASSIGNERS
from ge_core.compiler.memory.mem_map import (FEATURE_MAP, VARIABLE, WEIGHT, ZERO_COPY_INPUT,
                                             ZERO_COPY_OUTPUT, MemoryPlan, MemRow)
from ge_core.compiler.memory.mem_options import MemoryOptions
from ge_core.compiler.memory.memory_assigner import assign_memory
from ge_core.compiler.memory.reuse_checker import (MemoryOverlapError, Overlap,
                                                   check_no_overlap, find_overlaps)

__all__ = ["ASSIGNERS", "FEATURE_MAP", "MemRow", "MemoryOptions", "MemoryOverlapError",
           "MemoryPlan", "Overlap", "VARIABLE", "WEIGHT", "ZERO_COPY_INPUT", "ZERO_COPY_OUTPUT",
           "assign_memory", "check_no_overlap", "find_overlaps"]
