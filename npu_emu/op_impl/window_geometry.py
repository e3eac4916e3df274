"""Where the windows of a conv or pool sit: the geometry nn.py computes once per call and the
conv paths (im2col, taps, depthwise) read."""
from __future__ import annotations

from typing import NamedTuple


class Geometry(NamedTuple):
    """Where the windows of a conv or pool sit, per spatial axis."""

    kernel: tuple[int, ...]
    strides: tuple[int, ...]
    dilations: tuple[int, ...]
    begin: tuple[int, ...]  # padding before the input
    end: tuple[int, ...]  # padding after the input, as declared (ceil_mode may reach past it)
    out: tuple[int, ...]
