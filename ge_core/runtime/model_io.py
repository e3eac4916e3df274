"""A model's inputs and outputs as a caller sees them (GE's InputOutputDescInfo, what
aclmdlGetDesc reports): name, dims, dtype, bytes, and where the built model keeps each.

Inputs are the Data nodes in index order; outputs are NetOutput's inputs in order, named by
NetOutput's input names (``output_<i>`` when unnamed), as the host executor names them. A caller
passes a host array or a ``DeviceBuffer`` (a device address it owns, as ACL's aclDataBuffer) for
each. A host array carries its shape, and every executor checks it the same way (check_feed):
the bytes fitting is not enough.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ge_core.graph import ComputeGraph, Format, GeTensorDesc
from ge_core.graph.attr_names import INPUT_OFFSET, OUTPUT_OFFSET
from ge_core.om.logical_memory import tensor_size
from ge_core.ops.host_cpu_ops import HOST_ONLY_DTYPES
from ge_core.runtime.errors import ModelInputError

NO_ADDRESS = -1   # a graph not built (hybrid, v2): its tensors have no planned place


@dataclass(frozen=True)
class IoDesc:
    index: int
    name: str
    dims: tuple[int, ...]
    dtype: np.dtype
    format: Format
    logical_addr: int      # where the built model keeps it (NO_ADDRESS if not built)
    reserved: int          # bytes the memory plan reserved there (GE's padded tensor size)

    @property
    def nbytes(self) -> int:
        return math.prod(self.dims) * self.dtype.itemsize

    def describe(self) -> str:
        return f"{self.name}: {self.dtype.name}{list(self.dims)}"


@dataclass(frozen=True)
class DeviceBuffer:
    """Device memory the caller owns (aclDataBuffer): ``size`` bytes at ``addr``."""

    addr: int
    size: int


def _io(index: int, name: str, desc: GeTensorDesc, addr: int) -> IoDesc:
    if desc.dtype in HOST_ONLY_DTYPES:   # strings, sequences: host objects, no device bytes
        return IoDesc(index, name, tuple(desc.shape.dims), np.dtype(object), desc.format, addr, 0)
    reserved = 0 if desc.shape.is_unknown else tensor_size(desc)
    return IoDesc(index, name, tuple(desc.shape.dims), desc.dtype.to_numpy(), desc.format, addr,
                  reserved)


def model_inputs(graph: ComputeGraph) -> list[IoDesc]:
    out = []
    for i, node in enumerate(graph.input_nodes):
        op = node.op_desc
        offsets = op.get_attr(OUTPUT_OFFSET) or [NO_ADDRESS]
        out.append(_io(i, op.output_names[0] or node.name, op.output_descs[0], offsets[0]))
    return out


def model_outputs(graph: ComputeGraph) -> list[IoDesc]:
    node = graph.output_node
    if node is None:
        return []
    op = node.op_desc
    offsets = op.get_attr(INPUT_OFFSET) or [NO_ADDRESS] * len(op.input_descs)
    return [_io(i, name or f"output_{i}", desc, addr)
            for i, (name, desc, addr) in enumerate(zip(op.input_names, op.input_descs, offsets))]


def check_feed(name: str, feed: object, dims: tuple[int, ...] | None,
               dtype: str) -> np.ndarray:
    """The feed as a contiguous array, if it fits the model's input (-1: any size). A string
    input (dtype ``object``, as _io describes it) takes Python strings."""
    array = np.asarray(feed, order="C")   # (ascontiguousarray would make a scalar 1-d)
    if dtype == "object":
        array = array.astype(object) if array.dtype.kind == "U" else array
        if array.dtype != object or not all(isinstance(x, str) for x in array.flat):
            raise ModelInputError(f"input {name}: {array.dtype} values, the model takes "
                                  f"strings")
    elif array.dtype != np.dtype(dtype):
        raise ModelInputError(f"input {name}: dtype {array.dtype}, the model takes {dtype}")
    if dims is not None and (len(dims) != array.ndim or
                             any(d >= 0 and d != n for d, n in zip(dims, array.shape))):
        raise ModelInputError(f"input {name}: shape {list(array.shape)}, the model takes "
                              f"{['?' if d < 0 else d for d in dims]}")
    return array
