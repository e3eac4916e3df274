"""Ops whose graph attributes are functions of one tensor (ai.onnx.preview's FlexAttention:
score_mod, prob_mod): the host executor hands the op's kernel each subgraph as a Python callable
that runs the body on the host, the op's captured values in reach."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ge_core.graph import Node
from ge_core.graph.attr_names import ATTR_NAME_PARENT_NODE_INDEX
from ge_core.graph.op_desc import kernel_attrs
from npu_emu.op_impl import get_kernel

if TYPE_CHECKING:
    from ge_core.executor.host_executor import HostExecutor


def run_with_function_attrs(executor: HostExecutor, node: Node, ins: list[Any]) -> list[Any]:
    op = node.op_desc
    bodies = {name: node.graph.root.subgraph(name) for name in op.subgraph_names}
    captured = {d.op_desc.get_attr(ATTR_NAME_PARENT_NODE_INDEX) for g in bodies.values()
                for d in g.input_nodes if d.op_desc.has_attr(ATTR_NAME_PARENT_NODE_INDEX)}
    attrs = kernel_attrs(op)
    for key, value in attrs.items():
        if isinstance(value, str) and value in bodies:
            attrs[key] = lambda x, body=bodies[value]: executor.run_graph(body, [x], ins)[0]
    formal = [x for i, x in enumerate(ins) if i not in captured]
    return list(get_kernel(node.type, executor.opset)(*formal, **attrs))
