"""Where the windows of a conv or pool sit: the geometry nn.py computes once per call and the
conv paths (im2col, taps, depthwise) read."""
from __future__ import annotations

from typing import NamedTuple, Sequence


class Geometry(NamedTuple):
    """Where the windows of a conv or pool sit, per spatial axis."""

    kernel: tuple[int, ...]
    strides: tuple[int, ...]
    dilations: tuple[int, ...]
    begin: tuple[int, ...]  # padding before the input
    end: tuple[int, ...]  # padding after the input, as declared (ceil_mode may reach past it)
    out: tuple[int, ...]


def check_kernel_shape(kernel_shape: Sequence[int] | None, w_shape: Sequence[int]) -> None:
    """A conv's kernel_shape attribute, when given, repeats its filter's spatial dims (the
    kernels take the filter's): one that differs is the model's error, not a choice to make."""
    if kernel_shape is not None and list(kernel_shape) != list(w_shape[2:]):
        raise ValueError(f"kernel_shape {list(kernel_shape)} differs from filter "
                         f"{list(w_shape)}'s spatial dims")


def check_output_padding(output_padding: Sequence[int], strides: Sequence[int],
                         dilations: Sequence[int]) -> None:
    """ConvTranspose's output_padding stays under its stride or its dilation (the spec's bound:
    a larger one would pad past what any input reaches)."""
    if any(p >= s and p >= d for p, s, d in zip(output_padding, strides, dilations)):
        raise ValueError(f"output_padding {list(output_padding)} is not less than strides "
                         f"{list(strides)} or dilations {list(dilations)}")


def check_transpose_output(out: Sequence[int], in_shape: Sequence[int],
                           pads: Sequence[int]) -> None:
    """ConvTranspose's output dims are positive where its input's are (onnxruntime's "Computed
    output dimension is <= 0"): numpy cropped the scatter to nothing, and InferShape read a -1
    as an unknown dim. An input dim below 1 (an empty axis, or one InferShape does not know)
    is left."""
    if any(o < 1 <= i for o, i in zip(out, in_shape)):
        raise ValueError(f"the output's spatial dims {list(out)} are not all positive (pads "
                         f"{list(pads)})")
