"""GraphConverter::ConvertComputeGraphToExecuteGraph: a ComputeGraph -> an ExecuteGraph.

Each node, in the graph's topological order (for a built graph, the order the build planned
streams and events on), is handed to its NodeConverter. Then Main is closed: one Synchronize
after the last task issued to every stream, a CopyOutput per graph output, and the guarders'
FreeMemory nodes, each placed right after the last node using its block (the sequential order);
DeInit releases Init's resources in reverse.
"""
from __future__ import annotations

from ge_core.graph import ComputeGraph
from ge_core.runtime.v2.caching_mem_allocator import HOST
from ge_core.runtime.v2.execute_graph import ExecuteGraph, ExeNode
from ge_core.runtime.v2.lowering import (host_cpu_node_converter,  # noqa: F401
                                         io_node_converter, kernel_node_converter,
                                         rts_node_converter)
from ge_core.runtime.v2.lowering import depend_compute_converter  # noqa: F401
from ge_core.runtime.v2.lowering.guarder import add_guarders
from ge_core.runtime.v2.lowering.lowering_context import (LoweringContext, LoweringError,
                                                          LoweringOptions)
from ge_core.runtime.v2.lowering.node_converter import HOST_CPU, converter_for, node_kind


_LABEL_OPS = frozenset({"LabelSet", "LabelGoto", "LabelGotoEx", "LabelSwitchByIndex"})


def lower_graph(graph: ComputeGraph, options: LoweringOptions | None = None) -> ExecuteGraph:
    # A subgraph of a node on the host CPU engine runs there with its node (Scan, say).
    subgraphs = [g for g in graph.subgraphs if node_kind(g.parent_node) != HOST_CPU]
    if subgraphs:
        raise LoweringError(f"graph {graph.name} has subgraphs "
                            f"({', '.join(g.name for g in subgraphs)}): v2 lowers no "
                            f"control flow; run it sunk (gewb exec --mode sink)")
    labels = [n.name for n in graph if n.type in _LABEL_OPS]
    if labels:
        raise LoweringError(f"graph {graph.name}: its control flow was built into label tasks "
                            f"({labels[0]}, ...), which v2 does not lower; run it sunk "
                            f"(gewb exec --mode sink)")
    lc = LoweringContext(graph, options or LoweringOptions())
    for node in graph.topological_sort():
        converter_for(node)(node, lc)
    _close_main(lc)
    for kernel, name, inputs in reversed(lc.deinit_nodes):
        lc.exe.deinit.add(kernel, name, inputs)
    position = {n.op_desc.output_names[0] or n.name: i for i, n in enumerate(graph.input_nodes)}
    lc.exe.inputs.sort(key=lambda item: position[item[0]])
    return lc.exe


def _close_main(lc: LoweringContext) -> None:
    streams = sorted(lc.last_issued)
    sync = lc.main.add("Synchronize", "streams",
                       (lc.allocator, *(lc.stream_value(s) for s in streams)),
                       after=[lc.last_issued[s] for s in streams])
    for i, (name, value) in enumerate(lc.exe.outputs):
        if value in lc.on_host:  # a host CPU op's result: already where the caller reads it
            continue
        host = lc.exe.new_value(f"output:{name}")
        copy = lc.main.add("CopyOutput", name, (lc.allocator, value), (host,), after=[sync.id])
        lc.read(copy, [value], HOST)
        block = lc.block_of(value)
        if block is not None:
            block.output = True
        lc.exe.outputs[i] = (name, host)
    _place(lc.main.nodes, add_guarders(lc, sync))


def _place(nodes: list[ExeNode], frees: list[ExeNode]) -> None:
    """Put each free right after the last node it follows (they were appended at the end)."""
    after: dict[int, list[ExeNode]] = {}
    for free in frees:
        after.setdefault(max(free.after), []).append(free)
    others = nodes[:len(nodes) - len(frees)]
    nodes[:] = [n for node in others for n in (node, *after.get(node.id, ()))]
