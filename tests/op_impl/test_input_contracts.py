"""Kernels refuse inputs whose shapes disagree with each other, naming them, where they failed
in numpy's words or computed something: RoiAlign gave a row of uninitialised memory for each
ROI without a batch index, GridSample read the one image for a grid of two batches, an LSTM
took a sequence length past X's last step for X's length. The
reference evaluator computes most of these anyway, and onnxruntime refuses them."""
from __future__ import annotations

import re

import numpy as np
import pytest

from kernel_oracle import run_kernel
from test_input_values import CASES as VALUE_CASES

F4, I8 = np.float32, np.int64


def _f(*shape: int) -> np.ndarray:
    return np.random.default_rng(sum(shape)).random(shape, F4)


CASES = [
    ("RoiAlign", 16, [_f(1, 1, 10, 10), _f(3, 4) * 5, np.zeros(1, I8)], {},
     "X [1, 1, 10, 10], rois [3, 4] and batch_indices [1] are not [N, C, H, W], [num_rois, 4] "
     "and [num_rois]"),
    ("RoiAlign", 16, [_f(1, 1, 10, 10), _f(2, 4) * 5, np.array([0, 1])], {},
     "batch_indices [0, 1] are not within the batch of 1"),
    ("GridSample", 20, [_f(1, 1, 6, 6), _f(2, 2, 4, 2) * 2 - 1], dict(mode="nearest"),
     "grid [2, 2, 4, 2] is not [N, *out, 2] for X [1, 1, 6, 6]"),
    ("NonMaxSuppression", 11, [_f(1, 6, 8), _f(1, 1, 6)], {},
     "boxes [1, 6, 8] and scores [1, 1, 6] are not [batch, boxes, 4] and [batch, classes, "
     "boxes]"),
    ("NonMaxSuppression", 11, [_f(1, 6, 4), _f(1, 1, 6), np.array([3], I8),
                               np.array([1.5], F4)], {},
     "iou_threshold 1.5 is not within [0, 1]"),
    ("MaxUnpool", 11, [_f(1, 1, 2, 2), np.zeros((1, 1, 2, 1), I8)], dict(kernel_shape=[2, 2]),
     "I [1, 1, 2, 1] is not X's shape [1, 1, 2, 2]"),
    ("MaxUnpool", 11, [_f(1, 1, 2, 2), np.full((1, 1, 2, 2), 9, I8)], dict(kernel_shape=[2, 2]),
     "an index of I lies outside the 9 elements of the unpooled [1, 1, 3, 3]"),
    ("MaxUnpool", 11, [_f(1, 1, 2, 2), np.zeros((1, 1, 2, 2), I8), np.array([1, 1, 2, 3], I8)],
     dict(kernel_shape=[2, 2]),
     "output_shape [1, 1, 2, 3] cannot hold the unpooled [1, 1, 3, 3]"),
    ("ScatterElements", 18, [_f(3, 3), np.zeros((1, 2), I8), _f(2, 2)], dict(axis=1),
     "updates [2, 2] are not of the indices' shape [1, 2]"),
    ("GatherElements", 13, [_f(3, 3), np.zeros(2, I8)], {},   # numpy broadcast it before
     "indices [2] are not of data's rank ([3, 3])"),
    ("GatherElements", 13, [_f(3, 3), np.zeros((1, 2), I8)], dict(axis=2),   # wrapped to 0
     "axis 2 is out of range for a 2-d input"),
    ("ScatterND", 18, [_f(4, 4), np.zeros((2, 1), I8), _f(1, 4)], {},
     "indices [2, 1] and updates [1, 4] do not address data [4, 4] (updates: indices' shape "
     "but the last, then data's past the first indices.shape[-1] axes)"),
    ("GatherND", 13, [_f(2, 3), np.zeros((1, 3), I8)], {},
     "indices [1, 3] do not address data [2, 3] with batch_dims 0"),
    ("ReverseSequence", 10, [_f(4, 4), np.array([4, 3], I8)], dict(batch_axis=1, time_axis=0),
     "sequence_lens of shape [2] is not one length per batch of 4"),
    ("ReverseSequence", 10, [_f(4, 2), np.array([5, 3], I8)], dict(batch_axis=1, time_axis=0),
     "sequence_lens [5, 3] are not within the 4 steps"),
    ("ReverseSequence", 10, [_f(4, 4), np.array([4, 3, 2, 1], I8)], dict(time_axis=1),
     "batch_axis 1 and time_axis 1 of a 2-d input are not 0 and 1, one each"),
    ("TfIdfVectorizer", 9, [np.array([1, 2, 3], I8)],
     dict(max_gram_length=2, min_gram_length=0, max_skip_count=0, mode="TF",
          ngram_counts=[0, 2], ngram_indexes=[0, 1, 2], pool_int64s=[1, 2, 1, 2]),
     "gram lengths 0..2 (skip 0) are not 1 <= min <= max, with a skip of 0 or more"),
    ("InstanceNormalization", 6, [_f(2, 1, 4, 5), _f(3), _f(3)], {},
     "scale [3] and B [3] are not one per channel of x [2, 1, 4, 5]"),
    ("CausalConvWithState", 25, [_f(2, 4, 8), _f(4, 1, 4), None, _f(1, 4, 3)], {},
     "x [2, 4, 8], weight [4, 1, 4], past_state [1, 4, 3] are not [batch, C, L], [C, 1, k], "
     "[C] and [batch, C, k - 1]"),
    ("LinearAttention", 25, [_f(2, 4, 8), _f(2, 4, 8), _f(2, 4, 8), None, _f(1, 4, 2)],
     dict(q_num_heads=2, kv_num_heads=2, update_rule="gated"),
     "decay of shape [1, 4, 2] is not [batch 2, steps 4, ...]"),
    # X [seq 2, batch 1, input 4], hidden 3: W and R hold 4 gates (12 rows) for LSTM
    ("LSTM", 14, [_f(2, 1, 4), _f(1, 12, 4), _f(1, 12, 3), None, np.array([2, 2], np.int32)],
     dict(hidden_size=3),
     "sequence_lens of shape [2] is not [1] (X [2, 1, 4], 1 direction(s), hidden size 3)"),
    ("LSTM", 14, [_f(2, 1, 4), _f(1, 12, 4), _f(1, 12, 3), None, np.array([3], np.int32)],
     dict(hidden_size=3), "sequence_lens [3] are not within the 2 steps"),
    ("GRU", 14, [_f(2, 1, 4), _f(1, 9, 4), _f(1, 9, 3), None, None, _f(1, 2, 3)],
     dict(hidden_size=3),
     "initial_h of shape [1, 2, 3] is not [1, 1, 3] (X [2, 1, 4], 1 direction(s), hidden size 3)"),
    ("LSTM", 14, [_f(2, 1, 4), _f(1, 12, 4), _f(1, 12, 3), None, None, None, None, _f(1, 6)],
     dict(hidden_size=3),
     "P of shape [1, 6] is not [1, 9] (3 peepholes per hidden unit and direction)"),
    ("RNN", 14, [_f(2, 1, 4), _f(1, 3, 4), _f(1, 3, 1)], dict(hidden_size=3),   # W was named
     "R of shape [1, 3, 1] is not [1, 3, 3] (X [2, 1, 4], 1 direction(s), hidden size 3)"),
    ("RNN", 14, [_f(2, 1, 4), _f(1, 3, 4), _f(1, 3, 3)], dict(hidden_size=3, direction="up"),
     "unknown direction 'up'; known: forward, reverse, bidirectional"),
    # a parameter numpy broadcast both ways: the output grew past X's shape (the device's
    # args table then refused the kernel's output, in the table's words)
    ("LayerNormalization", 17, [_f(1, 4), _f(3, 4)], dict(axis=0),
     "scale of shape [3, 4] does not broadcast to X [1, 4]"),
    ("RMSNormalization", 23, [_f(3, 1), _f(4)], {},
     "scale of shape [4] does not broadcast to X [3, 1]"),
    ("LayerNormalization", 17, [_f(3, 4), _f(4)], dict(axis=2),   # wrapped to axis 0 before
     "axis 2 is out of range for a 2-d input"),
    ("QuantizeLinear", 21, [_f(1, 4), _f(3)], dict(axis=0),
     "scale of shape [3] is not one per element of axis 0 of X [1, 4]"),
    ("DequantizeLinear", 21, [np.zeros((3, 1), np.uint8), _f(3, 2), np.zeros((3, 2), np.uint8)],
     dict(axis=1, block_size=2),
     "x_zero_point of shape [3, 2] is not one per block of 2 along axis 1 of X [3, 1]: [3, 1]"),
    ("ai.onnx.preview.training::Adagrad", 1,
     [np.float32(0.1), np.int64(0), _f(1), _f(2), _f(2)], {},
     "X_1 [1], its gradient and state(s) [[2], [2]] differ in shape"),
    ("ai.onnx.preview.training::Momentum", 1,
     [_f(2), np.int64(0), _f(2), _f(2), _f(2)],
     dict(alpha=0.9, beta=0.1, mode="standard", norm_coefficient=0.0),
     "R [2] and T [] are not scalars"),
    ("Gemm", 13, [_f(2, 3), _f(3, 4), _f(2, 1, 1)], {},
     "C of shape [2, 1, 1] does not broadcast to the output [2, 4]"),
    ("Gemm", 13, [_f(2, 3), _f(3, 4), _f(4, 4)], {},
     "C of shape [4, 4] does not broadcast to the output [2, 4]"),
    # one value per filter or channel, not one for all (numpy had stretched it)
    ("Conv", 11, [_f(1, 2, 4, 4), _f(3, 2, 3, 3), _f(1)], {},
     "bias [1] is not one value per filter ([3])"),
    ("ConvTranspose", 11, [_f(1, 2, 4, 4), _f(2, 3, 3, 3), _f(1)], {},
     "bias [1] is not one value per filter ([3])"),
    ("DeformConv", 19, [_f(1, 2, 4, 4), _f(3, 2, 3, 3), _f(1, 18, 2, 2), _f(1)], {},
     "bias [1] is not one value per filter ([3])"),
    ("BatchNormalization", 15, [_f(1, 3, 4, 4), _f(1), _f(3), _f(3), _f(3)], {},
     "scale [1], B [3], mean [3], var [3] are not one value per channel ([3])"),
    ("QLinearConv", 10, [np.ones((1, 2, 4, 4), np.uint8), F4(0.1), np.uint8(0),
                         np.ones((3, 2, 3, 3), np.uint8), F4(0.1), np.uint8(0), F4(0.1),
                         np.uint8(0), np.ones(1, np.int32)], {},
     "bias [1] is not one value per filter ([3])"),
    ("QLinearConv", 10, [np.ones((1, 2, 4, 4), np.uint8), F4(0.1), np.uint8(0),
                         np.ones((3, 2, 3, 3), np.uint8), np.array([0.1, 0.2], F4), np.uint8(0),
                         F4(0.1), np.uint8(0)], {},
     "w_scale [2] is not one value per filter ([3])"),
    ("ConvInteger", 10, [np.ones((1, 2, 4, 4), np.uint8), np.ones((3, 2, 3, 3), np.uint8),
                         np.array([1, 2], np.uint8)], {},
     "x_zero_point [2] is not one value"),
    ("MatMulInteger", 10, [np.ones((2, 3), np.uint8), np.ones((3, 4), np.uint8),
                           np.ones(5, np.uint8)], {},
     "a_zero_point [5] is not one value, nor one per element of axis -2 of [2, 3]"),
    ("GroupNormalization", 21, [_f(1, 4, 2, 2), _f(4), _f(4)], dict(num_groups=8),
     "num_groups 8 does not divide the 4 channels of X"),
    ("GroupNormalization", 21, [_f(1, 4, 2, 2), _f(8), _f(8)], dict(num_groups=2),
     "scale of shape [8] does not broadcast to the channels [4]"),
    ("GroupNormalization", 18, [_f(1, 4, 2, 2), _f(3), _f(3)], dict(num_groups=2),
     "scale of shape [3] does not broadcast to the groups [2]"),
    # an axis or an order out of range (CumSum had wrapped the axis)
    ("CumSum", 14, [_f(2, 3), np.array(2, I8)], {}, "axis 2 is out of range for a 2-d input"),
    ("LpNormalization", 1, [_f(2, 3)], dict(axis=2), "axis 2 is out of range for a 2-d input"),
    ("LpNormalization", 1, [_f(2, 3)], dict(p=3), "p 3 is not 1 or 2"),
    ("Reshape", 13, [_f(2, 3), np.array([0, 0, 0], I8)], {},
     "shape [0, 0, 0]: the 0 at index 2 copies data's dim 2, and data [2, 3] has 2"),
    ("Flatten", 13, [_f(2, 3)], dict(axis=3), "axis 3 is out of range for a 2-d input"),
    ("CenterCropPad", 18, [_f(3, 4, 4), np.array([2, 2], I8)], dict(axes=[3, 2]),
     "axis 3 is out of range for a 3-d input"),
    # Col2Im's columns are one per block of the image (it had reshaped them to any count)
    ("Col2Im", 18, [_f(1, 5, 15), np.array([5, 5], I8), np.array([1, 5], I8)], {},
     "input [1, 5, 15] is not [N, C * 5, 5]: blocks of [1, 5] over image_shape [5, 5] number 5"),
    # a conv's kernel_shape repeats its filter's dims; output_padding stays under the stride
    ("Conv", 11, [_f(1, 2, 6, 6), _f(3, 2, 3, 3)], dict(kernel_shape=[2, 2]),
     "kernel_shape [2, 2] differs from filter [3, 2, 3, 3]'s spatial dims"),
    ("ConvTranspose", 11, [_f(1, 2, 4, 4), _f(2, 3, 3, 3)], dict(kernel_shape=[2, 2]),
     "kernel_shape [2, 2] differs from filter [2, 3, 3, 3]'s spatial dims"),
    ("DeformConv", 19, [_f(1, 2, 4, 4), _f(3, 2, 3, 3), _f(1, 18, 2, 2)],
     dict(kernel_shape=[2, 2]), "kernel_shape [2, 2] differs from filter [3, 2, 3, 3]'s spatial "
     "dims"),
    ("ConvTranspose", 11, [_f(1, 2, 4, 4), _f(2, 3, 3, 3)],
     dict(strides=[2, 2], output_padding=[2, 2]),
     "output_padding [2, 2] is not less than strides [2, 2] or dilations [1, 1]"),
    # a count that must be positive (the reference and we had read hidden_size 0 as absent)
    ("LSTM", 14, [_f(1, 3, 2), _f(1, 12, 2), _f(1, 12, 3)], dict(hidden_size=0),
     "hidden_size 0 is not positive"),
    ("LRN", 13, [_f(1, 3, 2, 2)], dict(size=-5), "size -5 is not positive"),
    # a sampling grid no memory holds: the process was killed for memory
    ("RoiAlign", 16, [_f(1, 1, 10, 10), np.array([[0, 0, 4, 4]], F4), np.zeros(1, I8)],
     dict(sampling_ratio=1 << 31), "ROI 0's sampling grid of 2147483648x2147483648 per bin "
     "makes 4,611,686,018,427,387,904 samples, more than the 16,777,216 this kernel holds at "
     "once (sampling_ratio 2147483648)"),
    ("Resize", 18, [_f(1, 1, 2, 2), np.zeros(0, F4), np.array([2, 2], F4)], dict(axes=[2]),
     "scales has 2 values for 1 axes"),
    ("SplitToSequence", 11, [_f(3, 6), np.array([1, 2], I8)], dict(axis=-1),
     "split sizes [1, 2] do not cut dim 1 of size 6"),
    ("SplitToSequence", 11, [_f(3, 6), np.array(0, I8)], {}, "split 0 is not positive"),
    ("Split", 13, [_f(3, 6), np.array([3, 3], I8)], dict(axis=2),
     "axis 2 is out of range for a 2-d input"),
    ("TfIdfVectorizer", 9, [np.array([1, 2, 3], I8)],
     dict(max_gram_length=3, min_gram_length=1, max_skip_count=0, mode="TF",
          ngram_counts=[0, 2], ngram_indexes=[0, 1, 2], pool_int64s=[1, 2, 1, 2]),
     "max_gram_length 3 is past the 2 gram length(s) ngram_counts starts in the pool"),
    # offsets for another offset_group count: numpy's reshape refused them in its words
    ("DeformConv", 19, [_f(1, 4, 4, 4), _f(3, 4, 3, 3), _f(1, 36, 2, 2)], dict(offset_group=99),
     "offset [1, 36, 2, 2] are not [N, offset_group * 2 * kh * kw, oh, ow] and [N, "
     "offset_group * kh * kw, oh, ow] for X [1, 4, 4, 4], W [3, 4, 3, 3] and offset_group 99"),
    # a start past the pool's end had the pool walked to 2^31
    ("TfIdfVectorizer", 9, [np.array([1, 2, 3], I8)],
     dict(max_gram_length=2, min_gram_length=1, max_skip_count=0, mode="TF",
          ngram_counts=[0, 1 << 31], ngram_indexes=[0, 1, 2], pool_int64s=[1, 2, 1, 2]),
     "ngram_counts [0, 2147483648] are not offsets into the pool of 4, each at or past the one "
     "before"),
    # attributes the node suite's cases were swept with (-1, 0, 99, 2^31): numpy's reshape,
    # broadcast and integer division refused them in their own words
    ("RotaryEmbedding", 23, [_f(2, 3, 32), _f(8, 2), _f(8, 2), np.zeros((2, 3), I8)],
     dict(num_heads=0), "x's hidden size 32 does not split into 0 heads"),
    ("RotaryEmbedding", 23, [_f(2, 3, 32), _f(8, 2), _f(8, 2), np.zeros((2, 3), I8)],
     dict(num_heads=-1), "x's hidden size 32 does not split into -1 heads"),
    ("RotaryEmbedding", 23, [_f(2, 4, 3, 8), _f(8, 2), _f(8, 2), np.zeros((2, 3), I8)],
     dict(rotary_embedding_dim=-1),
     "rotary_embedding_dim -1 is not an even count of at most the head size 8"),
    ("RotaryEmbedding", 23, [_f(2, 4, 3, 8), _f(8, 2), _f(8, 2), np.zeros((2, 3), I8)], {},
     "cos_cache and sin_cache at position_ids are [2, 3, 2] and [2, 3, 2], not [batch 2, seq "
     "3, rotary dim / 2 = 4]"),
    ("Attention", 23, [_f(1, 2, 3, 4), _f(1, 2, 5, 4), _f(1, 2, 5, 4), np.array(0.5, F4)], {},
     "attn_mask of shape [] does not broadcast to the scores [batch, heads, q, kv] [1, 2, 3, "
     "5]"),
    ("Attention", 23, [_f(1, 2, 3, 4), _f(1, 2, 5, 4), _f(1, 2, 5, 4), _f(2, 5)], {},
     "attn_mask of shape [2, 5] does not broadcast to the scores [batch, heads, q, kv] [1, 2, "
     "3, 5]"),
    ("Attention", 23, [_f(1, 2, 3, 4), _f(1, 2, 5, 4), _f(1, 2, 5, 4), _f(3, 6)], {},
     "attn_mask of shape [3, 6] does not broadcast to the scores [batch, heads, q, kv] [1, 2, "
     "3, 5]"),
    ("Col2Im", 18, [_f(1, 9, 4), np.array([5, 5], I8), np.array([3, 3], I8)],
     dict(strides=[0, 2]), "strides [0, 2] and dilations [1, 1] are not all positive"),
    ("RoiAlign", 16, [_f(1, 1, 10, 10), np.array([[0, 0, 4, 4]], F4), np.zeros(1, I8)],
     dict(output_height=-1), "output_height -1 is not positive"),
    ("ConvTranspose", 11, [_f(1, 1, 3, 3), _f(1, 2, 3, 3)], dict(strides=[3, 2],
                                                                  pads=[9, 2, 1, 2]),
     "the output's spatial dims [-1, 3] are not all positive (pads [9, 2, 1, 2])"),
    ("Bernoulli", 15, [_f(2, 2)], dict(seed=float("nan")), "seed nan is not a finite number"),
    # one node of an expanded function's swept: numpy's and onnx's helper's words ("high - low <
    # 0", "can only convert an array of size 1 to a Python scalar", a bare "0")
    ("RandomUniformLike", 22, [_f(2, 2)], dict(low=2.0, high=1.0),
     "low 2.0 and high 1.0 are not finite with low <= high"),
    ("RandomNormalLike", 22, [_f(2, 2)], dict(scale=-1.0), "scale -1.0 is negative"),
    ("Range", 11, [np.array([0, 1], I8), np.array(5, I8), np.array(1, I8)], {},
     "start, limit and delta of shapes [[2], [], []] are not all scalars"),
    ("Cast", 21, [_f(2, 2)], dict(to=0), "attribute 'to' is UNDEFINED, no tensor element type"),
    ("EyeLike", 9, [_f(2, 2)], dict(dtype=-1),
     "attribute 'dtype' is -1 (no such ONNX type), no tensor element type"),
    *VALUE_CASES,   # an index past its axis, a scale or bound that is not finite
]


@pytest.mark.parametrize("op, opset, inputs, attrs, said", CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_inputs_that_disagree_are_refused_by_name(op, opset, inputs, attrs, said):
    with pytest.raises(ValueError, match="^" + re.escape(said) + "$"):
        run_kernel(op, inputs, opset, **attrs)
