"""Outputs that are random draws: compared by shape, dtype and range, never value by value.

The node suite's Bernoulli cases and training-mode Dropout draw from numpy's global generator when
the cases are made; no other implementation can reproduce those draws (the spec says so), so the
values cannot match. What can: the shape, the dtype, and that every value is one the op could
have drawn -- within the range the expected draw spans (a Bernoulli draw of 0s and 1s), or, for
Dropout, each value 0 or x / (1 - ratio).
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import onnx

RANDOM_OPS = frozenset({"Bernoulli", "Multinomial", "RandomNormal", "RandomNormalLike",
                        "RandomUniform", "RandomUniformLike"})


def _training_dropout(model: onnx.ModelProto, feeds: dict[str, Any]) -> onnx.NodeProto | None:
    """The model's Dropout node if it runs in training mode (its third input fed true)."""
    for node in model.graph.node:
        if node.op_type == "Dropout" and len(node.input) > 2 and node.input[2] in feeds \
                and bool(np.asarray(feeds[node.input[2]])):
            return node
    return None


def is_random(model: onnx.ModelProto, feeds: dict[str, Any]) -> bool:
    """Whether the model's outputs are random draws."""
    return any(n.op_type in RANDOM_OPS for n in model.graph.node) \
        or _training_dropout(model, feeds) is not None


def mismatch(model: onnx.ModelProto, feeds: dict[str, Any], outputs: Sequence[Any],
             expected: Sequence[Any]) -> str | None:
    """None if ``outputs`` could be a draw like ``expected``, else the first difference."""
    if len(outputs) != len(expected):
        return f"{len(outputs)} outputs, expected {len(expected)}"
    dropout = _training_dropout(model, feeds)
    for i, (got, want) in enumerate(zip(outputs, expected)):
        got, want = np.asarray(got), np.asarray(want)
        if got.shape != want.shape:
            return f"output {i}: shape {got.shape}, expected {want.shape}"
        if got.dtype != want.dtype:
            return f"output {i}: dtype {got.dtype}, expected {want.dtype}"
        if want.dtype == bool or want.size == 0:
            continue
        if dropout is not None and i == 0:
            x = np.asarray(feeds[dropout.input[0]])
            ratio = feeds.get(dropout.input[1]) if dropout.input[1] else None
            scale = 1 / (1 - (0.5 if ratio is None else float(np.asarray(ratio))))
            ok = (got == 0) | np.isclose(got, x * scale, rtol=1e-5)
            what = "neither 0 nor x / (1 - ratio)"
        else:
            ok = (got >= want.min()) & (got <= want.max())
            what = f"outside the draw's range [{want.min():g}, {want.max():g}]"
        if not ok.all():
            return f"output {i}: {int((~ok).sum())} of {want.size} values {what}"
    return None
