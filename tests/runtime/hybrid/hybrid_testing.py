"""A model with a dynamic batch dimension, built with onnx.helper the way PyTorch exports
``x.view(x.size(0), -1)``: the Reshape's target shape is computed at run time from the input's
shape (Shape -> Gather -> Unsqueeze -> Concat), so its InferShape needs values from the device."""
from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

CHANNELS, SIDE, CLASSES = 3, 8, 5


def dynamic_batch_model() -> onnx.ModelProto:
    rng = np.random.default_rng(0)

    def init(name: str, value: np.ndarray) -> onnx.TensorProto:
        return numpy_helper.from_array(value, name)

    inits = [init("W", rng.standard_normal((4, CHANNELS, 3, 3)).astype(np.float32)),
             init("B", rng.standard_normal(4).astype(np.float32)),
             init("FW", rng.standard_normal((CLASSES, 4 * SIDE * SIDE)).astype(np.float32) / 8),
             init("zero", np.array(0, np.int64)), init("axes", np.array([0], np.int64)),
             init("minus_one", np.array([-1], np.int64))]
    nodes = [helper.make_node("Conv", ["x", "W", "B"], ["c"], pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c"], ["r"]),
             helper.make_node("Shape", ["r"], ["s"]),
             helper.make_node("Gather", ["s", "zero"], ["n"], axis=0),
             helper.make_node("Unsqueeze", ["n", "axes"], ["n1"]),
             helper.make_node("Concat", ["n1", "minus_one"], ["shape"], axis=0),
             helper.make_node("Reshape", ["r", "shape"], ["f"]),
             helper.make_node("Gemm", ["f", "FW"], ["g"], transB=1),
             helper.make_node("Softmax", ["g"], ["y"], axis=1)]
    graph = helper.make_graph(
        nodes, "dynamic_batch",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [None, CHANNELS, SIDE, SIDE])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [None, CLASSES])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    onnx.checker.check_model(model)
    return model


def batch(n: int) -> np.ndarray:
    return np.random.default_rng(n).random((n, CHANNELS, SIDE, SIDE), np.float32)
