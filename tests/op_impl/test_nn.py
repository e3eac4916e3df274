"""nn kernels against independent implementations: onnx's ReferenceEvaluator, and onnxruntime
where the evaluator is wrong or missing (each such case says why)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given
from hypothesis import strategies as st

from ge_core.executor import HostExecutor
from ge_core.parser import parse_onnx
from kernel_oracle import (check_kernel, derandomized, one_node_model, onnxruntime, reference,
                           run_kernel)

OPSET = 22
RTOL, ATOL = 1e-4, 1e-5
HYPOTHESIS = derandomized(max_examples=300, suppress_health_check=[HealthCheck.too_slow])


def check(op: str, inputs: list[np.ndarray | None], attrs: dict, opset: int = OPSET,
          n_outputs: int = 1, engine: str = "reference") -> None:
    """The kernel matches the outputs of ``engine``: "reference" or "onnxruntime"."""
    want = (reference if engine == "reference" else onnxruntime)(op, inputs, opset, n_outputs,
                                                                 **attrs)
    check_kernel(op, inputs, opset, want, rtol=RTOL, atol=ATOL, **attrs)


def rand(*shape: int, seed: int = 0, dtype=np.float32) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


# --- window geometry shared by the conv and pool strategies ---------------------------------

@st.composite
def windows(draw, max_kernel: int = 3, pool: bool = False) -> tuple[list[int], list[int], dict]:
    """(spatial input shape, kernel shape, attrs) for a random conv/pool window layout."""
    nd = draw(st.integers(1, 3))

    def per_axis(lo: int, hi: int) -> list[int]:
        return draw(st.lists(st.integers(lo, hi), min_size=nd, max_size=nd))

    kernel = per_axis(1, max_kernel)
    attrs: dict = {"strides": per_axis(1, 3), "dilations": per_axis(1, 2)}
    extents = [d * (k - 1) + 1 for k, d in zip(kernel, attrs["dilations"])]
    spatial = [e + draw(st.integers(0, 4 if nd < 3 else 2)) for e in extents]
    attrs["auto_pad"] = draw(st.sampled_from(["NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"]))
    if attrs["auto_pad"].startswith("SAME"):
        # A stride past the window would make SAME's total padding negative: the spec's formula
        # then crops the input, onnxruntime refuses (MaxPool) or crops (AveragePool) and the
        # evaluator crops differently. The kernels clamp it at zero, as TensorFlow's SAME does.
        attrs["strides"] = [min(s, e) for s, e in zip(attrs["strides"], extents)]
    if attrs["auto_pad"] == "NOTSET":
        # Pads below the window extent keep an input element in every window; pools keep them
        # below the kernel size, the most onnxruntime accepts (see check_pool).
        limits = kernel if pool else extents
        attrs["pads"] = [draw(st.integers(0, n - 1)) for n in limits * 2]
        if pool:
            attrs["ceil_mode"] = draw(st.integers(0, 1))
    return spatial, kernel, attrs


# --- Conv -----------------------------------------------------------------------------------

@given(windows(), st.integers(1, 3), st.integers(1, 2), st.integers(1, 2), st.booleans())
@HYPOTHESIS
def test_conv_matches_reference(window, group, c_per_group, m_per_group, bias):
    spatial, kernel, attrs = window
    x = rand(2, group * c_per_group, *spatial)
    w = rand(group * m_per_group, c_per_group, *kernel, seed=1)
    b = rand(group * m_per_group, seed=2) if bias else None
    check("Conv", [x, w, b], {**attrs, "group": group, "kernel_shape": kernel})


@pytest.mark.parametrize("opset", [6, 11, 22])
@pytest.mark.parametrize("attrs", [
    {},
    {"pads": [1, 1, 1, 1]},
    {"strides": [2, 2], "pads": [3, 3, 3, 3]},  # ResNet stem
    {"group": 4},  # depthwise
    {"dilations": [2, 1], "pads": [0, 1, 2, 0]},
])
def test_conv_versions(opset, attrs):
    group = attrs.get("group", 1)
    x = rand(1, 4, 9, 8)
    check("Conv", [x, rand(8, 4 // group, 3, 3, seed=1), rand(8, seed=2)], attrs, opset)


@pytest.mark.parametrize("x_shape, w_shape, attrs", [
    # stride 1: im2col's columns from shifted runs of the input (nn._shifted_columns); few
    # outputs per input channel (the per-tap path's shapes, before it)
    ((2, 16, 7, 6), (4, 16, 3, 3), {"pads": [1, 1, 1, 1]}),
    ((2, 16, 9, 8), (8, 16, 3, 2), {"dilations": [2, 3], "pads": [2, 0, 1, 3]}),
    ((1, 12, 4, 5, 6), (3, 12, 2, 3, 3), {"pads": [1, 0, 1, 0, 1, 1]}),
    ((1, 10, 9), (5, 10, 4), {"pads": [2, 1]}),
    # grouped (the flat path's shapes, before it)
    ((2, 6, 7, 8), (6, 1, 5, 3), {"group": 6, "pads": [2, 1, 2, 1], "dilations": [1, 2]}),
    ((1, 8, 4, 5, 6), (4, 4, 3, 2, 3), {"group": 2, "pads": [1, 0, 1, 1, 1, 1]}),
])
@pytest.mark.parametrize("bias", [False, True])
def test_conv_stride_1_paths(x_shape, w_shape, attrs, bias):
    w = rand(*w_shape, seed=1)
    check("Conv", [rand(*x_shape), w, rand(w_shape[0], seed=2) if bias else None],
          {**attrs, "kernel_shape": list(w_shape[2:])})


@pytest.mark.parametrize("x_shape, w_shape, attrs", [
    # depthwise, each tap a shift of the input (stride 1, "same" output) ...
    ((2, 5, 7, 6), (5, 1, 3, 3), {"group": 5, "pads": [1, 1, 1, 1]}),
    ((1, 4, 6, 9), (4, 1, 3, 5), {"group": 4, "pads": [2, 4, 2, 4], "dilations": [2, 2]}),
    ((1, 3, 11), (3, 1, 4), {"group": 3, "pads": [1, 2]}),
    ((1, 3, 4, 5, 3), (3, 1, 3, 2, 3), {"group": 3, "pads": [1, 0, 1, 1, 1, 1]}),
    # ... or of one of its phase planes (stride 2 over even maps, an asymmetric pad)
    ((2, 6, 8, 10), (6, 1, 3, 3), {"group": 6, "strides": [2, 2], "pads": [1, 1, 1, 1]}),
    ((1, 4, 6, 6), (4, 1, 2, 3), {"group": 4, "strides": [2, 3], "pads": [0, 1, 1, 1]}),
])
@pytest.mark.parametrize("bias", [False, True])
def test_depthwise_conv_by_shifts(x_shape, w_shape, attrs, bias):
    from npu_emu.op_impl.depthwise import depthwise_conv
    from npu_emu.op_impl.nn import _geometry
    x, w = rand(*x_shape), rand(*w_shape, seed=1)
    g = _geometry(x.shape[2:], w.shape[2:], attrs.get("strides"), attrs.get("dilations"),
                  attrs["pads"], "NOTSET")
    assert depthwise_conv(x, w, g, attrs["group"], None) is not None  # the path is taken
    check("Conv", [x, w, rand(w_shape[0], seed=2) if bias else None],
          {**attrs, "kernel_shape": list(w_shape[2:])})


def test_depthwise_conv_in_bands_of_channels(monkeypatch):
    # a large map's columns are built a band of channels at a time (here one channel a band)
    from npu_emu.op_impl import depthwise
    monkeypatch.setattr(depthwise, "_BAND_BYTES", 64)
    for strides in ([1, 1], [2, 2]):
        check("Conv", [rand(2, 5, 6, 8), rand(5, 1, 3, 3, seed=1), rand(5, seed=2)],
              {"group": 5, "pads": [1, 1, 1, 1], "strides": strides, "kernel_shape": [3, 3]})


def test_depthwise_conv_declines_what_it_cannot_shift():
    from npu_emu.op_impl.depthwise import depthwise_conv
    from npu_emu.op_impl.nn import _geometry
    x = rand(1, 4, 7, 7)
    odd = _geometry((7, 7), (3, 3), [2, 2], None, [1, 1, 1, 1], "NOTSET")  # planes of 4 and 3
    assert depthwise_conv(x, rand(4, 1, 3, 3), odd, 4, None) is None
    valid = _geometry((7, 7), (3, 3), None, None, None, "NOTSET")  # 5x5 out of a 7x7 input
    assert depthwise_conv(x, rand(4, 1, 3, 3), valid, 4, None) is None
    same = _geometry((7, 7), (3, 3), None, None, [1, 1, 1, 1], "NOTSET")
    assert depthwise_conv(x, rand(8, 1, 3, 3), same, 4, None) is None  # a channel multiplier


@pytest.mark.parametrize("w_shape, attrs", [
    ((12, 1, 3, 3), {"group": 12, "pads": [1, 1, 1, 1]}),                   # depthwise: shifts
    ((12, 1, 3, 3), {"group": 12, "pads": [1, 1, 1, 1], "strides": [2, 2]}),  # phase planes
    ((12, 1, 3, 3), {"group": 12}),                            # no depthwise path: a copy
    ((5, 12, 3, 3), {"pads": [1, 1, 1, 1]}),
])
@pytest.mark.parametrize("shuffle", [2, 3])
# a depthwise conv's columns in one band; a band of one channel (rounded up to the shuffle's
# groups); 9 channels at stride 1 (rounded down to 8 for g = 2: bands of 8 and 4)
@pytest.mark.parametrize("band_bytes", [None, 64, 2 * 9 * 8 * 6 * 4 * 9])
def test_conv_of_channels_shuffled(w_shape, attrs, shuffle, band_bytes, monkeypatch):
    # input_shuffle_group g (ShuffleChannelConvFusionPass's): the conv of the input after
    # ShuffleNet's Reshape (N, g, C/g, H, W) -> Transpose (0, 2, 1, 3, 4) -> Reshape
    from npu_emu.op_impl import depthwise
    if band_bytes:
        monkeypatch.setattr(depthwise, "_BAND_BYTES", band_bytes)
    x, w, b = rand(2, 12, 8, 6), rand(*w_shape, seed=1), rand(w_shape[0], seed=2)
    shuffled = x.reshape(2, shuffle, 12 // shuffle, 8, 6).transpose(0, 2, 1, 3, 4)
    want = reference("Conv", [shuffled.reshape(x.shape), w, b], OPSET, **attrs)
    check_kernel("Conv", [x, w, b], OPSET, want, rtol=RTOL, atol=ATOL,
                 input_shuffle_group=shuffle, **attrs)
    if "pads" in attrs and w_shape[0] == 12:  # the depthwise path takes it, in any band
        from npu_emu.op_impl.nn import _geometry
        g = _geometry(x.shape[2:], w.shape[2:], attrs.get("strides"), None, attrs["pads"],
                      "NOTSET")
        assert depthwise.depthwise_conv(x, w, g, 12, None, shuffle) is not None


def test_conv_refuses_a_shuffle_group_that_does_not_divide_the_channels():
    with pytest.raises(ValueError, match="input_shuffle_group 5 does not divide the 12 input"):
        run_kernel("Conv", [rand(1, 12, 4, 4), rand(12, 1, 3, 3)], OPSET, group=12,
                   input_shuffle_group=5)


def test_conv_1x1_float64():
    x, w = rand(2, 6, 5, 4, dtype=np.float64), rand(3, 6, 1, 1, seed=1, dtype=np.float64)
    check("Conv", [x, w], {})


# --- ConvTranspose --------------------------------------------------------------------------
# The reference evaluator's ConvTranspose mishandles group > 1 and output_shape with
# auto_pad=NOTSET (it keeps pads at zero instead of deriving them): onnxruntime is the oracle.

@pytest.mark.parametrize("shape, w_shape, attrs", [
    ((2, 3, 4), (3, 2, 3), {"strides": [2]}),
    ((2, 3, 4), (3, 2, 3), {"strides": [3], "pads": [1, 2], "output_padding": [2],
                            "dilations": [2]}),
    ((1, 2, 4, 5), (2, 3, 3, 2), {}),
    ((1, 2, 4, 5), (2, 3, 3, 3), {"strides": [2, 2], "pads": [1, 1, 1, 1],
                                  "output_padding": [1, 1]}),
    ((1, 2, 4, 5), (2, 3, 3, 2), {"strides": [3, 2], "pads": [0, 1, 2, 0],
                                  "output_padding": [2, 1]}),
    ((1, 2, 4, 5), (2, 3, 3, 3), {"strides": [2, 3], "output_shape": [9, 13]}),
    ((1, 2, 4, 5), (2, 3, 3, 3), {"strides": [2, 3], "output_shape": [8, 12],
                                  "auto_pad": "SAME_UPPER"}),
    ((1, 2, 4, 5), (2, 3, 3, 3), {"strides": [2, 2], "auto_pad": "SAME_UPPER"}),
    ((1, 2, 4, 5), (2, 3, 3, 3), {"strides": [2, 2], "auto_pad": "SAME_LOWER"}),
    ((1, 2, 4, 5), (2, 3, 2, 2), {"dilations": [2, 2], "auto_pad": "VALID"}),
    ((2, 4, 3, 4), (4, 3, 3, 2), {"group": 2, "strides": [2, 1], "pads": [1, 0, 0, 1]}),
    ((1, 6, 3, 3), (6, 1, 3, 3), {"group": 6, "strides": [2, 2]}),
    ((1, 2, 3, 4, 3), (2, 2, 2, 3, 2), {"strides": [2, 1, 2], "pads": [1, 0, 0, 0, 1, 1]}),
])
@pytest.mark.parametrize("bias", [False, True])
def test_conv_transpose(shape, w_shape, attrs, bias):
    w = rand(*w_shape, seed=1)
    b = rand(w_shape[1] * attrs.get("group", 1), seed=2) if bias else None
    check("ConvTranspose", [rand(*shape), w, b], attrs, engine="onnxruntime")


@given(windows(), st.integers(1, 2), st.integers(1, 2), st.integers(1, 2), st.data())
@HYPOTHESIS
def test_conv_transpose_matches_onnxruntime(window, group, c_per_group, m_per_group, data):
    kernel, attrs = window[1], window[2]
    spatial = [data.draw(st.integers(1, 4)) for _ in kernel]
    if "pads" in attrs:  # at most half the window each side, so the output is not empty
        extents = [d * (k - 1) + 1 for k, d in zip(kernel, attrs["dilations"])]
        attrs["pads"] = [min(p, (e - 1) // 2) for p, e in zip(attrs["pads"], extents * 2)]
    if attrs["auto_pad"] == "NOTSET" and data.draw(st.booleans()):
        # The spec allows output_padding below the stride or the dilation; onnxruntime only
        # below the stride.
        attrs["output_padding"] = [data.draw(st.integers(0, s - 1)) for s in attrs["strides"]]
    x = rand(2, group * c_per_group, *spatial)
    w = rand(group * c_per_group, m_per_group, *kernel, seed=1)
    check("ConvTranspose", [x, w, rand(group * m_per_group, seed=2)], {**attrs, "group": group},
          engine="onnxruntime")


def test_conv_transpose_opset6_output_shape_with_batch_dims():
    # Early exporters wrote output_shape as (N, C, H, W); onnxruntime rejects that, so compare
    # with the spatial-only spelling of the same node.
    x, w = rand(1, 2, 3, 3), rand(2, 3, 3, 3, seed=1)
    want = onnxruntime("ConvTranspose", [x, w], OPSET, strides=[2, 2], output_shape=[6, 7])
    check_kernel("ConvTranspose", [x, w], 6, want, rtol=RTOL, atol=ATOL, strides=[2, 2],
                 output_shape=[1, 3, 6, 7])


def test_conv_transpose_same_with_stride_past_kernel():
    # stride 3 > kernel 2: SAME wants more output than the scatter covers (negative total pad).
    # onnxruntime clamps the output short; the spec (and the evaluator) give input * stride.
    check("ConvTranspose", [rand(1, 2, 4, 5), rand(2, 3, 3, 2, seed=1)],
          {"strides": [2, 3], "auto_pad": "SAME_UPPER", "dilations": [2, 1]})


# --- MaxPool / AveragePool ------------------------------------------------------------------

def spec_same_pads(spatial: list[int], kernel: list[int], attrs: dict) -> list[int]:
    """The explicit pads the spec defines for auto_pad SAME_UPPER / SAME_LOWER."""
    begin, end = [], []
    for n, k, s, d in zip(spatial, kernel, attrs["strides"], attrs["dilations"]):
        total = (-(-n // s) - 1) * s + d * (k - 1) + 1 - n
        small, big = total // 2, total - total // 2
        begin.append(small if attrs["auto_pad"] == "SAME_UPPER" else big)
        end.append(big if attrs["auto_pad"] == "SAME_UPPER" else small)
    return begin + end


def check_pool(op: str, x: np.ndarray, kernel: list[int], attrs: dict) -> None:
    """onnxruntime is the pools' oracle: the evaluator mis-sizes SAME_LOWER windows, some 1-D
    windows with asymmetric pads, dilated VALID windows, and averages over pads >= kernel
    wrongly. onnxruntime in turn sizes SAME windows without their dilation, so it is handed the
    spec's explicit pads instead."""
    explicit = {**attrs, "kernel_shape": kernel}
    if attrs.get("auto_pad", "").startswith("SAME"):
        explicit.update(auto_pad="NOTSET", pads=spec_same_pads(x.shape[2:], kernel, attrs))
    want = onnxruntime(op, [x], OPSET, **explicit)
    check_kernel(op, [x], OPSET, want, rtol=RTOL, atol=ATOL, **attrs, kernel_shape=kernel)


@given(windows(pool=True), st.integers(1, 2))
@HYPOTHESIS
def test_max_pool(window, channels):
    spatial, kernel, attrs = window
    check_pool("MaxPool", rand(2, channels, *spatial), kernel, attrs)


@given(windows(pool=True), st.integers(0, 1))
@HYPOTHESIS
def test_average_pool(window, count_include_pad):
    spatial, kernel, attrs = window
    attrs = {**attrs, "count_include_pad": count_include_pad}
    check_pool("AveragePool", rand(2, 2, *spatial), kernel, attrs)


@pytest.mark.parametrize("op", ["MaxPool", "AveragePool"])
@pytest.mark.parametrize("shape, attrs", [
    ((13, 13), {"kernel_shape": [3, 3], "strides": [2, 2]}),                   # odd, no pads
    ((14, 14), {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]}),
    ((7, 9), {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]}),                  # stride 1
    ((11, 10), {"kernel_shape": [3, 2], "strides": [2, 2], "pads": [0, 1, 1, 0],
                "ceil_mode": 1}),                                              # asymmetric
    ((9, 12), {"kernel_shape": [2, 3], "strides": [1, 2], "dilations": [2, 2],
               "pads": [1, 2, 1, 2]}),
    ((5, 5), {"kernel_shape": [5, 5]}),                                        # one window
    ((5, 8), {"kernel_shape": [3, 3], "strides": [2, 2], "ceil_mode": 1}),     # last one hangs
    ((6, 35), {"kernel_shape": [1, 3], "strides": [3, 2], "pads": [0, 1, 0, 1],
               "ceil_mode": 1}),                                               # a 1-tap axis
])
@pytest.mark.parametrize("count_include_pad", [0, 1])
def test_pools_taps_without_padding_match_reference(op, shape, attrs, count_include_pad):
    """Pools fold tap by tap over the unpadded input, each tap into the outputs it reaches, and
    along the inner axis over all rows at once where rows line up (nn._fold_flat), folding the
    border columns again: the model zoo's shapes and the edges of that clipping."""
    if op == "MaxPool" and count_include_pad:
        pytest.skip("MaxPool has no count_include_pad")
    if op == "AveragePool":
        attrs = {**attrs, "count_include_pad": count_include_pad}
    check(op, [rand(2, 3, *shape)], attrs, opset=19)


@pytest.mark.parametrize("op", ["MaxPool", "AveragePool"])
@pytest.mark.parametrize("opset", [6, 7, 8, 10, 11, 12])
def test_pool_versions(op, opset):
    attrs = {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 0, 1]}
    if opset >= 10:
        attrs["ceil_mode"] = 1
    if op == "AveragePool" and opset >= 7:
        attrs["count_include_pad"] = 1
    x = rand(2, 3, 8, 9)
    # AveragePool-1 has no count_include_pad; version 7 added it, defaulting to 0 to keep
    # version 1's (Caffe2's) exclusion of pads. The evaluator counts pads at version 1 only
    # because it reads the absent attribute as None, and None != 0: version 7 is the oracle.
    oracle_opset = 7 if op == "AveragePool" and opset == 6 else opset
    check_kernel(op, [x], opset, reference(op, [x], oracle_opset, **attrs), rtol=RTOL, atol=ATOL,
                 **attrs)


def test_max_pool_bfloat16():
    """MaxPool-22 takes bfloat16 (ml_dtypes' kind 'V'): its padding is -inf, not an integer
    minimum (numpy's iinfo refused it; found by the exec fuzz target)."""
    import ml_dtypes
    x = rand(1, 2, 5, 6).astype(ml_dtypes.bfloat16)
    attrs = {"kernel_shape": [2, 3], "pads": [1, 1, 1, 1]}
    check_kernel("MaxPool", [x], 22, reference("MaxPool", [x], 22, **attrs), rtol=0, atol=0,
                 **attrs)


def test_max_pool_int8():
    # The evaluator pads with NaN, which int8 cannot hold.
    x = np.random.default_rng(0).integers(-128, 128, (1, 2, 5, 6), dtype=np.int8)
    check("MaxPool", [x], {"kernel_shape": [2, 3], "pads": [1, 1, 1, 1]}, opset=12,
          engine="onnxruntime")


def test_max_pool_storage_order_does_not_change_values():
    check("MaxPool", [rand(1, 2, 6, 5)], {"kernel_shape": [2, 2], "storage_order": 1}, opset=8)


@pytest.mark.parametrize("shape, attrs", [
    ((2, 3, 7), {"kernel_shape": [3], "strides": [2], "pads": [1, 1]}),
    ((1, 2, 6, 5), {"kernel_shape": [2, 2], "storage_order": 1}),
    ((2, 2, 7, 8), {"kernel_shape": [3, 2], "strides": [2, 1], "pads": [1, 0, 1, 1],
                    "dilations": [1, 2]}),
    ((1, 2, 5, 4, 6), {"kernel_shape": [2, 2, 3], "strides": [1, 2, 2], "ceil_mode": 1}),
])
def test_max_pool_indices(shape, attrs):
    # Computed only when the node has the Indices output (the caller says num_outputs=2).
    want = onnxruntime("MaxPool", [rand(*shape)], 12, 2, **attrs)
    check_kernel("MaxPool", [rand(*shape)], 12, want, rtol=0, atol=0, num_outputs=2, **attrs)


@pytest.mark.parametrize("op", ["GlobalAveragePool", "GlobalMaxPool"])
@pytest.mark.parametrize("shape", [(2, 3, 7), (1, 4, 5, 6), (2, 2, 3, 4, 5)])
def test_global_pools(op, shape):
    # The evaluator's GlobalMaxPool keeps a wrong shape outside 2-D.
    check(op, [rand(*shape)], {}, opset=1, engine="onnxruntime")


# --- normalisation --------------------------------------------------------------------------

def batch_norm_inputs(shape: tuple[int, ...], param_shape: tuple[int, ...]) -> list[np.ndarray]:
    x = rand(*shape) * 3 + 5  # an offset mean checks that (x - mean) does not cancel badly
    scale, b, mean = (rand(*param_shape, seed=s) for s in (1, 2, 3))
    return [x, scale, b, mean + 5, np.abs(rand(*param_shape, seed=4)) + 0.1]


@pytest.mark.parametrize("shape", [(2, 3), (2, 3, 5), (2, 3, 4, 5), (1, 3, 2, 3, 4)])
@pytest.mark.parametrize("opset, attrs, engine", [
    # onnxruntime has no BatchNormalization before version 7.
    (6, {"is_test": 1, "epsilon": 1e-3, "momentum": 0.8}, "reference"),
    # The evaluator runs version 7 as version 6 in training mode, and version 9 in training
    # mode whenever momentum is set: inference is onnxruntime's.
    (7, {"epsilon": 1e-3}, "onnxruntime"),
    (9, {"epsilon": 1e-3, "momentum": 0.8}, "onnxruntime"),
    (14, {"epsilon": 1e-3, "training_mode": 0}, "reference"),
    (15, {}, "reference"),
])
def test_batch_normalization(shape, opset, attrs, engine):
    check("BatchNormalization", batch_norm_inputs(shape, shape[1:2]), attrs, opset, engine=engine)


@pytest.mark.parametrize("opset", [6, 7])
def test_batch_normalization_not_spatial(opset):
    # spatial=0: one parameter per (C, H, W) element. The evaluator ignores the attribute and
    # onnxruntime starts at version 7, whose semantics version 6 shares.
    inputs = batch_norm_inputs((2, 3, 4, 5), (3, 4, 5))
    want = onnxruntime("BatchNormalization", inputs, 7, spatial=0)
    attrs = {"spatial": 0, "is_test": 1} if opset == 6 else {"spatial": 0}
    check_kernel("BatchNormalization", inputs, opset, want, rtol=RTOL, atol=ATOL, **attrs)


@pytest.mark.parametrize("shape", [(2, 3), (2, 3, 4), (2, 3, 4, 5)])
def test_batch_normalization_training_mode(shape):
    # Y from the batch's statistics; the running mean and variance move toward them.
    check("BatchNormalization", batch_norm_inputs(shape, shape[1:2]),
          {"training_mode": 1, "momentum": 0.8, "epsilon": 1e-3}, n_outputs=3)


@pytest.mark.parametrize("shape", [(2, 3, 7), (2, 3, 4, 5), (1, 2, 3, 4, 5)])
def test_instance_normalization(shape):
    inputs = [rand(*shape) * 2 + 3, rand(shape[1], seed=1), rand(shape[1], seed=2)]
    check("InstanceNormalization", inputs, {"epsilon": 1e-3}, opset=6)


def test_instance_normalization_1_ignores_its_in_place_hint():
    """Version 1's consumed_inputs changes no value, and no kernel is handed it (the
    InstanceNormalization kernel had refused the keyword, in Python's words); the numbers are
    version 6's, as onnxruntime computes them."""
    inputs = [rand(2, 3, 4) * 2 + 3, rand(3, seed=1), rand(3, seed=2)]
    (want,) = onnxruntime("InstanceNormalization", inputs, 6)
    model, feeds = one_node_model("InstanceNormalization", inputs, 1, consumed_inputs=[0, 0, 0])
    (got,) = HostExecutor(parse_onnx(model)).run(feeds).values()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("size", [1, 3, 5])
@pytest.mark.parametrize("attrs", [{}, {"alpha": 1e-3, "beta": 0.6, "bias": 2.0}])
def test_lrn_odd_sizes(size, attrs):
    # The evaluator's LRN loops over the batch axis where it means channels: onnxruntime here.
    check("LRN", [rand(2, 7, 3, 4)], {"size": size, **attrs}, engine="onnxruntime")


@pytest.mark.parametrize("size", [2, 4])
def test_lrn_even_sizes(size):
    # onnxruntime refuses even sizes; the evaluator is right when N == C (see above).
    check("LRN", [rand(6, 6, 3, 4)], {"size": size, "alpha": 0.01}, opset=13)


def test_lrn_windows_wider_than_the_channels():
    """A window past every channel sums them all: clipped to 2C - 1 taps, where a size of 2^31
    had been a Python loop over 2^31 taps (a hang, found by running mutated node-suite cases);
    alpha is still divided by the size given."""
    check("LRN", [rand(2, 7, 3, 4)], {"size": 15, "alpha": 0.5}, engine="onnxruntime")
    check("LRN", [rand(6, 6, 3, 4)], {"size": 1 << 31, "alpha": 1e9}, opset=13)


@pytest.mark.parametrize("op, attrs", [
    ("AveragePool", {"auto_pad": "SAME_UPPER"}),
    ("AveragePool", {"auto_pad": "SAME_LOWER", "count_include_pad": 1}),
    ("MaxPool", {"auto_pad": "SAME_LOWER"}),
    ("LpPool", {"auto_pad": "SAME_UPPER", "p": 2}),
])
def test_a_pools_window_past_its_input_folds_only_the_taps_that_land_in_it(op, attrs):
    """With "same" padding, a kernel of 2^31 taps along W reads every column from each output,
    as one of 9 over 5 columns does (onnxruntime's numbers for that); it had been a Python loop
    over 2^31 taps (a hang, found by running mutated node-suite cases on the device)."""
    x = rand(1, 2, 5, 5)
    (got,) = run_kernel(op, [x], 18, kernel_shape=[3, 1 << 31], **attrs)
    (want,) = onnxruntime(op, [x], 18, kernel_shape=[3, 9], **attrs)
    if attrs.get("count_include_pad"):   # divided by the whole window, padding included
        want = want * 9 / float(1 << 31)
    np.testing.assert_allclose(got, want, rtol=1e-5)


# --- Dropout --------------------------------------------------------------------------------

@pytest.mark.parametrize("opset, attrs, mask_dtype", [
    (6, {"is_test": 1, "ratio": 0.3}, np.float32),
    (7, {"ratio": 0.3}, np.float32),
    (10, {"ratio": 0.3}, np.bool_),
    (12, {"seed": 3}, np.bool_),
])
def test_dropout_inference_is_identity_with_full_mask(opset, attrs, mask_dtype):
    # Until version 10 the mask has the data's type. The evaluator gives bool masks at every
    # version and onnxruntime all-zero masks at versions 7-10, so the mask is checked here.
    x = rand(3, 4)
    y, mask = run_kernel("Dropout", [x], opset, **attrs)
    np.testing.assert_array_equal(y, x)
    assert not np.shares_memory(y, x)
    assert mask.dtype == mask_dtype and mask.shape == x.shape and mask.all()
    if opset >= 7:  # the evaluator has no Dropout before version 7
        check("Dropout", [x], attrs, opset)


def test_dropout_12_ratio_input_without_training_is_identity():
    x = rand(3, 4)
    check("Dropout", [x, np.array(0.7, np.float32), np.array(False)], {}, opset=13, n_outputs=2)


def test_dropout_12_training_is_seeded_and_scaled():
    x = np.ones((200, 50), np.float32)
    inputs = [x, np.array(0.25, np.float32), np.array(True)]
    y, mask = run_kernel("Dropout", inputs, OPSET, seed=7)
    y2, _ = run_kernel("Dropout", inputs, OPSET, seed=7)
    np.testing.assert_array_equal(y, y2)  # replayable
    assert y.dtype == np.float32 and mask.dtype == np.bool_
    np.testing.assert_allclose(y, np.where(mask, np.float32(1 / 0.75), 0), rtol=1e-6)
    assert abs(mask.mean() - 0.75) < 0.02
