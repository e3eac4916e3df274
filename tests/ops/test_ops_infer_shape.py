"""InferShape rules, one small graph per case.

Each golden was read off ONNX's shape inference, and every case asserts that ONNX still infers it,
so the goldens cannot drift from the oracle; then our InferShape must give the same shapes and
the same dtypes as ONNX. Unknown dims are -1 on both sides (ONNX's symbolic dims included).
"""
from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

from ge_core.graph import ComputeGraph, DataType, GeShape, GeTensor, GeTensorDesc, OpDesc
from ge_core.ops import InferShapeError, infer_graph, infer_shape, is_supported, supported_ops
from ge_core.ops.data_type import data_type_from_onnx


class X:
    """A run-time input of the op: dims (None = unknown) and a numpy dtype."""

    def __init__(self, *dims: int | None, dtype: type = np.float32) -> None:
        self.dims, self.dtype = dims, np.dtype(dtype)


def c(*values: int, dtype: type = np.int64) -> np.ndarray:
    """A constant input (shape operands: Reshape's shape, Slice's starts, ...)."""
    return np.array(values, dtype=dtype)


Spec = X | np.ndarray | None  # None: an optional input left out


def ours(op_type: str, inputs: list[Spec], attrs: dict, opset: int, n_out: int):
    graph = ComputeGraph("case", attrs={"opset": opset})
    op = OpDesc("op", op_type, len(inputs), n_out, attrs)
    sources = []
    for i, spec in enumerate(inputs):
        if spec is None:
            op.input_descs[i] = GeTensorDesc(absent=True)
        elif isinstance(spec, np.ndarray):
            sources.append((i, OpDesc(f"in{i}", "Const", 0, 1, {"value": GeTensor(spec)})))
        else:
            data = OpDesc(f"in{i}", "Data", 0, 1, {"index": i})
            dims = tuple(-1 if d is None else d for d in spec.dims)
            data.output_descs[0] = GeTensorDesc(GeShape(dims), DataType.from_numpy(spec.dtype))
            sources.append((i, data))
    sources = [(i, graph.add_node(src)) for i, src in sources]
    node = graph.add_node(op)
    for i, src in sources:
        src.out_data_anchor(0).link_to(node.in_data_anchor(i))
    infer_graph(graph)
    return [(None if d.shape.is_unknown_rank else list(d.shape.dims), d.dtype)
            for d in op.output_descs]


def onnx_inferred(op_type: str, inputs: list[Spec], attrs: dict, opset: int, n_out: int):
    names, graph_inputs, inits = [], [], []
    for i, spec in enumerate(inputs):
        names.append("" if spec is None else f"in{i}")
        if isinstance(spec, np.ndarray):
            inits.append(onnx.numpy_helper.from_array(spec, f"in{i}"))
        elif spec is not None:
            dims = [f"d{i}_{k}" if d is None else d for k, d in enumerate(spec.dims)]
            elem = helper.np_dtype_to_tensor_dtype(spec.dtype)
            graph_inputs.append(helper.make_tensor_value_info(f"in{i}", elem, dims))
    outs = [f"out{k}" for k in range(n_out)]
    attrs = {k: onnx.numpy_helper.from_array(v) if isinstance(v, np.ndarray) else v
             for k, v in attrs.items()}
    node = helper.make_node(op_type, names, outs, **attrs)
    graph = helper.make_graph([node], "case", graph_inputs,
                              [helper.make_tensor_value_info(o, TensorProto.UNDEFINED, None)
                               for o in outs], initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model = onnx.shape_inference.infer_shapes(model, strict_mode=True)
    result = []
    for out in model.graph.output:
        tt = out.type.tensor_type
        dims = [d.dim_value if d.HasField("dim_value") else -1 for d in tt.shape.dim] \
            if tt.HasField("shape") else None
        result.append((dims, data_type_from_onnx(tt.elem_type)))
    return result


def check(op_type: str, inputs: list[Spec], expect: list, opset: int = 18, **attrs) -> None:
    ref = onnx_inferred(op_type, inputs, attrs, opset, len(expect))
    assert [dims for dims, _ in ref] == expect, "the golden is no longer what ONNX infers"
    got = ours(op_type, inputs, attrs, opset, len(expect))
    assert got == ref


# -- Conv / ConvTranspose ---------------------------------------------------------------------
@pytest.mark.parametrize("inputs,attrs,expect", [
    ([X(1, 3, 32, 32), X(8, 3, 3, 3)], dict(pads=[1, 1, 1, 1], strides=[2, 2]), [1, 8, 16, 16]),
    ([X(1, 3, 32, 32), X(8, 3, 3, 3)], dict(dilations=[2, 2]), [1, 8, 28, 28]),
    ([X(1, 1, 7, 9), X(2, 1, 3, 2)], dict(pads=[0, 1, 2, 0], strides=[2, 3]), [1, 2, 4, 3]),
    ([X(1, 3, 7, 8), X(4, 3, 3, 3)], dict(auto_pad="SAME_UPPER", strides=[2, 3]), [1, 4, 4, 3]),
    ([X(1, 3, 7, 8), X(4, 3, 3, 3)], dict(auto_pad="SAME_LOWER", strides=[2, 2]), [1, 4, 4, 4]),
    ([X(1, 3, 7, 7), X(4, 3, 3, 3)], dict(auto_pad="VALID", strides=[2, 2]), [1, 4, 3, 3]),
    ([X(1, 4, 10, 10), X(8, 2, 3, 3)], dict(group=2), [1, 8, 8, 8]),
    ([X(1, 4, 10, 10), X(4, 1, 3, 3), X(4)], dict(group=4, kernel_shape=[3, 3]), [1, 4, 8, 8]),
    ([X(2, 3, 20), X(5, 3, 4)], dict(strides=[3]), [2, 5, 6]),
    ([X(1, 2, 6, 7, 8), X(3, 2, 2, 3, 3)], dict(pads=[1, 0, 1, 1, 0, 1]), [1, 3, 7, 5, 8]),
    ([X(None, 3, 8, 8), X(4, 3, 3, 3)], {}, [-1, 4, 6, 6]),
    ([X(1, 3, 0, 5), X(4, 3, 3, 3)], dict(pads=[1, 1, 1, 1]), [1, 4, 0, 5]),
], ids=["pads_strides", "dilations", "asym_pads", "same_upper", "same_lower", "valid", "group",
        "depthwise_bias", "1d", "3d", "unknown_batch", "empty_map"])
def test_conv(inputs, attrs, expect):
    check("Conv", inputs, [expect], **attrs)


@pytest.mark.parametrize("inputs,attrs,expect", [
    ([X(1, 2, 5, 5), X(2, 3, 3, 3)], dict(strides=[2, 2]), [1, 3, 11, 11]),
    ([X(1, 2, 5, 5), X(2, 3, 3, 3)], dict(strides=[2, 2], pads=[1, 1, 1, 1],
                                           output_padding=[1, 1]), [1, 3, 10, 10]),
    ([X(1, 4, 5, 5), X(4, 3, 3, 3)], dict(group=2), [1, 6, 7, 7]),
    ([X(1, 2, 5, 6), X(2, 3, 3, 3)], dict(strides=[2, 2], auto_pad="SAME_UPPER"),
     [1, 3, 10, 12]),
    ([X(1, 2, 5, 5), X(2, 3, 3, 3)], dict(strides=[2, 2], output_shape=[10, 10]),
     [1, 3, 10, 10]),
    ([X(1, 2, 5), X(2, 3, 4)], dict(dilations=[2]), [1, 3, 11]),
], ids=["strides", "pads_output_padding", "group", "same_upper", "output_shape", "1d_dilated"])
def test_conv_transpose(inputs, attrs, expect):
    check("ConvTranspose", inputs, [expect], **attrs)


# -- pools ------------------------------------------------------------------------------------
@pytest.mark.parametrize("op_type,x,attrs,expect", [
    ("MaxPool", X(1, 1, 6, 6), dict(kernel_shape=[3, 3], strides=[2, 2]), [1, 1, 2, 2]),
    ("MaxPool", X(1, 1, 6, 6), dict(kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1),
     [1, 1, 3, 3]),
    ("AveragePool", X(1, 3, 7, 8), dict(kernel_shape=[3, 2], strides=[2, 2], pads=[1, 0, 1, 0],
                                        ceil_mode=1), [1, 3, 4, 4]),
    ("MaxPool", X(1, 1, 9, 9), dict(kernel_shape=[2, 2], dilations=[3, 3]), [1, 1, 6, 6]),
    ("AveragePool", X(1, 1, 6, 6), dict(kernel_shape=[3, 3], strides=[2, 2], auto_pad="VALID",
                                        ceil_mode=1), [1, 1, 3, 3]),
    ("MaxPool", X(2, 4, 7), dict(kernel_shape=[3], strides=[2], auto_pad="SAME_LOWER"),
     [2, 4, 4]),
    ("LpPool", X(1, 2, 5, 5), dict(kernel_shape=[2, 2]), [1, 2, 4, 4]),
    ("GlobalAveragePool", X(2, 8, 7, 5), {}, [2, 8, 1, 1]),
    ("GlobalMaxPool", X(2, 8, 7), {}, [2, 8, 1]),
    # an empty map: no window fits, where the padding is narrower than the window
    ("MaxPool", X(1, 3, 0, 5), dict(kernel_shape=[3, 3], strides=[2, 2]), [1, 3, 0, 2]),
    ("AveragePool", X(1, 3, 0, 5), dict(kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1),
     [1, 3, 0, 2]),
    # a window up to a stride wider than the padded map fits 0 times (ONNX's formula, and
    # onnxruntime's and the reference's outputs); it was refused
    ("MaxPool", X(1, 1, 2, 6), dict(kernel_shape=[3, 3]), [1, 1, 0, 4]),
    ("AveragePool", X(1, 1, 1, 6), dict(kernel_shape=[3, 3], strides=[2, 2]), [1, 1, 0, 2]),
], ids=["floor", "ceil", "ceil_pads", "dilated", "valid_ceil", "same_lower_1d", "lppool",
        "global_avg", "global_max_1d", "empty_map", "empty_map_ceil", "one_too_wide",
        "a_stride_too_wide"])
def test_pool(op_type, x, attrs, expect):
    check(op_type, [x], [expect], **attrs)


def test_a_window_wider_than_a_padded_map_with_pixels_is_refused():
    # an empty map has no windows (test_pool's empty_map), and a window a stride wider than
    # the padded map fits 0 times (one_too_wide); wider still, ONNX's formula gives a negative
    # count: a model's mistake, named
    with pytest.raises(InferShapeError, match=r"window 4 \(dilation 1\) is larger than padded "
                                              r"input 2\+0\+0"):
        ours("MaxPool", [X(1, 1, 2, 2)], dict(kernel_shape=[4, 4]), 18, 1)


def test_maxpool_indices_output_is_int64():
    check("MaxPool", [X(1, 2, 4, 4)], [[1, 2, 2, 2], [1, 2, 2, 2]], kernel_shape=[2, 2],
          strides=[2, 2])


def test_pool_ceil_mode_drops_a_window_starting_in_the_padding():
    # 5 + pads 1+1, kernel 2, stride 2, ceil: a 4th window would start in the right padding.
    # The spec and both runtimes drop it; onnx 1.23's C++ shape inference still says 4
    # (onnx/onnx#5711), so the golden here is the shape onnx.reference computes.
    attrs = dict(kernel_shape=[2, 2], strides=[2, 2], pads=[1, 1, 1, 1], ceil_mode=1)
    node = helper.make_node("MaxPool", ["x"], ["y"], **attrs)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", 1, [1, 1, 5, 5])],
                              [helper.make_tensor_value_info("y", 1, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    ran = ReferenceEvaluator(model).run(None, {"x": np.zeros((1, 1, 5, 5), np.float32)})[0]
    assert list(ran.shape) == [1, 1, 3, 3]
    assert ours("MaxPool", [X(1, 1, 5, 5)], attrs, 18, 1)[0][0] == [1, 1, 3, 3]
    assert onnx_inferred("MaxPool", [X(1, 1, 5, 5)], attrs, 18, 1)[0][0] == [1, 1, 4, 4]


# -- broadcast --------------------------------------------------------------------------------
@pytest.mark.parametrize("op_type,inputs,expect", [
    ("Add", [X(2, 1, 4), X(3, 1)], [2, 3, 4]),
    ("Mul", [X(5, 4), X()], [5, 4]),
    ("Sub", [X(None, 1), X(1, 3)], [-1, 3]),
    ("Div", [X(None, 3), X(4, 1)], [4, 3]),
    ("Pow", [X(2, 3), X(3)], [2, 3]),
    ("Equal", [X(2, 1), X(1, 3)], [2, 3]),
    ("And", [X(4, 1, dtype=bool), X(4, dtype=bool)], [4, 4]),
    ("Sum", [X(2, 1), X(1, 3), X(3)], [2, 3]),
    ("Max", [X(1, 3, 1), X(2, 1, 1), X(5)], [2, 3, 5]),
    ("Where", [X(3, 1, dtype=bool), X(1, 4), X(3, 4)], [3, 4]),
    ("PRelu", [X(2, 3, 4, 5), X(3, 1, 1)], [2, 3, 4, 5]),
], ids=["add", "scalar", "unknown_vs_1", "unknown_vs_4", "pow", "equal_bool", "and", "sum3",
        "max3", "where", "prelu"])
def test_broadcast(op_type, inputs, expect):
    check(op_type, inputs, [expect])


def test_broadcast_mismatch_names_the_node():
    with pytest.raises(InferShapeError,
                       match=r"node op \(Add\): cannot broadcast \[2,3\] and \[4\]"):
        ours("Add", [X(2, 3), X(4)], {}, 18, 1)


@pytest.mark.parametrize("inputs, attrs, said", [
    ([X(2, 3, 3, 4, 5), X(4)], {}, "filter [4] has rank 1, x has rank 5"),
    ([X(1, 1, 8), X(5, 4, 3)], {}, "x has 1 channels, filter [5, 4, 3] in 1 group(s) takes 4"),
    ([X(1, 4, 8), X(6, 2, 3)], {"group": 0}, "group 0 is not positive"),
    ([X(1, 4, 8, 8), X(2, 4, 3, 3)], {"kernel_shape": [2, 2]},
     "kernel_shape [2, 2] differs from filter [2, 4, 3, 3]'s spatial dims"),
], ids=["rank", "channels", "group", "kernel_shape"])
def test_a_conv_filter_that_does_not_fit_x_is_refused(inputs, attrs, said):
    """Its kernel would multiply operands that do not fit (numpy's matmul error on screen)."""
    with pytest.raises(InferShapeError) as refused:
        ours("Conv", inputs, attrs, 18, 1)
    assert str(refused.value) == f"node op (Conv): {said}"


@pytest.mark.parametrize("bias, fits", [([5], True), ([4], False), ([1, 5], False)])
def test_a_conv_bias_is_one_value_per_filter(bias, fits):
    """ONNX's Conv inference does not look at B; the kernel met a [1, 8, 16, 16] bias as numpy's
    broadcast error (found by the exec fuzz target)."""
    inputs = [X(1, 4, 8), X(5, 4, 3), X(*bias)]
    if fits:
        assert ours("Conv", inputs, {}, 18, 1) == [([1, 5, 6], DataType.DT_FLOAT)]
        return
    with pytest.raises(InferShapeError) as refused:
        ours("Conv", inputs, {}, 18, 1)
    assert str(refused.value) == \
        f"node op (Conv): bias {bias} is not one value per filter ([5])"


@pytest.mark.parametrize("c, attrs, opset, fits", [
    (X(2, 4), {}, 6, True), (X(4), {}, 6, False), (X(4), {"broadcast": 1}, 6, True),
    (X(4), {}, 7, True)])
def test_a_gemm_c_before_opset_7_is_m_by_n_unless_it_broadcasts(c, attrs, opset, fits):
    """Gemm 1 and 6 broadcast C only when asked; the kernel's ValueError reached the screen
    (found by the exec fuzz target)."""
    inputs = [X(2, 3), X(3, 4), c]
    if fits:
        assert ours("Gemm", inputs, attrs, opset, 1) == [([2, 4], DataType.DT_FLOAT)]
        return
    with pytest.raises(InferShapeError) as refused:
        ours("Gemm", inputs, attrs, opset, 1)
    assert str(refused.value) == "node op (Gemm): C is [4], not [2, 4], and broadcast=0"


@pytest.mark.parametrize("attrs, said", [
    ({"kernel_shape": [2, 2]},
     "kernel_shape [2, 2] differs from filter [2, 3, 3, 3]'s spatial dims"),
    ({"strides": [2, 2], "output_padding": [2, 1]},
     "output_padding [2, 1] is not less than strides [2, 2] or dilations [1, 1]")])
def test_conv_transpose_kernel_shape_and_output_padding(attrs, said):
    with pytest.raises(InferShapeError) as refused:
        ours("ConvTranspose", [X(1, 2, 4, 4), X(2, 3, 3, 3)], attrs, 11, 1)
    assert str(refused.value) == f"node op (ConvTranspose): {said}"


@pytest.mark.parametrize("x, groups, said", [
    (X(1, 4, 2, 2), 3, "num_groups 3 does not divide the 4 channels of X"),
    (X(1, 4, 2, 2), 0, "num_groups 0 is not positive"), (X(4), 2, "X [4] is not [N, C, ...]")])
def test_group_normalization_groups_divide_the_channels(x, groups, said):
    with pytest.raises(InferShapeError) as refused:
        ours("GroupNormalization", [x, X(4), X(4)], {"num_groups": groups}, 21, 1)
    assert str(refused.value) == f"node op (GroupNormalization): {said}"


@pytest.mark.parametrize("c, attrs, opset", [
    (X(2), {}, 13), (X(4, 4), {}, 13), (X(2, 1, 1), {}, 13), (X(3), {"broadcast": 1}, 6)])
def test_a_gemm_c_broadcasts_one_way_only(c, attrs, opset):
    """C stretches to (M, N), never the other way: numpy's broadcast had grown the output (a C
    of [2, 1, 1] gave [2, 2, 4]), where onnxruntime refuses."""
    with pytest.raises(InferShapeError) as refused:
        ours("Gemm", [X(2, 3), X(3, 4), c], attrs, opset, 1)
    assert str(refused.value) == \
        f"node op (Gemm): C of shape {list(c.dims)} does not broadcast to the output [2, 4]"


@pytest.mark.parametrize("inputs, opset, said", [
    ([X(), X(1)], 16, "slope [1] does not broadcast to x []"),
    ([X(3), X(2, 3)], 9, "slope [2, 3] does not broadcast to x [3]"),
    ([X(2, 3, 4), X(4)], 6, "slope [4] does not broadcast to x [2, 3, 4]"),   # channel is axis 1
])
def test_a_prelu_slope_that_does_not_broadcast_to_x_is_refused(inputs, opset, said):
    """y has x's shape, so the slope stretches to x only (its kernel met numpy's 'cannot
    broadcast a non-scalar to a scalar array')."""
    with pytest.raises(InferShapeError) as refused:
        ours("PRelu", inputs, {}, opset, 1)
    assert str(refused.value) == f"node op (PRelu): {said}"


@pytest.mark.parametrize("b, attrs, fits", [
    (X(2, 3), {}, True), (X(2, 1), {}, False),                       # broadcast=0: equal only
    (X(3), {"broadcast": 1}, True), (X(2), {"broadcast": 1}, False),  # suffix
    (X(2), {"broadcast": 1, "axis": 0}, True), (X(3), {"broadcast": 1, "axis": 0}, False),
    (X(2, 3, 1), {"broadcast": 1, "axis": 0}, False),                 # b longer than a
])
def test_opset_6_binary_ops_broadcast_only_b_and_only_when_asked(b, attrs, fits):
    """The kernel (legacy_broadcast) refuses what InferShape lets through otherwise."""
    if fits:
        assert ours("Add", [X(2, 3), b], attrs, 6, 1) == [([2, 3], DataType.DT_FLOAT)]
        return
    with pytest.raises(InferShapeError, match=r"node op \(Add\): b \[.*\] does not fit a "
                                              r"\[2, 3\] \(broadcast="):
        ours("Add", [X(2, 3), b], attrs, 6, 1)


def test_a_one_value_prelu_slope_fits_any_x_before_opset_7():
    assert ours("PRelu", [X(), X(1)], {}, 6, 1) == [([], DataType.DT_FLOAT)]


# -- shape operands ---------------------------------------------------------------------------
@pytest.mark.parametrize("inputs,attrs,expect", [
    ([X(2, 3, 4), c(0, -1)], {}, [2, 12]),
    ([X(2, 3, 4), c(-1)], {}, [24]),
    ([X(2, 3, 4), c(4, 0, -1)], {}, [4, 3, 2]),
    ([X(None, 3, 4), c(0, 12)], {}, [-1, 12]),
    ([X(None, 3, 4), c(-1, 4)], {}, [-1, 4]),
    ([X(0, 4), c(0, 4)], dict(allowzero=1), [0, 4]),
], ids=["copy_and_infer", "flatten_all", "zero_in_middle", "unknown_copied", "unknown_inferred",
        "allowzero"])
def test_reshape(inputs, attrs, expect):
    check("Reshape", inputs, [expect], **attrs)


@pytest.mark.parametrize("inputs,attrs,expect,opset", [
    ([X(6, 4), c(2, 4)], {}, [[2, 4], [4, 4]], 18),
    ([X(6, 4)], {}, [[2, 4], [2, 4], [2, 4]], 13),
    ([X(7, 2)], dict(num_outputs=3), [[3, 2], [3, 2], [1, 2]], 18),
    ([X(2, 9)], dict(axis=-1, split=[4, 5]), [[2, 4], [2, 5]], 11),
], ids=["split_input", "equal", "num_outputs", "split_attr"])
def test_split(inputs, attrs, expect, opset):
    check("Split", inputs, expect, opset=opset, **attrs)


@pytest.mark.parametrize("inputs,expect", [
    ([X(10, 20, 30), c(1, -5), c(1000, -1), c(0, 2), c(2, 1)], [5, 20, 4]),
    ([X(10, 20, 30), c(-1), c(-1000), c(1), c(-2)], [10, 10, 30]),
    ([X(10, 20), c(3), c(2)], [0, 20]),
    ([X(None, 20), c(0, 5), c(2, 100), c(0, 1)], [-1, 15]),
    ([X(10, 20), c(0), c(9223372036854775807), c(-1)], [10, 20]),
], ids=["steps_axes", "negative_step", "empty", "unknown_dim", "int64_max_end"])
def test_slice(inputs, expect):
    check("Slice", inputs, [expect])


@pytest.mark.parametrize("op_type,inputs,attrs,expect,opset", [
    ("Squeeze", [X(1, 3, 1, 5), c(0, -2)], {}, [3, 5], 18),
    ("Squeeze", [X(1, 3, 1, 5)], {}, [3, 5], 18),
    ("Squeeze", [X(1, 3, 1, 5)], dict(axes=[2]), [1, 3, 5], 11),
    ("Unsqueeze", [X(3, 5), c(0, 3)], {}, [1, 3, 5, 1], 18),
    ("Unsqueeze", [X(3, 5), c(-1, 1)], {}, [3, 1, 5, 1], 18),
    ("Unsqueeze", [X(3, 5)], dict(axes=[1]), [3, 1, 5], 11),
], ids=["squeeze_axes", "squeeze_all", "squeeze_attr", "unsqueeze", "unsqueeze_negative",
        "unsqueeze_attr"])
def test_squeeze_unsqueeze(op_type, inputs, attrs, expect, opset):
    check(op_type, inputs, [expect], opset=opset, **attrs)


@pytest.mark.parametrize("inputs,attrs,expect", [
    ([X(5, 4, 3), X(2, 7, dtype=np.int64)], dict(axis=1), [5, 2, 7, 3]),
    ([X(5, 4, 3), X(dtype=np.int64)], {}, [4, 3]),
    ([X(5, 4), X(6, dtype=np.int64)], dict(axis=-1), [5, 6]),
], ids=["axis1", "scalar_index", "negative_axis"])
def test_gather(inputs, attrs, expect):
    check("Gather", inputs, [expect], **attrs)


@pytest.mark.parametrize("inputs,attrs,expect", [
    ([X(2, 3), X(2, 5)], dict(axis=1), [2, 8]),
    ([X(2, 3, 4), X(2, 3, 1), X(2, 3, 2)], dict(axis=-1), [2, 3, 7]),
    ([X(None, 3), X(None, 4)], dict(axis=1), [-1, 7]),
    ([X(None, 3), X(2, 3)], dict(axis=0), [-1, 3]),
], ids=["axis1", "three_negative_axis", "unknown_other_dim", "unknown_on_axis"])
def test_concat(inputs, attrs, expect):
    check("Concat", inputs, [expect], **attrs)


# -- the rest of the families -----------------------------------------------------------------
@pytest.mark.parametrize("op_type,inputs,attrs,expect", [
    ("MatMul", [X(2, 3, 4), X(4, 5)], {}, [[2, 3, 5]]),
    ("MatMul", [X(4), X(2, 4, 5)], {}, [[2, 5]]),
    ("MatMul", [X(3, 4), X(4)], {}, [[3]]),
    ("Gemm", [X(4, 3), X(5, 4), X(5)], dict(transA=1, transB=1), [[3, 5]]),
    ("Flatten", [X(2, 3, 4, 5)], dict(axis=2), [[6, 20]]),
    ("Flatten", [X(2, 3, 4, 5)], dict(axis=-1), [[24, 5]]),
    ("Transpose", [X(2, 3, 4)], dict(perm=[1, 2, 0]), [[3, 4, 2]]),
    ("Transpose", [X(2, 3, 4)], {}, [[4, 3, 2]]),
    ("Pad", [X(1, 3, 4, 4), c(0, 0, 1, 2, 0, 0, 3, 4)], {}, [[1, 3, 8, 10]]),
    ("Pad", [X(1, 3, 4, 4), c(1, 2), None, c(-1)], {}, [[1, 3, 4, 7]]),
    ("Tile", [X(2, 3), c(2, 2)], {}, [[4, 6]]),
    ("Expand", [X(3, 1), c(2, 1, 4)], {}, [[2, 3, 4]]),
    ("Shape", [X(2, 3, 4)], {}, [[3]]),
    ("Shape", [X(2, 3, 4)], dict(start=-2), [[2]]),
    ("Size", [X(2, 3, 4)], {}, [[]]),
    ("ConstantOfShape", [c(2, 3)], dict(value=np.array([7], np.int32)), [[2, 3]]),
    ("Cast", [X(2, 3)], dict(to=TensorProto.INT32), [[2, 3]]),
    ("ReduceMean", [X(2, 3, 4)], dict(axes=[1]), [[2, 1, 4]]),
    ("ReduceSum", [X(2, 3, 4), c(-1, 0)], dict(keepdims=0), [[3]]),
    ("ReduceMax", [X(2, 3, 4)], {}, [[1, 1, 1]]),
    ("ReduceSum", [X(2, 3, 4), c()], dict(noop_with_empty_axes=1), [[2, 3, 4]]),
    ("ArgMax", [X(2, 3, 4)], dict(axis=1, keepdims=0), [[2, 4]]),
    ("Softmax", [X(2, 3)], {}, [[2, 3]]),
    ("Clip", [X(2, 3), None, X()], {}, [[2, 3]]),
    ("BatchNormalization", [X(2, 3, 4, 4), X(3), X(3), X(3), X(3)], {}, [[2, 3, 4, 4]]),
    ("Dropout", [X(2, 3)], {}, [[2, 3], [2, 3]]),
], ids=["matmul_batched", "matmul_1d_left", "matmul_1d_right", "gemm_trans", "flatten",
        "flatten_negative", "transpose", "transpose_default", "pad", "pad_axes", "tile", "expand",
        "shape", "shape_start", "size", "constant_of_shape", "cast", "reduce_attr",
        "reduce_input", "reduce_all", "reduce_noop", "argmax", "softmax", "clip_absent_min",
        "batchnorm", "dropout_mask"])
def test_other_ops(op_type, inputs, attrs, expect):
    check(op_type, inputs, expect, **attrs)


@pytest.mark.parametrize("op_type,inputs,attrs,expect,opset", [
    ("Add", [X(2, 3, 4, 5), X(3, 4)], dict(broadcast=1, axis=1), [[2, 3, 4, 5]], 6),
    ("Split", [X(2, 3, 4)], dict(axis=1, split=[1, 2]), [[2, 1, 4], [2, 2, 4]], 6),
    ("Pad", [X(2, 3)], dict(pads=[0, 1, 0, 2]), [[2, 6]], 6),
    ("Slice", [X(2, 3, 5)], dict(starts=[1], ends=[1000], axes=[2]), [[2, 3, 4]], 6),
    ("Squeeze", [X(1, 7)], dict(axes=[0]), [[7]], 6),
    ("Dropout", [X(2, 3)], {}, [[2, 3]], 7),
], ids=["add_broadcast_axis", "split2", "pad2", "slice1", "squeeze1", "dropout7"])
def test_old_opset_attrs(op_type, inputs, attrs, expect, opset):
    check(op_type, inputs, expect, opset=opset, **attrs)


def test_reshape_1_shape_attr():
    # ONNX has no shape inference for Reshape-1; the golden follows its spec (0 copies, -1 infers).
    assert ours("Reshape", [X(2, 3, 4, 5)], dict(shape=[0, -1]), 4, 1) == \
        [([2, 60], DataType.DT_FLOAT)]


def test_dropout_mask_dtype_follows_opset():
    # Before opset 10 the mask had x's type; ONNX infers no mask there, so this is the spec's.
    assert ours("Dropout", [X(2, 3)], {}, 7, 2)[1] == ([2, 3], DataType.DT_FLOAT)
    assert ours("Dropout", [X(2, 3)], {}, 12, 2)[1] == ([2, 3], DataType.DT_BOOL)


# -- the refiner ------------------------------------------------------------------------------
def test_infer_shape_gives_consumers_the_producers_desc_in_their_own_layout():
    """Descs are frozen: a consumer whose layout is the producer's shares the producer's desc;
    one whose format differs gets the shape in a desc of its own and keeps its format."""
    from ge_core.graph.types import Format
    graph = ComputeGraph("g")
    data = OpDesc("x", "Data", 0, 1, {"index": 0})
    data.output_descs[0] = GeTensorDesc(GeShape((2, 3)), DataType.DT_FLOAT)
    x = graph.add_node(data)
    relu = graph.add_node(OpDesc("relu", "Relu", 1, 1))
    nchw = OpDesc("exp", "Exp", 1, 1)
    nchw.input_descs[0] = GeTensorDesc(format=Format.FORMAT_NCHW)
    exp = graph.add_node(nchw)
    x.out_data_anchor(0).link_to(relu.in_data_anchor(0))
    x.out_data_anchor(0).link_to(exp.in_data_anchor(0))
    infer_shape(x)
    assert relu.op_desc.input_descs[0] is data.output_descs[0]
    theirs = exp.op_desc.input_descs[0]
    assert theirs.shape == GeShape((2, 3)) and theirs.format is Format.FORMAT_NCHW
    infer_shape(relu)
    assert str(relu.op_desc.output_descs[0]) == "f32[2,3]"


def test_a_reader_holding_an_absent_output_s_own_desc_reads_it_present_after_infer_shape():
    """A reader holding the producer's very desc is as InferShape would make it, and is passed
    over, unless that desc says absent: a linked reader reads a tensor that is there."""
    from ge_core.ops.shape_refiner import update_peer_input_desc
    graph = ComputeGraph("g")
    absent = GeTensorDesc(GeShape((2,)), DataType.DT_FLOAT, absent=True)
    maker = OpDesc("x", "Data", 0, 1, {"index": 0})
    maker.output_descs[0] = absent
    x = graph.add_node(maker)
    reader = OpDesc("relu", "Relu", 1, 1)
    reader.input_descs[0] = absent
    relu = graph.add_node(reader)
    x.out_data_anchor(0).link_to(relu.in_data_anchor(0))
    assert update_peer_input_desc(x) == []   # the same shape and dtype: nothing to re-pass
    theirs = relu.op_desc.input_descs[0]
    assert not theirs.absent and str(theirs) == "f32[2]"


def test_unknown_op_names_node_type_and_known_ops():
    graph = ComputeGraph("g")
    node = graph.add_node(OpDesc("decode", "ImageDecoder", 1, 1))
    with pytest.raises(InferShapeError) as err:
        infer_shape(node)
    text = str(err.value)
    assert text.startswith("node decode (ImageDecoder): no InferShape for op type")
    assert "Conv" in text and "Reshape" in text


def test_registry_answers_supported():
    assert is_supported("Conv") and is_supported("Loop") and not is_supported("NoSuchOp")
    assert supported_ops() == sorted(supported_ops())


def test_infer_shape_announces_each_desc_it_changes():
    from ge_core.graph import ComputeGraph, DataType, GeShape, GraphUtils, OpDesc
    from ge_core.graph.events import DescUpdated
    from ge_core.ops import infer_shape
    from npu_emu.base.trace import TraceBus, TraceRecorder
    bus, rec = TraceBus(), TraceRecorder()
    g = ComputeGraph("g", bus)
    op = OpDesc("x", "Data", 0, 1, {"index": 0})
    op.output_descs[0] = GeTensorDesc(GeShape((2, 3)), DataType.DT_FLOAT)
    x = g.add_node(op)
    relu = g.add_node(OpDesc("relu", "Relu", 1, 1))
    GraphUtils.add_edge(x.out_data_anchor(0), relu.in_data_anchor(0))
    infer_shape(x)
    bus.subscribe(rec)
    infer_shape(relu)
    infer_shape(relu)  # unchanged the second time: nothing to announce
    (event,) = [e for e in rec.events if isinstance(e, DescUpdated)]
    assert (event.node, event.io, event.index, event.old, event.new) == \
        ("relu", "output", 0, "?[*]", "f32[2,3]")


# Swept attributes whose value sizes an output dim: a -1 read as an unknown dim, which a build
# then took for a shape the op computes ("GE's DEPEND_COMPUTE; not supported"), and a count of
# inputs that left the optimizers' outputs without a source (an IndexError)
@pytest.mark.parametrize("op_type, inputs, attrs, n_out, said", [
    ("GRU", [X(1, 2, 3), X(1, 12, 3), X(1, 12, 4)], {"hidden_size": -1}, 2,
     "hidden_size -1 is not positive"),
    ("LSTM", [X(1, 2, 3), X(1, 16, 3), X(1, 16, 4)], {"hidden_size": 0}, 3,
     "hidden_size 0 is not positive"),
    ("RoiAlign", [X(1, 1, 8, 8), X(2, 4), X(2, dtype=np.int64)], {"output_width": -1}, 1,
     "output_width -1 is not positive"),
    ("ConvTranspose", [X(1, 1, 3, 3), X(1, 2, 3, 3)], {"strides": [3, 2], "pads": [9, 2, 1, 2]},
     1, "the output's spatial dims [-1, 3] are not all positive (pads [9, 2, 1, 2])"),
    ("Attention", [X(2, 3, 8), X(2, 5, 8), X(2, 5, 8)], {"q_num_heads": 0, "kv_num_heads": 2},
     1, "Q's 0 heads are not positive"),
    ("Attention", [X(2, 2, 3, 4), X(8), X(2, 2, 5, 4)], {}, 1,
     "K is 1-d; it takes [batch, seq, hidden] or [batch, heads, seq, size]"),
    ("Attention", [X(1, 2, 3, 4), X(1, 2, 5, 4), X(1, 2, 5, 4), None, X(1, 2)], {}, 3,
     "past_key is 2-d, not [batch, kv heads, past seq, size]"),
])
def test_a_count_attribute_or_input_no_output_follows_from_is_refused(op_type, inputs, attrs,
                                                                       n_out, said):
    with pytest.raises(InferShapeError) as refused:
        ours(op_type, inputs, attrs, 23, n_out)
    assert str(refused.value) == f"node op ({op_type}): {said}"


@pytest.mark.parametrize("n_inputs, n_outputs, said", [
    (5, 2, None), (8, 4, None),   # R, T, then X, G, H per tensor: one tensor, two
    (6, 2, "6 inputs and 2 outputs"), (8, 6, "8 inputs and 6 outputs")])
def test_an_optimizer_step_takes_r_t_and_three_inputs_a_tensor(n_inputs, n_outputs, said):
    inputs = [X(), X(dtype=np.int64)] + [X(3)] * (n_inputs - 2)
    if said is None:
        assert ours("ai.onnx.preview.training::Adagrad", inputs, {}, 1, n_outputs) == \
            [([3], DataType.DT_FLOAT)] * n_outputs
    else:
        with pytest.raises(InferShapeError, match=f"{said} are not R, T and 3 per tensor in, "
                                                  "at most 2 per tensor out$"):
            ours("ai.onnx.preview.training::Adagrad", inputs, {}, 1, n_outputs)
