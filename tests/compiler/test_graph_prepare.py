"""GraphPrepare::CheckAndUpdateInput: symbolic dims as exporters write them are unknown after
parsing; the shapes given for the inputs replace them before InferShape, which carries them
into the If's branches; what does not fit the model is refused naming the input."""
from __future__ import annotations

import onnx
import pytest
from onnx import TensorProto as T, helper

from ge_core.compiler import CompileOptions, compile_graph
from ge_core.compiler.graph_prepare import GraphPrepareError, check_and_update_input
from ge_core.passes.multi_batch import MultiBatchOptions
from ge_core.graph.ge_tensor import UNKNOWN_DIM
from ge_core.parser import parse_onnx
from ge_core.runtime.v1 import ModelManager

DIMS = ["batch", "p2o.DynamicDimension.0", "?", None, 2]   # None: neither value nor name


def _model() -> onnx.ModelProto:
    """y = If(c, x + x, -x) for x [DIMS...]."""
    shape = [None] * len(DIMS)
    then_g = helper.make_graph([helper.make_node("Add", ["x", "x"], ["t"])], "then", [],
                               [helper.make_tensor_value_info("t", T.FLOAT, shape)])
    else_g = helper.make_graph([helper.make_node("Neg", ["x"], ["e"])], "else", [],
                               [helper.make_tensor_value_info("e", T.FLOAT, shape)])
    graph = helper.make_graph(
        [helper.make_node("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g)], "g",
        [helper.make_tensor_value_info("x", T.FLOAT, DIMS),
         helper.make_tensor_value_info("c", T.BOOL, [])],
        [helper.make_tensor_value_info("y", T.FLOAT, shape)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def _data_dims(graph, name: str) -> tuple[int, ...]:
    return next(n for n in graph.input_nodes if n.name == name).op_desc.output_descs[0].shape.dims


def test_every_way_an_exporter_leaves_a_dim_open_parses_as_unknown():
    graph = parse_onnx(_model())
    assert _data_dims(graph, "x") == (UNKNOWN_DIM,) * 4 + (2,)


def test_the_given_shape_makes_the_graph_static_through_its_branches():
    graph = parse_onnx(_model())
    compile_graph(graph, CompileOptions(dump=None, user_input_shapes={"x": (3, 1, 4, 5, 2)}))
    assert _data_dims(graph, "x") == (3, 1, 4, 5, 2)
    branch_outputs = [n.op_desc.output_descs[0].shape.dims for g in graph.subgraphs for n in g
                      if n.type in ("Add", "Neg")]
    assert branch_outputs == [(3, 1, 4, 5, 2)] * 2
    assert not ModelManager.is_need_hybrid_load(graph)


def test_without_a_shape_the_graph_stays_dynamic_and_loads_hybrid():
    graph = parse_onnx(_model())
    compile_graph(graph, CompileOptions(dump=None))
    assert ModelManager.is_need_hybrid_load(graph)


@pytest.mark.parametrize("shape, message", [
    ((3, 1, 4, 5, 7), "input x: shape [3, 1, 4, 5, 7], the model takes ['?', '?', '?', '?', 2]"),
    ((3, 2), "input x: shape [3, 2], the model takes ['?', '?', '?', '?', 2]"),
    ((3, -2, 4, 5, 2), "input x: shape [3, -2, 4, 5, 2] has a negative size (-1 is an unknown "
                       "one)"),
])
def test_a_shape_that_does_not_fit_names_the_input(shape, message):
    with pytest.raises(GraphPrepareError) as err:
        check_and_update_input(parse_onnx(_model()), {"x": shape})
    assert str(err.value) == message


def test_a_shape_for_no_input_lists_the_inputs():
    with pytest.raises(GraphPrepareError, match=r"a shape for 'z', which is no input of the "
                                                r"model \(inputs: x, c\)"):
        check_and_update_input(parse_onnx(_model()), {"z": (1,)})


def test_ge_input_shape_sizes_dims_and_the_values_given_win():
    """ge.inputShape (no gear option): its dims fix the inputs', -1 keeps one unknown; the
    shapes of the values a run is given win over it."""
    graph = parse_onnx(_model())
    options = CompileOptions(dump=None, multi_batch=MultiBatchOptions("x:3,1,-1,5,2;c:"))
    compile_graph(graph, options)
    assert _data_dims(graph, "x") == (3, 1, UNKNOWN_DIM, 5, 2)
    assert ModelManager.is_need_hybrid_load(graph)
    graph = parse_onnx(_model())
    compile_graph(graph, CompileOptions(dump=None, multi_batch=options.multi_batch,
                                        user_input_shapes={"x": (1, 1, 1, 1, 2)}))
    assert _data_dims(graph, "x") == (1, 1, 1, 1, 2)
