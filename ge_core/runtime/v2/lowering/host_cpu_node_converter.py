"""A node of the host CPU engine -> HostCpuKernel (GE hybrid's HostCpuNodeExecutor): the host runs
it on host values, a subgraph op (Scan) with its bodies. A device tensor it reads is copied back
first (CopyD2H, once the device has produced it); a device kernel reading its result gets a copy
on the device (MakeSureTensorAtDevice). Neither side's memory holds the other's values."""
from __future__ import annotations

from ge_core.executor import HostExecutor
from ge_core.graph import Node
from ge_core.runtime.v2.lowering.lowering_context import ON_HOST, LoweringContext
from ge_core.runtime.v2.lowering.node_converter import HOST_CPU, register_node_converter


@register_node_converter(HOST_CPU)
def lower_host_cpu_node(node: Node, lc: LoweringContext) -> None:
    inputs = tuple(lc.input(a, ON_HOST) for a in node.in_data_anchors)
    outputs = tuple(lc.exe.new_value(f"{node.name}:{i}") for i in range(len(node.out_data_anchors)))
    lc.main.add("HostCpuKernel", node.name, inputs, outputs,
                {"node": node, "executor": HostExecutor(node.graph)})
    for i, value in enumerate(outputs):
        lc.bind(node, i, value)
        lc.on_host.add(value)
