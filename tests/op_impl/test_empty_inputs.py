"""Kernels on empty tensors (a 0 dim, on the axis they work along or another), against onnx's
reference evaluator: each gives its empty (or nan) result where numpy's own refusal of an
empty axis (max and argmax have no identity, a take of index 0, a reshape with -1 of nothing,
a split into 0 pieces) used to reach the user as the node's error."""
from __future__ import annotations

import warnings

import numpy as np
import onnx
import pytest

from kernel_oracle import check_kernel, one_node_model, reference, run_kernel

F4 = np.float32


@pytest.mark.parametrize("op, shape, opset, attrs", [
    ("Softmax", (2, 0), 13, {}),
    ("LogSoftmax", (0, 3), 13, {"axis": 0}),
    ("Hardmax", (2, 0), 13, {}),
    ("Softmax", (2, 0, 3), 11, {"axis": 1}),   # over the flattened tail
    ("Hardmax", (0, 3), 1, {"axis": 0}),
    ("LogSoftmax", (0, 3), 11, {"axis": 1}),   # an empty batch, a full row
])
def test_a_normalizer_of_nothing_is_empty(op, shape, opset, attrs):
    check_kernel(op, [np.zeros(shape, F4)], opset, rtol=0, atol=0, **attrs)


@pytest.mark.parametrize("op, shape, axis, attrs", [
    ("CumSum", (0,), 0, {"exclusive": 1}),
    ("CumProd", (2, 0), 1, {"exclusive": 1, "reverse": 1}),
    ("CumSum", (0, 3), 1, {"exclusive": 1}),   # the axis is not the empty one
])
def test_an_exclusive_running_sum_of_nothing_is_empty(op, shape, axis, attrs):
    check_kernel(op, [np.zeros(shape, F4), np.array(axis, np.int64)], 26, rtol=0, atol=0,
                 **attrs)


@pytest.mark.parametrize("shape", [(0, 3, 4, 4), (2, 3, 0, 4)])
def test_lrn_of_an_empty_batch_or_map_is_empty(shape):
    check_kernel("LRN", [np.zeros(shape, F4)], 13, rtol=0, atol=0, size=3)


def test_lrn_of_no_channels_is_empty():
    """The reference evaluator itself fails here (it indexes channel 0): the result is x's
    empty shape, as for any elementwise op of x."""
    (y,) = run_kernel("LRN", [np.zeros((1, 0, 4, 4), F4)], 13, size=3)
    assert (y.shape, y.dtype) == ((1, 0, 4, 4), F4)


@pytest.mark.parametrize("shape", [(0, 1, 5, 5), (1, 0, 5, 5)])
def test_maxpool_with_indices_of_an_empty_batch_or_no_channels(shape):
    x = np.zeros(shape, F4)
    expected = reference("MaxPool", [x], 12, 2, kernel_shape=[2, 2])
    check_kernel("MaxPool", [x], 12, expected, rtol=0, atol=0, kernel_shape=[2, 2],
                 num_outputs=2)


@pytest.mark.parametrize("keepdims", [0, 1])
def test_split_to_sequence_of_an_empty_axis_is_no_pieces(keepdims):
    x = np.zeros((0, 3), F4)
    (expected,) = reference("SplitToSequence", [x], 13, keepdims=keepdims)
    (got,) = run_kernel("SplitToSequence", [x], 13, keepdims=keepdims)
    assert got == expected == []


def test_the_mean_of_an_empty_map_is_nan():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)   # numpy's, which the CLI filters
        check_kernel("GlobalAveragePool", [np.zeros((1, 2, 0, 3), F4)], 13, rtol=0, atol=0)


@pytest.mark.parametrize("mode", ["half_pixel_symmetric", "half_pixel", "align_corners"])
def test_resize_of_an_empty_map_is_empty(mode):
    x = np.zeros((1, 1, 0, 4), F4)
    scales = np.array([1, 1, 2, 0.5], F4)
    check_kernel("Resize", [x, None, scales], 19, rtol=0, atol=0, mode="linear",
                 coordinate_transformation_mode=mode)


@pytest.mark.parametrize("with_past", [False, True])
def test_a_causal_conv_call_with_no_new_steps_keeps_its_state(with_past):
    """No output steps, and the present state is the past one (zeros without one)."""
    rng = np.random.default_rng(0)
    inputs = [np.zeros((2, 4, 0), F4), rng.standard_normal((4, 1, 4)).astype(F4),
              rng.standard_normal(4).astype(F4),
              rng.standard_normal((2, 4, 3)).astype(F4) if with_past else None]
    expected = reference("CausalConvWithState", inputs, 27, 2, activation="silu")
    check_kernel("CausalConvWithState", inputs, 27, expected, rtol=0, atol=0,
                 activation="silu")


@pytest.mark.parametrize("mode", ["linear", "cubic"])
def test_grid_sample_of_an_empty_image_with_zero_padding_is_zeros(mode):
    grid = np.random.default_rng(0).uniform(-1, 1, (1, 2, 3, 2)).astype(F4)
    check_kernel("GridSample", [np.zeros((1, 1, 0, 4), F4), grid], 20, rtol=0, atol=0,
                 mode=mode)


@pytest.mark.parametrize("padding_mode", ["border", "reflection"])
def test_grid_sample_of_an_empty_image_has_no_pixel_to_pad_with(padding_mode):
    """The reference evaluator fails here too (an index into nothing, an infinity)."""
    grid = np.zeros((1, 2, 3, 2), F4)
    with pytest.raises(ValueError, match=f"empty .0x4.: {padding_mode} padding has no pixel"):
        run_kernel("GridSample", [np.zeros((1, 1, 0, 4), F4), grid], 20,
                   padding_mode=padding_mode)


def test_an_average_pool_of_an_empty_map_narrower_than_its_window_is_empty():
    # ONNX's formula gives no window (ceil(-3 / 2) + 1)
    check_kernel("AveragePool", [np.zeros((1, 3, 0, 5), F4)], 18, rtol=0, atol=0,
                 kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1)


def test_a_max_pool_of_an_empty_map_narrower_than_its_window_is_what_onnx_infers():
    """Here ONNX's formula gives a negative count of windows along the empty axis (-3 // 2
    + 1): ONNX's shape inference takes it as none, as our InferShape does; the reference
    evaluator fails (it allocates the negative count)."""
    x, attrs = np.zeros((1, 3, 0, 5), F4), {"kernel_shape": [3, 3], "strides": [2, 2]}
    model, _ = one_node_model("MaxPool", [x], 18, **attrs)
    inferred = onnx.shape_inference.infer_shapes(model, strict_mode=True).graph.output[0]
    dims = [d.dim_value for d in inferred.type.tensor_type.shape.dim]
    (y,) = run_kernel("MaxPool", [x], 18, **attrs)
    assert dims == [1, 3, 0, 2] and (y.shape, y.dtype) == ((1, 3, 0, 2), F4)
