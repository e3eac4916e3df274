"""GeTensorDesc <-> TensorDescriptor and GeTensor (or a bare numpy array) <-> TensorDef.

As GE's serializer does, a desc's origin shape and format go in its attr map ("origin_shape",
"origin_format") and its format is written by name in ``layout``. A weight can be *detached*: its
TensorDef keeps the desc with ``data_offset``/``weight_size`` pointing into the WEIGHTS_DATA
partition and no data, so an OM holds each weight once.
"""
from __future__ import annotations

import numpy as np

from ge_core.graph import GeShape, GeTensor, GeTensorDesc
from ge_core.graph.attr_names import ABSENT, ORIGIN_FORMAT, ORIGIN_SHAPE
from ge_core.graph.ge_tensor import INT64_MAX
from ge_core.graph.types import DataType, Format
from ge_core.om.logical_memory import tensor_size
from ge_core.om.proto import ge_ir_pb2 as pb
from ge_core.ops.host_cpu_ops import HOST_ONLY_DTYPES


class SerializeError(ValueError):
    """A value our schema cannot hold, or a def that does not decode to IR; the message names
    where."""


def utf8(raw: bytes) -> str:
    """A string GE's schema keeps as bytes (AttrDef's s), decoded."""
    try:
        return raw.decode()
    except UnicodeDecodeError:
        raise SerializeError(f"string {raw[:16]!r} is not UTF-8") from None


_LAYOUTS = {f: f.name.removeprefix("FORMAT_") for f in Format}   # asked of every desc


def _layout(fmt: Format) -> str:
    return _LAYOUTS[fmt]


def _format(layout: str) -> Format:
    if not layout:
        return Format.FORMAT_ND  # a bare array's desc (see tensor_def)
    try:
        return Format["FORMAT_" + layout]
    except KeyError:
        raise SerializeError(f"unknown layout {layout!r} (known: "
                             f"{', '.join(_layout(f) for f in Format)})") from None


def tensor_descriptor(desc: GeTensorDesc, name: str = "",
                      into: pb.TensorDescriptor | None = None) -> pb.TensorDescriptor:
    """``into``: a fresh descriptor to fill (an op's ``input_desc.add()``: no copy of a new
    one into the op)."""
    td = pb.TensorDescriptor() if into is None else into
    td.name, td.dtype, td.layout = name, int(desc.dtype), _layout(desc.format)
    td.shape.dim.extend(desc.shape.dims)
    if desc.origin_shape is not None:
        td.attr[ORIGIN_SHAPE].list.i.extend(desc.origin_shape.dims)
        td.attr[ORIGIN_SHAPE].list.val_type = pb.AttrDef.ListValue.VT_LIST_INT
    if desc.origin_format is not None:
        td.attr[ORIGIN_FORMAT].s = _layout(desc.origin_format).encode()
    if desc.absent:
        td.attr[ABSENT].b = True
    if not desc.absent and not desc.shape.is_unknown and desc.dtype not in HOST_ONLY_DTYPES:
        size = tensor_size(desc)  # what a loader allocates; GE's TensorUtils::SetSize
        if size > INT64_MAX:      # GE's CheckInt64MulOverflow refuses it as well
            raise SerializeError(f"tensor {desc} is {size:,} bytes, more than an int64 size "
                                 f"holds")
        td.size = size
    return td


def tensor_desc(td: pb.TensorDescriptor) -> GeTensorDesc:
    attr = td.attr
    try:
        dtype = DataType(td.dtype)
    except ValueError:
        raise SerializeError(f"data type {td.dtype} is not one our IR has") from None
    return GeTensorDesc(
        shape=GeShape(tuple(td.shape.dim)),
        dtype=dtype,
        format=_format(td.layout),
        origin_shape=GeShape(tuple(attr[ORIGIN_SHAPE].list.i)) if ORIGIN_SHAPE in attr else None,
        origin_format=_format(utf8(attr[ORIGIN_FORMAT].s)) if ORIGIN_FORMAT in attr else None,
        absent=ABSENT in attr and attr[ABSENT].b)


def _string_bytes(data: np.ndarray) -> bytes:
    """A string tensor as GE lays one out: a StringHead {int64 addr, int64 len} per element,
    addr the offset of its UTF-8 bytes from the tensor's start, then those bytes."""
    texts = [str(s).encode() for s in data.reshape(-1)]
    heads = np.empty((len(texts), 2), np.int64)
    heads[:, 1] = [len(t) for t in texts]
    heads[:, 0] = heads.nbytes + np.cumsum(heads[:, 1]) - heads[:, 1]
    return heads.tobytes() + b"".join(texts)


def _strings(raw: bytes | memoryview, dims: tuple[int, ...]) -> np.ndarray:
    n = int(np.prod(dims))
    heads = np.frombuffer(raw, np.int64, 2 * n).reshape(n, 2)
    raw = bytes(raw)
    return np.array([raw[at:at + length].decode() for at, length in heads.tolist()],
                    dtype=object).reshape(dims)


def tensor_def(value: GeTensor | np.ndarray, weight_offset: int | None = None) -> pb.TensorDef:
    """A TensorDef; ``weight_offset`` detaches the data to that offset of the weights."""
    if isinstance(value, GeTensor):
        data, desc = value.data, tensor_descriptor(value.desc)
        strings = value.desc.dtype == DataType.DT_STRING and data.dtype.kind in "OUS"
        if data.shape != value.desc.shape.dims or not strings and \
                data.dtype != value.desc.dtype.to_numpy():
            raise SerializeError(f"tensor {value.desc} holds {data.dtype}{list(data.shape)} data")
    else:
        # A framework attr's bare array (ONNX ConstantOfShape's value): it has no format, and
        # the empty layout is how it comes back as an array rather than a GeTensor.
        data = value
        desc = tensor_descriptor(GeTensorDesc(GeShape(data.shape), DataType.from_numpy(data.dtype)))
        desc.layout = ""
    raw = _string_bytes(data) if data.dtype.kind in "OUS" else \
        np.ascontiguousarray(data).tobytes()
    if weight_offset is None:
        return pb.TensorDef(desc=desc, data=raw)
    desc.data_offset, desc.weight_size = weight_offset, len(raw)
    return pb.TensorDef(desc=desc)


def tensor_value(td: pb.TensorDef, weights: bytes | None = None) -> GeTensor | np.ndarray:
    """The inverse of tensor_def; a detached tensor's data is read from ``weights``."""
    raw: bytes | memoryview = td.data
    if td.desc.weight_size and not td.data:
        start, end = td.desc.data_offset, td.desc.data_offset + td.desc.weight_size
        if weights is None or end > len(weights):
            have = "no weights" if weights is None else f"{len(weights)} bytes of weights"
            raise SerializeError(f"weight at [{start}, {end}) is outside the weights ({have})")
        raw = memoryview(weights)[start:end]
    desc = tensor_desc(td.desc)
    if desc.dtype == DataType.DT_STRING:
        data = _strings(raw, desc.shape.dims)
        return data if td.desc.layout == "" else GeTensor(data, desc)
    try:
        dtype = desc.dtype.to_numpy()
    except TypeError:
        raise SerializeError(f"tensor {desc} has data of type {desc.dtype.name}, "
                             "which holds no values") from None
    if len(raw) != dtype.itemsize * (desc.shape.num_elements() or 0):
        raise SerializeError(f"tensor {desc} has {len(raw)} bytes of data")
    # frombuffer shares the OM's bytes (read-only), as the parser shares the ONNX file's.
    data = np.frombuffer(raw, dtype=dtype).reshape(desc.shape.dims)
    return data if td.desc.layout == "" else GeTensor(data, desc)
