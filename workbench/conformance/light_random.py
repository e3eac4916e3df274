"""light-random: the light architectures with seeded random weights, checked against onnxruntime.

The light models fill every weight with ConstantOfShape(0.02), so a kernel that mixes up channels
or kernel positions still gives the shipped answer. Here each ConstantOfShape becomes an
initializer of random values, and onnxruntime on the same rewritten model is the oracle.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np
import onnx
from onnx import helper, numpy_helper

RTOL = 1e-3
ATOL = 1e-5


def random_weight(rng: np.random.Generator, shape: tuple[int, ...],
                  dtype: np.dtype = np.dtype(np.float32)) -> np.ndarray:
    """Values scaled by 1/sqrt(fan-in) (the weight's dims after the first; its size if 1-D).

    Weights (2-D and up) are signed normals, which keep activations at a steady scale through
    ResNet's 50 layers (all-positive weights overflow float32 there). 1-D tensors — biases,
    BatchNorm scale, mean and variance — are uniform in [0, 1): a variance must not be negative.
    """
    fan_in = math.prod(shape[1:]) if len(shape) > 1 else math.prod(shape)
    values = rng.standard_normal(shape, np.float32) if len(shape) > 1 \
        else rng.random(shape, np.float32)
    values *= np.float32(1 / math.sqrt(max(fan_in, 1)))  # in place: VGG's fc6 alone is 411 MB
    return values.astype(dtype, copy=False)


def randomise_weights(model: onnx.ModelProto, seed: int) -> onnx.ModelProto:
    """A copy of ``model`` with each ConstantOfShape node replaced by a random initializer of the
    shape it would have produced; the shape tensors they read go once nothing reads them."""
    out = onnx.ModelProto()
    out.CopyFrom(model)
    graph = out.graph
    inits = {t.name: t for t in graph.initializer}
    rng = np.random.default_rng(seed)
    kept, weights, shape_names = [], [], set()
    for node in graph.node:
        if node.op_type != "ConstantOfShape":
            kept.append(node)
            continue
        if node.input[0] not in inits:
            raise ValueError(f"ConstantOfShape {node.name or node.output[0]}: "
                             "its shape is computed, not an initializer")
        shape_names.add(node.input[0])
        shape = tuple(int(d) for d in numpy_helper.to_array(inits[node.input[0]]))
        weight = random_weight(rng, shape, _fill_dtype(node))
        weights.append(numpy_helper.from_array(weight, node.output[0]))
    del graph.node[:]
    graph.node.extend(kept)
    graph.initializer.extend(weights)
    if out.ir_version < 4:  # before IR 4 every initializer must also be declared a graph input
        graph.input.extend(helper.make_tensor_value_info(w.name, w.data_type, w.dims)
                           for w in weights)
    _drop_unread(graph, shape_names)
    return out


def _fill_dtype(node: onnx.NodeProto) -> np.dtype:
    for attr in node.attribute:
        if attr.name == "value":
            return numpy_helper.to_array(attr.t).dtype
    return np.dtype(np.float32)  # ConstantOfShape's default fill is float32 zero


def _drop_unread(graph: onnx.GraphProto, names: set[str]) -> None:
    """Remove the initializers (and their graph inputs) in ``names`` that nothing reads."""
    read = {name for node in graph.node for name in node.input} | {o.name for o in graph.output}
    unused = names - read
    kept_inits = [t for t in graph.initializer if t.name not in unused]
    kept_inputs = [x for x in graph.input if x.name not in unused]
    del graph.initializer[:]
    graph.initializer.extend(kept_inits)
    del graph.input[:]
    graph.input.extend(kept_inputs)


def ort_session(model: onnx.ModelProto, profile_prefix: str | None = None) -> Any:
    """An onnxruntime CPU session on one thread, so its timings and its sums are reproducible;
    with ``profile_prefix``, profiling each node into a file of that prefix (its profiler
    writes only to a file)."""
    import onnxruntime as ort  # only light-random and the benchmark need it

    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.log_severity_level = 3  # its warnings about the models' unused inputs are noise here
    if profile_prefix is not None:
        options.enable_profiling = True
        options.profile_file_prefix = profile_prefix
    return ort.InferenceSession(model.SerializeToString(), options,
                                providers=["CPUExecutionProvider"])
