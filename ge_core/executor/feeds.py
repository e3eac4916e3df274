"""Inputs for a graph when the user gives none: seeded, so every run sees the same ones."""
from __future__ import annotations

import math

import numpy as np

from ge_core.graph import ComputeGraph
from ge_core.graph.multi_batch_gears import Gears
from ge_core.graph.types import DataType
from npu_emu.runtime import RuntimeConfig

# Random inputs are made on the host and must fit the device they are copied to: more than the
# emulated device's memory could never run, so none is made (rather than the host running out).
MAX_FEED_BYTES = RuntimeConfig().memory_bytes


class FeedError(ValueError):
    """Random inputs that cannot be made for a graph; the message names the input."""


def random_feeds(graph: ComputeGraph, seed: int = 0,
                 max_bytes: int = MAX_FEED_BYTES) -> dict[str, np.ndarray]:
    """Seeded inputs shaped by the graph's Data descs (unknown dims as 1); a multi-batch graph's
    gear values are those of the inputs' shapes, the largest gear."""
    rng = np.random.default_rng(seed)
    feeds = {}
    total = 0
    for n in graph.input_nodes:
        desc = n.op_desc.output_descs[0]
        name = n.op_desc.output_names[0] or n.name
        dims = [] if desc.shape.rank is None else [d if d >= 0 else 1 for d in desc.shape.dims]
        if desc.dtype == DataType.DT_VARIANT:  # a sequence: an empty one
            feeds[name] = []
            continue
        try:   # a string is a host object: at least its pointer's bytes
            dtype = np.dtype(object) if desc.dtype == DataType.DT_STRING else \
                desc.dtype.to_numpy()
        except TypeError:
            raise FeedError(f"input {name!r} is {desc.dtype.short}{dims}: no random value can "
                            f"be made of that type") from None
        total += math.prod(dims) * dtype.itemsize
        if total > max_bytes:
            raise FeedError(f"input {name!r} ({desc.dtype.short}{dims}) brings the inputs to "
                            f"{total:,} bytes, more than the {max_bytes:,} bytes of device "
                            f"memory they must fit in")
        if desc.dtype == DataType.DT_STRING:  # digits, which Cast can read back as numbers
            feeds[name] = rng.integers(0, 10, dims).astype(str).astype(object)
            continue
        feeds[name] = _drawn(rng, dims, dtype)
    return with_gear(graph, feeds)


_CHUNK = 1 << 20   # values drawn at a time: the draws are float64 or int64, up to 8x the input


def _drawn(rng: np.random.Generator, dims: list[int], dtype: np.dtype) -> np.ndarray:
    """Uniform floats in [0, 1) (a float type), else integers 0..3, cast to ``dtype`` a chunk
    at a time: the values of one draw of the whole (the generator's stream is sequential), but
    a 2 GB uint8 input no longer needs 16 GB of int64 on the way."""
    out = np.empty(dims, dtype)
    flat = out.reshape(-1)
    for start in range(0, flat.size, _CHUNK):
        n = min(_CHUNK, flat.size - start)
        flat[start:start + n] = (rng.random(n) if dtype.kind == "f"
                                 else rng.integers(0, 4, n)).astype(dtype)
    return out


def with_gear(graph: ComputeGraph, feeds: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """``feeds`` with a multi-batch graph's gear values (the input ascend_mbatch_shape_data)
    set to the gear the other inputs' shapes are in: what GE's runtime writes there. A graph
    without gears, or a gear the inputs match none of, is left to the executor to refuse."""
    gears = Gears.of(graph)
    if gears is None:
        return feeds
    names = [n.op_desc.output_names[0] or n.name for n in graph.input_nodes]
    try:
        gear = gears.current([np.shape(feeds[k]) if k in feeds else None for k in names])
    except ValueError:
        return feeds
    shape_data = graph.input_nodes[gears.shape_data].op_desc.output_descs[0].dtype.to_numpy()
    return {**feeds, names[gears.shape_data]: np.array(gears.gears[gear], shape_data)}
