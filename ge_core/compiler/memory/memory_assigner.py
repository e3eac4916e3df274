"""MemoryAssigner: memory assignment for an optimised graph (GE's memory_assigner.cc).

    build the assist info   topological op order, streams, happens-before, symbols, items
    hybrid assign           several feature-map assigners, the smallest kept
    graph mem assign        weights, variables, zero-copy I/O; offsets written on the nodes

Reads ``stream_id`` from each node (0 where the stream allocator has not run: one stream).
"""
from __future__ import annotations

from ge_core.compiler.memory.graph_mem_assigner import ZERO_COPY, GraphMemAssigner
from ge_core.compiler.memory.hybrid_mem_assigner import HybridMemAssigner, assigner_names
from ge_core.compiler.memory.mem_assist_info import build_mem_assist_info
from ge_core.compiler.memory.mem_map import VARIABLE, WEIGHT, MemoryPlan
from ge_core.compiler.memory.mem_options import MemoryOptions
from ge_core.graph import ComputeGraph


def assign_memory(graph: ComputeGraph, options: MemoryOptions | None = None) -> MemoryPlan:
    options = options or MemoryOptions()
    info = build_mem_assist_info(graph, options)
    layout, totals = HybridMemAssigner(assigner_names(options)).assign(info)
    graph_assigner = GraphMemAssigner(info, layout)
    rows = graph_assigner.assign()
    sizes = graph_assigner.segment_bytes
    return MemoryPlan(
        rows=tuple(rows), op_names=tuple(n.name for n in info.order), order=info.hb,
        feature_map_bytes=layout.total, lower_bound_bytes=info.lower_bound_bytes(),
        no_reuse_bytes=info.no_reuse_bytes(), assigner=layout.assigner, assigner_totals=totals,
        weight_bytes=sizes[WEIGHT], variable_bytes=sizes[VARIABLE],
        zero_copy_bytes=sizes[ZERO_COPY], warnings=tuple(info.warnings))
