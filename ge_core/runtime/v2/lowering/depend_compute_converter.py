"""An AI CPU op whose output size only its computation decides (GE's unknown-shape type 4,
DEPEND_COMPUTE; aicpu_node_converter + aicpu_callback's LaunchCCMemcpyTask):

    AllocMemory (a result summary per output) -> LaunchKernelWithSummary -> SyncStream
    -> GetSummaryOutputs (host reads the summaries) -> AllocMemory (each output, its real
    size) -> CopySummaryOutputs (GE's MemCopy kernel: results into outputs, buffers freed)

When the compiler knew the output shapes after all (a Compress whose condition is a Const),
the op is lowered like any other kernel.
"""
from __future__ import annotations

from ge_core.graph import Node
from ge_core.graph.attr_names import ENGINE
from ge_core.runtime.op_kernel import UNIT_OF_ENGINE, OpKernel
from ge_core.runtime.v2.caching_mem_allocator import HOST
from ge_core.runtime.v2.execute_graph import TensorSpec
from ge_core.runtime.v2.lowering.kernel_node_converter import lower_kernel_node
from ge_core.runtime.v2.lowering.lowering_context import LoweringContext
from ge_core.runtime.v2.lowering.node_converter import register_node_converter
from npu_emu.core.result_summary import SUMMARY_DTYPE, SUMMARY_WORDS

# The AI CPU op info store's DEPEND_COMPUTE ops ("unknownshape_type" 4) among ours.
DEPEND_COMPUTE_OPS = ("Unique", "NonZero", "Compress", "NonMaxSuppression")
SUMMARY_SPEC = TensorSpec((SUMMARY_WORDS,), SUMMARY_DTYPE.name)


@register_node_converter(*DEPEND_COMPUTE_OPS)
def lower_depend_compute_node(node: Node, lc: LoweringContext) -> None:
    descs = node.op_desc.output_descs
    if not any(d.shape.is_unknown for d in descs):
        return lower_kernel_node(node, lc)
    stream, stream_value = lc.stream(node)
    inputs = [lc.input(a) for a in node.in_data_anchors]
    spec = lc.constant(f"{node.name} summary spec", SUMMARY_SPEC)
    summaries = []
    for i in range(len(descs)):
        summary = lc.exe.new_value(f"{node.name}:{i} summary")
        lc.main.add("AllocMemory", f"{node.name}:{i} summary", (lc.allocator, spec), (summary,),
                    {"stream": stream})
        summaries.append(summary)
    kernel = OpKernel.of(node.op_desc, lc.opset, UNIT_OF_ENGINE.get(node.op_desc.get_attr(ENGINE)))
    launch = lc.main.add("LaunchKernelWithSummary", node.name,
                         (stream_value, *inputs, *summaries),
                         attrs={"kernel": kernel, "node": node.name, "n_inputs": len(inputs),
                                "stream": stream})
    lc.issue(launch, stream)
    lc.read(launch, inputs, stream)
    for summary in summaries:
        lc.new_block(summary, launch, stream)
    sync = lc.main.add("SyncStream", node.name, (stream_value,), after=[launch.id])
    results = [lc.exe.new_value(f"{node.name}:{i} result") for i in range(len(descs))]
    specs = [lc.exe.new_value(f"{node.name}:{i} spec") for i in range(len(descs))]
    read = lc.main.add("GetSummaryOutputs", node.name, (stream_value, *summaries),
                       (*results, *specs),
                       {"dtypes": [d.dtype.to_numpy().name for d in descs]}, after=[sync.id])
    lc.read(read, summaries, HOST)
    outputs = []
    for i, spec_value in enumerate(specs):
        tensor = lc.exe.new_value(f"{node.name}:{i}")
        lc.main.add("AllocMemory", f"{node.name}:{i}", (lc.allocator, spec_value), (tensor,),
                    {"stream": stream})
        lc.bind(node, i, tensor)
        outputs.append(tensor)
    copy = lc.main.add("CopySummaryOutputs", node.name, (stream_value, *results, *outputs))
    lc.issue(copy, stream)
    for tensor in outputs:
        lc.new_block(tensor, copy, stream)
