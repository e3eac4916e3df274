"""A node whose shapes were unknown when the graph was inferred meets its inputs' shapes only
when the host executor runs it: if its kernel fails on them, the error is the op's InferShape
refusing them (as GE's hybrid executor would infer first), not the kernel's Python error."""
from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

from ge_core.executor import ExecutionError, HostExecutor
from ge_core.parser import parse_onnx


def _conv1d(x_dims: list | None) -> object:
    w = helper.make_tensor("w", TensorProto.FLOAT, [5, 4, 3], np.ones(60, np.float32))
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, x_dims)
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    graph = helper.make_graph([helper.make_node("Conv", ["x", "w"], ["y"], name="conv")],
                              "conv1d", [x], [y], [w])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


@pytest.mark.parametrize("x_dims, x, said", [
    (None, np.float32(1), "input rank 0 has no spatial dims"),          # IndexError before
    (["n", "c", "l"], np.ones((1, 2, 8), np.float32),
     "x has 2 channels, filter [5, 4, 3] in 1 group(s) takes 4"),       # numpy's matmul before
])
def test_a_kernel_failing_on_inputs_its_op_refuses_says_the_ops_reason(x_dims, x, said):
    with pytest.raises(ExecutionError) as refused:
        HostExecutor(parse_onnx(_conv1d(x_dims))).run({"x": x})
    assert str(refused.value) == f"node conv (Conv): {said}"


def test_inputs_the_op_takes_run_as_onnxruntime_runs_them():
    model, x = _conv1d(["n", "c", "l"]), np.random.default_rng(0).random((1, 4, 8), np.float32)
    (want,) = ort.InferenceSession(model.SerializeToString(),
                                   providers=["CPUExecutionProvider"]).run(None, {"x": x})
    (got,) = HostExecutor(parse_onnx(model)).run({"x": x}).values()
    np.testing.assert_allclose(got, want, rtol=1e-5)


@pytest.mark.parametrize("x", [[2.5], [2.5, 1.0], [[2.5]]])
def test_an_optionals_tensor_keeps_its_own_shape(x):
    """An optional is a variant scalar in the IR: its desc says nothing of the tensor inside,
    which the executor read in that desc's shape when it had one element (a [1] tensor came
    out of OptionalGetElement as a scalar), as it reads a tensor ReshapeRemovePass left."""
    element = helper.make_tensor_type_proto(TensorProto.FLOAT, [4])
    graph = helper.make_graph(
        [helper.make_node("OptionalGetElement", ["opt"], ["y"], name="get")], "optional",
        [helper.make_value_info("opt", helper.make_optional_type_proto(element))],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    x = np.array(x, np.float32)
    (got,) = HostExecutor(parse_onnx(model)).run({"opt": x}).values()
    assert got.shape == x.shape and (got == x).all()
