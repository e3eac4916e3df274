"""The single-op cache (GE's StreamResource op maps under SingleOpManager): an op compiled once
per (type, input shapes, dtypes, attributes, outputs, opset) and reused by every later call on
the same stream. A dynamic op's key has its unknown dims (-1) instead of the shapes, so calls
with any shape of the same rank hit it. One manager per World, one cache per stream.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from ge_core.runtime.single_op.single_op_model import DynamicSingleOp, SingleOp
from npu_emu.core.stream import Stream
from npu_emu.world import current_world


@dataclass(frozen=True)
class OpKey:
    op_type: str
    shapes: tuple[tuple[int, ...] | None, ...]   # None: an absent optional input
    dtypes: tuple[str | None, ...]
    attrs: tuple[tuple[str, Any], ...]
    num_outputs: int
    opset: int
    dynamic: bool


def freeze_attrs(attrs: dict[str, Any]) -> tuple[tuple[str, Any], ...]:
    """Attributes as a hashable key: sorted by name, arrays by dtype, shape and bytes."""
    def freeze(value: Any) -> Any:
        if isinstance(value, np.ndarray):
            return ("ndarray", value.dtype.str, value.shape, value.tobytes())
        if isinstance(value, (list, tuple)):
            return tuple(freeze(v) for v in value)
        return value
    return tuple((k, freeze(attrs[k])) for k in sorted(attrs))


@dataclass
class StreamResource:
    """One stream's compiled ops, named as GE's (runtime/v1/single_op/stream_resource.h: its
    op_map_ and dynamic_op_map_ are keyed by model id; ours by OpKey)."""

    stream: Stream
    ops: dict[OpKey, SingleOp | DynamicSingleOp] = field(default_factory=dict)
    hits: int = 0
    misses: int = 0

    def get_or_build(self, key: OpKey, build: Callable[[], SingleOp | DynamicSingleOp]
                     ) -> SingleOp | DynamicSingleOp:
        op = self.ops.get(key)
        if op is None:
            self.misses += 1
            op = self.ops[key] = build()
        else:
            self.hits += 1
        return op

    def release(self) -> None:
        for op in self.ops.values():
            op.release()
        self.ops.clear()


class SingleOpManager:
    """The world's single-op caches, by stream id."""

    def __init__(self) -> None:
        self.resources: dict[int, StreamResource] = {}

    def get_resource(self, stream: Stream) -> StreamResource:
        cache = self.resources.get(stream.id)
        if cache is None:
            cache = self.resources[stream.id] = StreamResource(stream)
        return cache

    def release_resource(self, stream: Stream) -> None:
        cache = self.resources.pop(stream.id, None)
        if cache is not None:
            cache.release()


def single_op_manager() -> SingleOpManager:
    """The current world's SingleOpManager (GE's SingleOpManager::GetInstance)."""
    return current_world().instance(SingleOpManager)
