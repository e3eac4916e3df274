"""Oracles for the kernel tests: a one-node ONNX model run by onnx's ReferenceEvaluator or by
onnxruntime, and the check that a kernel matches one. Imported by the test files beside it
(``from kernel_oracle import ...``); pytest puts this directory on sys.path."""
from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
from hypothesis import settings
from onnx import helper, numpy_helper
from onnx.reference import ReferenceEvaluator

from npu_emu.op_impl import get_kernel


def derandomized(**kw) -> settings:
    """Hypothesis settings that draw the same examples on every run (no example database)."""
    return settings(deadline=None, derandomize=True, database=None, **kw)


def one_node_model(op: str, inputs: list, opset: int, n_outputs: int = 1,
                   **attrs) -> tuple[onnx.ModelProto, dict[str, np.ndarray]]:
    """A one-node ``op`` model and its feeds. Absent optional inputs are None (an empty input
    name); numpy-array attrs become tensor attrs."""
    names = ["" if x is None else f"in{i}" for i, x in enumerate(inputs)]
    attrs = {k: numpy_helper.from_array(v) if isinstance(v, np.ndarray) else v
             for k, v in attrs.items()}
    outputs = [f"out{i}" for i in range(n_outputs)]
    graph = helper.make_graph(
        [helper.make_node(op, names, outputs, **attrs)], op,
        [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(x.dtype), x.shape)
         for n, x in zip(names, inputs) if n],
        [helper.make_empty_tensor_value_info(o) for o in outputs])
    # onnxruntime refuses old opsets in a model of a recent IR version
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                              ir_version=7 if opset <= 12 else 10)
    return model, {n: x for n, x in zip(names, inputs) if n}


def reference(op: str, inputs: list, opset: int, n_outputs: int = 1,
              **attrs) -> list[np.ndarray]:
    """The outputs of the one-node model under onnx's ReferenceEvaluator."""
    model, feeds = one_node_model(op, inputs, opset, n_outputs, **attrs)
    return ReferenceEvaluator(model).run(None, feeds)


def onnxruntime(op: str, inputs: list, opset: int, n_outputs: int = 1,
                **attrs) -> list[np.ndarray]:
    """The outputs of the one-node model under onnxruntime's CPU provider, on one thread. Its
    outputs stay untyped: onnxruntime infers their types itself (GlobalLpPool and
    MeanVarianceNormalization, function ops, included)."""
    model, feeds = one_node_model(op, inputs, opset, n_outputs, **attrs)
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.log_severity_level = 3  # quiet about opsets below 7
    session = ort.InferenceSession(model.SerializeToString(), options,
                                   providers=["CPUExecutionProvider"])
    return session.run(None, feeds)


def run_kernel(op: str, inputs: list, opset: int, **attrs) -> tuple:
    """The kernel of ``op`` at ``opset`` on ``inputs``, made read-only first: a kernel that
    writes into its inputs raises (numpy scalars, which some callers pass, are immutable)."""
    for x in inputs:
        if isinstance(x, np.ndarray):
            x.flags.writeable = False
    return get_kernel(op, opset)(*inputs, **attrs)


def optional_outputs(op: str, opset: int) -> set[int]:
    """The positions of the outputs the ONNX schema of ``op`` at ``opset`` marks optional."""
    try:
        schema = onnx.defs.get_schema(op, opset)
    except onnx.defs.SchemaError:
        return set()
    optional = onnx.defs.OpSchema.FormalParameterOption.Optional
    return {i for i, o in enumerate(schema.outputs) if o.option == optional}


def check_kernel(op: str, inputs: list, opset: int, expected: list | None = None, *,
                 rtol: float, atol: float, **attrs) -> None:
    """The kernel of ``op`` at ``opset`` gives ``expected`` (default: the reference evaluator's
    single output) as arrays of its dtypes and shapes, to
    ``rtol``/``atol`` (both 0: exactly), and leaves its inputs alone. Past ``expected`` it may
    return only optional outputs of the op, which a kernel computes unasked (Dropout's mask)."""
    if expected is None:
        expected = reference(op, inputs, opset, **attrs)
    before = [None if x is None else x.copy() for x in inputs]
    got = run_kernel(op, inputs, opset, **attrs)
    assert isinstance(got, tuple) and len(got) >= len(expected), (type(got), len(expected))
    assert set(range(len(expected), len(got))) <= optional_outputs(op, opset), len(got)
    for g, e in zip(got, expected):
        assert isinstance(g, np.ndarray), type(g)
        assert (g.dtype, g.shape) == (e.dtype, e.shape)
        if rtol == atol == 0:
            np.testing.assert_array_equal(g, e)
        else:
            np.testing.assert_allclose(g, e, rtol=rtol, atol=atol)
    for x, b in zip(inputs, before):  # unchanged even by a kernel that made x writeable again
        assert x is None or np.array_equal(x, b, equal_nan=True)
