"""MemoryAssigner: memory assignment for an optimised graph (GE's memory_assigner.cc).

    build the assist info   topological op order, streams, happens-before, symbols, items
    hybrid assign           several feature-map assigners, the smallest kept
    graph mem assign        weights, variables, zero-copy I/O; offsets written on the nodes
    split                   the feature map's sub memories, fixed where HCCL's buffers are

Reads ``stream_id`` from each node (0 where the stream allocator has not run: one stream).
"""
from __future__ import annotations

from ge_core.compiler.memory import graph_mem_splitter
from ge_core.compiler.memory.graph_mem_assigner import ZERO_COPY, GraphMemAssigner
from ge_core.compiler.memory.hybrid_mem_assigner import HybridMemAssigner, assigner_names
from ge_core.compiler.memory.mem_assist_info import build_mem_assist_info
from ge_core.compiler.memory.mem_map import VARIABLE, WEIGHT, MemoryPlan
from ge_core.compiler.memory.mem_options import MemoryOptions
from ge_core.graph import ComputeGraph, Node
from ge_core.graph.attr_names import (ATTR_MODEL_SUB_MEMORY_INFO, ATTR_NAME_IS_FIXED_ADDR_PRIOR,
                                      ENGINE)

HCCL_ENGINE = "DNN_HCCL"


def is_fixed_addr_prior(node: Node) -> bool:
    """HCCL's ops kernel builder marks every collective op (hcom_ops_kernel_builder.cc)."""
    return bool(node.op_desc.get_attr(ATTR_NAME_IS_FIXED_ADDR_PRIOR)) or \
        node.op_desc.get_attr(ENGINE) == HCCL_ENGINE


def assign_memory(graph: ComputeGraph, options: MemoryOptions | None = None) -> MemoryPlan:
    options = options or MemoryOptions()
    info = build_mem_assist_info(graph, options)
    layout, totals = HybridMemAssigner(assigner_names(options)).assign(info)
    graph_assigner = GraphMemAssigner(info, layout)
    rows = graph_assigner.assign()
    sizes = graph_assigner.segment_bytes
    fixed_ops = {i for i, n in enumerate(info.order) if is_fixed_addr_prior(n)}
    subs = graph_mem_splitter.split(((layout.offsets[i.key], not fixed_ops.isdisjoint(i.accesses))
                                     for i in info.items), layout.total)
    graph.set_attr(ATTR_MODEL_SUB_MEMORY_INFO, graph_mem_splitter.encode(subs))
    return MemoryPlan(
        rows=tuple(rows), op_names=tuple(n.name for n in info.order), order=info.hb,
        feature_map_bytes=layout.total, lower_bound_bytes=info.lower_bound_bytes(),
        no_reuse_bytes=info.no_reuse_bytes(), assigner=layout.assigner, assigner_totals=totals,
        weight_bytes=sizes[WEIGHT], variable_bytes=sizes[VARIABLE],
        zero_copy_bytes=sizes[ZERO_COPY], warnings=tuple(info.warnings), sub_memories=subs)
