"""Input *values* no output follows from are refused, naming the input, where numpy's refusal
named none: an index past its axis (numpy's IndexError, which the device reported as a kernel's
own fault, its class and all), a scale, depth or bound that is not finite ("cannot convert float
NaN to integer"), a shape operand with a negative value ("negative dimensions are not allowed",
or a -1 read as an unknown dim), and a NaN sampling position that indexed nowhere. The kernels'
words for CASES are checked in test_input_contracts.py; here, that onnxruntime refuses them too
(DeformConv aside: onnxruntime samples a NaN position as outside the image, and so do we now),
and that InferShape refuses the shape operands, at run time and at parse. Found by running the
node suite's cases with their index, shape and scale inputs set to -1, 0, 2^31 - 1, +-2^62,
NaN and +-inf."""
from __future__ import annotations

import re

import numpy as np
import pytest
from onnx import numpy_helper

from ge_core.executor import ExecutionError, HostExecutor
from ge_core.parser import ParseError, parse_onnx
from kernel_oracle import one_node_model, onnxruntime, run_kernel

F4, I8 = np.float32, np.int64


def _f(*shape: int) -> np.ndarray:
    return np.random.default_rng(sum(shape)).random(shape, F4)


NAN, INF = float("nan"), float("inf")
# one tree: node 0 splits feature 0 at 0.5 into leaves 0 and 1, both weights for target 0
TREE = dict(nodes_featureids=[0], nodes_splits=np.array([0.5], F4),
            nodes_modes=np.array([0], np.uint8), nodes_truenodeids=[0], nodes_trueleafs=[1],
            nodes_falsenodeids=[1], nodes_falseleafs=[1], leaf_targetids=[0, 0],
            leaf_weights=np.array([1.0, 2.0], F4), tree_roots=[0], n_targets=1)

CASES = [   # (op, opset, inputs, attrs, what the kernel says)
    ("Gather", 13, [_f(5, 3), np.array([0, 5], I8)], {},
     "indices hold 5, outside [-5, 4] of axis 0 of data [5, 3]"),
    ("Gather", 13, [_f(5, 3), np.array([[-4, -1]], I8)], dict(axis=1),
     "indices hold -4, outside [-3, 2] of axis 1 of data [5, 3]"),
    ("GatherElements", 13, [_f(3, 3), np.array([[0, 1, 2], [3, 0, 0]], I8)], {},
     "indices hold 3, outside [-3, 2] of axis 0 of data [3, 3]"),
    ("GatherElements", 13, [_f(2, 3), np.zeros((3, 1), I8)], dict(axis=1),
     "indices [3, 1] are larger than data [2, 3] off axis 1"),
    ("ScatterElements", 18, [_f(3, 5), np.array([[1, 2147483647]], I8), _f(1, 2)],
     dict(axis=1), "indices hold 2147483647, outside [-5, 4] of axis 1 of data [3, 5]"),
    ("GatherND", 13, [_f(2, 3), np.array([[1, 3]], I8)], {},
     "indices hold 3, outside [-3, 2] of axis 1 of data [2, 3]"),
    ("GatherND", 13, [_f(2, 2, 3), np.array([[1], [-3]], I8)], dict(batch_dims=1),
     "indices hold -3, outside [-2, 1] of axis 1 of data [2, 2, 3]"),
    ("ScatterND", 18, [_f(4, 2), np.array([[4]], I8), _f(1, 2)], {},
     "indices hold 4, outside [-4, 3] of axis 0 of data [4, 2]"),
    ("TensorScatter", 24, [_f(2, 1, 4, 3), _f(2, 1, 2, 3), np.array([1, 3], I8)], {},
     "write_indices [1, 3] and the update's 2 rows reach outside the cache's 4 on axis 2"),
    ("RotaryEmbedding", 23, [_f(1, 1, 2, 4), _f(8, 2), _f(8, 2), np.array([[0, 8]], I8)], {},
     "position_ids hold 8, outside [-8, 7] of cos_cache [8, 2]'s positions"),
    ("RoiAlign", 16, [_f(1, 1, 10, 10), np.array([[0, 0, 4, 4], [NAN, 0, 9, 9]], F4),
                      np.zeros(2, I8)], {}, "ROI 1 has a corner that is not finite"),
    ("Resize", 19, [_f(1, 1, 4, 4), None, np.array([1, 1, NAN, 1], F4)], {},
     "scales [1.0, 1.0, nan, 1.0] are not all finite and above 0"),
    ("Resize", 19, [_f(1, 1, 4, 4), None, np.array([1, 1, 0, 1], F4)], {},
     "scales [1.0, 1.0, 0.0, 1.0] are not all finite and above 0"),
    ("Resize", 19, [_f(1, 1, 4, 4), None, None, np.array([1, 1, -1, 2], I8)], {},
     "sizes [1, 1, -1, 2] cannot resize axis 2 of 4 to -1"),
    ("Range", 11, [np.array(0, F4), np.array(INF, F4), np.array(1, F4)], {},
     "start 0.0, limit inf and delta 1.0 are not all finite"),
    ("Range", 11, [np.array(0, F4), np.array(5, F4), np.array(0, F4)], {}, "Range with delta 0"),
    ("OneHot", 11, [np.array([0, 1], I8), np.array([NAN], F4), np.array([0, 1], F4)], {},
     "depth nan is no count of classes"),
    # numpy read -1 as the last name, 99 was an IndexError, as was a target past n_targets
    ("ai.onnx.ml::TreeEnsemble", 5, [_f(2, 2)], dict(TREE, aggregate_function=-1),
     "aggregate_function -1 is not one of 0..3 (AVERAGE, SUM, MIN, MAX)"),
    ("ai.onnx.ml::TreeEnsemble", 5, [_f(2, 2)], dict(TREE, post_transform=99),
     "post_transform 99 is not one of 0..4 (NONE, SOFTMAX, LOGISTIC, SOFTMAX_ZERO, PROBIT)"),
    ("ai.onnx.ml::TreeEnsemble", 5, [_f(2, 2)], dict(TREE, leaf_targetids=[0, 1]),
     "a leaf's target id 1 is outside the 1 target(s)"),
    ("ai.onnx.ml::TreeEnsemble", 5, [_f(2, 2)], dict(TREE, nodes_featureids=[2]),
     "a branch reads feature 2, outside X's 2"),
    ("MelWeightMatrix", 17, [np.array(-8, I8), np.array(64, I8), np.array(8000, I8),
                             np.array(0, F4), np.array(4000, F4)], {},
     "num_mel_bins -8 and dft_length 64 are not both positive"),
    ("MelWeightMatrix", 17, [np.array(8, I8), np.array(64, I8), np.array(8000, I8),
                             np.array(-100, F4), np.array(4000, F4)], {},
     "lower_edge_hertz -100.0 puts a filter corner at bin -1.0, outside the 33 bins of "
     "dft_length 64 at sample_rate 8000"),
    ("MelWeightMatrix", 17, [np.array(8, I8), np.array(64, I8), np.array(8000, I8),
                             np.array(0, F4), np.array(9000, F4)], {},
     "upper_edge_hertz 9000.0 puts a filter corner at bin 54.0, outside the 33 bins of "
     "dft_length 64 at sample_rate 8000"),
]


# test_input_contracts.py checks that the kernels refuse CASES in these words; here, that
# onnxruntime refuses them too (it has no TensorScatter at opset 24, and reads a NaN depth as
# some count)
ORT_REFUSES = [c for c in CASES if c[0] not in ("TensorScatter", "OneHot")]


@pytest.mark.parametrize("op, opset, inputs, attrs, said", ORT_REFUSES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(ORT_REFUSES)])
def test_onnxruntime_refuses_them_too(op, opset, inputs, attrs, said):
    with pytest.raises(Exception) as refused:   # at run time, naming its node's op
        onnxruntime(op, inputs, opset, **attrs)
    assert op in str(refused.value)


@pytest.mark.parametrize("op, opset, args, attrs", [
    # numpy's arange refused (1e30, 5, 2) for its size
    ("Range", 11, [np.array(1e30, F4), np.array(5, F4), np.array(2, F4)], {}),
    # numpy refuses an integer to a negative integer power
    ("Pow", 15, [np.array([2, 3, -1, 1, 0], np.int32), np.array([-1, 2, -1, -3, -1], np.int32)],
     {}),
    # Python's 1 / 0 raised for the root of p 0
    ("LpPool", 18, [_f(1, 1, 4, 4)], dict(kernel_shape=[2, 2], p=0)),
    ("GlobalLpPool", 2, [_f(1, 1, 4, 4)], dict(p=0)),
    # numpy's IndexError for a True past the axis: onnxruntime cuts the condition to the axis
    ("Compress", 11, [_f(3, 2), np.array([0, 1, 1], bool)], dict(axis=1)),
    # NaN sampling positions cast to INT64_MIN, an IndexError
    ("RoiAlign", 16, [_f(1, 2, 10, 10), np.array([[0, 0, 4, 4], [1, 2, 8, 9]], F4),
                      np.zeros(2, I8)], dict(spatial_scale=float("inf"), sampling_ratio=2)),
])
def test_what_numpy_or_python_refused_is_computed_as_onnxruntime_computes_it(op, opset, args,
                                                                             attrs):
    with np.errstate(all="ignore"):
        (got,) = run_kernel(op, args, opset, **attrs)
    (want,) = onnxruntime(op, args, opset, **attrs)
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_a_roi_far_outside_the_image_samples_zeros_as_onnxruntime_does():
    x = _f(1, 2, 10, 10)
    rois = np.array([[1e30, 0, 4, 4], [0, 0, 4, 4]], F4)   # the first one's x1 far out
    args = [x, rois, np.zeros(2, I8)]
    (got,) = run_kernel("RoiAlign", args, 16, sampling_ratio=2)
    np.testing.assert_allclose(got, onnxruntime("RoiAlign", args, 16, sampling_ratio=2)[0],
                               rtol=1e-5, atol=1e-6)


def test_a_nan_sampling_position_reads_as_outside_the_image_as_onnxruntime_reads_it():
    x, w = _f(1, 1, 3, 3), _f(1, 1, 2, 2)
    offset = np.zeros((1, 8, 2, 2), F4)
    offset[0, 0, 0, 0] = NAN   # tap (0, 0)'s row offset at output (0, 0)
    (got,) = run_kernel("DeformConv", [x, w, offset], 19)
    np.testing.assert_allclose(got, onnxruntime("DeformConv", [x, w, offset], 19)[0],
                               rtol=1e-6)
    assert np.isfinite(got).all()


# Where the value is a shape operand, the op's InferShape says why (the host executor asks it
# once the kernel fails; the parser asks it of a Const), where numpy said "negative dimensions
# are not allowed" or a -1 read as an unknown dim.
RULES = [
    ("Tile", 13, [_f(2, 3), np.array([-1, 2], I8)], {}, "repeats [-1, 2] holds a negative value"),
    ("Expand", 13, [_f(3, 1), np.array([-1, 2], I8)], {}, "shape [-1, 2] holds a negative value"),
    ("ConstantOfShape", 9, [np.array([2, -1], I8)], {}, "shape [2, -1] holds a negative value"),
    ("CenterCropPad", 18, [_f(3, 4), np.array([-2, 2], I8)], {},
     "shape [-2, 2] holds a negative value"),
    ("AffineGrid", 20, [_f(1, 2, 3), np.array([1, 1, -4, 4], I8)], {},
     "size [1, 1, -4, 4] holds a negative value"),
    ("OneHot", 11, [np.array([0, 1], I8), np.array([-3], I8), np.array([0, 1], F4)], {},
     "depth [-3] holds a negative value"),
    ("Col2Im", 18, [_f(1, 5, 15), np.array([5, 5], I8), np.array([0, 5], I8)], {},
     "block_shape [0, 5] holds a block dim below 1"),
    ("STFT", 17, [_f(1, 16, 1), np.array(0, I8), None, np.array(4, I8)], {},
     "frame_step 0 is not positive"),
    ("STFT", 17, [_f(1, 16, 1), np.array(2, I8), None, np.array(32, I8)], {},
     "frame_length 32 is past the signal's 16 samples"),
    ("DFT", 20, [_f(1, 8, 2), np.array(0, I8)], {}, "dft_length 0 is not positive"),
    # the kernel cropped to an empty axis (onnxruntime refuses), InferShape read an unknown dim
    ("Pad", 18, [_f(2, 3), np.array([0, -2, 0, -2], I8)], {},
     "pads [0, -2, 0, -2] leave axis 1 of 3 at -1"),
    # numpy read any negative dim as the one it infers; InferShape took [-2, -3] for 6 elements
    ("Reshape", 13, [_f(2, 3), np.array([-2, -3], I8)], {}, "shape [-2, -3] holds -3, below -1"),
    # no element, but numpy makes no array of the shape ("array is too big")
    ("Reshape", 14, [np.zeros((0, 3), F4), np.array([0, 1 << 62], I8)], {},
     "output 0 would be f32[0,4611686018427387904]: more bytes than an int64 counts"),
    ("DFT", 20, [_f(1, 8, 2), None, np.array(0, I8)], dict(inverse=1, onesided=1),
     "the DFT along axis 0 (1 long) would be 0 long"),   # 2 * (1 - 1) long
]
# the input a case sets, where it is not the last
OPERAND = {"OneHot": "in1", "frame_step 0 is not positive": "in1"}


@pytest.mark.parametrize("op, opset, inputs, attrs, said", RULES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(RULES)])
def test_a_shape_operand_no_output_follows_from_is_refused_by_its_infershape(
        op, opset, inputs, attrs, said):
    model, feeds = one_node_model(op, inputs, opset, **attrs)
    with pytest.raises(ExecutionError, match=f"^node {op}_0 \\({op}\\): {re.escape(said)}$"):
        HostExecutor(parse_onnx(model)).run(feeds)
    operand = OPERAND.get(op, OPERAND.get(said, model.graph.input[-1].name))
    model.graph.initializer.append(numpy_helper.from_array(feeds[operand], operand))
    model.graph.input.remove(next(i for i in model.graph.input if i.name == operand))
    with pytest.raises(ParseError, match=f"node '{op}_0' \\(op {op}\\): {re.escape(said)}$"):
        parse_onnx(model)   # a Const operand: refused where the parser infers the graph


@pytest.mark.parametrize("inputs, said", [
    ([np.array(0, F4), np.array(INF, F4), np.array(1, F4)],
     "start 0.0, limit inf and delta 1.0 are not all finite"),
    ([np.array(2**62, I8), np.array(-2**62, I8), np.array(-1, I8)],
     "start 4611686018427387904, limit -4611686018427387904 and delta -1 make "
     "9223372036854775808 elements, past int64"),
    # numpy's "can only convert an array of size 1 to a Python scalar"
    ([np.array([0, 1], I8), np.array(5, I8), np.array(1, I8)],
     "start, limit and delta of shapes [[2], [], []] are not all scalars"),
])
def test_a_range_of_constants_with_no_length_is_refused_at_parse(inputs, said):
    # InferShape met OverflowError (math.ceil of inf) and reported its own failure
    model, _ = one_node_model("Range", inputs, 11)
    for name, value in zip(("in0", "in1", "in2"), inputs):
        model.graph.initializer.append(numpy_helper.from_array(value, name))
    del model.graph.input[:]
    with pytest.raises(ParseError, match=f"node 'Range_0' \\(op Range\\): {re.escape(said)}$"):
        parse_onnx(model)


@pytest.mark.parametrize("op, opset, inputs, said", [
    ("Tile", 13, [_f(2, 3), np.array([1 << 62, 1], I8)],
     "output 0 would be [9223372036854775808,3]: a dim past int64"),
    ("ConstantOfShape", 9, [np.array([1 << 62], I8)],
     "output 0 would be f32[4611686018427387904]: more bytes than an int64 counts"),
    ("Resize", 19, [_f(1, 1, 4, 4), None, np.array([1, 1, 1, 1e20], F4)],   # a float operand
     "output 0 would be [1,1,4,400000008016350937088]: a dim past int64"),
])
def test_an_output_no_memory_holds_is_refused_in_the_ops_terms_on_the_host(op, opset, inputs,
                                                                         said):
    # numpy had said "array is too big; `arr.size * arr.dtype.itemsize` is larger than the
    # maximum possible size" or "Maximum allowed size exceeded"
    model, feeds = one_node_model(op, inputs, opset)
    with pytest.raises(ExecutionError, match=f"^node {op}_0 \\({op}\\): {re.escape(said)}$"):
        HostExecutor(parse_onnx(model)).run(feeds)


@pytest.mark.parametrize("via", ["host", "device", "device-hybrid", "device-v2"])
def test_an_empty_output_numpy_holds_no_array_of_is_refused_on_every_path(via):
    # [0, 2^62] holds no element, but numpy makes no array of it ("array is too big"): the
    # device paths failed so, reading the output back (Main/out0/CopyOutput)
    from workbench.conformance.vias import VIAS
    model, feeds = one_node_model("Reshape", [np.zeros((0, 3), F4), np.array([0, 1 << 62], I8)],
                                  14)
    with pytest.raises(Exception) as refused:
        VIAS[via](model, feeds)
    assert str(refused.value).endswith("node Reshape_0 (Reshape): output 0 would be "
                                       "f32[0,4611686018427387904]: more bytes than an int64 "
                                       "counts")


@pytest.mark.parametrize("op, opset, inputs, attrs", [
    ("Bernoulli", 15, [np.full((4, 5), 0.5, F4)], dict(seed=-1.0)),
    ("Dropout", 13, [_f(4, 5), np.array(0.5, F4), np.array(True)], dict(seed=-7)),
])
def test_a_negative_seed_draws_as_onnxruntime_takes_it_where_numpy_refused_it(op, opset, inputs,
                                                                              attrs):
    # numpy's "expected non-negative integer"; onnxruntime draws from any seed (the draws of
    # two implementations never match: the same seed gives the same draws, of 0 or 1)
    first, again = run_kernel(op, inputs, opset, **attrs), run_kernel(op, inputs, opset, **attrs)
    mask = first[0] if op == "Bernoulli" else first[1]
    assert set(np.unique(mask).tolist()) == {0, 1}
    for a, b in zip(first, again):
        np.testing.assert_array_equal(a, b)
    onnxruntime(op, inputs, opset, **attrs)   # which runs it too
