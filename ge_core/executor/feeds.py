"""Inputs for a graph when the user gives none: seeded, so every run sees the same ones."""
from __future__ import annotations

import numpy as np

from ge_core.graph import ComputeGraph
from ge_core.graph.types import DataType


def random_feeds(graph: ComputeGraph, seed: int = 0) -> dict[str, np.ndarray]:
    """Seeded inputs shaped by the graph's Data descs (unknown dims as 1)."""
    rng = np.random.default_rng(seed)
    feeds = {}
    for n in graph.input_nodes:
        desc = n.op_desc.output_descs[0]
        dims = [] if desc.shape.rank is None else [d if d > 0 else 1 for d in desc.shape.dims]
        name = n.op_desc.output_names[0] or n.name
        if desc.dtype == DataType.DT_VARIANT:  # a sequence: an empty one
            feeds[name] = []
            continue
        if desc.dtype == DataType.DT_STRING:  # digits, which Cast can read back as numbers
            feeds[name] = rng.integers(0, 10, dims).astype(str).astype(object)
            continue
        dtype = desc.dtype.to_numpy()
        value = rng.random(dims) if dtype.kind == "f" else rng.integers(0, 4, dims)
        feeds[name] = np.asarray(value).astype(dtype)
    return feeds
