"""SingleOpModel: one op compiled as a model of its own (GE's single_op_model.cc), for
aclopExecute: the op between Data nodes and a NetOutput - the minimal graph GE builds when
PyTorch hands it one op - through the normal compile, then

    SingleOp         shapes fixed when compiled: built (streams, memory, tasks) like any static
                     model, lowered with every shape precomputed
    DynamicSingleOp  unknown dims (-1, or an output shape that depends on an input's value):
                     compiled only, lowered hybrid-style (InferShape at run time, one stream),
                     so one compiled op serves every shape of its rank

Either is loaded once on a stream (a ModelV2Executor) and executed many times.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ge_core.compiler import CompileOptions, compile_graph
from ge_core.compiler.model_builder import build_model
from ge_core.graph import ComputeGraph, GeTensorDesc, OpDesc
from ge_core.graph.attr_names import ATTR_NAME_INDEX, OPSET
from ge_core.runtime.hybrid import HYBRID_LOWERING
from ge_core.runtime.op_kernel import LATEST_OPSET
from ge_core.runtime.v1.model_manager import ModelManager
from ge_core.runtime.v2 import ExecuteResult, LoweringOptions, ModelV2Executor, lower_graph
from npu_emu.core.stream import Stream

SINGLE_OP_PREFIX = "aclop_"   # GE names (and dumps) a single op's graph so


def single_op_graph(op_type: str, input_descs: Sequence[GeTensorDesc | None],
                    attrs: dict[str, Any], num_outputs: int, opset: int) -> ComputeGraph:
    """Data per present input -> the op -> NetOutput (None: an optional input left out)."""
    graph = ComputeGraph(f"{SINGLE_OP_PREFIX}{op_type}")
    graph.attrs[OPSET] = opset
    op = graph.add_node(OpDesc(op_type, op_type, len(input_descs), num_outputs, attrs))
    for i, desc in enumerate(input_descs):
        if desc is None:
            op.op_desc.input_descs[i].absent = True
            continue
        data = graph.add_node(OpDesc(f"input_{i}", "Data", 0, 1, {ATTR_NAME_INDEX: i}))
        data.op_desc.output_descs[0] = desc.copy()
        data.op_desc.output_names[0] = f"input_{i}"
        data.out_data_anchors[0].link_to(op.in_data_anchors[i])
    net_output = graph.add_node(OpDesc("NetOutput", "NetOutput", num_outputs, 0))
    for i in range(num_outputs):
        net_output.op_desc.input_names[i] = f"output_{i}"
        op.out_data_anchors[i].link_to(net_output.in_data_anchors[i])
    return graph


class SingleOpModel:
    """The op as a model: its minimal graph, compiled, then built into the kind of op its
    shapes allow (GE's SingleOpModel::BuildOp / BuildDynamicOp)."""

    def __init__(self, op_type: str, input_descs: Sequence[GeTensorDesc | None],
                 attrs: dict[str, Any], num_outputs: int = 1, opset: int = LATEST_OPSET) -> None:
        self.graph = single_op_graph(op_type, input_descs, attrs, num_outputs, opset)

    def build_op(self, stream: Stream) -> "SingleOp":
        """Compile; a graph left with unknown dims - declared so, or an output shape that
        depends on an input's value (ReduceSum's axes) - becomes a DynamicSingleOp, as
        ModelManager would load such a graph hybrid."""
        compile_graph(self.graph, CompileOptions(dump=None))
        if ModelManager.is_need_hybrid_load(self.graph):
            return DynamicSingleOp(self.graph, stream)
        return SingleOp(build_model(self.graph).ge_model.graph, stream)


class SingleOp:
    """A static single op: built for its input shapes, every shape precomputed."""

    lowering = LoweringOptions()

    def __init__(self, graph: ComputeGraph, stream: Stream) -> None:
        self.graph = graph
        self.executor = ModelV2Executor(lower_graph(graph, self.lowering), stream)
        self.executor.load()
        self.executions = 0

    def execute(self, inputs: Sequence[np.ndarray | None]) -> ExecuteResult:
        self.executions += 1
        return self.executor.execute([x for x in inputs if x is not None])

    def release(self) -> None:
        self.executor.unload()


class DynamicSingleOp(SingleOp):
    """A single op with unknown dims: compiled once (not built: no memory plan, no static
    tasks), shapes inferred at each execution."""

    lowering = HYBRID_LOWERING
