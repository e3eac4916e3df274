"""An op with a device kernel -> [InferShape], AllocMemory per output, LaunchKernelWithHandle on the
node's stream (GE's default lowering of an AI Core / Vector / AI CPU node). The FreeMemory that
follows each tensor's last use is the guarders' (guarder.py); a GE-local op that only
reinterprets its input -> RefTensor, a view of the input's block with the output's shape."""
from __future__ import annotations

from ge_core.graph import Node
from ge_core.graph.attr_names import ENGINE
from ge_core.runtime.op_kernel import UNIT_OF_ENGINE, OpKernel
from ge_core.runtime.v2.caching_mem_allocator import HOST
from ge_core.runtime.v2.lowering.lowering_context import LoweringContext
from ge_core.runtime.v2.lowering.node_converter import (GE_LOCAL_VIEW, KERNEL,
                                                        register_node_converter)


@register_node_converter(KERNEL)
def lower_kernel_node(node: Node, lc: LoweringContext) -> None:
    stream, stream_value = lc.stream(node)
    inputs = [lc.input(a) for a in node.in_data_anchors]
    outputs = []
    for i, spec in enumerate(lc.output_specs(node, inputs, stream_value)):
        tensor = lc.exe.new_value(f"{node.name}:{i}")
        lc.main.add("AllocMemory", f"{node.name}:{i}", (lc.allocator, spec), (tensor,),
                    {"stream": stream})
        lc.bind(node, i, tensor)
        outputs.append(tensor)
    # the unit v1 reads off the task's kernel type; an op no engine placed gets the default
    unit = UNIT_OF_ENGINE.get(node.op_desc.get_attr(ENGINE))
    kernel = OpKernel.of(node.op_desc, lc.opset, unit)
    launch = lc.main.add("LaunchKernelWithHandle", node.name, (stream_value, *inputs, *outputs),
                         attrs={"kernel": kernel, "node": node.name, "n_inputs": len(inputs),
                                "stream": stream})
    lc.issue(launch, stream)
    for tensor in outputs:
        lc.new_block(tensor, launch, stream)
    lc.read(launch, inputs, stream)


@register_node_converter(GE_LOCAL_VIEW)
def lower_view_node(node: Node, lc: LoweringContext) -> None:
    _, stream_value = lc.stream(node)
    inputs = [lc.input(a) for a in node.in_data_anchors]
    (spec,) = lc.output_specs(node, inputs, stream_value)
    view = lc.exe.new_value(f"{node.name}:0")
    ref = lc.main.add("RefTensor", node.name, (inputs[0], spec), (view,))
    lc.bind(node, 0, view, view_of=inputs[0])
    lc.read(ref, inputs[:1], HOST)
