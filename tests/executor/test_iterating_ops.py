"""Scan and SequenceMap on the host executor against onnxruntime: scan axes and directions on
inputs and outputs, several states, a value the body captures from the enclosing graph, Scan-8's
batch axis with ragged sequence_lens."""
from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

from ge_core.executor import HostExecutor
from ge_core.parser import parse_onnx

F = TensorProto.FLOAT
RNG = np.random.default_rng(0)


def _run_both(model, feeds: dict) -> tuple[list, list]:
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    want = ort.InferenceSession(model.SerializeToString(), options,
                                providers=["CPUExecutionProvider"]).run(None, feeds)
    got = list(HostExecutor(parse_onnx(model)).run(feeds).values())
    return got, want


def _body() -> object:
    # state' = state + x_t * w (w from the enclosing graph); out_t = state' * 2
    nodes = [helper.make_node("Mul", ["x_t", "w"], ["xw"]),
             helper.make_node("Add", ["state", "xw"], ["state_out"]),
             helper.make_node("Add", ["state_out", "state_out"], ["y_t"])]
    return helper.make_graph(nodes, "body",
                             [helper.make_tensor_value_info("state", F, [3]),
                              helper.make_tensor_value_info("x_t", F, [3])],
                             [helper.make_tensor_value_info("state_out", F, [3]),
                              helper.make_tensor_value_info("y_t", F, [3])])


@pytest.mark.parametrize("in_axis, in_dir, out_axis, out_dir", [
    (0, 0, 0, 0), (1, 1, 0, 0), (0, 0, 1, 1), (1, 0, -1, 1)])
def test_scan_axes_and_directions(in_axis: int, in_dir: int, out_axis: int, out_dir: int):
    x_shape = [4, 3] if in_axis == 0 else [3, 4]
    node = helper.make_node("Scan", ["init", "x"], ["final", "ys"], body=_body(),
                            num_scan_inputs=1, scan_input_axes=[in_axis],
                            scan_input_directions=[in_dir], scan_output_axes=[out_axis],
                            scan_output_directions=[out_dir])
    graph = helper.make_graph([node], "scan", [helper.make_tensor_value_info("init", F, [3]),
                                                helper.make_tensor_value_info("x", F, x_shape)],
                              [helper.make_tensor_value_info("final", F, None),
                               helper.make_tensor_value_info("ys", F, None)],
                              [helper.make_tensor("w", F, [3], [0.5, -1.0, 2.0])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 16)])
    feeds = {"init": RNG.standard_normal(3).astype(np.float32),
             "x": RNG.standard_normal(x_shape).astype(np.float32)}
    got, want = _run_both(model, feeds)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-6)


def test_scan_8_batches_with_ragged_lengths():
    node = helper.make_node("Scan", ["lens", "init", "x"], ["final", "ys"], body=_body(),
                            num_scan_inputs=1, directions=[1])
    graph = helper.make_graph([node], "scan8", [
        helper.make_tensor_value_info("lens", TensorProto.INT64, [2]),
        helper.make_tensor_value_info("init", F, [2, 3]),
        helper.make_tensor_value_info("x", F, [2, 4, 3])],
        [helper.make_tensor_value_info("final", F, None),
         helper.make_tensor_value_info("ys", F, None)],
        [helper.make_tensor("w", F, [3], [0.5, -1.0, 2.0])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 8)], ir_version=7)
    feeds = {"lens": np.array([4, 2]), "init": RNG.standard_normal((2, 3)).astype(np.float32),
             "x": RNG.standard_normal((2, 4, 3)).astype(np.float32)}
    got, want = _run_both(model, feeds)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-6)


def test_sequence_map_with_a_sequence_and_a_tensor():
    body = helper.make_graph([helper.make_node("Add", ["a", "b"], ["c"])], "map",
                             [helper.make_tensor_value_info("a", F, None),
                              helper.make_tensor_value_info("b", F, None)],
                             [helper.make_tensor_value_info("c", F, None)])
    def sequence(name: str) -> object:
        return helper.make_value_info(name, helper.make_sequence_type_proto(
            helper.make_tensor_type_proto(F, None)))
    node = helper.make_node("SequenceMap", ["xs", "t"], ["ys"], body=body)
    graph = helper.make_graph([node], "m", [sequence("xs"), helper.make_tensor_value_info(
        "t", F, [2])], [sequence("ys")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    feeds = {"xs": [np.ones(2, np.float32), np.arange(2, dtype=np.float32)],
             "t": np.array([10, 20], np.float32)}
    got, want = _run_both(model, feeds)
    assert isinstance(got[0], list) and len(got[0]) == len(want[0]) == 2
    for g, w in zip(got[0], want[0]):
        np.testing.assert_array_equal(g, w)
