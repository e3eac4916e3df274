"""Memory assignment (GE's compiler/graph/build/memory): where every tensor lives.

``assign_memory(graph, options)`` plans the feature map with lifetime reuse (the smallest of
several assigners, as GE's HybridMemAssigner), lays out weights, variables and zero-copy I/O,
writes ``output_offset``/``input_offset``/``workspace`` on each node, and returns a MemoryPlan
(the memory map as plain data). ``check_no_overlap(plan)`` proves no two live buffers collide.

The names below load with their module on first use (PEP 562): a face reading the memory map's
segment names does not load the assigners.
"""
from ge_core.lazy_names import lazy_names

_WHERE = {"ASSIGNERS": "hybrid_mem_assigner", "FEATURE_MAP": "mem_map", "MemRow": "mem_map",
          "MemoryPlan": "mem_map", "VARIABLE": "mem_map", "WEIGHT": "mem_map",
          "ZERO_COPY_INPUT": "mem_map", "ZERO_COPY_OUTPUT": "mem_map",
          "MemoryOptions": "mem_options", "assign_memory": "memory_assigner",
          "MemoryOverlapError": "reuse_checker", "Overlap": "reuse_checker",
          "check_no_overlap": "reuse_checker", "find_overlaps": "reuse_checker"}

__all__ = sorted(_WHERE)

__getattr__ = lazy_names(__name__, _WHERE)
