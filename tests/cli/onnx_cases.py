"""Small ONNX models the CLI's robustness tests feed gewb (written to a file on demand)."""
from __future__ import annotations

from pathlib import Path

import onnx
from onnx import TensorProto, helper


def save(model: onnx.ModelProto, folder: Path, name: str) -> str:
    path = folder / f"{name}.onnx"
    onnx.save(model, str(path))
    return str(path)


def one_op(op: str, inputs: list[tuple[str, int, list[int]]], outputs: list[str],
           inits: tuple[onnx.TensorProto, ...] = (), **attrs) -> onnx.ModelProto:
    node = helper.make_node(op, [n for n, _, _ in inputs] + [t.name for t in inits], outputs,
                            **attrs)
    graph = helper.make_graph([node], op.lower(),
                              [helper.make_tensor_value_info(n, e, s) for n, e, s in inputs],
                              [helper.make_tensor_value_info(o, TensorProto.UNDEFINED, None)
                               for o in outputs], initializer=list(inits))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def counting_loop(trip_count: int | None) -> onnx.ModelProto:
    """v += 1 in a Loop whose condition stays true: it ends only at ``trip_count`` (None: never)."""
    f1 = helper.make_tensor_value_info
    body = helper.make_graph(
        [helper.make_node("Identity", ["cond_in"], ["cond_out"]),
         helper.make_node("Add", ["v_in", "one"], ["v_out"])], "body",
        [f1("i", TensorProto.INT64, []), f1("cond_in", TensorProto.BOOL, []),
         f1("v_in", TensorProto.FLOAT, [1])],
        [f1("cond_out", TensorProto.BOOL, []), f1("v_out", TensorProto.FLOAT, [1])])
    inits = [helper.make_tensor("one", TensorProto.FLOAT, [1], [1.0]),
             helper.make_tensor("yes", TensorProto.BOOL, [], [True])]
    if trip_count is not None:
        inits.append(helper.make_tensor("m", TensorProto.INT64, [], [trip_count]))
    loop = helper.make_node("Loop", ["m" if trip_count is not None else "", "yes", "v"], ["vo"],
                            body=body)
    graph = helper.make_graph([loop], "counting_loop", [f1("v", TensorProto.FLOAT, [1])],
                              [f1("vo", TensorProto.FLOAT, [1])], initializer=inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
