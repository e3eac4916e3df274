"""Tensor-manipulation kernels against onnx's ReferenceEvaluator on one-node models, in both the
attr form (Reshape-1, Split-2, Squeeze-1/11, Slice-1, Pad-2) and the input form of each op.
Where the reference evaluator refuses (Reshape-1, Concat-1's default axis) or cannot follow the
spec (negative pads), onnxruntime or a hand-derived value is the oracle, as noted per test."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes, broadcastable_shapes

from kernel_oracle import check_kernel, derandomized, onnxruntime, reference, run_kernel
from npu_emu.op_impl import get_kernel

INT64_MAX, INT64_MIN = np.iinfo(np.int64).max, np.iinfo(np.int64).min


def check(op: str, inputs: list, opset: int, expected: list | None = None, **attrs) -> None:
    """The kernel of ``op`` at ``opset`` gives exactly ``expected`` (default: the reference's
    outputs). ``num_outputs`` in ``attrs`` sizes the node's outputs before opset 18, as callers
    of Split do."""
    if expected is None:
        n_outputs = attrs.get("num_outputs", 1)
        model_attrs = attrs if opset >= 18 else {k: v for k, v in attrs.items()
                                                 if k != "num_outputs"}
        expected = reference(op, inputs, opset, n_outputs, **model_attrs)
    check_kernel(op, inputs, opset, expected, rtol=0, atol=0, **attrs)


def ints(*values: int) -> np.ndarray:
    return np.array(values, np.int64)


def arange(*shape: int, dtype=np.float32) -> np.ndarray:
    return np.arange(np.prod(shape, dtype=int), dtype=dtype).reshape(shape)


def opsets_and_axes(opsets: list[int], cases: list) -> list[tuple]:
    """(opset, axis or axes) pairs, without negative axes before opset 11 allowed them."""
    return [(o, a) for o in opsets for a in cases if o >= 11 or a is None or np.min(a) >= 0]


# --- Reshape, Flatten, Transpose ------------------------------------------------------------

RESHAPES = [(2, 12), (0, -1), (-1,), (4, 0, 2), (2, 0, 0), (24, 1), (1, -1, 4)]


@pytest.mark.parametrize("shape", RESHAPES)
def test_reshape_1(shape: tuple) -> None:
    # The reference evaluator has no Reshape-1 (shape attr); onnxruntime does.
    x = arange(2, 3, 4)
    check("Reshape", [x], 1, onnxruntime("Reshape", [x], 1, shape=list(shape)), shape=list(shape))


@pytest.mark.parametrize("opset", [5, 13, 14])
@pytest.mark.parametrize("shape", RESHAPES)
def test_reshape(shape: tuple, opset: int) -> None:
    check("Reshape", [arange(2, 3, 4), ints(*shape)], opset)


@pytest.mark.parametrize("shape", [(0, 3), (3, 0), (1, 0, 3)])
def test_reshape_allowzero(shape: tuple) -> None:
    # allowzero: a 0 is a zero-length dim, not "copy the input's"
    check("Reshape", [np.zeros((3, 0), np.float32), ints(*shape)], 14, allowzero=1)


def test_reshape_allowzero_leaves_minus_one_undetermined() -> None:
    with pytest.raises(ValueError):
        get_kernel("Reshape", 14)(np.zeros((0, 3), np.float32), ints(0, -1), allowzero=1)


@pytest.mark.parametrize("opset,axis", opsets_and_axes([1, 9, 11, 13], [None, 0, 1, 2, 3, -1, -3]))
def test_flatten(opset: int, axis: int | None) -> None:
    check("Flatten", [arange(2, 3, 4)], opset, **({} if axis is None else {"axis": axis}))


@derandomized(max_examples=30)
@given(shape=array_shapes(min_dims=1, max_dims=5, max_side=3), data=st.data())
def test_transpose(shape: tuple, data) -> None:
    perm = data.draw(st.none() | st.permutations(range(len(shape))))
    check("Transpose", [arange(*shape)], data.draw(st.sampled_from([1, 13])),
          **({} if perm is None else {"perm": list(perm)}))


# --- Concat, Split --------------------------------------------------------------------------

@pytest.mark.parametrize("opset,axis", opsets_and_axes([4, 11, 13], [0, 1, 2, -1, -3]))
def test_concat(opset: int, axis: int) -> None:
    shapes = [[2, 3, 4] for _ in range(3)]
    for s, n in zip(shapes, [1, 2, 3]):
        s[axis] = n
    check("Concat", [arange(*s) for s in shapes], opset, axis=axis)


def test_concat_1_default_axis() -> None:
    # Both oracles refuse Concat-1 without `axis`; its documented default is 1.
    a, b = arange(2, 3), arange(2, 1)
    check("Concat", [a, b], 1, [np.concatenate([a, b], axis=1)])


@pytest.mark.parametrize("opset", [2, 11])
@pytest.mark.parametrize("split,axis", [([2, 1, 3], 1), ([6], 1), ([1, 1], 0), ([3, 1], -1)])
def test_split_attr(split: list, axis: int, opset: int) -> None:
    check("Split", [arange(2, 6, 4)], opset, split=split, axis=axis, num_outputs=len(split))


@pytest.mark.parametrize("opset", [2, 13])
@pytest.mark.parametrize("n,axis", [(2, 0), (3, 1), (6, 1), (1, 2), (2, -1)])
def test_split_equal(n: int, axis: int, opset: int) -> None:
    check("Split", [arange(2, 6, 4)], opset, axis=axis, num_outputs=n)


@pytest.mark.parametrize("opset", [13, 18])
@pytest.mark.parametrize("split,axis", [([2, 1, 3], 1), ([4], -1), ([0, 2], 0)])
def test_split_input(split: list, axis: int, opset: int) -> None:
    check("Split", [arange(2, 6, 4), ints(*split)], opset, axis=axis, num_outputs=len(split))


@pytest.mark.parametrize("n,size", [(2, 6), (4, 6), (3, 7), (3, 4)])
def test_split_18_uneven(n: int, size: int) -> None:
    # ceil-sized chunks, the last one smaller: 7 into 3 -> 3, 3, 1
    check("Split", [arange(2, size)], 18, axis=1, num_outputs=n)


def test_split_needs_a_count_that_fits() -> None:
    with pytest.raises(ValueError):
        get_kernel("Split", 13)(arange(4))
    with pytest.raises(ValueError):
        get_kernel("Split", 18)(arange(7), num_outputs=5)


# --- Squeeze, Unsqueeze ---------------------------------------------------------------------

def check_axes(op: str, x: np.ndarray, opset: int, axes: list | None,
               expected: list | None = None) -> None:
    """Check ``op`` with ``axes`` as the attr (before opset 13) or as the input (13+)."""
    if axes is None:
        check(op, [x], opset, expected)
    elif opset < 13:
        check(op, [x], opset, expected, axes=axes)
    else:
        check(op, [x, ints(*axes)], opset, expected)


@pytest.mark.parametrize("opset,axes", opsets_and_axes([1, 11, 13],
                                                       [None, [0], [2, 4], [-1], [2, -1]]))
def test_squeeze(opset: int, axes: list | None) -> None:
    check_axes("Squeeze", arange(1, 3, 1, 4, 1), opset, axes)


@pytest.mark.parametrize("opset", [11, 13])
def test_squeeze_negative_axis_first(opset: int) -> None:
    # Hand-derived: the reference's Squeeze-11 drops axes one by one, leaving -5 out of range.
    x = arange(1, 3, 1, 4, 1)
    check_axes("Squeeze", x, opset, [-5, 2], [x.reshape(3, 4, 1)])


def test_squeeze_rejects_non_unit_dim() -> None:
    with pytest.raises(ValueError):
        get_kernel("Squeeze", 13)(arange(1, 3), ints(1))


@pytest.mark.parametrize("opset,axes", opsets_and_axes(
    [1, 11, 13], [[0], [3], [0, 4], [-1], [-1, 0], [1, -2]]))
def test_unsqueeze(opset: int, axes: list) -> None:
    # negative axes count from the end of the output, not the input
    check_axes("Unsqueeze", arange(2, 3, 4), opset, axes)


@pytest.mark.parametrize("axes, said", [
    ([0, 0], "name one axis of the output twice"),
    ([1, -3], "name one axis of the output twice"),   # both axis 1 of the rank-4 output
    ([5], "axis 5 is out of range for a 4-d output"),
    ([-6], "axis -6 is out of range for a 4-d output"),
])
def test_unsqueeze_refuses_a_repeated_or_outside_axis(axes: list, said: str) -> None:
    with pytest.raises(ValueError, match=said):
        get_kernel("Unsqueeze", 13)(arange(2, 3) if len(axes) == 2 else arange(2, 3, 4),
                                    ints(*axes))


# --- Gather, Slice --------------------------------------------------------------------------

@pytest.mark.parametrize("indices", [np.array(2), ints(0, -1, 1),
                                     np.array([[-3, 2], [2, 0]], np.int32)])
@pytest.mark.parametrize("axis", [None, 0, 1, -1])
@pytest.mark.parametrize("opset", [1, 11, 13])
def test_gather(indices: np.ndarray, axis: int | None, opset: int) -> None:
    check("Gather", [arange(3, 4, 3), indices], opset, **({} if axis is None else {"axis": axis}))


@pytest.mark.parametrize("starts,ends,axes", [
    ([0], [1], [0]), ([1, 0], [3, 2], None), ([-3, 1], [INT64_MAX, -1], [2, 0]),
    ([0, 0, 0], [10, 10, 10], None), ([2], [1], [1])])
def test_slice_1(starts: list, ends: list, axes: list | None) -> None:
    check("Slice", [arange(3, 4, 5)], 1, starts=starts, ends=ends,
          **({} if axes is None else {"axes": axes}))


@derandomized(max_examples=150)
@given(shape=array_shapes(min_dims=1, max_dims=4, min_side=1, max_side=5), data=st.data())
def test_slice(shape: tuple, data) -> None:
    n = data.draw(st.integers(1, len(shape)))
    axes = data.draw(st.permutations(range(len(shape))))[:n]
    omit_axes = axes == list(range(n)) and data.draw(st.booleans())  # the default axes
    axes = [a - len(shape) if data.draw(st.booleans()) else a for a in axes]
    bound = st.integers(-7, 7) | st.sampled_from([INT64_MAX, INT64_MIN])
    starts, ends = (data.draw(st.lists(bound, min_size=n, max_size=n)) for _ in range(2))
    steps = data.draw(st.none() | st.lists(st.integers(-3, 3).filter(bool), min_size=n,
                                           max_size=n))
    inputs = [arange(*shape), ints(*starts), ints(*ends), None if omit_axes else ints(*axes),
              None if steps is None else ints(*steps)]
    check("Slice", inputs, data.draw(st.sampled_from([10, 13])))


def test_slice_clamps_like_onnx() -> None:
    # Hand-derived: with a negative step, INT64_MIN as end means "through index 0".
    x = np.arange(5, dtype=np.float32)
    check("Slice", [x, ints(INT64_MAX), ints(INT64_MIN), ints(0), ints(-1)], 13, [x[::-1]])
    check("Slice", [x, ints(-2), ints(-100), ints(0), ints(-2)], 13, [x[[3, 1]]])
    check("Slice", [x, ints(10), ints(2), ints(0), ints(1)], 13, [x[:0]])


# --- Pad ------------------------------------------------------------------------------------

PADS = [[0, 0, 0, 0], [1, 2, 0, 3], [0, 1, 2, 0], [2, 2, 1, 1]]


@pytest.mark.parametrize("mode,value", [(None, None), ("constant", 1.5), ("reflect", None),
                                        ("edge", None)])
@pytest.mark.parametrize("pads", PADS)
def test_pad_2(pads: list, mode: str | None, value: float | None) -> None:
    attrs = {k: v for k, v in {"mode": mode, "value": value}.items() if v is not None}
    check("Pad", [arange(3, 4)], 2, pads=pads, **attrs)


@pytest.mark.parametrize("opset,mode", [(o, m) for o in [11, 13, 19]
                                        for m in [None, "constant", "reflect", "edge", "wrap"]
                                        if m != "wrap" or o >= 19])  # wrap came with 19
@pytest.mark.parametrize("pads", PADS)
def test_pad(pads: list, opset: int, mode: str | None) -> None:
    x = arange(3, 4, dtype=np.int32)
    value = np.array(7, np.int32) if mode in (None, "constant") else None
    check("Pad", [x, ints(*pads), value], opset, **({} if mode is None else {"mode": mode}))


@pytest.mark.parametrize("axes,pads", [([1], [1, 2]), ([-1, 0], [0, 1, 2, 1]), ([0], [2, 0])])
def test_pad_18_axes(axes: list, pads: list) -> None:
    check("Pad", [arange(3, 4), ints(*pads), np.array(-1, np.float32), ints(*axes)], 18)


@pytest.mark.parametrize("mode", ["constant", "reflect", "edge"])
@pytest.mark.parametrize("pads", [[-1, 0, 0, -2], [-1, 2, 1, -1], [0, -2, 0, 1]])
def test_pad_negative_crops(pads: list, mode: str) -> None:
    # The reference evaluator hands negative pads to np.pad, which refuses; onnxruntime crops.
    inputs = [arange(4, 5), ints(*pads)]
    check("Pad", inputs, 13, onnxruntime("Pad", inputs, 13, mode=mode), mode=mode)


# --- Tile, Expand ---------------------------------------------------------------------------

@pytest.mark.parametrize("repeats", [(1, 1, 1), (2, 1, 3), (1, 0, 2)])
@pytest.mark.parametrize("opset", [6, 13])
def test_tile(repeats: tuple, opset: int) -> None:
    check("Tile", [arange(2, 3, 1), ints(*repeats)], opset)


@derandomized(max_examples=50)
@given(shape=array_shapes(min_dims=0, max_dims=4, min_side=1, max_side=3), data=st.data())
def test_expand(shape: tuple, data) -> None:
    # bidirectional: the target shape may hold 1s where the input is wider, and fewer dims
    target = data.draw(broadcastable_shapes(shape, min_side=1, max_side=3))
    check("Expand", [arange(*shape), ints(*target)], data.draw(st.sampled_from([8, 13])))


# --- Shape, Size, ConstantOfShape, Constant, Range ------------------------------------------

@pytest.mark.parametrize("start,end", [(None, None), (1, None), (-2, None), (0, -1), (1, 2),
                                       (-10, 10), (3, 1)])
def test_shape(start: int | None, end: int | None) -> None:
    x = arange(2, 3, 4, 5)
    check("Shape", [x], 1 if start is end is None else 15,
          **{k: v for k, v in {"start": start, "end": end}.items() if v is not None})


@pytest.mark.parametrize("shape", [(), (0,), (2, 3, 4)])
def test_size(shape: tuple) -> None:
    check("Size", [np.zeros(shape, np.float16)], 13)


@pytest.mark.parametrize("value", [None, np.array([7], np.int64), np.array([0.5], np.float16),
                                   np.array([True])])
@pytest.mark.parametrize("shape", [(), (0,), (2, 3)])
def test_constant_of_shape(shape: tuple, value: np.ndarray | None) -> None:
    check("ConstantOfShape", [ints(*shape)], 9, **({} if value is None else {"value": value}))


@pytest.mark.parametrize("opset,attrs", [
    (1, {"value": arange(2, 3)}), (9, {"value": np.array(5, np.int32)}),
    (12, {"value_float": 2.5}), (12, {"value_floats": [1.0, 2.5]}), (12, {"value_int": -3}),
    (13, {"value_ints": [4, 5, 6]})])
def test_constant(opset: int, attrs: dict) -> None:
    check("Constant", [], opset, **attrs)


@pytest.mark.parametrize("start,limit,delta,dtype", [
    (0, 5, 1, np.int64), (10, 4, -3, np.int32), (1, 1, 1, np.int64), (5, 1, 1, np.int32),
    (0.0, 1.0, 0.3, np.float32), (1.0, -2.0, -0.5, np.float64), (2.5, 2.5, 1.0, np.float32)])
def test_range(start: float, limit: float, delta: float, dtype: type) -> None:
    check("Range", [np.array(v, dtype) for v in (start, limit, delta)], 11)


@pytest.mark.parametrize("x", [np.array(1.5, np.float32), np.array(0.0, np.float32),
                               np.array([[0, 2], [3, 0]], np.float32)], ids=["1", "0", "2x2"])
def test_non_zero_of_a_scalar_is_one_axis_as_onnxruntime_has_it(x):
    """numpy's nonzero takes no 0-d array; onnxruntime reads a scalar as one element of one
    axis ([1, 0] or [1, 1]). The kernel had reshaped to [0, -1] and met numpy's error."""
    (want,) = onnxruntime("NonZero", [x], 13)
    (got,) = run_kernel("NonZero", [x], 13)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)
