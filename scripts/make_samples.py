"""Writes the bundled sample models (deterministic: seeded weights, fixed opset).

    python scripts/make_samples.py        # rewrites sample_models/*.onnx

tiny_cnn: a small residual CNN with the ops GE's passes like to rewrite (Conv+BN, Conv+Relu,
an Identity, a Reshape) and two parallel branches, small enough to step through by hand.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OUT = Path(__file__).resolve().parent.parent / "sample_models"


def _init(rng: np.random.Generator, name: str, *shape: int) -> onnx.TensorProto:
    fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else shape[0]
    data = (rng.standard_normal(shape) / np.sqrt(fan_in)).astype(np.float32)
    return numpy_helper.from_array(data, name)


def tiny_cnn() -> onnx.ModelProto:
    rng = np.random.default_rng(2026)
    inits = [
        _init(rng, "conv1.w", 8, 3, 3, 3), _init(rng, "conv1.b", 8),
        numpy_helper.from_array((1 + 0.1 * rng.standard_normal(8)).astype(np.float32), "bn.scale"),
        numpy_helper.from_array((0.1 * rng.standard_normal(8)).astype(np.float32), "bn.bias"),
        numpy_helper.from_array((0.1 * rng.standard_normal(8)).astype(np.float32), "bn.mean"),
        numpy_helper.from_array((1 + 0.1 * rng.random(8)).astype(np.float32), "bn.var"),
        _init(rng, "left.w", 8, 8, 3, 3), _init(rng, "right.w", 8, 8, 1, 1),
        _init(rng, "fc.w", 10, 8), _init(rng, "fc.b", 10),
        numpy_helper.from_array(np.array([1, -1], np.int64), "flat_shape"),
    ]
    nodes = [
        helper.make_node("Conv", ["input", "conv1.w", "conv1.b"], ["c1"], "conv1",
                         pads=[1, 1, 1, 1]),
        helper.make_node("BatchNormalization", ["c1", "bn.scale", "bn.bias", "bn.mean", "bn.var"],
                         ["b1"], "bn1"),
        helper.make_node("Relu", ["b1"], ["r1"], "relu1"),
        helper.make_node("MaxPool", ["r1"], ["p1"], "pool1", kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Conv", ["p1", "left.w"], ["l1"], "left_conv", pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["l1"], ["l2"], "left_relu"),
        helper.make_node("Conv", ["p1", "right.w"], ["r2"], "right_conv"),
        helper.make_node("Identity", ["r2"], ["r3"], "right_identity"),
        helper.make_node("Add", ["l2", "r3"], ["s"], "residual_add"),
        helper.make_node("GlobalAveragePool", ["s"], ["g"], "gap"),
        helper.make_node("Reshape", ["g", "flat_shape"], ["f"], "flatten"),
        helper.make_node("Gemm", ["f", "fc.w", "fc.b"], ["logits"], "fc", transB=1),
        helper.make_node("Softmax", ["logits"], ["prob"], "softmax", axis=1),
    ]
    graph = helper.make_graph(
        nodes, "tiny_cnn",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, 16, 16])],
        [helper.make_tensor_value_info("prob", TensorProto.FLOAT, [1, 10])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)],
                              producer_name="gewb-samples")
    onnx.checker.check_model(model)
    return model


def main() -> None:
    OUT.mkdir(exist_ok=True)
    for name, build in {"tiny_cnn": tiny_cnn}.items():
        onnx.save(build(), OUT / f"{name}.onnx")
        print(f"wrote {OUT / name}.onnx")


if __name__ == "__main__":
    main()
