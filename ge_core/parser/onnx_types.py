"""ONNX protobuf values as GE IR values: types as GeTensorDesc, tensors as GeTensor, attributes as
plain Python values. Each raises ValueError with a short reason; the parser adds where."""
from __future__ import annotations

import sys
from typing import Any, Callable, Sequence

import numpy as np
from onnx import AttributeProto, TensorProto, TypeProto, numpy_helper

from ge_core.graph.ge_tensor import UNKNOWN_DESC, UNKNOWN_DIM, GeShape, GeTensor, GeTensorDesc
from ge_core.graph.types import DataType
from ge_core.ops.data_type import data_type_from_onnx


def tensor_desc(type_proto: TypeProto) -> GeTensorDesc | None:
    """The desc of a tensor type (unknown and symbolic dims -> -1, no shape -> unknown rank, no
    type at all -> an unknown desc); a sequence or an optional is a DT_VARIANT scalar (a handle,
    as TensorFlow's TensorList is); None for a map."""
    kind = type_proto.WhichOneof("value")
    if kind is None:
        return UNKNOWN_DESC
    if kind in ("sequence_type", "optional_type"):
        return GeTensorDesc(GeShape(()), DataType.DT_VARIANT)
    if kind != "tensor_type":
        return None
    tensor_type = type_proto.tensor_type
    if not tensor_type.HasField("shape"):
        shape = GeShape.unknown_rank()
    else:
        shape = GeShape(tuple(d.dim_value if d.HasField("dim_value") else UNKNOWN_DIM
                              for d in tensor_type.shape.dim))
    return GeTensorDesc(shape, data_type_from_onnx(tensor_type.elem_type))


# Element types whose raw bytes, on a little-endian host, are the array as it stands.
_RAW_AS_IS = {} if sys.byteorder == "big" else {
    TensorProto.FLOAT: np.dtype(np.float32), TensorProto.DOUBLE: np.dtype(np.float64),
    TensorProto.INT64: np.dtype(np.int64), TensorProto.INT32: np.dtype(np.int32),
    TensorProto.INT8: np.dtype(np.int8), TensorProto.UINT8: np.dtype(np.uint8)}

# ... and the value lists that hold that element type as it stands
_VALUES_AS_IS = {TensorProto.FLOAT: "float_data", TensorProto.DOUBLE: "double_data",
                 TensorProto.INT64: "int64_data", TensorProto.INT32: "int32_data"}


def to_array(tensor: TensorProto) -> np.ndarray:
    """numpy_helper.to_array, its common cases (a plain type's raw bytes or value list, in the
    model) taken straight: its general checks cost as much as the parse's own work on a light
    model's few hundred weights. Raw bytes are viewed (read-only), as numpy_helper does."""
    # Repeated fields (dims, value lists) are sliced to lists first: numpy reads protobuf's
    # containers item by item, several times slower.
    dtype = _RAW_AS_IS.get(tensor.data_type)
    if dtype is not None and tensor.data_location == TensorProto.DEFAULT \
            and not tensor.HasField("segment"):
        if tensor.HasField("raw_data"):
            return np.frombuffer(tensor.raw_data, dtype).reshape(tensor.dims[:])
        field = _VALUES_AS_IS.get(tensor.data_type)
        if field is not None:   # a value list of the element type itself (a fill's value)
            return np.array(getattr(tensor, field)[:], dtype).reshape(tensor.dims[:])
    return numpy_helper.to_array(tensor)


def tensor_value(tensor: TensorProto) -> GeTensor:
    # to_array views the protobuf's bytes (read-only): weights are never copied here.
    array = to_array(tensor)
    try:
        return GeTensor(array)
    except TypeError as err:  # bfloat16, float8...: numpy dtypes GE has no DataType for
        raise ValueError(str(err)) from None


def type_text(type_proto: TypeProto) -> str:
    """A type as ONNX's docs write it: tensor(float), sequence(tensor(int64)), optional(...)."""
    kind = type_proto.WhichOneof("value")
    if kind == "tensor_type":
        return f"tensor({TensorProto.DataType.Name(type_proto.tensor_type.elem_type).lower()})"
    if kind in ("sequence_type", "optional_type"):
        return f"{kind[:-5]}({type_text(getattr(type_proto, kind).elem_type)})"
    return kind or "?"


_A = AttributeProto
_ATTR: dict[int, Callable[[AttributeProto], Any]] = {
    _A.FLOAT: lambda a: a.f,
    _A.INT: lambda a: a.i,
    _A.STRING: lambda a: a.s.decode(),
    _A.TENSOR: lambda a: to_array(a.t),
    _A.FLOATS: lambda a: a.floats[:],   # a slice of a repeated field is a list, made faster
    _A.INTS: lambda a: a.ints[:],
    _A.STRINGS: lambda a: [s.decode() for s in a.strings],
    _A.TENSORS: lambda a: [to_array(t) for t in a.tensors],
    _A.TYPE_PROTO: lambda a: type_text(a.tp),  # Optional's `type`: text, which no kernel reads
}


def attr_value(attr: AttributeProto) -> Any:
    """A non-graph attribute as int, float, str, list or numpy array."""
    convert = _ATTR.get(attr.type)
    if convert is None:
        kind = AttributeProto.AttributeType.Name(attr.type)
        raise ValueError(f"attribute {attr.name!r} of type {kind} is not supported")
    return convert(attr)


# Constant's value_* attrs and the dtype each one means.
_CONSTANT_SCALARS = {"value_float": np.float32, "value_floats": np.float32,
                     "value_int": np.int64, "value_ints": np.int64}


def constant_value(attrs: Sequence[AttributeProto]) -> GeTensor:
    """The tensor an ONNX Constant node holds (its attributes given), from whichever value attr
    it set."""
    for attr in attrs:
        if attr.name == "value":
            return tensor_value(attr.t)
        if attr.name in _CONSTANT_SCALARS:
            return GeTensor(np.array(attr_value(attr), dtype=_CONSTANT_SCALARS[attr.name]))
    names = [a.name for a in attrs]
    raise ValueError(f"Constant with {names or 'no value attr'} is not supported")
