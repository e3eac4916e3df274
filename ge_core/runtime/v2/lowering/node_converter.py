"""The NodeConverter registry (GE's NodeConverterRegistry / REGISTER_NODE_CONVERTER): one
lowering function per kind of ComputeGraph node, turning it into ExecuteGraph nodes.

A node's kind is its type when a converter is registered for the type (Data, Const, NetOutput,
the RTS ops, the control-flow ops), else HOST_CPU for a node of the host CPU engine, else
GE_LOCAL_VIEW for the GE-local ops that only reinterpret their input, else KERNEL for any op
with a device kernel.
Anything else cannot be lowered, and says why.
"""
from __future__ import annotations

from typing import Callable

from ge_core.graph import Node
from ge_core.graph.attr_names import ENGINE
from ge_core.ops.host_cpu_ops import HOST_CPU_ENGINE, host_cpu_reason
from ge_core.runtime.v2.lowering.lowering_context import LoweringContext, LoweringError
from npu_emu.op_impl import has_kernel

NodeConverter = Callable[[Node, LoweringContext], None]

KERNEL = "Kernel"                # AllocMemory + LaunchKernelWithHandle on the node's stream
HOST_CPU = "HostCpu"             # the host CPU engine's node: run on host values
GE_LOCAL_VIEW = "GeLocalView"    # the output is the input's block, reshaped
# GE-local ops whose output reuses the input's memory as is (the memory planner gives them the
# input's offset too).
VIEW_OPS = frozenset({"Reshape", "Flatten", "Squeeze", "Unsqueeze", "ExpandDims", "Identity"})

# The subgraph ops lowered to control-flow kernels (if_case_converter, while_converter); any
# other subgraph op runs on the host CPU engine, bodies and all.
CONTROL_FLOW_OPS = ("If", "Case", "Loop")

# The stream control a Switch/Merge pair compiles to, which only a sunk (v1) model runs here.
SUNK_CONTROL_OPS = frozenset({"StreamSwitch", "StreamSwitchN", "StreamMerge"})

_CONVERTERS: dict[str, NodeConverter] = {}


def register_node_converter(*kinds: str) -> Callable[[NodeConverter], NodeConverter]:
    def register(fn: NodeConverter) -> NodeConverter:
        for kind in kinds:
            if kind in _CONVERTERS:
                raise ValueError(f"node converter {kind} registered twice")
            _CONVERTERS[kind] = fn
        return fn
    return register


def node_kind(node: Node) -> str:
    # GE's own bookkeeping types keep their converters; a control-flow op over host values
    # (a Loop carrying a sequence) runs on the host with its bodies.
    if (node.type not in _CONVERTERS or node.type in CONTROL_FLOW_OPS) and (
            node.op_desc.get_attr(ENGINE) == HOST_CPU_ENGINE or host_cpu_reason(node) is not None):
        return HOST_CPU
    if node.type in _CONVERTERS:
        return node.type
    if node.op_desc.subgraph_names:
        raise LoweringError(f"node {node.name} ({node.type}) owns subgraphs: v2 lowers the "
                            f"control flow of {', '.join(CONTROL_FLOW_OPS)} only")
    if node.type in VIEW_OPS:
        return GE_LOCAL_VIEW
    if has_kernel(node.type):
        return KERNEL
    if node.type in SUNK_CONTROL_OPS:
        raise LoweringError(f"node {node.name} ({node.type}): the hybrid and v2 runtimes here "
                            f"run no {node.type}, which the compile makes of a Switch/Merge "
                            f"pair (GE's hybrid executor runs it on the host); run the model "
                            f"sunk (--mode sink)")
    raise LoweringError(f"node {node.name} ({node.type}): no converter and no kernel; "
                        f"converters: {', '.join(sorted(_CONVERTERS))}")


def converter_for(node: Node) -> NodeConverter:
    return _CONVERTERS[node_kind(node)]
