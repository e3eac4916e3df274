"""GeShape, GeTensorDesc and GeTensor: what flows along a data edge, and a constant's value."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ge_core.graph.types import DataType, Format
from npu_emu.base.hot_event import hot_event

UNKNOWN_DIM = -1   # a dim known only at run time
UNKNOWN_RANK = -2  # GE writes an unknown-rank shape as the single dim -2
INT64_MAX = (1 << 63) - 1  # the most a dim or a byte size may be: ge_ir's fields are int64


@dataclass(frozen=True, slots=True)
class GeShape:
    dims: tuple[int, ...] = ()

    @staticmethod
    def unknown_rank() -> "GeShape":
        return _UNKNOWN_RANK_SHAPE

    @property
    def is_unknown_rank(self) -> bool:
        return self.dims == (UNKNOWN_RANK,)

    @property
    def is_unknown(self) -> bool:
        return min(self.dims, default=0) < 0   # in C: the build asks this of every tensor

    @property
    def rank(self) -> int | None:
        return None if self.is_unknown_rank else len(self.dims)

    def num_elements(self) -> int | None:
        return None if self.is_unknown else math.prod(self.dims)

    def __str__(self) -> str:
        if self.is_unknown_rank:
            return "[*]"
        return "[" + ",".join("?" if d == UNKNOWN_DIM else str(d) for d in self.dims) + "]"


# One for every desc not yet inferred (every node's every desc, as it is made): a shape is frozen
_UNKNOWN_RANK_SHAPE = GeShape((UNKNOWN_RANK,))

_KEPT: Any = object()   # GeTensorDesc.inferred: the field as it was


@hot_event
@dataclass(frozen=True, slots=True)
class GeTensorDesc:
    """A tensor's shape, type and layout. Frozen: a desc is replaced (OpDesc.update_input_desc,
    update_output_desc), never changed in place, so one desc is shared wherever it is the same
    (a producer's output and its consumers' inputs, a graph and a checkpoint's copy of it), and
    every change to one is an edit the trace sees."""
    shape: GeShape = _UNKNOWN_RANK_SHAPE
    dtype: DataType = DataType.DT_UNDEFINED
    format: Format = Format.FORMAT_ND
    origin_shape: GeShape | None = None
    origin_format: Format | None = None
    absent: bool = False  # an optional input the model left out (ONNX's empty input name)

    def inferred(self, shape: GeShape, dtype: DataType, *, origin_shape: Any = _KEPT,
                 absent: Any = _KEPT) -> GeTensorDesc:
        """This desc with the shape and dtype InferShape gives it (and, for a consumer's input,
        the producer's origin shape and absent no more); its layout and every other field
        carried. By the constructor: dataclasses.replace costs five times as much, at every
        desc InferShape writes."""
        return GeTensorDesc(shape, dtype, self.format,
                            self.origin_shape if origin_shape is _KEPT else origin_shape,
                            self.origin_format, self.absent if absent is _KEPT else absent)

    def __str__(self) -> str:
        return "absent" if self.absent else f"{self.dtype.short}{self.shape}"


# The desc of a tensor nothing is known of yet: a new op's every input and output (frozen, so one)
UNKNOWN_DESC = GeTensorDesc()
# An optional input the model left out (ONNX's empty input name)
ABSENT_DESC = GeTensorDesc(absent=True)


def raw_bytes(desc: GeTensorDesc) -> int:
    """The tensor's data bytes, no padding (GE's nopadding size; tensor_size pads it)."""
    n = desc.shape.num_elements()
    if n is None:
        raise ValueError(f"tensor {desc} has unknown dims: its size is known only at run time")
    item = _ITEMSIZE.get(desc.dtype)
    if item is None:
        item = _ITEMSIZE[desc.dtype] = 1 if desc.dtype in (DataType.DT_BOOL,
                                                           DataType.DT_UNDEFINED) \
            else desc.dtype.to_numpy().itemsize
    return n * item


_ITEMSIZE: dict[DataType, int] = {}   # raw_bytes' element sizes: the build asks per tensor


class GeTensor:
    """A constant: a desc plus host data (weights, folded constants)."""

    __slots__ = ("desc", "data")

    def __init__(self, data: np.ndarray, desc: GeTensorDesc | None = None) -> None:
        self.data = np.asarray(data)
        self.desc = desc or GeTensorDesc(GeShape(tuple(self.data.shape)),
                                         DataType.from_numpy(self.data.dtype))

    def __repr__(self) -> str:
        return f"<tensor {self.desc}>"
